//! A second scan of a JSON document as a patch of the first.
//!
//! When a tool result's names recur in it where the first scan missed them, the engine scans it
//! again with those names recalled (`Engine::recall_again`, `memo.rs`). The walk is a function
//! of the document and of what each detector call gives, and a recorded call gives, with the new
//! recall, its recorded candidates plus what that recall finds in its text, overlaps resolved.
//! So the second scan's findings differ from the first's only where a call now gives something
//! else, and only through what the walk did with that call's result.
//!
//! This module works that difference out without walking the document again. For every
//! recorded call it asks the new recall for names in the call's text (the one search a second
//! scan cannot avoid); a call where it finds none, in a scan whose first pass recalled nothing,
//! gives what it gave. A call that gives something else must be a *site* (`memo::Site`): a
//! string value read as plain text by that one call, whose result only becomes its own piece
//! and slots, and whose column evidence (whether a name covers most of it, whether it was left
//! open as a name-shaped clean value) is unchanged. Then the findings are the first scan's with
//! that string's piece and slots replaced, later slots renumbered. Anything else (a key, a
//! number, a cell of CSV in a string, a string whose column evidence changes) is left to the
//! full second scan, which gives the same findings by walking again.
//!
//! A site is a value of the document, or a value of a JSON document that one of the
//! document's strings holds: a tool result's text block is such a string. Whether that string
//! is read as JSON does not depend on what the calls find, only whether it is a piece does;
//! so a change inside it is patched into its pieces when the first scan found something there
//! and something is left after the change (`embedded_documents_stay`).

use std::ops::Range;

use super::memo::{RecalledCursor, ScanMemo, Site};
use super::spans::SpanSlots;
use super::{Content, Findings, FoundValue, Piece, columns};
use crate::detect::recall::Recall;
use crate::detect::{Detector, FindContext, Kind, Span, overlap};

/// A site whose call now gives `spans`.
struct Change<'m> {
    site: Site,
    text: &'m str,
    spans: Vec<Span>,
}

/// The findings a second scan of `doc` with `recall` would give, from `first` (the findings of
/// the scan `memo` recorded over `doc`), or `None` when a change is no site's (see the module
/// doc): the caller then scans again.
pub(super) fn again(
    detector: &Detector,
    recall: &Recall,
    doc: &str,
    memo: &ScanMemo,
    first: &mut Findings<FoundValue>,
) -> Option<()> {
    if !memo.is_of(doc) || !memo.is_patchable() || !first.json {
        return None;
    }
    let changes = changes(detector, recall, doc, memo)?;
    if !changes.is_empty() {
        apply_changes(first, changes)?;
    }
    Some(())
}

/// The pieces of the JSON document held by the string literal that starts at `outer` in the
/// document, if the first scan found something in it.
fn embedded(pieces: &[Piece], outer: usize) -> Option<&[Piece]> {
    let k = pieces.partition_point(|p| p.range.start < outer);
    match pieces.get(k) {
        Some(Piece {
            range,
            content: Content::Embedded(e),
        }) if range.start == outer && e.json => Some(&e.pieces),
        _ => None,
    }
}

/// [`embedded`], to change.
fn embedded_mut(pieces: &mut [Piece], outer: usize) -> Option<&mut Vec<Piece>> {
    let k = pieces.partition_point(|p| p.range.start < outer);
    match pieces.get_mut(k) {
        Some(Piece {
            range,
            content: Content::Embedded(e),
        }) if range.start == outer && e.json => Some(&mut e.pieces),
        _ => None,
    }
}

/// Whether every change inside an embedded JSON document can be patched into its pieces: the
/// first scan found something in that document (so the string that holds it is a piece of its
/// own, read as JSON), and it still holds a piece after the changes (a document where nothing
/// is left to replace is no piece, and its string then tells the column evidence something
/// else: the walk decides that).
fn embedded_documents_stay(pieces: &[Piece], changes: &[Change<'_>]) -> bool {
    let mut i = 0;
    while i < changes.len() {
        let Some(outer) = changes[i].site.outer else {
            i += 1;
            continue;
        };
        let Some(inner) = embedded(pieces, outer) else {
            return false;
        };
        let mut left = inner.len();
        // The changes in this document come one after the other (call order).
        while let Some(change) = changes.get(i).filter(|c| c.site.outer == Some(outer)) {
            let at = change.site.lit.start;
            let k = inner.partition_point(|p| p.range.start < at);
            let here = inner.get(k).is_some_and(|p| p.range.start == at);
            match (here, change.spans.is_empty()) {
                (true, true) => left -= 1,
                (false, false) => left += 1,
                _ => {}
            }
            i += 1;
        }
        if left == 0 {
            return false;
        }
    }
    true
}

/// The calls of `memo` that give something else with `recall`, each a site; `None` if one is
/// not.
fn changes<'m>(
    detector: &Detector,
    recall: &Recall,
    doc: &'m str,
    memo: &'m ScanMemo,
) -> Option<Vec<Change<'m>>> {
    let sites = memo.sites();
    let mut next_site = 0;
    let mut found = Vec::new();
    let mut spans = Vec::new();
    let mut changes = Vec::new();
    let first_recalled = memo.recalled_first();
    let mut recalled = RecalledCursor::default();
    for (i, call) in memo.each_call(doc).enumerate() {
        while next_site < sites && memo.site_call(next_site) < i {
            next_site += 1;
        }
        if call.text.is_empty() {
            continue;
        }
        let cx = FindContext {
            key: call.key,
            parent_key: call.parent_key,
            recall: Some(recall),
        };
        found.clear();
        if Detector::applies_recall(&cx, &call.facts) {
            match memo.recalled_within(doc, call.text, &mut recalled, &mut found) {
                Some(from) if from >= call.text.len() => {}
                Some(from) => recall.find_from(call.text, from, &mut found),
                None => recall.find(call.text, &mut found),
            }
        }
        // Room for the recalled spans too: they are appended. (One list for the calls that
        // give what they gave; a change takes it with it.)
        spans.clear();
        if first_recalled {
            spans.reserve(call.candidates.len() + found.len());
            spans.extend_from_slice(call.candidates);
            detector.finish_recalling_found(call.text, &cx, &call.facts, Some(&found), &mut spans);
        } else {
            // The recorded result was the candidates resolved, as now.
            if found.is_empty() {
                continue;
            }
            detector.extend_all_recalled(call.text, &mut found);
            if adds_nothing(&found, call.finals) {
                continue;
            }
            spans.reserve(call.candidates.len() + found.len());
            spans.extend_from_slice(call.candidates);
            spans.extend_from_slice(&found);
            overlap::resolve(&mut spans);
        }
        if spans == call.finals {
            continue;
        }
        if next_site >= sites || memo.site_call(next_site) != i {
            return None;
        }
        let site = memo.site(next_site);
        if let Some((is_name, open)) = site.column {
            let now_is_name = columns::covers_name(
                call.text,
                spans
                    .iter()
                    .map(|s| ((s.start..s.end).len(), s.kind == Kind::Name)),
            );
            let now_open = spans.is_empty() && detector.column_name(call.text).is_some();
            if now_is_name != is_name || now_open != open {
                return None;
            }
        }
        changes.push(Change {
            site,
            text: call.text,
            spans: std::mem::take(&mut spans),
        });
    }
    Some(changes)
}

/// Whether resolving a call's candidates with `recalled` (session recall's names in its text,
/// grown as [`Detector::extend_all_recalled`] grows them) gives `finals`, the candidates
/// resolved without them, because each recalled span is one of `finals` exactly: the common
/// case of a second scan, whose recall holds the names the first scan found, found again where
/// they were.
///
/// Such a span changes nothing in [`overlap::resolve`]: it has the start, length and kind of a
/// winner among the candidates, so it ranks with that winner and, added after the candidates,
/// comes after it in both of the resolution's stable sorts. Every candidate is then decided
/// as before (a recalled span is never kept: its twin is kept before it is reached), and the
/// span is dropped. (`resolve_unchanged_by_winners_twins` in the tests checks this.)
fn adds_nothing(recalled: &[Span], finals: &[Span]) -> bool {
    recalled.iter().all(|r| finals.contains(r))
}

/// Replaces each changed site's slots and piece in `findings`, renumbering the other slots;
/// `None`, with `findings` untouched, when a change inside an embedded document cannot be
/// patched in ([`embedded_documents_stay`]).
fn apply_changes(findings: &mut Findings<FoundValue>, changes: Vec<Change<'_>>) -> Option<()> {
    if !embedded_documents_stay(&findings.pieces, &changes) {
        return None;
    }
    // Old slot index -> new: each slot after a changed site moves by the sites' growth so far.
    // `shifts[k]`: the end of the `k`th changed site's old slots, and the growth up to it.
    let mut shifts: Vec<(usize, isize)> = Vec::with_capacity(changes.len());
    let mut old = std::mem::take(&mut findings.slots).into_iter();
    // Sized for what the changes leave: the slots grow as a change gives more than it takes.
    let gone: usize = changes.iter().map(|c| c.site.slots.len()).sum();
    let given: usize = changes.iter().map(|c| c.spans.len()).sum();
    let mut slots = Vec::with_capacity((old.len() + given).saturating_sub(gone));
    let mut at = 0;
    let mut growth = 0isize;
    // Each change's new pieces: its literal and its spans with their new slots.
    let mut replaced: Vec<(Option<usize>, Range<usize>, SpanSlots)> = Vec::new();
    for change in changes {
        let Site {
            lit,
            outer,
            slots: gone,
            ..
        } = &change.site;
        slots.extend(old.by_ref().take(gone.start - at));
        old.by_ref().take(gone.len()).for_each(drop);
        at = gone.end;
        // A change's one span is kept inline (`SpanSlots`).
        let spans: SpanSlots = change
            .spans
            .into_iter()
            .map(|span| {
                let slot = slots.len();
                // The text of the slots it replaces stays in the buffer, unread.
                slots.push(FoundValue::push(
                    &mut findings.values,
                    span.kind,
                    &change.text[span.start..span.end],
                    span.canonical,
                ));
                (span.start..span.end, slot)
            })
            .collect();
        growth += spans.len() as isize - gone.len() as isize;
        shifts.push((gone.end, growth));
        replaced.push((*outer, lit.clone(), spans));
    }
    slots.extend(old);
    findings.slots = slots;
    let moved = |slot: usize| -> usize {
        let k = shifts.partition_point(|&(end, _)| end <= slot);
        match k.checked_sub(1) {
            Some(k) => slot.saturating_add_signed(shifts[k].1),
            None => slot,
        }
    };
    for piece in &mut findings.pieces {
        renumber(&mut piece.content, &moved);
    }
    // The changed strings' pieces: replaced, added where the first scan found nothing, or
    // dropped. Pieces are in document order, an embedded document's in its own.
    for (outer, lit, spans) in replaced {
        let pieces = match outer {
            None => &mut findings.pieces,
            Some(outer) => match embedded_mut(&mut findings.pieces, outer) {
                Some(pieces) => pieces,
                // Not reached: `embedded_documents_stay` found each, and no change adds or
                // drops a piece of the document's own but a site's, which holds no document.
                None => continue,
            },
        };
        let k = pieces.partition_point(|p| p.range.start < lit.start);
        let here = pieces.get(k).is_some_and(|p| p.range.start == lit.start);
        match (here, spans.is_empty()) {
            (true, true) => {
                pieces.remove(k);
            }
            (true, false) => pieces[k].content = Content::Spans(spans),
            (false, false) => pieces.insert(
                k,
                Piece {
                    range: lit,
                    content: Content::Spans(spans),
                },
            ),
            (false, true) => {}
        }
    }
    Some(())
}

/// Maps every slot index in `content` through `moved`.
fn renumber(content: &mut Content, moved: &impl Fn(usize) -> usize) {
    match content {
        Content::Slot(slot) => *slot = moved(*slot),
        Content::Spans(spans) => {
            for (_, slot) in spans {
                *slot = moved(*slot);
            }
        }
        Content::Number(spans) => {
            for (_, slot) in spans.iter_mut() {
                *slot = moved(*slot);
            }
        }
        Content::Embedded(e) => {
            for piece in &mut e.pieces {
                renumber(&mut piece.content, moved);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::{rescan_json_walking, scan_json_except, scan_json_recorded};

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]
        /// [`adds_nothing`]'s premise: candidates resolved with twins of some of their winners
        /// appended resolve to what they resolve to alone. Dense overlapping candidates of
        /// kinds of every rank, some with a canonical form, in clusters small and large.
        #[test]
        fn resolve_unchanged_by_winners_twins(
            raw in proptest::collection::vec((0usize..60, 1usize..9, 0usize..5), 0..48),
            picks in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..8),
        ) {
            let kinds = [Kind::Name, Kind::Email, Kind::Phone, Kind::Id(crate::kind::IdKind::ALL[0]), Kind::Secret];
            let candidates: Vec<Span> = raw
                .iter()
                .map(|&(start, len, k)| Span {
                    start,
                    end: start + len,
                    kind: kinds[k].clone(),
                    canonical: (k == 2).then(|| std::sync::Arc::from(format!("{start}").as_str())),
                })
                .collect();
            let mut finals = candidates.clone();
            overlap::resolve(&mut finals);
            if !finals.is_empty() {
                let twins: Vec<Span> =
                    picks.iter().map(|i| finals[i.index(finals.len())].clone()).collect();
                proptest::prop_assert!(adds_nothing(&twins, &finals));
                let mut with = candidates;
                with.extend(twins);
                overlap::resolve(&mut with);
                proptest::prop_assert_eq!(with, finals);
            }
        }
    }

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

    const NONE: &dyn Fn(&crate::walk::json::Position<'_>) -> bool = &|_| false;

    /// Whether the patch applies to `doc` scanned first with `first` and again with `names`,
    /// and, either way, that a second scan gives what a fresh scan with `names` gives.
    fn check(detector: &Detector, doc: &str, first: Option<&Recall>, names: &[&str]) -> bool {
        let recall = Recall::of_names(names.iter().copied());
        let fresh = scan_json_except(detector, Some(&recall), doc, NONE).unwrap();
        let (mut found, record) = scan_json_recorded(detector, first, doc, NONE).unwrap();
        let patched = again(detector, &recall, doc, &record.memo, &mut found).is_some();
        if patched {
            assert_eq!(shown(&found), shown(&fresh), "patched: {doc} {names:?}");
        }
        let (_, record) = scan_json_recorded(detector, first, doc, NONE).unwrap();
        let walked = rescan_json_walking(detector, Some(&recall), record, NONE).unwrap();
        assert_eq!(shown(&walked), shown(&fresh), "walked: {doc} {names:?}");
        patched
    }

    #[test]
    fn names_recalled_in_plain_values_are_patched_in() {
        let detector = Detector::with_defaults();
        let names = ["Ysolde Brackwater", "Brackwater", "Haddad"];
        let recall = Recall::of_names(names);
        let some = Recall::of_names(["Ysolde Brackwater"]);
        let mut changed = 0;
        for doc in [
            r#"[{"notes":"Ysolde Brackwater called today"},{"notes":"then brackwater left"}]"#,
            r#"{"who":"Ysolde Brackwater","notes":"then brackwater left, said haddad"}"#,
            r#"[{"name":"Ysolde Brackwater","notes":"ask brackwater first"},{"name":"Omar Haddad"}]"#,
            r#"[{"name":"Ysolde Brackwater","notes":"ask brackwater first"},{"name":"x","email":"a@b.io"}]"#,
            r#"[{"name":"Ysolde Brackwater"},{"notes":"ask brackwater or Ysolde Brackwater","phone":"+1 415-555-0132"}]"#,
            r#"[{"notes":"we met haddad","who":"Omar Haddad"},{"notes":"brackwater \u0021 haddad"}]"#,
        ] {
            let first = scan_json_except(&detector, None, doc, NONE).unwrap();
            let fresh = scan_json_except(&detector, Some(&recall), doc, NONE).unwrap();
            if shown(&first) != shown(&fresh) {
                changed += usize::from(check(&detector, doc, None, &names));
                changed += usize::from(check(&detector, doc, Some(&some), &names));
            }
        }
        // Some of them patched (not walked again) with a change.
        assert!(changed >= 2, "{changed}");
        // Unchanged: nothing recalled occurs.
        let doc = r#"[{"name":"Omar Haddad","notes":"ask haddad"}]"#;
        assert!(check(&detector, doc, None, &["Maria Garcia"]));
    }

    /// `text` as an MCP tool result's text block.
    fn tool_result(text: &str) -> String {
        serde_json::json!({"content": [{"type": "text", "text": text}], "isError": false})
            .to_string()
    }

    #[test]
    fn names_recalled_in_an_embedded_document_are_patched_in() {
        let detector = Detector::with_defaults();
        // Learned from an earlier result, recalled in lower case in notes.
        let names = ["Ysolde Brackwater", "Brackwater"];
        let recall = Recall::of_names(names);
        for doc in [
            r#"[{"notes":"we asked brackwater about the invoice, today.","email":"ysolde@example.com"},{"notes":"please ask brackwater: the invoice is late."}]"#,
            r#"[{"name":"Omar Haddad","notes":"please ask brackwater: the invoice is late."},{"name":"Maria Garcia"}]"#,
            r#"{"who":"Omar Haddad","notes":"we met brackwater \u0021 today"}"#,
        ] {
            let doc = tool_result(doc);
            let first = scan_json_except(&detector, None, &doc, NONE).unwrap();
            let fresh = scan_json_except(&detector, Some(&recall), &doc, NONE).unwrap();
            assert_ne!(shown(&first), shown(&fresh), "{doc}");
            assert!(check(&detector, &doc, None, &names), "{doc}");
        }
        // Two text blocks, a change in each, and one in a plain value beside them.
        let doc = serde_json::json!({
            "content": [
                {"type": "text", "text": r#"[{"name":"Omar Haddad","notes":"please ask brackwater: the invoice."}]"#},
                {"type": "text", "text": r#"{"notes":"we asked brackwater about the invoice, today.","email":"a@b.io"}"#},
            ],
            "note": "brackwater wrote again about the invoice",
        })
        .to_string();
        assert!(check(&detector, &doc, None, &names));
        // A change in an embedded document where the first scan found nothing (so the string
        // that holds it is no piece yet) walks again, and still gives a fresh scan's findings.
        let doc = tool_result(r#"[{"notes":"we asked brackwater about the invoice, today."}]"#);
        assert!(!check(&detector, &doc, None, &names));
    }

    #[test]
    fn a_change_outside_a_plain_value_walks_again() {
        let detector = Detector::with_defaults();
        let names = ["Omar Haddad", "Haddad"];
        let recall = Recall::of_names(names);
        // Recalled names in keys, and in cells of CSV inside a string.
        for docs in [
            [
                r#"{"ask haddad":"x","b":"y"}"#,
                r#"{"haddad":"x"}"#,
                r#"{"Haddad":"x"}"#,
                r#"{"to haddad":"x"}"#,
            ],
            [
                r#"{"rows":"id,note\n1,ask haddad today\n2,none"}"#,
                r#"{"rows":"id,note\n1,haddad\n2,none"}"#,
                r#"{"rows":"id,note\n1,Haddad\n2,none"}"#,
                r#"{"rows":"id,note\n1,to haddad\n2,none"}"#,
            ],
        ] {
            let mut changed = 0;
            for doc in docs {
                let first = scan_json_except(&detector, None, doc, NONE).unwrap();
                let fresh = scan_json_except(&detector, Some(&recall), doc, NONE).unwrap();
                let patched = check(&detector, doc, None, &names);
                if shown(&first) != shown(&fresh) {
                    changed += 1;
                    assert!(!patched, "{doc}");
                }
            }
            assert!(changed > 0, "{docs:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Patched or walked again, a second scan gives what a fresh scan with the same recall
        /// gives, on records of names, lower-case recurrences, CSV, embedded JSON, escapes and
        /// other kinds, whatever the first scan recalled.
        #[test]
        fn a_second_scan_is_a_fresh_scan(
            records in proptest::collection::vec(
                proptest::collection::vec(
                    (
                        proptest::sample::select(vec![
                            "name", "notes", "city", "who", "email", "text", "haddad", "phone",
                            "first_name", "company",
                        ]),
                        proptest::collection::vec(
                            proptest::sample::select(vec![
                                "Omar", "Haddad", "omar haddad", "Maria Garcia", "Zola", "met",
                                "and", "x@y.io", "Ysolde Brackwater", "\n", "é", "\"",
                                "Garcia,Omar\nMaria,Zola\nHaddad,Ysolde", "{\"who\":\"Omar\"}",
                                "+1 415 555 0132", "brackwater", "Dear", ".",
                            ]),
                            0..6,
                        ),
                    ),
                    1..5,
                ),
                1..5,
            ),
            names in proptest::sample::subsequence(
                vec!["Omar Haddad", "Haddad", "Maria Garcia", "Zola", "Brackwater", "Omar"],
                0..6,
            ),
            first_recalls in proptest::bool::ANY,
            wrapped in proptest::bool::ANY,
        ) {
            let detector = Detector::with_defaults();
            let doc: Vec<serde_json::Value> = records
                .iter()
                .map(|fields| {
                    serde_json::Value::Object(
                        fields
                            .iter()
                            .map(|(k, words)| (k.to_string(), words.join(" ").into()))
                            .collect(),
                    )
                })
                .collect();
            let mut doc = serde_json::to_string(&doc).unwrap();
            if wrapped {
                doc = tool_result(&doc);
            }
            let first = Recall::of_names(names.iter().copied().take(1));
            check(&detector, &doc, first_recalls.then_some(&first), &names);
        }
    }
}
