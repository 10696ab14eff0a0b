//! The in-process vault: one small table per session in a `DashMap`.
//!
//! The map is sharded, so sessions on different shards never contend; inside a session a
//! `Mutex` guards the table (one message at a time mints into it, so that lock is uncontended in
//! practice and keeps the two indexes consistent). Idle sessions expire after the TTL: every
//! call checks, at most once per quarter TTL, for tables idle longer than that and drops them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use dashmap::DashMap;
use futures::FutureExt;
use futures::future::BoxFuture;

use super::{Entry, MintRequest, SessionId, VaultBackend, VaultError, normalize};
use crate::detect::Kind;
use crate::sensitive::Sensitive;
use crate::token::Token;

/// The in-memory backend. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct MemoryVault {
    sessions: DashMap<SessionId, Arc<Mutex<Table>>>,
    ttl: Duration,
    cap: usize,
    started: Instant,
    last_sweep_ms: AtomicU64,
}

#[derive(Debug)]
struct Table {
    by_kind: HashMap<Kind, KindTable>,
    len: usize,
    last_used: Instant,
}

#[derive(Debug, Default)]
struct KindTable {
    /// Normal form → n.
    by_value: HashMap<Box<str>, u32>,
    /// Token n at index n-1.
    entries: Vec<Stored>,
}

#[derive(Debug)]
struct Stored {
    value: Sensitive<Box<str>>,
    origin: Arc<str>,
    created: SystemTime,
}

impl MemoryVault {
    /// A vault whose sessions expire after `ttl` idle and hold at most `cap` values each.
    pub fn new(ttl: Duration, cap: usize) -> MemoryVault {
        MemoryVault {
            sessions: DashMap::new(),
            ttl,
            cap,
            started: Instant::now(),
            last_sweep_ms: AtomicU64::new(0),
        }
    }

    /// The number of live sessions.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Drops every session idle for longer than the TTL; returns how many were dropped.
    pub fn sweep_expired(&self) -> usize {
        let now = Instant::now();
        let before = self.sessions.len();
        self.sessions.retain(|_, table| match table.lock() {
            Ok(t) => now.duration_since(t.last_used) <= self.ttl,
            Err(_) => false,
        });
        before - self.sessions.len()
    }

    fn maybe_sweep(&self) {
        let now_ms = self.started.elapsed().as_millis() as u64;
        let every = (self.ttl.as_millis() as u64 / 4).max(1000);
        let last = self.last_sweep_ms.load(Ordering::Relaxed);
        if now_ms.saturating_sub(last) >= every
            && self
                .last_sweep_ms
                .compare_exchange(last, now_ms, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
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
                    by_kind: HashMap::new(),
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
        let mut out = Vec::with_capacity(requests.len());
        for req in requests {
            let key = normalize(req.kind, req.value, req.canonical);
            let known = table
                .by_kind
                .get(req.kind)
                .and_then(|k| k.by_value.get(key.as_ref()));
            if let Some(&n) = known {
                out.push(Token::new(req.kind.clone(), n));
                continue;
            }
            if table.len >= self.cap {
                return Err(VaultError::SessionFull {
                    session: session.clone(),
                    cap: self.cap,
                });
            }
            let origin = origin_arc.get_or_insert_with(|| Arc::from(origin)).clone();
            let kind_table = table.by_kind.entry(req.kind.clone()).or_default();
            kind_table.entries.push(Stored {
                value: Sensitive::new(Box::from(req.value)),
                origin,
                created: SystemTime::now(),
            });
            let n = kind_table.entries.len() as u32;
            kind_table
                .by_value
                .insert(key.into_owned().into_boxed_str(), n);
            table.len += 1;
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
                let stored = table
                    .by_kind
                    .get(&token.kind)?
                    .entries
                    .get((token.n as usize).checked_sub(1)?)?;
                Some(Entry {
                    token: token.clone(),
                    value: Sensitive::new(stored.value.expose().to_string()),
                    origin: stored.origin.clone(),
                    created: stored.created,
                })
            })
            .collect()
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
    fn idle_sessions_expire() {
        let v = MemoryVault::new(Duration::from_millis(1), 10);
        v.mint_now(&SessionId::new("s"), "x", &[req(&Kind::Email, "a@x.io")])
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(v.sweep_expired(), 1);
        assert_eq!(v.session_count(), 0);
    }
}
