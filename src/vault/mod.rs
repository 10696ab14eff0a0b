//! Per-session token tables.
//!
//! A vault maps values to tokens and back, one table per session. The same value (after
//! [`normalize`]) always gets the same token within a session, numbered per kind from 1; the
//! value restored is the surface form first seen. Tables never share entries: a token minted in
//! session A does not exist in session B.
//!
//! The backend is behind [`VaultBackend`] so the stdio proxy can keep tables in process
//! ([`MemoryVault`], on `dashmap`) while HTTP gateway replicas share them in Redis. Calls are
//! batched (one call mints every value of one message) so a networked backend costs one round
//! trip per message, not one per value. [`from_config`] builds the backend the `vault:` section
//! names.

mod key;
mod memory;
mod redis;
mod texts;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures::future::BoxFuture;
use serde::Deserialize;

pub use self::key::{KEY_ENV, VaultKey};
pub use self::memory::{ExportedEntry, MemoryVault};
pub use self::redis::{REDIS_PASSWORD_ENV, RedisOptions, RedisVault};

use crate::kind::Kind;
use crate::sensitive::Sensitive;
pub use crate::session::SessionId;
use crate::session::{SweepClock, sweep_idle};
use crate::token::Token;

/// One value to mint a token for.
#[derive(Clone, Copy, Debug)]
pub struct MintRequest<'a> {
    /// Its kind.
    pub kind: &'a Kind,
    /// The text as found (restored verbatim).
    pub value: &'a str,
    /// A canonical form computed by the recognizer (a phone's E.164), if any; or the value's
    /// normal form ([`normalize`]) when the caller has worked it out already. The vault matches
    /// the value by it.
    pub canonical: Option<&'a str>,
}

/// What a token stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The token.
    pub token: Token,
    /// The value as first seen.
    pub value: Sensitive<String>,
    /// Where it was first seen (`server/tool`, `server/resource`, `cli` ...).
    pub origin: Arc<str>,
    /// When it was minted.
    pub created: SystemTime,
}

/// Why a vault call failed. Messages carry token names and counts, never values.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VaultError {
    /// The session already holds its configured maximum of entries.
    #[error(
        "the session is full: it holds the maximum of {cap} values (raise `vault.max_entries_per_session`)"
    )]
    SessionFull {
        /// The session.
        session: SessionId,
        /// The configured cap.
        cap: usize,
    },
    /// The backend (Redis) could not be reached or answered with an error.
    #[error("vault backend unavailable: {0}")]
    Unavailable(String),
    /// Stored data could not be decrypted or decoded (wrong key, corruption).
    #[error("vault data is corrupt or was written with another key: {0}")]
    Corrupt(String),
    /// The vault is misconfigured: no or bad key, bad URL, missing settings.
    #[error("vault configuration error: {0}")]
    Config(String),
}

/// The backend the `vault:` section describes. The redis backend reads its key from
/// [`KEY_ENV`] and connects on first use (so it may be built before Redis is up, and outside a
/// Tokio runtime); call [`RedisVault::check`] to probe it.
pub fn from_config(config: &VaultConfig) -> Result<Arc<dyn VaultBackend>, VaultError> {
    match config.backend {
        BackendKind::Memory => Ok(Arc::new(MemoryVault::new(
            Duration::from_secs(config.ttl_seconds),
            config.max_entries_per_session,
        ))),
        BackendKind::Redis => Ok(Arc::new(RedisVault::from_config(config)?)),
    }
}

/// A stream's kept events ([`VaultBackend::stream_events`]): (number, text), in order.
pub type StreamEvents = Vec<(u64, String)>;

/// Where session tables live.
pub trait VaultBackend: Send + Sync + fmt::Debug {
    /// Returns one token per request, in order, minting those the session has not seen.
    fn mint<'a>(
        &'a self,
        session: &'a SessionId,
        origin: &'a str,
        requests: &'a [MintRequest<'a>],
    ) -> BoxFuture<'a, Result<Vec<Token>, VaultError>>;

    /// Looks up each token in the session; `None` for tokens the session never minted.
    fn resolve<'a>(
        &'a self,
        session: &'a SessionId,
        tokens: &'a [Token],
    ) -> BoxFuture<'a, Result<Vec<Option<Entry>>, VaultError>>;

    /// Drops a session's table (end of session); unknown sessions are fine.
    fn end_session<'a>(&'a self, session: &'a SessionId) -> BoxFuture<'a, Result<(), VaultError>>;

    /// Records that the session's client terminated it, for the vault's TTL, so that every
    /// process sharing this backend refuses the session from now on: a signed session id
    /// says who issued it, not that it ended. Only ids the layer issued are recorded, never
    /// values. The default (a backend that cannot record it) does nothing.
    fn mark_terminated<'a>(
        &'a self,
        session: &'a SessionId,
    ) -> BoxFuture<'a, Result<(), VaultError>> {
        let _ = session;
        Box::pin(std::future::ready(Ok(())))
    }

    /// Whether [`VaultBackend::mark_terminated`] was called for the session within the TTL.
    fn is_terminated<'a>(
        &'a self,
        session: &'a SessionId,
    ) -> BoxFuture<'a, Result<bool, VaultError>> {
        let _ = session;
        Box::pin(std::future::ready(Ok(false)))
    }

    /// Whether other processes mint into the same sessions (a backend shared by replicas).
    /// The engine then reads the names they tokenized ([`VaultBackend::entries_after`]) so
    /// that session recall works across replicas.
    fn shares_sessions(&self) -> bool {
        false
    }

    /// Whether the backend can serve now (Redis answers `PING`); for readiness probes. An
    /// in-process store always can.
    fn ping(&self) -> BoxFuture<'_, Result<(), VaultError>> {
        Box::pin(std::future::ready(Ok(())))
    }

    /// The session's entries of `kind` numbered above `after`, in token order, at most `limit`
    /// of them, whichever process minted them. A backend private to one process returns
    /// nothing: that process saw every value itself.
    fn entries_after<'a>(
        &'a self,
        session: &'a SessionId,
        kind: &'a Kind,
        after: u32,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Entry>, VaultError>> {
        let _ = (session, kind, after, limit);
        Box::pin(std::future::ready(Ok(Vec::new())))
    }

    /// Appends event `seq` of the session's event stream `stream` (what `serve` sent a client:
    /// tokenized text, or `""` for the stream's end), keeping the stream's last `keep` events
    /// for the vault's TTL, so a client that reconnects to another replica with
    /// `Last-Event-ID` can be given what it missed. A backend private to one process keeps
    /// nothing (the process's own buffer serves its clients).
    fn append_event<'a>(
        &'a self,
        session: &'a SessionId,
        stream: &'a str,
        seq: u64,
        event: &'a str,
        keep: usize,
    ) -> BoxFuture<'a, Result<(), VaultError>> {
        let _ = (session, stream, seq, event, keep);
        Box::pin(std::future::ready(Ok(())))
    }

    /// The kept events of the session's stream `stream` ([`VaultBackend::append_event`]),
    /// in order; `None` when the backend keeps none for it.
    fn stream_events<'a>(
        &'a self,
        session: &'a SessionId,
        stream: &'a str,
    ) -> BoxFuture<'a, Result<Option<StreamEvents>, VaultError>> {
        let _ = (session, stream);
        Box::pin(std::future::ready(Ok(None)))
    }
}

/// Vault settings from the `vault:` section.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VaultConfig {
    /// `memory` (in process) or `redis` (shared by replicas).
    pub backend: BackendKind,
    /// Redis URL, for `backend: redis`.
    pub url: Option<String>,
    /// Seconds a session may stay idle before its table is dropped.
    pub ttl_seconds: u64,
    /// The most values one session may hold; minting more is an error.
    pub max_entries_per_session: usize,
}

impl Default for VaultConfig {
    fn default() -> Self {
        VaultConfig {
            backend: BackendKind::Memory,
            url: None,
            ttl_seconds: 24 * 3600,
            max_entries_per_session: 100_000,
        }
    }
}

/// Which backend holds the tables.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// In process.
    #[default]
    Memory,
    /// Redis.
    Redis,
}

/// The key that decides whether two values of one kind are the same value.
///
/// Emails fold case; names fold case and whitespace; card, IBAN and SSN numbers drop spaces and
/// dashes; a recognizer's canonical form (phones: E.164) wins; anything else compares exactly.
pub fn normalize<'a>(kind: &Kind, value: &'a str, canonical: Option<&'a str>) -> Cow<'a, str> {
    let mut buf = String::new();
    match normalize_into(kind, value, canonical, &mut buf) {
        Some(form) => Cow::Borrowed(form),
        None => Cow::Owned(buf),
    }
}

/// Whether ASCII `value` is printable words one space apart (no other whitespace or control
/// byte, none before the first word or after the last): `Some(whether it has an upper-case
/// letter)`, else `None`.
fn single_spaced(value: &str) -> Option<bool> {
    // Before the first byte as after a space: a space there is not between words.
    let mut after_space = true;
    let mut upper = false;
    for &c in value.as_bytes() {
        if c == b' ' {
            if after_space {
                return None;
            }
            after_space = true;
        } else if c.is_ascii_graphic() {
            after_space = false;
            upper |= c.is_ascii_uppercase();
        } else {
            return None;
        }
    }
    // Empty, or a space last.
    (!after_space).then_some(upper)
}

/// [`normalize`], writing a form that is not a slice of `value` or `canonical` into `buf`
/// (cleared first) and returning `None` for it. A vault normalizes every value a message mints,
/// most of them known already: one buffer serves them all instead of a `String` each.
pub(crate) fn normalize_into<'a>(
    kind: &Kind,
    value: &'a str,
    canonical: Option<&'a str>,
    buf: &mut String,
) -> Option<&'a str> {
    if let Some(c) = canonical {
        return Some(c);
    }
    buf.clear();
    match kind {
        // ASCII text is read byte by byte, without decoding characters: for it `to_lowercase`
        // is `to_ascii_lowercase`.
        Kind::Email | Kind::IpAddress if value.is_ascii() => {
            if !value.bytes().any(|b| b.is_ascii_uppercase()) {
                return Some(value);
            }
            buf.push_str(value);
            buf.make_ascii_lowercase();
        }
        Kind::Email | Kind::IpAddress => {
            if !value.chars().any(char::is_uppercase) {
                return Some(value);
            }
            buf.push_str(&value.to_lowercase());
        }
        Kind::Name if value.is_ascii() => {
            // Most names are printable words one space apart: already joined as the fold
            // joins them, they need at most lower case.
            if let Some(upper) = single_spaced(value) {
                if !upper {
                    return Some(value);
                }
                buf.push_str(value);
                buf.make_ascii_lowercase();
                return None;
            }
            // The same fold for ASCII: words split on whitespace (`detect::words`, byte by
            // byte), joined by one space, then lower-cased in place.
            for word in crate::detect::words(value) {
                if !buf.is_empty() {
                    buf.push(' ');
                }
                buf.push_str(word);
            }
            buf.make_ascii_lowercase();
        }
        Kind::Name => {
            buf.extend(
                value
                    .split_whitespace()
                    .flat_map(|w| w.chars().flat_map(char::to_lowercase).chain([' '])),
            );
            buf.truncate(buf.trim_end().len());
        }
        // National identifiers are one value however they are grouped; wallet addresses
        // (base58 is case-sensitive), MACs and dates are kept as written.
        Kind::CreditCard | Kind::Iban | Kind::UsSsn | Kind::Phone | Kind::Id(_) if !matches!(kind, Kind::Id(id) if !id.folds_separators()) =>
        {
            if !value
                .bytes()
                .any(|b| matches!(b, b' ' | b'-' | b'.') || b.is_ascii_lowercase())
            {
                return Some(value);
            }
            if value.is_ascii() {
                for b in value.bytes().filter(|b| !matches!(b, b' ' | b'-' | b'.')) {
                    buf.push(char::from(b.to_ascii_uppercase()));
                }
            } else {
                buf.extend(
                    value
                        .chars()
                        .filter(|c| !matches!(c, ' ' | '-' | '.'))
                        .map(|c| c.to_ascii_uppercase()),
                );
            }
        }
        _ => return Some(value),
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_buffer_serves_every_form() {
        let values = [
            (Kind::Name, "Ann  LEE"),
            (Kind::Email, "Ann@X.io"),
            (Kind::Email, "ann@x.io"),
            (Kind::Name, "JÓZEF  Wąs "),
            (Kind::CreditCard, "4111 1111-1111 1111"),
            (Kind::CreditCard, "4111111111111111"),
            (Kind::Literal, "[EMAIL_1]"),
            (Kind::Name, "x"),
        ];
        let mut buf = String::from("left over");
        for (kind, value) in &values {
            let form = normalize_into(kind, value, None, &mut buf)
                .map_or_else(|| buf.clone(), str::to_string);
            assert_eq!(form, normalize(kind, value, None), "{value}");
        }
    }

    #[test]
    fn ascii_names_fold_like_any_other() {
        let pieces = [
            "Ann", "LEE", "o'Neil", " ", "  ", "\t", "\n", "\u{b}", "\u{c}", "\r", "\u{1c}", "x-Y",
            "", "\u{7f}", "\0",
        ];
        let mut rng = crate::testdata::Rng::new(11);
        for _ in 0..2000 {
            let value: String = (0..rng.below(8)).map(|_| *rng.pick(&pieces)).collect();
            let general: Vec<String> = value.split_whitespace().map(str::to_lowercase).collect();
            assert_eq!(
                normalize(&Kind::Name, &value, None),
                general.join(" "),
                "{value:?}"
            );
        }
    }

    /// The byte-wise paths for ASCII values give what the character-wise fold gives.
    #[test]
    fn ascii_fast_paths_fold_like_the_general_ones() {
        fn general(kind: &Kind, value: &str) -> String {
            match kind {
                Kind::Email | Kind::IpAddress => value.to_lowercase(),
                Kind::Name => {
                    let words: Vec<String> =
                        value.split_whitespace().map(str::to_lowercase).collect();
                    words.join(" ")
                }
                _ => value
                    .chars()
                    .filter(|c| !matches!(c, ' ' | '-' | '.'))
                    .map(|c| c.to_ascii_uppercase())
                    .collect(),
            }
        }
        let pieces = [
            "Ann", "lee", "@", "X.io", "4111", " ", "-", ".", "\t", "\u{b}", "de", "89", "Ä", "ß",
            "İ", "\u{a0}", "fe80::1", "AbC", "", "\n",
        ];
        let kinds = [
            Kind::Email,
            Kind::IpAddress,
            Kind::Name,
            Kind::CreditCard,
            Kind::Iban,
            Kind::UsSsn,
            Kind::Phone,
        ];
        let mut rng = crate::testdata::Rng::new(23);
        let mut buf = String::new();
        for _ in 0..5000 {
            let value: String = (0..rng.below(7)).map(|_| *rng.pick(&pieces)).collect();
            for kind in &kinds {
                let form = normalize_into(kind, &value, None, &mut buf)
                    .map_or_else(|| buf.clone(), str::to_string);
                assert_eq!(form, general(kind, &value), "{kind} {value:?}");
            }
        }
    }

    #[test]
    fn normal_forms() {
        assert_eq!(normalize(&Kind::Email, "Ann@X.io", None), "ann@x.io");
        assert_eq!(normalize(&Kind::Name, "  Ann   LEE ", None), "ann lee");
        assert_eq!(
            normalize(&Kind::CreditCard, "4111 1111-1111 1111", None),
            "4111111111111111"
        );
        assert_eq!(
            normalize(&Kind::Phone, "(415) 555-0100", Some("+14155550100")),
            "+14155550100"
        );
        assert_eq!(normalize(&Kind::Literal, "[EMAIL_1]", None), "[EMAIL_1]");
    }

    #[test]
    fn ascii_name_fold_matches_the_general_fold() {
        for value in [
            "Ann Lee",
            "  Ann \t\x0bLEE\n ",
            "o'neil-SMITH jr.",
            "",
            "   ",
            "X",
        ] {
            let general: String = value
                .split_whitespace()
                .flat_map(|w| w.chars().flat_map(char::to_lowercase).chain([' ']))
                .collect();
            assert_eq!(normalize(&Kind::Name, value, None), general.trim_end());
        }
    }

    #[test]
    fn random_session_ids_differ() {
        assert_ne!(SessionId::random(), SessionId::random());
        assert_eq!(SessionId::random().as_str().len(), 32);
    }
}
