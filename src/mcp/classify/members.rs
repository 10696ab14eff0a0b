//! The second pass of [`super::classify`]: duplicate members at any depth, and strings serde
//! cannot decode, in a member the top level already read as JSON.
//!
//! The top level reads each member as a [`serde_json::value::RawValue`], which checks its
//! syntax but not what this pass looks for: a key given twice in one object, and a `\u` escape
//! of a lone UTF-16 surrogate (serde skips both). A walk of serde's visitor over the member
//! decoded every string into a scratch buffer to look at it, keys and values alike, which on a
//! tool result of 10 KB cost as much as the top level's parse. This walk reads the already
//! checked bytes once more: it skips string bodies sixteen bytes a step (SSE2) and then with
//! `memchr2` (a tool result's text block that holds JSON has an escape every few bytes), reads
//! the `\u` escapes as it goes, and decodes only keys that hold an escape (compared in the top
//! level's [`KeySet`]). It gives the answers serde's visitor gave (kept as the test oracle),
//! the nesting limit included.
//!
//! The text is trusted to be JSON only as far as framing goes: what does not fit (a key
//! outside an object, an escape cut short) is an error, never a panic and never a pass.

use std::borrow::Cow;

use super::{Flaw, KeySet};
use crate::walk::json;

/// How deep arrays and objects may nest inside a member: as deep as serde's default recursion
/// limit lets its visitor go (a member nested deeper was refused by that walk, and still is).
const MAX_DEPTH: usize = 127;

/// Checks one member's JSON text: [`Flaw::Duplicate`] for an object member given twice (the
/// same key after decoding escapes), [`Flaw::NotJson`] for a lone surrogate escape, nesting
/// past [`MAX_DEPTH`] or bytes that are not JSON.
pub(super) fn check(text: &str) -> Result<(), Flaw> {
    let b = text.as_bytes();
    // The open arrays and objects, innermost last (true for an object), and the keys each
    // open object has had so far.
    let mut open: Vec<bool> = Vec::new();
    let mut objects: Vec<KeySet<'_>> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let (end, escaped) = string_end(b, i)?;
                let body = &text[i + 1..end - 1];
                let mut k = end;
                while k < b.len() && matches!(b[k], b' ' | b'\t' | b'\n' | b'\r') {
                    k += 1;
                }
                if b.get(k) == Some(&b':') {
                    let key = if escaped {
                        Cow::Owned(
                            serde_json::from_str::<String>(&text[i..end])
                                .map_err(|_| Flaw::NotJson)?,
                        )
                    } else {
                        Cow::Borrowed(body)
                    };
                    let (Some(true), Some(keys)) = (open.last(), objects.last_mut()) else {
                        return Err(Flaw::NotJson);
                    };
                    if !keys.insert(key) {
                        return Err(Flaw::Duplicate);
                    }
                }
                i = end;
                continue;
            }
            c @ (b'{' | b'[') => {
                if open.len() == MAX_DEPTH {
                    return Err(Flaw::NotJson);
                }
                open.push(c == b'{');
                if c == b'{' {
                    objects.push(KeySet::default());
                }
            }
            b'}' | b']' => match open.pop() {
                Some(true) => drop(objects.pop()),
                Some(false) => {}
                None => return Err(Flaw::NotJson),
            },
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

/// The end (one past the closing quote) of the string whose opening quote is at `start`, and
/// whether its body holds an escape; [`Flaw::NotJson`] for a `\u` escape of a lone UTF-16
/// surrogate, which serde's decoding of a `&str` refuses (a key's decoding refuses it too, so
/// keys and values alike are checked here, once). Not `walk::json::lex_string`: that lexer
/// checks what serde has checked already.
fn string_end(b: &[u8], start: usize) -> Result<(usize, bool), Flaw> {
    let mut i = start + 1;
    let mut escaped = false;
    loop {
        let at =
            i + json::quote_or_backslash(b.get(i..).unwrap_or_default()).ok_or(Flaw::NotJson)?;
        if b[at] == b'"' {
            return Ok((at + 1, escaped));
        }
        escaped = true;
        // `\uXXXX` is six bytes, every other escape two; the byte after the backslash is
        // never a quote that ends the string.
        if b.get(at + 1) != Some(&b'u') {
            i = at + 2;
            continue;
        }
        i = at + 6;
        match hex4(b, at + 2)? {
            0xDC00..=0xDFFF => return Err(Flaw::NotJson),
            0xD800..=0xDBFF => {
                if b.get(i..i + 2) != Some(b"\\u") {
                    return Err(Flaw::NotJson);
                }
                if !(0xDC00..=0xDFFF).contains(&hex4(b, i + 2)?) {
                    return Err(Flaw::NotJson);
                }
                i += 6;
            }
            _ => {}
        }
    }
}

/// The four hex digits at `at` (serde has checked that they are hex digits).
fn hex4(b: &[u8], at: usize) -> Result<u16, Flaw> {
    b.get(at..at + 4).map(json::hex4).ok_or(Flaw::NotJson)
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::fmt;

    use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

    use super::*;

    /// serde's visitor walk, as the layer did it before this one: the oracle.
    fn oracle(text: &str) -> Result<(), Flaw> {
        let mut de = serde_json::Deserializer::from_str(text);
        match Strict.deserialize(&mut de) {
            Ok(()) => Ok(()),
            Err(e) if e.to_string().starts_with("duplicate member") => Err(Flaw::Duplicate),
            Err(_) => Err(Flaw::NotJson),
        }
    }

    #[derive(Clone, Copy)]
    struct Strict;

    impl<'de> DeserializeSeed<'de> for Strict {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }

    impl<'de> Visitor<'de> for Strict {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("JSON")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                if !seen.insert(key) {
                    return Err(de::Error::custom("duplicate member"));
                }
                map.next_value_seed(Strict)?;
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element_seed(Strict)?.is_some() {}
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }

    /// Both walks on `text`, which serde reads as one JSON value (as the top level's
    /// `RawValue` does before this pass runs).
    fn same(text: &str) {
        if serde_json::from_str::<de::IgnoredAny>(text).is_err() {
            return;
        }
        assert_eq!(check(text), oracle(text), "{text:?}");
    }

    #[test]
    fn fixed_cases_agree_with_serde() {
        for text in [
            r#"{"a":1,"a":2}"#,
            r#"{"a":1,"b":{"a":2}}"#,
            r#"[{"k":1},{"k":2}]"#,
            r#"{"x":[{"k":1,"k":2}]}"#,
            r#"{"name":1,"n\u0061me":2}"#,
            r#"{"a\"b":1,"a\u0022b":2}"#,
            r#"{"t":"\ud800"}"#,
            r#"{"t":"\udc00"}"#,
            r#"{"t":"\ud800\udc00"}"#,
            r#"{"t":"\ud800\u0041"}"#,
            r#"{"t":"\ud800\n"}"#,
            r#"{"t":"\\ud800"}"#,
            r#"{"t":"\\\ud800"}"#,
            r#"{"\ud800":1}"#,
            r#"{"\ud83d\ude00":1,"😀":2}"#,
            r#"{ "a" : 1 , "a"
                : 2 }"#,
            r#"{"a":"b","b":"a"}"#,
            r#"{"a":":","b":"\":"}"#,
            r#"["a",":","b"]"#,
            r#""x""#,
            "3",
            "null",
            r#"{}"#,
            r#"{"":1,"":2}"#,
        ] {
            same(text);
        }
    }

    #[test]
    fn past_the_inline_keys() {
        let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        same(&format!("{{{}}}", many.join(",")));
        same(&format!("{{{},\"k3\":0}}", many.join(",")));
        same(&format!("{{{},\"k39\":0}}", many.join(",")));
        same(&format!("[{{{}}},{{{}}}]", many.join(","), many.join(",")));
    }

    #[test]
    fn the_nesting_limit_is_serdes() {
        for depth in 120..135 {
            for (open, close) in [("[", "]"), ("{\"a\":", "}"), ("[{\"a\":", "}]")] {
                let text = format!("{}1{}", open.repeat(depth), close.repeat(depth));
                same(&text);
            }
        }
    }

    #[test]
    fn generated_members_agree_with_serde() {
        let pieces = [
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            "\"a\"",
            "\"b\"",
            "\"a\"",
            "1",
            "null",
            " ",
            "\"\\u0061\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\udc00\"",
            "\"\\\"\"",
            "\"\\\\\"",
            "\"x:\"",
            "\"\\n\"",
            "\"é\"",
        ];
        let mut rng = crate::testdata::Rng::new(41);
        let mut agreed = 0;
        for _ in 0..300_000 {
            let n = 1 + rng.below(14);
            let text: String = (0..n).map(|_| pieces[rng.below(pieces.len())]).collect();
            if serde_json::from_str::<de::IgnoredAny>(&text).is_ok() {
                agreed += 1;
            }
            same(&text);
        }
        // Enough of the texts are JSON for the comparison to mean something.
        assert!(agreed > 2_000, "{agreed}");
    }

    #[test]
    fn what_is_not_json_fails_and_never_panics() {
        for text in [
            "{\"a",
            "\"\\u12",
            "}",
            "]",
            "\"a\":1",
            "[\"a\":1]",
            "\"\\",
            "{\"a\\",
        ] {
            assert_eq!(check(text), Err(Flaw::NotJson), "{text:?}");
        }
    }
}
