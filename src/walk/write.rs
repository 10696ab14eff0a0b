//! Writing a document back with its findings replaced ([`apply`], [`Layout`]).
//!
//! Inside a JSON literal everything is spliced into the raw (escaped) body: bytes outside the
//! replaced ranges, escapes included, are copied as they were, and only the replacements are
//! encoded. So a literal is never decoded and re-encoded as a whole, and a document keeps its
//! exact bytes apart from what was replaced. Apart from the scan (`mod.rs`): it reads only the
//! pieces and the replacements.
//!
//! A document can also be written to an [`io::Write`] as it goes ([`Layout::write_to`]): a
//! rewritten copy of a large document is as large as the document, and its fresh pages cost
//! more than the copying (a 5 MB text, some 1,400 page faults).

use std::borrow::Cow;
use std::io;
use std::ops::Range;

use super::{Content, Embedded, Findings, Piece, WalkError, json};

/// About how many bytes [`Layout::write_to`] gathers before it hands them to its writer.
const CHUNK: usize = 64 * 1024;

/// Writes `doc` with each slot's occurrence replaced by `replacements[slot]`.
///
/// Returns `doc` borrowed when there is nothing to replace. `doc` must be the document the
/// findings were scanned from.
pub fn apply<'a, S, R: AsRef<str>>(
    doc: &'a str,
    findings: &Findings<S>,
    replacements: &[R],
) -> Result<Cow<'a, str>, WalkError> {
    apply_pieces_into(
        doc,
        &findings.pieces,
        findings.json,
        findings.slots.len(),
        replacements,
        None,
    )
}

/// Where a document's findings occur, taken out of them ([`Findings::take_layout`]) so that
/// the document can be written after the findings themselves have been handed on.
#[derive(Debug, Default)]
pub struct Layout {
    pieces: Vec<Piece>,
    json: bool,
    /// How many slots the findings had: how many replacements a write takes.
    slots: usize,
}

impl<S> Findings<S> {
    /// Takes out where the findings occur, for [`Layout::apply`] or [`Layout::write_to`]
    /// (the findings keep their slots and values, and [`apply`] no longer writes them).
    pub(crate) fn take_layout(&mut self) -> Layout {
        Layout {
            pieces: std::mem::take(&mut self.pieces),
            json: self.json,
            slots: self.slots.len(),
        }
    }
}

impl Layout {
    /// [`apply`] of the findings this layout was taken from, written into `buf` when it is
    /// given and has room for the document: a buffer of that size its caller is done with,
    /// already in memory, where a new one would be faulted in page by page.
    pub fn apply_into<'a, R: AsRef<str>>(
        &self,
        doc: &'a str,
        replacements: &[R],
        buf: Option<String>,
    ) -> Result<Cow<'a, str>, WalkError> {
        apply_pieces_into(doc, &self.pieces, self.json, self.slots, replacements, buf)
    }

    /// [`Layout::apply`], written to `w` as it goes rather than into one string: the pieces
    /// are gathered in a buffer of about [`CHUNK`] bytes, and a long stretch of the document
    /// between two of them is written from the document itself.
    pub fn write_to<R: AsRef<str>>(
        &self,
        doc: &str,
        replacements: &[R],
        w: &mut dyn io::Write,
    ) -> Result<(), WalkError> {
        count_matches(self.slots, replacements)?;
        let mut buf = String::with_capacity(CHUNK + CHUNK / 4);
        let mut last = 0;
        for piece in &self.pieces {
            put(&mut buf, &doc[last..piece.range.start], w)?;
            write_piece(
                &doc[piece.range.clone()],
                &piece.content,
                self.json,
                replacements,
                &mut buf,
            )?;
            if buf.len() >= CHUNK {
                w.write_all(buf.as_bytes()).map_err(WalkError::Write)?;
                buf.clear();
            }
            last = piece.range.end;
        }
        put(&mut buf, &doc[last..], w)?;
        w.write_all(buf.as_bytes()).map_err(WalkError::Write)
    }
}

/// Adds `plain` to `buf`, or, when the two would pass [`CHUNK`], writes `buf` out first, and a
/// `plain` of [`CHUNK`] bytes or more straight to `w`.
fn put(buf: &mut String, plain: &str, w: &mut dyn io::Write) -> Result<(), WalkError> {
    if buf.len() + plain.len() > CHUNK {
        w.write_all(buf.as_bytes()).map_err(WalkError::Write)?;
        buf.clear();
        if plain.len() >= CHUNK {
            return w.write_all(plain.as_bytes()).map_err(WalkError::Write);
        }
    }
    buf.push_str(plain);
    Ok(())
}

fn count_matches<R>(slots: usize, replacements: &[R]) -> Result<(), WalkError> {
    if replacements.len() == slots {
        Ok(())
    } else {
        Err(WalkError::ReplacementCount {
            expected: slots,
            got: replacements.len(),
        })
    }
}

/// The document written with its pieces replaced: into `buf`, emptied, when it holds at
/// least the document's length (a rewritten document is seldom longer: most tokens are shorter
/// than their values, and it grows where one is not); else into a new string.
fn apply_pieces_into<'a, R: AsRef<str>>(
    doc: &'a str,
    pieces: &[Piece],
    json: bool,
    slots: usize,
    replacements: &[R],
    buf: Option<String>,
) -> Result<Cow<'a, str>, WalkError> {
    count_matches(slots, replacements)?;
    if pieces.is_empty() {
        return Ok(Cow::Borrowed(doc));
    }
    let mut out = match buf {
        Some(mut buf) if buf.capacity() >= doc.len() => {
            buf.clear();
            buf
        }
        _ => String::with_capacity(doc.len() + doc.len() / 8),
    };
    write_pieces(doc, pieces, json, replacements, &mut out)?;
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
        write_piece(
            &doc[piece.range.clone()],
            &piece.content,
            json_doc,
            replacements,
            out,
        )?;
        last = piece.range.end;
    }
    out.push_str(&doc[last..]);
    Ok(())
}

/// Writes one piece whose text (a literal with its quotes, in a JSON document) is `text`.
///
/// Inside a literal everything is spliced into the raw (escaped) body: bytes outside the
/// replaced ranges, escapes included, are copied as they were, and only the replacements are
/// encoded. So a literal is never decoded and re-encoded as a whole, and a document keeps its
/// exact bytes apart from what was replaced.
fn write_piece<R: AsRef<str>>(
    text: &str,
    content: &Content,
    json_doc: bool,
    replacements: &[R],
    out: &mut String,
) -> Result<(), WalkError> {
    match content {
        Content::Slot(slot) => out.push_str(replacements[*slot].as_ref()),
        // A text document that is itself JSON: the piece is raw text, not a literal.
        Content::Embedded(e) if !json_doc => {
            write_pieces(text, &e.pieces, e.json, replacements, out)?;
        }
        // A number is plain ASCII: its replaced text is written as a string literal.
        Content::Number(spans) => {
            let mut at = 0;
            out.push('"');
            for (range, slot) in spans.iter() {
                out.push_str(&text[at..range.start]);
                json::encode_body_into(replacements[*slot].as_ref(), out);
                at = range.end;
            }
            out.push_str(&text[at..]);
            out.push('"');
        }
        Content::Spans(spans) => {
            let body = &text[1..text.len() - 1];
            // A body without escapes is its own decoded text: offsets map to themselves.
            let plain = memchr::memchr(b'\\', body.as_bytes()).is_none();
            let mut offsets = json::RawOffsets::new(body);
            let mut raw = |decoded: usize| {
                if plain { decoded } else { offsets.raw(decoded) }
            };
            let mut at = 0;
            out.push('"');
            for (range, slot) in spans {
                let start = raw(range.start);
                out.push_str(&body[at..start]);
                json::encode_body_into(replacements[*slot].as_ref(), out);
                at = raw(range.end);
            }
            out.push_str(&body[at..]);
            out.push('"');
        }
        // A document inside a literal: inner pieces are ranges of the decoded literal. Each is
        // decoded on its own (as the scan decoded it), written, and encoded back in place.
        Content::Embedded(e) => {
            let Embedded { json, pieces } = &**e;
            let body = &text[1..text.len() - 1];
            let mut offsets = json::RawOffsets::new(body);
            let mut at = 0;
            let mut piece_out = String::new();
            out.push('"');
            for piece in pieces {
                let start = offsets.raw(piece.range.start);
                let end = offsets.raw(piece.range.end);
                out.push_str(&body[at..start]);
                let raw = &body[start..end];
                if *json
                    && let Content::Spans(spans) = &piece.content
                    && let Some(mid) = plain_quoted(raw)
                {
                    write_plain_quoted(mid, spans, replacements, &mut piece_out, out);
                    at = end;
                    continue;
                }
                let decoded: Cow<'_, str> = if memchr::memchr(b'\\', raw.as_bytes()).is_some() {
                    Cow::Owned(json::decode_body(raw))
                } else {
                    Cow::Borrowed(raw)
                };
                piece_out.clear();
                write_piece(
                    &decoded,
                    &piece.content,
                    *json,
                    replacements,
                    &mut piece_out,
                )?;
                json::encode_body_into(&piece_out, out);
                at = end;
            }
            out.push_str(&body[at..]);
            out.push('"');
        }
    }
    Ok(())
}

/// The body of `raw`, a string literal of a JSON document as it stands escaped inside another
/// literal, when it is `\"` + a body with no escape + `\"` (most values of a tool result's
/// text block): its decoded literal is then `"` + that body + `"`, and the body its own text.
fn plain_quoted(raw: &str) -> Option<&str> {
    raw.strip_prefix("\\\"")
        .and_then(|r| r.strip_suffix("\\\""))
        .filter(|mid| memchr::memchr(b'\\', mid.as_bytes()).is_none())
}

/// Writes the literal whose escaped form is `\"` + `mid` + `\"` ([`plain_quoted`]) with the
/// replacements of `spans` (ranges of `mid`) into an enclosing literal's body: what decoding
/// it, writing its piece and encoding that back gives, without the copies. `mid` has no
/// backslash, and no quote or control byte (it lies in an escaped body): it encodes to itself,
/// and only the replacements are encoded, twice (once for the inner literal, once for the
/// outer). `scratch` is a buffer to reuse.
fn write_plain_quoted<R: AsRef<str>>(
    mid: &str,
    spans: &[(Range<usize>, usize)],
    replacements: &[R],
    scratch: &mut String,
    out: &mut String,
) {
    out.push_str("\\\"");
    let mut at = 0;
    for (range, slot) in spans {
        out.push_str(&mid[at..range.start]);
        let replacement = replacements[*slot].as_ref();
        // Encoded once: when that escapes nothing (a token), encoding it again gives it again.
        // (Encoding only ever lengthens what it escapes.)
        let start = out.len();
        json::encode_body_into(replacement, out);
        if out.len() - start != replacement.len() {
            out.truncate(start);
            scratch.clear();
            json::encode_body_into(replacement, scratch);
            json::encode_body_into(scratch, out);
        }
        at = range.end;
    }
    out.push_str(&mid[at..]);
    out.push_str("\\\"");
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// A literal written straight into its enclosing literal's body is what decoding it,
        /// writing its piece and encoding that back gives, replacements that need escaping
        /// included.
        #[test]
        fn plain_quoted_literals_are_written_as_decoded_and_encoded(
            mid in "[a-zA-Z0-9 .,@é😀-]{0,40}",
            cuts in proptest::collection::vec(0usize..48, 0..6),
            reps in proptest::collection::vec(
                "\\[[A-Z]{1,5}_[0-9]\\]|[a-z\"\\\\\n\u{1}é]{0,6}", 3),
        ) {
            // Spans: pairs of cuts on character boundaries, in order, not overlapping.
            let mut bounds: Vec<usize> = cuts
                .iter()
                .map(|&c| c.min(mid.len()))
                .filter(|&c| mid.is_char_boundary(c))
                .collect();
            bounds.sort_unstable();
            bounds.dedup();
            let spans: Vec<(Range<usize>, usize)> = bounds
                .chunks_exact(2)
                .enumerate()
                .map(|(k, w)| (w[0]..w[1], k % reps.len()))
                .collect();
            let raw = format!("\\\"{mid}\\\"");
            proptest::prop_assert_eq!(plain_quoted(&raw), Some(mid.as_str()));
            let mut fast = String::new();
            write_plain_quoted(&mid, &spans, &reps, &mut String::new(), &mut fast);
            let decoded = json::decode_body(&raw);
            let mut piece = String::new();
            write_piece(&decoded, &Content::Spans(spans.clone().into()), true, &reps, &mut piece).unwrap();
            let mut slow = String::new();
            json::encode_body_into(&piece, &mut slow);
            proptest::prop_assert_eq!(fast, slow);
        }
    }
}
