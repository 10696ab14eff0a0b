//! The in-process vault: one small table per session in a `DashMap`.
//!
//! The map is sharded, so sessions on different shards never contend; inside a session a
//! `Mutex` guards the table (one message at a time mints into it, so that lock is uncontended in
//! practice and keeps the two indexes consistent). Idle sessions expire after the TTL: every
//! call checks, at most once per quarter TTL, for tables idle longer than that and drops them.
//!
//! A session's table can be taken out ([`MemoryVault::export_session`]) and put back
//! ([`MemoryVault::import_session`]) whole, so a front end that outlives the process (the CLI's
//! encrypted session file) keeps the same numbering across runs.

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use dashmap::DashMap;
use futures::FutureExt;
use futures::future::BoxFuture;
use hashbrown::HashTable;

use super::texts::{At, Texts};
use super::{
    Entry, MintRequest, SessionId, SweepClock, VaultBackend, VaultError, normalize_into, sweep_idle,
};
use crate::kind::Kind;
use crate::sensitive::Sensitive;
use crate::token::Token;

/// The in-memory backend. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct MemoryVault {
    sessions: DashMap<SessionId, Arc<Mutex<Table>>>,
    /// Sessions their client terminated, and when (kept for `ttl`).
    terminated: DashMap<SessionId, Instant>,
    ttl: Duration,
    cap: usize,
    sweeps: SweepClock,
}

/// One entry of an exported session table: the entry and the normal form it is matched by.
///
/// Both the value and the match key are raw PII; the caller stores them encrypted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportedEntry {
    /// The token, its value as first seen, origin and creation time.
    pub entry: Entry,
    /// The normal form that later occurrences are compared by (see [`normalize`]); kept because
    /// a recognizer's canonical form (a phone's E.164) cannot be recomputed from the value alone.
    pub match_key: Sensitive<String>,
}

#[derive(Debug)]
struct Table {
    by_kind: KindTables,
    len: usize,
    last_used: Instant,
}

/// A session's tables, one per kind. A session holds a handful of kinds (the built-in ones
/// and the configured custom ones), so a list searched by equality (a discriminant compare
/// for built-in kinds) finds one faster than hashing the kind with SipHash, once for each of
/// the thousands of values a message may mint.
#[derive(Debug, Default)]
struct KindTables(Vec<(Kind, KindTable)>);

impl KindTables {
    fn get(&self, kind: &Kind) -> Option<&KindTable> {
        self.0.iter().find(|(k, _)| k == kind).map(|(_, t)| t)
    }

    /// Where the kind's table is, made empty if the session has none yet.
    fn position_or_default(&mut self, kind: &Kind) -> usize {
        match self.0.iter().position(|(k, _)| k == kind) {
            Some(i) => i,
            None => {
                self.0.push((kind.clone(), KindTable::default()));
                self.0.len() - 1
            }
        }
    }

    fn iter(&self) -> impl Iterator<Item = (&Kind, &KindTable)> {
        self.0.iter().map(|(k, t)| (k, t))
    }
}

impl Table {
    /// Makes room in each kind's table for the values `requests` may add, at once: a message
    /// mints thousands of values, and growing the index as they go in rehashes it again and
    /// again. (At most one table per kind the requests name is added, empty until a value is.)
    ///
    /// Returns where each request's kind's table is in `by_kind`: each kind is searched for
    /// once per request, here, not again as its value goes in.
    fn reserve(&mut self, requests: &[MintRequest<'_>]) -> Vec<usize> {
        let mut tables = Vec::with_capacity(requests.len());
        let mut counts: Vec<usize> = vec![0; self.by_kind.0.len()];
        for req in requests {
            let i = self.by_kind.position_or_default(req.kind);
            if i == counts.len() {
                counts.push(0);
            }
            counts[i] += 1;
            tables.push(i);
        }
        for (i, n) in counts.into_iter().enumerate() {
            if n > 0 {
                self.by_kind.0[i].1.reserve(n);
            }
        }
        tables
    }
}

/// One kind's tokens: token n's entry at index n-1, and an index from match key to n.
///
/// The index holds numbers only, hashed by their entry's match key ([`Stored::key`]), so a
/// value is hashed once whether it is known or new (a map from key to number hashed a new
/// key twice, to look and to insert) and a key that is the value itself is not stored twice.
/// The hash is the standard library's SipHash with this table's own random keys: the values
/// are the servers' to choose. The entries' values and keys are in `texts`, not an
/// allocation each.
#[derive(Debug, Default)]
struct KindTable {
    entries: Vec<Stored>,
    texts: Texts,
    index: HashTable<u32>,
    hasher: RandomState,
}

impl KindTable {
    fn hash(&self, key: &str) -> u64 {
        self.hasher.hash_one(key)
    }

    /// The number of the entry whose match key is `key` (of hash `hash`), if any. Inlined:
    /// it runs for every value minted, and a known value is the common case in a session.
    #[inline]
    fn get(&self, hash: u64, key: &str) -> Option<u32> {
        let (entries, texts) = (&self.entries, &self.texts);
        self.index
            .find(hash, |&n| texts.get(&entries[n as usize - 1].key) == key)
            .copied()
    }

    /// Adds an entry for `value`, matched by `key` (of hash `hash`), which no entry has;
    /// returns its number.
    fn push(
        &mut self,
        hash: u64,
        value: &str,
        key: &str,
        origin: Arc<str>,
        created: SystemTime,
    ) -> u32 {
        let stored = Stored::new(&mut self.texts, value, key, origin, created);
        self.entries.push(stored);
        let n = self.entries.len() as u32;
        let (entries, texts, hasher) = (&self.entries, &self.texts, &self.hasher);
        self.index.insert_unique(hash, n, |&m| {
            hasher.hash_one(texts.get(&entries[m as usize - 1].key))
        });
        n
    }

    /// Makes room for `n` more entries.
    fn reserve(&mut self, n: usize) {
        self.entries.reserve(n);
        let (entries, texts, hasher) = (&self.entries, &self.texts, &self.hasher);
        self.index.reserve(n, |&m| {
            hasher.hash_one(texts.get(&entries[m as usize - 1].key))
        });
    }

    /// The value entry `stored` stands for, as first seen.
    fn value(&self, stored: &Stored) -> &str {
        self.texts.get(&stored.value)
    }

    /// The normal form later occurrences of `stored`'s value are matched by.
    fn key(&self, stored: &Stored) -> &str {
        self.texts.get(&stored.key)
    }
}

#[derive(Debug)]
struct Stored {
    /// The value as first seen, in its table's texts. Its match key (`normalize`) follows it
    /// there when that is not the value itself (a phone's E.164, a name in lower case).
    value: At,
    /// The match key: the value's own text when it is the value. One slice either way, no
    /// branch, on every lookup.
    key: At,
    origin: Arc<str>,
    created: SystemTime,
}

impl Stored {
    /// A new entry for `value`, matched by `key`, whose texts go into `texts`.
    fn new(
        texts: &mut Texts,
        value: &str,
        key: &str,
        origin: Arc<str>,
        created: SystemTime,
    ) -> Stored {
        let (value, key) = if key != value {
            let at = texts.push(value, key);
            (at.prefix(value.len()), at.suffix(value.len()))
        } else {
            let at = texts.push(value, "");
            (at.clone(), at)
        };
        Stored {
            value,
            key,
            origin,
            created,
        }
    }
}

impl MemoryVault {
    /// A vault whose sessions expire after `ttl` idle and hold at most `cap` values each.
    pub fn new(ttl: Duration, cap: usize) -> MemoryVault {
        MemoryVault {
            sessions: DashMap::new(),
            terminated: DashMap::new(),
            ttl,
            cap,
            sweeps: SweepClock::new(),
        }
    }

    /// The number of live sessions.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Drops every session idle for longer than the TTL; returns how many were dropped.
    pub fn sweep_expired(&self) -> usize {
        sweep_idle(&self.sessions, self.ttl, |t| t.last_used)
    }

    fn maybe_sweep(&self) {
        if self.sweeps.due(self.ttl) {
            self.sweep_expired();
        }
    }

    fn table(&self, session: &SessionId) -> Arc<Mutex<Table>> {
        if let Some(t) = self.sessions.get(session) {
            return t.clone();
        }
        self.sessions
            .entry(session.clone())
            .or_insert_with(|| {
                Arc::new(Mutex::new(Table {
                    by_kind: KindTables::default(),
                    len: 0,
                    last_used: Instant::now(),
                }))
            })
            .clone()
    }

    /// Mints synchronously; see [`VaultBackend::mint`].
    pub fn mint_now(
        &self,
        session: &SessionId,
        origin: &str,
        requests: &[MintRequest<'_>],
    ) -> Result<Vec<Token>, VaultError> {
        self.maybe_sweep();
        let table = self.table(session);
        let mut table = table.lock().unwrap_or_else(|e| e.into_inner());
        table.last_used = Instant::now();
        let mut origin_arc: Option<Arc<str>> = None;
        // One creation time for the values one call mints (they arrive in one message).
        let mut now: Option<SystemTime> = None;
        let mut out = Vec::with_capacity(requests.len());
        // Each value's normal form, when it is not a slice of the value (names, spaced card
        // numbers), is written into this one buffer.
        let mut buf = String::new();
        let tables = table.reserve(requests);
        let Table { by_kind, len, .. } = &mut *table;
        for (req, &i) in requests.iter().zip(&tables) {
            let key = match normalize_into(req.kind, req.value, req.canonical, &mut buf) {
                Some(form) => form,
                None => buf.as_str(),
            };
            let kind_table = &mut by_kind.0[i].1;
            let hash = kind_table.hash(key);
            if let Some(n) = kind_table.get(hash, key) {
                out.push(Token::new(req.kind.clone(), n));
                continue;
            }
            if *len >= self.cap {
                return Err(VaultError::SessionFull {
                    session: session.clone(),
                    cap: self.cap,
                });
            }
            let origin = origin_arc.get_or_insert_with(|| Arc::from(origin)).clone();
            let created = *now.get_or_insert_with(SystemTime::now);
            let n = kind_table.push(hash, req.value, key, origin, created);
            *len += 1;
            out.push(Token::new(req.kind.clone(), n));
        }
        Ok(out)
    }

    /// Resolves synchronously; see [`VaultBackend::resolve`].
    pub fn resolve_now(&self, session: &SessionId, tokens: &[Token]) -> Vec<Option<Entry>> {
        let Some(table) = self.sessions.get(session).map(|t| t.clone()) else {
            return vec![None; tokens.len()];
        };
        let mut table = table.lock().unwrap_or_else(|e| e.into_inner());
        table.last_used = Instant::now();
        tokens
            .iter()
            .map(|token| {
                let kind_table = table.by_kind.get(&token.kind)?;
                let stored = kind_table.entries.get((token.n as usize).checked_sub(1)?)?;
                Some(Entry {
                    token: token.clone(),
                    value: Sensitive::new(kind_table.value(stored).to_string()),
                    origin: stored.origin.clone(),
                    created: stored.created,
                })
            })
            .collect()
    }
}

impl MemoryVault {
    /// Every entry of one session's table, ordered by kind name, then number. Empty for an
    /// unknown session.
    pub fn export_session(&self, session: &SessionId) -> Vec<ExportedEntry> {
        let Some(table) = self.sessions.get(session).map(|t| t.clone()) else {
            return Vec::new();
        };
        let table = table.lock().unwrap_or_else(|e| e.into_inner());
        let mut kinds: Vec<(&Kind, &KindTable)> = table.by_kind.iter().collect();
        kinds.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        let mut out = Vec::with_capacity(table.len);
        for (kind, kind_table) in kinds {
            for (i, stored) in kind_table.entries.iter().enumerate() {
                out.push(ExportedEntry {
                    entry: Entry {
                        token: Token::new(kind.clone(), i as u32 + 1),
                        value: Sensitive::new(kind_table.value(stored).to_string()),
                        origin: stored.origin.clone(),
                        created: stored.created,
                    },
                    match_key: Sensitive::new(kind_table.key(stored).to_string()),
                });
            }
        }
        out
    }

    /// Replaces one session's table with `entries` (as produced by
    /// [`MemoryVault::export_session`], in any order).
    ///
    /// Each kind's numbers must run 1..=N without gaps and each match key may appear once per
    /// kind; otherwise the table is left untouched and the error is [`VaultError::Corrupt`].
    /// More entries than the session cap is [`VaultError::SessionFull`].
    pub fn import_session(
        &self,
        session: &SessionId,
        entries: Vec<ExportedEntry>,
    ) -> Result<(), VaultError> {
        if entries.len() > self.cap {
            return Err(VaultError::SessionFull {
                session: session.clone(),
                cap: self.cap,
            });
        }
        let mut grouped: HashMap<Kind, Vec<ExportedEntry>> = HashMap::new();
        for e in entries {
            grouped
                .entry(e.entry.token.kind.clone())
                .or_default()
                .push(e);
        }
        let mut by_kind = KindTables(Vec::with_capacity(grouped.len()));
        let mut len = 0;
        for (kind, mut list) in grouped {
            list.sort_by_key(|e| e.entry.token.n);
            let mut kind_table = KindTable::default();
            for (i, e) in list.into_iter().enumerate() {
                if e.entry.token.n as usize != i + 1 {
                    return Err(VaultError::Corrupt(format!(
                        "{kind} tokens are not numbered 1..N without gaps"
                    )));
                }
                let key = e.match_key.expose();
                let hash = kind_table.hash(key);
                if kind_table.get(hash, key).is_some() {
                    return Err(VaultError::Corrupt(format!(
                        "{} shares its match key with an earlier {kind} token",
                        e.entry.token
                    )));
                }
                kind_table.push(
                    hash,
                    e.entry.value.expose(),
                    key,
                    e.entry.origin,
                    e.entry.created,
                );
                len += 1;
            }
            by_kind.0.push((kind, kind_table));
        }
        let table = Table {
            by_kind,
            len,
            last_used: Instant::now(),
        };
        self.sessions
            .insert(session.clone(), Arc::new(Mutex::new(table)));
        Ok(())
    }
}

impl Default for MemoryVault {
    fn default() -> Self {
        let config = super::VaultConfig::default();
        MemoryVault::new(
            Duration::from_secs(config.ttl_seconds),
            config.max_entries_per_session,
        )
    }
}

impl VaultBackend for MemoryVault {
    fn mint<'a>(
        &'a self,
        session: &'a SessionId,
        origin: &'a str,
        requests: &'a [MintRequest<'a>],
    ) -> BoxFuture<'a, Result<Vec<Token>, VaultError>> {
        futures::future::ready(self.mint_now(session, origin, requests)).boxed()
    }

    fn resolve<'a>(
        &'a self,
        session: &'a SessionId,
        tokens: &'a [Token],
    ) -> BoxFuture<'a, Result<Vec<Option<Entry>>, VaultError>> {
        futures::future::ready(Ok(self.resolve_now(session, tokens))).boxed()
    }

    fn end_session<'a>(&'a self, session: &'a SessionId) -> BoxFuture<'a, Result<(), VaultError>> {
        self.sessions.remove(session);
        futures::future::ready(Ok(())).boxed()
    }

    fn mark_terminated<'a>(
        &'a self,
        session: &'a SessionId,
    ) -> BoxFuture<'a, Result<(), VaultError>> {
        let ttl = self.ttl;
        self.terminated.retain(|_, at| at.elapsed() <= ttl);
        self.terminated.insert(session.clone(), Instant::now());
        futures::future::ready(Ok(())).boxed()
    }

    fn is_terminated<'a>(
        &'a self,
        session: &'a SessionId,
    ) -> BoxFuture<'a, Result<bool, VaultError>> {
        let ended = self
            .terminated
            .get(session)
            .is_some_and(|at| at.elapsed() <= self.ttl);
        futures::future::ready(Ok(ended)).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req<'a>(kind: &'a Kind, value: &'a str) -> MintRequest<'a> {
        MintRequest {
            kind,
            value,
            canonical: None,
        }
    }

    #[test]
    fn same_value_same_token_numbered_per_kind() {
        let v = MemoryVault::default();
        let s = SessionId::new("s");
        let (e, p) = (Kind::Email, Kind::Phone);
        let t = v
            .mint_now(
                &s,
                "crm/list",
                &[
                    req(&e, "a@x.io"),
                    req(&p, "+1 415 555 0100"),
                    req(&e, "b@x.io"),
                    req(&e, "A@X.io"),
                ],
            )
            .unwrap();
        let shown: Vec<String> = t.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["[EMAIL_1]", "[PHONE_1]", "[EMAIL_2]", "[EMAIL_1]"]);
        let back = v.resolve_now(&s, &t);
        assert_eq!(back[3].as_ref().unwrap().value.expose(), "a@x.io");
        assert_eq!(&*back[0].as_ref().unwrap().origin, "crm/list");
    }

    #[test]
    fn sessions_are_isolated() {
        let v = MemoryVault::default();
        let e = Kind::Email;
        let a = v
            .mint_now(&SessionId::new("a"), "x", &[req(&e, "a@x.io")])
            .unwrap();
        assert_eq!(v.resolve_now(&SessionId::new("b"), &a), vec![None]);
        v.mint_now(&SessionId::new("b"), "x", &[req(&e, "z@x.io")])
            .unwrap();
        let b = v.resolve_now(&SessionId::new("b"), &a);
        assert_eq!(b[0].as_ref().unwrap().value.expose(), "z@x.io");
    }

    #[test]
    fn cap_is_a_clear_error() {
        let v = MemoryVault::new(Duration::from_secs(60), 2);
        let s = SessionId::new("s");
        let e = Kind::Email;
        v.mint_now(&s, "x", &[req(&e, "a@x.io"), req(&e, "b@x.io")])
            .unwrap();
        // Known values still resolve to their tokens at the cap.
        v.mint_now(&s, "x", &[req(&e, "a@x.io")]).unwrap();
        let err = v.mint_now(&s, "x", &[req(&e, "c@x.io")]).unwrap_err();
        assert!(err.to_string().contains("maximum of 2"));
        assert!(!err.to_string().contains("c@x.io"));
    }

    #[test]
    fn export_then_import_keeps_numbering_and_canonical_keys() {
        let v = MemoryVault::default();
        let s = SessionId::new("s");
        let (e, p) = (Kind::Email, Kind::Phone);
        let phone = MintRequest {
            kind: &p,
            value: "(415) 555-0100",
            canonical: Some("+14155550100"),
        };
        v.mint_now(&s, "crm", &[req(&e, "a@x.io"), phone, req(&e, "b@x.io")])
            .unwrap();
        let exported = v.export_session(&s);
        let shown: Vec<String> = exported.iter().map(|x| x.entry.token.to_string()).collect();
        assert_eq!(shown, ["[EMAIL_1]", "[EMAIL_2]", "[PHONE_1]"]);
        assert_eq!(exported[2].match_key.expose(), "+14155550100");

        let w = MemoryVault::default();
        let t = SessionId::new("t");
        let mut reversed = exported.clone();
        reversed.reverse();
        w.import_session(&t, reversed).unwrap();
        assert_eq!(w.export_session(&t), exported);
        // The same values get the same tokens; a phone in another format matches by its E.164.
        let again = MintRequest {
            kind: &p,
            value: "+1 415 555 0100",
            canonical: Some("+14155550100"),
        };
        let tokens = w
            .mint_now(&t, "crm", &[again, req(&e, "B@X.io"), req(&e, "c@x.io")])
            .unwrap();
        let shown: Vec<String> = tokens.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["[PHONE_1]", "[EMAIL_2]", "[EMAIL_3]"]);
        let back = w.resolve_now(&t, &tokens);
        assert_eq!(back[0].as_ref().unwrap().value.expose(), "(415) 555-0100");
        assert_eq!(&*back[0].as_ref().unwrap().origin, "crm");
        assert!(w.export_session(&SessionId::new("none")).is_empty());
    }

    #[test]
    fn import_rejects_gaps_duplicates_and_overflow() {
        let v = MemoryVault::default();
        let s = SessionId::new("s");
        let e = Kind::Email;
        v.mint_now(&s, "x", &[req(&e, "a@x.io"), req(&e, "b@x.io")])
            .unwrap();
        let good = v.export_session(&s);

        let mut gap = good.clone();
        gap.remove(0);
        let err = v.import_session(&SessionId::new("g"), gap).unwrap_err();
        assert!(matches!(err, VaultError::Corrupt(_)), "{err}");

        let mut dup = good.clone();
        dup[1].match_key = dup[0].match_key.clone();
        let err = v.import_session(&SessionId::new("d"), dup).unwrap_err();
        assert!(matches!(err, VaultError::Corrupt(_)));
        assert!(!err.to_string().contains("a@x.io"), "{err}");
        assert_eq!(v.session_count(), 1);

        let small = MemoryVault::new(Duration::from_secs(60), 1);
        let err = small.import_session(&s, good).unwrap_err();
        assert!(matches!(err, VaultError::SessionFull { cap: 1, .. }));
    }

    #[test]
    fn idle_sessions_expire() {
        let v = MemoryVault::new(Duration::from_millis(1), 10);
        v.mint_now(&SessionId::new("s"), "x", &[req(&Kind::Email, "a@x.io")])
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(v.sweep_expired(), 1);
        assert_eq!(v.session_count(), 0);
    }
}
