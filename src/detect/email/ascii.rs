//! The two halves of an address read in one pass each, when they are ASCII.
//!
//! Most addresses are ASCII on both sides of the `@`: `maria.ortiz@example.com`. The general
//! reading (`local_start`, `domain_end` in `email.rs`) goes character by character and then
//! makes several passes over each half (the cut after a `key=`, the trimmed punctuation, the
//! `..` test; the domain's run, its trimmed end, its labels), about 1,400 instructions an
//! address. Here one table load classifies each byte of a run, the local part's run stops at
//! its cut (what is before it is never read), and the tests after it are byte loops over the
//! few bytes left.
//!
//! Each function answers `None` where its half is not plain ASCII (a non-ASCII byte stops the
//! run, where an internationalised character may go on with it; a quoted local part), and the
//! caller reads that half the general way. Where it answers, its answer is the general
//! reading's: the tests compare the two at every `@` of generated texts.

use super::{ATEXT_PUNCT, MAX_DOMAIN, MAX_LOCAL, valid_domain, without_file_extension};

/// [`CLASS`] bit: RFC 5322 `atext` or `.`, a byte of an unquoted ASCII local part.
const ATEXT: u8 = 1;
/// [`CLASS`] bit: `=`, `/` or `?`: a key or a path glued before the local part ends there.
const CUT: u8 = 2;
/// [`CLASS`] bit: a byte a trimmed local part may start with (a letter, a digit or `_`).
const KEEP: u8 = 4;
/// [`CLASS`] bit: a byte of an ASCII domain's run (a letter, a digit, `-` or `.`).
const DOMAIN: u8 = 8;
/// [`CLASS`] bit: a byte of an ASCII domain label (a letter, a digit or `-`).
const LABEL: u8 = 16;

/// The classes of each byte (none for non-ASCII bytes).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        if b.is_ascii_alphanumeric() {
            t[c] |= ATEXT | KEEP | DOMAIN | LABEL;
        }
        c += 1;
    }
    let mut i = 0;
    while i < ATEXT_PUNCT.len() {
        t[ATEXT_PUNCT[i] as usize] |= ATEXT;
        i += 1;
    }
    t[b'=' as usize] |= CUT;
    t[b'/' as usize] |= CUT;
    t[b'?' as usize] |= CUT;
    t[b'_' as usize] |= KEEP;
    t[b'-' as usize] |= DOMAIN | LABEL;
    t[b'.' as usize] |= DOMAIN;
    t
};

/// Whether `c` is RFC 5322 `atext` or `.` (`email.rs`'s general reading asks too).
#[inline(always)]
pub(super) fn is_atext(c: u8) -> bool {
    CLASS[usize::from(c)] & ATEXT != 0
}

/// Whether `c` may be a byte of an ASCII domain's run: a letter, a digit, `-` or `.`.
#[inline(always)]
pub(super) fn is_domain_byte(c: u8) -> bool {
    CLASS[usize::from(c)] & DOMAIN != 0
}

/// Whether `c` may be a byte of an ASCII domain label: a letter, a digit or `-`.
#[inline(always)]
pub(super) fn is_label_byte(c: u8) -> bool {
    CLASS[usize::from(c)] & LABEL != 0
}

/// Where the local part before the `@` at `at` starts (`Some(None)`: there is no valid one),
/// read back from `at` in one pass; `None` when the general reading must decide (a quoted
/// local part, or a non-ASCII byte reached before the run's end or a cut).
///
/// The run of `atext` goes back at most `4 * MAX_LOCAL` bytes and stops at the last `=`, `/`
/// or `?` (what comes before those is cut off, so it is not read). What is left is trimmed of
/// leading punctuation when it holds a letter or digit, and must then be 1 to `MAX_LOCAL`
/// bytes, with no `.` first, last or doubled.
pub(super) fn local_start(b: &[u8], at: usize) -> Option<Option<usize>> {
    if b.get(at.wrapping_sub(1)) == Some(&b'"') {
        return None;
    }
    let floor = at.saturating_sub(4 * MAX_LOCAL);
    let mut i = at;
    // Back over `atext` to the run's start or the last cut.
    while i > floor && CLASS[usize::from(b[i - 1])] & (ATEXT | CUT) == ATEXT {
        i -= 1;
    }
    if i > floor && b[i - 1] >= 0x80 {
        return None;
    }
    let run = &b[i..at];
    // Trimmed to its first letter, digit or `_` when it holds a letter or digit (the first
    // such byte is a letter or digit, or a `_` with one after it).
    let start = match run.iter().position(|&c| CLASS[usize::from(c)] & KEEP != 0) {
        Some(k) if run[k..].iter().any(u8::is_ascii_alphanumeric) => i + k,
        _ => i,
    };
    let local = &b[start..at];
    let bad = local.is_empty()
        || local.len() > MAX_LOCAL
        || local[0] == b'.'
        || local[local.len() - 1] == b'.'
        || local.windows(2).any(|w| w == b"..");
    Some((!bad).then_some(start))
}

/// Where the domain from byte `from` of `text` ends (`Some(None)`: there is no valid one), its
/// run read in one pass; `None` when a non-ASCII byte ends the run, where the general reading
/// decides.
pub(super) fn domain_end(text: &str, from: usize) -> Option<Option<usize>> {
    let b = text.as_bytes();
    let rest = b.get(from..)?;
    // The run goes on while its length is at most `4 * MAX_DOMAIN`, as the general one.
    let limit = rest.len().min(4 * MAX_DOMAIN + 1);
    let mut len = 0;
    while len < limit && CLASS[usize::from(rest[len])] & DOMAIN != 0 {
        len += 1;
    }
    if len < limit && rest[len] >= 0x80 {
        return None;
    }
    let mut end = len;
    while end > 0 && matches!(rest[end - 1], b'.' | b'-') {
        end -= 1;
    }
    // ASCII, so a `str` of the same bytes.
    let domain = text.get(from..from + end)?;
    if let Some(short) = without_file_extension(domain) {
        return Some(Some(from + short.len()));
    }
    Some(valid_domain(domain).then_some(from + end))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Texts of address-like pieces, ASCII and not, and every `@` of each: both halves agree
    /// with the general reading wherever they answer, and they answer for ASCII addresses.
    #[test]
    fn one_pass_halves_agree_with_the_general_reading() {
        let pieces = [
            "a", "Z", "9", ".", "..", "-", "_", "+", "!", "~", "@", "@", "@", " ", "\t", "\n", "é",
            "王", "\u{301}", "=", "/", "?", "\"", ":", "//", "xn--", "maria", "ortiz", "example",
            "com", "co.uk", ".png", ".pdf", "logo@2x", "key=", "-", "'", "(", ")", "<", ">", ",",
            "%40", "＠",
        ];
        let mut rng = crate::testdata::Rng::new(11);
        let long = ["a".repeat(300), "b.".repeat(300), "c".repeat(70)];
        let (mut answered, mut ascii_at) = (0, 0);
        for round in 0..30_000 {
            let n = 1 + rng.below(24);
            let mut text: String = (0..n).map(|_| *rng.pick(&pieces)).collect();
            if round % 20 == 0 {
                text.insert_str(0, &long[round % 3]);
            }
            if round % 20 == 10 {
                text.push_str(&long[round % 3]);
            }
            let b = text.as_bytes();
            for at in memchr::memchr_iter(b'@', b) {
                let general = super::super::local_start(&text, at);
                if let Some(fast) = local_start(b, at) {
                    answered += 1;
                    assert_eq!(fast, general, "local part of {text:?} at {at}");
                } else {
                    assert!(
                        b[..at].ends_with(b"\"") || !b[..at].is_ascii(),
                        "{text:?} at {at}"
                    );
                }
                if b.is_ascii() {
                    ascii_at += 1;
                }
                let general = super::super::domain_end(&text, at + 1);
                if let Some(fast) = domain_end(&text, at + 1) {
                    assert_eq!(fast, general, "domain of {text:?} at {at}");
                } else {
                    assert!(!b[at + 1..].is_ascii(), "{text:?} at {at}");
                }
            }
        }
        assert!(
            answered > 20_000 && ascii_at > 5_000,
            "{answered} {ascii_at}"
        );
    }

    #[test]
    fn classes_are_the_bytewise_tests() {
        for c in 0..=255u8 {
            let k = CLASS[usize::from(c)];
            let atext = c.is_ascii_alphanumeric() || ATEXT_PUNCT.contains(&c);
            assert_eq!(k & ATEXT != 0, atext, "{c}");
            assert_eq!(k & CUT != 0, matches!(c, b'=' | b'/' | b'?'), "{c}");
            assert_eq!(k & KEEP != 0, c.is_ascii_alphanumeric() || c == b'_', "{c}");
            assert_eq!(
                k & LABEL != 0,
                c.is_ascii_alphanumeric() || c == b'-',
                "{c}"
            );
            assert_eq!(
                k & DOMAIN != 0,
                c.is_ascii_alphanumeric() || c == b'-' || c == b'.',
                "{c}"
            );
        }
    }
}
