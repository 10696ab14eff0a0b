//! The engine: a detector and a vault, tokenizing and rehydrating whole documents.
//!
//! [`Engine`] glues the three steps of [`crate::walk`] (scan, vault call, apply) together for
//! callers that want a document in and a document out: the CLI, the MCP interceptor, library
//! users. It is cheap to clone (two `Arc`s) and shared across tasks.
//!
//! Two rules keep what the model sees consistent within a session (with session recall on,
//! the default):
//!
//! - **A full name made of the session's names is written as their tokens.** A NAME found in a
//!   message whose value the session never minted whole, but whose every word (two to four) is
//!   a NAME the session minted (or one this message mints alone), comes out as those tokens:
//!   `first_name: Amber` → `[NAME_1]`, `last_name: Jackson` → `[NAME_2]`, then "Dear Amber
//!   Jackson" (the model's own "Dear `[NAME_1] [NAME_2]`", restored and read back) →
//!   "Dear `[NAME_1] [NAME_2]`", not a token the model never saw. The words are minted in the same
//!   single vault call as the rest of the message. A full name minted whole before keeps its
//!   own token.
//! - **The same content reads the same way twice.** A message's names are recalled in the
//!   message itself: when a name found in it (a `first_name` value) recurs in it where the
//!   finder alone missed it (lower case in a note), the message is scanned once more with that
//!   name recalled, so its first read already shows what a second read would.

use std::borrow::Cow;
use std::sync::Arc;

use crate::detect::recall::{MAX_RECALLED_NAMES, Recall, RecallBook};
use crate::detect::{Detector, FindContext, Kind, Span};
use crate::token::Token;
use crate::vault::{Entry, MintRequest, SessionId, VaultBackend, VaultError};
use crate::walk::{self, Findings, FoundTokenAt, FoundValue, FoundValues, WalkError};

mod output;
pub use output::{Deferred, Tokenized};

/// A byte range of a value.
type Range = std::ops::Range<usize>;

/// The byte ranges of the words of `value` (split like [`crate::detect::words`]).
fn word_ranges(value: &str) -> impl Iterator<Item = Range> + '_ {
    crate::detect::words(value).map(|w| {
        let start = w.as_ptr() as usize - value.as_ptr() as usize;
        start..start + w.len()
    })
}

/// The vault's normal forms of a message's NAME values, one after another in one buffer (a
/// message mints thousands of names: one allocation for all of them, not one each).
struct NameForms {
    buf: String,
    /// Per slot, the range of its value's form in `buf` (NAME slots only).
    of_slot: Vec<Option<Range>>,
    /// The words of the full names that are candidates to be written as their words' tokens
    /// ([`Composed::words`]): each word's byte range in its value, and the range of its form
    /// in `buf`.
    words: Vec<Range>,
    parts: Vec<Range>,
    scratch: String,
}

impl NameForms {
    /// Appends the normal form of the NAME `value`; returns its range.
    fn push(&mut self, value: &str) -> Range {
        let start = self.buf.len();
        match crate::vault::normalize_into(&Kind::Name, value, None, &mut self.scratch) {
            Some(form) => self.buf.push_str(form),
            None => self.buf.push_str(&self.scratch),
        }
        start..self.buf.len()
    }

    /// The form of slot `i`, if it is a NAME.
    fn of_slot(&self, i: usize) -> Option<&str> {
        let r = self.of_slot.get(i)?.clone()?;
        self.buf.get(r)
    }

    /// The byte ranges of the words of a composed name in its value.
    fn words(&self, c: &Composed) -> &[Range] {
        self.words.get(c.words.clone()).unwrap_or_default()
    }

    /// The form of word `w` of a composed name.
    fn part(&self, c: &Composed, w: usize) -> Option<&str> {
        let r = self.parts.get(c.words.start + w)?.clone();
        self.buf.get(r)
    }
}

/// A NAME slot written as its words' tokens (see the module doc).
struct Composed {
    slot: usize,
    /// Its words in [`NameForms::words`] and [`NameForms::parts`].
    words: Range,
}

/// How often, at most, a session's names that other replicas tokenized are read from a shared
/// vault before a scan: a name one replica tokenizes is recalled on the others within this.
pub const RECALL_SYNC_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Detector + vault.
#[derive(Clone, Debug)]
pub struct Engine {
    detector: Arc<Detector>,
    vault: Arc<dyn VaultBackend>,
    /// Names each session has tokenized, when the detector recalls names.
    recall: Option<Arc<RecallBook>>,
}

/// A scanned outbound document: its tokens, resolved, ready for a decision and [`walk::apply`].
#[derive(Debug)]
pub struct Resolved {
    /// Where each token occurs.
    pub findings: walk::Findings<FoundTokenAt>,
    /// The vault entry of each occurrence (`None`: the session never minted it).
    pub entries: Vec<Option<Entry>>,
}

impl Resolved {
    /// Tokens the session never minted, deduplicated, in order of first occurrence.
    pub fn unknown_tokens(&self) -> Vec<Token> {
        let mut out: Vec<Token> = Vec::new();
        for (slot, entry) in self.findings.slots.iter().zip(&self.entries) {
            if entry.is_none() && !out.contains(&slot.token) {
                out.push(slot.token.clone());
            }
        }
        out
    }
}

/// What [`Engine::recall_again`] finds about a message's fresh names.
enum Recheck {
    /// No second scan, and nothing to hand on to the learning step.
    Done,
    /// A second scan with the session's recall, the message's new names included.
    Again(Again),
    /// No second scan; the count's table of a session that recalled nothing, with at least
    /// one name: what learning the message's names builds when they are learned as found
    /// ([`Engine::learn_with_forms`], [`RecallBook::adopt`]).
    Fresh(Recall),
}

/// What [`Engine::recall_again`] gives for a second scan.
struct Again {
    /// The session's recall, the message's new names included.
    recall: Arc<Recall>,
    /// What `recall` finds in the counted text, when `recall` is the very table the count was
    /// made with (a session that recalled nothing before), as far as [`Keep`] says.
    found: Option<Vec<Span>>,
}

/// What [`Engine::recall_again`]'s count over the message keeps of what it finds, for a
/// session that recalled nothing before (whose second scan recalls with the count's table).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Nothing: the count stops at the occurrence past those it expects.
    Nothing,
    /// Every occurrence (a text, which the second scan replays whole).
    All,
    /// The occurrences as far as the count reads, stopping where it stops (a JSON document,
    /// whose patch takes each string's names from them).
    UpToExcess,
}

/// Why the engine could not rewrite a document. Messages carry token names, never values.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The document could not be scanned or rewritten.
    #[error(transparent)]
    Walk(#[from] WalkError),
    /// The vault failed (full session, backend down).
    #[error(transparent)]
    Vault(#[from] VaultError),
    /// Outbound text names tokens this session never minted.
    #[error("unknown token(s) in this session: {}", list(.0))]
    UnknownTokens(Vec<Token>),
}

fn list(tokens: &[Token]) -> String {
    tokens
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Engine {
    /// An engine over a compiled detector and a vault backend.
    pub fn new(detector: Arc<Detector>, vault: Arc<dyn VaultBackend>) -> Engine {
        let recall = detector
            .recalls_names()
            .then(|| Arc::new(RecallBook::default()));
        Engine {
            detector,
            vault,
            recall,
        }
    }

    /// The detector.
    pub fn detector(&self) -> &Arc<Detector> {
        &self.detector
    }

    /// The vault.
    pub fn vault(&self) -> &Arc<dyn VaultBackend> {
        &self.vault
    }

    /// Forgets the names a session recalls (its vault table stays): for a front end that holds
    /// one engine for many sessions and closes one of them.
    pub fn forget_recall(&self, session: &SessionId) {
        if let Some(book) = &self.recall {
            book.forget(session);
        }
    }

    /// Ends a session: drops its vault table and the names it recalls.
    pub async fn end_session(&self, session: &SessionId) -> Result<(), EngineError> {
        if let Some(book) = &self.recall {
            book.forget(session);
        }
        Ok(self.vault.end_session(session).await?)
    }

    /// The session's recalled names, compiled (see [`crate::detect::recall`]). With a vault
    /// shared by replicas, first reads the names other replicas tokenized since the last read
    /// (at most every [`RECALL_SYNC_EVERY`]); if the vault cannot be read, recall goes on with
    /// the names this process knows.
    pub(crate) async fn recall_for(&self, session: &SessionId) -> Option<Arc<Recall>> {
        self.read_recall(session).await.0
    }

    /// [`Self::recall_for`], and the error if the shared vault could not be reached to bring the
    /// session's names up to date.
    async fn read_recall(&self, session: &SessionId) -> (Option<Arc<Recall>>, Option<VaultError>) {
        let Some(book) = self.recall.as_ref() else {
            return (None, None);
        };
        let mut unreachable = None;
        if self.vault.shares_sessions()
            && let Some(after) = book.sync_due(session, RECALL_SYNC_EVERY)
        {
            match self
                .vault
                .entries_after(session, &Kind::Name, after, MAX_RECALLED_NAMES)
                .await
            {
                Ok(entries) => {
                    if let Some(last) = entries.last() {
                        book.synced(session, last.token.n);
                    }
                    self.recall_names(session, entries.iter().map(|e| e.value.expose().as_str()));
                }
                Err(error) => {
                    tracing::warn!(
                        %error,
                        "session recall: could not read the names other replicas tokenized"
                    );
                    if matches!(error, VaultError::Unavailable(_)) {
                        unreachable = Some(error);
                    }
                }
            }
        }
        (book.snapshot(session), unreachable)
    }

    /// Teaches the session names it tokenized earlier (a session restored from a file), so they
    /// are recalled like names found in this process. Values that are not distinctive enough
    /// are skipped, as they are when found (they still count as the session's names for
    /// writing a full name as its words' tokens).
    pub fn recall_names<'v>(&self, session: &SessionId, names: impl IntoIterator<Item = &'v str>) {
        if self.recall.is_none() {
            return;
        }
        let names: Vec<&str> = names.into_iter().collect();
        // The normal forms one after another in one buffer, not a `String` each.
        let mut forms = String::new();
        let mut scratch = String::new();
        let mut ranges: Vec<Range> = Vec::with_capacity(names.len());
        for v in &names {
            let start = forms.len();
            match crate::vault::normalize_into(&Kind::Name, v, None, &mut scratch) {
                Some(form) => forms.push_str(form),
                None => forms.push_str(&scratch),
            }
            ranges.push(start..forms.len());
        }
        self.learn_with_forms(
            session,
            names
                .into_iter()
                .zip(ranges.iter().map(|r| &forms[r.clone()])),
            None,
        );
    }

    /// [`Self::recall_names`] of names given with their normal forms (`vault::normalize` of
    /// each as a NAME). `fresh`, when given, is [`Recall::of_names_upto`] of the distinctive
    /// `names` with a whole session's room ([`Recheck::Fresh`]): a session that still recalls
    /// nothing takes it rather than build it again ([`RecallBook::adopt`]).
    fn learn_with_forms<'v>(
        &self,
        session: &SessionId,
        names: impl Iterator<Item = (&'v str, &'v str)> + Clone,
        fresh: Option<Recall>,
    ) {
        let Some(book) = &self.recall else { return };
        book.learn_known(session, names.clone().map(|(_, form)| form));
        let names = names
            .map(|(v, _)| v)
            .filter(|v| self.detector.is_distinctive_name(v));
        match fresh {
            Some(table) => {
                book.adopt(session, table, names);
            }
            None => {
                book.learn(session, names);
            }
        }
    }

    /// When a distinctive name found in `doc` (a scan's `found`) that the session has room to
    /// recall recurs in it more often than it was found, teaches the session the message's
    /// names now and returns the session's recall for a second scan of `doc` (see the module
    /// doc). `doc` is read only when a fresh name was found (decoding a JSON document's escapes
    /// costs a copy of it).
    ///
    /// A session that recalled nothing takes the count's table as its recall
    /// ([`RecallBook::adopt`]). Then what the count finds is what the second scan's recall finds
    /// in `doc`, and `keep` says how much of it comes back in [`Again::found`]: with
    /// [`Keep::All`] (a text, scanned again whole) the count is a whole `Recall::find`.
    ///
    /// With no second scan, a session that recalled nothing gets the count's table back
    /// ([`Recheck::Fresh`]): the scan's findings stand, so their distinctive names, learned as
    /// found, are the table's names in the table's order (`finish_tokenize` hands it to
    /// [`Self::learn_with_forms`]).
    ///
    /// Also gives the counted text when it is no slice of the message (a JSON document's text
    /// with its escapes read; [`Again::found`] is in it): the first scan's record reads the
    /// decoded literals the text took from it there (`walk::counted_text`), so it goes on
    /// with a second scan, and is a spare buffer otherwise.
    fn recall_again<'d>(
        &self,
        session: &SessionId,
        doc: impl FnOnce() -> Cow<'d, str>,
        before: Option<&Recall>,
        found: &Findings<FoundValue>,
        keep: Keep,
    ) -> (Recheck, Option<String>) {
        let Some(book) = self.recall.as_ref() else {
            return (Recheck::Done, None);
        };
        // A message repeats its names (a record's name in other records' notes): each
        // distinct value is judged and counted once, and weighs as often as it was found.
        // (SipHash: the values are the server's to choose.)
        // Sized for every NAME found, so that it never grows (each growth hashes every key
        // again).
        let names = found.slots.iter().filter(|f| f.kind == Kind::Name).count();
        let mut seen: std::collections::HashMap<&str, (bool, usize)> =
            std::collections::HashMap::with_capacity(names);
        // Each fresh value once, in order of first occurrence: the table and the session
        // learn the same names in the same order as from every occurrence (a repeat adds
        // nothing, and the session's cap counts names).
        let mut new: Vec<&str> = Vec::new();
        for f in found.slots.iter().filter(|f| f.kind == Kind::Name) {
            let v = *found.value_of(f).expose();
            let entry = seen.entry(v).or_insert_with(|| {
                let fresh =
                    !before.is_some_and(|r| r.contains(v)) && self.detector.is_distinctive_name(v);
                if fresh {
                    new.push(v);
                }
                (fresh, 0)
            });
            if entry.0 {
                entry.1 += 1;
            }
        }
        if new.is_empty() {
            return (Recheck::Done, None);
        }
        // Only the names the session has room to learn: a second scan recalls no others, so
        // only their occurrences can make one worth it.
        let room = MAX_RECALLED_NAMES.saturating_sub(before.map_or(0, Recall::names));
        let table = Recall::of_names_upto(new.iter().copied(), room);
        // The same matcher over the found values themselves: a doc with more matches holds an
        // occurrence the scan missed. (Counting found values instead would let a found name
        // the matcher reads differently, a CJK name say, hide a missed one.)
        let in_found = table.count_weighted(
            seen.iter()
                .filter(|(_, (fresh, _))| *fresh)
                .map(|(v, (_, times))| (*v, *times)),
        );
        // Read only as far as the first occurrence past those, unless all is kept.
        let keep = if before.is_none() {
            keep
        } else {
            Keep::Nothing
        };
        // Room for what the count keeps: all it reads up to the one past those (and past it, a
        // whole find reads on), so that the list does not grow as it fills.
        let mut spans = match keep {
            Keep::Nothing => Vec::new(),
            Keep::All | Keep::UpToExcess => Vec::with_capacity(in_found + 1),
        };
        let text = doc();
        let exceeds = match keep {
            Keep::Nothing => table.count_exceeds(&text, in_found),
            Keep::All => {
                table.find(&text, &mut spans);
                spans.len() > in_found
            }
            Keep::UpToExcess => table.find_exceeding(&text, in_found, &mut spans),
        };
        let counted = match text {
            Cow::Owned(text) => Some(text),
            Cow::Borrowed(_) => None,
        };
        if !exceeds {
            // Learning names that all fold to less than two characters makes the session no
            // table at all, so an empty one is not handed on.
            let recheck = match before {
                None if table.names() > 0 => Recheck::Fresh(table),
                _ => Recheck::Done,
            };
            return (recheck, counted);
        }
        // Only recall learns them now: the session's known names are what it minted. A session
        // that recalled nothing takes the count's table, which is what it would learn.
        let again = if before.is_none() {
            let (recall, adopted) = book.adopt(session, table, new);
            let kept = keep != Keep::Nothing && adopted;
            recall.map(|recall| Again {
                recall,
                found: kept.then_some(spans),
            })
        } else {
            book.learn(session, new);
            book.snapshot(session).map(|recall| Again {
                recall,
                found: None,
            })
        };
        (again.map_or(Recheck::Done, Recheck::Again), counted)
    }

    /// The normal form (`vault::normalize` as a NAME) of each NAME slot's value, worked out
    /// once for the plan, the vault and what the session learns.
    fn name_forms(slots: &Findings<FoundValue>) -> NameForms {
        // Room for forms as long as their values (most are), so that the buffer seldom grows.
        let names: usize = slots
            .slots
            .iter()
            .filter(|f| f.kind == Kind::Name)
            .map(FoundValue::len)
            .sum();
        let mut forms = NameForms {
            buf: String::with_capacity(names),
            of_slot: Vec::with_capacity(slots.slots.len()),
            words: Vec::new(),
            parts: Vec::new(),
            scratch: String::new(),
        };
        for f in &slots.slots {
            let form = (f.kind == Kind::Name).then(|| forms.push(slots.value_of(f).expose()));
            forms.of_slot.push(form);
        }
        forms
    }

    /// Which NAME slots of `slots` are full names to write as their words' tokens (see the
    /// module doc): in slot order, each such slot, the byte ranges of its words in its value,
    /// with its words and their normal forms in `forms`.
    fn compose_plan(
        &self,
        session: &SessionId,
        slots: &Findings<FoundValue>,
        forms: &mut NameForms,
    ) -> Vec<Composed> {
        let Some(book) = &self.recall else {
            return Vec::new();
        };
        // Sized for every NAME slot, so that none of these grows as it fills.
        let names = forms.of_slot.iter().filter(|r| r.is_some()).count();
        let mut candidates: Vec<Composed> = Vec::with_capacity(names);
        // The names of one word (their set below is built from these, at its final size).
        let mut single_slots: Vec<usize> = Vec::with_capacity(names);
        forms.words.reserve(names * 2);
        forms.parts.reserve(names * 2);
        for (i, f) in slots.slots.iter().enumerate() {
            if f.kind != Kind::Name {
                continue;
            }
            let value = *slots.value_of(f).expose();
            let ascii = value.is_ascii();
            // The value's words, read once: kept for a name of two to four words.
            let first = forms.words.len();
            // An ASCII value as long as its form has its form's words at the same offsets (its
            // white space is single separators, as the form's spaces): they are read off the
            // form's spaces, without splitting the value again.
            let aligned = forms.of_slot[i]
                .clone()
                .filter(|r| ascii && r.len() == value.len());
            match aligned {
                // Up to five words, as below (a fifth only says there are too many). Byte by
                // byte: a name is a few bytes, too short for a search to pay.
                Some(r) => {
                    let form = &forms.buf.as_bytes()[r];
                    if !form.is_empty() {
                        let mut at = 0;
                        for (k, &b) in form.iter().enumerate() {
                            if b == b' ' {
                                forms.words.push(at..k);
                                at = k + 1;
                                if forms.words.len() - first == 4 {
                                    break;
                                }
                            }
                        }
                        forms.words.push(at..form.len());
                    }
                }
                None => forms.words.extend(word_ranges(value).take(5)),
            }
            let words = forms.words.len() - first;
            if words <= 1 {
                single_slots.push(i);
            }
            if !(2..=4).contains(&words) {
                forms.words.truncate(first);
                continue;
            }
            // An ASCII value's form is its words in lower case, one space apart: each word's
            // form is the word's stretch of it (words hold no space, lower case keeps length).
            let full = forms.of_slot[i].clone().filter(|_| ascii);
            let mut at = full.as_ref().map_or(0, |r| r.start);
            for k in first..forms.words.len() {
                let r = forms.words[k].clone();
                let part = match &full {
                    Some(_) => {
                        let part = at..at + r.len();
                        at = part.end + 1;
                        part
                    }
                    None => forms.push(&value[r]),
                };
                forms.parts.push(part);
            }
            candidates.push(Composed {
                slot: i,
                words: first..forms.words.len(),
            });
        }
        if candidates.is_empty() {
            return candidates;
        }
        // Single words this message mints as names.
        let singles: std::collections::HashSet<&str> = single_slots
            .iter()
            .filter_map(|&i| Some(&forms.buf[forms.of_slot[i].clone()?]))
            .collect();
        let mut refs: Vec<&str> = Vec::with_capacity(candidates.len() + forms.parts.len());
        for c in &candidates {
            let full = forms.of_slot[c.slot].clone().unwrap_or_default();
            refs.push(&forms.buf[full]);
            refs.extend(
                forms.parts[c.words.clone()]
                    .iter()
                    .map(|r| &forms.buf[r.clone()]),
            );
        }
        let known = book.known(session, &refs);
        let mut at = 0;
        let mut plan = Vec::new();
        for c in candidates {
            let n = c.words.len();
            let (full, known_parts) = (known[at], &known[at + 1..at + 1 + n]);
            let part_forms = &refs[at + 1..at + 1 + n];
            at += 1 + n;
            let all_known = known_parts
                .iter()
                .zip(part_forms)
                .all(|(&k, form)| k || singles.contains(*form));
            if !full && all_known {
                plan.push(c);
            }
        }
        plan
    }

    /// Tokenizes a JSON document in place. `origin` is recorded with each minted token.
    pub async fn tokenize_json<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        doc: &'a str,
    ) -> Result<Tokenized<'a>, EngineError> {
        self.tokenize_json_except(session, origin, doc, &|_| false, &[])
            .await
    }

    /// [`Engine::tokenize_json`], with the document left to be written ([`Deferred`]).
    pub async fn tokenize_json_deferred<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        doc: &'a str,
    ) -> Result<Deferred<'a>, EngineError> {
        self.json_deferred(session, origin, doc, &|_| false, &[])
            .await
    }

    /// Tokenizes a JSON document in place, leaving alone the string values `skip` selects
    /// (binary blobs). Used by the MCP interceptor, which has read the document's strings
    /// already and passes where the long ones end (`known`, in `doc`, in order: see
    /// `walk::json::for_each_value_known`).
    pub(crate) async fn tokenize_json_except<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        doc: &'a str,
        skip: &(dyn Fn(&walk::json::Position<'_>) -> bool + Sync),
        known: &[Range],
    ) -> Result<Tokenized<'a>, EngineError> {
        self.json_deferred(session, origin, doc, skip, known)
            .await?
            .into_tokenized()
    }

    async fn json_deferred<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        doc: &'a str,
        skip: &(dyn Fn(&walk::json::Position<'_>) -> bool + Sync),
        known: &[Range],
    ) -> Result<Deferred<'a>, EngineError> {
        let (recall, unreachable) = self.read_recall(session).await;
        if self.recall.is_none() {
            // No session recall: no second scan.
            let findings = walk::scan_json_known(&self.detector, None, doc, skip, known)?;
            return self
                .finish_deferred(session, origin, doc, findings, unreachable, None)
                .await;
        }
        // The first scan is recorded call by call: a second one reuses what it found.
        let (mut findings, mut first) =
            walk::scan_json_recorded_known(&self.detector, recall.as_deref(), doc, skip, known)?;
        // Counted over the document's text with its string escapes read: a name that opens a
        // line follows `\n` in the raw JSON, where the matcher sees a word going on. What the
        // count finds is kept, for the patch to take string by string instead of searching
        // each string again (`walk/memo.rs`); a document with no escape is its own text.
        let (again, counted) = self.recall_again(
            session,
            || walk::counted_text(&mut first),
            recall.as_deref(),
            &findings,
            Keep::UpToExcess,
        );
        // Learning the names found copies the session's recall tables if a snapshot is held.
        drop(recall);
        let mut fresh = None;
        // The largest text the scans decoded, once they are done with it: the document is
        // written into it ([`Deferred::into_tokenized`]).
        let spare = match again {
            Recheck::Again(Again { recall, found }) => {
                let spare;
                (findings, spare) = walk::rescan_json(
                    &self.detector,
                    Some(&recall),
                    first,
                    findings,
                    found,
                    counted,
                    skip,
                )?;
                spare
            }
            // Not held across the vault's round trip.
            Recheck::Fresh(table) => {
                fresh = Some(table);
                counted.or_else(|| first.into_spare())
            }
            Recheck::Done => counted.or_else(|| first.into_spare()),
        };
        let mut deferred = self
            .finish_deferred(session, origin, doc, findings, unreachable, fresh)
            .await?;
        deferred.spare = spare;
        Ok(deferred)
    }

    /// Tokenizes text (JSON or CSV inside it keep their structure).
    pub async fn tokenize_text<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        text: &'a str,
    ) -> Result<Tokenized<'a>, EngineError> {
        self.tokenize_text_deferred(session, origin, text)
            .await?
            .into_tokenized()
    }

    /// [`Engine::tokenize_text`], with the text left to be written ([`Deferred`]).
    pub async fn tokenize_text_deferred<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        text: &'a str,
    ) -> Result<Deferred<'a>, EngineError> {
        let (recall, unreachable) = self.read_recall(session).await;
        let cx = FindContext {
            recall: recall.as_deref(),
            ..FindContext::default()
        };
        if self.recall.is_none() {
            // No session recall: no second scan.
            let findings = walk::scan_text(&self.detector, text, &cx);
            return self
                .finish_deferred(session, origin, text, findings, unreachable, None)
                .await;
        }
        // The first scan is recorded call by call: a second one reuses what it found.
        let (mut findings, first) = walk::scan_text_recorded(&self.detector, text, &cx);
        let (again, _) = self.recall_again(
            session,
            || Cow::Borrowed(text),
            recall.as_deref(),
            &findings,
            Keep::All,
        );
        drop(recall);
        let mut fresh = None;
        match again {
            Recheck::Again(Again { recall, found }) => {
                let cx = FindContext {
                    recall: Some(&recall),
                    ..FindContext::default()
                };
                findings = walk::rescan_text(&self.detector, first, &cx, found, findings);
            }
            // Not held across the vault's round trip.
            Recheck::Fresh(table) => {
                fresh = Some(table);
                drop(first);
            }
            Recheck::Done => drop(first),
        }
        self.finish_deferred(session, origin, text, findings, unreachable, fresh)
            .await
    }

    /// Mints the findings' tokens, writes them into `doc` and teaches the session the names
    /// minted. `fresh` is [`Recheck::Fresh`]'s table, when the findings are those it was made
    /// from.
    async fn finish_deferred<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        doc: &'a str,
        mut findings: walk::Findings<FoundValue>,
        vault_unreachable: Option<VaultError>,
        fresh: Option<Recall>,
    ) -> Result<Deferred<'a>, EngineError> {
        if findings.is_empty() {
            return Ok(Deferred {
                doc,
                layout: walk::Layout::default(),
                texts: String::new(),
                ends: Vec::new(),
                found: FoundValues::new(),
                tokens: Vec::new(),
                spare: None,
            });
        }
        // The vault just failed to answer within its whole deadline: fail closed now rather
        // than wait that deadline a second time for the mint.
        if let Some(error) = vault_unreachable {
            return Err(error.into());
        }
        let mut forms = Self::name_forms(&findings);
        let plan = self.compose_plan(session, &findings, &mut forms);
        // A NAME goes to the vault with the normal form it is matched by (the same the vault
        // would work out), so it is not worked out again there.
        // Sized for a composed name's words in its place, so that it never grows.
        let words: usize = plan.iter().map(|c| c.words.len()).sum();
        let room = findings.slots.len().saturating_sub(plan.len()) + words;
        let mut requests: Vec<MintRequest<'_>> = Vec::with_capacity(room);
        let mut composed = plan.iter().peekable();
        for (i, f) in findings.found_iter().enumerate() {
            let value = *f.value.expose();
            match composed.next_if(|c| c.slot == i) {
                None => requests.push(MintRequest {
                    kind: f.kind,
                    value,
                    canonical: f.canonical.or_else(|| forms.of_slot(i)),
                }),
                Some(c) => {
                    requests.extend(forms.words(c).iter().enumerate().map(|(w, r)| MintRequest {
                        kind: f.kind,
                        value: &value[r.clone()],
                        canonical: forms.part(c, w),
                    }))
                }
            }
        }
        let wanted = requests.len();
        let tokens = self.vault.mint(session, origin, &requests).await?;
        drop(requests);
        if tokens.len() != wanted {
            return Err(VaultError::Unavailable(
                "the vault minted a wrong number of tokens".into(),
            )
            .into());
        }
        // One text per slot, one after another in one buffer: its token, or its value with
        // each word replaced by the word's.
        let mut texts = String::with_capacity(tokens.len() * 12);
        let mut ends = Vec::with_capacity(findings.slots.len());
        let mut next = tokens.iter();
        let reveal = self.detector.reveal();
        let mut composed = plan.iter().peekable();
        for (i, f) in findings.slots.iter().enumerate() {
            match composed.next_if(|c| c.slot == i) {
                None => {
                    if let Some(t) = next.next() {
                        if reveal.reveals(&f.kind) {
                            let value = findings.value_of(f);
                            let part = reveal.part(&f.kind, value.expose(), f.canonical.as_deref());
                            t.write_revealed(part.as_deref(), &mut texts);
                        } else {
                            t.write_to(&mut texts);
                        }
                    }
                }
                Some(c) => {
                    let value = *findings.value_of(f).expose();
                    let mut at = 0;
                    for r in forms.words(c) {
                        texts.push_str(&value[at..r.start]);
                        if let Some(t) = next.next() {
                            t.write_to(&mut texts);
                        }
                        at = r.end;
                    }
                    texts.push_str(&value[at..]);
                }
            }
            ends.push(texts.len());
        }
        let layout = findings.take_layout();
        // The session learns the names minted, each with its form: a composed name's words in
        // its place.
        // Gathered in one plain pass (the session reads them twice: its known forms, then its
        // distinctive names).
        let mut learned: Vec<(&str, &str)> = Vec::with_capacity(wanted);
        let mut composed = plan.iter().peekable();
        for (i, f) in findings.slots.iter().enumerate() {
            if f.kind != Kind::Name {
                continue;
            }
            let value = *findings.value_of(f).expose();
            match composed.next_if(|c| c.slot == i) {
                None => learned.push((value, forms.of_slot(i).unwrap_or_default())),
                Some(c) => {
                    learned.extend(
                        forms.words(c).iter().enumerate().map(|(w, r)| {
                            (&value[r.clone()], forms.part(c, w).unwrap_or_default())
                        }),
                    )
                }
            }
        }
        // A full name written as its words' tokens is learned as those words, not as the
        // names the count's table was made of.
        let fresh = fresh.filter(|_| plan.is_empty());
        self.learn_with_forms(session, learned.iter().copied(), fresh);
        drop(learned);
        // What was minted, parallel to `tokens`: the slots, a composed name's words in its place.
        let (buf, slots) = findings.into_values();
        let found = if plan.is_empty() {
            slots
        } else {
            let mut found = Vec::with_capacity(tokens.len());
            let mut composed = plan.iter().peekable();
            for (i, f) in slots.into_iter().enumerate() {
                match composed.next_if(|c| c.slot == i) {
                    None => found.push(f),
                    // Each word's text is its stretch of the name's.
                    Some(c) => found.extend(forms.words(c).iter().map(|r| f.part(r.clone()))),
                }
            }
            found
        };
        Ok(Deferred {
            doc,
            layout,
            texts,
            ends,
            found: FoundValues::from_parts(buf, found),
            tokens,
            spare: None,
        })
    }

    /// Scans a JSON document for tokens and resolves them, without rewriting it yet.
    pub async fn resolve_json(
        &self,
        session: &SessionId,
        doc: &str,
    ) -> Result<Resolved, EngineError> {
        let findings = walk::scan_tokens_json(doc)?;
        self.finish_resolve(session, findings).await
    }

    /// Scans text for tokens and resolves them, without rewriting it yet.
    pub async fn resolve_text(
        &self,
        session: &SessionId,
        text: &str,
    ) -> Result<Resolved, EngineError> {
        self.finish_resolve(session, walk::scan_tokens_text(text))
            .await
    }

    async fn finish_resolve(
        &self,
        session: &SessionId,
        findings: walk::Findings<FoundTokenAt>,
    ) -> Result<Resolved, EngineError> {
        if findings.is_empty() {
            return Ok(Resolved {
                findings,
                entries: Vec::new(),
            });
        }
        let tokens: Vec<Token> = findings.slots.iter().map(|s| s.token.clone()).collect();
        let mut entries = self.vault.resolve(session, &tokens).await?;
        // A revealed part must be the one the value gives: a changed or forged part makes the
        // token unknown (`reveal.rs`).
        for (slot, entry) in findings.slots.iter().zip(entries.iter_mut()) {
            if let (Some(part), Some(e)) = (slot.reveal.as_deref(), entry.as_ref())
                && !self.reveal_matches(&e.token.kind, e.value.expose(), part)
            {
                *entry = None;
            }
        }
        Ok(Resolved { findings, entries })
    }

    /// Whether `part` is the revealed part the vault's `value` of kind `kind` gives.
    fn reveal_matches(&self, kind: &Kind, value: &str, part: &str) -> bool {
        self.revealed_part(kind, value).as_deref() == Some(part)
    }

    /// The part of `value` its token shows (`@example.com`), if `kind` reveals one; a phone's
    /// calling code comes from its E.164 form, found again by the phone recognizer.
    fn revealed_part(&self, kind: &Kind, value: &str) -> Option<String> {
        let reveal = self.detector.reveal();
        if !reveal.reveals(kind) {
            return None;
        }
        let e164 = if *kind == Kind::Phone {
            self.detector
                .detect(value, &FindContext::with_key("phone"))
                .into_iter()
                .find(|s| s.kind == Kind::Phone)
                .and_then(|s| s.canonical)
        } else {
            None
        };
        reveal.part(kind, value, e164.as_deref())
    }

    /// The text tokenizing `value` writes for `token`: the token with its revealed part when
    /// its kind reveals one (`[EMAIL_1 @example.com]`), else the bare token.
    pub fn token_text(&self, token: &Token, value: &str) -> String {
        let mut out = String::with_capacity(24);
        token.write_revealed(self.revealed_part(&token.kind, value).as_deref(), &mut out);
        out
    }

    /// Restores every token in a JSON document; unknown tokens are an error.
    pub async fn rehydrate_json<'a>(
        &self,
        session: &SessionId,
        doc: &'a str,
    ) -> Result<Cow<'a, str>, EngineError> {
        let resolved = self.resolve_json(session, doc).await?;
        restore_all(doc, &resolved)
    }

    /// Restores every token in text; unknown tokens are an error.
    pub async fn rehydrate_text<'a>(
        &self,
        session: &SessionId,
        text: &'a str,
    ) -> Result<Cow<'a, str>, EngineError> {
        let resolved = self.resolve_text(session, text).await?;
        restore_all(text, &resolved)
    }
}

/// Writes `doc` with every token replaced by its value; unknown tokens are an error.
pub fn restore_all<'a>(doc: &'a str, resolved: &Resolved) -> Result<Cow<'a, str>, EngineError> {
    let unknown = resolved.unknown_tokens();
    if !unknown.is_empty() {
        return Err(EngineError::UnknownTokens(unknown));
    }
    let values: Vec<&str> = resolved
        .entries
        .iter()
        .map(|e| e.as_ref().map_or("", |e| e.value.expose().as_str()))
        .collect();
    Ok(walk::apply(doc, &resolved.findings, &values)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::MemoryVault;
    use futures::executor::block_on;
    use std::cell::RefCell;

    fn engine() -> Engine {
        Engine::new(
            Arc::new(Detector::with_defaults()),
            Arc::new(MemoryVault::default()),
        )
    }

    #[test]
    fn forged_tokens_round_trip_exactly() {
        let e = engine();
        let s = SessionId::new("s");
        let doc = r#"{"note":"the old ticket said [EMAIL_1]"}"#;
        let t = block_on(e.tokenize_json(&s, "crm/get", doc)).unwrap();
        assert_eq!(t.text, r#"{"note":"the old ticket said [LITERAL_1]"}"#);
        let back = block_on(e.rehydrate_json(&s, &t.text)).unwrap();
        assert_eq!(back, doc);
        // The forged token never resolves to anything.
        let err = block_on(e.rehydrate_text(&s, "[EMAIL_1]")).unwrap_err();
        assert!(matches!(err, EngineError::UnknownTokens(ref t) if t.len() == 1));
        assert_eq!(
            err.to_string(),
            "unknown token(s) in this session: [EMAIL_1]"
        );
    }

    #[test]
    fn revealed_parts_restore_exactly_and_changed_parts_never() {
        let mut config = crate::detect::DetectConfig::default();
        config.reveal.email = true;
        config.reveal.credit_card = true;
        let e = Engine::new(
            Arc::new(Detector::new(&config).unwrap()),
            Arc::new(MemoryVault::default()),
        );
        let s = SessionId::new("s");
        let doc = r#"{"email":"Maria@Example.com","card":"4111 1111 1111 1111","cc":"maria@example.com"}"#;
        let t = block_on(e.tokenize_json(&s, "crm/get", doc)).unwrap();
        assert_eq!(
            t.text,
            r#"{"email":"[EMAIL_1 @example.com]","card":"[CREDIT_CARD_1 visa 1111]","cc":"[EMAIL_1 @example.com]"}"#
        );
        // Flow rules and the audit log see the bare tokens.
        assert_eq!(t.tokens[0].to_string(), "[EMAIL_1]");
        let back = block_on(e.rehydrate_json(&s, &t.text)).unwrap();
        assert_eq!(
            back,
            r#"{"email":"Maria@Example.com","card":"4111 1111 1111 1111","cc":"Maria@Example.com"}"#
        );
        // The bare token is the same token.
        assert_eq!(
            block_on(e.rehydrate_text(&s, "to [EMAIL_1]")).unwrap(),
            "to Maria@Example.com"
        );
        // The text tokenizing writes, for the echo guard: the same as inbound.
        assert_eq!(
            e.token_text(&t.tokens[0], "Maria@Example.com"),
            "[EMAIL_1 @example.com]"
        );
        assert_eq!(
            e.token_text(&Token::new(Kind::Name, 1), "Maria"),
            "[NAME_1]"
        );
        // A changed part, or a part on a kind that reveals none, never restores.
        for text in [
            "[EMAIL_1 @evil.example]",
            "[EMAIL_1 @EXAMPLE.com]",
            "[CREDIT_CARD_1 visa 4242]",
            "[CREDIT_CARD_1 amex 1111]",
        ] {
            let err = block_on(e.rehydrate_text(&s, text)).unwrap_err();
            assert!(matches!(err, EngineError::UnknownTokens(_)), "{text}");
        }
        // Inbound, token-shaped text with a part is neutralised like any forged token.
        let t = block_on(e.tokenize_text(&s, "crm/get", "see [EMAIL_9 @x.example]")).unwrap();
        assert_eq!(t.text, "see [LITERAL_1]");
        // Reveals off (the default): a part never restores.
        let off = engine();
        let t = block_on(off.tokenize_json(&s, "crm/get", r#"{"email":"a@example.com"}"#)).unwrap();
        assert_eq!(t.text, r#"{"email":"[EMAIL_1]"}"#);
        assert!(block_on(off.rehydrate_text(&s, "[EMAIL_1 @example.com]")).is_err());
    }

    #[test]
    fn a_name_found_once_is_recalled_in_the_session() {
        let e = engine();
        let (s, other) = (SessionId::new("s"), SessionId::new("other"));
        let doc = r#"{"full_name":"Ysolde Brackwater","first_name":"Will"}"#;
        let t = block_on(e.tokenize_json(&s, "crm/get", doc)).unwrap();
        assert_eq!(
            t.text,
            r#"{"full_name":"[NAME_1]","first_name":"[NAME_2]"}"#
        );
        // Lower case, no cue, not in the gazetteer: the name finder alone leaves these (a common
        // name in short chat text is found on its own); recall finds the full name.
        let text = "OK, ysolde brackwater will call back; YSOLDE BRACKWATER said so";
        let t = block_on(e.tokenize_text(&s, "notes/read", text)).unwrap();
        assert_eq!(t.text, "OK, [NAME_1] will call back; [NAME_1] said so");
        // Inside JSON too; restoring gives the value as first seen, like any case variant.
        let doc = r#"{"body":"meeting with ysolde brackwater"}"#;
        let t = block_on(e.tokenize_json(&s, "mail/read", doc)).unwrap();
        assert_eq!(t.text, r#"{"body":"meeting with [NAME_1]"}"#);
        assert_eq!(
            block_on(e.rehydrate_json(&s, &t.text)).unwrap(),
            r#"{"body":"meeting with Ysolde Brackwater"}"#
        );
        // Another session knows nothing of it.
        let text = "OK, ysolde brackwater will call back";
        let t = block_on(e.tokenize_text(&other, "notes/read", text)).unwrap();
        assert_eq!(t.text, text);
        // Ending the session forgets the names with the vault table.
        block_on(e.end_session(&s)).unwrap();
        let t = block_on(e.tokenize_text(&s, "notes/read", text)).unwrap();
        assert_eq!(t.text, text);
    }

    #[test]
    fn a_name_missed_once_in_a_message_is_found_on_its_first_read() {
        // A `git log` (generated people, mcp-server-git's format): `Line` is a word, so the
        // prose line alone misses "Reported by Line Karlsen"; a sign-off slot finds the name.
        // Found names the recall matcher reads differently (CJK, initials) must not hide the
        // missed occurrence: the first read already shows what the second does.
        let e = engine();
        let s = SessionId::new("s");
        let text = include_str!("../tests/data/git_log_rescan.txt");
        let first = block_on(e.tokenize_text(&s, "git/git_log", text)).unwrap();
        assert!(!first.text.contains("Line Karlsen"));
        let second = block_on(e.tokenize_text(&s, "git/git_log", text)).unwrap();
        assert!(first.text == second.text, "the second read differs");
    }

    #[test]
    fn the_rescan_counts_names_inside_json_strings_as_in_text() {
        // An mbox (generated people, the leak benchmark's) read by server-filesystem: the
        // sign-off "Adélaïde Pons" opens a line, after `\n` in the raw JSON. Read alone and
        // inside a tool result, the text comes out the same.
        let text = include_str!("../tests/data/mbox_rescan.txt");
        let alone = block_on(engine().tokenize_text(&SessionId::new("a"), "f/read", text))
            .unwrap()
            .text
            .into_owned();
        let doc = serde_json::json!({"content": [{"type": "text", "text": text}]}).to_string();
        let result = block_on(engine().tokenize_json(&SessionId::new("b"), "f/read", &doc))
            .unwrap()
            .text
            .into_owned();
        let result: serde_json::Value = serde_json::from_str(&result).unwrap();
        assert!(!alone.contains("Adélaïde Pons"));
        assert_eq!(result["content"][0]["text"].as_str(), Some(alone.as_str()));
    }

    #[test]
    fn a_full_name_of_session_names_is_written_as_their_tokens() {
        let e = engine();
        let s = SessionId::new("s");
        let doc = r#"{"first_name":"Ysolde","last_name":"Brackwater"}"#;
        let t = block_on(e.tokenize_json(&s, "crm/get", doc)).unwrap();
        assert_eq!(
            t.text,
            r#"{"first_name":"[NAME_1]","last_name":"[NAME_2]"}"#
        );
        // The model writes a letter with those tokens; the file read back shows them again.
        let letter = block_on(e.rehydrate_text(&s, "Dear [NAME_1] [NAME_2], thanks.")).unwrap();
        assert_eq!(letter, "Dear Ysolde Brackwater, thanks.");
        let t = block_on(e.tokenize_text(&s, "files/read", &letter)).unwrap();
        assert_eq!(t.text, "Dear [NAME_1] [NAME_2], thanks.");
        assert_eq!(t.tokens.len(), 2);
        assert_eq!(t.found.len(), 2);
        assert_eq!(*t.found.get(1).unwrap().value.expose(), "Brackwater");
        // In one message too: the full name beside its parts.
        let doc =
            r#"{"first_name":"Quennell","last_name":"Ostrova","full_name":"Quennell  Ostrova"}"#;
        let t = block_on(e.tokenize_json(&s, "crm/get", doc)).unwrap();
        assert_eq!(
            t.text,
            r#"{"first_name":"[NAME_3]","last_name":"[NAME_4]","full_name":"[NAME_3]  [NAME_4]"}"#
        );
        // A full name minted whole keeps its own token.
        let t = block_on(e.tokenize_json(&s, "crm/get", r#"{"full_name":"Idris Vantongeren"}"#))
            .unwrap();
        assert_eq!(t.text, r#"{"full_name":"[NAME_5]"}"#);
        let doc =
            r#"{"first_name":"Idris","last_name":"Vantongeren","author":"Idris Vantongeren"}"#;
        let t = block_on(e.tokenize_json(&s, "crm/get", doc)).unwrap();
        assert_eq!(
            t.text,
            r#"{"first_name":"[NAME_6]","last_name":"[NAME_7]","author":"[NAME_5]"}"#
        );
    }

    #[test]
    fn recall_never_overrides_place_or_organisation_keys() {
        let e = engine();
        let s = SessionId::new("s");
        block_on(e.tokenize_json(&s, "crm/get", r#"{"last_name":"Brackwater"}"#)).unwrap();
        let doc = r#"{"city":"Brackwater","company":"Brackwater","street_address":"12 Brackwater Road","employer":{"name":"Brackwater"},"note":"brackwater called"}"#;
        let t = block_on(e.tokenize_json(&s, "crm/get", doc)).unwrap();
        assert_eq!(
            t.text,
            r#"{"city":"Brackwater","company":"Brackwater","street_address":"12 Brackwater Road","employer":{"name":"Brackwater"},"note":"[NAME_1] called"}"#
        );
        // A CSV column of places too.
        let csv = "name,city\nAnn Lee,Brackwater\n";
        let t = block_on(e.tokenize_text(&s, "files/read", csv)).unwrap();
        assert!(t.text.ends_with(",Brackwater\n"), "{}", t.text);
    }

    #[test]
    fn a_recalled_given_name_takes_the_rest_of_the_full_name_with_it() {
        let e = engine();
        let s = SessionId::new("s");
        block_on(e.tokenize_json(&s, "crm/get", r#"{"given_name":"健太"}"#)).unwrap();
        let t = block_on(e.tokenize_text(&s, "files/read", "担当 健太 小林 さん")).unwrap();
        assert!(!t.text.contains('小'), "{}", t.text);
        assert!(!t.text.contains('健'), "{}", t.text);
        block_on(e.tokenize_json(&s, "crm/get", r#"{"first_name":"Ysolde"}"#)).unwrap();
        let t =
            block_on(e.tokenize_text(&s, "files/read", "ok ysolde Quennell-Ostrova, bye")).unwrap();
        assert!(!t.text.contains("Quennell"), "{}", t.text);
        // An ordinary word or a place next to it is not part of the name.
        let t = block_on(e.tokenize_text(&s, "files/read", "see ysolde Street and Berlin ysolde"))
            .unwrap();
        assert!(t.text.contains("Street"), "{}", t.text);
        assert!(t.text.contains("Berlin"), "{}", t.text);
    }

    #[test]
    fn the_same_content_read_twice_in_a_session_reads_the_same() {
        let e = engine();
        let s = SessionId::new("s");
        let doc = serde_json::json!({
            "customers": [
                {"first_name": "Ysolde", "last_name": "Brackwater", "city": "Jackson",
                 "company": "Brackwater Holdings", "email": "ysolde@example.com",
                 "phone": 4155550132_u64, "notes": "ysolde prefers mail; brackwater family"},
                {"first_name": "Amber", "last_name": "Jackson", "city": "Brackwater",
                 "full_name": "Amber Jackson", "card_number": "4111 1111 1111 1111"},
            ],
            "text": "Author: Kenji Kobayashi <kenji@example.org>\nyesterday amber jackson and ysolde brackwater met in Jackson.\nCall +44 20 7946 0958."
        })
        .to_string();
        let first = block_on(e.tokenize_json(&s, "crm/get", &doc))
            .unwrap()
            .text
            .into_owned();
        let second = block_on(e.tokenize_json(&s, "crm/get", &doc))
            .unwrap()
            .text
            .into_owned();
        assert_eq!(first, second);
        assert!(!first.contains("ysolde prefers"), "{first}");
        let text = "Ysolde Brackwater wrote to ysolde and to Idris Vantongeren.\nidris vantongeren replied; Kobayashi too.";
        let first = block_on(e.tokenize_text(&s, "files/read", text))
            .unwrap()
            .text
            .into_owned();
        let second = block_on(e.tokenize_text(&s, "files/read", text))
            .unwrap()
            .text
            .into_owned();
        assert_eq!(first, second);
        assert!(!first.contains("idris"), "{first}");
    }

    /// A fresh session whose message needs no second scan takes the count's table as its
    /// recall: after each message it recalls what learning the distinctive names minted one by
    /// one would give, in the same order (checked against a book taught them), the cap
    /// included; a message that writes a full name as its words' tokens learns the words.
    #[test]
    fn a_fresh_session_recalls_what_learning_its_names_gives() {
        let e = engine();
        let learned = RefCell::new(RecallBook::default());
        let w = SessionId::new("w");
        // Tokenizes `doc` (JSON when it starts with `{`), teaches `learned` the distinctive
        // names minted, and returns what the session recalls and what `learned` does.
        let read = |s: &SessionId, doc: &str| {
            let t = if doc.starts_with('{') {
                block_on(e.tokenize_json(s, "crm/get", doc))
            } else {
                block_on(e.tokenize_text(s, "f/read", doc))
            }
            .unwrap();
            let book = learned.borrow();
            book.learn(
                &w,
                t.found
                    .iter()
                    .filter(|f| *f.kind == Kind::Name)
                    .map(|f| *f.value.expose())
                    .filter(|v| e.detector().is_distinctive_name(v)),
            );
            let got = block_on(e.recall_for(s));
            let want = book.snapshot(&w);
            (
                format!("{got:?}"),
                format!("{want:?}"),
                got.expect("the session recalls names"),
            )
        };
        let s = SessionId::new("s");
        let doc = r#"{"full_name":"Ysolde Brackwater","first_name":"Will","name":"Józef Wąs"}"#;
        let (got, want, recall) = read(&s, doc);
        assert_eq!(got, want);
        assert!(recall.contains("ysolde brackwater") && !recall.contains("will"));
        let names = recall.names();
        // A second message learns into that table, as before.
        let (got, want, recall) = read(&s, r#"{"full_name":"Quennell Ostrova"}"#);
        assert_eq!(got, want);
        assert_eq!(recall.names(), names + 1);
        // Past the cap: the first names found, in order.
        let word = |mut i: usize| {
            let mut w = String::from("Qu");
            while i > 0 || w.len() == 2 {
                w.push(char::from(b'a' + (i % 26) as u8));
                i /= 26;
            }
            w
        };
        let records: Vec<serde_json::Value> = (0..MAX_RECALLED_NAMES + 20)
            .map(|i| serde_json::json!({ "full_name": format!("{} Vren{}", word(i), word(i * 7)) }))
            .collect();
        let doc = serde_json::json!({ "people": records }).to_string();
        learned.replace(RecallBook::default());
        let (got, want, recall) = read(&SessionId::new("capped"), &doc);
        assert_eq!(got, want);
        assert_eq!(recall.names(), MAX_RECALLED_NAMES);
        // A full name written as its words' tokens: the words are learned, not the full name.
        let doc =
            r#"{"first_name":"Quennell","last_name":"Ostrova","full_name":"Quennell Ostrova"}"#;
        learned.replace(RecallBook::default());
        let (got, want, recall) = read(&SessionId::new("composed"), doc);
        assert_eq!(got, want);
        assert!(recall.contains("quennell") && !recall.contains("quennell ostrova"));
    }

    #[test]
    fn recall_can_be_turned_off() {
        let config = crate::detect::DetectConfig {
            names_recall: false,
            ..Default::default()
        };
        let e = Engine::new(
            Arc::new(Detector::new(&config).unwrap()),
            Arc::new(MemoryVault::default()),
        );
        let s = SessionId::new("s");
        block_on(e.tokenize_json(&s, "crm/get", r#"{"full_name":"Ysolde Brackwater"}"#)).unwrap();
        let text = "OK, ysolde brackwater will call back";
        let t = block_on(e.tokenize_text(&s, "notes/read", text)).unwrap();
        assert_eq!(t.text, text);
    }

    /// A shared vault that is down: every call fails, and mints are counted.
    #[derive(Debug, Default)]
    struct SharedVaultDown {
        mints: std::sync::atomic::AtomicUsize,
    }

    impl SharedVaultDown {
        fn down<T: Send + 'static>() -> futures::future::BoxFuture<'static, Result<T, VaultError>> {
            Box::pin(async { Err(VaultError::Unavailable("timed out".into())) })
        }
    }

    impl VaultBackend for SharedVaultDown {
        fn mint<'a>(
            &'a self,
            _: &'a SessionId,
            _: &'a str,
            _: &'a [MintRequest<'a>],
        ) -> futures::future::BoxFuture<'a, Result<Vec<Token>, VaultError>> {
            self.mints
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Self::down()
        }

        fn resolve<'a>(
            &'a self,
            _: &'a SessionId,
            _: &'a [Token],
        ) -> futures::future::BoxFuture<'a, Result<Vec<Option<Entry>>, VaultError>> {
            Self::down()
        }

        fn end_session<'a>(
            &'a self,
            _: &'a SessionId,
        ) -> futures::future::BoxFuture<'a, Result<(), VaultError>> {
            Self::down()
        }

        fn shares_sessions(&self) -> bool {
            true
        }

        fn entries_after<'a>(
            &'a self,
            _: &'a SessionId,
            _: &'a Kind,
            _: u32,
            _: usize,
        ) -> futures::future::BoxFuture<'a, Result<Vec<Entry>, VaultError>> {
            Self::down()
        }
    }

    #[test]
    fn a_shared_vault_that_timed_out_on_recall_is_not_waited_for_again() {
        let vault = Arc::new(SharedVaultDown::default());
        let e = Engine::new(Arc::new(Detector::with_defaults()), vault.clone());
        let s = SessionId::new("s");
        // The recall read timed out: the message fails closed without a second wait.
        let err = block_on(e.tokenize_text(&s, "crm/get", "write to ana@example.com")).unwrap_err();
        assert!(matches!(
            err,
            EngineError::Vault(VaultError::Unavailable(_))
        ));
        assert_eq!(vault.mints.load(std::sync::atomic::Ordering::Relaxed), 0);
        // Nothing to tokenize: the message passes, as it would with the vault up.
        let clean = "nothing personal here";
        let t = block_on(e.tokenize_text(&SessionId::new("t"), "crm/get", clean)).unwrap();
        assert_eq!(t.text, clean);
        // Within a second the recall read is not due again, so the mint is tried (and fails).
        let err =
            block_on(e.tokenize_json(&s, "crm/get", r#"{"email":"ana@example.com"}"#)).unwrap_err();
        assert!(matches!(
            err,
            EngineError::Vault(VaultError::Unavailable(_))
        ));
        assert_eq!(vault.mints.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
