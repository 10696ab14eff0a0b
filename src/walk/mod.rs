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
//! JSON is rewritten in place (see `json`): literals are decoded only to be scanned; the
//! replacements are spliced into the raw (escaped) literal and encoded on their own, so every other
//! byte, escapes included, is copied exactly, and a document with no findings is returned
//! borrowed, without a copy. Every text, a plain document or a JSON string, goes through one
//! pipeline (`text`): text that holds JSON (MCP servers often return JSON as text), CSV with a
//! header that names columns, a Markdown, HTML or ASCII table, or a Python/JavaScript literal
//! repr is rewritten with its own structure, so key and column names act as hints and the
//! result stays valid; person slots, labels and `key=value` pairs count inside a tool result's
//! text as in a file. A literal holding a lone surrogate escape is scanned with U+FFFD in its
//! place, never skipped.
//!
//! JSON *numbers* under keys that name a kind held as digits (a phone, card, SSN or IBAN key:
//! `{"phone": 4155550132}`, also the numbers of an array under such a key) are scanned as the
//! same value's text would be, and what is found turns the number into a JSON **string** holding
//! the token (`{"phone": "[PHONE_1]"}`): a token is text, so the value's type changes from number
//! to string (`mcp/schema.rs` relaxes `outputSchema` for it). What the value does not cover stays
//! beside its token: `-6321628257147504965` holds a card number, and becomes `"-[CREDIT_CARD_1]"`
//! (the card's token is the one its digits get anywhere else in the session). Restoring writes the value back as
//! a string (`"4155550132"`); a server that wants a number gets a string it may refuse, which
//! fails visibly rather than leaking. Numbers under other keys are never touched.
//!
//! Replacement happens in one pass per string: a restored value that happens to look like a token
//! is written as text and never expanded again.

mod columns;
mod csv;
mod found;
pub(crate) mod json;
mod memo;
mod patch;
mod repr;
mod spans;
mod table;
mod text;
mod typed;
mod warm;
mod write;

use std::borrow::Cow;
use std::ops::Range;

pub use found::{Found, FoundValue, FoundValues};
pub use json::JsonError;
pub use warm::warm_up;
pub use write::{Layout, apply};

use spans::SpanSlots;

use crate::detect::recall::Recall;
use crate::detect::{Detector, FindContext, Fnv, KeyFacts, Kind, Span, lanes, prefilter};
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
    /// The texts of [`FoundValue`] slots, one after another (`found.rs`); empty for tokens.
    values: Sensitive<String>,
}

/// A token found outbound: a slot of [`scan_tokens_json`] / [`scan_tokens_text`] findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundTokenAt {
    /// The token.
    pub token: Token,
    /// The dotted JSON path of the string that holds it (`to`, `recipients.0`); empty for text.
    pub path: String,
    /// The revealed part written after its number (`@example.com`), if any (see
    /// [`crate::reveal`]).
    pub reveal: Option<Box<str>>,
}

impl FoundTokenAt {
    /// The token as it was written, its revealed part included.
    pub fn text(&self) -> String {
        let mut s = String::new();
        self.token.write_revealed(self.reveal.as_deref(), &mut s);
        s
    }
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
    Spans(SpanSlots),
    /// JSON literal whose decoded text is itself a document with its own pieces. Boxed, as
    /// [`Content::Number`] is: both are rare, and unboxed either makes every piece a word
    /// larger (a 5 MB text holds hundreds of thousands of pieces).
    Embedded(Box<Embedded>),
    /// JSON number whose text has spans replaced by slots: written as a string literal.
    Number(Box<SpanSlots>),
}

/// The document a JSON literal holds ([`Content::Embedded`]).
#[derive(Debug)]
struct Embedded {
    /// Whether the document is JSON (else structured text: CSV, a table, a literal repr).
    json: bool,
    pieces: Vec<Piece>,
}

// Six words: a range and a `Content` no larger than the spans it holds inline.
const _: () = assert!(std::mem::size_of::<Piece>() <= 6 * std::mem::size_of::<usize>());

impl Content {
    /// [`Content::Embedded`] of `pieces`.
    fn embedded(json: bool, pieces: Vec<Piece>) -> Self {
        Content::Embedded(Box::new(Embedded { json, pieces }))
    }
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
    /// The rewritten document could not be written out ([`Layout::write_to`]).
    #[error("cannot write the rewritten document")]
    Write(#[source] std::io::Error),
}

/// Scans a JSON document for values to tokenize.
pub fn scan_json(detector: &Detector, doc: &str) -> Result<Findings<FoundValue>, WalkError> {
    scan_json_except(detector, None, doc, &|_| false)
}

/// Scans a JSON document for values to tokenize, leaving alone the top-level string values for
/// which `skip` says yes (binary blobs the MCP layer knows are not text).
/// `recall` is the session's recalled names, if any.
pub(crate) fn scan_json_except<'d>(
    detector: &'d Detector,
    recall: Option<&'d Recall>,
    doc: &str,
    skip: &'d dyn Fn(&json::Position<'_>) -> bool,
) -> Result<Findings<FoundValue>, WalkError> {
    scan_json_known(detector, recall, doc, skip, &[])
}

/// [`scan_json_except`], told where some of `doc`'s string literals end by a reader that has
/// checked the same text (`known`, see [`json::for_each_value_known`]).
pub(crate) fn scan_json_known<'d>(
    detector: &'d Detector,
    recall: Option<&'d Recall>,
    doc: &str,
    skip: &'d dyn Fn(&json::Position<'_>) -> bool,
    known: &'d [Range<usize>],
) -> Result<Findings<FoundValue>, WalkError> {
    let mut scanner = ValueScanner::new(detector);
    scanner.skip = skip;
    scanner.recall = recall;
    scanner.known = known;
    let pieces = scanner.json_pieces(doc, 0)?;
    Ok(Findings {
        pieces,
        json: true,
        slots: scanner.slots,
        values: scanner.values,
    })
}

/// What [`scan_json_recorded`] or [`scan_text_recorded`] found call by call, for
/// [`rescan_json`] or [`rescan_text`] of the same document.
#[derive(Debug)]
pub(crate) struct ScanRecord<'doc> {
    doc: &'doc str,
    memo: memo::ScanMemo,
}

impl ScanRecord<'_> {
    /// The largest text the record holds of its own (the counted text, or the longest literal
    /// it decoded), once no scan needs it: a buffer as long as a tool result's text block,
    /// which the writer of the result takes rather than fault in a new one
    /// (`engine::Deferred`).
    pub(crate) fn into_spare(self) -> Option<String> {
        self.memo.into_spare()
    }
}

/// [`scan_json_except`], also recording what each detector call found (`memo.rs`), so that a
/// second scan of the same document with more names recalled ([`rescan_json`]) reuses it.
#[cfg(test)]
pub(crate) fn scan_json_recorded<'d, 'doc>(
    detector: &'d Detector,
    recall: Option<&'d Recall>,
    doc: &'doc str,
    skip: &'d dyn Fn(&json::Position<'_>) -> bool,
) -> Result<(Findings<FoundValue>, ScanRecord<'doc>), WalkError> {
    scan_json_recorded_known(detector, recall, doc, skip, &[])
}

/// [`scan_json_except`], also recording what each detector call found (`memo.rs`), so that a
/// second scan of the same document with more names recalled ([`rescan_json`]) reuses it; told
/// where some of `doc`'s string literals end (`known`, see [`json::for_each_value_known`]).
pub(crate) fn scan_json_recorded_known<'d, 'doc>(
    detector: &'d Detector,
    recall: Option<&'d Recall>,
    doc: &'doc str,
    skip: &'d dyn Fn(&json::Position<'_>) -> bool,
    known: &'d [Range<usize>],
) -> Result<(Findings<FoundValue>, ScanRecord<'doc>), WalkError> {
    let mut scanner = ValueScanner::new(detector);
    scanner.skip = skip;
    scanner.recall = recall;
    scanner.known = known;
    // Sized once for the whole document (see `json::strings_bound`).
    let strings = json::strings_bound(doc);
    scanner.slots = json::room_for(strings / 2);
    scanner.piece_room = strings / 2;
    scanner.memo = Some(Memo::Record(memo::ScanMemo::patchable(doc, strings)));
    let pieces = scanner.json_pieces(doc, 0)?;
    let memo = match scanner.memo.take() {
        Some(Memo::Record(memo)) => memo,
        // Not reached: the scanner records until it is done. An empty memo replays nothing.
        _ => memo::ScanMemo::new(doc),
    };
    Ok((
        Findings {
            pieces,
            json: true,
            slots: scanner.slots,
            values: scanner.values,
        },
        ScanRecord { doc, memo },
    ))
}

/// The length from which a decoded string literal of a recorded document is kept for
/// [`counted_text`]: a text block, not the short strings around it.
const KEEP_DECODED_FROM: usize = 4096;

/// How many found values ahead of the one being copied out the text is fetched
/// ([`ValueScanner::detect_classified`]): far enough that a fetch from memory is done when its
/// value's turn comes, near enough that the line is still cached.
const PREFETCH_AHEAD: usize = 8;

/// The text of the document `record` was recorded over, with its string escapes read, for
/// counting names in it ([`json::document_text`]): long literals the scan decoded are taken
/// as it decoded them, where that is the same text ([`json::decode_body_noting`]). They are
/// taken out of the record: one of them (a tool result's text block) becomes the text, so
/// that the process touches no new memory for it. The record's calls read them in that text
/// once it is handed back to [`rescan_json`] (as `counted`); without it, no patch.
pub(crate) fn counted_text<'a>(record: &mut ScanRecord<'a>) -> Cow<'a, str> {
    let (text, homes) = json::document_text_with(record.doc, record.memo.take_decoded());
    record.memo.kept_moved(homes);
    text
}

/// [`scan_json_except`] of the document `earlier` scanned, with `recall`: gives what that
/// function gives. `first` is what the earlier scan found: where only strings read as plain
/// text find something else, it is patched (`patch.rs`); otherwise the document is walked
/// again, reusing the earlier scan's spans wherever recall finds no name.
///
/// `recalled`, if given, is what `recall` finds in the document as far as the end of the last
/// span (`Recall::find_exceeding`): in the document itself, or in `counted` when given (the
/// document's text with its escapes read, [`json::document_text`]). The patch takes each
/// string's names there from it ([`memo::ScanMemo::recalled_within`]) instead of searching the
/// string again. `counted`, the text [`counted_text`] gave, is handed back in any case: the
/// decoded literals it took from `earlier` stand in it.
///
/// With the findings comes the largest text `earlier` held of its own, when patched
/// ([`ScanRecord::into_spare`]).
pub(crate) fn rescan_json<'d>(
    detector: &'d Detector,
    recall: Option<&'d Recall>,
    mut earlier: ScanRecord<'_>,
    mut first: Findings<FoundValue>,
    recalled: Option<Vec<Span>>,
    counted: Option<String>,
    skip: &'d dyn Fn(&json::Position<'_>) -> bool,
) -> Result<(Findings<FoundValue>, Option<String>), WalkError> {
    if let Some(recall) = recall {
        if let Some(spans) = recalled
            && !recall.holds_byte(b'"')
        {
            match counted {
                Some(text) => earlier.memo.set_recalled_upto_in(text, spans),
                None => earlier.memo.set_recalled_upto(earlier.doc, spans),
            }
        } else if let Some(text) = counted {
            earlier.memo.counted_back(text);
        }
        if patch::again(detector, recall, earlier.doc, &earlier.memo, &mut first).is_some() {
            return Ok((first, earlier.into_spare()));
        }
    }
    drop(first);
    Ok((rescan_json_walking(detector, recall, earlier, skip)?, None))
}

/// [`rescan_json`] by walking the document again.
pub(super) fn rescan_json_walking<'d>(
    detector: &'d Detector,
    recall: Option<&'d Recall>,
    earlier: ScanRecord<'_>,
    skip: &'d dyn Fn(&json::Position<'_>) -> bool,
) -> Result<Findings<FoundValue>, WalkError> {
    let ScanRecord { doc, mut memo } = earlier;
    memo.rewind();
    let mut scanner = ValueScanner::new(detector);
    scanner.skip = skip;
    scanner.recall = recall;
    scanner.memo = memo.is_of(doc).then_some(Memo::Replay(memo));
    let pieces = scanner.json_pieces(doc, 0)?;
    Ok(Findings {
        pieces,
        json: true,
        slots: scanner.slots,
        values: scanner.values,
    })
}

/// Scans a JSON document for values, and returns with the findings the dotted path of the
/// top-level string that holds each slot (`to`, `recipients.0.email`; a value inside an embedded
/// document gets the path of the string that embeds it). For outbound checks of raw values,
/// where the argument path decides.
///
/// `recall` is the session's recalled names, if any.
pub fn scan_json_with_paths(
    detector: &Detector,
    recall: Option<&Recall>,
    doc: &str,
) -> Result<(Findings<FoundValue>, Vec<Box<str>>), WalkError> {
    let mut scanner = ValueScanner::new(detector);
    scanner.recall = recall;
    scanner.paths = Some(Vec::new());
    let pieces = scanner.json_pieces(doc, 0)?;
    let paths = scanner.paths.take().unwrap_or_default();
    Ok((
        Findings {
            pieces,
            json: true,
            slots: scanner.slots,
            values: scanner.values,
        },
        paths,
    ))
}

/// Scans text for values to tokenize. Text that is a JSON document, CSV with a header row, a
/// table or a literal repr is scanned with its structure (and stays valid after [`apply`]);
/// the same text inside a JSON string under a key that says nothing about it (`text`) is
/// scanned the same way.
///
/// `cx.recall` (the session's recalled names) applies to every piece, structured or not.
pub fn scan_text<'d>(
    detector: &'d Detector,
    text: &str,
    cx: &FindContext<'d>,
) -> Findings<FoundValue> {
    let mut scanner = ValueScanner::new(detector);
    scanner.recall = cx.recall;
    let pieces = scanner.text_pieces(text, cx, 0);
    Findings {
        pieces,
        json: false,
        slots: scanner.slots,
        values: scanner.values,
    }
}

/// [`scan_text`], also recording what each detector call found (`memo.rs`), so that a second
/// scan of the same text with more names recalled ([`rescan_text`]) reuses it.
pub(crate) fn scan_text_recorded<'d, 'doc>(
    detector: &'d Detector,
    text: &'doc str,
    cx: &FindContext<'d>,
) -> (Findings<FoundValue>, ScanRecord<'doc>) {
    let mut scanner = ValueScanner::new(detector);
    scanner.recall = cx.recall;
    scanner.memo = Some(Memo::Record(memo::ScanMemo::new(text)));
    let pieces = scanner.text_pieces(text, cx, 0);
    let memo = match scanner.memo.take() {
        Some(Memo::Record(memo)) => memo,
        // Not reached: the scanner records until it is done. An empty memo replays nothing.
        _ => memo::ScanMemo::new(text),
    };
    let findings = Findings {
        pieces,
        json: false,
        slots: scanner.slots,
        values: scanner.values,
    };
    (findings, ScanRecord { doc: text, memo })
}

/// [`scan_text`] of the text `earlier` scanned, with `cx` (more names recalled): gives what that
/// function gives, reusing the earlier scan's candidates call by call. `recalled`, if given, is
/// what `cx.recall` finds in that whole text (`Recall::find`), which a call over the whole text
/// then takes instead of searching again. `first`, what the earlier scan found, is spent: its
/// slots and their texts are emptied and filled again, so that the second scan writes to
/// memory the process has already touched (a long text's slots are megabytes).
pub(crate) fn rescan_text<'d>(
    detector: &'d Detector,
    earlier: ScanRecord<'_>,
    cx: &FindContext<'d>,
    recalled: Option<Vec<Span>>,
    first: Findings<FoundValue>,
) -> Findings<FoundValue> {
    let ScanRecord { doc, mut memo } = earlier;
    memo.rewind();
    if let Some(spans) = recalled {
        memo.set_recalled(doc, spans);
    }
    let Findings {
        pieces,
        mut slots,
        mut values,
        ..
    } = first;
    drop(pieces);
    slots.clear();
    values.expose_mut().clear();
    let mut scanner = ValueScanner::new(detector);
    scanner.slots = slots;
    scanner.values = values;
    scanner.recall = cx.recall;
    scanner.memo = memo.is_of(doc).then_some(Memo::Replay(memo));
    let pieces = scanner.text_pieces(doc, cx, 0);
    Findings {
        pieces,
        json: false,
        slots: scanner.slots,
        values: scanner.values,
    }
}

/// What this scan remembers about object keys. An array of records repeats the same few keys
/// thousands of times, so per distinct key (compared exactly) the scan keeps:
///
/// - the [`KeyFacts`] the detector derives from it as the key of a value (a phone key, an SSN
///   key, a name key), worked out once instead of once per value;
/// - whether the key itself, scanned as text, was found clean, per embedding depth: a key is
///   scanned with no context and the detector is a pure function of the text (and the depth),
///   so a key seen clean before is clean again.
///
/// Only short keys are remembered, and only a bounded number of them (the table is hashed with
/// FNV; its size bounds what a document crafted to collide can cost).
const KEY_MEMO_MAX_LEN: usize = 64;
const KEY_MEMO_ENTRIES: usize = 256;
// `KeyMemo::clean` has one bit per embedding depth.
const _: () = assert!(MAX_EMBED_DEPTH < 8);

#[derive(Clone, Copy, Default)]
struct KeyMemo {
    /// The facts, once worked out.
    facts: Option<KeyFacts>,
    /// Bit `d`: the key as text was found clean at embedding depth `d`.
    clean: u8,
}

type KeyMemos = std::collections::HashMap<Box<str>, KeyMemo, std::hash::BuildHasherDefault<Fnv>>;

struct ValueScanner<'d> {
    detector: &'d Detector,
    slots: Vec<FoundValue>,
    /// The texts of `slots` (`found.rs`).
    values: Sensitive<String>,
    spans: Vec<Span>,
    keys: KeyMemos,
    /// The last key [`Self::key_facts`] answered for, and its facts.
    last_key: Option<(String, KeyFacts)>,
    /// Top-level string values to leave alone.
    skip: &'d dyn Fn(&json::Position<'_>) -> bool,
    /// Where some string literals of the top-level document end, as a reader of the same text
    /// found ([`json::for_each_value_known`]); empty when not known.
    known: &'d [Range<usize>],
    /// When asked for: the path of each slot's top-level string, and the current one.
    paths: Option<Vec<Box<str>>>,
    path: Box<str>,
    /// The session's recalled names, passed to every detector call.
    recall: Option<&'d Recall>,
    /// Recording this scan's detector calls, or replaying an earlier scan's (`memo.rs`).
    memo: Option<Memo>,
    /// The last string [`Self::string_content`] read was read as plain text.
    last_flat: bool,
    /// While a top-level document's string is read: where its literal starts (sites of a JSON
    /// document it holds are noted under it, [`memo::Site::outer`]).
    reading_lit: Option<usize>,
    /// Tests: [`Self::facts_under`] always takes the general path.
    general_key_facts: bool,
    /// At most how many pieces a JSON document of the scan holds, when known ahead (a piece
    /// per value at most: half the document's [`json::strings_bound`]); 0 when not.
    piece_room: usize,
}

enum Memo {
    Record(memo::ScanMemo),
    Replay(memo::ScanMemo),
}

impl<'d> ValueScanner<'d> {
    fn new(detector: &'d Detector) -> Self {
        ValueScanner {
            detector,
            slots: Vec::new(),
            values: Sensitive::default(),
            spans: Vec::with_capacity(8),
            keys: KeyMemos::default(),
            last_key: None,
            skip: &|_| false,
            known: &[],
            paths: None,
            path: Box::from(""),
            recall: None,
            memo: None,
            last_flat: false,
            reading_lit: None,
            general_key_facts: false,
            piece_room: 0,
        }
    }

    /// While recording a top-level document, or a JSON document one of its strings holds, how
    /// many calls are recorded (see [`memo::Site`]).
    fn recorded_calls(&self, depth: usize) -> Option<usize> {
        match &self.memo {
            Some(Memo::Record(memo))
                if depth == 0 || (depth == 1 && self.reading_lit.is_some()) =>
            {
                Some(memo.calls())
            }
            _ => None,
        }
    }

    /// How many sites the memo being recorded holds.
    fn noted_sites(&self) -> usize {
        match &self.memo {
            Some(Memo::Record(memo)) => memo.noted_sites(),
            _ => 0,
        }
    }

    /// Forgets the sites from the `mark`th on ([`memo::ScanMemo::forget_sites`]).
    fn forget_sites(&mut self, mark: usize) {
        if let Some(Memo::Record(memo)) = &mut self.memo {
            memo.forget_sites(mark);
        }
    }

    /// Forgets the slots (and their paths) from `mark` on: an embedded document that failed.
    fn truncate(&mut self, mark: usize) {
        if let Some(first) = self.slots.get(mark) {
            self.values.expose_mut().truncate(first.text_start());
        }
        self.slots.truncate(mark);
        if let Some(paths) = &mut self.paths {
            paths.truncate(mark);
        }
    }

    /// Remembers `memo` for `key` if the key is short and there is room.
    fn remember_key(&mut self, key: &str, memo: KeyMemo) {
        if key.len() <= KEY_MEMO_MAX_LEN && self.keys.len() < KEY_MEMO_ENTRIES {
            self.keys.insert(key.into(), memo);
        }
    }

    /// The [`KeyFacts`] of the key `key` of a value.
    fn key_facts(&mut self, key: Option<&str>) -> KeyFacts {
        let Some(key) = key else {
            return KeyFacts::default();
        };
        // The same key is often asked for several times in a row (the cells of a column,
        // a repr's values): the last answer is kept, compared by content (a short key's
        // bytes cost less than hashing it).
        if let Some((last, facts)) = &self.last_key
            && **last == *key
        {
            return *facts;
        }
        let facts = self.key_facts_uncached(key);
        self.set_last_key(key, facts);
        facts
    }

    /// [`Self::key_facts`] of a key, from the memo or worked out.
    fn key_facts_uncached(&mut self, key: &str) -> KeyFacts {
        if let Some(memo) = self.keys.get_mut(key) {
            return *memo.facts.get_or_insert_with(|| KeyFacts::of(Some(key)));
        }
        let facts = KeyFacts::of(Some(key));
        self.remember_key(
            key,
            KeyMemo {
                facts: Some(facts),
                clean: 0,
            },
        );
        facts
    }

    /// Makes `key`'s facts the last answer of [`Self::key_facts`] (compared by content, so a
    /// value under another key is answered right).
    fn set_last_key(&mut self, key: &str, facts: KeyFacts) {
        if key.len() > KEY_MEMO_MAX_LEN {
            return;
        }
        match &mut self.last_key {
            Some((last, cached)) => {
                last.clear();
                last.push_str(key);
                *cached = facts;
            }
            None => self.last_key = Some((key.to_string(), facts)),
        }
    }

    /// [`Self::string_content`] for an object key, skipping keys already found clean; with
    /// the key's facts as the key of its value (one lookup for the key and its value).
    fn key_content(&mut self, key: &str, depth: usize) -> (Option<Content>, KeyFacts) {
        let bit = 1u8 << depth;
        let facts = match self.keys.get_mut(key) {
            Some(memo) => {
                let facts = *memo.facts.get_or_insert_with(|| KeyFacts::of(Some(key)));
                if memo.clean & bit != 0 {
                    return (None, facts);
                }
                facts
            }
            None => KeyFacts::of(Some(key)),
        };
        let content = self.string_content(key, &FindContext::default(), KeyFacts::default(), depth);
        let clean = if content.is_none() { bit } else { 0 };
        match self.keys.get_mut(key) {
            Some(memo) => memo.clean |= clean,
            None => self.remember_key(
                key,
                KeyMemo {
                    facts: Some(facts),
                    clean,
                },
            ),
        }
        (content, facts)
    }

    /// The [`KeyFacts`] of the key a JSON value at `pos` in `doc` sits under. `last` is the
    /// key literal the walk of `doc` read last (its `start`) with its facts, kept only for a
    /// literal without escapes (whose raw text, which [`json::Position::key`] gives, is the
    /// text its facts are of): a value right after its key, or an element of an array under
    /// it, takes them without comparing or hashing the key ([`Self::key_facts`], the general
    /// path, and the test oracle of this one).
    #[inline]
    fn facts_under(
        &mut self,
        doc: &str,
        pos: &json::Position<'_>,
        last: Option<(usize, KeyFacts)>,
    ) -> KeyFacts {
        let Some(key) = pos.key_lit() else {
            return KeyFacts::default();
        };
        match last {
            Some((start, facts)) if start == key.start && !self.general_key_facts => facts,
            _ => self.key_facts(Some(key.raw(doc))),
        }
    }

    fn json_pieces(&mut self, doc: &str, depth: usize) -> Result<Vec<Piece>, JsonError> {
        // Sized ahead, so that a large document's list does not copy itself as it grows: for
        // the scan's bound, and no more than a value per eight bytes of this document (a key,
        // a value and their quotes), so that a small document held by a string reserves little.
        let mut pieces = json::room_for(self.piece_room.min(doc.len() / 8 + 1));
        let mut columns = columns::Columns::default();
        // What is known of the literals is known of the top-level document only.
        let known = if depth == 0 { self.known } else { &[] };
        let things = if typed::might_have_types_known(doc, known) {
            typed::thing_objects(doc)
        } else {
            Default::default()
        };
        // The key literal read last, if it has no escapes, and its facts (see
        // [`Self::facts_under`]).
        let mut last_key: Option<(usize, KeyFacts)> = None;
        json::for_each_value_known(doc, known, |lit, pos| {
            let lit = match lit {
                json::Literal::Str(lit) => lit,
                json::Literal::Number(range) => {
                    let facts = self.facts_under(doc, pos, last_key);
                    if let Some(content) =
                        self.number_content(&doc[range.clone()], pos, facts, depth)
                    {
                        pieces.push(Piece { range, content });
                    }
                    return;
                }
            };
            if lit.end - lit.start <= 2 || (depth == 0 && !lit.is_key && (self.skip)(pos)) {
                return;
            }
            if depth == 0 && self.paths.is_some() {
                self.path = pos.path().into();
            }
            // The display name of a record typed as an organisation, a place or a product
            // (`typed.rs`) is judged as an organisation's.
            let thing = !lit.is_key
                && !things.is_empty()
                && things.names(pos.key(), pos.object_start(), lit.raw(doc));
            let cx = FindContext {
                key: if lit.is_key {
                    None
                } else if thing {
                    Some("organization")
                } else {
                    pos.key()
                },
                parent_key: if lit.is_key { None } else { pos.parent_key() },
                recall: None,
            };
            let calls_before = self.recorded_calls(depth);
            let slots_before = self.slots.len();
            let decoded = lit.escaped.then(|| json::decode_noting(doc, lit));
            let text: &str = decoded
                .as_ref()
                .map_or_else(|| lit.raw(doc), |(text, _)| text.as_str());
            // A long decoded literal of the document (a tool result's text block) is kept for
            // counting names in the document's text, which would decode it again; the calls
            // that read it record their strings as slices of it, not copies.
            let keep = depth == 0
                && decoded
                    .as_ref()
                    .is_some_and(|(d, alike)| *alike && d.len() >= KEEP_DECODED_FROM);
            if keep && let Some(Memo::Record(memo)) = &mut self.memo {
                memo.reading_kept(text);
            }
            // A value's key facts, worked out once for reading it and for column evidence.
            let content;
            let mut facts = KeyFacts::default();
            if lit.is_key {
                let key_facts;
                (content, key_facts) = self.key_content(text, depth);
                if !lit.escaped {
                    last_key = Some((lit.start, key_facts));
                }
            } else {
                facts = if thing {
                    self.key_facts(cx.key)
                } else {
                    self.facts_under(doc, pos, last_key)
                };
                if depth == 0 {
                    self.reading_lit = Some(lit.start);
                }
                content = self.string_content(text, &cx, facts, depth);
                if depth == 0 {
                    self.reading_lit = None;
                }
            }
            let mut column = None;
            if !lit.is_key
                && let Some(key) = cx.key
                && pos.in_record()
                && facts.takes_column_evidence()
            {
                let is_name = match &content {
                    Some(Content::Spans(spans)) => columns::covers_name(
                        text,
                        spans
                            .iter()
                            .map(|(r, slot)| (r.len(), self.slots[*slot].kind == Kind::Name)),
                    ),
                    _ => false,
                };
                let open =
                    (content.is_none() && self.detector.column_name(text).is_some()).then(|| {
                        (
                            lit.start..lit.end,
                            self.paths.as_ref().map(|_| self.path.clone()),
                        )
                    });
                column = Some((is_name, open.is_some()));
                columns.note(cx.parent_key, key, is_name, open);
            }
            // A value read as plain text by one call: a site a second scan can patch.
            if let Some(call) = calls_before
                && !lit.is_key
                && self.last_flat
                && let Some(Memo::Record(memo)) = &mut self.memo
                && memo.calls() == call + 1
            {
                memo.note_site(memo::Site {
                    call,
                    lit: lit.start..lit.end,
                    outer: if depth == 0 { None } else { self.reading_lit },
                    slots: slots_before..self.slots.len(),
                    column,
                });
            }
            if keep
                && let Some((decoded, _)) = decoded
                && let Some(Memo::Record(memo)) = &mut self.memo
            {
                memo.keep_decoded(lit.start + 1..lit.end - 1, decoded);
            }
            if let Some(content) = content {
                pieces.push(Piece {
                    range: lit.start..lit.end,
                    content,
                });
            }
        })?;
        // Column evidence: clean values in columns of names are names.
        let mut added = false;
        for (range, path) in columns.names() {
            let lit = &doc[range.clone()];
            let body = &lit[1..lit.len() - 1];
            let text: Cow<'_, str> = if memchr::memchr(b'\\', body.as_bytes()).is_some() {
                Cow::Owned(json::decode_body(body))
            } else {
                Cow::Borrowed(body)
            };
            if let Some((s, e)) = self.detector.column_name(&text) {
                if let (Some(paths), Some(path)) = (&mut self.paths, path) {
                    paths.push(path);
                }
                let slot = FoundValue::push(&mut self.values, Kind::Name, &text[s..e], None);
                self.slots.push(slot);
                pieces.push(Piece {
                    range,
                    content: Content::Spans(SpanSlots::One([(s..e, self.slots.len() - 1)])),
                });
                added = true;
            }
        }
        if added {
            pieces.sort_by_key(|p| p.range.start);
        }
        Ok(pieces)
    }

    /// What to replace in a JSON number (see the module doc), if anything: only under a key
    /// that names a kind held as digits. `facts` are the key's ([`Self::facts_under`]).
    fn number_content(
        &mut self,
        text: &str,
        pos: &json::Position<'_>,
        facts: KeyFacts,
        depth: usize,
    ) -> Option<Content> {
        let key = pos.key()?;
        if !facts.holds_digits() {
            return None;
        }
        if depth == 0 && self.paths.is_some() {
            self.path = pos.path().into();
        }
        let cx = FindContext {
            key: Some(key),
            parent_key: pos.parent_key(),
            recall: None,
        };
        let classes = prefilter::classes(text.as_bytes());
        let spans = self.detect_classified(text, &cx, classes, &facts);
        (!spans.is_empty()).then(|| Content::Number(Box::new(spans)))
    }

    /// What to replace inside one decoded JSON string, if anything: the string goes through
    /// the one text pipeline ([`Self::document_with`]) like any other text. `facts` are
    /// `cx.key`'s ([`Self::key_facts`]).
    fn string_content(
        &mut self,
        text: &str,
        cx: &FindContext<'_>,
        facts: KeyFacts,
        depth: usize,
    ) -> Option<Content> {
        let doc = self.document_with(text, cx, facts, depth);
        self.last_flat = matches!(doc, text::Doc::Flat(_));
        match doc {
            text::Doc::Json(pieces) if !pieces.is_empty() => Some(Content::embedded(true, pieces)),
            text::Doc::Structured(pieces) if !pieces.is_empty() => {
                Some(Content::embedded(false, pieces))
            }
            text::Doc::Flat(spans) if !spans.is_empty() => Some(Content::Spans(spans)),
            _ => None,
        }
    }

    /// The pieces of a text document (the pieces of [`scan_text`]).
    fn text_pieces(&mut self, text: &str, cx: &FindContext<'_>, depth: usize) -> Vec<Piece> {
        match self.document(text, cx, depth) {
            text::Doc::Json(pieces) if pieces.is_empty() => pieces,
            text::Doc::Json(pieces) => vec![Piece {
                range: 0..text.len(),
                content: Content::embedded(true, pieces),
            }],
            text::Doc::Structured(pieces) => pieces,
            text::Doc::Flat(spans) => spans
                .into_iter()
                .map(|(range, slot)| Piece {
                    range,
                    content: Content::Slot(slot),
                })
                .collect(),
        }
    }

    /// Detects spans in `text`; returns (range, slot) pairs.
    fn detect(&mut self, text: &str, cx: &FindContext<'_>) -> SpanSlots {
        let classes = prefilter::classes(text.as_bytes());
        self.detect_classified(text, cx, classes, &KeyFacts::of(cx.key))
    }

    /// [`Self::detect`] given the [`prefilter::classes`] of `text`.
    fn detect_classified(
        &mut self,
        text: &str,
        cx: &FindContext<'_>,
        classes: u8,
        facts: &KeyFacts,
    ) -> SpanSlots {
        let cx = FindContext {
            recall: self.recall,
            ..*cx
        };
        match &mut self.memo {
            None => self
                .detector
                .detect_classified(text, &cx, classes, facts, &mut self.spans),
            Some(Memo::Record(memo)) => {
                let d = self.detector;
                d.detect_unrecalled(text, &cx, classes, facts, &mut self.spans);
                memo.record(text, &cx, classes, facts, &self.spans);
                d.finish_recalling(text, &cx, facts, &mut self.spans);
                memo.record_finals(&self.spans);
            }
            Some(Memo::Replay(memo)) => {
                // The first scan's candidates, and this scan's recall over them.
                if memo.replay_into(text, &cx, classes, facts, &mut self.spans) {
                    let recalled = memo.recalled_in(text);
                    self.detector.finish_recalling_found(
                        text,
                        &cx,
                        facts,
                        recalled,
                        &mut self.spans,
                    );
                } else {
                    self.detector
                        .detect_classified(text, &cx, classes, facts, &mut self.spans);
                }
            }
        }
        match self.spans.len() {
            0 => SpanSlots::default(),
            // Most strings hold one value: kept inline, with no list of its own.
            1 => match self.spans.pop() {
                Some(span) => SpanSlots::One([self.push_found(text, span)]),
                None => SpanSlots::default(),
            },
            n => {
                let mut out = Vec::with_capacity(n);
                if self.slots.is_empty() && self.slots.capacity() < n {
                    // Slots of an earlier scan given back emptied ([`rescan_text`]) but too
                    // few: let go first rather than grown, which would copy the whole old
                    // buffer, and the allocator can hand the same memory back, grown.
                    self.slots = Vec::new();
                }
                self.slots.reserve(n);
                let mut spans = std::mem::take(&mut self.spans);
                // A long text's values lie far apart in bytes its scans read long ago: the
                // text at a value eight ahead is fetched while this one is copied, so the
                // copies do not wait on memory one after another.
                let mut rest = spans.drain(..);
                while let Some(span) = rest.next() {
                    if let Some(ahead) = rest.as_slice().get(PREFETCH_AHEAD - 1) {
                        lanes::prefetch(text.as_bytes(), ahead.start);
                    }
                    out.push(self.push_found(text, span));
                }
                drop(rest);
                self.spans = spans;
                SpanSlots::Many(out)
            }
        }
    }

    /// Fills a new slot with the value `span` of `text`; returns the span's range and slot.
    /// (Inlined: a text document's one call can fill tens of thousands.)
    #[inline(always)]
    fn push_found(&mut self, text: &str, span: Span) -> (Range<usize>, usize) {
        if let Some(paths) = &mut self.paths {
            paths.push(self.path.clone());
        }
        let slot = self.slots.len();
        let found = FoundValue::push(
            &mut self.values,
            span.kind,
            &text[span.start..span.end],
            span.canonical,
        );
        self.slots.push(found);
        (span.start..span.end, slot)
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
        values: Sensitive::default(),
    })
}

/// Scans text for tokens to restore. Text that is a JSON document is scanned with its
/// structure, as [`scan_text`] does inbound, so restored values are escaped and the document
/// stays valid JSON.
pub fn scan_tokens_text(text: &str) -> Findings<FoundTokenAt> {
    let mut slots = Vec::new();
    if looks_like_json(text) {
        if let Ok(inner) = token_json_pieces(text, "", &mut slots, 1) {
            let pieces = if inner.is_empty() {
                inner
            } else {
                vec![Piece {
                    range: 0..text.len(),
                    content: Content::embedded(true, inner),
                }]
            };
            return Findings {
                pieces,
                json: false,
                slots,
                values: Sensitive::default(),
            };
        }
        slots.clear();
    }
    let pieces = token_text_pieces(text, "", &mut slots);
    Findings {
        pieces,
        json: false,
        slots,
        values: Sensitive::default(),
    }
}

fn token_text_pieces(text: &str, path: &str, slots: &mut Vec<FoundTokenAt>) -> Vec<Piece> {
    token::find_tokens(text)
        .map(|found| {
            slots.push(FoundTokenAt {
                token: found.to_token(),
                path: path.to_string(),
                reveal: found.reveal.map(Box::from),
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
            decoded = json::decode(doc, lit);
            &decoded
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
                Ok(inner) => Content::embedded(true, inner),
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
                    reveal: found.reveal.map(Box::from),
                });
                (found.start..found.end, slots.len() - 1)
            })
            .collect(),
    )
}

/// Token texts for minted tokens, ready for [`apply`].
pub fn token_texts(tokens: &[Token]) -> Vec<String> {
    tokens
        .iter()
        .map(|t| {
            let mut s = String::with_capacity(t.kind.as_str().len() + 8);
            t.write_to(&mut s);
            s
        })
        .collect()
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
    fn values_carry_the_path_of_their_string() {
        let config = crate::detect::DetectConfig {
            custom: vec![crate::detect::CustomKind {
                kind: "EMPLOYEE_ID".into(),
                pattern: r"EMP-\d{6}".into(),
                validator: None,
                context: vec![],
                json_keys: vec![],
            }],
            ..crate::detect::DetectConfig::default()
        };
        let d = Detector::new(&config).unwrap();
        let doc = r#"{"to":["x EMP-123456"],"body":{"text":"EMP-654321 and EMP-111111"},"embedded":"{\"a\":\"EMP-222222\"}"}"#;
        let (f, paths) = scan_json_with_paths(&d, None, doc).unwrap();
        assert_eq!(f.slots.len(), 4);
        let paths: Vec<&str> = paths.iter().map(|p| &**p).collect();
        assert_eq!(paths, ["to.0", "body.text", "body.text", "embedded"]);
        // Without asking, no paths are kept (the inbound path allocates nothing for them).
        assert_eq!(scan_json(&d, doc).unwrap().slots.len(), 4);
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
    fn escapes_outside_replaced_spans_are_kept_exactly() {
        let doc = r#"{"a":"caf\u00e9 \ud83d\ude00 [EMAIL_1]\n\/x","b":"[NAME_1]"}"#;
        let f = scan_tokens_json(doc).unwrap();
        let out = apply(doc, &f, &["Zo\u{e9} \"Q\"", "\\"]).unwrap();
        assert_eq!(
            out,
            r#"{"a":"caf\u00e9 \ud83d\ude00 Zoé \"Q\"\n\/x","b":"\\"}"#
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["a"], "café 😀 Zoé \"Q\"\n/x");
    }

    #[test]
    fn literals_with_lone_surrogates_are_still_scanned() {
        // Regression (found by fuzzing): a literal holding a lone surrogate escape was skipped,
        // so a forged token beside it reached the model untouched.
        let d = Detector::with_defaults();
        let doc = r#"{"note":"[EMAIL_1]\ud83d\uee00"}"#;
        let f = scan_json(&d, doc).unwrap();
        let out = apply(doc, &f, &fake_tokens(&f)).unwrap();
        assert_eq!(out, r#"{"note":"[LITERAL_1]\ud83d\uee00"}"#);
        let back = scan_tokens_json(&out).unwrap();
        assert_eq!(apply(&out, &back, &["[EMAIL_1]"]).unwrap(), doc);
    }

    #[test]
    fn restoring_text_that_is_json_escapes_values() {
        // Regression (found by fuzzing): text that is a JSON document was tokenized with its
        // structure but restored as plain text, writing a raw newline into a JSON string.
        let doc = r#"{"author": "[NAME_1]", "n": 1}"#;
        let f = scan_tokens_text(doc);
        let out = apply(doc, &f, &["Bo\n \"Ek\""]).unwrap();
        assert_eq!(out, r#"{"author": "Bo\n \"Ek\"", "n": 1}"#);
        assert_eq!(f.slots[0].path, "author");
        // Not JSON: plain replacement.
        let f = scan_tokens_text("{[NAME_1]");
        assert_eq!(apply("{[NAME_1]", &f, &["Bo\n"]).unwrap(), "{Bo\n");
    }

    #[test]
    fn embedded_documents_keep_their_bytes_outside_replacements() {
        // Outer-level escapes (`\n`, `\/`, `\u00e9`) outside the replaced inner literal stay
        // exactly as they were; the replacement is encoded for both levels.
        let doc = r#"{"t":"{\"a\":\"[EMAIL_1]\",\n\"b\":\"caf\\u00e9 \/ \u00e9\"}","n":[1.0]}"#;
        let f = scan_tokens_json(doc).unwrap();
        assert_eq!(f.slots.len(), 1);
        let out = apply(doc, &f, &["Q\"z"]).unwrap();
        assert_eq!(
            out,
            r#"{"t":"{\"a\":\"Q\\\"z\",\n\"b\":\"caf\\u00e9 \/ \u00e9\"}","n":[1.0]}"#
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let inner: serde_json::Value = serde_json::from_str(v["t"].as_str().unwrap()).unwrap();
        assert_eq!(inner["a"], "Q\"z");
        assert_eq!(inner["b"], "caf\u{e9} / \u{e9}");
    }

    #[test]
    fn repeated_keys_are_scanned_until_found_clean() {
        // Keys found clean are remembered; a key holding something is found every time.
        let d = Detector::with_defaults();
        let doc = r#"[{"id":1,"[EMAIL_1]":2},{"id":3,"[EMAIL_1]":4},{"id":5,"x":{"[EMAIL_1]":6}}]"#;
        let f = scan_json(&d, doc).unwrap();
        assert_eq!(f.slots.len(), 3);
        let out = apply(doc, &f, &fake_tokens(&f)).unwrap();
        assert_eq!(
            out,
            r#"[{"id":1,"[LITERAL_1]":2},{"id":3,"[LITERAL_2]":4},{"id":5,"x":{"[LITERAL_3]":6}}]"#
        );
    }

    #[test]
    fn text_that_is_json_keeps_its_braces() {
        // Regression: a text document that is a JSON object was written as if it were one
        // string literal (its outer braces dropped) and hit a debug assertion.
        let d = Detector::with_defaults();
        let doc = r#"{"author": "Bo Ek", "note": "]"}"#;
        let f = scan_text(&d, doc, &FindContext::default());
        assert_eq!(f.slots.len(), 1);
        let out = apply(doc, &f, &fake_tokens(&f)).unwrap();
        assert_eq!(out, r#"{"author": "[NAME_1]", "note": "]"}"#);
    }

    #[test]
    fn csv_after_a_malformed_record_is_still_scanned() {
        // Regression: CSV reading stopped at a record with text after a closing quote and the
        // rest of the document was never searched, so a forged token passed through.
        let d = Detector::with_defaults();
        let doc = "name,email\nAnn,a@x.io\n\"Lee\"x,b\nrest,[NAME_1]\n";
        let f = scan_text(&d, doc, &FindContext::default());
        let out = apply(doc, &f, &fake_tokens(&f)).unwrap();
        assert!(out.contains("rest,[LITERAL_"), "{out}");
        assert!(!out.contains("rest,[NAME_1]"), "{out}");
    }

    #[test]
    fn numbers_under_digit_keys_become_token_strings() {
        let d = Detector::with_defaults();
        let doc = r#"{"phone": 4155550132, "card_number": 4111111111111111, "ssn": 536228146, "id": 4155550132, "n": -1.5, "phones": [4155550133, "x"], "inner": "{\"mobile\": 4155550134}"}"#;
        let f = scan_json(&d, doc).unwrap();
        let kinds: Vec<Kind> = f.slots.iter().map(|s| s.kind.clone()).collect();
        assert_eq!(
            kinds,
            [
                Kind::Phone,
                Kind::CreditCard,
                Kind::UsSsn,
                Kind::Phone,
                Kind::Phone
            ]
        );
        let out = apply(doc, &f, &fake_tokens(&f)).unwrap();
        assert_eq!(
            out,
            r#"{"phone": "[PHONE_1]", "card_number": "[CREDIT_CARD_2]", "ssn": "[US_SSN_3]", "id": 4155550132, "n": -1.5, "phones": ["[PHONE_4]", "x"], "inner": "{\"mobile\": \"[PHONE_5]\"}"}"#
        );
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let inner: serde_json::Value = serde_json::from_str(v["inner"].as_str().unwrap()).unwrap();
        assert_eq!(inner["mobile"], "[PHONE_5]");
        // Restored, the value comes back as a string.
        let back = scan_tokens_json(&out).unwrap();
        let values: Vec<&str> = f.found_iter().map(|s| *s.value.expose()).collect();
        let restored: serde_json::Value =
            serde_json::from_str(&apply(&out, &back, &values).unwrap()).unwrap();
        assert_eq!(restored["phone"], "4155550132");
        assert_eq!(restored["ssn"], "536228146");
        // With paths too.
        let (f, paths) = scan_json_with_paths(&d, None, doc).unwrap();
        assert_eq!(f.slots.len(), 5);
        assert_eq!(&*paths[3], "phones.0");
    }

    /// What a scan of `doc` found, values included, with [`ValueScanner::facts_under`]'s
    /// shortcut or without.
    fn scanned(d: &Detector, doc: &str, general: bool) -> String {
        let mut scanner = ValueScanner::new(d);
        scanner.general_key_facts = general;
        let pieces = scanner.json_pieces(doc, 0);
        let values: Vec<_> = scanner
            .slots
            .iter()
            .map(|s| {
                (
                    s.kind.clone(),
                    s.read(&scanner.values).value.expose().to_string(),
                )
            })
            .collect();
        format!("{pieces:?} {values:?}")
    }

    #[test]
    fn values_take_their_keys_facts_as_the_general_path_gives_them() {
        let d = Detector::with_defaults();
        // Keys with and without escapes, empty, long, repeated, above arrays and objects;
        // values that are strings, numbers, arrays and embedded documents.
        let keys = [
            "phone",
            "ph\\u006fne",
            "name",
            "company",
            "",
            "ssn",
            "text",
            "card_number",
            "x",
            "a_key_longer_than_the_memo_keeps_a_key_longer_than_the_memo_keeps_ok",
        ];
        let values = [
            "\"+1 415-555-0132\"",
            "4155550132",
            "\"Ysolde Brackwater\"",
            "\"Acme Corp\"",
            "[\"Maria Garcia\", 4155550133, \"x\"]",
            "{\"name\": \"Omar Haddad\", \"city\": \"Haddad\"}",
            "\"{\\\"phone\\\": 4155550134, \\\"name\\\": \\\"Bo Ek\\\"}\"",
            "536228146",
            "\"\"",
            "true",
        ];
        let mut seed = 7u64;
        let mut next = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..300 {
            let mut doc = String::from("[");
            for r in 0..1 + next(4) {
                if r > 0 {
                    doc.push(',');
                }
                doc.push('{');
                for m in 0..1 + next(4) {
                    if m > 0 {
                        doc.push(',');
                    }
                    let key = keys[next(keys.len())];
                    let value = values[next(values.len())];
                    doc.push_str(&format!("\"{key}\": {value}"));
                }
                doc.push('}');
            }
            doc.push(']');
            assert!(
                serde_json::from_str::<serde_json::Value>(&doc).is_ok(),
                "{doc}"
            );
            assert_eq!(scanned(&d, &doc, false), scanned(&d, &doc, true), "{doc}");
        }
    }

    #[test]
    fn wrong_replacement_count_is_an_error() {
        let f = scan_tokens_text("[EMAIL_1]");
        assert!(apply("[EMAIL_1]", &f, &Vec::<String>::new()).is_err());
    }
}
