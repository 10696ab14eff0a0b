//! `mcp-veil serve`: the MCP streamable-HTTP gateway (axum), a thin adapter over the same
//! interceptor and gateway as `mcp-veil proxy`.
//!
//! - `POST /mcp`: one JSON-RPC message or batch. Requests are answered on an SSE stream (when
//!   the client accepts `text/event-stream`; each message is tokenized on its own as it arrives,
//!   nothing is buffered whole) or as JSON; notifications and responses get `202 Accepted`.
//! - `GET /mcp`: the session's stream of server-initiated messages, or with `Last-Event-ID`
//!   the rest of an earlier stream (see below). `DELETE /mcp`: ends the session (its upstreams
//!   are closed and its vault table dropped); the vault backend records the id as terminated
//!   for its TTL, so every replica answers it 404 afterwards.
//! - `GET /healthz` (liveness: ok while the process serves), `GET /readyz` (readiness: the vault
//!   and the upstreams can serve; see module `ready`), `GET /metrics` (Prometheus text, counts
//!   only; see [`metrics`]).
//!
//! # Sessions
//!
//! Each session runs its own gateway (module `session`) in front of every server of `servers:`
//! (stdio children and `url:` servers mixed). The key comes from, in order: `Mcp-Session-Id`
//! (issued on `initialize`: 128 random bits signed with HMAC-SHA256 under
//! `MCP_VEIL_SESSION_SECRET`, so any replica with the same secret accepts it and made-up ids get
//! 404), the configured `session.header`,
//! the authenticated principal (`session.principal: true`), one shared session
//! (`session.shared: true`, for a single-user gateway on loopback). A request with none of them
//! is refused (HTTP 400 with a JSON-RPC error saying what to send). The vault session is derived
//! from the key alone (SHA-256), so every replica sharing a Redis vault restores the same tokens
//! for the same key; a replica meeting a valid `Mcp-Session-Id` it did not issue starts that
//! session's upstreams itself. The key is therefore a bearer secret for that session's values:
//! issued ids are random, and a configured header should carry an unguessable value.
//!
//! # Security
//!
//! Loopback by default; another address needs `serve.auth`. `Host` must be a loopback name or
//! in `allowed_hosts`, and `Origin` (when sent) a loopback origin or in `allowed_origins`
//! (DNS-rebinding protection; 403 otherwise). Bearer tokens come from an environment variable or
//! a file, never the YAML; a wrong or missing token gets 401. Bodies over
//! `limits.max_body_bytes` get 413; an upstream that does not answer within
//! `limits.upstream_timeout_seconds` gets the client a JSON-RPC error and is sent
//! `notifications/cancelled`. A client that goes away mid-stream cancels its pending requests
//! the same way, at once when it could not resume (it received no event id), else at their
//! deadline unless it resumed the stream by then. Errors and logs name methods, statuses and
//! counts, never values.
//!
//! # Resumable streams
//!
//! Every SSE event carries an id; clients at protocol 2025-11-25 or later first get a priming
//! event (an id, `retry`, empty data). `GET /mcp` with `Last-Event-ID` resumes the stream the
//! id belongs to from a bounded buffer of what that stream sent (tokenized; see module
//! `session`). With a vault shared by replicas (Redis) the events are copied there too, so
//! another replica replays them (and follows a POST's stream to its end); a stream it cannot
//! replay whole gets 409. With a private vault, an id the replica does not know opens a new
//! GET stream.

pub use crate::config::serve as config;
mod headers;
pub mod metrics;
mod ready;
mod session;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::{Stream, StreamExt};
use tokio::sync::mpsc;

use self::config::ServeConfig;
use self::headers::{
    check_param_headers, check_routing_headers, refuse_header, refuse_request, stateless_answer,
    stateless_check, stateless_request,
};
use self::metrics::{CountingPolicy, CountingVault, Metrics};
use self::session::{EventStream, Mirror, Session};
use super::envelope::{self, Envelope};
use super::flow::FlowPolicy;
use super::interceptor::Interceptor;
use super::stateless;
use super::stdio::ServerCommand;
use crate::config::Config;
use crate::detect::Detector;
use crate::engine::Engine;
use crate::vault::{self, SessionId, VaultBackend};

/// JSON-RPC code for the gateway's own failures.
pub(crate) const UPSTREAM_ERROR: i64 = -32603;
/// JSON-RPC code for a request the gateway refuses (no session, bad session).
const INVALID_REQUEST: i64 = -32600;
/// Extra time for the first requests of a new session, whose upstreams are still starting.
const STARTUP_ALLOWANCE: Duration = Duration::from_secs(30);
/// JSON-RPC code for an upstream that did not answer in time.
const TIMEOUT_ERROR: i64 = -32001;

/// Why `mcp-veil serve` could not start or stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The configuration is unusable (no servers, bad address, auth required).
    #[error("{0}")]
    Config(String),
    /// The listening socket failed.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        /// The address.
        addr: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// The shared state of one replica.
#[derive(Debug)]
pub struct Gateway {
    serve: ServeConfig,
    servers: Arc<BTreeMap<String, ServerCommand>>,
    vault: Arc<dyn VaultBackend>,
    /// One engine (detector, vault, the names each session recalls) for every session.
    engine: Engine,
    policy: Arc<dyn FlowPolicy>,
    audit: Option<Arc<crate::audit::AuditLog>>,
    /// The `surfaces:` section, for every session's interceptor.
    surfaces: crate::mcp::surfaces::SurfacesConfig,
    /// Which arguments restored values are escaped for (`restore:`).
    restore: Arc<crate::mcp::restore::RestoreRules>,
    /// The `tool_search:` section, for every session's gateway.
    tool_search: Arc<crate::mcp::tool_search::ToolSearchConfig>,
    /// Accepted bearer tokens and their principals.
    tokens: Tokens,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// The shared children of `share: true` servers.
    hubs: Arc<crate::mcp::shared::Hubs>,
    session_ids: SessionIds,
    metrics: Arc<Metrics>,
    epoch: Instant,
}

/// Accepted bearer tokens, each with its principal; `Debug` shows only how many.
struct Tokens(Vec<(String, String)>);

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tokens({} redacted)", self.0.len())
    }
}

/// The environment variable holding the secret that signs issued `Mcp-Session-Id`s; replicas
/// that share sessions must share it. Without it each process uses a random secret.
pub const SESSION_SECRET_ENV: &str = "MCP_VEIL_SESSION_SECRET";

/// Issues and checks `Mcp-Session-Id`s: 128 random bits and an HMAC-SHA256 tag, so a replica
/// accepts ids issued by any replica with the same secret and nothing a client made up.
struct SessionIds {
    key: ring::hmac::Key,
}

impl std::fmt::Debug for SessionIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionIds(<secret>)")
    }
}

impl SessionIds {
    fn from_env() -> Result<SessionIds, ServeError> {
        let secret = match std::env::var(SESSION_SECRET_ENV) {
            Ok(s) if s.len() >= 16 => s.into_bytes(),
            Ok(_) => {
                return Err(ServeError::Config(format!(
                    "{SESSION_SECRET_ENV} must be at least 16 characters"
                )));
            }
            Err(_) => random_id().into_bytes(),
        };
        Ok(SessionIds {
            key: ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &secret),
        })
    }

    fn tag(&self, nonce: &str) -> String {
        let tag = ring::hmac::sign(&self.key, nonce.as_bytes());
        tag.as_ref()[..16]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    fn issue(&self) -> String {
        let nonce = random_id();
        let tag = self.tag(&nonce);
        format!("{nonce}.{tag}")
    }

    fn verify(&self, id: &str) -> bool {
        match id.split_once('.') {
            Some((nonce, tag)) if nonce.len() == 32 && tag.len() == 32 => {
                constant_time_eq(self.tag(nonce).as_bytes(), tag.as_bytes())
            }
            _ => false,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `mcp-veil serve` until the process is stopped. `listen` overrides `serve.listen`.
pub async fn serve(config: Config, listen: Option<String>) -> Result<(), ServeError> {
    let addr = listen.unwrap_or_else(|| config.serve.listen.clone());
    let gateway = Gateway::new(config)?;
    let addr: SocketAddr = addr
        .parse()
        .map_err(|_| ServeError::Config(format!("`{addr}` is not an IP:port address")))?;
    if !addr.ip().is_loopback() && gateway.tokens.0.is_empty() {
        return Err(ServeError::Config(format!(
            "listening on {addr} (not loopback) requires `serve.auth`"
        )));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Listen {
            addr: addr.to_string(),
            source,
        })?;
    let local = listener.local_addr().map_err(|source| ServeError::Listen {
        addr: addr.to_string(),
        source,
    })?;
    eprintln!("mcp-veil serve: listening on http://{local}/mcp");
    let gateway = Arc::new(gateway);
    tokio::spawn(sweep(Arc::downgrade(&gateway)));
    axum::serve(listener, router(gateway))
        .await
        .map_err(|source| ServeError::Listen {
            addr: local.to_string(),
            source,
        })
}

/// The routes of one replica.
pub fn router(gateway: Arc<Gateway>) -> Router {
    let limit = gateway.serve.limits.max_body_bytes;
    Router::new()
        .route("/mcp", get(get_mcp).post(post_mcp).delete(delete_mcp))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready::get_readyz))
        .route("/metrics", get(get_metrics))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(gateway)
}

/// Drops sessions idle past `session.idle_seconds`.
async fn sweep(gateway: Weak<Gateway>) {
    loop {
        let Some(g) = gateway.upgrade() else { return };
        let idle = g.serve.session.idle_seconds;
        let every = Duration::from_secs((idle / 4).clamp(1, 30));
        let stale: Vec<Arc<Session>> = {
            let mut sessions = lock(&g.sessions);
            let keys: Vec<String> = sessions
                .iter()
                .filter(|(_, s)| s.idle_seconds() >= idle || s.is_ended())
                .map(|(k, _)| k.clone())
                .collect();
            keys.iter().filter_map(|k| sessions.remove(k)).collect()
        };
        for s in stale {
            s.close();
        }
        g.metrics.set_sessions(lock(&g.sessions).len());
        drop(g);
        tokio::time::sleep(every).await;
    }
}

/// A refusal: HTTP status plus a JSON-RPC error body.
fn refuse(status: StatusCode, message: &str) -> Response {
    let body = envelope::error_response(None, INVALID_REQUEST, &format!("mcp-veil: {message}"));
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Where a session key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeySource {
    SessionId,
    Header,
    Principal,
    Shared,
}

impl Gateway {
    /// A replica for `config` (its `servers:`, `vault:`, `detect:` and `serve:`).
    pub fn new(config: Config) -> Result<Gateway, ServeError> {
        if config.servers.is_empty() {
            return Err(ServeError::Config("the `servers:` section is empty".into()));
        }
        super::launch::check_servers(&config).map_err(ServeError::Config)?;
        let detector =
            Arc::new(Detector::new(&config.detect).map_err(|e| ServeError::Config(e.to_string()))?);
        // Before the first request: its tool result would pay what is built on first use.
        crate::walk::warm_up(&detector);
        let metrics = Arc::new(Metrics::default());
        let backend =
            vault::from_config(&config.vault).map_err(|e| ServeError::Config(e.to_string()))?;
        let vault: Arc<dyn VaultBackend> = Arc::new(CountingVault::new(backend, metrics.clone()));
        let (rules, audit) = super::launch::policy_and_audit(&config, false)
            .map_err(|e| ServeError::Config(e.to_string()))?;
        let policy: Arc<dyn FlowPolicy> =
            Arc::new(CountingPolicy::new(Arc::new(rules), metrics.clone()));
        let tokens = Tokens(load_tokens(&config.serve.auth)?);
        let restore = Arc::new(crate::mcp::restore::RestoreRules::new(&config.restore));
        crate::mcp::tool_search::ToolSearch::new(&config.tool_search)
            .map_err(|e| ServeError::Config(e.to_string()))?;
        Ok(Gateway {
            restore,
            tool_search: Arc::new(config.tool_search),
            serve: config.serve,
            servers: Arc::new(config.servers),
            engine: Engine::new(detector, vault.clone()),
            vault,
            policy,
            audit,
            surfaces: config.surfaces,
            tokens,
            sessions: Mutex::new(HashMap::new()),
            hubs: Arc::new(crate::mcp::shared::Hubs::new(
                metrics.shared_dropped.clone(),
            )),
            session_ids: SessionIds::from_env()?,
            metrics,
            epoch: Instant::now(),
        })
    }

    /// Checks Host, Origin and the bearer token; returns the principal.
    #[allow(clippy::result_large_err)]
    fn check(&self, headers: &HeaderMap) -> Result<Option<String>, Response> {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !host_allowed(host, &self.serve.allowed_hosts) {
            return Err(refuse(StatusCode::FORBIDDEN, "this Host is not allowed"));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            if !origin_allowed(origin, &self.serve.allowed_origins) {
                return Err(refuse(StatusCode::FORBIDDEN, "this Origin is not allowed"));
            }
        }
        if self.tokens.0.is_empty() {
            return Ok(None);
        }
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("");
        let mut principal = None;
        for (token, name) in &self.tokens.0 {
            if constant_time_eq(token.as_bytes(), given.as_bytes()) {
                principal = Some(name.clone());
            }
        }
        match principal {
            Some(p) => Ok(Some(p)),
            None => {
                let mut r = refuse(StatusCode::UNAUTHORIZED, "a valid bearer token is required");
                r.headers_mut()
                    .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
                Err(r)
            }
        }
    }

    /// The session key of a request, or why there is none. `initialize` may issue a new id.
    #[allow(clippy::result_large_err)]
    fn key(
        &self,
        headers: &HeaderMap,
        principal: Option<&str>,
        initialize: bool,
    ) -> Result<(KeySource, String, bool), Response> {
        if let Some(v) = headers.get("mcp-session-id") {
            let v = v.to_str().unwrap_or("");
            if !self.session_ids.verify(v) {
                // Not issued by a replica holding our secret (or malformed): the client should
                // initialize again.
                return Err(refuse(
                    StatusCode::NOT_FOUND,
                    "unknown Mcp-Session-Id: initialize a new session",
                ));
            }
            return Ok((KeySource::SessionId, v.to_string(), false));
        }
        if let Some(name) = &self.serve.session.header
            && let Some(v) = headers.get(name.as_str()).and_then(|v| v.to_str().ok())
            && !v.is_empty()
        {
            return Ok((KeySource::Header, v.to_string(), false));
        }
        if self.serve.session.principal
            && let Some(p) = principal
        {
            return Ok((KeySource::Principal, p.to_string(), false));
        }
        if initialize {
            return Ok((KeySource::SessionId, self.session_ids.issue(), true));
        }
        if self.serve.session.shared {
            return Ok((KeySource::Shared, String::new(), false));
        }
        let mut wanted = vec!["an Mcp-Session-Id header (from initialize)".to_string()];
        if let Some(h) = &self.serve.session.header {
            wanted.push(format!("a `{h}` header"));
        }
        if self.serve.session.principal {
            wanted.push("a bearer token".to_string());
        }
        Err(refuse(
            StatusCode::BAD_REQUEST,
            &format!("no session: send {}", wanted.join(" or ")),
        ))
    }

    /// The refusal of a stateless request with no session key: its tokens would have no vault
    /// session of their own, and one shared between clients is never taken silently.
    fn refuse_keyless(&self, item: &str) -> Response {
        let mut wanted = Vec::new();
        if let Some(h) = &self.serve.session.header {
            wanted.push(format!("a `{h}` header"));
        }
        if self.serve.session.principal {
            wanted.push("a bearer token".to_string());
        }
        let message = if wanted.is_empty() {
            "a stateless request needs a session key, and this gateway has none configured \
             (`serve.session.header`, `serve.session.principal`, or `serve.session.shared` \
             for a single user)"
                .to_string()
        } else {
            format!("a stateless request needs {}", wanted.join(" or "))
        };
        refuse_request(StatusCode::BAD_REQUEST, item, INVALID_REQUEST, &message)
    }

    /// Refuses (404) an `Mcp-Session-Id` its client terminated with `DELETE`, on whichever
    /// replica the `DELETE` went to (recorded in the vault backend, see
    /// [`VaultBackend::mark_terminated`]); this replica's copy of it, if any, is closed. Keys
    /// from a header, the principal or the shared session are never refused this way. A vault
    /// that cannot be asked lets the request through.
    async fn refuse_terminated(&self, source: KeySource, key: &str) -> Result<(), Response> {
        if source != KeySource::SessionId {
            return Ok(());
        }
        let map_key = format!("{source:?}:{key}");
        match self.vault.is_terminated(&vault_session(&map_key)).await {
            Ok(false) => Ok(()),
            Ok(true) => {
                if let Some(s) = lock(&self.sessions).remove(&map_key) {
                    s.close();
                }
                self.metrics.set_sessions(lock(&self.sessions).len());
                Err(refuse(
                    StatusCode::NOT_FOUND,
                    "the session was terminated: initialize a new session",
                ))
            }
            // The vault being down is not taken as the session having ended: the request goes
            // on, and anything it needs from the vault fails closed there.
            Err(e) => {
                tracing::warn!("could not check whether the session was terminated: {e}");
                Ok(())
            }
        }
    }

    /// The session for a key, started when this replica has none.
    #[allow(clippy::result_large_err)]
    fn session(
        self: &Arc<Self>,
        source: KeySource,
        key: &str,
        headers: &HeaderMap,
    ) -> Result<Arc<Session>, Response> {
        let map_key = format!("{source:?}:{key}");
        let mut sessions = lock(&self.sessions);
        if let Some(s) = sessions.get(&map_key)
            && !s.is_ended()
        {
            s.touch();
            return Ok(s.clone());
        }
        if sessions.len() >= self.serve.session.max_sessions {
            return Err(refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "too many sessions on this replica",
            ));
        }
        let engine = self.engine.clone();
        let interceptor = Interceptor::new(engine, vault_session(&map_key))
            .with_policy(self.policy.clone())
            .with_audit(self.audit.clone())
            .with_surfaces(self.surfaces)
            .with_restore(self.restore.clone());
        let mirror = self
            .vault
            .shares_sessions()
            .then(|| Arc::new(Mirror::new(self.vault.clone(), vault_session(&map_key))));
        let weak = Arc::downgrade(self);
        let ended_key = map_key.clone();
        let session = Session::start(
            Arc::new(interceptor),
            self.servers_for(headers),
            self.tool_search.clone(),
            self.hubs.clone(),
            mirror,
            self.epoch,
            move || {
                if let Some(g) = weak.upgrade() {
                    g.engine.forget_recall(&vault_session(&ended_key));
                    let mut sessions = lock(&g.sessions);
                    if sessions.get(&ended_key).is_some_and(|s| s.is_ended()) {
                        sessions.remove(&ended_key);
                    }
                }
            },
        );
        sessions.insert(map_key, session.clone());
        self.metrics.set_sessions(sessions.len());
        Ok(session)
    }

    /// The upstreams of a new session: with the client's `Authorization` added for servers
    /// that forward it.
    fn servers_for(&self, headers: &HeaderMap) -> Arc<BTreeMap<String, ServerCommand>> {
        let authorization = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok());
        match authorization {
            Some(value) if self.servers.values().any(|s| s.forward_authorization) => {
                let mut servers = (*self.servers).clone();
                for server in servers.values_mut().filter(|s| s.forward_authorization) {
                    server
                        .headers
                        .insert("Authorization".into(), value.to_string());
                }
                Arc::new(servers)
            }
            _ => self.servers.clone(),
        }
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.serve.limits.upstream_timeout_seconds)
    }
}

/// The vault session of a session key: derived from the key alone, the same on every replica.
fn vault_session(map_key: &str) -> SessionId {
    let digest = ring::digest::digest(&ring::digest::SHA256, map_key.as_bytes());
    let hex: String = digest.as_ref()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    SessionId::new(format!("http-{hex}"))
}

fn random_id() -> String {
    let mut bytes = [0u8; 16];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
        .expect("the system random source works");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn load_tokens(auth: &config::AuthConfig) -> Result<Vec<(String, String)>, ServeError> {
    let mut tokens = Vec::new();
    if let Some(var) = &auth.token_env {
        let t = std::env::var(var).map_err(|_| {
            ServeError::Config(format!("serve.auth.token_env: variable `{var}` is not set"))
        })?;
        if t.trim().is_empty() {
            return Err(ServeError::Config(format!(
                "serve.auth.token_env: variable `{var}` is empty"
            )));
        }
        config::check_token(&format!("variable `{var}`"), t.trim()).map_err(ServeError::Config)?;
        tokens.push((t.trim().to_string(), "default".to_string()));
    }
    if let Some(path) = &auth.token_file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            ServeError::Config(format!("serve.auth.token_file {}: {e}", path.display()))
        })?;
        for (n, line) in text
            .lines()
            .map(str::trim)
            .enumerate()
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        {
            let (token, principal) = match line.split_once(char::is_whitespace) {
                Some((principal, token)) => (token.trim(), principal),
                None => (line, "default"),
            };
            let source = format!("file {} line {}", path.display(), n + 1);
            config::check_token(&source, token).map_err(ServeError::Config)?;
            tokens.push((token.to_string(), principal.to_string()));
        }
    }
    Ok(tokens)
}

fn strip_port(host: &str) -> &str {
    if host.starts_with('[') {
        return host
            .split_once(']')
            .map_or(host, |(h, _)| &host[..=h.len()]);
    }
    host.rsplit_once(':').map_or(host, |(h, _)| h)
}

fn is_loopback_name(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let name = strip_port(host);
    is_loopback_name(name) || allowed.iter().any(|a| a == host || a == name)
}

fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    if allowed.iter().any(|a| a == origin) {
        return true;
    }
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    rest.is_some_and(|r| is_loopback_name(strip_port(r)))
}

fn accepts_sse(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"))
}

/// Requests of one POST answered as JSON, still waiting for an answer; dropping it (the
/// client went away) cancels them upstream.
struct Pending {
    session: Arc<Session>,
    ids: HashSet<String>,
    rx: mpsc::UnboundedReceiver<String>,
    deadline: tokio::time::Instant,
    timeout: Duration,
    metrics: Arc<Metrics>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        for id in self.ids.drain() {
            if self.session.forget(&id) {
                self.session.send(cancelled(&id, "the client went away"));
            }
        }
    }
}

fn cancelled(id: &str, reason: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":{}}}}}"#,
        serde_json::Value::String(reason.to_string())
    )
}

fn timeout_error(id: &str, timeout: Duration) -> String {
    let secs = timeout.as_secs();
    envelope::error_response(
        Some(id),
        TIMEOUT_ERROR,
        &format!("mcp-veil: the upstream server did not answer within {secs} s"),
    )
}

/// The messages for one POST answered as JSON, until each of its requests is answered (or
/// timed out).
fn answers(pending: Pending) -> impl Stream<Item = String> + Send {
    futures::stream::unfold(pending, |mut p| async move {
        if p.ids.is_empty() {
            return None;
        }
        tokio::select! {
            msg = p.rx.recv() => {
                let msg = msg?;
                if let Ok(env) = Envelope::parse(&msg)
                    && env.method.is_none()
                    && let Some(id) = env.id_key()
                {
                    p.ids.remove(id);
                }
                Some((msg, p))
            }
            () = tokio::time::sleep_until(p.deadline) => {
                let id = p.ids.iter().next().cloned()?;
                p.ids.remove(&id);
                p.session.forget(&id);
                p.session.send(cancelled(&id, "mcp-veil: upstream timeout"));
                p.metrics.upstream_error("timeout");
                Some((timeout_error(&id, p.timeout), p))
            }
        }
    })
}

/// The reconnection delay `serve` asks resumable clients for (SSE `retry`).
const RETRY: Duration = Duration::from_secs(1);

/// One HTTP response attached to an [`EventStream`]: a POST answered as SSE, the GET stream,
/// or either resumed with `Last-Event-ID`. Dropping it (the client went away) detaches it; a
/// POST stream's unanswered requests are then cancelled upstream at once when the client
/// cannot resume (it got no event id), else at their deadline unless a client resumed the
/// stream by then.
struct Attached {
    session: Arc<Session>,
    stream: Arc<EventStream>,
    attachment: u64,
    rx: mpsc::UnboundedReceiver<(u64, String)>,
    timeout: Duration,
    metrics: Arc<Metrics>,
    /// A POST's answer stream: when it came, for the latency metric counted when it ends
    /// (GET requests are counted when they are answered).
    post_started: Option<Instant>,
    /// The priming event (an id, `retry` and empty data) is still to be sent.
    prime: bool,
    /// Whether the client received an event id (it can resume).
    resumable: bool,
    /// A message already taken from `rx` (a stateless request's first, see `handle_post`).
    first: Option<(u64, String)>,
}

impl Drop for Attached {
    fn drop(&mut self) {
        if let Some(started) = self.post_started {
            self.metrics.request("POST", 200, started.elapsed());
        }
        if !self.stream.detach(self.attachment) || self.stream.is_finished() || self.stream.get {
            return;
        }
        let session = self.session.clone();
        let stream = self.stream.clone();
        if !self.resumable {
            cancel_stream(&session, &stream, "the client went away");
            return;
        }
        let attachment = self.attachment;
        let deadline = stream.deadline.unwrap_or_else(tokio::time::Instant::now);
        let metrics = self.metrics.clone();
        let timeout = self.timeout;
        tokio::spawn(async move {
            tokio::time::sleep_until(deadline).await;
            if stream.is_latest(attachment) && !stream.is_finished() {
                for id in stream.pending() {
                    if session.forget(&id) {
                        session.send(cancelled(&id, "mcp-veil: upstream timeout"));
                        metrics.upstream_error("timeout");
                    }
                    stream.push(timeout_error(&id, timeout));
                }
            }
        });
    }
}

/// Cancels the unanswered requests of a POST stream upstream.
fn cancel_stream(session: &Session, stream: &EventStream, reason: &str) {
    for id in stream.pending() {
        if session.forget(&id) {
            session.send(cancelled(&id, reason));
        }
    }
}

/// The events of an attached response: the priming event when due, then the stream's
/// messages (with their ids) until every request of the POST is answered or timed out (the
/// GET stream: until the session ends).
fn events(a: Attached) -> impl Stream<Item = Result<Event, Infallible>> + Send {
    futures::stream::unfold(a, |mut a| async move {
        if a.prime {
            a.prime = false;
            a.resumable = true;
            let event = Event::default()
                .id(a.stream.event_id(0))
                .retry(RETRY)
                .data("");
            return Some((Ok(event), a));
        }
        loop {
            let next = if let Some(first) = a.first.take() {
                Some(first)
            } else if a.stream.is_finished() {
                // Everything is answered: what is already queued, then the end.
                a.rx.try_recv().ok()
            } else if let Some(deadline) = a.stream.deadline {
                tokio::select! {
                    m = a.rx.recv() => m,
                    () = tokio::time::sleep_until(deadline) => {
                        // The first unanswered request times out; its error comes back
                        // through the stream.
                        if let Some(id) = a.stream.pending().into_iter().next() {
                            a.session.forget(&id);
                            a.session.send(cancelled(&id, "mcp-veil: upstream timeout"));
                            a.metrics.upstream_error("timeout");
                            a.stream.push(timeout_error(&id, a.timeout));
                        }
                        continue;
                    }
                }
            } else {
                a.rx.recv().await
            };
            let (seq, msg) = next?;
            a.resumable = true;
            let event = Event::default()
                .event("message")
                .id(a.stream.event_id(seq))
                .data(msg);
            return Some((Ok(event), a));
        }
    })
}

fn sse(attached: Attached) -> Response {
    Sse::new(events(attached))
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Whether the client speaks a protocol version with resumable streams (2025-11-25 on): it
/// gets a priming event first. Older clients get ids on their events, no empty event.
fn wants_priming(headers: &HeaderMap) -> bool {
    headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v >= "2025-11-25")
}

async fn post_mcp(State(g): State<Arc<Gateway>>, headers: HeaderMap, body: Bytes) -> Response {
    let started = Instant::now();
    let response = handle_post(&g, &headers, body, started).await;
    let streamed = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"text/event-stream"));
    if !streamed {
        // An event stream's latency is counted when it ends (see `Attached`).
        g.metrics
            .request("POST", response.status().as_u16(), started.elapsed());
    }
    response
}

async fn handle_post(
    g: &Arc<Gateway>,
    headers: &HeaderMap,
    body: Bytes,
    started: Instant,
) -> Response {
    let principal = match g.check(headers) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return refuse(StatusCode::BAD_REQUEST, "the body is not UTF-8");
    };
    // Raw newlines can only be insignificant whitespace in JSON: one message per line.
    let text = text.trim().replace(['\r', '\n'], " ");
    let batch = envelope::is_batch(&text);
    let mut items: Vec<String> = if batch {
        match envelope::split_batch(&text) {
            Ok(items) => items.iter().map(|i| i.get().to_string()).collect(),
            Err(_) => return parse_error(),
        }
    } else {
        vec![text]
    };
    let mut ids = Vec::new();
    let mut lists = HashSet::new();
    let mut initialize = false;
    for item in &items {
        let Ok(env) = Envelope::parse(item) else {
            return parse_error();
        };
        if let (Some(method), Some(id)) = (env.method.as_deref(), env.id_key()) {
            initialize |= method == "initialize";
            if method == "tools/list" {
                lists.insert(id.to_string());
            }
            ids.push(id.to_string());
        }
    }
    if items.len() == 1
        && let Err(why) = check_routing_headers(headers, &items[0])
    {
        return refuse_header(&items[0], &why);
    }
    // A batch: each request checked on its own; a refused one is answered in the batch (its
    // error, with its id) and not sent, the rest are.
    let mut refused = Vec::new();
    let stateless = match items.as_slice() {
        [item] if !batch => match stateless_request(headers, item) {
            Ok(s) => s,
            Err(r) => return r,
        },
        _ => {
            let mut any = false;
            items.retain(|item| match stateless_check(headers, item) {
                Ok(s) => {
                    any |= s;
                    true
                }
                Err(answer) => {
                    refused.push(answer);
                    false
                }
            });
            any
        }
    };
    let (source, key, issued) = match g.key(headers, principal.as_deref(), initialize && !stateless)
    {
        Ok(k) => k,
        Err(_) if stateless => return g.refuse_keyless(&items[0]),
        Err(r) => return r,
    };
    if !issued && let Err(r) = g.refuse_terminated(source, &key).await {
        return r;
    }
    let session = match g.session(source, &key, headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    if items.len() == 1
        && !batch
        && let Err(why) = check_param_headers(headers, &items[0], &session)
    {
        return refuse_header(&items[0], &why);
    }
    let sse_answer = !ids.is_empty() && accepts_sse(headers);
    for id in &lists {
        session.expect_tools_list(id);
    }
    // A new session first starts and initializes its upstreams: allow for that too.
    let deadline = tokio::time::Instant::now()
        + g.timeout()
        + if !session.is_ready() {
            STARTUP_ALLOWANCE
        } else {
            Duration::ZERO
        };
    let mut json = None;
    let mut stream = None;
    if sse_answer {
        stream = Some(session.open_stream(&ids, deadline));
    } else if !ids.is_empty() {
        let (tx, rx) = mpsc::unbounded_channel();
        for id in &ids {
            session.wait_json(id, tx.clone());
        }
        json = Some(Pending {
            session: session.clone(),
            ids: ids.iter().cloned().collect(),
            rx,
            deadline,
            timeout: g.timeout(),
            metrics: g.metrics.clone(),
        });
    }
    for item in items {
        if !session.send(item) {
            g.metrics.upstream_error("session_ended");
            return refuse(
                StatusCode::NOT_FOUND,
                "the session has ended; start a new one",
            );
        }
    }
    for answer in refused {
        session.dispatch(&answer);
    }
    let mut response = if let Some(stream) = stream {
        let (attachment, rx) = stream.attach(None);
        let mut attached = Attached {
            session: session.clone(),
            stream,
            attachment,
            rx,
            timeout: g.timeout(),
            metrics: g.metrics.clone(),
            post_started: Some(started),
            prime: wants_priming(headers),
            resumable: false,
            first: None,
        };
        if stateless {
            // Its status depends on how it is answered (an error: 400 or 404): the first
            // message decides; an answer that is such an error goes out as JSON.
            if let Ok(Some((seq, msg))) =
                tokio::time::timeout_at(deadline, attached.rx.recv()).await
            {
                let status = stateless::error_code(&msg).map_or(200, stateless::http_status);
                if status != 200 && attached.stream.is_finished() {
                    attached.post_started = None;
                    drop(attached);
                    return stateless_answer(status, msg);
                }
                attached.first = Some((seq, msg));
            }
        }
        sse(attached)
    } else if let Some(pending) = json {
        let single = ids.len() == 1 && !envelope::is_batch(body_start(&body));
        let ours: HashSet<String> = ids.iter().cloned().collect();
        let messages: Vec<String> = answers(pending)
            .filter(|m| {
                let is_ours = Envelope::parse(m).is_ok_and(|e| {
                    e.method.is_none() && e.id_key().is_some_and(|id| ours.contains(id))
                });
                futures::future::ready(is_ours)
            })
            .collect()
            .await;
        let body = if single {
            messages.into_iter().next().unwrap_or_default()
        } else {
            format!("[{}]", messages.join(","))
        };
        let status = if stateless {
            stateless::error_code(&body).map_or(200, stateless::http_status)
        } else {
            200
        };
        stateless_answer(status, body)
    } else {
        StatusCode::ACCEPTED.into_response()
    };
    if issued && let Ok(v) = HeaderValue::from_str(&key) {
        response.headers_mut().insert("mcp-session-id", v);
    }
    response
}

fn body_start(body: &Bytes) -> &str {
    let n = body.len().min(64);
    std::str::from_utf8(&body[..n]).unwrap_or("").trim_start()
}

fn parse_error() -> Response {
    let body = envelope::error_response(None, -32700, "parse error");
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

async fn get_mcp(State(g): State<Arc<Gateway>>, headers: HeaderMap) -> Response {
    let started = Instant::now();
    let response = handle_get(&g, &headers).await;
    g.metrics
        .request("GET", response.status().as_u16(), started.elapsed());
    response
}

async fn handle_get(g: &Arc<Gateway>, headers: &HeaderMap) -> Response {
    let principal = match g.check(headers) {
        Ok(p) => p,
        Err(r) => return r,
    };
    if !accepts_sse(headers) {
        return refuse(
            StatusCode::NOT_ACCEPTABLE,
            "GET /mcp is an event stream: accept text/event-stream",
        );
    }
    let (source, key, _) = match g.key(headers, principal.as_deref(), false) {
        Ok(k) => k,
        Err(r) => return r,
    };
    if let Err(r) = g.refuse_terminated(source, &key).await {
        return r;
    }
    let session = match g.session(source, &key, headers) {
        Ok(s) => s,
        Err(r) => return r,
    };
    // `Last-Event-ID`: the rest of the stream it names (a POST's answers, or the GET stream),
    // from the events kept; an id this replica does not know opens a new GET stream.
    let last_event_id = headers.get("last-event-id").and_then(|v| v.to_str().ok());
    let resume = last_event_id.and_then(|id| session.resumable(id));
    // Another replica's stream: replayed from the shared vault, or refused clearly.
    if resume.is_none()
        && g.vault.shares_sessions()
        && let Some((prefix, after)) = last_event_id.and_then(remote_stream)
        && !session.is_own_stream(prefix)
    {
        let map_key = format!("{source:?}:{key}");
        return resume_remote(g, &session, &vault_session(&map_key), prefix, after).await;
    }
    let resumed = resume.is_some();
    let (stream, attachment, rx) = match resume {
        Some((stream, after)) => {
            g.metrics.stream_resumed();
            let (n, rx) = stream.attach(Some(after));
            (stream, n, rx)
        }
        None => {
            let stream = session.open_get_stream();
            let (n, rx) = stream.attach(None);
            (stream, n, rx)
        }
    };
    sse(Attached {
        session: session.clone(),
        stream,
        attachment,
        rx,
        timeout: g.timeout(),
        metrics: g.metrics.clone(),
        post_started: None,
        prime: !resumed && wants_priming(headers),
        resumable: resumed,
        first: None,
    })
}

/// The stream and event number of a `Last-Event-ID` another replica may have given
/// (`{nonce}.{n}.{seq}` or `{nonce}.g{n}.{seq}`); `None` for anything else.
fn remote_stream(id: &str) -> Option<(&str, u64)> {
    let (prefix, seq) = id.rsplit_once('.')?;
    let seq: u64 = seq.parse().ok()?;
    let (nonce, n) = prefix.split_once('.')?;
    let n = n.strip_prefix('g').unwrap_or(n);
    let ok = nonce.len() == 8
        && nonce.bytes().all(|b| b.is_ascii_hexdigit())
        && !n.is_empty()
        && n.len() <= 20
        && n.bytes().all(|b| b.is_ascii_digit());
    ok.then_some((prefix, seq))
}

/// How often a stream resumed from the shared vault looks for new events of a POST stream
/// still being answered on the replica that holds its requests.
const REMOTE_POLL: Duration = Duration::from_millis(200);

/// Resumes a stream another replica gave (the client reconnected elsewhere): the events after
/// `after` from the shared vault, then, for a POST's stream, the rest as the other replica
/// copies it (until its end, or the request deadline), for the GET stream this replica's own
/// GET stream. A stream whose events are not all kept (expired, trimmed past `after`, an event
/// too large to copy) is refused with 409 and a JSON-RPC error saying so, never replayed with
/// a hole.
async fn resume_remote(
    g: &Arc<Gateway>,
    session: &Arc<Session>,
    vault_session: &SessionId,
    prefix: &str,
    after: u64,
) -> Response {
    let kept = match g.vault.stream_events(vault_session, prefix).await {
        Ok(kept) => kept,
        Err(e) => {
            tracing::warn!("could not read a stream's events from the vault: {e}");
            return refuse(StatusCode::SERVICE_UNAVAILABLE, "the vault is unavailable");
        }
    };
    let Some(kept) = kept.filter(|e| replayable(e, after)) else {
        return refuse(
            StatusCode::CONFLICT,
            "the events after this Last-Event-ID are not kept (the stream is too old, or was \
             longer than what is kept): they cannot be replayed; requests still unanswered on \
             it are lost, send them again",
        );
    };
    g.metrics.stream_resumed();
    let get = prefix
        .split_once('.')
        .is_some_and(|(_, n)| n.starts_with('g'));
    let then = get.then(|| {
        let stream = session.open_get_stream();
        let (attachment, rx) = stream.attach(None);
        Attached {
            session: session.clone(),
            stream,
            attachment,
            rx,
            timeout: g.timeout(),
            metrics: g.metrics.clone(),
            post_started: None,
            prime: false,
            resumable: true,
            first: None,
        }
    });
    let remote = Remote {
        vault: g.vault.clone(),
        session: vault_session.clone(),
        prefix: prefix.to_string(),
        last: after,
        queue: kept.into_iter().filter(|(seq, _)| *seq > after).collect(),
        get,
        deadline: tokio::time::Instant::now() + g.timeout() + STARTUP_ALLOWANCE,
    };
    let replay = remote_events(remote);
    let stream: futures::stream::BoxStream<'static, Result<Event, Infallible>> = match then {
        Some(attached) => replay.chain(events(attached)).boxed(),
        None => replay.boxed(),
    };
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Whether `events` (kept in the shared vault) hold every event after `after`: the first kept
/// one is at most `after + 1`, none is missing or too large to have been kept.
fn replayable(events: &[(u64, String)], after: u64) -> bool {
    let Some((first, _)) = events.first() else {
        return false;
    };
    if *first > after + 1 {
        return false;
    }
    let mut expected = None;
    for (seq, event) in events {
        if expected.is_some_and(|e| *seq != e) {
            return false;
        }
        if *seq > after && event == session::NOT_KEPT {
            return false;
        }
        expected = Some(seq + 1);
    }
    true
}

/// A stream being resumed from the shared vault.
struct Remote {
    vault: Arc<dyn VaultBackend>,
    session: SessionId,
    prefix: String,
    /// The last event sent.
    last: u64,
    /// Events read, not sent yet.
    queue: std::collections::VecDeque<(u64, String)>,
    /// The GET stream (its replay ends with what is kept; this replica's GET stream follows).
    get: bool,
    /// When to stop waiting for a POST stream's end.
    deadline: tokio::time::Instant,
}

/// The events of a [`Remote`] stream, with their original ids.
fn remote_events(r: Remote) -> impl Stream<Item = Result<Event, Infallible>> + Send {
    futures::stream::unfold(r, |mut r| async move {
        loop {
            if let Some((seq, msg)) = r.queue.pop_front() {
                if seq <= r.last {
                    continue;
                }
                if msg == session::END {
                    return None;
                }
                if msg == session::NOT_KEPT || seq != r.last + 1 {
                    // A hole after the replay began: end here rather than skip it.
                    tracing::warn!("a resumed stream ended at an event that was not kept");
                    return None;
                }
                r.last = seq;
                let event = Event::default()
                    .event("message")
                    .id(format!("{}.{seq}", r.prefix))
                    .data(msg);
                return Some((Ok(event), r));
            }
            if r.get || tokio::time::Instant::now() >= r.deadline {
                return None;
            }
            tokio::time::sleep(REMOTE_POLL).await;
            match r.vault.stream_events(&r.session, &r.prefix).await {
                Ok(Some(events)) => {
                    r.queue = events.into_iter().filter(|(s, _)| *s > r.last).collect();
                }
                Ok(None) => return None,
                Err(e) => tracing::warn!("could not read a stream's events from the vault: {e}"),
            }
        }
    })
}

async fn delete_mcp(State(g): State<Arc<Gateway>>, headers: HeaderMap) -> Response {
    let started = Instant::now();
    let response = handle_delete(&g, &headers).await;
    g.metrics
        .request("DELETE", response.status().as_u16(), started.elapsed());
    response
}

async fn handle_delete(g: &Arc<Gateway>, headers: &HeaderMap) -> Response {
    let principal = match g.check(headers) {
        Ok(p) => p,
        Err(r) => return r,
    };
    let (source, key, _) = match g.key(headers, principal.as_deref(), false) {
        Ok(k) => k,
        Err(r) => return r,
    };
    if let Err(r) = g.refuse_terminated(source, &key).await {
        return r;
    }
    let map_key = format!("{source:?}:{key}");
    if source == KeySource::SessionId
        && let Err(e) = g.vault.mark_terminated(&vault_session(&map_key)).await
    {
        tracing::warn!("could not record that the session was terminated: {e}");
        return refuse(StatusCode::SERVICE_UNAVAILABLE, "the vault is unavailable");
    }
    let session = lock(&g.sessions).remove(&map_key);
    if let Some(s) = session {
        s.close();
    }
    g.metrics.set_sessions(lock(&g.sessions).len());
    if let Err(e) = g.vault.end_session(&vault_session(&map_key)).await {
        tracing::warn!("could not drop the session's vault table: {e}");
    }
    StatusCode::OK.into_response()
}

async fn get_metrics(State(g): State<Arc<Gateway>>, headers: HeaderMap) -> Response {
    if let Err(r) = g.check(&headers) {
        return r;
    }
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        g.metrics.render(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        assert!(host_allowed("127.0.0.1:8080", &[]));
        assert!(host_allowed("localhost", &[]));
        assert!(host_allowed("[::1]:80", &[]));
        assert!(!host_allowed("evil.example:8080", &[]));
        assert!(host_allowed(
            "veil.internal:8080",
            &["veil.internal".into()]
        ));
        assert!(origin_allowed("http://localhost:3000", &[]));
        assert!(!origin_allowed("https://evil.example", &[]));
        assert!(!origin_allowed("http://localhost.evil.example", &[]));
        assert!(origin_allowed(
            "https://app.example",
            &["https://app.example".into()]
        ));
    }

    #[test]
    fn session_ids_are_signed() {
        let ids = SessionIds::from_env().unwrap();
        let id = ids.issue();
        assert!(ids.verify(&id));
        assert!(!ids.verify("1"));
        let (nonce, _) = id.split_once('.').unwrap();
        assert!(!ids.verify(&format!("{nonce}.{}", "0".repeat(32))));
        let other = SessionIds::from_env().unwrap();
        assert!(!other.verify(&id), "another secret rejects it");
    }

    #[test]
    fn vault_sessions_depend_on_the_key_only() {
        assert_eq!(vault_session("SessionId:a"), vault_session("SessionId:a"));
        assert_ne!(vault_session("SessionId:a"), vault_session("Header:a"));
        assert_eq!(random_id().len(), 32);
    }
}
