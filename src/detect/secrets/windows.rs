//! Where in a text the credential prefix automaton has to run at all.
//!
//! The automaton (71 prefixes and three other triggers) reads every byte at 1.5–2 ns, and on
//! code, logs and prose almost none of its matches survive the checks after it. This module
//! finds the few stretches where one could, with scans that are cheap on the bytes that cannot
//! start a credential, and the recognizer runs the same automaton on those stretches only.
//!
//! Why the result is the same: every byte of every pattern is a [`pattern byte`](in_pattern)
//! (ASCII letters, digits, `_ - . / = :`) but the final space of `-----BEGIN `, so every
//! occurrence of a pattern lies inside one maximal run of pattern bytes plus the one byte after
//! it (a *window*). Windows are disjoint, so the automaton's leftmost-longest matches in one
//! window do not depend on the rest of the text: running it on a window finds exactly the
//! matches the whole-text run finds there. A window is skipped only when no occurrence in it can
//! pass the checks (`secrets.rs`), which needs, for a rule whose match must not be glued to a
//! word before it, a pattern starting a word (a maximal run of `[A-Za-z0-9_]`) and either
//!
//! - a `-`, `.` or `=` right after the word (the first byte of a prefix or tail that is not a
//!   word byte: `sk-`, `SG.`, `hvs.`, a base64url tail, a JWT's dots), or
//! - else a word of at least `Windows::long` bytes (the credential is that whole word: a
//!   prefix of word bytes and its tail, which is not glued to a word byte after it), found
//!   through an aligned 8-byte block of word bytes, which every word of 15 or more bytes holds;
//!
//! and for the patterns that may start anywhere (`AccountKey=`, `SharedAccessKey=`,
//! `-----BEGIN `, `://`), an occurrence of one. Those holding a `-`, `.` or `=` are found in the
//! same `memchr3` pass as the words before those bytes: each is checked where its first such
//! byte (its *anchor*) is, so the text is read once for all of them; the others (`://`) by
//! `memmem`.

use memchr::memmem;

use super::rules::{Check, RULES};

/// The bytes the `memchr3` pass of [`Windows::find`] stops at.
const ANCHORS: [u8; 3] = [b'-', b'.', b'='];

/// Whether `c` is a word byte (`[A-Za-z0-9_]`, as `secrets.rs` bounds tokens).
fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Whether `c` can be a byte of a pattern of the automaton (but the space of `-----BEGIN `).
fn in_pattern(c: u8) -> bool {
    is_word(c) || matches!(c, b'-' | b'.' | b'/' | b'=' | b':')
}

/// The patterns that must start a word, by first byte, and the finders of the others.
#[derive(Debug)]
pub(super) struct Windows {
    /// `by_first[c]`: the word-starting patterns whose first byte is `c`.
    by_first: Vec<Vec<&'static [u8]>>,
    /// The patterns that may start anywhere and hold a [`ANCHORS`] byte: the pattern and the
    /// offset of its first such byte, by that byte's index in [`ANCHORS`].
    anchored: [Vec<(&'static [u8], usize)>; 3],
    /// Finders of the other patterns that may start anywhere.
    anywhere: Vec<memmem::Finder<'static>>,
    /// The shortest credential of a rule whose prefix is all word bytes: prefix and shortest
    /// tail (at least 15, see the module docs).
    long: usize,
}

impl Windows {
    /// `extra` are the automaton's patterns that are not rule prefixes.
    pub(super) fn new(extra: &[&'static str]) -> Windows {
        let mut by_first: Vec<Vec<&'static [u8]>> = vec![Vec::new(); 256];
        let mut anchored: [Vec<(&'static [u8], usize)>; 3] = Default::default();
        let mut anywhere = Vec::new();
        let mut anywhere_at = |p: &'static str| {
            let p = p.as_bytes();
            match p.iter().position(|c| ANCHORS.contains(c)) {
                Some(k) => {
                    let a = ANCHORS.iter().position(|&c| c == p[k]).unwrap_or_default();
                    anchored[a].push((p, k));
                }
                None => anywhere.push(memmem::Finder::new(p)),
            }
        };
        let mut long = usize::MAX;
        let starts_anywhere = |p: &str| !p.as_bytes().first().copied().is_some_and(is_word);
        for rule in RULES {
            if rule.check == Check::TailOnly || starts_anywhere(rule.prefix) {
                anywhere_at(rule.prefix);
                continue;
            }
            by_first[usize::from(rule.prefix.as_bytes()[0])].push(rule.prefix.as_bytes());
            if rule.prefix.bytes().all(is_word) {
                long = long.min(rule.prefix.len() + rule.min);
            }
        }
        for p in extra {
            if starts_anywhere(p) {
                anywhere_at(p);
            } else {
                by_first[usize::from(p.as_bytes()[0])].push(p.as_bytes());
            }
        }
        Windows {
            by_first,
            anchored,
            anywhere,
            long,
        }
    }

    /// Whether a word-starting pattern starts at `s`.
    fn pattern_at(&self, b: &[u8], s: usize) -> bool {
        self.by_first[usize::from(b[s])]
            .iter()
            .any(|p| b[s..].starts_with(p))
    }

    /// The windows of `b` where the automaton must run, sorted and disjoint.
    pub(super) fn find(&self, b: &[u8], out: &mut Vec<(usize, usize)>) {
        out.clear();
        // Each seed (where a pattern may start) is pushed as its window at once.
        let mut seed = |s: usize| out.push(window(b, s));
        // Long words, through their aligned blocks of eight word bytes.
        let mut i = 0;
        while i + 8 <= b.len() {
            if !all_word(&b[i..i + 8]) {
                i += 8;
                continue;
            }
            let mut s = i;
            while s > 0 && is_word(b[s - 1]) {
                s -= 1;
            }
            let mut e = i + 8;
            while e < b.len() && is_word(b[e]) {
                e += 1;
            }
            if e - s >= self.long && self.pattern_at(b, s) {
                seed(s);
            }
            // The next block that can hold a word byte after this word's end.
            i = (e + 1).next_multiple_of(8).max(i + 8);
        }
        let [a0, a1, a2] = ANCHORS;
        for r in memchr::memchr3_iter(a0, a1, a2, b) {
            // Patterns that may start anywhere, by their anchor.
            let a = ANCHORS.iter().position(|&c| c == b[r]).unwrap_or_default();
            for &(p, k) in &self.anchored[a] {
                if r >= k && b[r - k..].starts_with(p) {
                    seed(r - k);
                }
            }
            // Words followed by `-`, `.` or `=` (shorter than `long`: longer ones are seeded
            // above).
            if r == 0 || !is_word(b[r - 1]) {
                continue;
            }
            let mut s = r - 1;
            while s > 0 && is_word(b[s - 1]) && r - s < self.long {
                s -= 1;
            }
            if (s == 0 || !is_word(b[s - 1])) && self.pattern_at(b, s) {
                seed(s);
            }
        }
        for f in &self.anywhere {
            for s in f.find_iter(b) {
                seed(s);
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

/// The window around a seed at `s`: the maximal run of pattern bytes holding it, and the byte
/// after.
fn window(b: &[u8], s: usize) -> (usize, usize) {
    let mut ws = s;
    while ws > 0 && in_pattern(b[ws - 1]) {
        ws -= 1;
    }
    let mut we = s;
    while we < b.len() && in_pattern(b[we]) {
        we += 1;
    }
    (ws, (we + 1).min(b.len()))
}

/// Whether all eight bytes of `block` are word bytes, eight at a time.
fn all_word(block: &[u8]) -> bool {
    const L: u64 = 0x0101_0101_0101_0101;
    const H: u64 = 0x8080_8080_8080_8080;
    let mut w = [0u8; 8];
    w.copy_from_slice(block);
    let x = u64::from_le_bytes(w);
    // Per byte below 0x80: strictly between `m` and `n` (the classic has-between, exact per
    // byte as no lane carries); bytes from 0x80 up are never word bytes.
    let low = x & !H;
    let between = |v: u64, m: u64, n: u64| (L * (127 + n) - v) & !x & (v + L * (127 - m)) & H;
    let folded = low | (L * 0x20);
    let digits = between(low, 0x2f, 0x3a);
    let letters = between(folded, 0x60, 0x7b);
    let underscore = between(low, 0x5e, 0x60);
    digits | letters | underscore == H
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_word_is_the_bytewise_test() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        for c in 0..=255u8 {
            for pos in 0..8 {
                let mut block = *b"aZ09_xQ5";
                block[pos] = c;
                assert_eq!(all_word(&block), block.iter().all(|&c| is_word(c)));
            }
        }
        for _ in 0..100_000 {
            let block = next().to_le_bytes();
            assert_eq!(all_word(&block), block.iter().all(|&c| is_word(c)));
        }
    }

    #[test]
    fn the_windows_hold_every_pattern_byte() {
        for p in RULES.iter().map(|r| r.prefix).chain(super::super::EXTRA) {
            let b = p.as_bytes();
            let body = b.strip_suffix(b" ").unwrap_or(b);
            assert!(body.iter().all(|&c| in_pattern(c)), "{p}");
            // A word-starting pattern's first byte past the word is one the scan stops at.
            if let Some(c) = b.iter().find(|&&c| !is_word(c))
                && is_word(b[0])
            {
                assert!(matches!(c, b'-' | b'.' | b'='), "{p}");
            }
        }
        // A tail after a prefix of word bytes leaves its first word at one of those bytes too.
        for rule in RULES.iter().filter(|r| r.prefix.bytes().all(is_word)) {
            for c in (0..=255u8).filter(|&c| rule.alphabet.has(c) && !is_word(c)) {
                assert!(matches!(c, b'-' | b'.' | b'='), "{} {c}", rule.prefix);
            }
        }
        let w = Windows::new(&super::super::EXTRA);
        assert!(w.long >= 15, "{}", w.long);
    }

    #[test]
    fn patterns_that_start_anywhere_are_found_by_their_anchor() {
        let w = Windows::new(&super::super::EXTRA);
        let anchored: Vec<(&[u8], usize)> = w.anchored.iter().flatten().copied().collect();
        assert_eq!(
            anchored,
            [
                (&b"-----BEGIN "[..], 0),
                (&b"AccountKey="[..], 10),
                (&b"SharedAccessKey="[..], 15),
            ]
        );
        assert_eq!(w.anywhere.len(), 1);
        // Each occurrence, wherever it sits, lies in a window.
        for p in ["-----BEGIN ", "AccountKey=", "SharedAccessKey=", "://"] {
            for before in ["", "x", "a=", " -", "é"] {
                let text = format!("{before}{p}abc");
                let b = text.as_bytes();
                let mut out = Vec::new();
                w.find(b, &mut out);
                let s = before.len();
                assert!(
                    out.iter().any(|&(ws, we)| ws <= s && s + p.len() <= we),
                    "{text:?} {out:?}"
                );
            }
        }
    }
}
