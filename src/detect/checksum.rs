//! Checksummed numbers (placeholder).
use super::{FindContext, Recognizer, Span};

#[derive(Debug)]
pub(super) struct NumberRecognizer;

impl NumberRecognizer {
    pub(super) fn new(_cc: bool, _iban: bool, _ssn: bool) -> Self {
        NumberRecognizer
    }
}

impl Recognizer for NumberRecognizer {
    fn find(&self, _text: &str, _cx: &FindContext<'_>, _out: &mut Vec<Span>) {}
}

/// Whether the digits in `s` pass the Luhn check.
pub(super) fn luhn_valid(s: &str) -> bool {
    let mut sum = 0u32;
    let mut count = 0;
    for (i, d) in s
        .bytes()
        .rev()
        .filter(u8::is_ascii_digit)
        .map(|b| u32::from(b - b'0'))
        .enumerate()
    {
        let v = if i % 2 == 1 {
            let x = d * 2;
            if x > 9 { x - 9 } else { x }
        } else {
            d
        };
        sum += v;
        count += 1;
    }
    count >= 2 && sum.is_multiple_of(10)
}

/// Whether `s` (letters and digits; others ignored) passes ISO 7064 mod 97-10 after moving the
/// first four characters to the end, as for IBANs.
pub(super) fn mod97_valid(s: &str) -> bool {
    let chars: Vec<u8> = s
        .bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_uppercase())
        .collect();
    if chars.len() < 5 {
        return false;
    }
    let mut rem = 0u32;
    for &c in chars[4..].iter().chain(&chars[..4]) {
        let v = if c.is_ascii_digit() {
            u32::from(c - b'0')
        } else {
            u32::from(c - b'A') + 10
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}
