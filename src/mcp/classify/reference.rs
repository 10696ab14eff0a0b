//! The test oracle of `read.rs`: [`super::classify`] as the layer did it before, serde's
//! reading of the top level into `RawValue`s, then a walk over the bytes of each forwarded
//! member (`check`) for duplicate keys, lone surrogate escapes and nesting past serde's limit.
//! The tests compare the two on fixed and generated messages: the same class, members and
//! flaws, byte for byte.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{Class, Flaw, IdKind, KeySet, Side};
use crate::walk::json;

/// What a classification gives, as text: the class and members, or the flaw and what the
/// rejection keeps.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Outcome<'a> {
    Classified {
        class: Class,
        id: Option<&'a str>,
        method: Option<String>,
        params: Option<&'a str>,
        result: Option<&'a str>,
        error: Option<&'a str>,
    },
    Rejected {
        flaw: Flaw,
        id: Option<&'a str>,
        answers: bool,
        asks: bool,
    },
}

/// [`super::classify`]'s answer as an [`Outcome`].
pub(super) fn outcome(text: &str, side: Side) -> Outcome<'_> {
    match super::classify(text, side) {
        Ok(m) => Outcome::Classified {
            class: m.class,
            id: m.env.id.map(|r| r.get()),
            method: m.env.method.map(Cow::into_owned),
            params: m.env.params.map(|r| r.get()),
            result: m.env.result.map(|r| r.get()),
            error: m.env.error.map(|r| r.get()),
        },
        Err(r) => Outcome::Rejected {
            flaw: r.flaw,
            id: r.id,
            answers: r.answers,
            asks: r.asks,
        },
    }
}

/// The reference's answer as an [`Outcome`].
pub(super) fn reference(text: &str, side: Side) -> Outcome<'_> {
    classify(text, side)
}

/// [`super::classify`] as the layer did it before `read.rs`: serde's reading of the top level,
/// then [`check`] over each forwarded member.
fn classify(text: &str, side: Side) -> Outcome<'_> {
    let mut de = serde_json::Deserializer::from_str(text);
    let top = match Top::read(&mut de).and_then(|t| de.end().map(|()| t)) {
        Ok(t) => t,
        Err(_) => return bare(Flaw::NotJson),
    };
    let top = match top {
        Some(t) => t,
        None => return bare(Flaw::NotObject),
    };
    let id_kind = top.id.map(|raw| IdKind::of(raw.get()));
    let usable_id = match (top.id, id_kind, top.id_twice) {
        (Some(raw), Some(IdKind::Usable), false) => Some(raw.get().trim()),
        _ => None,
    };
    let reject = |flaw| Outcome::Rejected {
        flaw,
        id: usable_id,
        answers: top.result.is_some() || top.error.is_some(),
        asks: top.method.is_some(),
    };
    if top.duplicate {
        return reject(Flaw::Duplicate);
    }
    let members = [top.params, top.result, top.error];
    for raw in members.iter().flatten().chain(&top.extras) {
        // The top level skipped this member unparsed: duplicates inside it, and a string
        // serde cannot decode (a lone surrogate escape), which nothing can scan.
        if let Err(flaw) = check(raw.get()) {
            return reject(flaw);
        }
    }
    if top.version_ok == Some(false) {
        return reject(Flaw::Version);
    }
    if matches!(id_kind, Some(IdKind::Bad)) {
        return reject(Flaw::Id);
    }
    if side == Side::Server && !top.extras.is_empty() {
        return reject(Flaw::Extra);
    }
    let method: Option<Cow<'_, str>> = match top.method {
        // Borrowed unless the name has escapes.
        Some(raw) => match serde_json::from_str::<&str>(raw.get()) {
            Ok(m) => Some(Cow::Borrowed(m)),
            Err(_) => match serde_json::from_str::<String>(raw.get()) {
                Ok(m) => Some(Cow::Owned(m)),
                Err(_) => return reject(Flaw::Method),
            },
        },
        None => None,
    };
    if let Some(p) = top.params
        && !matches!(p.get().trim_start().as_bytes().first(), Some(b'{' | b'['))
    {
        return reject(Flaw::Params);
    }
    if let Some(e) = top.error
        && !e.get().trim_start().starts_with('{')
    {
        return reject(Flaw::ErrorMember);
    }
    let null_id = matches!(id_kind, Some(IdKind::Null));
    let class = match (&method, top.id.is_some(), top.result, top.error) {
        (Some(m), true, None, None) if !null_id => {
            if m.starts_with("notifications/") {
                return reject(Flaw::Namespace);
            }
            Class::Request
        }
        (Some(m), false, None, None) => {
            if !m.starts_with("notifications/") {
                return reject(Flaw::Namespace);
            }
            Class::Notification
        }
        (None, true, Some(_), None) if !null_id => Class::Result,
        (None, true, None, Some(_)) => Class::Error,
        _ => return reject(Flaw::Shape),
    };
    Outcome::Classified {
        class,
        id: top.id.filter(|_| !null_id).map(|r| r.get()),
        method: method.map(Cow::into_owned),
        params: top.params.map(|r| r.get()),
        result: top.result.map(|r| r.get()),
        error: top.error.map(|r| r.get()),
    }
}

fn bare(flaw: Flaw) -> Outcome<'static> {
    Outcome::Rejected {
        flaw,
        id: None,
        answers: false,
        asks: false,
    }
}

/// The top level of a message: its members as raw text, and what was odd about them.
#[derive(Default)]
struct Top<'a> {
    id: Option<&'a RawValue>,
    id_twice: bool,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
    /// `None`: no `jsonrpc` member.
    version_ok: Option<bool>,
    extras: Vec<&'a RawValue>,
    duplicate: bool,
}

impl<'a> Top<'a> {
    /// `Ok(None)`: valid JSON that is not an object.
    fn read(
        de: &mut serde_json::Deserializer<serde_json::de::StrRead<'a>>,
    ) -> Result<Option<Top<'a>>, serde_json::Error> {
        struct TopVisitor;
        impl<'de> Visitor<'de> for TopVisitor {
            type Value = Option<Top<'de>>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON-RPC message")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut top = Top::default();
                let mut seen = KeySet::default();
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    let twice = !seen.insert(key.clone());
                    top.duplicate |= twice;
                    let raw: &'de RawValue = map.next_value()?;
                    let slot = match &*key {
                        "id" => {
                            top.id_twice |= twice;
                            &mut top.id
                        }
                        "method" => &mut top.method,
                        "params" => &mut top.params,
                        "result" => &mut top.result,
                        "error" => &mut top.error,
                        "jsonrpc" => {
                            let ok = raw.get().trim() == "\"2.0\"";
                            top.version_ok = Some(top.version_ok.unwrap_or(true) && ok);
                            continue;
                        }
                        _ => {
                            top.extras.push(raw);
                            continue;
                        }
                    };
                    *slot = Some(raw);
                }
                Ok(Some(top))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(None)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(None)
            }
        }
        de.deserialize_any(TopVisitor)
    }
}

/// An object key, borrowed from the message unless it has escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// How deep arrays and objects may nest inside a member: as deep as serde's default recursion
/// limit lets its visitor go (a member nested deeper was refused by that walk, and still is).
const MAX_DEPTH: usize = 127;

/// Checks one member's JSON text: [`Flaw::Duplicate`] for an object member given twice (the
/// same key after decoding escapes), [`Flaw::NotJson`] for a lone surrogate escape, nesting
/// past [`MAX_DEPTH`] or bytes that are not JSON.
fn check(text: &str) -> Result<(), Flaw> {
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
        let want = oracle(text);
        assert_eq!(check(text), want, "{text:?}");
        // The one read finds the same in the same text as a forwarded member.
        let message = format!("{{\"id\":1,\"result\":{text}}}");
        let read = super::super::read::read(&message).map(|top| top.result.and_then(|m| m.flaw));
        assert_eq!(read, Ok(want.err()), "{text:?}");
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
    fn long_escaped_strings_agree_with_serde() {
        // Strings past the 64 bytes the read takes at a step once a body has an escape, with
        // escapes and surrogates across the blocks' boundaries, as values and as keys.
        let pieces = [
            "a",
            "xyz ",
            "\\\"",
            "\\\\",
            "\\n",
            "\\u00e9",
            "\\ud83d\\ude00",
            "\\ud800",
            "\\udc00",
            "\\ud800\\u0041",
            "\\ud800\\n",
            "\\uDBFF\\uDFFF",
            "é",
            "0123456789abcdef0123456789",
        ];
        let mut rng = crate::testdata::Rng::new(57);
        for _ in 0..4_000 {
            let body: String = (0..rng.below(60))
                .map(|_| pieces[rng.below(pieces.len())])
                .collect();
            same(&format!("\"{body}\""));
            same(&format!("{{\"{body}\":1,\"k\":[\"{body}\"]}}"));
            same(&format!("{{\"{body}\":1,\"{body}\":2}}"));
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

    /// Both classifications of `text`, from both sides.
    fn agree(text: &str) {
        for side in [Side::Server, Side::Host] {
            assert_eq!(outcome(text, side), reference(text, side), "{text:?}");
        }
    }

    #[test]
    fn fixed_messages_are_classified_as_before() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#" { "id" : "a" , "method" : "x" , "params" : { } } "#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a\nb"}]}}"#,
            r#"{"id":-1.5,"result":null}"#,
            r#"{"id":null,"error":{"code":1,"message":"m"}}"#,
            r#"{"id":7,"result":{"a":1},"error":{}}"#,
            r#"{"id":1,"id":2,"result":{}}"#,
            r#"{"id":2,"result":{"a":1},"result":{"b":2}}"#,
            r#"{"id":1,"result":{"name":1,"n\u0061me":2}}"#,
            r#"{"id":1,"result":{"t":"\ud800"}}"#,
            r#"{"id":"\ud800","result":{}}"#,
            r#"{"id":1,"method":"\ud800"}"#,
            r#"{"id":1,"method":"a\u0062c"}"#,
            r#"{"\ud800":1,"id":1,"result":{}}"#,
            r#"{"r\u0065sult":{},"id":1}"#,
            r#"{"id":1,"result":{},"note":{"a":1,"a":2}}"#,
            r#"{"id":1,"result":{},"jsonrpc":"2.0","jsonrpc":"1.0"}"#,
            r#"{"id":01,"result":{}}"#,
            r#"{"id":1.,"result":{}}"#,
            r#"{"id":1e,"result":{}}"#,
            r#"{"id":-,"result":{}}"#,
            r#"{"id":1e400,"result":{}}"#,
            r#"{"id":1,"result":tru}"#,
            r#"{"id":1,"result":[1,]}"#,
            r#"{"id":1,"result":{"a":1,}}"#,
            r#"{"id":1,"result":{"a" 1}}"#,
            r#"{"id":1,"result":{}"#,
            r#"{"id":1,"result":{}}}"#,
            "{\"id\":1,\"result\":\"a\u{1}b\"}",
            "{\"id\":1,\"result\":\"a\u{7f}b\"}",
            r#"{"id":1,"result":"\x"}"#,
            r#"{"id":1,"result":"\u12G4"}"#,
            "{\"id\":1,\"result\":{}}\n\r\t ",
            "\u{feff}{\"id\":1,\"result\":{}}",
            "",
            " ",
            "[1]",
            "[[[]]]",
            "3",
            "1e400",
            "\"\\ud800\"",
            "\"a\"",
            "null",
            "nul",
            "{",
            "}",
            "{}",
            "{\"id\":1,",
            "{\"id\":1,\"result\":{}} x",
        ] {
            agree(text);
        }
        let deep = |n: usize| format!(r#"{{"id":1,"result":{}1{}}}"#, "[".repeat(n), "]".repeat(n));
        for n in [126, 127, 128, 129, 5000] {
            agree(&deep(n));
        }
        let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        agree(&format!(r#"{{"id":1,"result":{{{}}}}}"#, many.join(",")));
        agree(&format!(
            r#"{{"id":1,"result":{{{},"k3":0}}}}"#,
            many.join(",")
        ));
    }

    /// A JSON value of `rng`'s choosing, of pieces that reach the read's every branch.
    fn value(rng: &mut crate::testdata::Rng, depth: usize, out: &mut String) {
        const SCALARS: [&str; 26] = [
            "\"\\udfff\"",
            "\"\\udbff\\udfff\"",
            "\"\\ud7ff\\ue000\"",
            "\"\\uDBFF\\uDC00x\"",
            "1",
            "-0",
            "0.5e-3",
            "12E+2",
            "01",
            "1.",
            "-",
            "1e400",
            "true",
            "false",
            "null",
            "nul",
            "\"a\"",
            "\"\\u0061\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"\\n\\\"\"",
            "\"é\"",
            "\"2.0\"",
            "\"notifications/x\"",
        ];
        const KEYS: [&str; 8] = [
            "\"a\"",
            "\"b\"",
            "\"\\u0061\"",
            "\"id\"",
            "\"\\ud800\"",
            "\"c\"",
            "\"a\"",
            "\"\"",
        ];
        let ws = |rng: &mut crate::testdata::Rng, out: &mut String| {
            if rng.below(6) == 0 {
                out.push_str(rng.pick::<&str>(&[" ", "\n", "\t", "\r\n "]));
            }
        };
        match rng.below(if depth == 0 { 1 } else { 4 }) {
            0 => out.push_str(rng.pick::<&str>(&SCALARS)),
            1 => {
                out.push('[');
                for k in 0..rng.below(4) {
                    if k > 0 {
                        out.push(',');
                    }
                    ws(rng, out);
                    value(rng, depth - 1, out);
                    ws(rng, out);
                }
                out.push(']');
            }
            _ => {
                out.push('{');
                for k in 0..rng.below(4) {
                    if k > 0 {
                        out.push(',');
                    }
                    ws(rng, out);
                    out.push_str(rng.pick::<&str>(&KEYS));
                    ws(rng, out);
                    out.push(':');
                    value(rng, depth - 1, out);
                }
                out.push('}');
            }
        }
    }

    #[test]
    fn generated_messages_are_classified_as_before() {
        const MEMBERS: [&str; 11] = [
            "\"id\"",
            "\"method\"",
            "\"params\"",
            "\"result\"",
            "\"error\"",
            "\"jsonrpc\"",
            "\"note\"",
            "\"r\\u0065sult\"",
            "\"id\"",
            "\"result\"",
            "\"\\udc00\"",
        ];
        const SMALL: [&str; 9] = [
            "1",
            "\"x\"",
            "null",
            "\"2.0\"",
            "\"tools/call\"",
            "\"notifications/m\"",
            "{}",
            "[]",
            "true",
        ];
        let mut rng = crate::testdata::Rng::new(23);
        let mut classified = 0;
        for round in 0..60_000 {
            // Half the messages are of a class, with a generated member: most of the reads
            // then reach that member's every byte.
            let mut text = String::from(*rng.pick::<&str>(&[
                "{",
                "{",
                r#"{"jsonrpc":"2.0","id":1,"result":"#,
                r#"{"id":"a","method":"tools/call","params":"#,
                r#"{"method":"notifications/x","params":"#,
                r#"{"id":null,"error":"#,
            ]));
            if !text.ends_with('{') {
                value(&mut rng, 4, &mut text);
            }
            for k in 0..rng.below(if text.len() > 1 { 2 } else { 5 }) {
                if k > 0 || text.len() > 1 {
                    text.push(',');
                }
                text.push_str(rng.pick::<&str>(&MEMBERS));
                text.push(':');
                if rng.below(2) == 0 {
                    text.push_str(rng.pick::<&str>(&SMALL));
                } else {
                    value(&mut rng, 3, &mut text);
                }
            }
            text.push('}');
            // Every third message has one byte changed, cut or doubled: texts near JSON.
            if round % 3 == 0 && !text.is_empty() {
                let at = rng.below(text.len());
                if text.is_char_boundary(at) && text.is_char_boundary(at + 1) {
                    match rng.below(3) {
                        0 => drop(text.remove(at)),
                        1 => text.insert(at, *rng.pick(&['"', '\\', ',', '}', ']', '0', 'e'])),
                        _ => text.truncate(at),
                    }
                }
            }
            if matches!(outcome(&text, Side::Host), Outcome::Classified { .. }) {
                classified += 1;
            }
            agree(&text);
        }
        // Enough of them are messages for the comparison to mean something.
        assert!(classified > 5_000, "{classified}");
    }
}
