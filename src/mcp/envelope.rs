//! The JSON-RPC envelope: just enough parsing to route a message, and in-place splicing.
//!
//! A message is parsed into [`Envelope`], whose `params`, `result` and `error` stay borrowed
//! JSON text ([`Raw`]): the interceptor rewrites only the member it must, by byte range, and every
//! other byte of the message (member order, whitespace, the `jsonrpc` field, unknown members) is
//! kept. Replies the layer writes itself are built here too.

use std::borrow::Cow;
use std::ops::Range;

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// One JSON value's text, borrowed from a message whose syntax was checked: what serde's
/// [`RawValue`] holds, without tying the layer to serde's reading of the message. `classify`
/// reads a message once, checking its syntax as serde does, and hands its members out as these;
/// [`Envelope::parse`] gets them from serde's `RawValue`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Raw<'a>(&'a str);

impl<'a> Raw<'a> {
    /// The value's JSON text, with no whitespace around it.
    pub(crate) fn get(self) -> &'a str {
        self.0
    }

    /// `text`, which the caller has checked is one JSON value with no whitespace around it.
    pub(super) fn checked(text: &'a str) -> Raw<'a> {
        Raw(text)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'de RawValue>::deserialize(d).map(|raw| Raw(raw.get()))
    }
}

/// The members of one JSON-RPC message that routing needs. Unknown members are ignored.
#[derive(Debug, Deserialize)]
pub(crate) struct Envelope<'a> {
    /// The id (requests and responses); `None` for notifications.
    #[serde(borrow, default)]
    pub(crate) id: Option<Raw<'a>>,
    /// The method (requests and notifications).
    #[serde(borrow, default)]
    pub(crate) method: Option<Cow<'a, str>>,
    /// Request or notification parameters.
    #[serde(borrow, default)]
    pub(crate) params: Option<Raw<'a>>,
    /// A successful response's result.
    #[serde(borrow, default)]
    pub(crate) result: Option<Raw<'a>>,
    /// An error response's error object.
    #[serde(borrow, default)]
    pub(crate) error: Option<Raw<'a>>,
    /// Where the long string literals of `params`, `result` and `error` that hold an escape
    /// are, as `classify` found them: byte ranges in the message, in order (empty when not
    /// known). The walk that scans a member takes their ends from here rather than read their
    /// bodies again ([`Self::known_in`]).
    #[serde(skip)]
    pub(crate) long_strings: Vec<Range<usize>>,
}

impl<'a> Envelope<'a> {
    /// Parses one message (not a batch).
    pub(crate) fn parse(text: &'a str) -> Result<Envelope<'a>, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// An envelope with no members (what an unreadable message offers).
    pub(crate) fn none() -> Envelope<'static> {
        Envelope {
            id: None,
            method: None,
            params: None,
            result: None,
            error: None,
            long_strings: Vec::new(),
        }
    }

    /// [`Self::long_strings`] that lie in `part` (a member of `whole`, the message this
    /// envelope was read from), as ranges in `part`.
    pub(crate) fn known_in(&self, whole: &str, part: &str) -> Vec<Range<usize>> {
        let at = range_in(whole, part);
        if at.end > whole.len() {
            return Vec::new();
        }
        self.long_strings
            .iter()
            .filter(|r| at.start <= r.start && r.end <= at.end)
            .map(|r| r.start - at.start..r.end - at.start)
            .collect()
    }

    /// The id as text, the key that correlates a response with its request.
    pub(crate) fn id_key(&self) -> Option<&'a str> {
        self.id.map(|id| id.get().trim())
    }
}

/// Whether `text` is a batch (a JSON array) rather than one message.
pub(crate) fn is_batch(text: &str) -> bool {
    text.trim_start().starts_with('[')
}

/// Splits a batch into its messages, borrowed from `text`.
pub(crate) fn split_batch(text: &str) -> Result<Vec<&RawValue>, serde_json::Error> {
    serde_json::from_str(text)
}

/// The byte range of `part` (borrowed from `whole`) within `whole`.
pub(crate) fn range_in(whole: &str, part: &str) -> Range<usize> {
    let start = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
    debug_assert!(start <= whole.len() && start + part.len() <= whole.len());
    start..start + part.len()
}

/// [`splice`] into `new`'s own buffer: the text of `whole` before and after `part` is written
/// around `new` in place, with room for the newline the stdio writer appends. A tokenized
/// member (a tool result's text, megabytes at times) is then not copied into a second buffer
/// of its size, which the process would fault in page by page.
pub(crate) fn splice_owned(whole: &str, part: &str, mut new: String) -> String {
    let range = range_in(whole, part);
    let (head, tail) = (&whole[..range.start], &whole[range.end..]);
    new.reserve_exact(head.len() + tail.len() + 1);
    new.insert_str(0, head);
    new.push_str(tail);
    new
}

/// `whole` with `part` (a slice of it) replaced by `new`.
pub(crate) fn splice(whole: &str, part: &str, new: &str) -> String {
    let range = range_in(whole, part);
    let mut out = String::with_capacity(whole.len() - part.len() + new.len());
    out.push_str(&whole[..range.start]);
    out.push_str(new);
    out.push_str(&whole[range.end..]);
    out
}

/// A JSON-RPC error response. `message` must carry no raw values.
pub(crate) fn error_response(id: Option<&str>, code: i64, message: &str) -> String {
    let message = serde_json::Value::String(message.to_string());
    format!(
        r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":{code},"message":{message}}}}}"#,
        id.unwrap_or("null")
    )
}

/// A JSON-RPC success response with `result` (already JSON).
pub(crate) fn result_response(id: &str, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// A `CallToolResult` with `isError: true` and one text block. `text` must carry no raw values.
pub(crate) fn tool_error_result(text: &str) -> String {
    serde_json::json!({
        "content": [{"type": "text", "text": text}],
        "isError": true,
    })
    .to_string()
}

/// Joins messages into a batch (`None` when there are none).
pub(crate) fn join_batch(items: &[Cow<'_, str>]) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(items.iter().map(|i| i.len() + 1).sum::<usize>() + 2);
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item);
    }
    out.push(']');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_splices_in_place() {
        let msg = r#"{"jsonrpc":"2.0", "id":0 ,"result": {"a":1}, "x":[1]}"#;
        let env = Envelope::parse(msg).unwrap();
        assert_eq!(env.id_key(), Some("0"));
        let result = env.result.unwrap().get();
        assert_eq!(
            splice(msg, result, r#"{"b":2}"#),
            r#"{"jsonrpc":"2.0", "id":0 ,"result": {"b":2}, "x":[1]}"#
        );
        // In `new`'s buffer, the same message, and a newline fits without growing it.
        let mut owned = splice_owned(msg, result, r#"{"b":2}"#.to_string());
        assert_eq!(owned, splice(msg, result, r#"{"b":2}"#));
        let capacity = owned.capacity();
        owned.push('\n');
        assert_eq!(owned.capacity(), capacity);
        let (head, tail) = msg.split_at(range_in(msg, result).start);
        assert_eq!(splice_owned(msg, &msg[..0], String::new()), msg);
        assert_eq!(splice_owned(msg, msg, "[]".into()), "[]");
        assert_eq!(
            splice_owned(msg, &tail[tail.len()..], "!".into()),
            format!("{head}{tail}!")
        );
    }

    #[test]
    fn null_id_is_none_and_batches_split() {
        let env = Envelope::parse(r#"{"jsonrpc":"2.0","id":null,"error":{}}"#).unwrap();
        assert!(env.id.is_none());
        let batch = r#"[{"id":1},{"id":"a"}]"#;
        assert!(is_batch(batch));
        let items = split_batch(batch).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(range_in(batch, items[1].get()), 10..20);
    }

    #[test]
    fn replies_are_valid_json() {
        let e = error_response(Some("\"x\""), -32603, "a \"quoted\" reason");
        let v: serde_json::Value = serde_json::from_str(&e).unwrap();
        assert_eq!(v["id"], "x");
        assert_eq!(v["error"]["message"], "a \"quoted\" reason");
        let r = result_response("3", &tool_error_result("no"));
        let v: serde_json::Value = serde_json::from_str(&r).unwrap();
        assert_eq!(v["result"]["isError"], true);
    }
}
