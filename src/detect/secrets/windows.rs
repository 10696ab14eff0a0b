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
//! - else a word of at least `LONG` bytes (the credential is that whole word: a
//!   prefix of word bytes and its tail, which is not glued to a word byte after it);
//!
//! and for the patterns that may start anywhere (`AccountKey=`, `SharedAccessKey=`,
//! `-----BEGIN `, `://`), an occurrence of one. Those holding a `-`, `.` or `=` are found in the
//! same pass as the words before those bytes: each is checked where its first such byte (its
//! *anchor*) is, so the text is read once for all of them; the others (`://`) by `memmem`.
//!
//! That pass reads 64 bytes at a time as bit masks (word bytes, anchors) and finds the long
//! words and the word starts before anchors with bit arithmetic (see [`Windows::find`]):
//! walking each word byte by byte, as it did, cost mispredicted branches at every word's end,
//! which on code and logs took twice the time its instruction count says.
//!
//! A text of one block or less (most values of a JSON document) is read as that block alone
//! ([`Windows::find_short`]), from masks of only the bytes it has, which tell its `:` bytes
//! too: `://` is searched for only where one is, and the recognizer leaves out its scans for
//! pairs and flags in a text without `:`, `=` or `-`. On a value of 20 to 40 bytes the copy
//! into a 64-byte block and those three byte searches had cost more than the rest.

use memchr::memmem;

use crate::detect::lanes;

use super::rules::{Check, RULES};

/// The bytes the `memchr3` pass of [`Windows::find`] stops at.
const ANCHORS: [u8; 3] = [b'-', b'.', b'='];

/// Whether `c` is a word byte (`[A-Za-z0-9_]`, as `secrets.rs` bounds tokens).
#[inline(always)]
fn is_word(c: u8) -> bool {
    CLASS[usize::from(c)] & WORD != 0
}

/// Whether `c` can be a byte of a pattern of the automaton (but the space of `-----BEGIN `).
#[inline(always)]
fn in_pattern(c: u8) -> bool {
    CLASS[usize::from(c)] & PATTERN != 0
}

/// [`CLASS`] bit: a word byte.
const WORD: u8 = 1;
/// [`CLASS`] bit: a pattern byte (word bytes and `- . / = :`).
const PATTERN: u8 = 2;

/// The classes of each byte, as a table: the word scans of [`Windows::find`] read bytes one at
/// a time backwards and forwards from each anchor and block, and a load and a test cost less
/// than the range comparisons of `is_ascii_alphanumeric` (a fifth of the pass on code and
/// logs). `classes_are_the_bytewise_tests` checks it against those.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() || b == b'_' {
            t[c] = WORD | PATTERN;
        } else if matches!(b, b'-' | b'.' | b'/' | b'=' | b':') {
            t[c] = PATTERN;
        }
        c += 1;
    }
    t
};

/// The shortest credential of a rule that must start a word and whose prefix is all word
/// bytes: its prefix and shortest tail (at least 15, see the module docs). A constant, so that
/// [`runs_from`]'s shifts in [`Windows::find`] are fixed at compile time (worked out from a
/// field, its loop and `u128` shifts by a variable cost a tenth of the pass).
const LONG: usize = {
    let mut long = usize::MAX;
    let mut i = 0;
    while i < RULES.len() {
        let rule = &RULES[i];
        let p = rule.prefix.as_bytes();
        let mut all_word = !p.is_empty();
        let mut k = 0;
        while k < p.len() {
            all_word &= p[k].is_ascii_alphanumeric() || p[k] == b'_';
            k += 1;
        }
        if all_word && !matches!(rule.check, Check::TailOnly) && p.len() + rule.min < long {
            long = p.len() + rule.min;
        }
        i += 1;
    }
    long
};
// The module docs' bound: a word this long is worth a look only as a whole credential.
const _: () = assert!(LONG >= 15);

/// `LONG`, or 64 for a rule not yet written whose shortest credential is longer: then the
/// masks of [`Windows::find`] select the words of 64 bytes or more, and each is measured.
const REACH: usize = if LONG < 64 { LONG } else { 64 };

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
    /// Whether every pattern of `anywhere` holds a `:` (`://`).
    colon_anywhere: bool,
    /// The first two bytes of the word-starting patterns, and the [`trigram`]s of their first
    /// three ([`Windows::pattern_at`] turns most words away with these, without comparing).
    heads: Box<Heads>,
}

/// Bit sets over the starts of the word-starting patterns (see [`Windows::pattern_at`]).
#[derive(Debug)]
struct Heads {
    /// Bit `a << 8 | b` for each pattern starting with the bytes `a`, `b`.
    pairs: [u64; 1024],
    /// The same bit for each pattern of two bytes, `a`, `b` (no third byte to test).
    short: [u64; 1024],
    /// Bit [`trigram`] of the first three bytes of each longer pattern.
    trigrams: [u64; 512],
}

/// Bit `i` of the bit set `set`.
fn has_bit(set: &[u64], i: usize) -> bool {
    set[i / 64] & (1 << (i % 64)) != 0
}

/// Sets bit `i` of the bit set `set`.
fn set_bit(set: &mut [u64], i: usize) {
    set[i / 64] |= 1 << (i % 64);
}

/// The low five bits of three bytes as one 15-bit number (a superset test: bytes that differ
/// only above their low five bits share it).
fn trigram(a: u8, b: u8, c: u8) -> usize {
    (usize::from(a & 31) << 10) | (usize::from(b & 31) << 5) | usize::from(c & 31)
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
        let starts_anywhere = |p: &str| !p.as_bytes().first().copied().is_some_and(is_word);
        for rule in RULES {
            if rule.check == Check::TailOnly || starts_anywhere(rule.prefix) {
                anywhere_at(rule.prefix);
                continue;
            }
            by_first[usize::from(rule.prefix.as_bytes()[0])].push(rule.prefix.as_bytes());
        }
        for p in extra {
            if starts_anywhere(p) {
                anywhere_at(p);
            } else {
                by_first[usize::from(p.as_bytes()[0])].push(p.as_bytes());
            }
        }
        let mut heads = Box::new(Heads {
            pairs: [0; 1024],
            short: [0; 1024],
            trigrams: [0; 512],
        });
        for p in by_first.iter().flatten() {
            // Every pattern has two bytes or more (`the_windows_hold_every_pattern_byte`).
            let pair = usize::from(p[0]) << 8 | usize::from(p[1]);
            set_bit(&mut heads.pairs, pair);
            match p.get(2) {
                Some(&c) => set_bit(&mut heads.trigrams, trigram(p[0], p[1], c)),
                None => set_bit(&mut heads.short, pair),
            }
        }
        let colon_anywhere = anywhere.iter().all(|f| f.needle().contains(&b':'));
        Windows {
            by_first,
            anchored,
            anywhere,
            colon_anywhere,
            heads,
        }
    }

    /// Whether a word-starting pattern starts at `s`. A pattern that starts there has the
    /// first two bytes there, and either two bytes only or the trigram of the first three
    /// there: most words fail one of these two loads and are never compared.
    fn pattern_at(&self, b: &[u8], s: usize) -> bool {
        let (Some(&c0), Some(&c1)) = (b.get(s), b.get(s + 1)) else {
            return false;
        };
        let pair = usize::from(c0) << 8 | usize::from(c1);
        if !has_bit(&self.heads.pairs, pair) {
            return false;
        }
        let short = has_bit(&self.heads.short, pair);
        if !short
            && !b
                .get(s + 2)
                .is_some_and(|&c2| has_bit(&self.heads.trigrams, trigram(c0, c1, c2)))
        {
            return false;
        }
        self.pattern_at_reference(b, s)
    }

    /// Whether a word-starting pattern starts at `s`, compared one by one: the last step of
    /// [`Windows::pattern_at`] and its test oracle.
    fn pattern_at_reference(&self, b: &[u8], s: usize) -> bool {
        self.by_first[usize::from(b[s])]
            .iter()
            .any(|p| b[s..].starts_with(p))
    }

    /// The windows of `b` where the automaton must run, sorted and disjoint.
    ///
    /// The text is read 64 bytes at a time as two masks, its word bytes and its anchors
    /// ([`lanes::credential`]), and the seeds come out of bit arithmetic on them: the words of
    /// [`LONG`] bytes or more are the word starts with that many word bytes from them
    /// ([`runs_from`], over this block and the next), and the start of the word before an
    /// anchor is the bit after the last non-word byte below it (this block and the last).
    /// Only the few starts that the masks select are read as bytes. A scan that stops at each
    /// word and anchor and walks its bytes takes a branch per byte whose outcome the data
    /// decides; on code and logs those mispredictions cost twice its instructions.
    ///
    /// Returns `true` when the text is at most one block long and holds no `:`, `=` or `-`
    /// ([`Windows::find_short`] tells it from its masks), else `false`.
    pub(super) fn find(&self, b: &[u8], out: &mut Vec<(usize, usize)>) -> bool {
        if b.len() <= 64 {
            return self.find_short(b, out);
        }
        self.find_blocks(b, out);
        false
    }

    /// [`Windows::find`] a block at a time: every text longer than one block, and the test
    /// oracle of [`Windows::find_short`].
    fn find_blocks(&self, b: &[u8], out: &mut Vec<(usize, usize)>) {
        out.clear();
        // Each seed (where a pattern may start) is pushed as its window at once.
        let mut seed = |s: usize| out.push(window(b, s));
        let mut last_word = 0u64;
        let mut this = lanes::credential64(b, 0);
        let mut i = 0;
        while i < b.len() {
            let next = lanes::credential64(b, i + 64);
            let (word, anchors) = this;
            // Long words: their starts (no word byte before) with `reach` word bytes on.
            let starts = word & !(word << 1 | last_word >> 63);
            let both = u128::from(word) | u128::from(next.0) << 64;
            let mut long = starts & runs_from(both, REACH) as u64;
            while long != 0 {
                let s = i + long.trailing_zeros() as usize;
                long &= long - 1;
                if (REACH == LONG || word_end(b, s) - s >= LONG) && self.pattern_at(b, s) {
                    seed(s);
                }
            }
            let mut anchors = anchors;
            // The word bytes of the last block and this one, and of this one shifted by one:
            // bit `k` of `before` says byte `k - 1` is a word byte.
            let behind = u128::from(last_word) | u128::from(word) << 64;
            let before = word << 1 | last_word >> 63;
            while anchors != 0 {
                let bit = anchors.trailing_zeros();
                anchors &= anchors - 1;
                let r = i + bit as usize;
                self.anchored_at(b, r, &mut seed);
                // The word before the anchor, from its start: the byte after the last
                // non-word byte below the anchor. A word that starts before the last block is
                // longer than 64 bytes, so a long word, seeded above.
                if before >> bit & 1 != 0 {
                    let gaps = !behind & ((1u128 << (64 + bit)) - 1);
                    if gaps != 0 {
                        let s = i + 64 - gaps.leading_zeros() as usize;
                        if self.pattern_at(b, s) {
                            seed(s);
                        }
                    }
                }
            }
            last_word = word;
            this = next;
            i += 64;
        }
        self.finish(b, out);
    }

    /// [`Windows::find`] of a text of one block or less (most values of a JSON document):
    /// [`Windows::find_blocks`]' steps for its one block, with no block before or after it,
    /// from masks of only the bytes it has ([`lanes::credential_short`]: the copy of the text
    /// into a block and the classes of four parts cost more than the rest on a value of 20 to
    /// 40 bytes). The masks tell the `:` bytes too, so the search for `://` runs only where one
    /// is (it cost a `memchr` per value). Returns whether the text holds no `:`, `=` or `-`.
    fn find_short(&self, b: &[u8], out: &mut Vec<(usize, usize)>) -> bool {
        out.clear();
        let mut seed = |s: usize| out.push(window(b, s));
        let lanes::Short {
            word,
            anchors,
            colons,
            dots,
        } = lanes::credential_short(b);
        let mut long = word & !(word << 1) & runs_from(word, REACH);
        while long != 0 {
            let s = long.trailing_zeros() as usize;
            long &= long - 1;
            if (REACH == LONG || word_end(b, s) - s >= LONG) && self.pattern_at(b, s) {
                seed(s);
            }
        }
        let mut rest = anchors;
        let before = word << 1;
        while rest != 0 {
            let r = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.anchored_at(b, r, &mut seed);
            if before >> r & 1 != 0 {
                // The word before the anchor starts after the last non-word byte below it,
                // or at the text's start.
                let gaps = !word & ((1u64 << r) - 1);
                let s = if gaps == 0 {
                    0
                } else {
                    64 - gaps.leading_zeros() as usize
                };
                if self.pattern_at(b, s) {
                    seed(s);
                }
            }
        }
        // Without a `:`, the patterns found by `memmem` cannot be there (the call to search for
        // them cost more than the rest of the search on a short value).
        if colons != 0 || !self.colon_anywhere {
            self.finish(b, out);
        } else if out.len() > 1 {
            out.sort_unstable();
            out.dedup();
        }
        (colons | (anchors & !dots)) == 0
    }

    /// [`Windows::find`] as it was, a word and an anchor at a time (through aligned blocks of
    /// eight word bytes and `memchr3`): the test oracle of the masks.
    #[cfg(test)]
    fn find_bytewise(&self, b: &[u8], out: &mut Vec<(usize, usize)>) {
        out.clear();
        let mut seed = |s: usize| out.push(window(b, s));
        let mut i = 0;
        while let Some(block) = b.get(i..i + 8) {
            if !all_word(block) {
                i += 8;
                continue;
            }
            let mut s = i;
            while s > 0 && is_word(b[s - 1]) {
                s -= 1;
            }
            let e = word_end(b, i + 8);
            if e - s >= LONG && self.pattern_at(b, s) {
                seed(s);
            }
            i = (e + 1).next_multiple_of(8).max(i + 8);
        }
        let [a0, a1, a2] = ANCHORS;
        for r in memchr::memchr3_iter(a0, a1, a2, b) {
            self.anchored_at(b, r, &mut seed);
            if r == 0 || !is_word(b[r - 1]) {
                continue;
            }
            let mut s = r - 1;
            while s > 0 && is_word(b[s - 1]) && r - s < LONG {
                s -= 1;
            }
            if (s == 0 || !is_word(b[s - 1])) && self.pattern_at(b, s) {
                seed(s);
            }
        }
        self.finish(b, out);
    }

    /// Seeds the patterns that may start anywhere and whose anchor is the byte at `r` (one of
    /// [`ANCHORS`]).
    #[inline(always)]
    fn anchored_at(&self, b: &[u8], r: usize, seed: &mut impl FnMut(usize)) {
        let a = ANCHORS.iter().position(|&c| c == b[r]).unwrap_or_default();
        for &(p, k) in &self.anchored[a] {
            // The bytes right before and after the anchor first (`y=`, `--`): most anchors
            // fail them, without a comparison.
            let around = (k == 0 || r >= k && b[r - 1] == p[k - 1])
                && p.get(k + 1).is_none_or(|&c| b.get(r + 1) == Some(&c));
            if around && r >= k && b[r - k..].starts_with(p) {
                seed(r - k);
            }
        }
    }

    /// The last step of a search for windows: the seeds of the patterns found by `memmem`
    /// (`://`), then the windows sorted, each once.
    fn finish(&self, b: &[u8], out: &mut Vec<(usize, usize)>) {
        for f in &self.anywhere {
            // Most texts hold no `:` (the first byte of `://`) at all: a byte search turns them
            // away before the finder's own setup, which costs more on a short JSON value.
            if f.needle()
                .first()
                .is_some_and(|&c| memchr::memchr(c, b).is_none())
            {
                continue;
            }
            out.extend(f.find_iter(b).map(|s| window(b, s)));
        }
        out.sort_unstable();
        out.dedup();
    }
}

/// The bits `p` of `x` with `n` set bits from `p` on (`n` from 1 to 64): `x` and-ed with
/// itself shifted by 1, 2, 4, … while the run so covered is at most `n`, then by the rest.
/// Two blocks' masks are a `u128`; a short text's one block is a `u64`, one register.
#[inline(always)]
fn runs_from<T>(mut x: T, n: usize) -> T
where
    T: Copy + std::ops::BitAndAssign + std::ops::Shr<usize, Output = T>,
{
    let mut have = 1;
    while have * 2 <= n {
        x &= x >> have;
        have *= 2;
    }
    if have < n {
        x &= x >> (n - have);
    }
    x
}

/// The end of the run of word bytes from `i`.
fn word_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_word(b[i]) {
        i += 1;
    }
    i
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
#[cfg(test)]
fn all_word(block: &[u8]) -> bool {
    const L: u64 = 0x0101_0101_0101_0101;
    const H: u64 = 0x8080_8080_8080_8080;
    let mut w = [0u8; 8];
    w.copy_from_slice(block);
    let x = u64::from_le_bytes(w);
    // A byte below `0` or from 0x80 up (a space, most punctuation) is no word byte: most
    // blocks of text hold one, and this test of it is cheaper than the three below (`x - 0x30`
    // per byte sets the high bit of the lowest byte below 0x30, if any, as in has-less).
    if (x.wrapping_sub(L * 0x30) | x) & H != 0 {
        return false;
    }
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
    use proptest::prelude::{ProptestConfig, Strategy, TestCaseError, prop_assert_eq, prop_oneof};

    #[test]
    fn classes_are_the_bytewise_tests() {
        for c in 0..=255u8 {
            assert_eq!(is_word(c), c.is_ascii_alphanumeric() || c == b'_', "{c}");
            assert_eq!(
                in_pattern(c),
                is_word(c) || matches!(c, b'-' | b'.' | b'/' | b'=' | b':'),
                "{c}"
            );
        }
    }

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

    /// `find` and `find_bytewise` give the same windows.
    fn same_windows(w: &Windows, b: &[u8]) {
        let (mut new, mut old) = (Vec::new(), Vec::new());
        w.find(b, &mut new);
        w.find_bytewise(b, &mut old);
        assert_eq!(new, old, "{:?}", String::from_utf8_lossy(b));
    }

    /// The short texts' search and the blocks' one give the same windows, and a text told
    /// bare holds none of `- = :`.
    fn same_short_windows(w: &Windows, b: &[u8]) -> Result<(), TestCaseError> {
        let (mut new, mut blocks, mut old) = (Vec::new(), Vec::new(), Vec::new());
        let bare = w.find(b, &mut new);
        w.find_blocks(b, &mut blocks);
        w.find_bytewise(b, &mut old);
        let text = String::from_utf8_lossy(b);
        prop_assert_eq!(&new, &blocks, "{:?}", text);
        prop_assert_eq!(&new, &old, "{:?}", text);
        let seps = b.iter().any(|c| matches!(c, b'-' | b'=' | b':'));
        prop_assert_eq!(bare, b.len() <= 64 && !seps, "{:?}", text);
        Ok(())
    }

    /// The parts of the generated short texts: words, spaces, punctuation, digits, the bytes
    /// that anchor or separate, base64-like runs, and the patterns' starts.
    fn short_part() -> impl Strategy<Value = String> {
        let w = Windows::new(&super::super::EXTRA);
        let mut starts: Vec<String> = w
            .by_first
            .iter()
            .flatten()
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        starts.extend(
            [
                "ghp_",
                "sk-",
                "AKIA",
                "xox",
                "xoxb-",
                "eyJ",
                "-----BEGIN ",
                "://",
                "AccountKey=",
                "SharedAccessKey=",
                "https://",
                "é",
            ]
            .map(String::from),
        );
        prop_oneof![
            "[A-Za-z]{1,12}",
            "[ ,;!?()'\"/@+]{1,2}",
            "[0-9]{1,4}",
            "[:=._-]",
            "[A-Za-z0-9+/_-]{10,40}",
            "[A-Z0-9]{12,24}",
            proptest::sample::select(starts),
        ]
    }

    proptest::proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]
        #[test]
        fn short_texts_find_what_the_blocks_find(
            parts in proptest::collection::vec(short_part(), 0..10),
        ) {
            let w = WINDOWS.get_or_init(|| Windows::new(&super::super::EXTRA));
            same_short_windows(w, parts.concat().as_bytes())?;
        }
    }

    /// Built once for the property test's cases.
    static WINDOWS: std::sync::OnceLock<Windows> = std::sync::OnceLock::new();

    #[test]
    fn the_masks_find_what_the_bytewise_scan_finds() {
        let w = Windows::new(&super::super::EXTRA);
        for text in [
            crate::testdata::prose(3, 128 * 1024).text,
            crate::testdata::clean_text(4, 128 * 1024).text,
            crate::testdata::crm_json(5, 64 * 1024).text,
        ] {
            same_windows(&w, text.as_bytes());
            for line in text.split_inclusive('\n').take(3000) {
                same_windows(&w, line.as_bytes());
            }
        }
        // Words and anchors at every offset around the 64-byte blocks: words of every length
        // up to 140 bytes (runs of word bytes across one, two and three blocks), patterns and
        // the bytes that start or stop them.
        let patterns: Vec<&[u8]> = w.by_first.iter().flatten().copied().collect();
        let bytes = b"aZ09_xq-.=:/ \n\xc3\xa9yYkK";
        let mut rng = crate::testdata::Rng::new(77);
        let mut compared = 0;
        for _ in 0..20_000 {
            let mut t = Vec::new();
            let len = 1 + rng.below(300);
            while t.len() < len {
                match rng.below(6) {
                    0 => {
                        let p: &[u8] = rng.pick::<&[u8]>(&patterns);
                        t.extend_from_slice(p);
                    }
                    1 => t.extend(std::iter::repeat_n(b'x', rng.below(140))),
                    2 => {
                        let odd: [&[u8]; 6] = [
                            b"-----BEGIN ",
                            b"AccountKey=",
                            b"SharedAccessKey=",
                            b"://",
                            b"ghp_",
                            b"sk-",
                        ];
                        let p: &[u8] = rng.pick::<&[u8]>(&odd);
                        t.extend_from_slice(p);
                    }
                    _ => t.push(bytes[rng.below(bytes.len())]),
                }
            }
            compared += t.len();
            same_windows(&w, &t);
        }
        assert!(compared > 1_000_000, "{compared}");
    }

    #[test]
    fn runs_from_of_one_block_is_of_two_blocks() {
        let mut rng = crate::testdata::Rng::new(13);
        for _ in 0..20_000 {
            // Long runs of set bits are what it selects: words of random lengths.
            let mut x = 0u64;
            let mut k = 0;
            while k < 64 {
                let run = rng.below(40);
                if rng.below(2) == 0 {
                    x |= (u64::MAX >> (64 - run.clamp(1, 64 - k))) << k;
                }
                k += run + 1;
            }
            for n in 1..=64 {
                assert_eq!(
                    runs_from(x, n),
                    runs_from(u128::from(x), n) as u64,
                    "{x:x} {n}"
                );
            }
        }
    }

    #[test]
    fn pattern_at_is_the_comparison_of_every_pattern() {
        let w = Windows::new(&super::super::EXTRA);
        let patterns: Vec<&[u8]> = w.by_first.iter().flatten().copied().collect();
        let mut rng = crate::testdata::Rng::new(41);
        let bytes = b"aAsSkK_-.=:/0189xXyYghpdoltTcC \n\xc3";
        let mut compared = 0;
        for _ in 0..30_000 {
            let mut t = Vec::new();
            while t.len() < 24 {
                match rng.below(4) {
                    // A pattern, whole or cut short, in any case now and then.
                    0 => {
                        let p = rng.pick(&patterns);
                        let mut p = p[..1 + rng.below(p.len())].to_vec();
                        if rng.below(4) == 0 {
                            p.make_ascii_uppercase();
                        }
                        t.extend_from_slice(&p);
                    }
                    _ => t.push(bytes[rng.below(bytes.len())]),
                }
            }
            for s in 0..t.len() {
                assert_eq!(
                    w.pattern_at(&t, s),
                    w.pattern_at_reference(&t, s),
                    "{:?} at {s}",
                    String::from_utf8_lossy(&t)
                );
                compared += 1;
            }
        }
        assert!(compared > 500_000, "{compared}");
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
        // `LONG` is the shortest credential of the word-starting rules whose prefix is all
        // word bytes, worked out here as `Windows::new` sorts the rules.
        let long = RULES
            .iter()
            .filter(|r| r.check != Check::TailOnly && r.prefix.bytes().all(is_word))
            .map(|r| r.prefix.len() + r.min)
            .min();
        assert_eq!(long, Some(LONG));
        // `pattern_at` reads the first two bytes of every word-starting pattern.
        assert!(w.by_first.iter().flatten().all(|p| p.len() >= 2));
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
        assert!(w.colon_anywhere);
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
