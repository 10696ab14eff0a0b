//! The idle scan: while no run is open, cross gaps and plain lower-case ASCII words 64 bytes
//! at a time, stopping only where the full scan has something to decide (a capital, a
//! non-ASCII byte, a word going on with `'` or `-`, a lower-case greeting, an evidence word).
//!
//! Apart because it is the cost of clean text: most bytes of most texts go through
//! `skip_idle` only, and its tables (`IdleStops`) are tested against a byte-by-byte scan.

use super::bytes::{AFTER, BEFORE, BYTE_CLASS, GOES_ON, ascii_letters_end, word_sides};
use super::evidence::Evidence;
use super::scan::shortcuts;
use crate::detect::lanes;

/// The lower-case words that stop `skip_idle` (greetings, e-mail evidence), as two tables
/// indexed by a word's first letter `c` (at `c & 31`): most words are rejected after one or
/// two loads, without comparing strings.
#[derive(Clone, Debug)]
pub(super) struct IdleStops {
    /// Bit `min(len, 63)` is set when such a word of `len` bytes starts with the letter.
    pub(super) lens: [u64; 32],
    /// Bit `last & 31` is set for the last letter of each such word that starts with the
    /// letter: the second test, for the words the first lets through ("the" has the first
    /// letter and length of "thx", not its last letter).
    pub(super) lasts: [u32; 32],
}

impl IdleStops {
    /// Whether `word` (not empty) has the first letter and length, and the first and last
    /// letter, of some word added (the test `skip_idle` makes): when not, it is none of them.
    #[inline]
    pub(super) fn passes(&self, word: &[u8]) -> bool {
        let key = usize::from(word[0] & 31);
        self.lens[key] & (1 << word.len().min(63)) != 0
            && self.lasts[key] & (1 << (word[word.len() - 1] & 31)) != 0
    }

    /// Adds `word` (ASCII letters; `& 31` folds their case).
    pub(super) const fn add(&mut self, word: &[u8]) {
        let (first, last) = ((word[0] & 31) as usize, word[word.len() - 1] & 31);
        let len = if word.len() < 63 { word.len() } else { 63 };
        self.lens[first] |= 1 << len;
        self.lasts[first] |= 1 << last;
    }
}

/// [`IdleStops`] of the [`LOWER_GREETINGS`] alone.
pub(super) static GREETING_STOPS: IdleStops = {
    let mut t = IdleStops {
        lens: [0; 32],
        lasts: [0; 32],
    };
    let mut i = 0;
    while i < LOWER_GREETINGS.len() {
        t.add(LOWER_GREETINGS[i].as_bytes());
        i += 1;
    }
    t
};

/// Whether `b` (lower-case ASCII bytes of a short word) is a greeting or thanks that may precede
/// a lower-case name ("hi megan", "thanks omar").
#[inline]
pub(super) fn is_lower_greeting(b: &[u8]) -> bool {
    matches!(
        b,
        b"hi" | b"hey" | b"hello" | b"dear" | b"thanks" | b"thx" | b"cheers" | b"cc" | b"yo"
    )
}

/// For each byte, whether right before or after a capitalised word of ASCII letters it makes
/// the scan drop the word at once, whatever else is around it: the bytes that
/// [`code_context`](super::runs::code_context) tests without a second look (not `@`, `[`,
/// `` ` ``, `_`, `0` or `.` before, which may open a mention, a Markdown phrase, `%20` or
/// follow an initial; not `<`, `_`, `\`, `.` or `:` after). `Ok(`, `Err(`, `42Z`, `#Tag`.
static CAPITAL_CONTEXT: [u8; 256] = word_sides(b"123456789#/\\$={|~^+%&", b"0123456789@(/=[{>+");

/// Whether the scan drops a capitalised word of ASCII letters between the bytes `before`
/// and `after` (a space at the text's start, a zero byte at its end) at once, by one of them
/// alone ([`CAPITAL_CONTEXT`]): `push_word` ends the run there (with no run open, it does
/// nothing) and the scan goes on after the word, so the idle scan may skip it.
#[inline(always)]
pub(super) fn code_either_side(before: u8, after: u8) -> bool {
    (CAPITAL_CONTEXT[usize::from(before)] & BEFORE) | (CAPITAL_CONTEXT[usize::from(after)] & AFTER)
        != 0
}

/// Skips, from `i`, what the scan would skip while no run is open and no lower-case word can
/// be a name: punctuation, digits, plain lower-case ASCII words, and capitalised words that
/// the bytes around them make code ([`code_either_side`]: `Ok(`, `42Z`). Stops at any other
/// capital, a non-ASCII byte, a lower-case greeting ("hi"), a word of `ev` (e-mail evidence)
/// or a word going on with `'`, `-` or a non-ASCII letter (the full scan decides those), at
/// the start of that word.
///
/// 64 bytes are classified at a time (`lanes`), and what can be told of all their words at
/// once is: where the words start and end, the first non-ASCII byte and the first word going
/// on with `'`, `-` or a non-ASCII byte. Only the words before the first of those are taken one
/// by one, each for its first letter, its length and its last letter (the [`IdleStops`]
/// tests), read from the block. A word that runs past the block starts the next block. Kept
/// out of line: inlined in the large scan loop, its constants and the text's bounds were
/// reloaded from the stack on every step.
#[inline(never)]
pub(super) fn skip_idle(b: &[u8], mut i: usize, ev: &Evidence) -> usize {
    let n = b.len();
    let stops = ev.idle_stops();
    // The last block of a text, zero-padded (zero bytes are in no class).
    let mut tail: [u8; 64];
    'blocks: while i < n {
        let block: &[u8; 64] = match b.get(i..i.saturating_add(64)).map(<&[u8; 64]>::try_from) {
            Some(Ok(block)) => block,
            _ => {
                tail = lanes::padded(b, i);
                &tail
            }
        };
        let c = lanes::idle64(block);
        let letters = c.letters;
        // A letter at `i` starts a word: the scan comes here at a word's start or in a gap.
        let starts = letters & !(letters << 1);
        // The byte after each word's last letter (never bit 0).
        let ends = !letters & (letters << 1);
        // Where the block's words stop the scan whatever their letters: at a non-ASCII byte,
        // or at the start of the first word going on with `'`, `-` or a non-ASCII byte (the
        // last start before that word's end).
        let mut limit = c.high.trailing_zeros();
        let goes_on = ends & (c.high | c.joiners);
        if goes_on != 0 {
            let before = starts & ((1u64 << goes_on.trailing_zeros()) - 1);
            limit = limit.min(63 - before.leading_zeros());
        }
        let mut words = starts & !u64::MAX.checked_shl(limit).unwrap_or(0);
        while words != 0 {
            let p = words.trailing_zeros() as usize;
            words &= words - 1;
            // A letter: below `a`, a capital.
            let first = block[p];
            let after = ends >> p;
            if first < b'a' {
                // A capitalised word that the bytes around it make code is skipped (its
                // letters end in the block, and no `'`, `-` or non-ASCII byte follows them:
                // it is before `limit`). The scan would flush no run and go on after it.
                if after != 0 && shortcuts() {
                    let before = match p.checked_sub(1) {
                        Some(q) => block[q],
                        None => b.get(i.wrapping_sub(1)).copied().unwrap_or(b' '),
                    };
                    if code_either_side(before, block[p + after.trailing_zeros() as usize]) {
                        continue;
                    }
                }
                return i + p;
            }
            if after == 0 {
                // The word runs past the block: the next block starts with it.
                if p > 0 {
                    i += p;
                    continue 'blocks;
                }
                match long_word(b, i, ev) {
                    Some(next) => {
                        i = next;
                        continue 'blocks;
                    }
                    None => return i,
                }
            }
            let end = p + after.trailing_zeros() as usize;
            // Two loads reject most words ("the", "to", "can"): no greeting or evidence word
            // has their first letter and length, or their first and last letter (`& 31` folds
            // the case of an ASCII letter, and the word is ASCII letters only).
            let key = usize::from(first & 31);
            if stops.lens[key] & (1 << (end - p)) != 0
                && stops.lasts[key] & (1 << (block[end - 1] & 31)) != 0
                && idle_stop_word(&block[p..end], ev)
            {
                return i + p;
            }
        }
        if limit < 64 {
            return i + limit as usize;
        }
        i += 64;
    }
    n
}

/// For a lower-case word of 64 letters or more at `i` (a block's letters all): where
/// [`skip_idle`] goes on after it, or `None` when the word stops the scan (it goes on with `'`,
/// `-` or a non-ASCII byte, or it is an evidence word).
#[cold]
#[inline(never)]
fn long_word(b: &[u8], i: usize, ev: &Evidence) -> Option<usize> {
    let end = ascii_letters_end(b, i);
    let next = b.get(end).copied();
    if next.is_some_and(|c| BYTE_CLASS[usize::from(c)] & GOES_ON != 0)
        || (ev.idle_stops().passes(&b[i..end]) && idle_stop_word(&b[i..end], ev))
    {
        return None;
    }
    // The byte after the word is ASCII and no letter: the next word starts after it.
    Some(end + usize::from(next.is_some()))
}

/// Whether the lower-case word `word`, which passed the [`IdleStops`] tests, stops
/// [`skip_idle`]: a greeting or a word of `ev`. Out of line: few words get here, and inlined
/// its set-up (the evidence list) was loaded on every call of the scan.
#[cold]
#[inline(never)]
pub(super) fn idle_stop_word(word: &[u8], ev: &Evidence) -> bool {
    is_lower_greeting(word) || (ev.any && ev.has_bytes(word))
}

/// The words of [`is_lower_greeting`].
pub(super) const LOWER_GREETINGS: [&str; 9] = [
    "hi", "hey", "hello", "dear", "thanks", "thx", "cheers", "cc", "yo",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::names::NameFinder;
    use crate::detect::names::runs::code_context;
    use crate::detect::names::scan::NO_SHORTCUTS;

    #[test]
    fn idle_stops_keep_every_greeting_and_evidence_word() {
        /// Whether `stops` lets `word` through to the string comparisons.
        fn passes(stops: &IdleStops, word: &[u8]) -> bool {
            let first = usize::from(word[0] & 31);
            stops.lens[first] & (1 << word.len()) != 0
                && stops.lasts[first] & (1 << (word[word.len() - 1] & 31)) != 0
        }
        for g in LOWER_GREETINGS {
            assert!(is_lower_greeting(g.as_bytes()), "{g}");
            assert!(passes(&GREETING_STOPS, g.as_bytes()), "{g}");
            assert!(GREETING_STOPS.passes(g.as_bytes()), "{g}");
            // Capitalised greetings too (`after_capitalised_greeting` tests "Hi", "THANKS").
            let title = format!("{}{}", g[..1].to_ascii_uppercase(), &g[1..]);
            for w in [title, g.to_ascii_uppercase()] {
                assert!(passes(&GREETING_STOPS, w.as_bytes()), "{w}");
            }
        }
        // "the" has the first letter and length of "thx" but not its last letter.
        assert_eq!(
            GREETING_STOPS.lens[usize::from(b't' & 31)],
            (1 << 3) | (1 << 6)
        );
        assert!(!passes(&GREETING_STOPS, b"the"));
        assert!(!passes(&GREETING_STOPS, b"has"));

        let f = NameFinder::new(&[], &[]);
        assert!(Evidence::default().idle.is_none());
        let ev = Evidence::collect("write to maria.ortiz@example.com or JAMES@x.org", f.gaz);
        assert_eq!(ev.words, ["maria", "ortiz", "james"]);
        for w in ev.words.iter().map(String::as_str).chain(LOWER_GREETINGS) {
            assert!(passes(ev.idle_stops(), w.as_bytes()), "{w}");
            assert!(ev.idle_stops().passes(w.as_bytes()), "{w}");
            assert!(
                ev.idle_stops().passes(w.to_ascii_uppercase().as_bytes()),
                "{w}"
            );
        }
        // "maria" and "ortiz" stop the idle scan, lower case or not; "mario" does not.
        let b = b"and then maria said";
        let skip = |b: &[u8]| skip_idle(b, 0, &ev);
        assert_eq!(skip(b), 9);
        assert_eq!(skip(b"mario and ortiz"), 10);
        assert_eq!(skip(b"the data says hi"), 14);
        assert_eq!(skip(b"ask mariA"), 4);
        // Capitalised words that the bytes around them make code are skipped.
        assert_eq!(skip(b"see Ok(x) and 42Z then Maria"), 23);
        assert_eq!(skip(b"see Err(x) or I said"), 14);
    }

    #[test]
    fn code_either_side_is_code_context() {
        // Every byte pair the table lets the idle scan skip a word between is code to
        // `push_word` with no run open, whatever comes before and after the pair.
        let mut skipped = 0;
        for before in 0..=255u8 {
            for after in 0..=255u8 {
                if !code_either_side(before, after) {
                    continue;
                }
                for (x, y) in [(b' ', b' '), (b'a', b'a'), (b'%', b'2'), (b'1', b':')] {
                    for word in [&b"Ab"[..], b"A", b"Abcdefghijk", b"ABC"] {
                        let mut b = vec![x, x, before];
                        b.extend_from_slice(word);
                        b.extend_from_slice(&[after, y, y]);
                        let end = 3 + word.len();
                        assert!(code_context(&b, 3, end, None), "{before} {after}");
                    }
                }
                skipped += 1;
            }
        }
        assert!(skipped > 9_000, "{skipped}");
    }

    /// What [`skip_idle`] does, byte by byte: the start of the first word from `i` that is no
    /// plain lower-case ASCII word, or is a greeting or evidence word, or goes on with `'`,
    /// `-` or a non-ASCII byte; the position of a capital or non-ASCII byte before any word.
    /// A capitalised word of ASCII letters that the bytes around it make code
    /// ([`code_either_side`]) is skipped when `drop` (the scan's shortcuts are on).
    fn skip_idle_bytewise(b: &[u8], mut i: usize, ev: &Evidence, drop: bool) -> usize {
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_uppercase() && drop {
                let mut end = i;
                while end < b.len() && b[end].is_ascii_alphabetic() {
                    end += 1;
                }
                let next = b.get(end).copied().unwrap_or(0);
                let before = i.checked_sub(1).map_or(b' ', |q| b[q]);
                if !(next >= 0x80 || next == b'\'' || next == b'-')
                    && code_either_side(before, next)
                {
                    i = end;
                    continue;
                }
            }
            if c >= 0x80 || c.is_ascii_uppercase() {
                return i;
            }
            if !c.is_ascii_lowercase() {
                i += 1;
                continue;
            }
            let mut end = i;
            while end < b.len() && b[end].is_ascii_alphabetic() {
                end += 1;
            }
            let word = &b[i..end];
            if b.get(end)
                .is_some_and(|&c| c >= 0x80 || c == b'\'' || c == b'-')
                || is_lower_greeting(word)
                || ev.has_bytes(word)
            {
                return i;
            }
            i = end;
        }
        b.len()
    }

    #[test]
    fn skip_idle_matches_a_byte_scan() {
        let f = NameFinder::new(&[], &[]);
        let ev = Evidence::collect("write to maria.ortiz@example.com", f.gaz);
        let none = Evidence::default();
        let pieces: &[&[u8]] = &[
            b" ",
            b" ",
            b"  ",
            b"the",
            b"a",
            b"extraordinarily",
            b"seven",
            b"letters",
            b"hi",
            b"thx",
            b"thanks",
            b"maria",
            b"ortiz",
            b"Maria",
            b"iPhone",
            b",",
            b". ",
            b"'",
            b"-",
            b"\xc3\xa9",
            b"42",
            b"\n",
            b"cc",
            b"abcdefghijklmnopqrstuvwxyz",
            // Words longer than a block of 64, lower case and not.
            b"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
            b"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyZ-",
            b"hiabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxy",
            // Capitalised words the scan drops at once or not, and the bytes around them
            // that decide it.
            b"Ok",
            b"Result",
            b"A",
            b"I",
            b"J",
            b"Jr",
            b"TaskError",
            b"McDonald",
            b"INFO",
            b"(",
            b"<",
            b"<br>",
            b"::",
            b":",
            b"9",
            b"0",
            b"#",
            b"@",
            b"_",
            b"[",
            b"`",
            b"%20",
            b".",
            b"/",
            b"x.pdf",
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut compared = 0;
        for _ in 0..20_000 {
            let mut text = Vec::new();
            // Up to a few blocks of 64 bytes.
            for _ in 0..1 + next() % 40 {
                text.extend_from_slice(pieces[(next() >> 40) as usize % pieces.len()]);
            }
            compared += text.len() + 1;
            for e in [&ev, &none] {
                for drop in [true, false] {
                    NO_SHORTCUTS.set(!drop);
                    for i in 0..=text.len() {
                        let want = skip_idle_bytewise(&text, i, e, drop);
                        let show = String::from_utf8_lossy(&text);
                        let mut got = skip_idle(&text, i, e);
                        // It may stop early at a capitalised word the bytes around it make
                        // code, when the word runs past a block of 64 (its end is not looked
                        // for): the scan drops that word and calls again after it.
                        while got < want && drop {
                            let end = ascii_letters_end(&text, got);
                            let next = text.get(end).copied().unwrap_or(0);
                            let before = got.checked_sub(1).map_or(b' ', |q| text[q]);
                            assert!(
                                text[got].is_ascii_uppercase()
                                    && BYTE_CLASS[usize::from(next)] & GOES_ON == 0
                                    && code_either_side(before, next),
                                "{show:?} from {i}: {got}, not {want}"
                            );
                            got = skip_idle(&text, end, e);
                        }
                        assert_eq!(got, want, "{show:?} from {i}");
                    }
                    NO_SHORTCUTS.set(false);
                }
            }
        }
        assert!(compared > 500_000, "{compared}");
    }
}
