//! What one scan of a JSON document or a text found, call by call, so that a second scan of the
//! same document with more names recalled costs little more than its walk and recall.
//!
//! The engine scans a tool result, learns the names it found, and when those names occur in the
//! document where the scan did not find them it scans the document again with them recalled
//! (`Engine::recall_again`). The second scan makes the same detector calls as the first, in the
//! same order (the walk is a function of the document and of what the calls return), and a
//! detector call reads the session's recall only at its end: every recognizer's candidates come
//! first and read no recall (`Detector::detect_unrecalled`), then recall's names are added and the
//! overlaps resolved (`Detector::finish_recalling`). So the memo keeps each call's candidates;
//! for each call of the second scan whose inputs are those of the first scan's call at the same
//! position (text, key, parent key, classes, key facts; compared exactly), the recorded candidates
//! plus the new recall give exactly what the whole call would. Once a call's inputs differ from
//! the recorded one's (a span recall added changed what the walk does next), the rest of the scan
//! runs the detector throughout.
//!
//! The strings a call was given are kept without copying where possible ([`Stored`]): a slice of
//! the document, or of a long decoded literal the memo keeps (a tool result's text block, which
//! can be megabytes). Counting names later builds the document's text out of that literal, and
//! hands it back with the second scan; the memo then reads those strings there. Other decoded
//! strings are copied.

use std::ops::Range;

use super::json;
use crate::detect::{FindContext, KeyFacts, Span};

/// A string a recorded call was given: a slice of the document (by offset, compared by address),
/// a slice of a long decoded literal the memo keeps ([`ScanMemo::keep_decoded`]), or a copy in
/// [`ScanMemo::texts`].
///
/// Offsets, lengths and the ranges of [`Call`] are `u32`: a memo holds a call for every string
/// of a document (40,000 for a 2 MB tool result), and each byte of it is memory the process
/// faults in once. A document, copy or candidate list past `u32::MAX` leaves the memo
/// [`ScanMemo::full`]: nothing more is recorded and nothing replays, so the second scan runs
/// the detector throughout (correct, only slower).
#[derive(Debug, Clone, Copy)]
enum Stored {
    Doc {
        at: u32,
        len: u32,
    },
    Copy {
        at: u32,
        len: u32,
    },
    /// `at` counts from the start of the first kept text, the kept texts laid end to end
    /// ([`ScanMemo::kept_text`]).
    Kept {
        at: u32,
        len: u32,
    },
}

#[derive(Debug)]
struct Call {
    text: Stored,
    key: Option<Stored>,
    parent_key: Option<Stored>,
    classes: u8,
    facts: KeyFacts,
    /// The recognizers' candidates, before recall and overlap resolution.
    spans: Range<u32>,
    /// What the call gave: the candidates with recall's names, overlaps resolved;
    /// [`SAME_AS_CANDIDATES`] when that is the candidates as they are (most calls of a first
    /// scan: nothing recalled, nothing overlapping), which are then not kept twice.
    finals: Range<u32>,
}

/// [`Call::finals`] of a call whose result is its candidates. No range of kept results is
/// this one: an offset past `u32::MAX - 1` leaves the memo [`ScanMemo::full`].
const SAME_AS_CANDIDATES: Range<u32> = u32::MAX..u32::MAX;

/// `n` as a `u32` offset, if it fits.
fn small(n: usize) -> Option<u32> {
    u32::try_from(n).ok()
}

/// `r` widened back to indices.
fn wide(r: &Range<u32>) -> Range<usize> {
    r.start as usize..r.end as usize
}

/// A JSON string value read as plain text by exactly one detector call, in the document or in
/// a JSON document one of its strings holds (a tool result's text block): the parts of the
/// first scan's findings that call made, so a second scan can replace just them (`patch.rs`).
#[derive(Debug, Clone)]
pub(super) struct Site {
    /// The call.
    pub(super) call: usize,
    /// The string literal, quotes included: in the document, or in the decoded text of the
    /// document's string literal that starts at `outer`.
    pub(super) lit: Range<usize>,
    /// Where the string literal that holds the site's JSON document starts in the document;
    /// `None` for a site in the document itself.
    pub(super) outer: Option<usize>,
    /// Its slots.
    pub(super) slots: Range<usize>,
    /// What it told the document's column evidence, if it was noted: whether a name covers
    /// most of it, and whether it was left open (clean and shaped like a name).
    pub(super) column: Option<(bool, bool)>,
}

/// A [`Site`] as the memo keeps it: `u32` offsets like [`Call`]'s (a JSON tool result of 2 MB
/// has 40,000 sites, each memory the process faults in), `outer` `u32::MAX` for none, and the
/// column evidence as bits (1: noted, 2: a name covers it, 4: left open).
#[derive(Debug, Clone, Copy)]
struct PackedSite {
    call: u32,
    lit: (u32, u32),
    slots: (u32, u32),
    outer: u32,
    column: u8,
}

impl PackedSite {
    /// `site` packed; `None` when an offset does not fit.
    fn of(site: &Site) -> Option<PackedSite> {
        let outer = match site.outer {
            Some(at) => small(at).filter(|&at| at != u32::MAX)?,
            None => u32::MAX,
        };
        Some(PackedSite {
            call: small(site.call)?,
            lit: (small(site.lit.start)?, small(site.lit.end)?),
            slots: (small(site.slots.start)?, small(site.slots.end)?),
            outer,
            column: site.column.map_or(0, |(is_name, open)| {
                1 | u8::from(is_name) << 1 | u8::from(open) << 2
            }),
        })
    }

    fn unpack(self) -> Site {
        Site {
            call: self.call as usize,
            lit: self.lit.0 as usize..self.lit.1 as usize,
            outer: (self.outer != u32::MAX).then_some(self.outer as usize),
            slots: self.slots.0 as usize..self.slots.1 as usize,
            column: (self.column & 1 != 0).then_some((self.column & 2 != 0, self.column & 4 != 0)),
        }
    }
}

/// A recorded detector call ([`ScanMemo::each_call`]).
pub(super) struct RecordedCall<'a> {
    pub(super) text: &'a str,
    pub(super) key: Option<&'a str>,
    pub(super) parent_key: Option<&'a str>,
    pub(super) facts: KeyFacts,
    pub(super) candidates: &'a [Span],
    pub(super) finals: &'a [Span],
}

/// The detector calls of one scan of a document (see the module doc).
#[derive(Debug, Default)]
pub(crate) struct ScanMemo {
    /// The document's address and length.
    doc: (usize, usize),
    calls: Vec<Call>,
    spans: Vec<Span>,
    /// Each call's result ([`Call::finals`]), end to end.
    finals: Vec<Span>,
    /// A call of the recorded scan had names recalled.
    recalled_first: bool,
    /// The calls that are sites, in call order.
    sites: Vec<PackedSite>,
    /// Whether calls' results and sites are kept ([`ScanMemo::patchable`]).
    patchable: bool,
    /// The strings of calls that are no slice of the document (decoded literals), end to end.
    texts: String,
    /// The long string literals of the document that were decoded, with their text: the
    /// range of each body in the document ([`ScanMemo::keep_decoded`]).
    decoded: Vec<(Range<usize>, String)>,
    /// Where each kept text starts, the kept texts laid end to end (what [`Stored::Kept`]
    /// counts from), and where the next one will.
    kept_starts: Vec<usize>,
    kept_end: usize,
    /// The literal being read that will be kept ([`ScanMemo::reading_kept`]): its decoded
    /// text's address and length.
    reading: Option<(usize, usize)>,
    /// Once counting took the kept texts ([`ScanMemo::take_decoded`]): where each stands in the
    /// counted text ([`ScanMemo::kept_moved`]), which comes back as [`ScanMemo::counted`].
    kept_in_counted: Option<Vec<usize>>,
    /// The document's text with its escapes read, as counted (`json::document_text`), when
    /// the count handed it back.
    counted: Option<String>,
    /// Replaying: the next call to compare.
    next: usize,
    /// Replaying stopped: a call's inputs differed from the recorded call's.
    diverged: bool,
    /// An offset or length did not fit a `u32` (see [`Stored`]): recording stopped, and the
    /// memo neither replays nor patches.
    full: bool,
    /// What the replay's recall finds in one text, when the caller has it already
    /// ([`ScanMemo::set_recalled`]).
    recalled: Option<Recalled>,
}

/// What a recall finds in one text ([`ScanMemo::set_recalled`], [`ScanMemo::set_recalled_upto`],
/// [`ScanMemo::set_recalled_upto_in`]).
#[derive(Debug)]
struct Recalled {
    /// The text's address and length.
    at: usize,
    len: usize,
    /// Every occurrence that starts before this offset is in `spans` (the search stopped here).
    upto: usize,
    spans: Vec<Span>,
    /// The text searched is [`ScanMemo::counted`], not the document.
    in_counted: bool,
}

/// How many quotes of the counted text [`locate`] tries from where the last call was found:
/// from the end of one JSON string to the next one read, there are a key's two quotes and
/// the string's own, or a few more past strings no call reads.
const QUOTES_TRIED: usize = 32;

/// Where [`ScanMemo::recalled_within`] is, between the calls of a patch (which come in document
/// order): the first of the spans not yet taken, and where to look for the next call's string
/// in a counted text of its own.
#[derive(Debug, Default)]
pub(super) struct RecalledCursor {
    span: usize,
    text: usize,
}

/// Where `text` stands between two quotes in `counted`, starting before `upto`: tried at the
/// first [`QUOTES_TRIED`] quotes from `*from` on, which then moves past it (or, when it is not
/// found there, by its length, so that a string whose text differs in `counted`, having
/// escapes of an embedded document in it, leaves the search near the strings after it).
///
/// Any place that holds `text` between quotes will do, not only the string the call read: a
/// recalled name stands as whole words and holds no quote, so what the search of the whole
/// of `counted` finds between two quotes is what a search of what lies between them finds.
fn locate(counted: &[u8], text: &[u8], upto: usize, from: &mut usize) -> Option<usize> {
    let start = (*from).min(upto);
    let first = *text.first()?;
    for q in memchr::memchr_iter(b'"', &counted[start..upto]).take(QUOTES_TRIED) {
        let at = start + q + 1;
        let end = at + text.len();
        if counted.get(at) == Some(&first)
            && counted.get(end) == Some(&b'"')
            && counted.get(at..end) == Some(text)
        {
            *from = end + 1;
            return Some(at);
        }
    }
    *from = start.saturating_add(text.len());
    None
}

impl ScanMemo {
    pub(super) fn new(doc: &str) -> ScanMemo {
        ScanMemo {
            doc: (doc.as_ptr() as usize, doc.len()),
            ..ScanMemo::default()
        }
    }

    /// A memo of a JSON document's scan that also keeps what each call gave and which calls
    /// are sites, for a second scan to patch the first (`patch.rs`). `strings` is how many
    /// string literals the document may hold ([`json::strings_bound`]): a call per string at
    /// most, and about one site and one found value per value (half of them, keys the rest).
    pub(super) fn patchable(doc: &str, strings: usize) -> ScanMemo {
        ScanMemo {
            patchable: true,
            calls: json::room_for(strings),
            spans: json::room_for(strings / 2),
            finals: json::room_for(strings / 2),
            sites: json::room_for(strings / 2),
            ..ScanMemo::new(doc)
        }
    }

    /// Whether this memo was recorded over `doc` (the same string, not an equal one).
    pub(super) fn is_of(&self, doc: &str) -> bool {
        self.doc == (doc.as_ptr() as usize, doc.len())
    }

    /// Starts replaying from the first call.
    pub(super) fn rewind(&mut self) {
        self.next = 0;
        self.diverged = false;
    }

    /// Gives the replay what its recall finds in `text` (`Recall::find` of the very table the
    /// replay recalls with, over that very string): a replayed call over `text` takes these
    /// spans instead of searching again. The engine's count over a whole text it is about to
    /// scan again is such a search.
    pub(super) fn set_recalled(&mut self, text: &str, spans: Vec<Span>) {
        self.recalled = Some(Recalled {
            at: text.as_ptr() as usize,
            len: text.len(),
            upto: text.len(),
            spans,
            in_counted: false,
        });
    }

    /// Gives a patch what its recall finds in `doc`, a JSON document with no escape, as far as
    /// the end of the last of `spans`, where the search stopped (the engine's count stops at
    /// the occurrence past those it expects): [`ScanMemo::recalled_within`] takes from them.
    pub(super) fn set_recalled_upto(&mut self, doc: &str, spans: Vec<Span>) {
        self.recalled = Some(Recalled {
            at: doc.as_ptr() as usize,
            len: doc.len(),
            upto: spans.last().map_or(0, |s| s.end),
            spans,
            in_counted: false,
        });
    }

    /// [`ScanMemo::set_recalled_upto`] for a document with escapes, whose search read
    /// `counted`, the document's text with its escapes read (`json::document_text`):
    /// [`ScanMemo::recalled_within`] finds each call's string in it.
    pub(super) fn set_recalled_upto_in(&mut self, counted: String, spans: Vec<Span>) {
        self.recalled = Some(Recalled {
            at: counted.as_ptr() as usize,
            len: counted.len(),
            upto: spans.last().map_or(0, |s| s.end),
            spans,
            in_counted: true,
        });
        self.counted = Some(counted);
    }

    /// The largest text the memo holds of its own, once the scans are done with it: the
    /// counted text, else the longest decoded literal. A tool result's text block decoded for
    /// the scan is as long as the result written back, so the writer takes this buffer rather
    /// than fault in a new one of that size (`engine/output.rs`).
    pub(super) fn into_spare(mut self) -> Option<String> {
        if let Some(counted) = self.counted.take() {
            return Some(counted);
        }
        let longest = (0..self.decoded.len()).max_by_key(|&k| self.decoded[k].1.capacity())?;
        Some(self.decoded.swap_remove(longest).1)
    }

    /// Takes back the counted text (`json::document_text`) when no spans come with it: the
    /// kept texts now stand in it ([`ScanMemo::kept_moved`]).
    pub(super) fn counted_back(&mut self, counted: String) {
        self.counted = Some(counted);
    }

    /// Pushes onto `out` what the replay's recall finds in `text`, taken from the spans given
    /// for the whole document ([`ScanMemo::set_recalled_upto`], [`ScanMemo::set_recalled_upto_in`]),
    /// and returns where a search of `text` must go on from: `text.len()` when the spans
    /// tell all, less when the search stopped inside `text` (then from the end of the last
    /// span, which is where the search of the whole went on from too). `None` (and `out` as
    /// it was) when they cannot tell. `cursor` is the caller's, kept between calls, which
    /// come in document order.
    ///
    /// They tell for a string's whole body that starts before the search stopped, with a
    /// quote on either side: in a document with no escape, `text` as a slice of `doc`; else
    /// `text` found in the counted text ([`locate`]). The search there and in `text` alone
    /// agree: a name stands as whole words, and a quote joins no word, as the ends of a text
    /// join none; a name cannot run over a quote it does not hold (the caller's condition is
    /// a recall holding no name with a quote in it); and the search goes through word starts
    /// in text order from the body's start either way, taking the first name found and going
    /// on after it.
    pub(super) fn recalled_within(
        &self,
        doc: &str,
        text: &str,
        cursor: &mut RecalledCursor,
        out: &mut Vec<Span>,
    ) -> Option<usize> {
        let r = self.recalled.as_ref()?;
        let (b, at) = if r.in_counted {
            let b = self.counted.as_deref()?.as_bytes();
            (b, locate(b, text.as_bytes(), r.upto, &mut cursor.text)?)
        } else {
            if (doc.as_ptr() as usize, doc.len()) != (r.at, r.len) {
                return None;
            }
            (doc.as_bytes(), (text.as_ptr() as usize).wrapping_sub(r.at))
        };
        let end = at.wrapping_add(text.len());
        if at == 0 || at >= r.upto || end >= b.len() || b[at - 1] != b'"' || b[end] != b'"' {
            return None;
        }
        let spans = &r.spans;
        // Calls come in document order: the first span at or after `at` is at `next` or after
        // it, unless a call went back (then it is looked up).
        let mut i = cursor.span.min(spans.len());
        if i > 0 && spans[i - 1].start >= at {
            i = spans.partition_point(|s| s.start < at);
        }
        while i < spans.len() && spans[i].start < at {
            i += 1;
        }
        let kept = out.len();
        while let Some(s) = spans.get(i).filter(|s| s.start < end) {
            if s.end > end {
                // Not reached (no name runs over a quote): the search in `text` decides.
                out.truncate(kept);
                return None;
            }
            out.push(Span {
                start: s.start - at,
                end: s.end - at,
                ..s.clone()
            });
            i += 1;
        }
        cursor.span = i;
        // The search stopped at the end of its last span: inside `text`, it goes on from there.
        Some(if end > r.upto {
            r.upto - at
        } else {
            text.len()
        })
    }

    /// The spans [`ScanMemo::set_recalled`] gave for `text` (the same string, not an equal one).
    pub(super) fn recalled_in(&self, text: &str) -> Option<&[Span]> {
        self.recalled
            .as_ref()
            .filter(|r| r.at == text.as_ptr() as usize && r.len == text.len())
            .map(|r| r.spans.as_slice())
    }

    /// Where `s` is kept; `None` when an offset or length does not fit a `u32`.
    fn store(&mut self, s: &str) -> Option<Stored> {
        let at = s.as_ptr() as usize;
        let (base, len) = self.doc;
        let n = small(s.len())?;
        if at >= base && at + s.len() <= base + len {
            return Some(Stored::Doc {
                at: small(at - base)?,
                len: n,
            });
        }
        // A slice of the decoded literal being read, which the memo will keep: not copied.
        if let Some((base, len)) = self.reading
            && at >= base
            && at + s.len() <= base + len
        {
            return Some(Stored::Kept {
                at: small(self.kept_end + (at - base))?,
                len: n,
            });
        }
        let start = small(self.texts.len())?;
        small(self.texts.len() + s.len())?;
        self.texts.push_str(s);
        Some(Stored::Copy { at: start, len: n })
    }

    /// Whether `s` is the stored string: the same bytes of the document (a slice of a live
    /// document is equal to one recorded from it exactly when it sits at the same address), or
    /// equal to the copy.
    fn same(&self, stored: Stored, s: &str) -> bool {
        match stored {
            Stored::Doc { at, len } => {
                s.len() == len as usize && s.as_ptr() as usize == self.doc.0 + at as usize
            }
            Stored::Copy { at, len } => {
                let (at, len) = (at as usize, len as usize);
                self.texts.get(at..at + len) == Some(s)
            }
            Stored::Kept { at, len } => self.kept_text(at, len) == Some(s),
        }
    }

    /// The text of [`Stored::Kept`] `at`, `len`: in the kept literal it lies in, or where that
    /// literal stands in the counted text once counting took it; `None` when neither is here
    /// (counting took the kept texts and the counted text did not come back).
    fn kept_text(&self, at: u32, len: u32) -> Option<&str> {
        let (at, len) = (at as usize, len as usize);
        let k = self
            .kept_starts
            .partition_point(|&start| start <= at)
            .checked_sub(1)?;
        let from = at - self.kept_starts[k];
        match &self.kept_in_counted {
            None => self.decoded.get(k)?.1.get(from..from + len),
            Some(homes) => {
                let from = homes.get(k)? + from;
                self.counted.as_deref()?.get(from..from + len)
            }
        }
    }

    /// Whether every stored string can be read: the kept texts are here, or in the counted
    /// text that came back.
    fn texts_here(&self) -> bool {
        match &self.kept_in_counted {
            None => self.decoded.len() == self.kept_starts.len(),
            Some(homes) => {
                self.kept_starts.is_empty()
                    || self.counted.is_some() && homes.len() == self.kept_starts.len()
            }
        }
    }

    fn same_opt(&self, stored: Option<Stored>, s: Option<&str>) -> bool {
        match (stored, s) {
            (None, None) => true,
            (Some(stored), Some(s)) => self.same(stored, s),
            _ => false,
        }
    }

    /// Records a call and its recognizers' candidates.
    pub(super) fn record(
        &mut self,
        text: &str,
        cx: &FindContext<'_>,
        classes: u8,
        facts: &KeyFacts,
        spans: &[Span],
    ) {
        if self.full {
            return;
        }
        let call = self.call(text, cx, classes, facts, spans);
        match call {
            Some(call) => self.calls.push(call),
            None => self.full = true,
        }
    }

    /// The record of a call ([`ScanMemo::record`]), its candidates kept; `None` when an offset
    /// does not fit a `u32`.
    fn call(
        &mut self,
        text: &str,
        cx: &FindContext<'_>,
        classes: u8,
        facts: &KeyFacts,
        spans: &[Span],
    ) -> Option<Call> {
        let text = self.store(text)?;
        let key = match cx.key {
            Some(k) => Some(self.store(k)?),
            None => None,
        };
        let parent_key = match cx.parent_key {
            Some(k) => Some(self.store(k)?),
            None => None,
        };
        let from = small(self.spans.len())?;
        let to = small(self.spans.len() + spans.len())?;
        // Most calls find nothing: an empty slice is not cloned.
        if !spans.is_empty() {
            self.spans.extend_from_slice(spans);
        }
        self.recalled_first |= cx.recall.is_some();
        Some(Call {
            text,
            key,
            parent_key,
            classes,
            facts: *facts,
            spans: from..to,
            finals: 0..0,
        })
    }

    /// Records what the last recorded call gave, recall's names added and overlaps resolved.
    pub(super) fn record_finals(&mut self, spans: &[Span]) {
        if !self.patchable || self.full {
            return;
        }
        let Some(call) = self.calls.last_mut() else {
            return;
        };
        // Each span is 48 bytes the process faults in: a result that is the candidates
        // points at them.
        if self.spans.get(wide(&call.spans)) == Some(spans) {
            call.finals = SAME_AS_CANDIDATES;
            return;
        }
        let (Some(from), Some(to)) = (
            small(self.finals.len()),
            small(self.finals.len() + spans.len()).filter(|&to| to != u32::MAX),
        ) else {
            self.full = true;
            return;
        };
        self.finals.extend_from_slice(spans);
        call.finals = from..to;
    }

    /// How many calls are recorded.
    pub(super) fn calls(&self) -> usize {
        self.calls.len()
    }

    /// Records a site (see [`Site`]); sites come in call order.
    pub(super) fn note_site(&mut self, site: Site) {
        if self.patchable && !self.full {
            match PackedSite::of(&site) {
                Some(packed) => self.sites.push(packed),
                None => self.full = true,
            }
        }
    }

    /// How many sites are noted.
    pub(super) fn noted_sites(&self) -> usize {
        self.sites.len()
    }

    /// Forgets the sites from the `mark`th on: they were noted in a string read as a JSON
    /// document that turned out not to be one.
    pub(super) fn forget_sites(&mut self, mark: usize) {
        self.sites.truncate(mark);
    }

    /// How many sites there are: [`ScanMemo::site`] takes `0..` that many, in call order.
    pub(super) fn sites(&self) -> usize {
        self.sites.len()
    }

    /// The call of the `k`th site.
    pub(super) fn site_call(&self, k: usize) -> usize {
        self.sites[k].call as usize
    }

    /// The `k`th site.
    pub(super) fn site(&self, k: usize) -> Site {
        self.sites[k].unpack()
    }

    /// Says that the calls to come, up to [`ScanMemo::keep_decoded`], read `text`, the decoded
    /// body of a string literal the memo will keep: the calls' strings that lie in it are
    /// recorded as slices of it rather than copied (a tool result's text block is megabytes).
    pub(super) fn reading_kept(&mut self, text: &str) {
        self.reading = Some((text.as_ptr() as usize, text.len()));
    }

    /// Keeps `text`, the decoded body of the document's string literal whose body is `body`
    /// (a tool result's text block), for counting names in the document's text
    /// ([`ScanMemo::decoded`]) without decoding it again. Literals come in document order.
    /// `text` is the string [`ScanMemo::reading_kept`] announced (moved, so at the same
    /// address); if it is not, the memo records nothing more.
    pub(super) fn keep_decoded(&mut self, body: Range<usize>, text: String) {
        if self.reading.take() != Some((text.as_ptr() as usize, text.len())) {
            self.full = true;
        }
        self.kept_starts.push(self.kept_end);
        self.kept_end += text.len();
        self.decoded.push((body, text));
    }

    /// The literals [`ScanMemo::keep_decoded`] kept, taken out of the memo for counting; the
    /// memo reads them in the counted text once it comes back ([`ScanMemo::kept_moved`]).
    pub(super) fn take_decoded(&mut self) -> Vec<(Range<usize>, String)> {
        self.kept_in_counted = Some(Vec::new());
        std::mem::take(&mut self.decoded)
    }

    /// Where each literal [`ScanMemo::take_decoded`] gave stands in the counted text
    /// (`json::document_text_with`), in their order.
    pub(super) fn kept_moved(&mut self, homes: Vec<usize>) {
        self.kept_in_counted = Some(homes);
    }

    /// Whether the memo keeps what a patch needs ([`ScanMemo::patchable`]), every recorded
    /// string readable.
    pub(super) fn is_patchable(&self) -> bool {
        self.patchable && !self.full && self.texts_here()
    }

    /// Whether a call of the recorded scan had names recalled.
    pub(super) fn recalled_first(&self) -> bool {
        self.recalled_first
    }

    /// Each recorded call, as given: its text, key and parent key (read from `doc`, the
    /// document the memo was recorded over), key facts, candidates and result.
    pub(super) fn each_call<'a>(
        &'a self,
        doc: &'a str,
    ) -> impl Iterator<Item = RecordedCall<'a>> + 'a {
        self.calls.iter().map(move |call| RecordedCall {
            text: self.text(call.text, doc),
            key: call.key.map(|k| self.text(k, doc)),
            parent_key: call.parent_key.map(|k| self.text(k, doc)),
            facts: call.facts,
            candidates: &self.spans[wide(&call.spans)],
            finals: if call.finals == SAME_AS_CANDIDATES {
                &self.spans[wide(&call.spans)]
            } else {
                &self.finals[wide(&call.finals)]
            },
        })
    }

    fn text<'a>(&'a self, stored: Stored, doc: &'a str) -> &'a str {
        match stored {
            // `doc` is the recorded document (the caller checks [`ScanMemo::is_of`]).
            Stored::Doc { at, len } => doc
                .get(at as usize..at as usize + len as usize)
                .unwrap_or_default(),
            Stored::Copy { at, len } => self
                .texts
                .get(at as usize..at as usize + len as usize)
                .unwrap_or_default(),
            // Readable when the memo is patchable ([`ScanMemo::texts_here`]).
            Stored::Kept { at, len } => self.kept_text(at, len).unwrap_or_default(),
        }
    }

    /// Puts into `out` (emptied first) the next recorded call's candidates, if its inputs are
    /// these, and says so; `false` (and no more replaying) when they are not.
    ///
    /// The last call, when its candidates are all the memo holds (a text document's one call:
    /// tens of thousands of spans), gives them up: they are moved into `out`, not copied, as
    /// no call after it reads them ([`ScanMemo::each_call`] is of a memo that did not replay).
    pub(super) fn replay_into(
        &mut self,
        text: &str,
        cx: &FindContext<'_>,
        classes: u8,
        facts: &KeyFacts,
        out: &mut Vec<Span>,
    ) -> bool {
        if self.diverged || self.full {
            return false;
        }
        let same = self.calls.get(self.next).is_some_and(|call| {
            call.classes == classes
                && call.facts == *facts
                && self.same(call.text, text)
                && self.same_opt(call.key, cx.key)
                && self.same_opt(call.parent_key, cx.parent_key)
        });
        if !same {
            self.diverged = true;
            return false;
        }
        let spans = wide(&self.calls[self.next].spans);
        self.next += 1;
        out.clear();
        if self.next == self.calls.len() && spans == (0..self.spans.len()) && !self.patchable {
            std::mem::swap(out, &mut self.spans);
        } else {
            out.extend_from_slice(&self.spans[spans]);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::Detector;
    use crate::detect::FindContext;
    use crate::detect::recall::Recall;
    use crate::walk::{
        Findings, FoundValue, rescan_json, rescan_json_walking, rescan_text, scan_json_except,
        scan_json_recorded, scan_text, scan_text_recorded,
    };

    /// What a scan found, values included.
    fn shown(f: &Findings<FoundValue>) -> String {
        let values: Vec<_> = f
            .found_iter()
            .map(|s| {
                (
                    s.kind.clone(),
                    s.value.expose().to_string(),
                    s.canonical.map(std::sync::Arc::<str>::from),
                )
            })
            .collect();
        format!("{:?} {values:?}", f.pieces)
    }

    #[test]
    fn a_rescan_finds_what_a_fresh_scan_finds() {
        let detector = Detector::with_defaults();
        let none = |_: &crate::walk::json::Position<'_>| false;
        let docs = [
            r#"[{"name":"Ysolde Brackwater","email":"ysolde@example.com"},{"notes":"ask brackwater or Ysolde Brackwater","phone":"+1 415-555-0132"}]"#,
            r#"{"text":"[{\"name\":\"Omar Haddad\"},{\"note\":\"Haddad said\\nOmar Haddad will call\"}]","n":4155550132,"phone":4155550132}"#,
            r#"{"rows":"name,email\nMaria Garcia,m@x.io\nOmar Haddad,o@x.io","who":"Maria Garcia","Haddad":"key"}"#,
            r#"[{"a":"\u00c9mile Zola wrote","b":"Zola"},{"a":"nothing here"}]"#,
            // Sites: names recalled in plain values, escaped or not, in records with column
            // evidence, a value the first scan found clean, and a slot renumbered after them.
            r#"[{"name":"Omar Haddad","notes":"met omar haddad and Maria Garcia","city":"Haddad"},{"name":"Zola","who":"Haddad","notes":"Ysolde Brackwater\nsaid hi","email":"z@x.io"},{"name":"brackwater","notes":"Ask Haddad. Zola\u0021"}]"#,
            r#"{"a":"Haddad","b":"omar haddad","c":["Haddad","x"],"d":{"Garcia":"Maria Garcia"},"e":"Maria  Garcia"}"#,
        ];
        // A tool result whose text block the memo keeps (4 KB and more): the calls' strings
        // are slices of it, read where the count's text holds it once counting took it.
        let block = records_result(80, |i| {
            format!(
                r#"{{"id":"r{i}","name":"Omar Haddad","to":"Garcia\nHaddad","notes":"met Zola and Haddad on day {i}, then Maria Garcia"}}"#
            )
        });
        assert!(block.len() > 2 * super::super::KEEP_DECODED_FROM);
        let docs = docs.iter().copied().chain([block.as_str()]);
        for doc in docs {
            for names in [
                &["Ysolde Brackwater", "Omar Haddad"][..],
                &["Zola", "Émile Zola", "Maria Garcia"][..],
                &[][..],
            ] {
                let recall = Recall::of_names(names.iter().copied());
                let fresh = scan_json_except(&detector, Some(&recall), doc, &none).unwrap();
                // A first scan with no recall, and with some of the names.
                let some = Recall::of_names(names.iter().copied().take(1));
                for first in [None, Some(&some)] {
                    // Patched where it can be, or walked again.
                    let (found, memo) = scan_json_recorded(&detector, first, doc, &none).unwrap();
                    let again =
                        rescan_json(&detector, Some(&recall), memo, found, None, None, &none)
                            .unwrap()
                            .0;
                    assert_eq!(shown(&again), shown(&fresh), "{doc} {names:?}");
                    // Given what the recall finds in the document's text, as the engine's count.
                    for limit in [None, Some(0), Some(1)] {
                        let again = rescan_given(doc, first, &recall, Some(limit));
                        assert_eq!(shown(&again), shown(&fresh), "{doc} {names:?} {limit:?}");
                    }
                    // Counted, the text handed back without spans (a session that recalled
                    // before), or not handed back at all.
                    let again = rescan_given(doc, first, &recall, None);
                    assert_eq!(shown(&again), shown(&fresh), "{doc} {names:?}");
                    let again = rescan_counted_not_back(doc, first, &recall);
                    assert_eq!(shown(&again), shown(&fresh), "{doc} {names:?}");
                    // Always walked again.
                    let (_, memo) = scan_json_recorded(&detector, first, doc, &none).unwrap();
                    let again = rescan_json_walking(&detector, Some(&recall), memo, &none).unwrap();
                    assert_eq!(shown(&again), shown(&fresh), "{doc} {names:?}");
                }
            }
        }
    }

    /// [`rescan_json`] of `doc` (first scanned with `first`) given what `recall` finds in the
    /// document, as far as the engine's count reads when it expects `limit` occurrences (all of
    /// it with `Some(None)`; no spans with `None`, the counted text alone). Each way must find
    /// what a fresh scan finds.
    fn rescan_given(
        doc: &str,
        first: Option<&Recall>,
        recall: &Recall,
        limit: Option<Option<usize>>,
    ) -> Findings<FoundValue> {
        let detector = Detector::with_defaults();
        let none = |_: &crate::walk::json::Position<'_>| false;
        let (found, mut memo) = scan_json_recorded(&detector, first, doc, &none).unwrap();
        // The engine's count reads the document's text with its escapes read.
        let text = crate::walk::counted_text(&mut memo);
        assert_eq!(text, crate::walk::json::document_text(doc));
        let mut spans = Vec::new();
        match limit {
            Some(Some(limit)) => _ = recall.find_exceeding(&text, limit, &mut spans),
            Some(None) => recall.find(&text, &mut spans),
            None => {}
        }
        let counted = match text {
            std::borrow::Cow::Owned(text) => Some(text),
            std::borrow::Cow::Borrowed(_) => None,
        };
        rescan_json(
            &detector,
            Some(recall),
            memo,
            found,
            limit.map(|_| spans),
            counted,
            &none,
        )
        .unwrap()
        .0
    }

    /// [`rescan_json`] of `doc` after a count that took the memo's kept texts and did not hand
    /// its text back: the memo cannot read its calls' strings, so the document is walked again
    /// and the replay stops at the first call that read one.
    fn rescan_counted_not_back(
        doc: &str,
        first: Option<&Recall>,
        recall: &Recall,
    ) -> Findings<FoundValue> {
        let detector = Detector::with_defaults();
        let none = |_: &crate::walk::json::Position<'_>| false;
        let (found, mut memo) = scan_json_recorded(&detector, first, doc, &none).unwrap();
        let kept = !memo.memo.decoded.is_empty();
        drop(crate::walk::counted_text(&mut memo));
        assert_eq!(memo.memo.is_patchable(), !kept && memo.memo.patchable);
        rescan_json(&detector, Some(recall), memo, found, None, None, &none)
            .unwrap()
            .0
    }

    /// In a tool result, the strings of the embedded document are found in the counted text
    /// and take their names from the count's spans, in full before the count stopped, and
    /// up to where it stopped for a string it stopped in; each gives what searching it gives.
    /// A string with an escape of its own (`to`) reads otherwise in the counted text, and the
    /// strings after it are still found.
    #[test]
    fn a_tool_results_strings_take_their_names_from_the_count() {
        let detector = Detector::with_defaults();
        let none = |_: &crate::walk::json::Position<'_>| false;
        let doc = records_result(40, |i| {
            format!(
                r#"{{"id":"r{i}","name":"Maria Garcia","to":"Garcia\nHaddad","notes":"met Garcia and Haddad on day {i}, then Garcia"}}"#
            )
        });
        let text = crate::walk::json::document_text(&doc);
        let recall = Recall::of_names(["Maria Garcia", "Garcia", "Haddad"]);
        for limit in [None, Some(57)] {
            let mut spans = Vec::new();
            match limit {
                Some(limit) => _ = recall.find_exceeding(&text, limit, &mut spans),
                None => recall.find(&text, &mut spans),
            }
            let (_, mut record) = scan_json_recorded(&detector, None, &doc, &none).unwrap();
            record.memo.set_recalled_upto_in(text.to_string(), spans);
            let memo = &record.memo;
            let (mut whole, mut part) = (0, 0);
            let mut cursor = super::RecalledCursor::default();
            for call in memo.each_call(&doc).filter(|c| !c.text.is_empty()) {
                let mut want = Vec::new();
                recall.find(call.text, &mut want);
                let mut got = Vec::new();
                match memo.recalled_within(&doc, call.text, &mut cursor, &mut got) {
                    Some(from) if from >= call.text.len() => whole += 1,
                    Some(from) => {
                        part += 1;
                        recall.find_from(call.text, from, &mut got);
                    }
                    None => continue,
                }
                assert_eq!(got, want, "{:?}", call.text);
            }
            // Every string with no escape (not `to`), up to the one the count stopped in.
            match limit {
                None => assert!(whole >= 40 * 3 && part == 0, "{whole} {part}"),
                Some(_) => assert!(whole >= 14 * 3 && part == 1, "{whole} {part}"),
            }
        }
    }

    /// The strings of a kept text block are recorded as slices of it, not copied, and read
    /// the same before counting takes it and after the counted text comes back.
    #[test]
    fn a_kept_text_blocks_strings_are_read_in_place() {
        let detector = Detector::with_defaults();
        let none = |_: &crate::walk::json::Position<'_>| false;
        let block = records_result(80, |i| {
            format!(
                r#"{{"id":"r{i}","name":"Omar Haddad","to":"Garcia\nHaddad","notes":"met on day {i}"}}"#
            )
        });
        let (_, mut record) = scan_json_recorded(&detector, None, &block, &none).unwrap();
        let memo = &record.memo;
        assert_eq!(memo.decoded.len(), 1);
        let kept = memo
            .calls
            .iter()
            .filter(|c| matches!(c.text, super::Stored::Kept { .. }))
            .count();
        assert!(kept >= 80 * 3, "{kept}");
        // Only the strings with an escape of their own (`to`) are copies.
        assert_eq!(memo.texts, "Garcia\nHaddad".repeat(80));
        let before: Vec<String> = memo.each_call(&block).map(|c| c.text.to_string()).collect();
        let counted = crate::walk::counted_text(&mut record).into_owned();
        assert!(record.memo.decoded.is_empty() && !record.memo.is_patchable());
        record.memo.counted_back(counted);
        assert!(record.memo.is_patchable());
        let after: Vec<String> = record
            .memo
            .each_call(&block)
            .map(|c| c.text.to_string())
            .collect();
        assert_eq!(before, after);
    }

    /// A tool result whose text block is a JSON array of `n` records, record `i` being
    /// `record(i)`.
    fn records_result(n: usize, record: impl Fn(usize) -> String) -> String {
        let records: Vec<String> = (0..n).map(record).collect();
        tool_result(&format!("[{}]", records.join(",")))
    }

    /// `doc` as the text block of a tool result: one string, every quote of it escaped.
    fn tool_result(doc: &str) -> String {
        serde_json::json!({"content": [{"type": "text", "text": doc}], "isError": false})
            .to_string()
    }

    #[test]
    fn a_rescan_given_the_documents_names_finds_what_a_fresh_scan_finds() {
        let detector = Detector::with_defaults();
        let none = |_: &crate::walk::json::Position<'_>| false;
        // Names at a string's very start and end, in keys, across strings (`Maria", "Garcia`),
        // cut by a quote, in cells and embedded documents, and a recall holding a quote.
        let docs = [
            r#"[{"name":"Omar Haddad","notes":"Haddad"},{"notes":"x Haddad","who":"Haddad y"}]"#,
            r#"{"Haddad":"Maria","b":"Garcia","c":["Maria", "Garcia"],"d":"Maria Garcia"}"#,
            r#"{"a":"say 'Omar' Haddad","b":"Omar","c":"Haddad said Omar Haddad"}"#,
            r#"{"rows":"name,notes | Omar Haddad,met Garcia | Maria Garcia,Haddad","n":"Garcia"}"#,
            r#"{"doc":"{'who':'Omar Haddad','n':'Haddad'}","x":"Haddad","y":"[1, 2]"}"#,
            r#"{"a":"Omar Haddad2","b":"2Haddad","c":"Haddad_x","d":"é Haddad é","e":"Haddadé"}"#,
            r#"[{"name":"Émile Zola","notes":"Zola","x":"zola","y":"ZOLA!"}]"#,
            r#"{"t":"name email | Omar Haddad o@x.io","u":"Maria Garcia; Garcia, Maria"}"#,
        ];
        let wrapped: Vec<String> = docs.iter().map(|doc| tool_result(doc)).collect();
        let escaped = [
            r#"{"a":"Omar Haddad\nHaddad","b":"x\"Haddad\" y","c":"\u00c9mile Zola\tZola"}"#,
            r#"[{"n":"Maria Garcia"},{"n":"Garcia\\Maria"},{"n":"caf\u00e9 Maria\b"}]"#,
            r#"{"t":"Haddad\ud83d Haddad","u":"\/Haddad\/"}"#,
        ];
        let docs = docs
            .iter()
            .copied()
            .chain(escaped)
            .chain(wrapped.iter().map(String::as_str));
        for doc in docs {
            for names in [
                &["Omar Haddad", "Haddad", "Garcia", "Maria"][..],
                &["Maria Garcia", "Zola", "Émile Zola"][..],
                &["Maria\", \"Garcia", "Haddad\" y"][..],
            ] {
                let recall = Recall::of_names(names.iter().copied());
                let fresh = scan_json_except(&detector, Some(&recall), doc, &none).unwrap();
                let some = Recall::of_names(names.iter().copied().take(1));
                for first in [None, Some(&some)] {
                    for limit in [None, Some(0), Some(1), Some(3)] {
                        let again = rescan_given(doc, first, &recall, Some(limit));
                        assert_eq!(shown(&again), shown(&fresh), "{doc} {names:?} {limit:?}");
                    }
                }
            }
        }
    }

    const WORDS: &[&str] = &[
        "Omar", "Haddad", "omar", "HADDAD", "Maria", "Garcia", "Émile", "Zola", "said", "x", ",",
        "'", "2", "é", "Haddad2", "-", "O'Brien", ":", "{", "[1]", "met", "Mr.", "@", "and",
        // Escapes, as they stand in the string literal.
        "\\n", "\\\"", "\\u00e9", "\\\\", "\\b",
    ];
    const SEPARATORS: &[&str] = &[" ", "", ", ", " | ", "  "];
    const NAMES: &[&str] = &[
        "Omar Haddad",
        "Haddad",
        "Maria Garcia",
        "Garcia",
        "Émile Zola",
        "Zola",
        "O'Brien",
        "omar",
        "Maria",
    ];
    const KEYS: &[&str] = &["name", "notes", "who", "a", "Haddad", "rows"];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Documents of records whose strings are made of name words, and any recall of some
        /// names: the rescan given the whole document's names finds what a fresh scan finds.
        #[test]
        fn a_rescan_given_the_documents_names_agrees_on_any_document(
            records in proptest::collection::vec(
                proptest::collection::vec(
                    (0..KEYS.len(), proptest::collection::vec((0..WORDS.len(), 0..SEPARATORS.len()), 0..7)),
                    1..5,
                ),
                1..6,
            ),
            names in proptest::collection::vec(0..NAMES.len(), 1..4),
            first_takes in 0usize..2,
            limit in proptest::option::of(0usize..6),
            wrapped in proptest::bool::ANY,
        ) {
            let mut doc = String::from("[");
            for (r, fields) in records.iter().enumerate() {
                doc.push_str(if r == 0 { "{" } else { ",{" });
                for (f, (key, words)) in fields.iter().enumerate() {
                    if f > 0 {
                        doc.push(',');
                    }
                    doc.push('"');
                    doc.push_str(KEYS[*key]);
                    doc.push_str("\":\"");
                    for (w, sep) in words {
                        doc.push_str(WORDS[*w]);
                        doc.push_str(SEPARATORS[*sep]);
                    }
                    doc.push('"');
                }
                doc.push('}');
            }
            doc.push(']');
            if wrapped {
                doc = tool_result(&doc);
            }
            let detector = Detector::with_defaults();
            let none = |_: &crate::walk::json::Position<'_>| false;
            let recall = Recall::of_names(names.iter().map(|&n| NAMES[n]));
            let fresh = scan_json_except(&detector, Some(&recall), &doc, &none).unwrap();
            let some = Recall::of_names(names.iter().take(first_takes).map(|&n| NAMES[n]));
            let first = (first_takes > 0).then_some(&some);
            let again = rescan_given(&doc, first, &recall, Some(limit));
            proptest::prop_assert_eq!(shown(&again), shown(&fresh), "{}", doc);
        }
    }

    #[test]
    fn a_text_rescan_finds_what_a_fresh_scan_finds() {
        let detector = Detector::with_defaults();
        let texts = [
            "Ysolde Brackwater wrote to ysolde@example.com.\nLater brackwater called +1 415-555-0132; Ysolde said no.",
            "name,email\nMaria Garcia,m@x.io\nOmar Haddad,o@x.io\n\nGarcia and Haddad met.",
            "{\"who\": \"Omar Haddad\", \"note\": \"Haddad will call\"}",
            "Émile Zola wrote. Zola, born 2 April 1840, DOB 1840-04-02.\nnothing else",
        ];
        for text in texts {
            for names in [
                &["Ysolde Brackwater", "Omar Haddad", "Brackwater"][..],
                &["Zola", "Émile Zola", "Maria Garcia", "Garcia"][..],
                &[][..],
            ] {
                let recall = Recall::of_names(names.iter().copied());
                let with = FindContext {
                    recall: Some(&recall),
                    ..FindContext::default()
                };
                let fresh = scan_text(&detector, text, &with);
                let some = Recall::of_names(["Omar Haddad"]);
                for first in [None, Some(&some)] {
                    let cx = FindContext {
                        recall: first,
                        ..FindContext::default()
                    };
                    let (found, memo) = scan_text_recorded(&detector, text, &cx);
                    let again = rescan_text(&detector, memo, &with, None, found);
                    assert_eq!(shown(&again), shown(&fresh), "{text} {names:?}");
                    // Given what the recall finds in the whole text, as the engine's count.
                    let (found, memo) = scan_text_recorded(&detector, text, &cx);
                    let mut spans = Vec::new();
                    recall.find(text, &mut spans);
                    let again = rescan_text(&detector, memo, &with, Some(spans), found);
                    assert_eq!(shown(&again), shown(&fresh), "{text} {names:?}");
                }
            }
        }
    }
}
