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

use std::ops::Range;

use crate::detect::{FindContext, KeyFacts, Span};

/// A string a recorded call was given: a slice of the document (by offset, compared by address),
/// or a copy in [`ScanMemo::texts`].
#[derive(Debug, Clone, Copy)]
enum Stored {
    Doc { at: usize, len: usize },
    Copy { at: usize, len: usize },
}

#[derive(Debug)]
struct Call {
    text: Stored,
    key: Option<Stored>,
    parent_key: Option<Stored>,
    classes: u8,
    facts: KeyFacts,
    /// The recognizers' candidates, before recall and overlap resolution.
    spans: Range<usize>,
    /// What the call gave: the candidates with recall's names, overlaps resolved.
    finals: Range<usize>,
}

/// A top-level JSON string value read as plain text by exactly one detector call: the parts of
/// the first scan's findings that call made, so a second scan can replace just them
/// (`patch.rs`).
#[derive(Debug, Clone)]
pub(super) struct Site {
    /// The call.
    pub(super) call: usize,
    /// The string literal, quotes included.
    pub(super) lit: Range<usize>,
    /// Its slots.
    pub(super) slots: Range<usize>,
    /// What it told the document's column evidence, if it was noted: whether a name covers
    /// most of it, and whether it was left open (clean and shaped like a name).
    pub(super) column: Option<(bool, bool)>,
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
    sites: Vec<Site>,
    /// Whether calls' results and sites are kept ([`ScanMemo::patchable`]).
    patchable: bool,
    /// The strings of calls that are no slice of the document (decoded literals), end to end.
    texts: String,
    /// Replaying: the next call to compare.
    next: usize,
    /// Replaying stopped: a call's inputs differed from the recorded call's.
    diverged: bool,
    /// What the replay's recall finds in one text, when the caller has it already
    /// ([`ScanMemo::set_recalled`]): the text's address and length, and the spans.
    recalled: Option<(usize, usize, Vec<Span>)>,
}

impl ScanMemo {
    pub(super) fn new(doc: &str) -> ScanMemo {
        ScanMemo {
            doc: (doc.as_ptr() as usize, doc.len()),
            ..ScanMemo::default()
        }
    }

    /// A memo of a JSON document's scan that also keeps what each call gave and which calls
    /// are sites, for a second scan to patch the first (`patch.rs`).
    pub(super) fn patchable(doc: &str) -> ScanMemo {
        ScanMemo {
            patchable: true,
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
        self.recalled = Some((text.as_ptr() as usize, text.len(), spans));
    }

    /// The spans [`ScanMemo::set_recalled`] gave for `text` (the same string, not an equal one).
    pub(super) fn recalled_in(&self, text: &str) -> Option<&[Span]> {
        self.recalled
            .as_ref()
            .filter(|(at, len, _)| *at == text.as_ptr() as usize && *len == text.len())
            .map(|(_, _, spans)| spans.as_slice())
    }

    fn store(&mut self, s: &str) -> Stored {
        let at = s.as_ptr() as usize;
        let (base, len) = self.doc;
        if at >= base && at + s.len() <= base + len {
            return Stored::Doc {
                at: at - base,
                len: s.len(),
            };
        }
        let start = self.texts.len();
        self.texts.push_str(s);
        Stored::Copy {
            at: start,
            len: s.len(),
        }
    }

    /// Whether `s` is the stored string: the same bytes of the document (a slice of a live
    /// document is equal to one recorded from it exactly when it sits at the same address), or
    /// equal to the copy.
    fn same(&self, stored: Stored, s: &str) -> bool {
        match stored {
            Stored::Doc { at, len } => s.len() == len && s.as_ptr() as usize == self.doc.0 + at,
            Stored::Copy { at, len } => self.texts.get(at..at + len) == Some(s),
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
        let text = self.store(text);
        let key = cx.key.map(|k| self.store(k));
        let parent_key = cx.parent_key.map(|k| self.store(k));
        let from = self.spans.len();
        // Most calls find nothing: an empty slice is not cloned.
        if !spans.is_empty() {
            self.spans.extend_from_slice(spans);
        }
        self.recalled_first |= cx.recall.is_some();
        self.calls.push(Call {
            text,
            key,
            parent_key,
            classes,
            facts: *facts,
            spans: from..self.spans.len(),
            finals: 0..0,
        });
    }

    /// Records what the last recorded call gave, recall's names added and overlaps resolved.
    pub(super) fn record_finals(&mut self, spans: &[Span]) {
        if !self.patchable {
            return;
        }
        let from = self.finals.len();
        if !spans.is_empty() {
            self.finals.extend_from_slice(spans);
        }
        let to = self.finals.len();
        if let Some(call) = self.calls.last_mut() {
            call.finals = from..to;
        }
    }

    /// How many calls are recorded.
    pub(super) fn calls(&self) -> usize {
        self.calls.len()
    }

    /// Records a site (see [`Site`]); sites come in call order.
    pub(super) fn note_site(&mut self, site: Site) {
        if self.patchable {
            self.sites.push(site);
        }
    }

    /// The sites, in call order.
    pub(super) fn sites(&self) -> &[Site] {
        &self.sites
    }

    /// Whether the memo keeps what a patch needs ([`ScanMemo::patchable`]).
    pub(super) fn is_patchable(&self) -> bool {
        self.patchable
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
            candidates: &self.spans[call.spans.clone()],
            finals: &self.finals[call.finals.clone()],
        })
    }

    fn text<'a>(&'a self, stored: Stored, doc: &'a str) -> &'a str {
        match stored {
            // `doc` is the recorded document (the caller checks [`ScanMemo::is_of`]).
            Stored::Doc { at, len } => doc.get(at..at + len).unwrap_or_default(),
            Stored::Copy { at, len } => self.texts.get(at..at + len).unwrap_or_default(),
        }
    }

    /// The next recorded call's candidates, if its inputs are these; `None` (and no more
    /// replaying) when they are not.
    pub(super) fn replay(
        &mut self,
        text: &str,
        cx: &FindContext<'_>,
        classes: u8,
        facts: &KeyFacts,
    ) -> Option<&[Span]> {
        if self.diverged {
            return None;
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
            return None;
        }
        let call = &self.calls[self.next];
        self.next += 1;
        Some(&self.spans[call.spans.clone()])
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
            .slots
            .iter()
            .map(|s| {
                (
                    s.kind.clone(),
                    s.value.expose().clone(),
                    s.canonical.clone(),
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
                    let again = rescan_json(&detector, Some(&recall), memo, found, &none).unwrap();
                    assert_eq!(shown(&again), shown(&fresh), "{doc} {names:?}");
                    // Always walked again.
                    let (_, memo) = scan_json_recorded(&detector, first, doc, &none).unwrap();
                    let again = rescan_json_walking(&detector, Some(&recall), memo, &none).unwrap();
                    assert_eq!(shown(&again), shown(&fresh), "{doc} {names:?}");
                }
            }
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
                    let (_, memo) = scan_text_recorded(&detector, text, &cx);
                    let again = rescan_text(&detector, memo, &with, None);
                    assert_eq!(shown(&again), shown(&fresh), "{text} {names:?}");
                    // Given what the recall finds in the whole text, as the engine's count.
                    let (_, memo) = scan_text_recorded(&detector, text, &cx);
                    let mut spans = Vec::new();
                    recall.find(text, &mut spans);
                    let again = rescan_text(&detector, memo, &with, Some(spans));
                    assert_eq!(shown(&again), shown(&fresh), "{text} {names:?}");
                }
            }
        }
    }
}
