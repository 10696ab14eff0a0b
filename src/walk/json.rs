//! A minimal JSON lexer that visits string literals in place.
//!
//! Rewriting a tool result through `serde_json::Value` (parse, walk, serialize) caps throughput
//! near 80 MB/s before any detection runs. Only string literals ever change, so this lexer walks
//! the raw text once, skipping string bodies with `memchr`, and reports each literal's byte range
//! with its structural context (the key it is the value of, the key above that, its path). The
//! caller rewrites just the literals that hold something and copies every other byte unchanged,
//! so numbers, whitespace and key order survive exactly.
//!
//! The lexer validates structure (brackets, colons, commas, literals) and string escapes enough to
//! never mis-frame a string; malformed input is an error, never a panic.

use std::fmt::Write;

/// Why a document is not JSON. Carries an offset, never content.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid JSON at byte {offset}: {what}")]
pub struct JsonError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// What was expected.
    pub what: &'static str,
}

/// One string literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StrLit {
    /// Offset of the opening quote.
    pub(crate) start: usize,
    /// Offset one past the closing quote.
    pub(crate) end: usize,
    /// Whether the body holds a backslash escape.
    pub(crate) escaped: bool,
    /// Whether it is an object key.
    pub(crate) is_key: bool,
}

impl StrLit {
    /// The raw body between the quotes (escapes not decoded).
    pub(crate) fn raw<'a>(&self, doc: &'a str) -> &'a str {
        &doc[self.start + 1..self.end - 1]
    }
}

#[derive(Debug, Clone, Copy)]
enum Frame {
    Object {
        /// The current entry's key literal.
        key: Option<StrLit>,
        /// The key under which this object sits in its parent.
        container_key: Option<StrLit>,
        expect: Expect,
    },
    Array {
        index: usize,
        container_key: Option<StrLit>,
        expect: Expect,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// `{` or `[` just opened: a key/value or the closing bracket.
    FirstOrClose,
    /// After a `,`: a key (object) or a value (array).
    Item,
    /// After a key: `:`.
    Colon,
    /// After `:`: a value.
    Value,
    /// After a value: `,` or the closing bracket.
    CommaOrClose,
}

/// One step of a path: an object key (raw, escapes not decoded) or an array index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Segment<'s> {
    /// An object key.
    Key(&'s str),
    /// An array index.
    Index(usize),
}

/// The structural position of a literal, handed to the visitor.
#[derive(Debug)]
pub(crate) struct Position<'s> {
    doc: &'s str,
    frames: &'s [Frame],
}

impl<'s> Position<'s> {
    /// The key this value sits under: the object key, or for array elements the array's key.
    pub(crate) fn key(&self) -> Option<&'s str> {
        match self.frames.last()? {
            Frame::Object { key, .. } => key.map(|k| k.raw(self.doc)),
            Frame::Array { container_key, .. } => container_key.map(|k| k.raw(self.doc)),
        }
    }

    /// The key of the enclosing object or array.
    pub(crate) fn parent_key(&self) -> Option<&'s str> {
        match self.frames.last()? {
            Frame::Object { container_key, .. } => container_key.map(|k| k.raw(self.doc)),
            Frame::Array { .. } => {
                let above = self.frames.len().checked_sub(2)?;
                match self.frames[above] {
                    Frame::Object { container_key, .. } | Frame::Array { container_key, .. } => {
                        container_key.map(|k| k.raw(self.doc))
                    }
                }
            }
        }
    }

    /// The segments of the current value's path, outermost first, without allocating.
    pub(crate) fn segments(&self) -> impl Iterator<Item = Segment<'s>> + '_ {
        self.frames.iter().filter_map(|frame| match frame {
            Frame::Object { key: Some(k), .. } => Some(Segment::Key(k.raw(self.doc))),
            Frame::Array { index, .. } => Some(Segment::Index(*index)),
            Frame::Object { key: None, .. } => None,
        })
    }

    /// The dotted path of the current value (`to`, `recipients.0`, `message.cc`).
    pub(crate) fn path(&self) -> String {
        let mut out = String::new();
        for frame in self.frames {
            let segment_written = match frame {
                Frame::Object { key: Some(k), .. } => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k.raw(self.doc));
                    true
                }
                Frame::Array { index, .. } => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    let _ = write!(out, "{index}");
                    true
                }
                Frame::Object { key: None, .. } => false,
            };
            let _ = segment_written;
        }
        out
    }
}

/// Calls `visit` for every string literal in `doc`, in order. Stops at the first structural error.
pub(crate) fn for_each_string(
    doc: &str,
    mut visit: impl FnMut(StrLit, &Position<'_>),
) -> Result<(), JsonError> {
    let bytes = doc.as_bytes();
    let mut frames: Vec<Frame> = Vec::with_capacity(16);
    let mut i = skip_ws(bytes, 0);
    let mut top_done = false;
    let err = |offset, what| Err(JsonError { offset, what });
    while i < bytes.len() {
        let c = bytes[i];
        let expect = match frames.last() {
            None if top_done => return err(i, "end of document"),
            None => Expect::Value,
            Some(Frame::Object { expect, .. } | Frame::Array { expect, .. }) => *expect,
        };
        match c {
            b'"' => {
                let lit = lex_string(bytes, i)?;
                let is_key = matches!(
                    (frames.last(), expect),
                    (
                        Some(Frame::Object { .. }),
                        Expect::FirstOrClose | Expect::Item
                    )
                );
                if !is_key && !matches!(expect, Expect::Value | Expect::FirstOrClose | Expect::Item)
                {
                    return err(i, "`,` or a closing bracket");
                }
                let lit = StrLit { is_key, ..lit };
                if is_key {
                    if let Some(Frame::Object { key, expect, .. }) = frames.last_mut() {
                        *key = Some(lit);
                        *expect = Expect::Colon;
                    }
                    visit(
                        lit,
                        &Position {
                            doc,
                            frames: &frames,
                        },
                    );
                } else {
                    visit(
                        lit,
                        &Position {
                            doc,
                            frames: &frames,
                        },
                    );
                    after_value(&mut frames, &mut top_done);
                }
                i = lit.end;
            }
            b'{' | b'[' => {
                if !accepts_value(&frames, expect) {
                    return err(i, "a key, `,` or a closing bracket");
                }
                let container_key = match frames.last() {
                    Some(Frame::Object { key, .. }) => *key,
                    Some(Frame::Array { container_key, .. }) => *container_key,
                    None => None,
                };
                if frames.len() >= 512 {
                    return err(i, "nesting no deeper than 512");
                }
                frames.push(if c == b'{' {
                    Frame::Object {
                        key: None,
                        container_key,
                        expect: Expect::FirstOrClose,
                    }
                } else {
                    Frame::Array {
                        index: 0,
                        container_key,
                        expect: Expect::FirstOrClose,
                    }
                });
                i += 1;
            }
            b'}' | b']' => {
                let ok = match frames.last() {
                    Some(Frame::Object { .. }) => {
                        c == b'}' && matches!(expect, Expect::FirstOrClose | Expect::CommaOrClose)
                    }
                    Some(Frame::Array { .. }) => {
                        c == b']' && matches!(expect, Expect::FirstOrClose | Expect::CommaOrClose)
                    }
                    None => false,
                };
                if !ok {
                    return err(i, "a value or a matching bracket");
                }
                frames.pop();
                after_value(&mut frames, &mut top_done);
                i += 1;
            }
            b':' => {
                match frames.last_mut() {
                    Some(Frame::Object { expect, .. }) if *expect == Expect::Colon => {
                        *expect = Expect::Value;
                    }
                    _ => return err(i, "`:` only after a key"),
                }
                i += 1;
            }
            b',' => {
                match frames.last_mut() {
                    Some(Frame::Object { expect, key, .. }) if *expect == Expect::CommaOrClose => {
                        *expect = Expect::Item;
                        *key = None;
                    }
                    Some(Frame::Array { expect, index, .. }) if *expect == Expect::CommaOrClose => {
                        *expect = Expect::Item;
                        *index += 1;
                    }
                    _ => return err(i, "`,` only between values"),
                }
                i += 1;
            }
            _ => {
                if !accepts_value(&frames, expect) {
                    return err(i, "a key, `,` or a closing bracket");
                }
                let end = lex_scalar(bytes, i)?;
                after_value(&mut frames, &mut top_done);
                i = end;
            }
        }
        i = skip_ws(bytes, i);
    }
    if !frames.is_empty() {
        return err(bytes.len(), "a closing bracket");
    }
    if !top_done {
        return err(bytes.len(), "a value");
    }
    Ok(())
}

fn accepts_value(frames: &[Frame], expect: Expect) -> bool {
    match frames.last() {
        None => true,
        Some(Frame::Object { .. }) => expect == Expect::Value,
        Some(Frame::Array { .. }) => {
            matches!(expect, Expect::Value | Expect::FirstOrClose | Expect::Item)
        }
    }
}

fn after_value(frames: &mut [Frame], top_done: &mut bool) {
    match frames.last_mut() {
        None => *top_done = true,
        Some(Frame::Object { expect, .. } | Frame::Array { expect, .. }) => {
            *expect = Expect::CommaOrClose;
        }
    }
}

fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// Lexes the string literal whose opening quote is at `start`.
fn lex_string(bytes: &[u8], start: usize) -> Result<StrLit, JsonError> {
    let mut i = start + 1;
    let mut escaped = false;
    loop {
        let Some(off) = memchr::memchr2(b'"', b'\\', &bytes[i..]) else {
            return Err(JsonError {
                offset: start,
                what: "a closing quote",
            });
        };
        // Control characters must be escaped inside JSON strings.
        if bytes[i..i + off].iter().any(|&b| b < 0x20) {
            return Err(JsonError {
                offset: i,
                what: "no raw control character in a string",
            });
        }
        i += off;
        if bytes[i] == b'"' {
            return Ok(StrLit {
                start,
                end: i + 1,
                escaped,
                is_key: false,
            });
        }
        escaped = true;
        match bytes.get(i + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
            Some(b'u') => {
                let hex = bytes.get(i + 2..i + 6).ok_or(JsonError {
                    offset: i,
                    what: "four hex digits after \\u",
                })?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return Err(JsonError {
                        offset: i,
                        what: "four hex digits after \\u",
                    });
                }
                i += 6;
            }
            _ => {
                return Err(JsonError {
                    offset: i,
                    what: "a valid escape",
                });
            }
        }
    }
}

/// Lexes a number, `true`, `false` or `null` at `start`; returns its end.
fn lex_scalar(bytes: &[u8], start: usize) -> Result<usize, JsonError> {
    for word in [&b"true"[..], b"false", b"null"] {
        if bytes[start..].starts_with(word) {
            return Ok(start + word.len());
        }
    }
    let mut i = start;
    if bytes.get(i) == Some(&b'-') {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let s = *i;
        while *i < bytes.len() && bytes[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > s
    };
    let bad = JsonError {
        offset: start,
        what: "a value",
    };
    if !digits(&mut i) {
        return Err(bad);
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return Err(bad);
        }
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return Err(bad);
        }
    }
    Ok(i)
}

/// Decodes a literal's body (with escapes) into a `String`.
pub(crate) fn decode(doc: &str, lit: StrLit) -> Result<String, JsonError> {
    serde_json::from_str(&doc[lit.start..lit.end]).map_err(|_| JsonError {
        offset: lit.start,
        what: "a valid string (unpaired surrogate?)",
    })
}

/// Appends `s` as a JSON string literal, quotes included.
pub(crate) fn encode_into(s: &str, out: &mut String) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut last = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[last..i]);
        match escape {
            Some(e) => out.push_str(e),
            None => {
                let _ = write!(out, "\\u{b:04x}");
            }
        }
        last = i + 1;
    }
    out.push_str(&s[last..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(doc: &str) -> Vec<(String, bool, Option<String>, Option<String>, String)> {
        let mut out = Vec::new();
        for_each_string(doc, |lit, pos| {
            out.push((
                lit.raw(doc).to_string(),
                lit.is_key,
                pos.key().map(str::to_string),
                pos.parent_key().map(str::to_string),
                pos.path(),
            ))
        })
        .unwrap();
        out
    }

    #[test]
    fn visits_values_with_keys_and_paths() {
        let doc = r#"{"users":[{"name":"Ann","tags":["a"]}],"company":{"name":"Acme"},"n":1.5e3,"ok":true}"#;
        let values: Vec<_> = strings(doc).into_iter().filter(|s| !s.1).collect();
        assert_eq!(
            values,
            vec![
                (
                    "Ann".into(),
                    false,
                    Some("name".into()),
                    Some("users".into()),
                    "users.0.name".into()
                ),
                (
                    "a".into(),
                    false,
                    Some("tags".into()),
                    Some("users".into()),
                    "users.0.tags.0".into()
                ),
                (
                    "Acme".into(),
                    false,
                    Some("name".into()),
                    Some("company".into()),
                    "company.name".into()
                ),
            ]
        );
    }

    #[test]
    fn top_level_string_and_escapes() {
        let doc = r#""a\"b\u00e9""#;
        let mut seen = Vec::new();
        for_each_string(doc, |lit, _| seen.push(lit)).unwrap();
        assert_eq!(seen.len(), 1);
        assert!(seen[0].escaped);
        assert_eq!(decode(doc, seen[0]).unwrap(), "a\"bé");
    }

    #[test]
    fn rejects_malformed_documents() {
        for doc in [
            "{",
            "[1,]",
            "{\"a\"}",
            "{\"a\":1,}",
            "[1 2]",
            "\"abc",
            "[\"\\x\"]",
            "tru",
            "{}{}",
            "",
            "[\"a\nb\"]",
            "{1:2}",
            "[-]",
            "[1.]",
        ] {
            assert!(for_each_string(doc, |_, _| {}).is_err(), "{doc:?}");
        }
    }

    #[test]
    fn accepts_what_serde_accepts() {
        for doc in [
            "[]",
            "{}",
            " [ 1 , -2.5e-3 , true , null , \"x\" , { } , [ ] ] ",
            "{\"a\":{\"b\":[{\"c\":\"d\"}]}}",
            "0",
        ] {
            assert!(for_each_string(doc, |_, _| {}).is_ok(), "{doc:?}");
            assert!(serde_json::from_str::<serde_json::Value>(doc).is_ok());
        }
    }

    #[test]
    fn encode_round_trips() {
        for s in ["plain", "q\"uote", "back\\slash", "new\nline\u{1}", "é😀"] {
            let mut out = String::new();
            encode_into(s, &mut out);
            assert_eq!(serde_json::from_str::<String>(&out).unwrap(), s);
        }
    }
}
