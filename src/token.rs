//! The token grammar: `[KIND_N]`.
//!
//! `KIND` is `[A-Z][A-Z0-9_]*` (a [`Kind`] name) and `N` a decimal number from 1 without leading
//! zeros, so each token has exactly one spelling. Matching is **case-sensitive**: `[email_1]` or
//! `[ EMAIL_1 ]` is plain text, never a token, in both directions. One spelling keeps the
//! outbound scan exact (a model that rewrites a token has changed it) and means a case variant in
//! inbound data needs no neutralising.
//!
//! # Forged tokens
//!
//! A tool result may literally contain `[EMAIL_1]` (a ticket quoting an earlier conversation, or
//! a server trying to make the layer restore a value it never saw). Inbound, every token-shaped
//! string is itself treated as a value of kind [`Kind::Literal`] and replaced by a fresh
//! `[LITERAL_N]` token whose stored value is the original text. The model therefore never sees a
//! token the layer did not mint for it, and outbound `[LITERAL_N]` restores to exactly the text
//! the server sent: the round trip stays exact and no other value can be reached.

use std::fmt;

use crate::kind::Kind;

/// The longest token the scanner accepts (`[` + 32-byte kind + `_` + 10 digits + `]`).
const MAX_TOKEN_LEN: usize = 1 + 32 + 1 + 10 + 1;

/// A minted token: a kind and its number within the session.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Token {
    /// The kind of value the token stands for.
    pub kind: Kind,
    /// Its number among the session's tokens of that kind, from 1.
    pub n: u32,
}

impl Token {
    /// A token.
    pub fn new(kind: Kind, n: u32) -> Token {
        Token { kind, n }
    }

    /// Appends the token text to `out` (without the formatting machinery: the inbound path
    /// writes one per value found).
    pub fn write_to(&self, out: &mut String) {
        let kind = self.kind.as_str();
        out.reserve(kind.len() + 13);
        out.push('[');
        out.push_str(kind);
        out.push('_');
        push_decimal(out, self.n);
        out.push(']');
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}_{}]", self.kind.as_str(), self.n)
    }
}

/// A token found in text: where it is and what it names. Borrows the kind name from the text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FoundToken<'a> {
    /// Byte offset of `[`.
    pub start: usize,
    /// Byte offset one past `]`.
    pub end: usize,
    /// The kind name (`EMAIL`).
    pub kind: &'a str,
    /// The number.
    pub n: u32,
}

impl FoundToken<'_> {
    /// The token as an owned value.
    pub fn to_token(&self) -> Token {
        Token::new(Kind::from_name(self.kind), self.n)
    }
}

/// Appends `n` in decimal: what `write!(out, "{n}")` writes, without the formatting machinery
/// (every token and every phone number's E.164 form is written on the hot path).
pub(crate) fn push_decimal(out: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Pushed one by one: cheaper for a few digits than checking them as UTF-8 and copying.
    for &d in &digits[i..] {
        out.push(char::from(d));
    }
}

/// Parses a whole string as one token.
pub fn parse(text: &str) -> Option<FoundToken<'_>> {
    let found = parse_at(text, 0)?;
    (found.end == text.len()).then_some(found)
}

/// Parses a token that starts at `text[start]` (which must be `[`).
fn parse_at(text: &str, start: usize) -> Option<FoundToken<'_>> {
    let bytes = text.as_bytes();
    if bytes.get(start) != Some(&b'[') {
        return None;
    }
    // A kind starts with an upper-case letter: most brackets in code and logs (`[0]`, `[http]`,
    // `[state, setState]`) fail here before any search.
    if !bytes.get(start + 1).is_some_and(u8::is_ascii_uppercase) {
        return None;
    }
    let limit = (start + MAX_TOKEN_LEN).min(bytes.len());
    let close = start + 1 + memchr::memchr(b']', &bytes[start + 1..limit])?;
    let inner = &text[start + 1..close];
    let underscore = memchr::memrchr(b'_', inner.as_bytes())?;
    let (kind, digits) = (&inner[..underscore], &inner[underscore + 1..]);
    if !Kind::is_valid_name(kind) {
        return None;
    }
    let d = digits.as_bytes();
    if d.is_empty() || d.len() > 10 || d[0] == b'0' || !d.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    Some(FoundToken {
        start,
        end: close + 1,
        kind,
        n,
    })
}

/// Every token in `text`, left to right, non-overlapping.
pub fn find_tokens(text: &str) -> impl Iterator<Item = FoundToken<'_>> {
    let bytes = text.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        while pos < bytes.len() {
            let at = pos + memchr::memchr(b'[', &bytes[pos..])?;
            if let Some(found) = parse_at(text, at) {
                pos = found.end;
                return Some(found);
            }
            pos = at + 1;
        }
        None
    })
}

/// Whether `text` contains anything token-shaped.
pub fn contains_token(text: &str) -> bool {
    find_tokens(text).next().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(usize, usize, String, u32)> {
        find_tokens(text)
            .map(|t| (t.start, t.end, t.kind.to_string(), t.n))
            .collect()
    }

    #[test]
    fn formats_tokens() {
        assert_eq!(Token::new(Kind::Email, 1).to_string(), "[EMAIL_1]");
        assert_eq!(
            Token::new(Kind::from_name("EMPLOYEE_ID"), 12).to_string(),
            "[EMPLOYEE_ID_12]"
        );
    }

    #[test]
    fn write_to_matches_display() {
        for n in [1, 9, 10, 99, 100, 12345, u32::MAX] {
            for kind in [Kind::Email, Kind::from_name("EMPLOYEE_ID")] {
                let token = Token::new(kind, n);
                let mut out = String::from("x");
                token.write_to(&mut out);
                assert_eq!(out, format!("x{token}"));
            }
        }
    }

    #[test]
    fn finds_tokens_in_text() {
        assert_eq!(
            found("to [EMAIL_1] and [PHONE_23], [EMPLOYEE_ID_2]"),
            vec![
                (3, 12, "EMAIL".into(), 1),
                (17, 27, "PHONE".into(), 23),
                (29, 44, "EMPLOYEE_ID".into(), 2)
            ]
        );
    }

    #[test]
    fn rejects_near_misses() {
        for text in [
            "[email_1]",
            "[EMAIL_0]",
            "[EMAIL_01]",
            "[EMAIL_]",
            "[_1]",
            "[EMAIL_1",
            "[EMAIL 1]",
            "[EMAIL_1a]",
            "[EMAIL_99999999999]",
            "[]",
            "[[",
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn nested_brackets_find_the_inner_token() {
        assert_eq!(found("[[NAME_1]]"), vec![(1, 9, "NAME".into(), 1)]);
    }

    #[test]
    fn parse_whole() {
        assert!(parse("[NAME_3]").is_some());
        assert!(parse("[NAME_3] ").is_none());
    }

    #[test]
    fn unicode_around_tokens() {
        assert_eq!(found("é[NAME_1]é"), vec![(2, 10, "NAME".into(), 1)]);
    }
}
