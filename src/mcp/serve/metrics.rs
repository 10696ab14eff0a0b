//! Counters for `/metrics`, in the Prometheus text format (written by hand: a few lines).
//!
//! Counts only, never values: requests by method and status, tokens minted (occurrences
//! tokenized) and restored by kind, policy denials, upstream failures by reason, sessions, and a
//! latency histogram of `/mcp` requests. The vault and the policy are wrapped ([`CountingVault`],
//! [`CountingPolicy`]) so the interceptor needs no hooks.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;

use crate::mcp::flow::{FlowPolicy, Outbound, Verdict};
use crate::policy::CallVerdict;
use crate::token::Token;
use crate::vault::{Entry, MintRequest, SessionId, StreamEvents, VaultBackend, VaultError};

/// Upper bounds (seconds) of the latency histogram buckets.
const BUCKETS: [f64; 12] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0,
];

/// All counters of one replica.
#[derive(Debug, Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(&'static str, u16), u64>>,
    minted: Mutex<BTreeMap<String, u64>>,
    restored: Mutex<BTreeMap<String, u64>>,
    denials: AtomicU64,
    upstream_errors: Mutex<BTreeMap<&'static str, u64>>,
    sessions: AtomicU64,
    /// Event streams resumed with `Last-Event-ID`.
    resumed: AtomicU64,
    /// Messages from shared stdio children that belonged to no session (dropped or refused).
    pub(crate) shared_dropped: std::sync::Arc<AtomicU64>,
    latency_buckets: [AtomicU64; BUCKETS.len()],
    latency_count: AtomicU64,
    latency_sum_micros: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Metrics {
    /// One HTTP request answered.
    pub fn request(&self, method: &'static str, status: u16, elapsed: Duration) {
        *lock(&self.requests).entry((method, status)).or_default() += 1;
        let secs = elapsed.as_secs_f64();
        for (i, bound) in BUCKETS.iter().enumerate() {
            if secs <= *bound {
                self.latency_buckets[i].fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency_count.fetch_add(1, Ordering::Relaxed);
        self.latency_sum_micros
            .fetch_add(elapsed.as_micros() as u64, Ordering::Relaxed);
    }

    /// An upstream failure (`timeout`, `session_ended`).
    pub fn upstream_error(&self, reason: &'static str) {
        *lock(&self.upstream_errors).entry(reason).or_default() += 1;
    }

    /// An event stream resumed with `Last-Event-ID`.
    pub fn stream_resumed(&self) {
        self.resumed.fetch_add(1, Ordering::Relaxed);
    }

    /// The number of live sessions on this replica.
    pub fn set_sessions(&self, n: usize) {
        self.sessions.store(n as u64, Ordering::Relaxed);
    }

    /// The text exposition.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# TYPE mcp_veil_http_requests_total counter");
        for ((method, status), n) in lock(&self.requests).iter() {
            let _ = writeln!(
                out,
                "mcp_veil_http_requests_total{{method=\"{method}\",status=\"{status}\"}} {n}"
            );
        }
        for (name, table) in [("minted", &self.minted), ("restored", &self.restored)] {
            let _ = writeln!(out, "# TYPE mcp_veil_tokens_{name}_total counter");
            for (kind, n) in lock(table).iter() {
                let _ = writeln!(out, "mcp_veil_tokens_{name}_total{{kind=\"{kind}\"}} {n}");
            }
        }
        let _ = writeln!(out, "# TYPE mcp_veil_denials_total counter");
        let _ = writeln!(
            out,
            "mcp_veil_denials_total {}",
            self.denials.load(Ordering::Relaxed)
        );
        let _ = writeln!(out, "# TYPE mcp_veil_upstream_errors_total counter");
        for (reason, n) in lock(&self.upstream_errors).iter() {
            let _ = writeln!(
                out,
                "mcp_veil_upstream_errors_total{{reason=\"{reason}\"}} {n}"
            );
        }
        let _ = writeln!(out, "# TYPE mcp_veil_streams_resumed_total counter");
        let _ = writeln!(
            out,
            "mcp_veil_streams_resumed_total {}",
            self.resumed.load(Ordering::Relaxed)
        );
        let _ = writeln!(out, "# TYPE mcp_veil_shared_dropped_total counter");
        let _ = writeln!(
            out,
            "mcp_veil_shared_dropped_total {}",
            self.shared_dropped.load(Ordering::Relaxed)
        );
        let _ = writeln!(out, "# TYPE mcp_veil_sessions gauge");
        let _ = writeln!(
            out,
            "mcp_veil_sessions {}",
            self.sessions.load(Ordering::Relaxed)
        );
        let _ = writeln!(out, "# TYPE mcp_veil_request_duration_seconds histogram");
        for (i, bound) in BUCKETS.iter().enumerate() {
            let _ = writeln!(
                out,
                "mcp_veil_request_duration_seconds_bucket{{le=\"{bound}\"}} {}",
                self.latency_buckets[i].load(Ordering::Relaxed)
            );
        }
        let count = self.latency_count.load(Ordering::Relaxed);
        let _ = writeln!(
            out,
            "mcp_veil_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            out,
            "mcp_veil_request_duration_seconds_sum {}",
            self.latency_sum_micros.load(Ordering::Relaxed) as f64 / 1e6
        );
        let _ = writeln!(out, "mcp_veil_request_duration_seconds_count {count}");
        out
    }
}

fn count_kinds<'a>(table: &Mutex<BTreeMap<String, u64>>, tokens: impl Iterator<Item = &'a Token>) {
    let mut table = lock(table);
    for t in tokens {
        let kind = t.kind.as_str();
        match table.get_mut(kind) {
            Some(n) => *n += 1,
            None => {
                table.insert(kind.to_string(), 1);
            }
        }
    }
}

/// A vault that counts the tokens it hands out and resolves, by kind.
#[derive(Debug)]
pub struct CountingVault {
    inner: Arc<dyn VaultBackend>,
    metrics: Arc<Metrics>,
}

impl CountingVault {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn VaultBackend>, metrics: Arc<Metrics>) -> CountingVault {
        CountingVault { inner, metrics }
    }
}

impl VaultBackend for CountingVault {
    fn mint<'a>(
        &'a self,
        session: &'a SessionId,
        origin: &'a str,
        requests: &'a [MintRequest<'a>],
    ) -> BoxFuture<'a, Result<Vec<Token>, VaultError>> {
        Box::pin(async move {
            let tokens = self.inner.mint(session, origin, requests).await?;
            count_kinds(&self.metrics.minted, tokens.iter());
            Ok(tokens)
        })
    }

    fn resolve<'a>(
        &'a self,
        session: &'a SessionId,
        tokens: &'a [Token],
    ) -> BoxFuture<'a, Result<Vec<Option<Entry>>, VaultError>> {
        Box::pin(async move {
            let entries = self.inner.resolve(session, tokens).await?;
            count_kinds(
                &self.metrics.restored,
                entries.iter().flatten().map(|e| &e.token),
            );
            Ok(entries)
        })
    }

    fn end_session<'a>(&'a self, session: &'a SessionId) -> BoxFuture<'a, Result<(), VaultError>> {
        self.inner.end_session(session)
    }

    fn mark_terminated<'a>(
        &'a self,
        session: &'a SessionId,
    ) -> BoxFuture<'a, Result<(), VaultError>> {
        self.inner.mark_terminated(session)
    }

    fn is_terminated<'a>(
        &'a self,
        session: &'a SessionId,
    ) -> BoxFuture<'a, Result<bool, VaultError>> {
        self.inner.is_terminated(session)
    }

    fn shares_sessions(&self) -> bool {
        self.inner.shares_sessions()
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), VaultError>> {
        self.inner.ping()
    }

    fn entries_after<'a>(
        &'a self,
        session: &'a SessionId,
        kind: &'a crate::Kind,
        after: u32,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Entry>, VaultError>> {
        self.inner.entries_after(session, kind, after, limit)
    }

    fn append_event<'a>(
        &'a self,
        session: &'a SessionId,
        stream: &'a str,
        seq: u64,
        event: &'a str,
        keep: usize,
    ) -> BoxFuture<'a, Result<(), VaultError>> {
        self.inner.append_event(session, stream, seq, event, keep)
    }

    fn stream_events<'a>(
        &'a self,
        session: &'a SessionId,
        stream: &'a str,
    ) -> BoxFuture<'a, Result<Option<StreamEvents>, VaultError>> {
        self.inner.stream_events(session, stream)
    }
}

/// A policy that counts denials.
#[derive(Debug)]
pub struct CountingPolicy {
    inner: Arc<dyn FlowPolicy>,
    metrics: Arc<Metrics>,
}

impl CountingPolicy {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn FlowPolicy>, metrics: Arc<Metrics>) -> CountingPolicy {
        CountingPolicy { inner, metrics }
    }
}

impl FlowPolicy for CountingPolicy {
    fn check(&self, call: &Outbound<'_>) -> Verdict {
        let verdict = self.inner.check(call);
        if matches!(verdict.call, CallVerdict::Deny(_)) {
            self.metrics.denials.fetch_add(1, Ordering::Relaxed);
        }
        verdict
    }

    fn acts_on_raw(&self) -> bool {
        self.inner.acts_on_raw()
    }

    fn tool_listed(&self, server: &str, tool: &str) -> bool {
        self.inner.tool_listed(server, tool)
    }

    fn hides_tools(&self) -> bool {
        self.inner.hides_tools()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counts_and_histogram() {
        let m = Metrics::default();
        m.request("POST", 200, Duration::from_millis(3));
        m.upstream_error("timeout");
        let text = m.render();
        assert!(text.contains("mcp_veil_http_requests_total{method=\"POST\",status=\"200\"} 1"));
        assert!(text.contains("mcp_veil_request_duration_seconds_bucket{le=\"0.005\"} 1"));
        assert!(text.contains("mcp_veil_request_duration_seconds_bucket{le=\"0.001\"} 0"));
        assert!(text.contains("mcp_veil_upstream_errors_total{reason=\"timeout\"} 1"));
    }
}
