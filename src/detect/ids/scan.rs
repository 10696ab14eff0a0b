//! The identifier candidates of a text, found without running a regex over all of it.
//!
//! [`CANDIDATES`] is the specification: the matches of [`Candidates`] are those of its
//! `find_iter` (leftmost-first, non-overlapping), one after the other. Reading every byte with
//! the regex's lazy DFA (and its reverse pass per match) cost a third of the time of a whole
//! log file; here only the bytes near a *trigger* are looked at. Every shape of the regex has,
//! within its first seven bytes, a digit or the separator of a MAC address (`:` at offset 1
//! or 2, `-` at 2, `.` at 4), and it starts a word, so a match can start only at a word start
//! at most six bytes before a digit or four before a separator (found sixty-four bytes at a
//! time, as the digits and the `-`, `.` and `:` right after a hex letter); the other starts are
//! never looked at. At each such word start [`match_at`] follows the regex's shapes in their order, with its greedy
//! choices, by hand; the unit tests check it against the regex on many generated texts.

use crate::detect::lanes;

/// The candidate shapes: MAC addresses, `0x` + 40 hex, bech32 `bc1…`, grouped digit runs, and
/// alphanumeric words with a digit after at most six letters. ASCII word boundaries keep the
/// regex on its DFA. Kept as the specification of [`Candidates`] (its oracle in the tests).
#[cfg(test)]
pub(super) const CANDIDATES: &str = r"(?x-u)
    \b(?:
        [0-9A-Fa-f]{1,2}(?::[0-9A-Fa-f]{1,2}){5}
      | [0-9A-Fa-f]{2}(?:-[0-9A-Fa-f]{2}){5}
      | [0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}
      | 0x[0-9a-fA-F]{40}
      | (?:bc1|BC1)[0-9A-Za-z]{11,71}
      | [A-Z]{2}\x20[0-9]{2}\x20[0-9]{2}\x20[0-9]{2}\x20[A-D]
      | [0-9]{1,6}(?:[\x20./-][0-9]{1,6}){1,6}(?:[-/][0-9A-Za-z]{1,2})?
      | [A-Za-z]{0,6}[0-9][A-Za-z0-9]{3,61}
    )\b";

/// The matches (`start..end`) of [`CANDIDATES`] in a text, in order.
pub(super) struct Candidates<'a> {
    b: &'a [u8],
    /// Every start before this has been tried (or lies inside a match given).
    pos: usize,
    /// The triggers ([`lanes::id_triggers64`]) of the 64 bytes from `base` (bit `k`: byte
    /// `base + k`), kept from one trigger to the next: most triggers are a few bytes apart,
    /// and classifying their bytes again from each cost as much as the rest of the scan.
    mask: u64,
    base: usize,
    /// `base + 64`, or 0 before the first block.
    end: usize,
    /// Matches shorter than this are passed over (their end still moves `pos`, as the regex's
    /// non-overlapping matches do): see [`Candidates::at_least`].
    min_len: usize,
}

impl<'a> Candidates<'a> {
    /// Every match of [`CANDIDATES`].
    #[cfg(test)]
    pub(super) fn new(b: &'a [u8]) -> Candidates<'a> {
        Candidates::at_least(b, 0)
    }

    /// The matches of [`CANDIDATES`] of `min_len` bytes or more: the others are found as
    /// before (each moves the scan past its end) but not given. No identifier is shorter than
    /// nine bytes, and in logs and code most matches are (`2026-02`, `26T10`, `084Z`, a
    /// UUID's groups): handing each out to be turned away cost more than finding it, and a
    /// word shorter than `min_len` needs no look at whether it is a whole match.
    pub(super) fn at_least(b: &'a [u8], min_len: usize) -> Candidates<'a> {
        Candidates {
            b,
            pos: 0,
            mask: 0,
            base: 0,
            end: 0,
            min_len,
        }
    }

    /// The first trigger at or after `pos`: a digit, or a `-`, `.` or `:` right after a hex
    /// letter. A MAC separator after a digit needs no trigger of its own: the digit is one,
    /// before it, and a start it could open holds that digit. So, for the starts from `pos`
    /// on, such a separator is only ever the first trigger when `pos` is at it, and then every
    /// MAC start it has lies before `pos`; in code and logs (`10:33:34`, `-> 0.5`) most
    /// separators after hex digits are after digits.
    fn next_trigger(&mut self) -> Option<usize> {
        let mut i = self.pos;
        loop {
            if i >= self.end {
                if i >= self.b.len() {
                    return None;
                }
                self.base = i;
                self.end = i + 64;
                self.mask = lanes::id_triggers64(self.b, i);
            }
            let m = self.mask & (u64::MAX << (i - self.base));
            if m != 0 {
                return Some(self.base + m.trailing_zeros() as usize);
            }
            i = self.end;
        }
    }
}

impl Iterator for Candidates<'_> {
    type Item = (usize, usize);

    /// The starts before `pos` are done, and `t`, the first trigger from `pos` on, is the first
    /// byte from `pos` on that can be part of a shape's opening: so a start `p` from `pos` on
    /// can match only if its digit (or MAC separator) is `t` or one after it. Going through the
    /// shapes of [`match_at`] with that in mind leaves few starts to try at `t`:
    ///
    /// - at a digit: the start of the word that holds `t` (a word start at most six bytes
    ///   before it), whose letters and hex digits run up to `t`, for every shape but one;
    ///   and for `AB 12 34 56 C`, whose first digit comes after a space, the byte three before
    ///   `t`. Any other start in reach has a digit or separator before `t` in its opening,
    ///   which `t` being the first rules out, or is cut from `t` by a byte no shape takes there;
    /// - at a MAC separator: the starts of a MAC whose first separator it is (`:` one or two
    ///   bytes after the start, `-` two, `.` four); no other shape opens with a separator
    ///   before its first digit. `/` opens no shape.
    ///
    /// The starts tried are the ones [`match_at`] would take, in order; the others at `t` are
    /// starts it refuses, so `pos` moves past them as before. At a digit the word that holds
    /// it is read first (its end is where `pos` goes when nothing matches): most words are
    /// followed by no byte a match could go on with ([`may_cross`]: `(2029)`, `latency_ms=1417 `,
    /// a UUID's first group), and then the match is the whole word or none ([`whole_word`]),
    /// which needs no walk through the shapes.
    fn next(&mut self) -> Option<(usize, usize)> {
        loop {
            let (s, e) = self.next_match()?;
            if e - s >= self.min_len {
                return Some((s, e));
            }
        }
    }
}

impl Candidates<'_> {
    /// The next match of [`CANDIDATES`] (see [`Iterator::next`] for the starts tried at each
    /// trigger), or one shorter than `min_len`, which the caller passes over; a whole word
    /// shorter than that is not asked whether it matches.
    #[inline(always)]
    fn next_match(&mut self) -> Option<(usize, usize)> {
        let b = self.b;
        loop {
            let t = self.next_trigger()?;
            let c = b[t];
            if c.is_ascii_digit() {
                // Only `AB 12 34 56 C` can start there (any other shape would hold a digit
                // before `t`): its two capitals are looked at before the shapes are tried.
                if t >= 3
                    && b[t - 1] == b' '
                    && b[t - 2].is_ascii_uppercase()
                    && b[t - 3].is_ascii_uppercase()
                    && let Some(e) = self.try_start(t - 3)
                {
                    return Some((t - 3, e));
                }
                // The trigger's word: its start `w` (at most six bytes back) and end `q`, and
                // the classes all its bytes share.
                let mut shared = CLASS[usize::from(c)];
                let mut w = t;
                while w > self.pos && t - w < 6 {
                    let k = CLASS[usize::from(b[w - 1])];
                    if k & WORD == 0 {
                        break;
                    }
                    shared &= k;
                    w -= 1;
                }
                // The digits right after `t` are its run of set bits in the trigger mask (a
                // separator there follows a hex letter, which is not in the mask, so a run of
                // bits from a digit is all digits), read in one step up to the block's end:
                // digits all share `t`'s classes, so only what follows them is walked byte by
                // byte. Walking a number's digits one at a time (`1417`, `ts_ms=1723667683641`)
                // was most of the walk's bytes.
                let mut q = t + (!(self.mask >> (t - self.base))).trailing_zeros() as usize;
                while let Some(&d) = b.get(q) {
                    let k = CLASS[usize::from(d)];
                    if k & WORD == 0 {
                        break;
                    }
                    shared &= k;
                    q += 1;
                }
                if may_cross(b, w, q, shared) {
                    // Before `:` the word is one or two hex digits (all `may_cross` takes
                    // there), and no shape but a MAC's can open with such a word and `:` (the
                    // others need a `-`, `.` or space there, or three word bytes): the MAC is
                    // tried alone. Times (`10:33:34`) went through every shape.
                    let e = if b.get(q) == Some(&b':') {
                        self.try_mac(w)
                    } else {
                        self.try_start(w)
                    };
                    if let Some(e) = e {
                        return Some((w, e));
                    }
                } else if q - w >= self.min_len
                    && shared & ALNUM != 0
                    && starts_word(b, w)
                    && whole_word(b, w, t, q)
                {
                    self.pos = q;
                    return Some((w, q));
                }
                // No start inside the rest of the trigger's word.
                self.pos = q;
            } else {
                // The group before a MAC's first separator is hex (and holds no digit, which
                // would be a trigger before `t`): a start whose bytes up to `t` are not all hex
                // is no MAC's and needs no try.
                let pos = self.pos;
                let hex_from = |p: usize| p >= pos && b[p..t].iter().all(|&c| is(c, HEX));
                let (first, second) = match c {
                    b':' => (t.checked_sub(2), t.checked_sub(1)),
                    b'-' => (t.checked_sub(2), None),
                    b'.' => (t.checked_sub(4), None),
                    _ => (None, None),
                };
                if let Some(p) = first
                    && hex_from(p)
                    && let Some(e) = self.try_start(p)
                {
                    return Some((p, e));
                }
                if let Some(p) = second
                    && hex_from(p)
                    && let Some(e) = self.try_start(p)
                {
                    return Some((p, e));
                }
                self.pos = t + 1;
            }
        }
    }

    /// The end of the match at `p` if `p` is a word start not before `pos`; on a match, `pos`
    /// moves to its end.
    #[inline]
    fn try_start(&mut self, p: usize) -> Option<usize> {
        if p < self.pos || !starts_word(self.b, p) {
            return None;
        }
        let e = match_at(self.b, p)?;
        self.pos = e;
        Some(e)
    }

    /// [`Candidates::try_start`] with the MAC of `:` alone ([`mac_colons_at`]), where no other
    /// shape can match at `p`. Out of line: inlined in the scan, it and `try_start` moved the
    /// scan's registers about and cost more on JSON than they saved.
    #[inline(never)]
    fn try_mac(&mut self, p: usize) -> Option<usize> {
        if p < self.pos || !starts_word(self.b, p) {
            return None;
        }
        let e = mac_colons_at(self.b, p)?;
        self.pos = e;
        Some(e)
    }
}

/// Whether a match of [`CANDIDATES`] at `w` may go past the end `q` of its word (the word
/// bytes `w..q`, which all are in the classes `shared`): only a MAC's first group (one or two
/// hex digits before `:`, two before `-`, four before `.`) or a digit group of one to six
/// digits before `\x20` `.` `/` `-` and a digit can be followed by more of the match. Every
/// other shape is word bytes to its end, which `\b` puts at `q`. (Conservative is enough:
/// a word that may cross is given to [`match_at`].)
#[inline]
fn may_cross(b: &[u8], w: usize, q: usize, shared: u8) -> bool {
    let (Some(&sep), Some(&next)) = (b.get(q), b.get(q + 1)) else {
        return false;
    };
    let len = q - w;
    let digit_group = len <= 6 && shared & DIGIT != 0 && is(next, DIGIT);
    let mac_group = |n: usize| len <= n && shared & HEX != 0 && is(next, HEX);
    match sep {
        b':' => mac_group(2),
        b'-' => digit_group || len == 2 && mac_group(2),
        b'.' => digit_group || len == 4 && mac_group(4),
        b' ' | b'/' => digit_group,
        _ => false,
    }
}

/// Whether [`match_at`] takes the whole word `w..q`, whose first digit is `t` (the bytes
/// before it letters, at most six), when no match at `w` can go past `q` ([`may_cross`]) and
/// the word is letters and digits: so it is a shape of letters and digits alone, `bc1` and
/// 11 to 71 more, or up to six letters, a digit and 3 to 61 more (`0x` and 40 hex digits is
/// one of those).
#[inline]
fn whole_word(b: &[u8], w: usize, t: usize, q: usize) -> bool {
    (4..=62).contains(&(q - t))
        || matches!(b.get(w..w + 3), Some(b"bc1" | b"BC1")) && (14..=74).contains(&(q - w))
}

/// Byte classes ([`CLASS`] bits).
const DIGIT: u8 = 1;
const HEX: u8 = 2;
const ALPHA: u8 = 4;
const ALNUM: u8 = 8;
const WORD: u8 = 16;

/// Per byte, its classes: `0-9` are digits and hex, `a-f`/`A-F` hex, ASCII letters alphabetic,
/// letters and digits alphanumeric, those and `_` word bytes (`\w` in ASCII).
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        let mut k = 0;
        if b.is_ascii_digit() {
            k |= DIGIT;
        }
        if b.is_ascii_hexdigit() {
            k |= HEX;
        }
        if b.is_ascii_alphabetic() {
            k |= ALPHA;
        }
        if b.is_ascii_alphanumeric() {
            k |= ALNUM;
        }
        if b.is_ascii_alphanumeric() || b == b'_' {
            k |= WORD;
        }
        t[c] = k;
        c += 1;
    }
    t
};

/// Whether `c` is in one of the classes `class`.
#[inline(always)]
fn is(c: u8, class: u8) -> bool {
    CLASS[usize::from(c)] & class != 0
}

/// Whether an ASCII word (`\b` then a letter or digit) starts at `p`.
#[inline]
fn starts_word(b: &[u8], p: usize) -> bool {
    b.get(p).is_some_and(|&c| is(c, ALNUM)) && (p == 0 || !word(b[p - 1]))
}

/// A byte of `\w` in ASCII.
#[inline]
fn word(c: u8) -> bool {
    is(c, WORD)
}

/// `\b` at `e` right after a letter or digit: no word byte follows.
#[inline]
fn ends_word(b: &[u8], e: usize) -> bool {
    b.get(e).is_none_or(|&c| !word(c))
}

/// How many bytes from `i` on are in `class`, counting up to `cap`.
#[inline]
fn run(b: &[u8], i: usize, cap: usize, class: u8) -> usize {
    let end = b.len().min(i.saturating_add(cap));
    let mut j = i;
    while j < end && is(b[j], class) {
        j += 1;
    }
    j - i
}

/// The end of the match of [`CANDIDATES`] that starts at the word start `p`, if any: its
/// shapes in order, each taken as the regex's greedy choices take it.
fn match_at(b: &[u8], p: usize) -> Option<usize> {
    let at = |i: usize| b.get(p + i).copied().unwrap_or(0);
    // Six groups of one or two hex digits joined by `:`. A group takes its whole hex run (a
    // shorter take leaves a hex digit where `:` or `\b` must be).
    if (at(1) == b':' || at(2) == b':')
        && let Some(e) = mac_colons_at(b, p)
    {
        return Some(e);
    }
    // Six hex pairs joined by `-`; three hex quads joined by `.`.
    if at(2) == b'-'
        && (0..17).all(|i| {
            if i % 3 == 2 {
                at(i) == b'-'
            } else {
                is(at(i), HEX)
            }
        })
        && ends_word(b, p + 17)
    {
        return Some(p + 17);
    }
    if at(4) == b'.'
        && (0..14).all(|i| {
            if i % 5 == 4 {
                at(i) == b'.'
            } else {
                is(at(i), HEX)
            }
        })
        && ends_word(b, p + 14)
    {
        return Some(p + 14);
    }
    // `0x` + 40 hex.
    if at(0) == b'0' && at(1) == b'x' && run(b, p + 2, 40, HEX) == 40 && ends_word(b, p + 42) {
        return Some(p + 42);
    }
    // `bc1` / `BC1` + 11 to 71 letters and digits: the whole run, which must end the word.
    if matches!(
        (at(0), at(1), at(2)),
        (b'b', b'c', b'1') | (b'B', b'C', b'1')
    ) {
        let k = run(b, p + 3, 72, ALNUM);
        if (11..=71).contains(&k) && ends_word(b, p + 3 + k) {
            return Some(p + 3 + k);
        }
    }
    // `AB 12 34 56 C`.
    if at(0).is_ascii_uppercase()
        && at(1).is_ascii_uppercase()
        && (2..13).all(|i| match i % 3 {
            2 => at(i) == b' ',
            _ if i == 12 => (b'A'..=b'D').contains(&at(i)),
            _ => is(at(i), DIGIT),
        })
        && ends_word(b, p + 13)
    {
        return Some(p + 13);
    }
    if is(at(0), DIGIT)
        && let Some(e) = digit_groups(b, p)
    {
        return Some(e);
    }
    // Up to six letters, a digit, then 3 to 61 letters and digits: the whole run.
    let letters = run(b, p, 7, ALPHA);
    if letters <= 6 && is(at(letters), DIGIT) {
        let from = p + letters + 1;
        let k = run(b, from, 62, ALNUM);
        if (3..=61).contains(&k) && ends_word(b, from + k) {
            return Some(from + k);
        }
    }
    None
}

/// Six groups of one or two hex digits joined by `:` at `p`, then `\b`: the first shape of
/// [`match_at`]. A group takes its whole hex run (a shorter take leaves a hex digit where `:`
/// or `\b` must be).
#[inline]
fn mac_colons_at(b: &[u8], p: usize) -> Option<usize> {
    let mut q = p;
    for g in 0..6 {
        let k = run(b, q, 3, HEX);
        if !(1..=2).contains(&k) {
            return None;
        }
        q += k;
        if g < 5 {
            if b.get(q) != Some(&b':') {
                return None;
            }
            q += 1;
        }
    }
    ends_word(b, q).then_some(q)
}

/// `[0-9]{1,6}(?:[\x20./-][0-9]{1,6}){1,6}(?:[-/][0-9A-Za-z]{1,2})?\b` at `p`. Each digit group
/// takes its whole run of digits (a shorter take leaves a digit where a separator, `-`/`/` or
/// `\b` must be), so the groups are read once; then, as the greedy repetition backtracks, the
/// most groups first, each with the suffix tried before none.
fn digit_groups(b: &[u8], p: usize) -> Option<usize> {
    let first = run(b, p, 7, DIGIT);
    if !(1..=6).contains(&first) {
        return None;
    }
    let mut ends = [0usize; 7];
    ends[0] = p + first;
    let mut reps = 0;
    while reps < 6 {
        let q = ends[reps];
        if !b
            .get(q)
            .is_some_and(|c| matches!(c, b' ' | b'.' | b'/' | b'-'))
        {
            break;
        }
        let k = run(b, q + 1, 7, DIGIT);
        if !(1..=6).contains(&k) {
            break;
        }
        reps += 1;
        ends[reps] = q + 1 + k;
    }
    for &q in ends[1..=reps].iter().rev() {
        if b.get(q).is_some_and(|c| matches!(c, b'-' | b'/')) {
            let k = run(b, q + 1, 3, ALNUM);
            if (1..=2).contains(&k) && ends_word(b, q + 1 + k) {
                return Some(q + 1 + k);
            }
        }
        if ends_word(b, q) {
            return Some(q);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The regex's matches and ours on `text`.
    fn both(re: &regex::bytes::Regex, text: &[u8]) {
        let want: Vec<(usize, usize)> = re.find_iter(text).map(|m| (m.start(), m.end())).collect();
        let got: Vec<(usize, usize)> = Candidates::new(text).collect();
        assert_eq!(got, want, "{:?}", String::from_utf8_lossy(text));
        // Passing over the short matches gives the others as they were.
        for min_len in [2, 5, 9, 14] {
            let want: Vec<(usize, usize)> = want
                .iter()
                .copied()
                .filter(|(s, e)| e - s >= min_len)
                .collect();
            let got: Vec<(usize, usize)> = Candidates::at_least(text, min_len).collect();
            assert_eq!(got, want, "{min_len} {:?}", String::from_utf8_lossy(text));
        }
    }

    /// The triggers of `b`, one after the other.
    fn triggers(b: &[u8]) -> Vec<usize> {
        let mut c = Candidates::new(b);
        let mut got = Vec::new();
        while let Some(t) = c.next_trigger() {
            got.push(t);
            c.pos = t + 1;
        }
        got
    }

    #[test]
    fn triggers_are_digits_and_separators_after_hex_letters() {
        let b: Vec<u8> = (0..=255u8).collect();
        // `-` `.` `/` follow `,` `-` `.`; `:` follows `9`.
        let want: Vec<usize> = (0x30..=0x39).collect();
        assert_eq!(triggers(&b), want);
        let b = b"g-h.x:f-0.1:a/x9-E.";
        let got: Vec<u8> = triggers(b).iter().map(|&t| b[t]).collect();
        assert_eq!(got, b"-019.");
        // Across blocks of 64, and far apart.
        let mut b = vec![b' '; 300];
        for t in [0, 63, 64, 65, 127, 200, 299] {
            b[t] = b'7';
        }
        b[150] = b'c';
        b[151] = b':';
        assert_eq!(triggers(&b), [0, 63, 64, 65, 127, 151, 200, 299]);
    }

    #[test]
    fn digit_runs_across_blocks_are_those_of_the_regex() {
        // A word's digits are read from the trigger mask up to the end of its 64-byte block:
        // runs that start and end on either side of a block's edge, then every kind of byte a
        // word can go on with, or none.
        let re = regex::bytes::Regex::new(CANDIDATES).unwrap();
        for lead in [&b""[..], b"x", b"ab", b"_", b"AB "] {
            for digits in [1, 2, 5, 6, 7, 9, 13, 40, 63, 64, 65, 70] {
                for tail in [
                    &b""[..],
                    b" ",
                    b"a",
                    b"Z",
                    b"_",
                    b"c0ffee",
                    b"-12",
                    b".5",
                    b":3",
                ] {
                    for at in [0, 50, 55, 60, 62, 63, 64, 120, 126, 127] {
                        let mut text = vec![b' '; at];
                        text.extend_from_slice(lead);
                        text.extend((0..digits).map(|i| b"0123456789"[(i * 7) % 10]));
                        text.extend_from_slice(tail);
                        both(&re, &text);
                        text.extend_from_slice(b" 42 tail");
                        both(&re, &text);
                    }
                }
            }
        }
    }

    #[test]
    fn before_a_colon_only_the_mac_matches() {
        // Every word start of one or two hex digits before `:` in generated texts of hex,
        // colons and the bytes the other shapes take: `match_at` is `mac_colons_at` there.
        let alphabet = b"0123456789abcdefABCDEFxgZ:::-. /_";
        let mut rng = crate::testdata::Rng::new(37);
        let mut asked = 0;
        for _ in 0..40_000 {
            let len = rng.below(30);
            let text: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            for p in 0..text.len() {
                let k = run(&text, p, 3, HEX);
                if starts_word(&text, p) && (1..=2).contains(&k) && text.get(p + k) == Some(&b':') {
                    asked += 1;
                    assert_eq!(match_at(&text, p), mac_colons_at(&text, p), "{text:?} {p}");
                }
            }
        }
        assert!(asked > 10_000, "{asked}");
    }

    #[test]
    fn candidates_are_those_of_the_regex() {
        let re = regex::bytes::Regex::new(CANDIDATES).unwrap();
        let pieces: &[&[u8]] = &[
            b"0",
            b"1",
            b"7",
            b"12",
            b"123",
            b"2024",
            b"123456",
            b"1234567",
            b"a",
            b"f",
            b"A",
            b"F",
            b"ab",
            b"AB",
            b"x",
            b"0x",
            b"bc1",
            b"BC1",
            b"bc",
            b"g",
            b"Z",
            b"Q",
            b"_",
            b":",
            b"-",
            b".",
            b"/",
            b" ",
            b"  ",
            b"\n",
            b"=",
            b"\xc3\xa9",
            b"abcd",
            b"dead",
            b"beef",
            b"C",
            b"D",
            b"E",
            b"T",
            b"Z",
            b"q1w2e3",
            b"deadbeefcafe",
        ];
        let mut rng = crate::testdata::Rng::new(23);
        for round in 0..60_000 {
            let mut text = Vec::new();
            let n = rng.below(30);
            for _ in 0..n {
                // Now and then a long run of one class, to reach the shapes' length limits.
                if rng.below(12) == 0 {
                    let class: &[u8] = match rng.below(4) {
                        0 => b"0123456789",
                        1 => b"0123456789abcdefABCDEF",
                        2 => b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                        _ => b"abcdefghijklmnopqrstuvwxyz",
                    };
                    let len = rng.below(if round % 2 == 0 { 80 } else { 14 });
                    for _ in 0..len {
                        text.push(class[rng.below(class.len())]);
                    }
                } else {
                    text.extend_from_slice(pieces[rng.below(pieces.len())]);
                }
            }
            both(&re, &text);
        }
        // Each shape at and around its limits.
        let mut fixed: Vec<Vec<u8>> = vec![
            b"00:1A:2B:3C:4D:5E".to_vec(),
            b"0:1:2:3:4:5".to_vec(),
            b"de:ad:be:ef:ca:fe".to_vec(),
            b"de:ad:be:ef:ca:feg".to_vec(),
            b"00-1a-2b-3c-4d-5e".to_vec(),
            b"face.beef.cafe".to_vec(),
            b"AB 12 34 56 C".to_vec(),
            b"AB 12 34 56 E".to_vec(),
            b"2026-02-26T10:33:34.084Z".to_vec(),
            b"12-34-5a6".to_vec(),
            b"1.2.3.4.5.6.7.8".to_vec(),
            b"529.982.247-25".to_vec(),
            b"11.222.333/0001-81".to_vec(),
            b"12/34-ab_".to_vec(),
            // Words a match may or may not go past ([`may_cross`]).
            b"1234:5".to_vec(),
            b"12-ab-cd-ef-01-23".to_vec(),
            b"ab-12-cd".to_vec(),
            b"abcd.12".to_vec(),
            b"a1cd.1234.5678".to_vec(),
            b"1.a".to_vec(),
            b"123456 7".to_vec(),
            b"1234567 8".to_vec(),
            b"x1y2z3/4".to_vec(),
            b"ab1_234".to_vec(),
        ];
        for len in [10, 11, 12, 39, 40, 41, 60, 61, 62, 63, 70, 71, 72] {
            let run: Vec<u8> = (0..len).map(|i| b"a1B2c3"[i % 6]).collect();
            for pre in [&b"0x"[..], b"bc1", b"BC1", b"ab", b"abcdef1", b"1", b""] {
                for post in [&b""[..], b" ", b"_", b"-x", b"."] {
                    fixed.push([pre, &run, post].concat());
                }
            }
            fixed.push([&b"0x"[..], &vec![b'a'; len]].concat());
        }
        for text in &fixed {
            both(&re, text);
            both(&re, &[b"x ", &text[..], b" y"].concat());
        }
        // Values shaped like UUIDs, timestamps, phone numbers, hashes, code and prose, one
        // after the other.
        for _ in 0..20_000 {
            let mut text = super::super::tests::shaped(&mut rng).into_bytes();
            for _ in 0..rng.below(3) {
                text.extend_from_slice(pieces[rng.below(pieces.len())]);
                text.extend_from_slice(super::super::tests::shaped(&mut rng).as_bytes());
            }
            both(&re, &text);
        }
        let clean = crate::testdata::clean_text(3, 256 * 1024).text;
        both(&re, clean.as_bytes());
        let prose = crate::testdata::prose(3, 256 * 1024).text;
        both(&re, prose.as_bytes());
    }
}
