//! What one replica remembers of the sessions it minted into, so that a batch usually costs one
//! round trip.
//!
//! An entry's ciphertext is bound to its token, so a value can be sealed only once its number is
//! known. A replica that remembers a session's kind counters and which fingerprints it has seen
//! can number a batch's new values itself and send look-ups and sealed commits in one script
//! call. These hints are guesses only: the mint script checks every one (a remembered
//! fingerprint is looked up, a guessed number is accepted only if it is the kind's counter + 1),
//! so a stale hint (another replica minted meanwhile, the session expired) costs a retry, never a
//! wrong token.
//!
//! Memory is bounded: at most `capacity` remembered fingerprints plus sessions in total (about
//! 80 bytes each); past that, sessions idle longer than the TTL are dropped, and if that is not
//! enough the whole table is, to be refilled by later calls. `end_session` forgets its session.
//! Fingerprints are keyed hashes, never values.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dashmap::DashMap;

use super::super::SessionId;
use super::super::key::Fingerprint;
use crate::kind::Kind;

/// Remembered counters and fingerprints, per session.
pub(super) struct Hints {
    sessions: DashMap<SessionId, SessionHint>,
    used: AtomicUsize,
    capacity: usize,
    ttl: Duration,
}

struct SessionHint {
    counters: Vec<(Kind, u32)>,
    known: HashMap<Fingerprint, u32>,
    touched: Instant,
}

/// What was remembered when a batch started.
#[derive(Default)]
pub(super) struct Guess {
    counters: Vec<(Kind, u32)>,
    /// The remembered number of each fingerprint asked about, in order.
    pub(super) known: Vec<Option<u32>>,
}

impl Guess {
    /// The remembered counter of `kind` (0 when none).
    pub(super) fn counter(&self, kind: &Kind) -> u32 {
        self.counters
            .iter()
            .find(|(k, _)| k == kind)
            .map_or(0, |&(_, c)| c)
    }
}

impl Hints {
    /// A table of at most `capacity` entries (0 turns hints off) for sessions living `ttl`.
    pub(super) fn new(capacity: usize, ttl: Duration) -> Hints {
        Hints {
            sessions: DashMap::new(),
            used: AtomicUsize::new(0),
            capacity,
            ttl,
        }
    }

    /// What is remembered of `session` for these fingerprints.
    pub(super) fn guess<'f>(
        &self,
        session: &SessionId,
        fps: impl ExactSizeIterator<Item = &'f Fingerprint>,
    ) -> Guess {
        let Some(hint) = self.sessions.get(session) else {
            return Guess {
                counters: Vec::new(),
                known: vec![None; fps.len()],
            };
        };
        Guess {
            counters: hint.counters.clone(),
            known: fps.map(|fp| hint.known.get(fp).copied()).collect(),
        }
    }

    /// Records a session's counters (replacing those of the kinds given) and numbers seen.
    pub(super) fn learn<'k>(
        &self,
        session: &SessionId,
        counters: impl Iterator<Item = (&'k Kind, u32)>,
        seen: impl ExactSizeIterator<Item = (Fingerprint, u32)>,
    ) {
        if self.capacity == 0 {
            return;
        }
        let room = seen.len() + 1;
        if self.used.load(Ordering::Relaxed) + room > self.capacity {
            self.make_room(room);
        }
        let mut added = 0;
        let mut hint = self.sessions.entry(session.clone()).or_insert_with(|| {
            added += 1;
            SessionHint {
                counters: Vec::new(),
                known: HashMap::new(),
                touched: Instant::now(),
            }
        });
        hint.touched = Instant::now();
        for (kind, c) in counters {
            match hint.counters.iter_mut().find(|(k, _)| k == kind) {
                Some(slot) => slot.1 = c,
                None => hint.counters.push((kind.clone(), c)),
            }
        }
        for (fp, n) in seen {
            if hint.known.insert(fp, n).is_none() {
                added += 1;
            }
        }
        drop(hint);
        self.used.fetch_add(added, Ordering::Relaxed);
    }

    /// Forgets a session.
    pub(super) fn forget(&self, session: &SessionId) {
        if let Some((_, hint)) = self.sessions.remove(session) {
            self.release(hint.known.len() + 1);
        }
    }

    /// Drops idle sessions, or everything, until `room` more entries fit.
    fn make_room(&self, room: usize) {
        let now = Instant::now();
        self.sessions.retain(|_, hint| {
            let keep = now.duration_since(hint.touched) <= self.ttl;
            if !keep {
                self.release(hint.known.len() + 1);
            }
            keep
        });
        if self.used.load(Ordering::Relaxed) + room > self.capacity {
            self.sessions.clear();
            self.used.store(0, Ordering::Relaxed);
        }
    }

    fn release(&self, n: usize) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(n))
            });
    }

    #[cfg(test)]
    fn used(&self) -> usize {
        self.used.load(Ordering::Relaxed)
    }
}

impl fmt::Debug for Hints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hints")
            .field("sessions", &self.sessions.len())
            .field("used", &self.used.load(Ordering::Relaxed))
            .field("capacity", &self.capacity)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(b: u8) -> Fingerprint {
        [b; 32]
    }

    #[test]
    fn remembers_counters_and_numbers() {
        let h = Hints::new(100, Duration::from_secs(60));
        let s = SessionId::new("s");
        let g = h.guess(&s, [fp(1)].iter());
        assert_eq!(g.known, [None]);
        assert_eq!(g.counter(&Kind::Email), 0);
        h.learn(
            &s,
            [(&Kind::Email, 2)].into_iter(),
            [(fp(1), 1), (fp(2), 2)].into_iter(),
        );
        let g = h.guess(&s, [fp(2), fp(3)].iter());
        assert_eq!(g.known, [Some(2), None]);
        assert_eq!(g.counter(&Kind::Email), 2);
        // Counters are replaced, not maxed: a reset session must be learnt as reset.
        h.learn(&s, [(&Kind::Email, 0)].into_iter(), [].into_iter());
        assert_eq!(h.guess(&s, [].iter()).counter(&Kind::Email), 0);
        assert_eq!(h.used(), 3);
        h.forget(&s);
        assert_eq!(h.used(), 0);
        assert_eq!(h.guess(&s, [fp(1)].iter()).known, [None]);
    }

    #[test]
    fn stays_within_capacity() {
        let h = Hints::new(10, Duration::from_secs(60));
        for i in 0..20u8 {
            let s = SessionId::new(format!("s{i}"));
            h.learn(
                &s,
                [(&Kind::Email, 2)].into_iter(),
                [(fp(i), 1), (fp(i + 100), 2)].into_iter(),
            );
            assert!(h.used() <= 10, "{}", h.used());
        }
    }

    #[test]
    fn zero_capacity_turns_hints_off() {
        let h = Hints::new(0, Duration::from_secs(60));
        let s = SessionId::new("s");
        h.learn(
            &s,
            [(&Kind::Email, 1)].into_iter(),
            [(fp(1), 1)].into_iter(),
        );
        assert_eq!(h.guess(&s, [fp(1)].iter()).known, [None]);
    }
}
