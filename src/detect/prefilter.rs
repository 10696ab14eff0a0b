//! One pass over a short string that tells which recognizers can possibly fire in it.
//!
//! A JSON tool result is thousands of short strings (`"active"`, `"q3"`, a date), and most of
//! them hold nothing. Each recognizer's own prefilter (`memchr` for `@`, the digit skip, `:` for
//! IPv6, `[` for tokens) is cheap on a long text but has a fixed cost per call that dominates on
//! a short one. [`classes`] reads the string once through a 256-entry table and returns a
//! bitmask of the trigger bytes it holds; the detector then calls only the recognizers whose
//! trigger is present. A recognizer skipped this way would have found nothing: each bit is the
//! byte that recognizer's own scan starts from.
//!
//! Long strings skip the pass ([`ALL`]): there the recognizers' vectorised scans cost less than a
//! byte-at-a-time loop.

/// The text holds `@` or `%` (email; `%40` is an `@` in a URL).
pub(crate) const AT: u8 = 1;
/// The text holds an ASCII digit (phone, card, IBAN, SSN, IPv4).
pub(crate) const DIGIT: u8 = 1 << 1;
/// The text holds `:` (IPv6).
pub(crate) const COLON: u8 = 1 << 2;
/// The text holds `[` (token-shaped literals).
pub(crate) const BRACKET: u8 = 1 << 3;
/// The text holds `\n` (CSV needs a header line).
pub(crate) const NEWLINE: u8 = 1 << 4;
/// The text holds `=` (`key=value` credentials).
pub(crate) const EQUALS: u8 = 1 << 5;
/// The classes one of which every credential shorter than `secrets::SHORTEST_BARE` holds: a
/// digit, a `:` or `=` (key-value pairs, URLs), a newline (PEM blocks).
pub(crate) const SECRET_TRIGGERS: u8 = DIGIT | COLON | NEWLINE | EQUALS;
/// Every class: nothing can be ruled out.
pub(crate) const ALL: u8 = u8::MAX;

/// Strings longer than this are not classified (see the module docs).
pub(crate) const MAX_LEN: usize = 256;

static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut d = b'0';
    while d <= b'9' {
        t[d as usize] = DIGIT;
        d += 1;
    }
    t[b'@' as usize] = AT;
    t[b'%' as usize] = AT;
    t[b':' as usize] = COLON;
    t[b'[' as usize] = BRACKET;
    t[b'\n' as usize] = NEWLINE;
    t[b'=' as usize] = EQUALS;
    t
};

/// The classes of the bytes of `text`, or [`ALL`] when it is longer than [`MAX_LEN`].
pub(crate) fn classes(text: &[u8]) -> u8 {
    if text.len() > MAX_LEN {
        return ALL;
    }
    text.iter().fold(0, |m, &b| m | TABLE[usize::from(b)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_trigger_bytes() {
        assert_eq!(classes(b"active"), 0);
        assert_eq!(classes(b""), 0);
        assert_eq!(classes(b"ann@x.io"), AT);
        assert_eq!(classes(b"2026-01-15T09:30:00Z"), DIGIT | COLON);
        assert_eq!(classes(b"see [EMAIL_1]\nok"), BRACKET | DIGIT | NEWLINE);
        assert_eq!(classes("caf\u{e9} \u{ff20}".as_bytes()), 0);
        assert_eq!(classes(&[b'a'; MAX_LEN + 1]), ALL);
    }
}
