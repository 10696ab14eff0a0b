//! Sessions as both the vault and the detector's recall see them: the session id, and the
//! idle sweep that drops sessions unused for longer than a TTL without a timer task.
//!
//! Below both `vault` and `detect` (`detect/recall.rs` keeps per-session names, the memory
//! vault per-session tables, both expire idle sessions the same way), so neither imports the
//! other for it. `crate::vault` re-exports `SessionId`, so `mcp_veil::vault::SessionId` keeps
//! working.

use std::fmt;
use std::sync::Arc;

/// An opaque session identifier. Not secret, never PII: it is logged and audited.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SessionId(Arc<str>);

impl SessionId {
    /// A session id from any string the front end uses to tell sessions apart.
    pub fn new(id: impl Into<Arc<str>>) -> SessionId {
        SessionId(id.into())
    }

    /// A fresh random id (128 bits, hex).
    pub fn random() -> SessionId {
        use ring::rand::{SecureRandom, SystemRandom};
        let mut bytes = [0u8; 16];
        // SystemRandom only fails if the OS has no randomness source at all.
        SystemRandom::new()
            .fill(&mut bytes)
            .expect("the operating system provides randomness");
        SessionId::new(bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// When a store of idle-expiring sessions last swept: at most one caller claims a sweep per
/// quarter of the TTL (and at most one a second), so expiry costs no timer task.
#[derive(Debug)]
pub(crate) struct SweepClock {
    started: std::time::Instant,
    last_ms: std::sync::atomic::AtomicU64,
}

impl SweepClock {
    pub(crate) fn new() -> SweepClock {
        SweepClock {
            started: std::time::Instant::now(),
            last_ms: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Whether the caller should sweep now; true for one caller only.
    pub(crate) fn due(&self, ttl: std::time::Duration) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let now_ms = self.started.elapsed().as_millis() as u64;
        let every = (ttl.as_millis() as u64 / 4).max(1000);
        let last = self.last_ms.load(Relaxed);
        now_ms.saturating_sub(last) >= every
            && self
                .last_ms
                .compare_exchange(last, now_ms, Relaxed, Relaxed)
                .is_ok()
    }
}

/// Drops every session of `sessions` idle for longer than `ttl` (by `last_used`, or poisoned);
/// returns how many were dropped. Shared by the stores that expire idle sessions.
pub(crate) fn sweep_idle<T>(
    sessions: &dashmap::DashMap<SessionId, std::sync::Arc<std::sync::Mutex<T>>>,
    ttl: std::time::Duration,
    last_used: impl Fn(&T) -> std::time::Instant,
) -> usize {
    let now = std::time::Instant::now();
    let before = sessions.len();
    sessions.retain(|_, entry| match entry.lock() {
        Ok(t) => now.duration_since(last_used(&t)) <= ttl,
        Err(_) => false,
    });
    before - sessions.len()
}
