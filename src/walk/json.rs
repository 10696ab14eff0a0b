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

use std::borrow::Cow;
use std::fmt::Write;
use std::ops::Range;

use crate::detect::lanes;

mod body;
pub(crate) use body::body_end;

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
        /// The byte offset of its `{`.
        opened: usize,
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
    #[inline]
    pub(crate) fn key(&self) -> Option<&'s str> {
        self.key_lit().map(|k| k.raw(self.doc))
    }

    /// The literal of [`Self::key`]: which one of the document's key literals it is (its
    /// `start`) tells a visitor that has just read that very key what it knows of it.
    #[inline]
    pub(crate) fn key_lit(&self) -> Option<StrLit> {
        match self.frames.last()? {
            Frame::Object { key, .. } => *key,
            Frame::Array { container_key, .. } => *container_key,
        }
    }

    /// The byte offset of the `{` of the object this value is a member of (`None` in an
    /// array or at the top): what tells the members of one object from another's.
    #[inline]
    pub(crate) fn object_start(&self) -> Option<usize> {
        match self.frames.last()? {
            Frame::Object { opened, .. } => Some(*opened),
            Frame::Array { .. } => None,
        }
    }

    /// The key of the enclosing object or array.
    #[inline]
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

    /// Whether the current value is a member of an object that is an element of an array
    /// (`[{"name": ..}, ..]`): a record of a list of records.
    #[inline]
    pub(crate) fn in_record(&self) -> bool {
        matches!(self.frames, [.., Frame::Array { .. }, Frame::Object { .. }])
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
        let mut out = String::with_capacity(32);
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
    for_each_value(doc, |lit, pos| {
        if let Literal::Str(lit) = lit {
            visit(lit, pos);
        }
    })
}

/// A literal [`for_each_value`] reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Literal {
    /// A string literal (a key or a value).
    Str(StrLit),
    /// A number literal: its byte range.
    Number(std::ops::Range<usize>),
}

/// [`for_each_string`] that also reports every number literal (its byte range, and where it
/// sits), in document order. `true`, `false` and `null` are not reported.
pub(crate) fn for_each_value(
    doc: &str,
    visit: impl FnMut(Literal, &Position<'_>),
) -> Result<(), JsonError> {
    for_each_value_known(doc, &[], visit)
}

/// [`for_each_value`], told where some string literals of `doc` end by a reader that has read
/// the same text: `known` holds, in document order, the byte ranges (opening quote to one past
/// the closing quote) of literals whose bodies hold an escape. The lexer takes such a literal's
/// end from there instead of reading its body again: the MCP layer's read of a message checks
/// every string of it (`mcp/classify/read.rs`), and a tool result's text block, megabytes at
/// times, was read a second time here only to find its closing quote. A range that does not
/// start at the quote being read is passed over, and one whose end is no quote is not taken,
/// so the lexer never reads out of bounds; the ranges are the caller's word on the rest.
pub(crate) fn for_each_value_known(
    doc: &str,
    mut known: &[Range<usize>],
    mut visit: impl FnMut(Literal, &Position<'_>),
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
                let lit = match known_end(&mut known, bytes, i) {
                    Some(end) => StrLit {
                        start: i,
                        end,
                        escaped: true,
                        is_key: false,
                    },
                    None => lex_string(bytes, i)?,
                };
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
                        Literal::Str(lit),
                        &Position {
                            doc,
                            frames: &frames,
                        },
                    );
                } else {
                    visit(
                        Literal::Str(lit),
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
                        opened: i,
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
                if c == b'-' || c.is_ascii_digit() {
                    visit(
                        Literal::Number(i..end),
                        &Position {
                            doc,
                            frames: &frames,
                        },
                    );
                }
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

/// Past the JSON whitespace (space, tab, CR, LF) at `i`.
pub(crate) fn skip_ws(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\n' | b'\r' | b'\t') {
        i += 1;
    }
    i
}

/// The first byte at or after `from` that ends a run of plain string body: a quote, a backslash
/// or a control byte (which JSON requires escaped).
///
/// Sixteen bytes a step with SSE2 ([`lanes::string_stops`]: the stops of a block as the bits of
/// a mask, the lowest set the first), twice: string bodies are mostly short (names, e-mail
/// addresses), and a JSON document inside a string has an escape every few bytes, where a
/// block finds the stop in one step and `memchr2`'s set-up would cost more than the run. A run
/// longer than that (the prose or the log lines of a text block) is read 64 bytes a step
/// ([`lanes::string_stops64`]).
#[inline(always)]
pub(crate) fn string_stop(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    for _ in 0..SHORT_BLOCKS {
        if i >= bytes.len() {
            return None;
        }
        let hits = lanes::string_stops(bytes, i);
        if hits != 0 {
            return Some(i + hits.trailing_zeros() as usize);
        }
        i += 16;
    }
    long_string_stop(bytes, i)
}

/// How many sixteen-byte blocks [`string_stop`] reads before it reads 64 bytes a step.
const SHORT_BLOCKS: usize = 2;

/// [`string_stop`] past its first blocks: 64 bytes a step, then sixteen to the end. Not
/// inlined, so that the short path stays small enough to be inlined where it is called.
#[inline(never)]
fn long_string_stop(bytes: &[u8], mut i: usize) -> Option<usize> {
    while bytes.len().saturating_sub(i) >= 64 {
        let hits = lanes::string_stops64(bytes, i);
        if hits != 0 {
            return Some(i + hits.trailing_zeros() as usize);
        }
        i += 64;
    }
    while i < bytes.len() {
        let hits = lanes::string_stops(bytes, i);
        if hits != 0 {
            return Some(i + hits.trailing_zeros() as usize);
        }
        i += 16;
    }
    None
}

/// At most how many string literals a scan of `doc` reads, for sizing its vectors before they
/// fill (grown by doubling in the heap, each would copy itself several times over): half its
/// `"` bytes (escaped ones too, so a text block that holds a JSON document counts that
/// document's strings), and no more than one per four bytes of `doc` (a string the scan reads
/// holds a character, and a comma or colon follows it), so that a document of empty strings
/// (`["","",…]`, which no scan reads) reserves no more than one of strings the scan reads. The quotes are counted 255
/// bytes at a time into a byte, which the compiler turns into vector compares (about 0.3
/// instructions a byte).
pub(crate) fn strings_bound(doc: &str) -> usize {
    let quotes: usize = doc
        .as_bytes()
        .chunks(255)
        .map(|c| usize::from(c.iter().map(|&b| u8::from(b == b'"')).sum::<u8>()))
        .sum();
    (quotes / 2).min(doc.len() / 4 + 1)
}

/// An empty vector with room for `n` items when that much can be had, else with none: a
/// capacity sized ahead ([`strings_bound`]) is a saving, never a reason to fail.
pub(crate) fn room_for<T>(n: usize) -> Vec<T> {
    let mut v = Vec::new();
    // Not reserving only costs the copies it would have saved.
    let _ = v.try_reserve_exact(n);
    v
}

/// The end of the string literal whose opening quote is at `start`, when `known` (ranges of
/// literals in order, see [`for_each_value_known`]) has it: the ranges before `start` are
/// passed over. `None` when it has no range starting there, or one that does not end in a quote
/// past the opening one.
#[inline]
fn known_end(known: &mut &[Range<usize>], bytes: &[u8], start: usize) -> Option<usize> {
    while let [first, rest @ ..] = *known
        && first.start < start
    {
        *known = rest;
    }
    let r = known.first().filter(|r| r.start == start)?;
    (r.end >= start + 2 && bytes.get(r.end - 1) == Some(&b'"')).then_some(r.end)
}

/// Lexes the string literal whose opening quote is at `start`.
fn lex_string(bytes: &[u8], start: usize) -> Result<StrLit, JsonError> {
    let mut i = start + 1;
    let mut escaped = false;
    loop {
        let Some(stop) = string_stop(bytes, i) else {
            return Err(JsonError {
                offset: start,
                what: "a closing quote",
            });
        };
        if bytes[stop] < 0x20 {
            // Control characters must be escaped inside JSON strings; without a closing quote
            // after it, the missing quote is what is reported.
            return Err(match memchr::memchr2(b'"', b'\\', &bytes[stop..]) {
                Some(_) => JsonError {
                    offset: i,
                    what: "no raw control character in a string",
                },
                None => JsonError {
                    offset: start,
                    what: "a closing quote",
                },
            });
        }
        i = stop;
        if bytes[i] == b'"' {
            return Ok(StrLit {
                start,
                end: i + 1,
                escaped,
                is_key: false,
            });
        }
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
        if !escaped {
            escaped = true;
            // A body with one escape often has many (a JSON document in a text block, code and
            // logs): read on 64 bytes a step (`body.rs`), or escape by escape where that reader
            // stops, which says what is wrong. Once: no byte is read more than twice.
            if let Some(end) = body_end(bytes, i, |at| hex_escape(bytes, at)) {
                return Ok(StrLit {
                    start,
                    end: end + 1,
                    escaped,
                    is_key: false,
                });
            }
        }
    }
}

/// The length of the `\u` escape at `at` (six bytes) when four hex digits follow it.
pub(crate) fn hex_escape(b: &[u8], at: usize) -> Option<usize> {
    let hex = b.get(at + 2..at + 6)?;
    hex.iter().all(u8::is_ascii_hexdigit).then_some(6)
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

/// Decodes a literal's body (with escapes) into a `String`. A lone surrogate escape (which the
/// JSON grammar allows but no `String` can hold) becomes U+FFFD, three bytes like
/// [`RawOffsets`] counts it, so the literal is still scanned: skipping it would let a forged
/// token or a value through untouched.
pub(crate) fn decode(doc: &str, lit: StrLit) -> String {
    decode_body(lit.raw(doc))
}

/// [`decode`], and whether [`document_text`] reads the literal alike ([`decode_body_noting`]).
pub(crate) fn decode_noting(doc: &str, lit: StrLit) -> (String, bool) {
    decode_body_noting(lit.raw(doc))
}

/// Decodes a validated literal body; see [`decode`].
///
/// A tool result's text block that holds a JSON document has an escape every few bytes (each
/// quote of the document is `\"`, each line break `\n`), and the per-call cost of `memchr` and
/// of `memcpy` would dominate such a body: it is read 64 bytes a step, as
/// [`decode_body_noting`] says.
pub(crate) fn decode_body(raw: &str) -> String {
    decode_body_noting(raw).0
}

/// [`decode_body`], and whether [`document_text`] reads `raw` alike: true unless it has a `\b`
/// or `\f` escape, or a surrogate escape (paired or lone), which [`document_text`] reads as
/// spaces where no character comes of it.
///
/// The body is read 64 bytes a step ([`decode_blocks`]): the block is copied whole and cut back
/// at each escape, which is written in its place; the block's last 64 bytes or fewer come from a
/// copy padded with zeros, so that every copy is of 64 bytes.
pub(crate) fn decode_body_noting(raw: &str) -> (String, bool) {
    let mut alike = true;
    let r = raw.as_bytes();
    // Decoded text is never longer than its escapes; 128 more for the window past it.
    let mut out: Vec<u8> = Vec::with_capacity(r.len() + 128);
    let at = decode_blocks(r, 0, r, &mut out, &mut alike);
    if at < r.len() {
        // Zeros are no backslash. Fewer than 129 bytes are left, and a block read from any of
        // them has its 128.
        let last = lanes::padded::<256>(r, at);
        decode_blocks(&last, at, r, &mut out, &mut alike);
    }
    // Runs cut at a backslash (ASCII) and whole characters: UTF-8 throughout. Were it not, the
    // text is still scanned, not dropped.
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (text, alike)
}

/// The byte each two-byte escape stands for, by its second byte (`\"`, `\\`, `\/`, `\n`, `\t`,
/// `\r`); zero for the rest (`\u`, `\b`, `\f`, and what is no escape), which
/// [`decode_escape`] decodes.
static PLAIN_ESCAPES: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'/' as usize] = b'/';
    t[b'n' as usize] = b'\n';
    t[b't' as usize] = b'\t';
    t[b'r' as usize] = b'\r';
    t
};

/// The backslashes of `backslashes` (one 64-byte block's) that start an escape, and whether the
/// last of them starts one whose second byte is in the next block. `escaped` is that of the block
/// before: its first byte is the second byte of an escape. In a run of backslashes, every other
/// one starts an escape (`\\` is one), from the first; a run's parity is found for all runs at
/// once with one subtraction (simdjson's escape scanner): subtracting the run's starts from the
/// odd bits carries along even-aligned runs only.
#[inline(always)]
fn escape_starts(backslashes: u64, escaped: bool) -> (u64, bool) {
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    let potential = backslashes & !u64::from(escaped);
    // Set at the byte after each escape and at each escape start, in every run.
    let codes = ((potential << 1) | ODD).wrapping_sub(potential) ^ ODD;
    let starts = codes & backslashes;
    (starts, starts >> 63 != 0)
}

/// Decodes the body `r[at..]` (whose bytes `src` starts with) onto `out`, which holds the decoded
/// text of `r[..at]`, a block of 64 bytes a step, for as long as `src` has 128 bytes from the
/// block; then `out` holds the decoded text of `r` up to the position returned (where `src` ran
/// short, or the end of `r`). `src` is `r` itself, or a copy of its last bytes padded with zeros.
///
/// A step appends 128 bytes to `out` as a window to write in, takes the block's escape starts
/// from its mask of backslashes ([`escape_starts`]), and for each one copies the 64 bytes from
/// the start of the run before it into the window (the run is shorter), moves past the run and
/// writes the escape's byte. It copies the run after the last escape to the block's end in the
/// same way, and cuts `out` back to what was written. An escape whose second byte is in the next
/// block makes that block start a byte later. Only `\"`, `\\`, `\/`, `\n`, `\t` and `\r` are
/// written this way: at any other escape (or a backslash that starts none), the window is cut
/// back, [`decode_escape`] writes the escape and the next block starts after it.
///
/// A block with no escape starts a long plain run: it is copied with the run after it up to the
/// next backslash (found with `memchr`), in one copy, and so on while the runs are a block long
/// or longer; then the blocks go on after the escape that ends the last run.
#[inline(always)]
fn decode_blocks(src: &[u8], at: usize, r: &[u8], out: &mut Vec<u8>, alike: &mut bool) -> usize {
    let end = r.len() - at;
    // `out` holds the decoded text of `src[..s]`; `s` is `base`, or one byte after it when the
    // block's first byte ends an escape of the block before (`escaped`).
    let mut s = 0;
    let mut base = 0;
    let mut escaped = false;
    loop {
        if s >= end {
            return at + s;
        }
        let Some(block) = src.get(base..).and_then(<[u8]>::first_chunk::<128>) else {
            return at + s;
        };
        let (mut escapes, next_escaped) = escape_starts(lanes::backslashes64(block, 0), escaped);
        if escapes == 0 {
            // A long plain run (prose has an escape every few hundred bytes): run by run, each
            // to the next backslash (which starts an escape), found with `memchr` and copied
            // whole, for as long as the runs are a block long.
            let mut from = base + 64;
            loop {
                let stop = match src[..end].get(from..) {
                    Some(rest) => from + memchr::memchr(b'\\', rest).unwrap_or(rest.len()),
                    None => end,
                };
                out.extend_from_slice(&src[s..stop]);
                if stop >= end {
                    return at + end;
                }
                let long = stop - s >= 64;
                let plain = src
                    .get(stop + 1)
                    .map_or(0, |&c| PLAIN_ESCAPES[usize::from(c)]);
                s = stop
                    + if plain != 0 {
                        out.push(plain);
                        2
                    } else {
                        decode_escape(r, at + stop, out, alike)
                    };
                if !long || s >= end {
                    break;
                }
                from = s;
            }
            (base, escaped) = (s, false);
            continue;
        }
        let w0 = out.len();
        out.extend_from_slice(&[0u8; 128]);
        let window = out[w0..]
            .first_chunk_mut::<128>()
            .expect("128 bytes were just appended");
        // Within the block and the window: the run from `from` goes to `o`. At an escape `p`,
        // `o <= from <= p < 64`: the `& 63` below change no index, and spare the bounds checks.
        let mut from = s - base;
        let mut o = 0;
        let mut rare = None;
        while escapes != 0 {
            let p = escapes.trailing_zeros() as usize;
            escapes &= escapes - 1;
            let (to, run) = (o & 63, from & 63);
            window[to..to + 64].copy_from_slice(&block[run..run + 64]);
            o += p - from;
            let plain = PLAIN_ESCAPES[usize::from(block[p + 1])];
            if plain == 0 {
                rare = Some(p);
                break;
            }
            window[o & 63] = plain;
            o += 1;
            from = p + 2;
        }
        if let Some(p) = rare {
            out.truncate(w0 + o);
            s = base + p + decode_escape(r, at + base + p, out, alike);
            (base, escaped) = (s, false);
            continue;
        }
        let stop = (end - base).min(64);
        if from < stop {
            window[o..o + 64].copy_from_slice(&block[from..from + 64]);
            o += stop - from;
            from = stop;
        }
        out.truncate(w0 + o);
        s = base + from;
        base += 64;
        escaped = next_escaped;
    }
}

/// Writes the text of the escape at `r[i]` onto `out` and returns its raw length: any escape,
/// though [`decode_blocks`] asks only about `\u`, `\b`, `\f` and what is no escape.
#[inline(never)]
fn decode_escape(r: &[u8], i: usize, out: &mut Vec<u8>, alike: &mut bool) -> usize {
    // Only `\u` escapes have a length to work out.
    let raw_len = match r.get(i + 1) {
        Some(b'u') => escape_lengths(&r[i..]).0,
        _ => 2,
    };
    match r.get(i + 1) {
        Some(b'n') => out.push(b'\n'),
        Some(b't') => out.push(b'\t'),
        Some(b'r') => out.push(b'\r'),
        Some(b'b') => {
            out.push(0x08);
            *alike = false;
        }
        Some(b'f') => {
            out.push(0x0c);
            *alike = false;
        }
        Some(b'u') if raw_len == 12 => {
            let hi = u32::from(hex4(&r[i + 2..i + 6]));
            let lo = u32::from(hex4(&r[i + 8..i + 12]));
            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
            push_char(out, char::from_u32(c).unwrap_or('\u{FFFD}'));
            *alike = false;
        }
        Some(b'u') if raw_len == 6 => {
            let unit = u32::from(hex4(&r[i + 2..i + 6]));
            push_char(out, char::from_u32(unit).unwrap_or('\u{FFFD}'));
            *alike &= !(0xD800..=0xDFFF).contains(&unit);
        }
        // `\"`, `\\`, `\/`.
        Some(&c) if c.is_ascii() => out.push(c),
        Some(&c) => push_char(out, char::from(c)),
        None => {}
    }
    raw_len
}

/// `doc` (JSON) with its string escapes decoded (`\n` as a line break, `\u00e9` as `é`), for
/// counting names: not JSON any more, and only read. Borrowed when `doc` has no escape. `\b`,
/// `\f`, a lone surrogate and a cut escape read as spaces. Plain runs are copied as
/// [`copy_plain`] says: a tool result's text block has an escape every few bytes. (The text
/// block itself is mostly not read here, but taken from its decoding: [`document_text_with`].)
pub(crate) fn document_text(doc: &str) -> Cow<'_, str> {
    let b = doc.as_bytes();
    let Some(first) = memchr::memchr(b'\\', b) else {
        return Cow::Borrowed(doc);
    };
    let mut out: Vec<u8> = Vec::with_capacity(doc.len() + 16);
    out.extend_from_slice(&b[..first]);
    // `i` is at a backslash on every turn.
    let mut i = first;
    while i < b.len() {
        match b.get(i + 1) {
            Some(b'n') => out.push(b'\n'),
            Some(b'r') => out.push(b'\r'),
            Some(b't') => out.push(b'\t'),
            Some(b'b' | b'f') => out.push(b' '),
            Some(&c) if c.is_ascii() && c != b'u' => out.push(c),
            Some(_) => {
                // `\u` or a character past ASCII. After the (ASCII) backslash: a character
                // boundary.
                let mut chars = doc[i + 1..].chars();
                match chars.next() {
                    Some('u') => push_char(&mut out, unicode_escape(&mut chars).unwrap_or(' ')),
                    Some(c) => push_char(&mut out, c),
                    None => {}
                }
                i = b.len() - chars.as_str().len();
                i = copy_plain(b, i, &mut out);
                continue;
            }
            None => {}
        }
        i = copy_plain(b, (i + 2).min(b.len()), &mut out);
    }
    Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

/// [`document_text`] of `doc`, taking the text of some of its string literals from `kept`:
/// each the range of a literal's body in `doc` (in document order) and the text
/// [`document_text`] reads there, as [`decode_body_noting`] gives it when it says the two read
/// it alike. A tool result's text block is decoded by the walk that reads it, and not again
/// for counting names in it; the longest kept text is grown into the whole, in place when its
/// spare capacity (the escapes it lost) holds the rest. Also gives where each kept text stands
/// in the whole, in their order.
pub(crate) fn document_text_with(
    doc: &str,
    kept: Vec<(Range<usize>, String)>,
) -> (Cow<'_, str>, Vec<usize>) {
    let Some(longest) = (0..kept.len()).max_by_key(|&k| kept[k].1.len()) else {
        return (document_text(doc), Vec::new());
    };
    let mut out = String::new();
    let mut homes = Vec::with_capacity(kept.len());
    let mut at = 0;
    // Literal bodies start and end beside a quote, so no escape is cut.
    for (k, (body, decoded)) in kept.into_iter().enumerate() {
        out.push_str(&document_text(&doc[at..body.start]));
        homes.push(out.len());
        if k == longest {
            let before = std::mem::replace(&mut out, decoded);
            out.insert_str(0, &before);
        } else {
            out.push_str(&decoded);
        }
        at = body.end;
    }
    out.push_str(&document_text(&doc[at..]));
    (Cow::Owned(out), homes)
}

/// The character of a `\uXXXX` escape whose `u` was just read (a surrogate pair's low half read
/// too); `None` for a lone surrogate or bad hex, whose digits are consumed all the same.
fn unicode_escape(chars: &mut std::str::Chars<'_>) -> Option<char> {
    let hex: String = chars.by_ref().take(4).collect();
    match u32::from_str_radix(&hex, 16).ok()? {
        // A surrogate pair: the low half follows as `\uXXXX`.
        hi @ 0xD800..=0xDBFF => {
            let rest = chars.as_str();
            let lo = rest
                .strip_prefix("\\u")
                .and_then(|r| r.get(..4))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .filter(|lo| (0xDC00..=0xDFFF).contains(lo))?;
            *chars = rest[6..].chars();
            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
        }
        u => char::from_u32(u),
    }
}

/// Where the first backslash in `r` is (`r.len()` if none): the first sixteen bytes with SSE2,
/// then `memchr` (see [`copy_plain`]). The old [`RawOffsets`], kept as the test oracle, found
/// its plain runs with it.
#[cfg(test)]
fn find_backslash(r: &[u8]) -> usize {
    let hits = lanes::backslashes(r, 0, false);
    if hits != 0 {
        return hits.trailing_zeros() as usize;
    }
    let from = r.len().min(16);
    from + memchr::memchr(b'\\', &r[from..]).unwrap_or(r.len() - from)
}

/// Where the first quote or backslash in `r` is, if any: the first sixteen bytes with SSE2,
/// then `memchr2` (see [`copy_plain`]). The member walk that `mcp/classify/reference.rs` keeps
/// as a test oracle reads string bodies with it.
#[cfg(test)]
#[inline]
pub(crate) fn quote_or_backslash(r: &[u8]) -> Option<usize> {
    let hits = lanes::backslashes(r, 0, true);
    if hits != 0 {
        return Some(hits.trailing_zeros() as usize);
    }
    let from = r.len().min(16);
    memchr::memchr2(b'"', b'\\', &r[from..]).map(|p| from + p)
}

/// Appends `c`'s UTF-8 bytes.
fn push_char(out: &mut Vec<u8>, c: char) {
    let mut buf = [0; 4];
    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
}

/// Copies `r`'s bytes from `from` up to the next backslash (or the end) onto `out`, and returns
/// where it stopped. Most runs in a text block that holds JSON are a few bytes (a key, a quote,
/// an indent), where `memchr`'s set-up and a `memcpy` call cost more than the run: so the first
/// sixteen bytes are searched with SSE2 and copied whole, the output then cut back to the
/// backslash, and only a longer run goes to `memchr` and a bulk copy. (`out` has room for
/// sixteen bytes past the decoded text: see [`document_text`].) [`decode_body_noting`] read
/// bodies with it before it read them 64 bytes a step.
#[inline]
fn copy_plain(r: &[u8], from: usize, out: &mut Vec<u8>) -> usize {
    let mut i = from;
    if let Some(chunk) = r.get(i..i + 16) {
        let hits = lanes::backslashes(r, i, false);
        out.extend_from_slice(chunk);
        if hits != 0 {
            let at = hits.trailing_zeros() as usize;
            out.truncate(out.len() - 16 + at);
            return i + at;
        }
        i += 16;
    }
    let rest = &r[i..];
    let run = memchr::memchr(b'\\', rest).unwrap_or(rest.len());
    out.extend_from_slice(&rest[..run]);
    i + run
}

/// Appends `s` escaped for the inside of a JSON string literal (no quotes).
pub(crate) fn encode_body_into(s: &str, out: &mut String) {
    let bytes = s.as_bytes();
    let mut last = 0;
    // The bytes to escape are the string stops (`string_stop`: sixteen bytes a step, 64 in
    // long runs).
    while let Some(i) = string_stop(bytes, last) {
        let b = bytes[i];
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            _ => None,
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
}

/// Maps offsets in a literal's decoded text to offsets in its raw (escaped) body, so a span
/// found in the decoded text can be replaced in the raw body and every other byte, escapes
/// included, is copied exactly. Offsets must be asked for in increasing order and lie on
/// character boundaries of the decoded text.
#[derive(Debug)]
pub(crate) struct RawOffsets<'a> {
    raw: &'a [u8],
    raw_at: usize,
    /// How many bytes shorter than `raw[..raw_at]` its decoded text is (escapes only shorten).
    shrink: usize,
    /// The end of the 64-byte block the last answer was in (zero for none), and the escapes of
    /// it not yet read ([`escape_starts`], at `raw_at` or after it): the spans of a long text
    /// block are close together, several to a block. Or, with no escapes, the end of the plain
    /// run the last answer was in (the next backslash).
    until: usize,
    escapes: u64,
}

impl<'a> RawOffsets<'a> {
    /// A map over a literal's raw body (between the quotes).
    pub(crate) fn new(raw_body: &'a str) -> Self {
        RawOffsets {
            raw: raw_body.as_bytes(),
            raw_at: 0,
            shrink: 0,
            until: 0,
            escapes: 0,
        }
    }

    /// The raw offset of decoded offset `target`.
    ///
    /// Reads on from where the last answer was, 64 bytes a step: the escapes of a step come
    /// from its mask of backslashes ([`escape_starts`]), and what is before an escape decodes to
    /// itself, so `target` is as many bytes after it in the raw body as the escapes before it
    /// took away. A `\u` escape has its lengths worked out ([`escape_lengths`]), and the next
    /// step starts after it (a surrogate pair's second escape is part of it).
    #[inline]
    pub(crate) fn raw(&mut self, target: usize) -> usize {
        // Most often, on a long text block, `target` is before the next escape (the end of a span
        // whose start was asked for last), or in the plain run the last answer was in.
        let t = target + self.shrink;
        let next = match self.escapes {
            0 => self.until.min(self.raw.len()),
            e => self.until - 64 + e.trailing_zeros() as usize,
        };
        if t >= self.raw_at && t <= next {
            self.raw_at = t;
            return t;
        }
        self.raw_on(target)
    }

    /// [`RawOffsets::raw`], read on past an escape or a block.
    #[inline(never)]
    fn raw_on(&mut self, target: usize) -> usize {
        let (raw, len) = (self.raw, self.raw.len());
        let mut raw_at = self.raw_at;
        // Where `target` is in the raw body if no escape comes before it.
        let mut t = target + self.shrink;
        let (mut until, mut escapes) = (self.until, self.escapes);
        'steps: while t > raw_at && raw_at < len {
            if raw_at >= until {
                // `raw_at` is at no escape's second byte: a block's escapes are read afresh.
                escapes = escape_starts(lanes::backslashes64(raw, raw_at), false).0;
                until = raw_at + 64;
                if escapes == 0 && t > until && until < len {
                    // A long plain run (prose has an escape every few hundred bytes): it goes
                    // on to the next backslash, found with `memchr` and kept for the next spans.
                    until += memchr::memchr(b'\\', &raw[until..]).unwrap_or(len - until);
                }
            }
            while escapes != 0 {
                // `escapes` is a block's, and the block ends at `until`.
                let p = until - 64 + escapes.trailing_zeros() as usize;
                if t <= p {
                    raw_at = t;
                    break 'steps;
                }
                escapes &= escapes - 1;
                // Only a `\u` escape has a length to work out: a text block's escapes are
                // mostly `\"` and `\n`.
                if raw.get(p + 1) == Some(&b'u') {
                    let (raw_len, decoded_len) = escape_lengths(&raw[p..]);
                    raw_at = p + raw_len;
                    t += raw_len - decoded_len;
                    (until, escapes) = (0, 0);
                    continue 'steps;
                }
                raw_at = p + 2;
                t += 1;
            }
            // No escape in the rest of the block.
            let end = until.min(len);
            if t <= end {
                raw_at = raw_at.max(t);
                break;
            }
            raw_at = raw_at.max(end);
        }
        (self.raw_at, self.shrink) = (raw_at, t - target);
        (self.until, self.escapes) = (until, escapes);
        raw_at
    }
}

/// The raw and decoded byte lengths of the escape at the start of `r` (the lexer has
/// validated it).
fn escape_lengths(r: &[u8]) -> (usize, usize) {
    if r.get(1) != Some(&b'u') || r.len() < 6 {
        return (2, 1);
    }
    let unit = hex4(&r[2..6]);
    if (0xD800..0xDC00).contains(&unit) && r.len() >= 12 && r[6] == b'\\' && r[7] == b'u' {
        let low = hex4(&r[8..12]);
        if (0xDC00..0xE000).contains(&low) {
            return (12, 4);
        }
    }
    let len = char::from_u32(u32::from(unit)).map_or(3, char::len_utf8);
    (6, len)
}

/// The value of four hex digits (checked by the caller).
pub(crate) fn hex4(h: &[u8]) -> u16 {
    h.iter().fold(0u16, |acc, &b| {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            _ => b.wrapping_sub(b'A').wrapping_add(10),
        };
        (acc << 4) | u16::from(d & 0xf)
    })
}

#[cfg(test)]
mod tests;
