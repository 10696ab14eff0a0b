//! Session recall: names a session has already tokenized are found again wherever they recur.
//!
//! The name finder judges each string on its own evidence, so a name it accepts under a strong
//! cue ("Thanks, Maria Ortiz") can be missed in the next message ("maria ortiz called back"), and
//! a value found under a JSON key (`{"full_name": "maria ortiz"}`) is missed in the free text of
//! the same tool result. Either miss hands the model a raw name next to its token. Recall closes
//! that gap: once a session has minted a NAME, the exact name (in lower case, upper case or
//! title case, whole words) is a NAME in everything the session scans afterwards.
//!
//! Only distinctive values are recalled: a name of two or more words, or a single word the
//! gazetteer does not know as an ordinary English word or a place ([`Detector::is_distinctive_name`]).
//! A single "Will" accepted after "Hi" must not turn every later "will" into a token.
//!
//! [`RecallBook`] keeps one [`Recall`] per session, in process, bounded by a per-session cap and
//! an idle TTL; the matcher is rebuilt when a message teaches the session new names (at most
//! once per message), never while scanning. With a vault shared by replicas (Redis), the engine
//! also reads, at most once a second per session, the NAME entries other replicas minted since
//! it last looked ([`RecallBook::sync_due`], `VaultBackend::entries_after`), so a name tokenized
//! on one replica is recalled on all of them.
//!
//! [`Detector::is_distinctive_name`]: super::Detector::is_distinctive_name

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, Anchored, Input, MatchKind, StartKind};
use dashmap::DashMap;

use super::{Kind, Span};
use crate::vault::{SessionId, SweepClock, sweep_idle};

/// The most names one session recalls; later names are still tokenized where found, just not
/// recalled.
pub const MAX_RECALLED_NAMES: usize = 4096;

/// One session's recalled names, compiled: an immutable snapshot, shared by `Arc`.
///
/// A scan with thousands of patterns over every byte would cost as much as the rest of the
/// detector, so the text is walked word by word: an ASCII word is hashed (folded to lower case)
/// while it is skipped, and only when a Bloom filter of the names' first ASCII words says it
/// may begin one is the anchored automaton run. Names that begin with another character are
/// tried at each non-ASCII character start whose first two bytes begin one (a 64 Kibit table).
#[derive(Debug)]
pub struct Recall {
    matcher: AhoCorasick,
    /// Bloom filter (two bits per word) over [`word_hash`] of each pattern's leading ASCII
    /// word; `words.len() * 64` is a power of two.
    words: Box<[u64]>,
    /// Bit `pair_key(a, b)` is set when some name that starts with a non-ASCII character
    /// starts with the bytes `a b`.
    starts: Box<[u64]>,
}

/// The table index of a pair of leading bytes, ASCII letters folded to lower case.
fn pair_key(a: u8, b: u8) -> usize {
    usize::from(a.to_ascii_lowercase()) << 8 | usize::from(b.to_ascii_lowercase())
}

/// One step of a word's hash over its ASCII-folded bytes: a rotate and an exclusive or, so
/// that the per-byte chain stays short (a multiply per byte would bound the scan); the word's
/// hash is mixed once at its end ([`hash_finish`]).
fn hash_step(h: u64, byte: u8) -> u64 {
    h.rotate_left(7) ^ u64::from(byte | 0x20)
}

const HASH_START: u64 = 0;

/// Mixes a word's accumulated [`hash_step`]s (the finaliser of SplitMix64).
fn hash_finish(h: u64) -> u64 {
    let h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^ (h >> 31)
}

/// The hash of the ASCII letters and digits at the start of `bytes`, folded to lower case.
fn word_hash(bytes: &[u8]) -> u64 {
    hash_finish(
        bytes
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .fold(HASH_START, |h, &b| hash_step(h, b)),
    )
}

impl Recall {
    fn new(names: &BTreeSet<Box<str>>) -> Option<Recall> {
        // The automaton folds ASCII case only; a name with other cased letters ("józef
        // wąs") gets its upper-case and title-case forms as patterns of their own.
        let mut patterns: Vec<String> = Vec::with_capacity(names.len());
        for name in names {
            patterns.push(name.to_string());
            if !name.is_ascii() {
                for form in [name.to_uppercase(), title_case(name)] {
                    if form != **name {
                        patterns.push(form);
                    }
                }
            }
        }
        let matcher = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .start_kind(StartKind::Anchored)
            .build(&patterns)
            .ok()?;
        // About 16 bits per pattern: with two bits set per word, a word that begins no name
        // passes the filter about once in a hundred.
        let bits = (patterns.len() * 16).next_power_of_two().max(1 << 12);
        let mut words = vec![0u64; bits / 64].into_boxed_slice();
        let mut starts = vec![0u64; 1 << 10].into_boxed_slice();
        for name in &patterns {
            match name.as_bytes() {
                [a, ..] if a.is_ascii_alphanumeric() => {
                    for bit in bloom_bits(word_hash(name.as_bytes()), bits) {
                        words[bit >> 6] |= 1 << (bit & 63);
                    }
                }
                [a, b, ..] => {
                    let k = pair_key(*a, *b);
                    starts[k >> 6] |= 1 << (k & 63);
                }
                _ => {}
            }
        }
        Some(Recall {
            matcher,
            words,
            starts,
        })
    }

    /// Whether some name may begin with the ASCII word whose hash is `h`.
    fn may_begin(&self, h: u64) -> bool {
        bloom_bits(h, self.words.len() * 64)
            .iter()
            .all(|&bit| self.words[bit >> 6] & (1 << (bit & 63)) != 0)
    }

    /// Appends a NAME span for each whole-word occurrence of a recalled name in `text`.
    pub(super) fn find(&self, text: &str, out: &mut Vec<Span>) {
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_alphanumeric() {
                // A word start: hash the word while skipping it.
                let start = i;
                let mut h = HASH_START;
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    h = hash_step(h, b[i]);
                    i += 1;
                }
                if self.may_begin(hash_finish(h))
                    && let Some(end) = self.match_at(text, start)
                {
                    out.push(Span::new(start, end, Kind::Name));
                    i = end;
                }
                continue;
            }
            // Every non-ASCII character start is a candidate (CJK names stand between other
            // characters; the boundary check sorts the rest out).
            if c >= 0xC0 && i + 1 < b.len() {
                let k = pair_key(c, b[i + 1]);
                if self.starts[k >> 6] & (1 << (k & 63)) != 0
                    && let Some(end) = self.match_at(text, i)
                {
                    out.push(Span::new(i, end, Kind::Name));
                    i = end;
                    continue;
                }
            }
            i += 1;
        }
    }

    /// The end of a recalled name starting at `start`, standing as whole words.
    fn match_at(&self, text: &str, start: usize) -> Option<usize> {
        let input = Input::new(text)
            .span(start..text.len())
            .anchored(Anchored::Yes);
        let m = self.matcher.find(input)?;
        let end = m.end();
        let joined_before = text[..start]
            .chars()
            .next_back()
            .is_some_and(|c| joins(c, text[start..].chars().next()));
        let joined_after = text[end..]
            .chars()
            .next()
            .is_some_and(|c| joins(c, text[..end].chars().next_back()));
        (!joined_before && !joined_after).then_some(end)
    }
}

/// The two filter bits of a word hash, for a filter of `bits` bits (a power of two).
fn bloom_bits(h: u64, bits: usize) -> [usize; 2] {
    let mask = bits as u64 - 1;
    [(h & mask) as usize, ((h >> 32) & mask) as usize]
}

/// Whether `neighbour` continues the word whose edge character is `edge`: letters and digits do,
/// except between characters of scripts written without spaces (CJK), where any boundary is one.
fn joins(neighbour: char, edge: Option<char>) -> bool {
    neighbour.is_alphanumeric()
        && !(super::names::is_cjk(neighbour) && edge.is_some_and(super::names::is_cjk))
}

/// Normalises a name for recall: trimmed, inner whitespace runs made one space, lower case.
fn recall_form(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for word in value.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_ascii() {
        out.make_ascii_lowercase();
        out
    } else {
        out.to_lowercase()
    }
}

/// `name` (lower case) with each word's first letter in upper case, also after `-` and `'`
/// ("józef wąs-ćwik" → "Józef Wąs-Ćwik").
fn title_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut at_start = true;
    for c in name.chars() {
        if at_start {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        at_start = matches!(c, ' ' | '-' | '\'');
    }
    out
}

#[derive(Debug)]
struct SessionNames {
    names: BTreeSet<Box<str>>,
    snapshot: Option<Arc<Recall>>,
    last_used: Instant,
    /// The highest NAME number read from a shared vault, and when it was last read
    /// ([`RecallBook::sync_due`]).
    synced_upto: u32,
    synced_at: Option<Instant>,
}

impl SessionNames {
    fn new() -> SessionNames {
        SessionNames {
            names: BTreeSet::new(),
            snapshot: None,
            last_used: Instant::now(),
            synced_upto: 0,
            synced_at: None,
        }
    }
}

/// Recalled names per session, in process; see the module documentation.
#[derive(Debug)]
pub struct RecallBook {
    sessions: DashMap<SessionId, Arc<Mutex<SessionNames>>>,
    ttl: Duration,
    sweeps: SweepClock,
}

impl Default for RecallBook {
    /// Sessions forgotten after a day idle, like the vault's default.
    fn default() -> Self {
        RecallBook::new(Duration::from_secs(24 * 3600))
    }
}

impl RecallBook {
    /// A book whose sessions are forgotten after `ttl` idle.
    pub fn new(ttl: Duration) -> RecallBook {
        RecallBook {
            sessions: DashMap::new(),
            ttl,
            sweeps: SweepClock::new(),
        }
    }

    /// The session's compiled names, if it has any. Cheap: one map lookup and an `Arc` clone.
    pub fn snapshot(&self, session: &SessionId) -> Option<Arc<Recall>> {
        let table = self.sessions.get(session)?.clone();
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        t.last_used = Instant::now();
        t.snapshot.clone()
    }

    /// Teaches the session `names` (values already judged distinctive); recompiles its matcher
    /// once if any is new. Returns how many were new.
    pub fn learn<'a>(
        &self,
        session: &SessionId,
        names: impl IntoIterator<Item = &'a str>,
    ) -> usize {
        let mut fresh: Vec<String> = names
            .into_iter()
            .map(recall_form)
            .filter(|n| n.chars().count() >= 2)
            .collect();
        if fresh.is_empty() {
            return 0;
        }
        self.maybe_sweep();
        let table = self
            .sessions
            .entry(session.clone())
            .or_insert_with(|| Arc::new(Mutex::new(SessionNames::new())))
            .clone();
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        t.last_used = Instant::now();
        let before = t.names.len();
        for name in fresh.drain(..) {
            if t.names.len() >= MAX_RECALLED_NAMES {
                tracing::debug!(cap = MAX_RECALLED_NAMES, "session recall is full");
                break;
            }
            t.names.insert(name.into_boxed_str());
        }
        let added = t.names.len() - before;
        if added > 0 {
            t.snapshot = Recall::new(&t.names).map(Arc::new);
        }
        added
    }

    /// Whether the session's names in a shared vault are due to be read again (never read, or
    /// last read more than `every` ago). When due, marks them read now and returns the highest
    /// NAME number read so far, to read only newer ones; `None` when not due.
    pub fn sync_due(&self, session: &SessionId, every: Duration) -> Option<u32> {
        self.maybe_sweep();
        let table = self
            .sessions
            .entry(session.clone())
            .or_insert_with(|| Arc::new(Mutex::new(SessionNames::new())))
            .clone();
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if t.synced_at.is_some_and(|at| now.duration_since(at) < every) {
            return None;
        }
        t.synced_at = Some(now);
        Some(t.synced_upto)
    }

    /// Records that the session's names up to NAME number `upto` have been read from a shared
    /// vault.
    pub fn synced(&self, session: &SessionId, upto: u32) {
        if let Some(table) = self.sessions.get(session) {
            let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
            t.synced_upto = t.synced_upto.max(upto);
        }
    }

    /// Forgets a session's names (end of session); unknown sessions are fine.
    pub fn forget(&self, session: &SessionId) {
        self.sessions.remove(session);
    }

    /// The number of sessions with recalled names.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Forgets every session idle for longer than the TTL; returns how many were forgotten.
    pub fn sweep_expired(&self) -> usize {
        sweep_idle(&self.sessions, self.ttl, |t| t.last_used)
    }

    fn maybe_sweep(&self) {
        if self.sweeps.due(self.ttl) {
            self.sweep_expired();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found<'t>(recall: &Recall, text: &'t str) -> Vec<&'t str> {
        let mut out = Vec::new();
        recall.find(text, &mut out);
        out.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn recalls_whole_words_in_any_ascii_case() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        assert_eq!(book.learn(&s, ["Maria  Ortiz", "Xochitl"]), 2);
        let r = book.snapshot(&s).expect("names learned");
        assert_eq!(
            found(&r, "ping MARIA ORTIZ and maria ortiz; xochitl too"),
            ["MARIA ORTIZ", "maria ortiz", "xochitl"]
        );
        // Not inside longer words.
        assert!(found(&r, "xochitls mariaortiz Maria Ortizes").is_empty());
    }

    #[test]
    fn recalls_names_with_other_cased_letters_in_upper_and_title_case() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        assert_eq!(book.learn(&s, ["ÁNGEL WĄS-ĆWIK", "Ørjan"]), 2);
        assert_eq!(book.learn(&s, ["ángel wąs-ćwik"]), 0, "same name, any case");
        let r = book.snapshot(&s).expect("names learned");
        assert_eq!(
            found(
                &r,
                "Ángel Wąs-Ćwik, ángel wąs-ćwik and ÁNGEL WĄS-ĆWIK; ØRJAN, ørjan"
            ),
            [
                "Ángel Wąs-Ćwik",
                "ángel wąs-ćwik",
                "ÁNGEL WĄS-ĆWIK",
                "ØRJAN",
                "ørjan"
            ]
        );
    }

    #[test]
    fn sessions_are_isolated_and_forgotten() {
        let book = RecallBook::default();
        let (a, b) = (SessionId::new("a"), SessionId::new("b"));
        book.learn(&a, ["Maria Ortiz"]);
        assert!(book.snapshot(&b).is_none());
        assert_eq!(book.learn(&a, ["maria ortiz"]), 0, "same name, any case");
        book.forget(&a);
        assert!(book.snapshot(&a).is_none());
    }

    #[test]
    fn idle_sessions_expire() {
        let book = RecallBook::new(Duration::ZERO);
        let s = SessionId::new("a");
        book.learn(&s, ["Maria Ortiz"]);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(book.sweep_expired(), 1);
        assert_eq!(book.session_count(), 0);
    }

    #[test]
    fn cjk_names_need_no_spaces_around_them() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        book.learn(&s, ["王伟"]);
        let r = book.snapshot(&s).unwrap();
        assert_eq!(found(&r, "请联系王伟。"), ["王伟"]);
    }

    #[test]
    fn the_word_filter_never_drops_a_recalled_name() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        let names: Vec<String> = (0..3000)
            .map(|i| format!("given{i} family{}", i * 7))
            .chain([
                "josé ruiz".into(),
                "o'neil".into(),
                "jean-luc picard".into(),
            ])
            .collect();
        book.learn(&s, names.iter().map(String::as_str));
        let r = book.snapshot(&s).unwrap();
        let text = names.join(", ").to_uppercase();
        assert_eq!(found(&r, &text).len(), names.len());
        assert_eq!(
            found(&r, "Josés, JOSÉ RUIZ and O'Neil met Jean-Luc Picard"),
            ["JOSÉ RUIZ", "O'Neil", "Jean-Luc Picard"]
        );
    }

    #[test]
    fn the_cap_bounds_a_session() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        let names: Vec<String> = (0..MAX_RECALLED_NAMES + 10)
            .map(|i| format!("name{i} surname"))
            .collect();
        assert_eq!(
            book.learn(&s, names.iter().map(String::as_str)),
            MAX_RECALLED_NAMES
        );
    }
}
