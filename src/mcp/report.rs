//! Audit events from the MCP path: what the interceptor did, written through [`AuditLog`].
//!
//! The interceptor calls [`Reporter::record`] with a [`Site`] (session, server, method, tool or
//! URI, request id) and the items concerned; items are grouped so each line has one deciding
//! rule. Without a log every call is a no-op (one branch). A write that fails is reported on
//! stderr naming the error, never a value, and the relay goes on.
//!
//! Cost on the relay: [`AuditLog::record`] fingerprints the items (one HMAC each), formats one
//! line and appends it with one `write` under a mutex, into the page cache (microseconds; see
//! `examples/proxy_latency.rs` for the measured cost per call). With `fsync: interval` at most
//! one `fdatasync` per interval lands on a relay task; `fsync: always` makes every event wait
//! for the disk, which the configuration documents.

use std::sync::Arc;

use crate::audit::{AuditLog, Direction, Event, EventKind, Item};
use crate::vault::SessionId;

/// Where an event happened.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Site<'a> {
    /// The upstream server.
    pub server: &'a str,
    /// The JSON-RPC method (`tools/call`, `resources/read` ...).
    pub method: &'a str,
    /// The tool, URI or prompt, when there is one.
    pub name: Option<&'a str>,
    /// The request id as JSON text, when there is one.
    pub id: Option<&'a str>,
}

/// Writes the interceptor's audit events, or nothing when there is no log.
#[derive(Debug, Clone, Default)]
pub(crate) struct Reporter {
    log: Option<Arc<AuditLog>>,
}

impl Reporter {
    /// A reporter writing to `log`.
    pub(crate) fn new(log: Option<Arc<AuditLog>>) -> Reporter {
        Reporter { log }
    }

    /// Whether events are written.
    pub(crate) fn on(&self) -> bool {
        self.log.is_some()
    }

    /// Records one event per distinct rule among `items` (in order of first appearance).
    pub(crate) fn record<'r>(
        &self,
        session: &SessionId,
        site: &Site<'_>,
        direction: Direction,
        event: EventKind,
        items: impl IntoIterator<Item = (Option<&'r str>, Item<'r>)>,
    ) {
        let Some(log) = &self.log else {
            return;
        };
        let mut groups: Vec<(Option<&str>, Vec<Item<'_>>)> = Vec::new();
        for (rule, item) in items {
            match groups.iter_mut().find(|(r, _)| *r == rule) {
                Some((_, list)) => list.push(item),
                None => groups.push((rule, vec![item])),
            }
        }
        let id: Option<serde_json::Value> = site.id.and_then(|id| serde_json::from_str(id).ok());
        for (rule, items) in &groups {
            let line = Event {
                session: session.as_str(),
                direction,
                server: site.server,
                method: site.method,
                name: site.name,
                request_id: id.as_ref(),
                event,
                rule: *rule,
                items,
            };
            if let Err(e) = log.record(&line) {
                tracing::error!("audit event not written: {e}");
            }
        }
    }

    /// Records one event with `rule` and `items` (possibly none, e.g. a tool denied outright).
    pub(crate) fn record_one(
        &self,
        session: &SessionId,
        site: &Site<'_>,
        direction: Direction,
        event: EventKind,
        rule: Option<&str>,
        items: &[Item<'_>],
    ) {
        let Some(log) = &self.log else {
            return;
        };
        let id: Option<serde_json::Value> = site.id.and_then(|id| serde_json::from_str(id).ok());
        let line = Event {
            session: session.as_str(),
            direction,
            server: site.server,
            method: site.method,
            name: site.name,
            request_id: id.as_ref(),
            event,
            rule,
            items,
        };
        if let Err(e) = log.record(&line) {
            tracing::error!("audit event not written: {e}");
        }
    }
}
