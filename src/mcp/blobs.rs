//! Where MCP messages carry binary data that must not be scanned.
//!
//! Images and audio travel as base64 in `data`, binary resources in `blob`. Base64 is not text a
//! model reads, and a run of digits inside it can look like a phone number, so these members are
//! left exactly as they are. Each list below names the paths, relative to the member the
//! interceptor tokenizes (`result` or `params`), with `*` for any array index; everything else in
//! that member is scanned, including `structuredContent`, whatever keys it uses.

use crate::walk::json::{Position, Segment};

/// One step of a path pattern.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Step {
    /// This object key.
    Key(&'static str),
    /// Any array index.
    Any,
}

use Step::{Any, Key};

/// Path patterns of binary members, one list per message shape.
pub(crate) type Patterns = &'static [&'static [Step]];

/// `CallToolResult`: image/audio blocks and embedded binary resources.
pub(crate) const CALL_RESULT: Patterns = &[
    &[Key("content"), Any, Key("data")],
    &[Key("content"), Any, Key("resource"), Key("blob")],
];

/// `ReadResourceResult`: binary contents.
pub(crate) const READ_RESULT: Patterns = &[&[Key("contents"), Any, Key("blob")]];

/// `GetPromptResult` and `sampling/createMessage` params: messages whose content is one block or
/// (newer revisions) an array of blocks, tool results nesting their own blocks.
pub(crate) const MESSAGES: Patterns = &[
    &[Key("messages"), Any, Key("content"), Key("data")],
    &[
        Key("messages"),
        Any,
        Key("content"),
        Key("resource"),
        Key("blob"),
    ],
    &[Key("messages"), Any, Key("content"), Any, Key("data")],
    &[
        Key("messages"),
        Any,
        Key("content"),
        Any,
        Key("resource"),
        Key("blob"),
    ],
    &[
        Key("messages"),
        Any,
        Key("content"),
        Any,
        Key("content"),
        Any,
        Key("data"),
    ],
];

/// A result whose request is unknown: any of the shapes above.
pub(crate) const UNKNOWN: Patterns = &[
    CALL_RESULT[0],
    CALL_RESULT[1],
    READ_RESULT[0],
    MESSAGES[0],
    MESSAGES[1],
    MESSAGES[2],
    MESSAGES[3],
    MESSAGES[4],
];

/// Nothing is binary (error objects, log notifications).
pub(crate) const NONE: Patterns = &[];

/// Whether the string value at `pos` matches one of `patterns` exactly.
pub(crate) fn is_binary(patterns: Patterns, pos: &Position<'_>) -> bool {
    patterns.iter().any(|pattern| matches(pattern, pos))
}

fn matches(pattern: &[Step], pos: &Position<'_>) -> bool {
    let mut steps = pattern.iter();
    for segment in pos.segments() {
        let ok = match (steps.next(), segment) {
            (Some(Key(k)), Segment::Key(s)) => *k == s,
            (Some(Any), Segment::Index(_)) => true,
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    steps.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::json::for_each_string;

    fn binary_values(patterns: Patterns, doc: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_string(doc, |lit, pos| {
            if !lit.is_key && is_binary(patterns, pos) {
                out.push(lit.raw(doc).to_string());
            }
        })
        .unwrap();
        out
    }

    #[test]
    fn finds_exactly_the_blobs() {
        let doc = r#"{"content":[{"type":"text","text":"t"},{"type":"image","data":"AAA1","mimeType":"image/png"},
            {"type":"resource","resource":{"uri":"u","blob":"BBB"}}],
            "structuredContent":{"content":[{"data":"keep"}]}}"#;
        assert_eq!(binary_values(CALL_RESULT, doc), ["AAA1", "BBB"]);
        let msgs = r#"{"messages":[{"role":"user","content":{"type":"audio","data":"CCC"}},
            {"role":"user","content":[{"type":"image","data":"DDD"},{"type":"text","text":"t"}]}]}"#;
        assert_eq!(binary_values(MESSAGES, msgs), ["CCC", "DDD"]);
        assert!(binary_values(NONE, msgs).is_empty());
    }
}
