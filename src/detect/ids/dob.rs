//! Dates of birth: a date under a birth-date key ([`dob_value`]), or in text a birth cue
//! (`born`, `DOB:`, `date de naissance`) followed within a few bytes by a date
//! ([`dob_in_text`]). Dates are ISO (`1985-03-02`), numeric (`02/03/1985`, `2.3.85`) or with
//! a month name in English, German, French, Spanish or Italian (`March 2, 1985`,
//! `2nd of March 1985`).
//!
//! A text is not searched for cues from end to end: the cues are looked for only before the
//! runs of digits that may open a date and have a cue start within reach, which in logs, code
//! and identifiers (UUIDs, timestamps, phone numbers) are few.

use aho_corasick::AhoCorasick;

use crate::detect::lanes;

use super::super::{IdKind, Kind, Span};

/// A whole value that is a date (a birth date under a birth-date key).
pub(super) fn dob_value(v: &str) -> bool {
    date_at(v.as_bytes(), 0).is_some_and(|e| {
        let rest = &v[e..];
        rest.is_empty()
            || rest.starts_with('T')
            || rest.starts_with(' ') && rest.trim().starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Birth cues in text, each followed (within a few bytes) by a date.
pub(super) const BIRTH_CUES: &[&str] = &[
    "born on",
    "born",
    "dob",
    "d.o.b.",
    "date of birth",
    "birth date",
    "birthdate",
    "birthday",
    "geboren am",
    "geboren",
    "geburtsdatum",
    "né le",
    "née le",
    "date de naissance",
    "fecha de nacimiento",
    "nacido el",
    "nacida el",
    "data di nascita",
    "nato il",
    "nata il",
];

/// How far before the first digit of a date its birth cue can start, less the spaces right
/// before that digit: the longest cue (19 bytes), 8 separators and the fillers `on am in ` (9)
/// after it, a month name (10) and its `.` before the day; with room to spare.
const DOB_REACH: usize = 64;

/// Birth dates in text: a birth cue, then a date. Every date holds a digit within
/// [`DOB_REACH`] bytes and a run of spaces of where its cue starts, and the first digit of a
/// date starts a run of digits; the cues are looked for only in the stretches before the runs
/// that can be a date's first ([`may_date`]; merged where they overlap), which in prose and
/// in logs is a small part of the text. The cues are
/// found and tried in the order a search of the whole text gives.
///
/// Most runs of digits are no date's first (UUIDs, timestamps, phone numbers, numbers in
/// code): [`may_open_date`] turns them away with a few byte tests, and a cue that is followed by
/// a date lies in the stretch of that date's first run, so a run whose stretch holds no cue
/// start ([`birth_cue_at`]) is no such date's either; leaving its stretch out of the regions
/// loses none. Only the runs that pass both are read as dates ([`may_date`]). The bytes are
/// read for cue starts once, in order, as the stretches only move on. Out of line: whether the
/// compiler inlined it into the recognizer moved with unrelated changes (about 1 M instructions
/// on the reference prose), and out of line is the cheaper of the two.
#[inline(never)]
pub(super) fn dob_in_text(cues: &AhoCorasick, text: &str, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut region: Option<(usize, usize)> = None;
    // Cue starts have been looked for before `read`; `last_cue` is the last one found.
    let mut read = 0;
    let mut last_cue = None;
    // The runs of one, two or four digits (no other can open a date: [`may_open_date`]), from
    // 64-byte digit masks: a run's start is a digit after a non-digit, its length the digits
    // after it (this block's and the next's). Walking each run byte by byte, and reading every
    // other run, left the loop where the data said: a mispredicted branch per run of digits.
    let mut carry = 0u64;
    let mut this = lanes::digits64(b, 0);
    let mut base = 0;
    while base < b.len() {
        let next = lanes::digits64(b, base + 64);
        // A block with no digit starts no run (and leaves no carry): most of the blocks of
        // prose, and a good part of those of logs and code.
        if this == 0 {
            carry = 0;
            this = next;
            base += 64;
            continue;
        }
        let w = u128::from(this) | u128::from(next) << 64;
        let starts = this & !(this << 1 | carry);
        let one = !(w >> 1) as u64;
        let two = (w >> 1 & !(w >> 2)) as u64;
        let four = (w >> 1 & w >> 2 & w >> 3 & !(w >> 4)) as u64;
        let mut runs = starts & (one | two | four);
        carry = this >> 63;
        this = next;
        let block = base;
        base += 64;
        while runs != 0 {
            let k = runs.trailing_zeros();
            runs &= runs - 1;
            let d = block + k as usize;
            // The run is `d..i`: its length is the count of set bits of `w` from `k` (one,
            // two or four), one step with no walk over the digits. Reading it from the one of
            // `one`, `two` and `four` whose bit `k` is set kept those three alive through the
            // loop, and they were read back from the stack for every run.
            let len = (!(w >> k) as u64).trailing_zeros();
            let i = d + len as usize;
            if !may_open_date(b, d, i) {
                continue;
            }
            let s = spaces_before(b, d);
            // The stretch `from..d` is this run's; `from` and `d` only grow from run to run.
            let from = s.saturating_sub(DOB_REACH);
            if let Some(j) = last_cue_in(b, read.max(from), d) {
                last_cue = Some(j);
            }
            read = d;
            if last_cue.is_none_or(|c| c < from) || !may_date(b, s, d, i - d) {
                continue;
            }
            region = match region {
                Some((rs, re)) if from <= re => Some((rs, d)),
                Some((rs, re)) => {
                    dob_cues_in(cues, b, rs, re, out);
                    Some((from, d))
                }
                None => Some((from, d)),
            };
        }
    }
    if let Some((rs, re)) = region {
        dob_cues_in(cues, b, rs, re, out);
    }
}

/// The bytes a [`BIRTH_CUES`] entry starts with, in either case (each an ASCII letter).
const BIRTH_CUE_INITIALS: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < BIRTH_CUES.len() {
        let c = BIRTH_CUES[i].as_bytes()[0];
        assert!(c.is_ascii_lowercase());
        t[c as usize] = true;
        t[c.to_ascii_uppercase() as usize] = true;
        i += 1;
    }
    t
};

/// The first two bytes of the [`BIRTH_CUES`], each ASCII letter in either case: bit
/// `a << 8 | b` for the pair `a`, `b`.
const BIRTH_CUE_PAIRS: [u64; 1024] = {
    let mut t = [0u64; 1024];
    let mut i = 0;
    while i < BIRTH_CUES.len() {
        let cue = BIRTH_CUES[i].as_bytes();
        let (a, b) = (cue[0], cue[1]);
        // [`birth_cue_at`] compares them with the lower case of the text's bytes.
        assert!(a == a.to_ascii_lowercase() && b == b.to_ascii_lowercase());
        let aa = [a.to_ascii_lowercase(), a.to_ascii_uppercase()];
        let bb = [b.to_ascii_lowercase(), b.to_ascii_uppercase()];
        let mut x = 0;
        while x < 2 {
            let mut y = 0;
            while y < 2 {
                let bit = (aa[x] as usize) << 8 | bb[y] as usize;
                t[bit / 64] |= 1 << (bit % 64);
                y += 1;
            }
            x += 1;
        }
        i += 1;
    }
    t
};

/// Whether a birth cue that [`dob_cues_in`] takes starts at `j`: one of [`BIRTH_CUES`] there
/// (ASCII case-insensitive, as the automaton matches), no letter or digit before it.
#[inline]
fn birth_cue_at(b: &[u8], j: usize) -> bool {
    if !BIRTH_CUE_INITIALS[usize::from(b[j])] {
        return false;
    }
    let Some(&next) = b.get(j + 1) else {
        return false;
    };
    let bit = usize::from(b[j]) << 8 | usize::from(next);
    // Only the cues that open with these two bytes are compared whole: each cue's first two
    // bytes are their own lower case ([`BIRTH_CUE_PAIRS`]), so a cue that matches here
    // (ASCII case-insensitive) opens with them. Comparing every cue whole read most of them
    // for nothing, at the `da`, `do` and `bo` of words in logs and prose.
    let pair = [b[j].to_ascii_lowercase(), next.to_ascii_lowercase()];
    BIRTH_CUE_PAIRS[bit / 64] & 1 << (bit % 64) != 0
        && (j == 0 || !b[j - 1].is_ascii_alphanumeric())
        && BIRTH_CUES.iter().any(|c| {
            c.as_bytes().starts_with(&pair)
                && b.get(j..j + c.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(c.as_bytes()))
        })
}

/// The last `j` in `from..to` where [`birth_cue_at`] holds. Sixteen bytes at a time: only the
/// bytes whose pair with the next is a cue's first two ([`lanes::birth_cue_pairs`], a few in a
/// hundred) are asked. Flagging every byte that may be a cue's first letter (`b`, `d`, `n`…)
/// asked a fifth of them, each a branch the data decides.
fn last_cue_in(b: &[u8], from: usize, to: usize) -> Option<usize> {
    let mut last = None;
    let mut j = from;
    while j < to {
        let mut m = lanes::birth_cue_pairs(b, j);
        if to - j < 16 {
            m &= (1 << (to - j)) - 1;
        }
        while m != 0 {
            let k = j + m.trailing_zeros() as usize;
            m &= m - 1;
            if birth_cue_at(b, k) {
                last = Some(k);
            }
        }
        j += 16;
    }
    last
}

/// [`last_cue_in`] byte by byte: its test oracle.
#[cfg(test)]
fn last_cue_in_reference(b: &[u8], from: usize, to: usize) -> Option<usize> {
    (from..to).rev().find(|&k| birth_cue_at(b, k))
}

/// Whether the run of `len` digits at `d` (`s` where the spaces before it start) can be the first
/// digit of a date: a date starts there ([`date_at`]), or a month name may end at `s` and the
/// day and year of `March 2, 1985` start at `d`. A cue whose date starts with a digit is
/// followed by that date's first digit run (cues end in a letter or `.`, fillers in a space).
fn may_date(b: &[u8], s: usize, d: usize, len: usize) -> bool {
    // A date's first run of digits has one, two or four.
    matches!(len, 1 | 2 | 4)
        && (date_at(b, d).is_some()
            || s > 0
                && (b[s - 1].is_ascii_alphabetic() || b[s - 1] == b'.')
                && day_year_at(b, d).is_some())
}

/// A few byte tests that every first run of a date passes: whether the digits `b[d..e]` (a
/// whole run) may pass [`may_date`]. Each arm is a step that [`date_at`] or [`day_year_at`]
/// cannot get past otherwise: a four-digit year needs a separator and a digit after it; a day
/// or month, a separator and a digit, or a month name (a letter one starts with) after its
/// suffix and `of`; the day of `March 2, 1985`, a month before it and a digit after its
/// suffix and comma.
///
/// The day of `March 2, 1985` is asked of its byte after first: the run ends before a
/// non-digit, so a year follows only past a suffix (`st`, `nd`, `rd`, `th`), a comma or spaces,
/// and a byte that opens none of them (`-`, `:`, `.`, a hex letter) turns the run away before
/// the spaces and the letter before it are read. In logs most runs of one or two digits are
/// glued to a word (a UUID's `ccca03-`, `26T10:`), and reading back from each cost more than
/// the rest of the test.
fn may_open_date(b: &[u8], d: usize, e: usize) -> bool {
    let digit_at = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let sep = b.get(e).copied();
    match e - d {
        4 => matches!(sep, Some(b'-' | b'/' | b'.')) && digit_at(e + 1),
        1 | 2 => match sep {
            // After a separator no suffix, comma or space can follow the day.
            Some(b'-' | b'/' | b'.') => digit_at(e + 1),
            _ => {
                month_may_follow(b, e)
                    || matches!(sep, Some(b's' | b'n' | b'r' | b't' | b',' | b' '))
                        && {
                            let s = spaces_before(b, d);
                            s > 0 && (b[s - 1].is_ascii_alphabetic() || b[s - 1] == b'.')
                        }
                        && digit_at(year_after_day(b, e))
            }
        },
        _ => false,
    }
}

/// [`may_open_date`] as it was before the byte after the day was asked first: its test
/// oracle.
#[cfg(test)]
fn may_open_date_reference(b: &[u8], d: usize, e: usize) -> bool {
    let digit_at = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let sep = b.get(e).copied();
    match e - d {
        4 => matches!(sep, Some(b'-' | b'/' | b'.')) && digit_at(e + 1),
        1 | 2 => {
            if matches!(sep, Some(b'-' | b'/' | b'.')) {
                if digit_at(e + 1) {
                    return true;
                }
            } else if month_may_follow(b, e) {
                return true;
            }
            let s = spaces_before(b, d);
            s > 0
                && (b[s - 1].is_ascii_alphabetic() || b[s - 1] == b'.')
                && digit_at(year_after_day(b, e))
        }
        _ => false,
    }
}

/// Whether a month name may start where [`month_after_day`] puts it, the day ending at `e`.
/// Most days (numbers in code and logs) are followed by a byte that opens no suffix (`st`,
/// `nd`, `rd`, `th`, `.`), no space and no `of `: `month_after_day` moves past nothing then,
/// so that byte is where the month would start, and it alone is asked, without the suffix
/// comparisons.
fn month_may_follow(b: &[u8], e: usize) -> bool {
    match b.get(e) {
        None => false,
        Some(&c) if !matches!(c, b's' | b'n' | b'r' | b't' | b'.' | b' ' | b'o') => {
            may_start_month_pair(c, b.get(e + 1))
        }
        Some(_) => may_start_month_at(b, month_after_day(b, e)),
    }
}

/// Whether a month name ([`month_at`]) may start at `q`: see [`may_start_month_pair`].
fn may_start_month_at(b: &[u8], q: usize) -> bool {
    b.get(q)
        .is_some_and(|&c| may_start_month_pair(c, b.get(q + 1)))
}

/// Whether a month name ([`month_at`]) may start with the bytes `c`, `next`: the first is a
/// month's first letter (either case), the second one of that letter's months' second bytes,
/// up to its low five bits (which keep the case of a letter and cost less than to ask it
/// exactly; a byte that is none of them passes now and then, which only costs a look). The
/// first letter alone let through the numbers followed by a word such as `5 minutes` or `3 ms`
/// (most of those in logs), and each had its stretch read for birth cues; with the second
/// byte all but a few in a hundred are turned away.
fn may_start_month_pair(c: u8, next: Option<&u8>) -> bool {
    let first = c.to_ascii_lowercase();
    first.is_ascii_lowercase()
        && next.is_some_and(|&n| MONTH_SECONDS[usize::from(first - b'a')] >> (n & 31) & 1 != 0)
}

/// Per first letter (index `c - b'a'`), the second bytes of the [`MONTHS`] that start with it:
/// bit `n & 31` for the byte `n` (every month name has three bytes or more).
const MONTH_SECONDS: [u32; 26] = {
    let mut t = [0u32; 26];
    let mut i = 0;
    while i < MONTHS.len() {
        let m = MONTHS[i].as_bytes();
        assert!(m.len() >= 3 && m[0].is_ascii_lowercase());
        t[(m[0] - b'a') as usize] |= 1 << (m[1] & 31);
        i += 1;
    }
    t
};

/// Whether a month name may start with `c`: the test [`may_start_month_at`] made before it
/// asked the second byte too.
#[cfg(test)]
fn may_start_month(c: u8) -> bool {
    let first = c.to_ascii_lowercase();
    first.is_ascii_lowercase() && MONTHS_BY_INITIAL[usize::from(first - b'a')] != 0
}

/// Where the run of spaces right before `d` starts.
fn spaces_before(b: &[u8], d: usize) -> usize {
    let mut s = d;
    while s > 0 && b[s - 1] == b' ' {
        s -= 1;
    }
    s
}

/// The birth dates whose cue lies in `b[from..to]` (see [`dob_in_text`]).
fn dob_cues_in(cues: &AhoCorasick, b: &[u8], from: usize, to: usize, out: &mut Vec<Span>) {
    // Overlapping: `born` and `born on` at one place are both tried, as each cue on its own.
    for m in cues.find_overlapping_iter(&b[from..to]) {
        let m = m.start() + from..m.end() + from;
        let at = m.start;
        if at > 0 && b[at - 1].is_ascii_alphanumeric() {
            continue;
        }
        // `:`, `=`, spaces, quotes, `on`, `am`, `le`, `el`, `il` between cue and date.
        let mut p = m.end;
        let limit = (p + 8).min(b.len());
        while p < limit && matches!(b[p], b' ' | b':' | b'=' | b'"' | b'\'' | b'-' | b'\t') {
            p += 1;
        }
        for filler in [&b"on "[..], b"am ", b"in "] {
            if b[p..].starts_with(filler) {
                p += filler.len();
            }
        }
        if let Some(e) = date_at(b, p)
            && !out.iter().any(|s| s.start == p)
        {
            out.push(Span::new(p, e, Kind::Id(IdKind::DateOfBirth)));
        }
    }
}

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sept",
    "sep",
    "oct",
    "nov",
    "dec",
    "januar",
    "februar",
    "märz",
    "mai",
    "juni",
    "juli",
    "oktober",
    "dezember",
    "janvier",
    "février",
    "mars",
    "avril",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
];

/// The first letters of [`MONTHS`] (bit 0: `a`); each is a lower-case ASCII letter.
#[cfg(test)]
const MONTH_INITIALS: u32 = {
    let mut mask = 0;
    let mut i = 0;
    while i < MONTHS.len() {
        let first = MONTHS[i].as_bytes()[0];
        assert!(first.is_ascii_lowercase());
        mask |= 1 << (first - b'a');
        i += 1;
    }
    mask
};

/// The end of a date starting at `p`: `1985-03-02`, `02/03/1985`, `2.3.85`, `March 2, 1985`,
/// `2 March 1985`, `2nd of March 1985`.
fn date_at(b: &[u8], p: usize) -> Option<usize> {
    let num = |i: usize, min: usize, max: usize| number(b, i, min, max);
    let year_ok = |y: u32, len: usize| len == 2 || (1900..=2100).contains(&y);
    let boundary = |e: usize| date_ends(b, e);
    if p < b.len() && b[p].is_ascii_digit() {
        // ISO: YYYY-MM-DD (or /, .).
        if let Some((y, e)) = num(p, 4, 4)
            && e < b.len()
            && matches!(b[e], b'-' | b'/' | b'.')
        {
            let sep = b[e];
            let (m, e2) = num(e + 1, 1, 2)?;
            if b.get(e2) != Some(&sep) {
                return None;
            }
            let (d, e3) = num(e2 + 1, 1, 2)?;
            return (year_ok(y, 4)
                && (1..=12).contains(&m)
                && (1..=31).contains(&d)
                && boundary(e3))
            .then_some(e3);
        }
        let (a, e) = num(p, 1, 2)?;
        if e < b.len() && matches!(b[e], b'/' | b'.' | b'-') {
            let sep = b[e];
            let (m, e2) = num(e + 1, 1, 2)?;
            if b.get(e2) != Some(&sep) {
                return None;
            }
            let (y, e3) = num(e2 + 1, 2, 4)?;
            let ok = (1..=31).contains(&a) && (1..=31).contains(&m) && (a <= 12 || m <= 12);
            return (ok && e3 - e2 - 1 != 3 && year_ok(y, e3 - e2 - 1) && boundary(e3))
                .then_some(e3);
        }
        // `2 March 1985`, `2nd of March 1985`.
        let m_end = month_at(b, month_after_day(b, e))?;
        let q = skip_spaces(b, m_end);
        let (y, e) = num(q, 4, 4)?;
        return ((1..=31).contains(&a) && year_ok(y, 4) && boundary(e)).then_some(e);
    }
    // `March 2, 1985`.
    let m_end = month_at(b, p)?;
    day_year_at(b, skip_spaces(b, m_end))
}

/// Where the month name of `2 March 1985` or `2nd of March 1985` starts, the day ending at `e`.
fn month_after_day(b: &[u8], e: usize) -> usize {
    let mut q = e;
    for suffix in [&b"st"[..], b"nd", b"rd", b"th", b"."] {
        if b[q..].starts_with(suffix) {
            q += suffix.len();
            break;
        }
    }
    q = skip_spaces(b, q);
    if b[q..].starts_with(b"of ") {
        q += 3;
    }
    q
}

/// Where the year of `March 2, 1985` or `March 2nd 1985` starts, the day ending at `e`.
fn year_after_day(b: &[u8], mut e: usize) -> usize {
    for suffix in [&b"st"[..], b"nd", b"rd", b"th"] {
        if b[e..].starts_with(suffix) {
            e += suffix.len();
            break;
        }
    }
    if b.get(e) == Some(&b',') {
        e += 1;
    }
    skip_spaces(b, e)
}

/// The end of the day and year after a month name (`2, 1985` in `March 2, 1985`), the day at
/// `q`.
fn day_year_at(b: &[u8], q: usize) -> Option<usize> {
    let (d, e) = number(b, q, 1, 2)?;
    let q = year_after_day(b, e);
    let (y, e) = number(b, q, 4, 4)?;
    ((1..=31).contains(&d) && (1900..=2100).contains(&y) && date_ends(b, e)).then_some(e)
}

/// The value and end of the `min` to `max` digits at `i` that no digit follows.
fn number(b: &[u8], i: usize, min: usize, max: usize) -> Option<(u32, usize)> {
    let mut e = i;
    while e < b.len() && b[e].is_ascii_digit() && e - i < max {
        e += 1;
    }
    if e - i < min || (e < b.len() && b[e].is_ascii_digit()) {
        return None;
    }
    let v = b[i..e]
        .iter()
        .fold(0u32, |v, &c| v * 10 + u32::from(c - b'0'));
    Some((v, e))
}

/// Whether a date may end at `e`: no letter or digit follows.
fn date_ends(b: &[u8], e: usize) -> bool {
    e >= b.len() || !b[e].is_ascii_alphanumeric()
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    i
}

/// Per first letter (index `c - b'a'`), the [`MONTHS`] that start with it (bit `i`:
/// `MONTHS[i]`), so a word is compared with the few month names of its initial only.
const MONTHS_BY_INITIAL: [u64; 26] = {
    assert!(MONTHS.len() <= 64);
    let mut t = [0u64; 26];
    let mut i = 0;
    while i < MONTHS.len() {
        t[(MONTHS[i].as_bytes()[0] - b'a') as usize] |= 1 << i;
        i += 1;
    }
    t
};

/// The end of a month name at `p` (longest first, case-insensitive, then an optional `.`).
fn month_at(b: &[u8], p: usize) -> Option<usize> {
    // Most words start with a letter no month name starts with.
    let first = b.get(p)?.to_ascii_lowercase();
    if !first.is_ascii_lowercase() {
        return None;
    }
    let mut months = MONTHS_BY_INITIAL[usize::from(first - b'a')];
    let mut best = None;
    while months != 0 {
        let mb = MONTHS[months.trailing_zeros() as usize].as_bytes();
        months &= months - 1;
        let end = p + mb.len();
        if end <= b.len()
            && b[p..end].eq_ignore_ascii_case(mb)
            && (end == b.len() || !b[end].is_ascii_alphabetic())
            && best.is_none_or(|e| end > e)
        {
            best = Some(end);
        }
    }
    best.map(|e| if b.get(e) == Some(&b'.') { e + 1 } else { e })
}

/// [`month_at`] as it was (every month name compared): its test oracle.
#[cfg(test)]
fn month_at_reference(b: &[u8], p: usize) -> Option<usize> {
    // Most words start with a letter no month name starts with.
    let first = b.get(p)?.to_ascii_lowercase();
    if !first.is_ascii_lowercase() || MONTH_INITIALS & (1 << (first - b'a')) == 0 {
        return None;
    }
    let mut best = None;
    for m in MONTHS {
        let mb = m.as_bytes();
        let end = p + mb.len();
        if mb[0] == first
            && end <= b.len()
            && b[p..end].eq_ignore_ascii_case(mb)
            && (end == b.len() || !b[end].is_ascii_alphabetic())
            && best.is_none_or(|e| end > e)
        {
            best = Some(end);
        }
    }
    best.map(|e| if b.get(e) == Some(&b'.') { e + 1 } else { e })
}

/// [`dob_in_text`] as it was: the cues looked for in the whole text.
#[cfg(test)]
pub(super) fn dob_in_whole_text(cues: &AhoCorasick, text: &str, out: &mut Vec<Span>) {
    dob_cues_in(cues, text.as_bytes(), 0, text.len(), out);
}

#[cfg(test)]
mod tests {
    use super::super::tests::shaped;
    use super::super::{IdRecognizer, IdsConfig};
    use super::*;

    #[test]
    fn month_may_follow_is_the_month_after_the_day() {
        // The test `may_open_date` made before the shortcut: the oracle.
        let reference = |b: &[u8], e: usize| may_start_month_at(b, month_after_day(b, e));
        let pieces: [&[u8]; 22] = [
            b"st",
            b"nd",
            b"rd",
            b"th",
            b".",
            b" ",
            b"  ",
            b"of ",
            b"of",
            b"o",
            b"s",
            b"March",
            b"mar",
            b"Sept",
            b"x",
            b"1",
            b",",
            b")",
            b"\xc3\xa9",
            b"N",
            b"-",
            b"dec",
        ];
        let mut rng = crate::testdata::Rng::new(19);
        let mut compared = 0;
        for _ in 0..30_000 {
            let mut text = Vec::new();
            for _ in 0..rng.below(6) {
                text.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
            for e in 0..=text.len() {
                assert_eq!(
                    month_may_follow(&text, e),
                    reference(&text, e),
                    "{:?} at {e}",
                    String::from_utf8_lossy(&text)
                );
                compared += 1;
            }
        }
        assert!(compared > 100_000, "{compared}");
        for c in 0..=255u8 {
            assert_eq!(month_may_follow(&[c], 0), reference(&[c], 0), "{c}");
        }
    }

    #[test]
    fn month_names_are_found_as_the_reference_finds_them() {
        let mut pieces: Vec<Vec<u8>> = MONTHS.iter().map(|m| m.as_bytes().to_vec()).collect();
        pieces.extend(MONTHS.iter().map(|m| m.to_ascii_uppercase().into_bytes()));
        for p in [
            "m", "a", "j", "x", "é", "ä", ".", " ", "1", "s", "e", "r", "Z",
        ] {
            pieces.push(p.as_bytes().to_vec());
        }
        let mut rng = crate::testdata::Rng::new(11);
        for _ in 0..30_000 {
            let mut text = Vec::new();
            for _ in 0..rng.below(6) {
                text.extend_from_slice(&pieces[rng.below(pieces.len())]);
            }
            for p in 0..=text.len() {
                assert_eq!(
                    month_at(&text, p),
                    month_at_reference(&text, p),
                    "{:?} {p}",
                    String::from_utf8_lossy(&text)
                );
                may_start_month_at_holds_where_it_must(&text, p);
            }
        }
        let prose = crate::testdata::prose(7, 64 * 1024).text;
        for p in 0..=prose.len() {
            assert_eq!(
                month_at(prose.as_bytes(), p),
                month_at_reference(prose.as_bytes(), p)
            );
            may_start_month_at_holds_where_it_must(prose.as_bytes(), p);
        }
    }

    /// [`may_start_month_at`] holds wherever a month name starts (it turns none away), and
    /// only where the first-letter test it replaced held.
    fn may_start_month_at_holds_where_it_must(b: &[u8], p: usize) {
        let at = may_start_month_at(b, p);
        if month_at_reference(b, p).is_some() {
            assert!(at, "{:?} {p}", String::from_utf8_lossy(b));
        }
        if at {
            assert!(b.get(p).is_some_and(|&c| may_start_month(c)));
        }
    }

    #[test]
    fn dates_across_block_edges_are_those_of_the_whole_text() {
        // A run's length is read from the digit masks of its block and the next: dates (and
        // runs of other lengths) whose first digits sit on either side of a 64-byte edge.
        let r = IdRecognizer::new(&IdsConfig::default());
        let dates = [
            "2.3.1985",
            "02/03/1985",
            "1985-03-02",
            "123.4.1985",
            "12345-03-02",
            "2nd March 1985",
            "March 2, 1985",
        ];
        let mut dated = 0;
        for date in dates {
            for cue in ["born ", "DOB: ", "x"] {
                for at in 50..140 {
                    let text = format!("{}{cue}{date} 7", " ".repeat(at));
                    let (mut ours, mut whole) = (Vec::new(), Vec::new());
                    dob_in_text(&r.birth_cues, &text, &mut ours);
                    dob_in_whole_text(&r.birth_cues, &text, &mut whole);
                    assert_eq!(ours, whole, "{text:?}");
                    dated += usize::from(!whole.is_empty());
                }
            }
        }
        assert!(dated > 500, "{dated}");
    }

    #[test]
    fn birth_cues_before_digits_are_those_of_the_whole_text() {
        let r = IdRecognizer::new(&IdsConfig::default());
        let pieces = [
            "born",
            "born on",
            "Born",
            "DOB",
            "d.o.b.",
            "date of birth",
            "fecha de nacimiento",
            "né le",
            "geboren am",
            ":",
            " ",
            "  ",
            "        ",
            "on ",
            "am ",
            "in ",
            "-",
            "\t",
            "x",
            "the",
            ", ",
            "\n",
            "March",
            "septiembre",
            "Dec.",
            "décembre",
            "2",
            "12",
            "1985",
            "02/03/1985",
            "1985-03-02",
            "2nd",
            "of",
            "7",
            "é",
            "1234567890",
            "2026-02-26T10:33:34",
            "Jan",
            "mai",
            "1st",
            "th",
            ".",
            "a",
            "20",
            "BORN ON",
            "Date Of Birth",
            "nacida el",
            "data di nascita",
            "nato il",
            "née le",
            "Geburtsdatum",
            "d.O.B.",
            "_",
            "xborn",
            "0dob",
            "79ccca03-52d2-4b96-bf49-4cd9377a6035",
            "1999-07-21T01:04:52.561913",
            "+1-519-748-2199",
        ];
        let mut rng = crate::testdata::Rng::new(7);
        let mut dated = 0;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..rng.below(24) {
                text.push_str(pieces[rng.below(pieces.len())]);
            }
            let (mut ours, mut whole) = (Vec::new(), Vec::new());
            dob_in_text(&r.birth_cues, &text, &mut ours);
            dob_in_whole_text(&r.birth_cues, &text, &mut whole);
            assert_eq!(ours, whole, "{text:?}");
            dated += usize::from(!whole.is_empty());
        }
        // Values shaped like UUIDs, timestamps, phone numbers, hashes, code and prose, now and
        // then with a date after them.
        for _ in 0..20_000 {
            let mut text = shaped(&mut rng);
            if rng.below(2) == 0 {
                text.push_str(pieces[rng.below(pieces.len())]);
                text.push_str(&shaped(&mut rng));
            }
            let (mut ours, mut whole) = (Vec::new(), Vec::new());
            dob_in_text(&r.birth_cues, &text, &mut ours);
            dob_in_whole_text(&r.birth_cues, &text, &mut whole);
            assert_eq!(ours, whole, "{text:?}");
            dated += usize::from(!whole.is_empty());
        }
        assert!(dated > 100, "{dated}");
        let mut found = Vec::new();
        dob_in_text(&r.birth_cues, "born on March        2, 1985", &mut found);
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn runs_that_may_be_a_date_s_first_pass_may_open_date() {
        let pieces = [
            "2",
            "12",
            "1985",
            "123",
            "02/03/1985",
            "1985-03-02",
            "2.3.85",
            "1-2-3",
            "2nd",
            "1st",
            "3rd",
            "4th",
            "st",
            "of ",
            " ",
            "  ",
            ",",
            ".",
            "-",
            "/",
            "March",
            "march",
            "MAR",
            "Dec.",
            "décembre",
            "août",
            "x",
            "T",
            "e",
            "a",
            "f",
            "s",
            "o",
            "n",
            "é",
            ":",
            "1985",
            "20",
        ];
        let mut dates = 0;
        for_each_digit_run(&pieces, 13, 30_000, |text, b, d, i| {
            if may_date(b, spaces_before(b, d), d, i - d) {
                dates += 1;
                assert!(may_open_date(b, d, i), "{text:?} {d}");
            }
        });
        assert!(dates > 2_000, "{dates}");
    }

    /// Calls `check(text, bytes, start, end)` for every whole run of digits of `rounds` texts of
    /// up to eleven random `pieces` (seeded with `seed`) and as many [`shaped`] ones.
    fn for_each_digit_run(
        pieces: &[&str],
        seed: u64,
        rounds: usize,
        mut check: impl FnMut(&str, &[u8], usize, usize),
    ) {
        let mut rng = crate::testdata::Rng::new(seed);
        let mut runs = |text: &str| {
            let b = text.as_bytes();
            let mut i = 0;
            while let Some(d) = crate::detect::phone::next_digit(b, i) {
                i = d;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                check(text, b, d, i);
            }
        };
        for _ in 0..rounds {
            let mut text = String::new();
            for _ in 0..rng.below(12) {
                text.push_str(pieces[rng.below(pieces.len())]);
            }
            runs(&text);
            runs(&shaped(&mut rng));
        }
    }

    #[test]
    fn may_open_date_is_the_reference() {
        // Every whole run of digits of generated dates, days, suffixes, month names, words
        // glued to numbers and log-shaped values, with what may follow a day.
        let pieces = [
            "2",
            "12",
            "1985",
            "123",
            "02/03/1985",
            "1985-03-02",
            "2.3.85",
            "2nd",
            "1st",
            "3rd",
            "4th",
            "st",
            "s",
            "n",
            "r",
            "t",
            "th",
            "of ",
            " ",
            "  ",
            ",",
            ", ",
            ".",
            "-",
            "/",
            ":",
            "March",
            "mar",
            "Dec.",
            "août",
            "x",
            "T",
            "a",
            "ccca",
            "_",
            "é",
            "\t",
            "1985",
        ];
        let mut passed = 0;
        for_each_digit_run(&pieces, 31, 40_000, |text, b, d, i| {
            let want = may_open_date_reference(b, d, i);
            assert_eq!(may_open_date(b, d, i), want, "{text:?} {d}");
            passed += usize::from(want);
        });
        assert!(passed > 5_000, "{passed}");
    }

    #[test]
    fn last_cue_in_is_the_byte_scan() {
        // Every cue's first two bytes, in any case, are a flagged pair wherever they sit.
        for cue in BIRTH_CUES {
            let c = cue.as_bytes();
            for (x, y) in [
                (c[0], c[1]),
                (c[0].to_ascii_uppercase(), c[1].to_ascii_uppercase()),
            ] {
                assert!(
                    lanes::BIRTH_CUE_PAIRS.contains(&(x | 0x20, y | 0x20)),
                    "{cue}"
                );
                for pos in 0..16 {
                    let mut w = [b'x'; 20];
                    w[pos] = x;
                    w[pos + 1] = y;
                    assert_ne!(lanes::birth_cue_pairs(&w, 0) & 1 << pos, 0, "{cue} {pos}");
                }
            }
        }
        let mut rng = crate::testdata::Rng::new(17);
        let pieces = [
            "born",
            "Born ",
            "dob",
            "DOB:",
            "d.o.b.",
            "née le",
            "xborn",
            "1985-03-02",
            " ",
            "-",
            "on ",
            "é",
            "b",
            "n",
            "N",
            "fecha",
            "geboren",
            "data",
            "bd",
            "nn",
        ];
        let mut found = 0;
        for _ in 0..20_000 {
            let mut t = shaped(&mut rng);
            for _ in 0..rng.below(6) {
                t.push_str(pieces[rng.below(pieces.len())]);
                t.push_str(&shaped(&mut rng));
            }
            let b = t.as_bytes();
            let from = rng.below(b.len() + 1);
            let to = from + rng.below(b.len() - from + 1);
            let want = last_cue_in_reference(b, from, to);
            assert_eq!(last_cue_in(b, from, to), want, "{t:?} {from}..{to}");
            found += usize::from(want.is_some());
        }
        assert!(found > 1_500, "{found}");
    }

    #[test]
    fn birth_cue_starts_are_those_of_the_automaton() {
        let r = IdRecognizer::new(&IdsConfig::default());
        let mut rng = crate::testdata::Rng::new(3);
        let mut texts: Vec<String> = BIRTH_CUES
            .iter()
            .flat_map(|c| {
                [
                    c.to_string(),
                    c.to_ascii_uppercase(),
                    format!("x{c}"),
                    format!("-{c}"),
                ]
            })
            .collect();
        for _ in 0..5_000 {
            let mut t = shaped(&mut rng);
            t.push_str(BIRTH_CUES[rng.below(BIRTH_CUES.len())]);
            t.push_str(&shaped(&mut rng));
            texts.push(t);
        }
        let mut starts = 0;
        for t in &texts {
            let b = t.as_bytes();
            let mut want = vec![false; b.len()];
            for m in r.birth_cues.find_overlapping_iter(b) {
                let at = m.start();
                if at == 0 || !b[at - 1].is_ascii_alphanumeric() {
                    want[at] = true;
                }
            }
            for (j, &w) in want.iter().enumerate() {
                assert_eq!(birth_cue_at(b, j), w, "{t:?} {j}");
                starts += usize::from(w);
            }
        }
        assert!(starts > 2_000, "{starts}");
    }
}
