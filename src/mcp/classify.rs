//! Strict JSON-RPC 2.0 classification: one parse per message, and what cannot be classified.
//!
//! Every message the interceptor routes goes through [`classify`] first. It reads the message
//! once (`read.rs`): its syntax as serde_json checks it, the top level's `id`, `method`,
//! `params`, `result` and `error` as borrowed JSON text (as [`Envelope`] holds them), and in
//! the members it forwards, what serde's skip of a value lets through: duplicate object
//! members at any depth and lone surrogate escapes. The read is linear, compiles nothing and
//! allocates nothing per key that has no escapes (keys are borrowed and compared in a small
//! inline set; only objects with more than [`INLINE_KEYS`] members spill into a hash set).
//!
//! # The classes
//!
//! - [`Class::Request`]: `method` (a string, not under `notifications/`) and an `id` that is a
//!   string or a number; no `result`, no `error`.
//! - [`Class::Notification`]: `method` under `notifications/` and no `id` member at all.
//! - [`Class::Result`]: an `id` (string or number) and `result`; no `method`, no `error`.
//! - [`Class::Error`]: an `id` (string, number or `null`) and `error` (an object); no `method`,
//!   no `result`.
//!
//! Anything else is a [`Rejected`] message, with a [`Flaw`] naming why and the id when one is
//! usable. The choices, strict where a member could smuggle data past the layer and tolerant
//! where real peers differ harmlessly:
//!
//! - duplicate members anywhere in the message: rejected (parsers disagree on which copy wins,
//!   so the copy the layer checked might not be the copy the peer reads);
//! - a missing `jsonrpc` member is accepted; one that is present and not `"2.0"` is rejected;
//! - an `id` of another type (object, array, boolean) is rejected, and so is a `null` id on
//!   anything but an error response;
//! - `result` and `error` together, or `method` with either, is rejected;
//! - a notification outside `notifications/` (a request method sent without an id, which would
//!   reach the peer without the checks a request gets) and a request under `notifications/`
//!   (a notification carrying an id) are rejected;
//! - `params` that is neither an object nor an array is rejected;
//! - from a server, members JSON-RPC does not define are rejected: the host would receive them
//!   unscanned. A host's own extra members go on to its server (they cannot reach the model).
//!
//! What the interceptor does with a rejected message (an error for a usable id, otherwise a
//! dropped and counted message) is documented in `super::interceptor`.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};

use super::envelope::Envelope;

mod read;
#[cfg(test)]
mod reference;

/// Keys per object compared in place before a hash set is used.
const INLINE_KEYS: usize = 16;

/// Which peer wrote the message: servers may not add members JSON-RPC does not define.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// The host (client): its messages go to a server.
    Host,
    /// An upstream server: its messages go to the host (and the model).
    Server,
}

/// The JSON-RPC 2.0 class of a well-formed message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    /// A method call with a usable id.
    Request,
    /// A method call without an id.
    Notification,
    /// A successful response.
    Result,
    /// An error response (its id may be `null`).
    Error,
}

/// Why a message could not be classified. Names only, never a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum Flaw {
    /// The bytes are not UTF-8.
    NotUtf8,
    /// The text is not JSON.
    NotJson,
    /// The JSON is not an object.
    NotObject,
    /// An object member appears twice.
    Duplicate,
    /// `jsonrpc` is present and not `"2.0"`.
    Version,
    /// `id` is not a string, a number or (on an error response) `null`.
    Id,
    /// `method` is not a string.
    Method,
    /// `params` is neither an object nor an array.
    Params,
    /// `error` is not an object.
    ErrorMember,
    /// The members fit no class (both `result` and `error`, `method` with either, neither).
    Shape,
    /// A method outside `notifications/` without an id, or one under it with an id.
    Namespace,
    /// A member JSON-RPC does not define, from a server.
    Extra,
}

impl fmt::Display for Flaw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Flaw::NotUtf8 => "bytes that are not UTF-8",
            Flaw::NotJson => "text that is not JSON",
            Flaw::NotObject => "JSON that is not an object",
            Flaw::Duplicate => "a duplicate member",
            Flaw::Version => "a jsonrpc member other than \"2.0\"",
            Flaw::Id => "an id that is not a string or a number",
            Flaw::Method => "a method that is not a string",
            Flaw::Params => "params that are neither an object nor an array",
            Flaw::ErrorMember => "an error member that is not an object",
            Flaw::Shape => {
                "members that fit no JSON-RPC message (request, notification, result or error)"
            }
            Flaw::Namespace => "a notification with an id, or a request without one",
            Flaw::Extra => "a member JSON-RPC does not define",
        })
    }
}

/// A message that was classified.
#[derive(Debug)]
pub(crate) struct Message<'a> {
    /// Its class.
    pub(crate) class: Class,
    /// Its members (`id` is `None` for a notification and for a `null` id).
    pub(crate) env: Envelope<'a>,
}

/// A message that could not be classified.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rejected<'a> {
    /// Why.
    pub(crate) flaw: Flaw,
    /// The id as JSON text, when it is a string or a number and appears once.
    pub(crate) id: Option<&'a str>,
    /// It has a `result` or an `error` member (it claims to answer a request).
    pub(crate) answers: bool,
    /// It has a `method` member (it claims to ask something).
    pub(crate) asks: bool,
}

impl Rejected<'_> {
    fn bare(flaw: Flaw) -> Rejected<'static> {
        Rejected {
            flaw,
            id: None,
            answers: false,
            asks: false,
        }
    }
}

/// Classifies one message (not a batch) written by `side`.
pub(crate) fn classify(text: &str, side: Side) -> Result<Message<'_>, Rejected<'_>> {
    let top = read::read(text).map_err(Rejected::bare)?;
    let id_kind = top.id.map(|raw| IdKind::of(raw.get()));
    let usable_id = match (top.id, id_kind, top.id_twice) {
        (Some(raw), Some(IdKind::Usable), false) => Some(raw.get().trim()),
        _ => None,
    };
    let reject = |flaw| Rejected {
        flaw,
        id: usable_id,
        answers: top.result.is_some() || top.error.is_some(),
        asks: top.method.is_some(),
    };
    if top.duplicate {
        return Err(reject(Flaw::Duplicate));
    }
    let members = [top.params, top.result, top.error];
    for member in members.iter().flatten().chain(&top.extras) {
        // What serde's skip of a member lets through: duplicates inside it, and a string no
        // decoding can take (a lone surrogate escape), which nothing can scan.
        if let Some(flaw) = member.flaw {
            return Err(reject(flaw));
        }
    }
    if top.version_ok == Some(false) {
        return Err(reject(Flaw::Version));
    }
    if matches!(id_kind, Some(IdKind::Bad)) {
        return Err(reject(Flaw::Id));
    }
    if side == Side::Server && !top.extras.is_empty() {
        return Err(reject(Flaw::Extra));
    }
    let method: Option<Cow<'_, str>> = match top.method {
        // Borrowed unless the name has escapes.
        Some(raw) => match serde_json::from_str::<&str>(raw.get()) {
            Ok(m) => Some(Cow::Borrowed(m)),
            Err(_) => match serde_json::from_str::<String>(raw.get()) {
                Ok(m) => Some(Cow::Owned(m)),
                Err(_) => return Err(reject(Flaw::Method)),
            },
        },
        None => None,
    };
    let (params, result, error) = (
        top.params.map(|m| m.raw),
        top.result.map(|m| m.raw),
        top.error.map(|m| m.raw),
    );
    if let Some(p) = params
        && !matches!(p.get().as_bytes().first(), Some(b'{' | b'['))
    {
        return Err(reject(Flaw::Params));
    }
    if let Some(e) = error
        && !e.get().starts_with('{')
    {
        return Err(reject(Flaw::ErrorMember));
    }
    let null_id = matches!(id_kind, Some(IdKind::Null));
    let class = match (&method, top.id.is_some(), result, error) {
        (Some(m), true, None, None) if !null_id => {
            if m.starts_with("notifications/") {
                return Err(reject(Flaw::Namespace));
            }
            Class::Request
        }
        (Some(m), false, None, None) => {
            if !m.starts_with("notifications/") {
                return Err(reject(Flaw::Namespace));
            }
            Class::Notification
        }
        (None, true, Some(_), None) if !null_id => Class::Result,
        (None, true, None, Some(_)) => Class::Error,
        _ => return Err(reject(Flaw::Shape)),
    };
    Ok(Message {
        class,
        env: Envelope {
            id: top.id.filter(|_| !null_id),
            method,
            params,
            result,
            error,
            long_strings: top.long_strings,
        },
    })
}

/// The flaw of a message that does not start with `{`: [`Flaw::NotObject`] when serde reads
/// it as one JSON value (as the layer's reading before [`read`] did, numbers and string
/// escapes decoded, arrays skipped), [`Flaw::NotJson`] when not. It is refused either way.
fn not_an_object(text: &str) -> Flaw {
    struct Value;
    impl<'de> Visitor<'de> for Value {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON-RPC message")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            while seq.next_element::<de::IgnoredAny>()?.is_some() {}
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
    let mut de = serde_json::Deserializer::from_str(text);
    match de.deserialize_any(Value).and_then(|()| de.end()) {
        Ok(()) => Flaw::NotObject,
        Err(_) => Flaw::NotJson,
    }
}

/// The error the host gets for a message of its own that was refused: `-32700` for bytes that
/// are not JSON, `-32600` otherwise, with the id when it is usable. Names the flaw only.
pub(crate) fn host_refusal(rejected: &Rejected<'_>) -> String {
    let code = match rejected.flaw {
        Flaw::NotUtf8 | Flaw::NotJson => -32700,
        _ => -32600,
    };
    super::envelope::error_response(
        rejected.id,
        code,
        &format!(
            "mcp-veil: the message was not forwarded: it has {}",
            rejected.flaw
        ),
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IdKind {
    Usable,
    Null,
    Bad,
}

impl IdKind {
    fn of(raw: &str) -> IdKind {
        match raw.trim_start().as_bytes().first() {
            Some(b'"' | b'-' | b'0'..=b'9') => IdKind::Usable,
            Some(b'n') => IdKind::Null,
            _ => IdKind::Bad,
        }
    }
}

/// The keys of one object: compared in place up to [`INLINE_KEYS`], hashed beyond.
#[derive(Default)]
struct KeySet<'de> {
    inline: [Cow<'de, str>; INLINE_KEYS],
    len: usize,
    spill: Option<HashSet<Cow<'de, str>>>,
}

impl<'de> KeySet<'de> {
    /// Adds `key`; false when it was already there.
    fn insert(&mut self, key: Cow<'de, str>) -> bool {
        if let Some(spill) = &mut self.spill {
            return spill.insert(key);
        }
        if self.inline[..self.len].contains(&key) {
            return false;
        }
        if self.len < INLINE_KEYS {
            self.inline[self.len] = key;
            self.len += 1;
            return true;
        }
        let mut spill: HashSet<Cow<'de, str>> =
            self.inline.iter_mut().map(std::mem::take).collect();
        spill.insert(key);
        self.spill = Some(spill);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> Result<Class, Flaw> {
        classify(text, Side::Server)
            .map(|m| m.class)
            .map_err(|r| r.flaw)
    }

    #[test]
    fn the_four_classes() {
        assert_eq!(
            class(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Ok(Class::Request)
        );
        assert_eq!(
            class(r#"{"id":"a","method":"x","params":{}}"#),
            Ok(Class::Request)
        );
        assert_eq!(
            class(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#),
            Ok(Class::Notification)
        );
        assert_eq!(
            class(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Ok(Class::Result)
        );
        assert_eq!(class(r#"{"id":-1.5,"result":null}"#), Ok(Class::Result));
        assert_eq!(
            class(r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}"#),
            Ok(Class::Error)
        );
        let m = classify(r#"{"id":null,"error":{}}"#, Side::Host).unwrap();
        assert!(m.env.id.is_none());
    }

    #[test]
    fn what_fits_no_class_is_rejected_with_its_id() {
        let both = classify(r#"{"id":7,"result":{"a":1},"error":{}}"#, Side::Server).unwrap_err();
        assert_eq!(
            (both.flaw, both.id, both.answers),
            (Flaw::Shape, Some("7"), true)
        );
        assert_eq!(
            class(r#"{"id":7,"method":"x","result":{}}"#),
            Err(Flaw::Shape)
        );
        assert_eq!(
            class(r#"{"id":null,"method":"sampling/createMessage","params":{}}"#),
            Err(Flaw::Shape)
        );
        assert_eq!(
            class(r#"{"method":"sampling/createMessage","params":{}}"#),
            Err(Flaw::Namespace)
        );
        assert_eq!(
            class(r#"{"id":3,"method":"notifications/message","params":{}}"#),
            Err(Flaw::Namespace)
        );
        assert_eq!(class(r#"{"id":{"a":1},"result":{}}"#), Err(Flaw::Id));
        assert_eq!(class(r#"{"id":true,"result":{}}"#), Err(Flaw::Id));
        assert_eq!(
            class(r#"{"jsonrpc":"1.0","id":1,"result":{}}"#),
            Err(Flaw::Version)
        );
        assert_eq!(
            class(r#"{"id":1,"method":"x","params":"a@b.io"}"#),
            Err(Flaw::Params)
        );
        assert_eq!(
            class(r#"{"id":1,"error":"a@b.io"}"#),
            Err(Flaw::ErrorMember)
        );
        assert_eq!(
            class(r#"{"id":1,"result":{},"note":"a@b.io"}"#),
            Err(Flaw::Extra)
        );
        assert!(classify(r#"{"id":1,"result":{},"note":"x"}"#, Side::Host).is_ok());
        assert_eq!(class(r#"{"id":1}"#), Err(Flaw::Shape));
        assert_eq!(class("[1]"), Err(Flaw::NotObject));
        assert_eq!(class("3"), Err(Flaw::NotObject));
        assert_eq!(class("{\"id\":1,"), Err(Flaw::NotJson));
        assert_eq!(class("{\"id\":1,\"result\":{}} x"), Err(Flaw::NotJson));
        assert_eq!(
            class(r#"{"id":1,"result":{"t":"\ud800"}}"#),
            Err(Flaw::NotJson)
        );
    }

    #[test]
    fn duplicates_at_any_depth_are_rejected_and_the_id_kept() {
        let top = classify(
            r#"{"id":2,"result":{"a":1},"result":{"b":2}}"#,
            Side::Server,
        )
        .unwrap_err();
        assert_eq!((top.flaw, top.id), (Flaw::Duplicate, Some("2")));
        let deep = classify(
            r#"{"id":"q","method":"tools/call","params":{"name":"a","arguments":{"x":[{"k":1,"k":2}]}}}"#,
            Side::Host,
        )
        .unwrap_err();
        assert_eq!(
            (deep.flaw, deep.id, deep.asks),
            (Flaw::Duplicate, Some("\"q\""), true)
        );
        // The same key spelled with an escape is the same key.
        assert_eq!(
            class(r#"{"id":1,"result":{"name":1,"n\u0061me":2}}"#),
            Err(Flaw::Duplicate)
        );
        // A duplicated id is not a usable id.
        let ids = classify(r#"{"id":1,"id":2,"result":{}}"#, Side::Server).unwrap_err();
        assert_eq!(ids.id, None);
        // Past the inline set.
        let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
        let ok = format!(r#"{{"id":1,"result":{{{}}}}}"#, many.join(","));
        assert_eq!(class(&ok), Ok(Class::Result));
        let dup = format!(r#"{{"id":1,"result":{{{},"k3":0}}}}"#, many.join(","));
        assert_eq!(class(&dup), Err(Flaw::Duplicate));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// The long strings the read of a message notes are, in the member they are in, string
        /// literals the walk's lexer reads to the same end: each one it visits, in order.
        #[test]
        fn long_strings_are_literals_the_walk_ends_alike(
            texts in proptest::collection::vec(
                "[a-z \\\\\"\n\t/é😀\u{7}]{0,300}", 1..6),
            lead in "[ a-z]{0,300}",
            member in 0usize..3,
        ) {
            let value = serde_json::json!({
                "content": texts.iter().map(|t| serde_json::json!({"type": "text", "text": t}))
                    .collect::<Vec<_>>(),
                "lead": lead,
            });
            let (name, head) = match member {
                0 => ("result", r#"{"jsonrpc":"2.0","id":1,"#),
                1 => ("error", r#"{"id":"x","#),
                _ => ("params", r#"{"method":"notifications/message","#),
            };
            let body = if name == "error" {
                serde_json::json!({"code": 1, "message": lead, "data": value})
            } else {
                value
            };
            let text = format!(r#"{head}"{name}": {body} }}"#);
            let env = classify(&text, Side::Server).unwrap().env;
            let part = env.result.or(env.error).or(env.params).unwrap().get();
            let known = env.known_in(&text, part);
            proptest::prop_assert_eq!(known.len(), env.long_strings.len());
            let mut lexed = Vec::new();
            crate::walk::json::for_each_string(part, |lit, _| {
                if lit.escaped && lit.end - lit.start >= read::LONG_STRING {
                    lexed.push(lit.start..lit.end);
                }
            })
            .unwrap();
            proptest::prop_assert_eq!(known, lexed);
        }
    }
}
