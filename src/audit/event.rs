//! What one audit line says, and its exact byte layout.
//!
//! A line is one JSON object, fields in this order (absent ones skipped):
//!
//! ```text
//! {"v":1,"seq":7,"ts":"2026-11-30T00:12:03.417Z","session":"9f..","dir":"out","server":"mail",
//!  "method":"tools/call","name":"send_email","id":12,"event":"restored","rule":"crm-to-mail",
//!  "kinds":{"EMAIL":1},"items":[{"kind":"EMAIL","token":"[EMAIL_1]","fp":"3a9c0e4f1b2d7a88"}],
//!  "prev":"<64 hex>","mac":"<64 hex>"}
//! ```
//!
//! A seal line (`"event":"sealed","seal":"rotate"|"interval"|"close"`) has only `v`, `seq`, `ts`,
//! `event`, `seal`, `prev` and `mac`: its MAC covers the chain head (`prev`) and the line count
//! (`seq - 1` lines before it), so it vouches for exactly that chain (see [`super::verify`]).
//!
//! `fp` is the keyed fingerprint of the value ([`super::AuditKey::fingerprint`]), never the
//! value. `prev` is the previous line's `mac` (64 zeros on the very first line) and `mac` is the
//! HMAC of every byte of the line before `,"mac":"`: the chain [`super::verify`] checks.
//! `mac` is always last, so verifying needs no re-serialisation.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::detect::Kind;
use crate::sensitive::Sensitive;
use crate::token::Token;

/// Which way the message was going.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Direction {
    /// Server → host (results, resources, prompts): values get tokenized.
    #[serde(rename = "in")]
    Inbound,
    /// Host → server (tool calls): tokens get restored.
    #[serde(rename = "out")]
    Outbound,
}

/// What happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EventKind {
    /// Values were replaced by tokens (inbound).
    Tokenized,
    /// Tokens were replaced by their values (outbound).
    Restored,
    /// Tokens were sent as is (a `keep` rule or `unknown_tokens: pass`).
    Kept,
    /// A call was blocked.
    Denied,
    /// The user confirmed a call that needed it.
    Confirmed,
    /// A call named tokens the session never minted.
    UnknownToken,
    /// The model wrote raw PII into a call's arguments.
    RawPii,
    /// The writer found a partial last line on open and cut it off (see [`super::AuditLog`]).
    Recovered,
    /// A seal: the writer vouches that the chain held exactly the lines before this one
    /// (its `seq` and `prev`), written on rotation, on an interval and on a clean close.
    Sealed,
}

/// Why a seal line was written (its `"seal"` member).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SealReason {
    /// Last line of a file about to be rotated: a newer file continues the chain.
    Rotate,
    /// `audit.seal_interval_seconds` passed (or `seal_every_lines` lines were written) since the
    /// last seal.
    Interval,
    /// The writer closed cleanly: nothing follows until it opens again.
    Close,
}

impl SealReason {
    /// The name written in the line.
    pub fn as_str(self) -> &'static str {
        match self {
            SealReason::Rotate => "rotate",
            SealReason::Interval => "interval",
            SealReason::Close => "close",
        }
    }
}

/// One value (or token) an event is about.
#[derive(Clone, Copy, Debug)]
pub struct Item<'a> {
    /// Its kind.
    pub kind: &'a Kind,
    /// Its token, when it has one.
    pub token: Option<&'a Token>,
    /// The raw value, only to fingerprint it; never written.
    pub value: Option<Sensitive<&'a str>>,
    /// The recognizer's canonical form (a phone's E.164), if known.
    pub canonical: Option<&'a str>,
}

impl<'a> Item<'a> {
    /// An inbound value and the token it was replaced by.
    pub fn tokenized(found: crate::walk::Found<'a>, token: &'a Token) -> Item<'a> {
        Item {
            kind: found.kind,
            token: Some(token),
            value: Some(found.value),
            canonical: found.canonical,
        }
    }

    /// A vault entry (a token restored, kept, denied or confirmed outbound).
    pub fn entry(entry: &'a crate::vault::Entry) -> Item<'a> {
        Item {
            kind: &entry.token.kind,
            token: Some(&entry.token),
            value: Some(Sensitive::new(entry.value.expose().as_str())),
            canonical: None,
        }
    }

    /// A token with no value to fingerprint (an unknown token).
    pub fn token_only(token: &'a Token) -> Item<'a> {
        Item {
            kind: &token.kind,
            token: Some(token),
            value: None,
            canonical: None,
        }
    }
}

/// One audit event, as the interceptor reports it.
#[derive(Clone, Copy, Debug)]
pub struct Event<'a> {
    /// The session (opaque id).
    pub session: &'a str,
    /// Inbound or outbound.
    pub direction: Direction,
    /// The upstream server's configured name.
    pub server: &'a str,
    /// The JSON-RPC method (`tools/call`, `resources/read` ...).
    pub method: &'a str,
    /// The tool name or resource URI, when the method has one.
    pub name: Option<&'a str>,
    /// The JSON-RPC request id, when the message has one.
    pub request_id: Option<&'a serde_json::Value>,
    /// What happened.
    pub event: EventKind,
    /// The deciding rule, if a rule decided.
    pub rule: Option<&'a str>,
    /// The values or tokens concerned.
    pub items: &'a [Item<'a>],
}

/// The serialised body of a line, up to and including `prev`.
#[derive(Serialize)]
pub(crate) struct Body<'a> {
    pub v: u8,
    pub seq: u64,
    pub ts: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<Direction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a serde_json::Value>,
    pub event: EventKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'a str>,
    #[serde(skip_serializing_if = "is_empty_map")]
    pub kinds: &'a BTreeMap<&'a str, u32>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub items: &'a [BodyItem<'a>],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seal: Option<SealReason>,
    pub prev: &'a str,
}

fn is_empty_map(map: &&BTreeMap<&str, u32>) -> bool {
    map.is_empty()
}

/// One item as written.
#[derive(Serialize)]
pub(crate) struct BodyItem<'a> {
    pub kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fp: Option<String>,
}

/// The fields `verify` and `find` read back from a line.
#[derive(Deserialize)]
pub(crate) struct Parsed {
    pub seq: u64,
    pub prev: String,
    /// `rotate`, `interval` or `close` on a seal line.
    #[serde(default)]
    pub seal: Option<String>,
    #[serde(default)]
    pub items: Vec<ParsedItem>,
}

/// An item read back.
#[derive(Deserialize)]
pub(crate) struct ParsedItem {
    pub kind: String,
    #[serde(default)]
    pub fp: Option<String>,
}

/// The separator before the MAC; everything before it is MACed.
pub(crate) const MAC_SEP: &str = ",\"mac\":\"";

/// The `prev` of the very first line.
pub(crate) const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Splits a line (without its newline) into the MACed prefix and the MAC, checking the shape.
pub(crate) fn split_mac(line: &str) -> Option<(&str, &str)> {
    let rest = line.strip_suffix("\"}")?;
    let at = rest.rfind(MAC_SEP)?;
    let mac = &rest[at + MAC_SEP.len()..];
    (mac.len() == 64 && mac.bytes().all(|b| b.is_ascii_hexdigit())).then_some((&line[..at], mac))
}

/// A UTC timestamp in RFC 3339 with milliseconds (`2026-11-30T00:12:03.417Z`).
pub(crate) struct Timestamp(pub std::time::SystemTime);

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self
            .0
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let secs = d.as_secs();
        let (days, rem) = (secs / 86_400, secs % 86_400);
        let (y, m, dd) = civil_from_days(days as i64);
        write!(
            f,
            "{y:04}-{m:02}-{dd:02}T{:02}:{:02}:{:02}.{:03}Z",
            rem / 3600,
            rem % 3600 / 60,
            rem % 60,
            d.subsec_millis()
        )
    }
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn timestamps() {
        let t = Timestamp(UNIX_EPOCH + Duration::from_millis(1_796_000_000_417));
        assert_eq!(t.to_string(), "2026-11-30T00:53:20.417Z");
        assert_eq!(
            Timestamp(UNIX_EPOCH).to_string(),
            "1970-01-01T00:00:00.000Z"
        );
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400); // 2000-02-29
        assert!(Timestamp(leap).to_string().starts_with("2000-02-29T"));
    }

    #[test]
    fn mac_split_checks_shape() {
        let mac = "a".repeat(64);
        let line = format!("{{\"v\":1{MAC_SEP}{mac}\"}}");
        assert_eq!(split_mac(&line), Some(("{\"v\":1", mac.as_str())));
        assert_eq!(split_mac("{\"v\":1}"), None);
        assert_eq!(split_mac(&line[..line.len() - 3]), None);
    }
}
