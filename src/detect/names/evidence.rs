//! Per-message evidence: the words of e-mail local parts in the same text
//! (`maria.ortiz@...`), which count as names there even in lower case.
//!
//! Collected once per `find` call (only when the text holds an `@`) and asked by the scan,
//! the idle scan and the judge, so it sits apart from all three.

use super::gazetteer::Gazetteer;
use super::idle::{GREETING_STOPS, IdleStops};

/// Per-call evidence: lower-case words of e-mail local parts that are known name words.
#[derive(Debug, Default)]
pub(super) struct Evidence {
    pub(super) words: Vec<String>,
    /// A 1024-bit filter over (length, first letter, last letter) of each word, case folded:
    /// most words of a text are rejected by one bit test, without comparing strings.
    pub(super) filter: [u64; 16],
    /// Whether there is any word (the filter is not empty).
    pub(super) any: bool,
    /// Bit `min(len, 63)` is set for the byte length of each word: most words of a text
    /// have no evidence word's length (short words first of all), one test rejects them.
    pub(super) lens: u64,
    /// The greetings' and these words' [`IdleStops`], once there is a word (most texts have
    /// none, and a JSON document is scanned string by string: the greetings' own table is
    /// shared, not copied per call).
    pub(super) idle: Option<Box<IdleStops>>,
}

impl Evidence {
    /// What stops `skip_idle` in this text: the greetings, and the words if any.
    pub(super) fn idle_stops(&self) -> &IdleStops {
        self.idle.as_deref().unwrap_or(&GREETING_STOPS)
    }
}

/// The filter bit of a word for [`Evidence`]: words equal up to ASCII case share it (`& 31`
/// maps an ASCII letter and its capital to the same value and leaves other bytes unchanged
/// by case folding).
#[inline]
pub(super) fn evidence_key(word: &[u8]) -> usize {
    let first = usize::from(word.first().map_or(0, |c| c & 31));
    let last = usize::from(word.last().map_or(0, |c| c & 31));
    ((first << 5) | last) ^ (word.len().wrapping_mul(37) & 1023)
}

impl Evidence {
    pub(super) fn collect(text: &str, gaz: &Gazetteer) -> Evidence {
        let mut ev = Evidence::default();
        let b = text.as_bytes();
        for at in memchr::memchr_iter(b'@', b) {
            if ev.words.len() >= 16 {
                break;
            }
            let mut s = at;
            while s > 0
                && (b[s - 1].is_ascii_alphanumeric()
                    || matches!(b[s - 1], b'.' | b'_' | b'-' | b'+'))
            {
                s -= 1;
            }
            for part in text[s..at].split(|c: char| !c.is_ascii_alphabetic()) {
                if part.len() >= 3
                    && ev.words.len() < 16
                    && gaz.lookup(part).is_some_and(|e| e.name() >= 1)
                    && !ev.has(part)
                {
                    ev.words.push(part.to_ascii_lowercase());
                    let k = evidence_key(part.as_bytes());
                    ev.filter[k / 64] |= 1 << (k % 64);
                    ev.any = true;
                    ev.lens |= 1 << part.len().min(63);
                    ev.idle
                        .get_or_insert_with(|| Box::new(GREETING_STOPS.clone()))
                        .add(part.as_bytes());
                }
            }
        }
        ev
    }

    pub(super) fn has(&self, word: &str) -> bool {
        self.has_bytes(word.as_bytes())
    }

    #[inline]
    pub(super) fn has_bytes(&self, word: &[u8]) -> bool {
        let k = evidence_key(word);
        self.lens & (1 << word.len().min(63)) != 0
            && self.filter[k / 64] & (1 << (k % 64)) != 0
            && self
                .words
                .iter()
                .any(|w| w.as_bytes().eq_ignore_ascii_case(word))
    }
}
