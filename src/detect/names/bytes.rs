//! Byte-level tests shared by the scans: byte classes in one table, and ASCII letters found
//! eight bytes at a time in a `u64` (SWAR), with no allocation and no `char` decoding.
//!
//! Apart because they are the hot loops' building blocks (`idle.rs`, `scan.rs`, `casual.rs`)
//! and are easiest to check in isolation.

/// Bits of a [`word_sides`] table: the byte may stand right before a word, or right after it.
pub(super) const BEFORE: u8 = 1;
pub(super) const AFTER: u8 = 2;

/// A table of the bytes around a word: [`BEFORE`] for each of `before`, [`AFTER`] for each
/// of `after` (the scans' tests of a capitalised word by the bytes beside it, one load each).
pub(super) const fn word_sides(before: &[u8], after: &[u8]) -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut k = 0;
    while k < before.len() {
        t[before[k] as usize] |= BEFORE;
        k += 1;
    }
    k = 0;
    while k < after.len() {
        t[after[k] as usize] |= AFTER;
        k += 1;
    }
    t
}

/// Punctuation that marks code, markup or a log line rather than prose.
pub(super) const fn is_code_byte(c: u8) -> bool {
    matches!(
        c,
        b'{' | b'}'
            | b'('
            | b')'
            | b';'
            | b'='
            | b'_'
            | b'<'
            | b'>'
            | b'/'
            | b'\\'
            | b'['
            | b']'
            | b'|'
            | b'$'
            | b'#'
            | b'*'
            | b'`'
    )
}

/// Punctuation that makes an all-lower-case text code or a log line rather than prose typed
/// without capitals: [`is_code_byte`] less the brackets, `#` and `*` of chat ("(not by megan
/// fyodorova)", "at #15").
pub(super) fn is_code_byte_in_lower_text(c: u8) -> bool {
    is_code_byte(c) && !matches!(c, b'(' | b')' | b'#' | b'*')
}

/// Whether `c`, after a backslash, makes an escape of logged or double-encoded text (`\"`,
/// `\'`, `\n`, `\r`, `\t`) rather than a path separator.
pub(super) fn is_escape_letter(c: Option<u8>) -> bool {
    matches!(c, Some(b'"' | b'\'' | b'n' | b'r' | b't'))
}

/// Byte classes of [`BYTE_CLASS`].
pub(super) const UPPER: u8 = 1;

/// A byte of [`is_code_byte`].
pub(super) const CODE: u8 = 2;

/// A byte after ASCII letters that makes the word go on or needs the full word scan: `'`,
/// `-`, or any non-ASCII byte.
pub(super) const GOES_ON: u8 = 4;

/// The class bits of each byte value, so that a test is one load.
pub(super) const BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_uppercase() {
            t[c] |= UPPER;
        }
        if is_code_byte(b) {
            t[c] |= CODE;
        }
        if b >= 0x80 || b == b'\'' || b == b'-' {
            t[c] |= GOES_ON;
        }
        c += 1;
    }
    t
};

/// The high bit of every byte of a `u64`.
pub(super) const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `x` (ASCII bytes only) that is ASCII white space as
/// `char::is_whitespace` has it: a space, or `\t`, `\n`, the vertical tab, `\x0c`, `\r`.
pub(super) fn ascii_space_lanes(x: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // `(x | 0x80) - lo` per byte never borrows from the next byte; its high bit says x >= lo.
    let ge = |lo: u8| ((x | HIGH) - ONES * u64::from(lo)) & HIGH;
    // A zero byte of `x ^ spaces`, exactly (no borrow from the byte below).
    let z = x ^ (ONES * u64::from(b' '));
    let spaces = !(((z & !HIGH) + !HIGH) | z) & HIGH;
    spaces | (ge(0x09) & !ge(0x0e))
}

/// Eight bytes of `b` from `i`, little-endian, if there are eight.
pub(super) fn load8(b: &[u8], i: usize) -> Option<u64> {
    match b.get(i..i.checked_add(8)?)? {
        &[a, b, c, d, e, f, g, h] => Some(u64::from_le_bytes([a, b, c, d, e, f, g, h])),
        _ => None,
    }
}

/// The high bit of each byte of `x` that is an ASCII letter. With every byte below 0x80,
/// `y + (0x80 - bound)` sets a byte's high bit exactly when `y >= bound`, without carries.
pub(super) fn ascii_letters(x: u64) -> u64 {
    let y = (x | 0x2020_2020_2020_2020) & !HIGH; // lower case, bytes below 0x80
    let at_least_a = y.wrapping_add(0x1f1f_1f1f_1f1f_1f1f); // >= b'a'
    let past_z = y.wrapping_add(0x0505_0505_0505_0505); // >= b'{'
    at_least_a & !past_z & !x & HIGH
}

/// The end of the run of ASCII letters starting at `i`, eight bytes at a time.
pub(super) fn ascii_letters_end(b: &[u8], mut i: usize) -> usize {
    while let Some(x) = load8(b, i) {
        let other = !ascii_letters(x) & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i].is_ascii_alphabetic() {
        i += 1;
    }
    i
}

/// The first position from `i` holding an ASCII letter or a non-ASCII byte (`b.len()` if none).
pub(super) fn next_letter(b: &[u8], mut i: usize) -> usize {
    // Most gaps between words are one space: look at the next byte before loading eight.
    match b.get(i) {
        Some(&c) if c.is_ascii_alphabetic() || c >= 0x80 => return i,
        Some(_) => i += 1,
        None => return i,
    }
    while let Some(x) = load8(b, i) {
        let stop = ascii_letters(x) | (x & HIGH);
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !(b[i].is_ascii_alphabetic() || b[i] >= 0x80) {
        i += 1;
    }
    i
}

/// Whether `b` holds `needle`: `memchr` for long texts, eight bytes at a time for short ones
/// (where `memchr`'s set-up costs more than the search).
pub(super) fn has_byte(b: &[u8], needle: u8) -> bool {
    if b.len() >= 256 {
        return memchr::memchr(needle, b).is_some();
    }
    let pattern = u64::from(needle) * 0x0101_0101_0101_0101;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) ^ pattern;
        // A zero byte of `x` (exact: no borrow from the byte below).
        if !(((x & !HIGH) + !HIGH) | x) & HIGH != 0 {
            return true;
        }
    }
    chunks.remainder().contains(&needle)
}
