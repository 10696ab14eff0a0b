//! The token grammar: `[KIND_N]`, or `[KIND_N PART]` with a partial reveal.
//!
//! `KIND` is `[A-Z][A-Z0-9_]*` (a [`Kind`] name) and `N` a decimal number from 1 without leading
//! zeros, so each token has exactly one spelling. `PART` (see [`crate::reveal`]: an email's
//! domain, a card's brand and last four digits ...) follows one space: 1 to
//! [`MAX_REVEAL_LEN`] bytes of words made of `A-Z a-z 0-9 @ . + -`, one space between words, so it
//! never holds `[`, `]`, `_` or a second space and the first space always ends `KIND_N`.
//! A token's identity is `KIND_N` alone ([`FoundToken::to_token`]): flow rules, the audit log
//! and the vault see the same token with or without its part; restore checks the part against
//! the value (`engine.rs`), so a changed part never restores. Matching is **case-sensitive**: `[email_1]` or
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

/// The longest revealed part of a token.
pub const MAX_REVEAL_LEN: usize = 48;

/// The longest token the scanner accepts (`[` + 32-byte kind + `_` + 10 digits + a space and
/// a revealed part + `]`).
const MAX_TOKEN_LEN: usize = 1 + 32 + 1 + 10 + 1 + MAX_REVEAL_LEN + 1;

/// Whether `part` can follow a token's number (see the module doc).
pub fn is_valid_reveal(part: &str) -> bool {
    let b = part.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_REVEAL_LEN
        && b[0] != b' '
        && b[b.len() - 1] != b' '
        && !part.contains("  ")
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'@' | b'.' | b'+' | b'-' | b' '))
}

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

    /// Appends the token text with a revealed part (`[EMAIL_1 @example.com]`), or the bare
    /// token when there is none or it is not a valid part.
    pub fn write_revealed(&self, part: Option<&str>, out: &mut String) {
        let Some(part) = part.filter(|p| is_valid_reveal(p)) else {
            return self.write_to(out);
        };
        self.write_to(out);
        out.pop();
        out.push(' ');
        out.push_str(part);
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
    /// The revealed part after the number (`@example.com`), if any.
    pub reveal: Option<&'a str>,
}

impl FoundToken<'_> {
    /// The token as an owned value.
    pub fn to_token(&self) -> Token {
        Token::new(Kind::from_name(self.kind), self.n)
    }
}

/// Appends `n` in decimal: what `write!(out, "{n}")` writes, without the formatting machinery
/// (every token and every phone number's E.164 form is written on the hot path).
pub(crate) fn push_decimal(out: &mut String, n: u32) {
    out.push_str(itoa::Buffer::new().format(n));
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
    let (inner, reveal) = match memchr::memchr(b' ', inner.as_bytes()) {
        Some(space) => {
            let part = &inner[space + 1..];
            if !is_valid_reveal(part) {
                return None;
            }
            (&inner[..space], Some(part))
        }
        None => (inner, None),
    };
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
        reveal,
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
    fn revealed_parts() {
        let text = "to [EMAIL_1 @example.com] and [CREDIT_CARD_2 visa 4242]!";
        let got: Vec<_> = find_tokens(text)
            .map(|t| (&text[t.start..t.end], t.kind, t.n, t.reveal))
            .collect();
        assert_eq!(
            got,
            vec![
                ("[EMAIL_1 @example.com]", "EMAIL", 1, Some("@example.com")),
                (
                    "[CREDIT_CARD_2 visa 4242]",
                    "CREDIT_CARD",
                    2,
                    Some("visa 4242")
                ),
            ]
        );
        // Identity is the bare token.
        assert_eq!(
            parse("[PHONE_3 +44]").unwrap().to_token(),
            parse("[PHONE_3]").unwrap().to_token()
        );
        let mut out = String::new();
        Token::new(Kind::Email, 7).write_revealed(Some("@example.com"), &mut out);
        assert_eq!(out, "[EMAIL_7 @example.com]");
        assert_eq!(parse(&out).unwrap().reveal, Some("@example.com"));
        out.clear();
        Token::new(Kind::Email, 7).write_revealed(Some("bad]part"), &mut out);
        assert_eq!(out, "[EMAIL_7]");
        for text in [
            "[EMAIL_1 ]",
            "[EMAIL_1  @x.com]",
            "[EMAIL_1 @x.com ]",
            "[EMAIL_1 a_b]",
            "[EMAIL_1 [x]",
            "[EMAIL _1 x]",
            "[EMAIL_1\t@x.com]",
            &format!("[EMAIL_1 {}]", "a".repeat(MAX_REVEAL_LEN + 1)),
        ] {
            assert!(found(text).is_empty(), "{text}");
        }
        // A part never hides a token inside it.
        assert_eq!(
            found("[EMAIL_1 [EMAIL_2]]"),
            vec![(9, 18, "EMAIL".into(), 2)]
        );
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
