//! Rewriting text and JSON: tokenize inbound, rehydrate outbound.
//!
//! Both directions are two steps around one vault call, so a networked vault costs one round
//! trip per message:
//!
//! 1. *scan* the document ([`scan_json`], [`scan_text`], [`scan_tokens_json`],
//!    [`scan_tokens_text`]) into [`Findings`]: where each replaceable piece is, and one slot per
//!    occurrence (a value to mint, or a token to resolve);
//! 2. the caller turns the slots into replacement strings (mints tokens, or resolves them and
//!    applies policy);
//! 3. [`apply`] writes the document with the replacements.
//!
//! JSON is rewritten in place (see [`json`]): only string literals that hold something are
//! decoded and re-encoded, every other byte is copied, and a document with no findings is
//! returned borrowed, without a copy. Strings that themselves hold JSON (MCP servers often return
//! JSON as text) or CSV with a header row are rewritten with their own structure, so key and
//! column names act as hints and the result stays valid JSON or CSV.
//!
//! Replacement happens in one pass per string: a restored value that happens to look like a token
//! is written as text and never expanded again.

mod csv;
pub(crate) mod json;

use std::borrow::Cow;
use std::ops::Range;

pub use json::JsonError;

use crate::detect::{Detector, FindContext, Kind, Span};
use crate::sensitive::Sensitive;
use crate::token::{self, Token};

/// Embedded documents are followed this deep (JSON in a string in JSON ...).
const MAX_EMBED_DEPTH: usize = 4;

/// Where the replaceable pieces of one document are, and what each occurrence is.
#[derive(Debug)]
pub struct Findings<S> {
    pieces: Vec<Piece>,
    /// The whole document is JSON (pieces are string literals) rather than text.
    json: bool,
    /// One slot per occurrence, in document order.
    pub slots: Vec<S>,
}

/// A value found inbound: a slot of [`scan_json`] / [`scan_text`] findings.
#[derive(Debug, Clone)]
pub struct FoundValue {
    /// Its kind.
    pub kind: Kind,
    /// The text as found.
    pub value: Sensitive<String>,
    /// The recognizer's canonical form (a phone's E.164), if any.
    pub canonical: Option<Box<str>>,
}

/// A token found outbound: a slot of [`scan_tokens_json`] / [`scan_tokens_text`] findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundTokenAt {
    /// The token.
    pub token: Token,
    /// The dotted JSON path of the string that holds it (`to`, `recipients.0`); empty for text.
    pub path: String,
}

#[derive(Debug)]
struct Piece {
    /// In a JSON document: the string literal, quotes included. In text: the replaced span.
    range: Range<usize>,
    content: Content,
}

#[derive(Debug)]
enum Content {
    /// Text document: this piece is replaced by the slot's replacement.
    Slot(usize),
    /// JSON literal whose decoded text has spans replaced by slots.
    Spans(Vec<(Range<usize>, usize)>),
    /// JSON literal whose decoded text is itself a document with its own pieces.
    Embedded { json: bool, pieces: Vec<Piece> },
}

impl<S> Findings<S> {
    /// Whether nothing was found (applying returns the document unchanged).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

/// Why a document could not be rewritten.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WalkError {
    /// The input was declared JSON but is not.
    #[error(transparent)]
    Json(#[from] JsonError),
    /// `apply` was given a different number of replacements than there are slots.
    #[error("expected {expected} replacements, got {got}")]
    ReplacementCount {
        /// Slots in the findings.
        expected: usize,
        /// Replacements given.
        got: usize,
    },
}

/// Scans a JSON document for values to tokenize.
pub fn scan_json(detector: &Detector, doc: &str) -> Result<Findings<FoundValue>, WalkError> {
    scan_json_except(detector, doc, &|_| false)
}

/// Scans a JSON document for values to tokenize, leaving alone the top-level string values for
/// which `skip` says yes (binary blobs the MCP layer knows are not text).
pub(crate) fn scan_json_except(
    detector: &Detector,
    doc: &str,
    skip: &dyn Fn(&json::Position<'_>) -> bool,
) -> Result<Findings<FoundValue>, WalkError> {
    let mut scanner = ValueScanner::new(detector);
    scanner.skip = skip;
    let pieces = scanner.json_pieces(doc, 0)?;
    Ok(Findings {
        pieces,
        json: true,
        slots: scanner.slots,
    })
}

/// Scans text for values to tokenize. Text that is a JSON document or CSV with a header row is
/// scanned with its structure (and stays valid after [`apply`]).
pub fn scan_text(detector: &Detector, text: &str, cx: &FindContext<'_>) -> Findings<FoundValue> {
    let mut scanner = ValueScanner::new(detector);
    let pieces = scanner.text_pieces(text, cx, 0);
    Findings {
        pieces,
        json: false,
        slots: scanner.slots,
    }
}

struct ValueScanner<'d> {
    detector: &'d Detector,
    slots: Vec<FoundValue>,
    spans: Vec<Span>,
    /// Top-level string values to leave alone.
    skip: &'d dyn Fn(&json::Position<'_>) -> bool,
}

impl<'d> ValueScanner<'d> {
    fn new(detector: &'d Detector) -> Self {
        ValueScanner {
            detector,
            slots: Vec::new(),
            spans: Vec::with_capacity(8),
            skip: &|_| false,
        }
    }

    fn json_pieces(&mut self, doc: &str, depth: usize) -> Result<Vec<Piece>, JsonError> {
        let mut pieces = Vec::new();
        json::for_each_string(doc, |lit, pos| {
            if lit.end - lit.start <= 2 || (depth == 0 && !lit.is_key && (self.skip)(pos)) {
                return;
            }
            let cx = FindContext {
                key: if lit.is_key { None } else { pos.key() },
                parent_key: if lit.is_key { None } else { pos.parent_key() },
            };
            let decoded;
            let text: &str = if lit.escaped {
                match json::decode(doc, lit) {
                    Ok(s) => {
                        decoded = s;
                        &decoded
                    }
                    // The lexer accepted it, so only a lone surrogate gets here: leave the
                    // literal as it is rather than guess.
                    Err(_) => return,
                }
            } else {
                lit.raw(doc)
            };
            if let Some(content) = self.string_content(text, &cx, depth) {
                pieces.push(Piece {
                    range: lit.start..lit.end,
                    content,
                });
            }
        })?;
        Ok(pieces)
    }

    /// What to replace inside one decoded JSON string, if anything.
    fn string_content(
        &mut self,
        text: &str,
        cx: &FindContext<'_>,
        depth: usize,
    ) -> Option<Content> {
        if depth < MAX_EMBED_DEPTH {
            if looks_like_json(text) {
                let mark = self.slots.len();
                match self.json_pieces(text, depth + 1) {
                    Ok(pieces) if pieces.is_empty() => return None,
                    Ok(pieces) => return Some(Content::Embedded { json: true, pieces }),
                    Err(_) => self.slots.truncate(mark),
                }
            } else if let Some(csv) = csv::Csv::parse(text) {
                let pieces = self.csv_pieces(text, &csv);
                return (!pieces.is_empty()).then_some(Content::Embedded {
                    json: false,
                    pieces,
                });
            }
        }
        let spans = self.detect(text, cx);
        (!spans.is_empty()).then_some(Content::Spans(spans))
    }

    fn text_pieces(&mut self, text: &str, cx: &FindContext<'_>, depth: usize) -> Vec<Piece> {
        if depth < MAX_EMBED_DEPTH {
            if looks_like_json(text) {
                let mark = self.slots.len();
                match self.json_pieces(text, depth + 1) {
                    Ok(pieces) if pieces.is_empty() => return pieces,
                    Ok(pieces) => {
                        return vec![Piece {
                            range: 0..text.len(),
                            content: Content::Embedded { json: true, pieces },
                        }];
                    }
                    Err(_) => self.slots.truncate(mark),
                }
            } else if let Some(csv) = csv::Csv::parse(text) {
                return self.csv_pieces(text, &csv);
            }
        }
        self.detect(text, cx)
            .into_iter()
            .map(|(range, slot)| Piece {
                range,
                content: Content::Slot(slot),
            })
            .collect()
    }

    fn csv_pieces(&mut self, text: &str, csv: &csv::Csv) -> Vec<Piece> {
        let mut pieces = Vec::new();
        csv.for_each_cell(text, |range, header| {
            let cx = FindContext::with_key(header);
            for (r, slot) in self.detect(&text[range.clone()], &cx) {
                pieces.push(Piece {
                    range: range.start + r.start..range.start + r.end,
                    content: Content::Slot(slot),
                });
            }
        });
        pieces
    }

    /// Detects spans in `text`; returns (range, slot) pairs.
    fn detect(&mut self, text: &str, cx: &FindContext<'_>) -> Vec<(Range<usize>, usize)> {
        self.detector.detect_into(text, cx, &mut self.spans);
        let mut out = Vec::with_capacity(self.spans.len());
        for span in self.spans.drain(..) {
            out.push((span.start..span.end, self.slots.len()));
            self.slots.push(FoundValue {
                kind: span.kind,
                value: Sensitive::new(text[span.start..span.end].to_string()),
                canonical: span.canonical,
            });
        }
        out
    }
}

fn looks_like_json(text: &str) -> bool {
    let t = text.trim_ascii();
    (t.starts_with('{') && t.ends_with('}')) || (t.starts_with('[') && t.ends_with(']'))
}

/// Scans a JSON document for tokens to restore.
pub fn scan_tokens_json(doc: &str) -> Result<Findings<FoundTokenAt>, WalkError> {
    let mut slots = Vec::new();
    let pieces = token_json_pieces(doc, "", &mut slots, 0)?;
    Ok(Findings {
        pieces,
        json: true,
        slots,
    })
}

/// Scans text for tokens to restore.
pub fn scan_tokens_text(text: &str) -> Findings<FoundTokenAt> {
    let mut slots = Vec::new();
    let pieces = token_text_pieces(text, "", &mut slots);
    Findings {
        pieces,
        json: false,
        slots,
    }
}

fn token_text_pieces(text: &str, path: &str, slots: &mut Vec<FoundTokenAt>) -> Vec<Piece> {
    token::find_tokens(text)
        .map(|found| {
            slots.push(FoundTokenAt {
                token: found.to_token(),
                path: path.to_string(),
            });
            Piece {
                range: found.start..found.end,
                content: Content::Slot(slots.len() - 1),
            }
        })
        .collect()
}

fn token_json_pieces(
    doc: &str,
    base_path: &str,
    slots: &mut Vec<FoundTokenAt>,
    depth: usize,
) -> Result<Vec<Piece>, JsonError> {
    let mut pieces = Vec::new();
    json::for_each_string(doc, |lit, pos| {
        let raw = lit.raw(doc);
        if memchr::memchr(b'[', raw.as_bytes()).is_none() {
            return;
        }
        let decoded;
        let text: &str = if lit.escaped {
            match json::decode(doc, lit) {
                Ok(s) => {
                    decoded = s;
                    &decoded
                }
                Err(_) => return,
            }
        } else {
            raw
        };
        if !token::contains_token(text) {
            return;
        }
        let mut path = pos.path();
        if !base_path.is_empty() {
            path = if path.is_empty() {
                base_path.to_string()
            } else {
                format!("{base_path}.{path}")
            };
        }
        let content = if depth < MAX_EMBED_DEPTH && looks_like_json(text) {
            let mark = slots.len();
            match token_json_pieces(text, &path, slots, depth + 1) {
                Ok(inner) => Content::Embedded {
                    json: true,
                    pieces: inner,
                },
                Err(_) => {
                    slots.truncate(mark);
                    spans_content(text, &path, slots)
                }
            }
        } else {
            spans_content(text, &path, slots)
        };
        pieces.push(Piece {
            range: lit.start..lit.end,
            content,
        });
    })?;
    Ok(pieces)
}

fn spans_content(text: &str, path: &str, slots: &mut Vec<FoundTokenAt>) -> Content {
    Content::Spans(
        token::find_tokens(text)
            .map(|found| {
                slots.push(FoundTokenAt {
                    token: found.to_token(),
                    path: path.to_string(),
                });
                (found.start..found.end, slots.len() - 1)
            })
            .collect(),
    )
}

/// Writes `doc` with each slot's occurrence replaced by `replacements[slot]`.
///
/// Returns `doc` borrowed when there is nothing to replace. `doc` must be the document the
/// findings were scanned from.
pub fn apply<'a, S, R: AsRef<str>>(
    doc: &'a str,
    findings: &Findings<S>,
    replacements: &[R],
) -> Result<Cow<'a, str>, WalkError> {
    if replacements.len() != findings.slots.len() {
        return Err(WalkError::ReplacementCount {
            expected: findings.slots.len(),
            got: replacements.len(),
        });
    }
    if findings.pieces.is_empty() {
        return Ok(Cow::Borrowed(doc));
    }
    let mut out = String::with_capacity(doc.len() + doc.len() / 8);
    write_pieces(doc, &findings.pieces, findings.json, replacements, &mut out)?;
    Ok(Cow::Owned(out))
}

fn write_pieces<R: AsRef<str>>(
    doc: &str,
    pieces: &[Piece],
    json_doc: bool,
    replacements: &[R],
    out: &mut String,
) -> Result<(), WalkError> {
    let mut last = 0;
    for piece in pieces {
        out.push_str(&doc[last..piece.range.start]);
        match &piece.content {
            Content::Slot(slot) => out.push_str(replacements[*slot].as_ref()),
            content => {
                debug_assert!(json_doc);
                let lit = &doc[piece.range.clone()];
                let decoded: Cow<'_, str> = if lit.contains('\\') {
                    Cow::Owned(serde_json::from_str::<String>(lit).map_err(|_| JsonError {
                        offset: piece.range.start,
                        what: "a valid string",
                    })?)
                } else {
                    Cow::Borrowed(&lit[1..lit.len() - 1])
                };
                let mut inner = String::with_capacity(decoded.len() + 16);
                match content {
                    Content::Spans(spans) => {
                        let mut at = 0;
                        for (range, slot) in spans {
                            inner.push_str(&decoded[at..range.start]);
                            inner.push_str(replacements[*slot].as_ref());
                            at = range.end;
                        }
                        inner.push_str(&decoded[at..]);
                    }
                    Content::Embedded { json, pieces } => {
                        write_pieces(&decoded, pieces, *json, replacements, &mut inner)?;
                    }
                    Content::Slot(_) => unreachable!("handled above"),
                }
                json::encode_into(&inner, out);
            }
        }
        last = piece.range.end;
    }
    out.push_str(&doc[last..]);
    Ok(())
}

/// Token texts for minted tokens, ready for [`apply`].
pub fn token_texts(tokens: &[Token]) -> Vec<String> {
    tokens.iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_tokens(findings: &Findings<FoundValue>) -> Vec<String> {
        findings
            .slots
            .iter()
            .enumerate()
            .map(|(i, s)| format!("[{}_{}]", s.kind, i + 1))
            .collect()
    }

    #[test]
    fn clean_json_is_borrowed() {
        let d = Detector::with_defaults();
        let doc = r#"{"status":"ok","count":3,"items":[1,2,3]}"#;
        let f = scan_json(&d, doc).unwrap();
        assert!(f.is_empty());
        assert!(matches!(
            apply(doc, &f, &Vec::<String>::new()).unwrap(),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn tokenizes_literals_in_place() {
        let d = Detector::with_defaults();
        let doc = r#"{ "to" : "mail ann@example.com now",  "n" : 1.50 }"#;
        let f = scan_json(&d, doc).unwrap();
        let out = apply(doc, &f, &fake_tokens(&f)).unwrap();
        assert_eq!(out, r#"{ "to" : "mail [EMAIL_1] now",  "n" : 1.50 }"#);
    }

    #[test]
    fn embedded_json_stays_valid() {
        let d = Detector::with_defaults();
        let inner = r#"{"email": "ann@example.com", "note": "say \"hi\""}"#;
        let doc = serde_json::json!({"content": [{"type": "text", "text": inner}]}).to_string();
        let f = scan_json(&d, &doc).unwrap();
        let out = apply(&doc, &f, &fake_tokens(&f)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let text = v["content"][0]["text"].as_str().unwrap();
        let inner_v: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(inner_v["email"], "[EMAIL_1]");
        assert_eq!(inner_v["note"], "say \"hi\"");
    }

    #[test]
    fn rehydrates_tokens_with_paths() {
        let doc = r#"{"to":"[EMAIL_1]","cc":["x [EMAIL_2] y"],"body":"{\"a\":\"[NAME_1]\"}"}"#;
        let f = scan_tokens_json(doc).unwrap();
        let paths: Vec<_> = f.slots.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(paths, ["to", "cc.0", "body.a"]);
        let out = apply(doc, &f, &["a\"b@x.io", "[EMAIL_1]", "Ann \\ Lee"]).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["to"], "a\"b@x.io");
        // A restored value that looks like a token is not expanded again.
        assert_eq!(v["cc"][0], "x [EMAIL_1] y");
        let body: serde_json::Value = serde_json::from_str(v["body"].as_str().unwrap()).unwrap();
        assert_eq!(body["a"], "Ann \\ Lee");
    }

    #[test]
    fn wrong_replacement_count_is_an_error() {
        let f = scan_tokens_text("[EMAIL_1]");
        assert!(apply("[EMAIL_1]", &f, &Vec::<String>::new()).is_err());
    }
}
