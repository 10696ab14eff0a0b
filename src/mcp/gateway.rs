//! `mcp-veil proxy --config F` with `servers:`: several servers behind one session: stdio
//! children, and remote streamable-HTTP servers (`url:`, see [`super::http_upstream`]) driven
//! through the same line-based pipes. `mcp-veil serve` runs one of these per HTTP session.
//!
//! The gateway is one MCP server to the host and one MCP client to each upstream. Every message
//! to or from an upstream goes through the same [`Interceptor`], so there is ONE vault session:
//! a token minted from server A's result restores in a call to server B.
//!
//! # What the host sees
//!
//! - Tools and prompts as `{server}__{name}`, normalised to `[A-Za-z0-9_-]` and cut to 64
//!   characters. Two names that collide after that are a start-up error naming both origins
//!   (at run time, after a `list_changed`, the later one is dropped with an error on stderr).
//! - `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`: every live
//!   upstream's complete list (the gateway follows `nextCursor` itself), in one page, with the
//!   lists' own fields merged (`_meta` key by key, the shortest `ttlMs`, `cacheScope`
//!   `private` when any server's is). The
//!   gateway asks for each page through the interceptor, so every upstream's list is scanned
//!   (origin `upstream/tools/list` ..., see [`super::surfaces`]) before it is merged; so is each
//!   upstream's `initialize` result, whose capabilities the gateway merges (upstream
//!   `instructions` are not forwarded).
//! - What it passes keeps its key order (results it merges too, member by member).
//! - Calls routed by name (a `{server}__{tool}` that no list showed goes to that server, which
//!   answers for it); `resources/read` and (un)subscribe by the URI's last listing (or the
//!   only server with resources); `completion/complete` by its `ref`.
//! - `initialize` answered by the gateway: merged capabilities, and the older of the host's and
//!   the upstreams' protocol versions. `server/discover` is fanned out and merged the same way.
//! - Notifications from every upstream; server → host requests (sampling, elicitation, roots)
//!   with ids remapped so two servers' `id: 0` cannot collide.
//!
//! # Start-up and failures
//!
//! Each upstream is started when the gateway starts, and initialized by the gateway once the
//! host's first message is in (with the protocol version the host's `initialize` asks for, up
//! to 2025-11-25), as a client that supports sampling and elicitation (form and URL), and roots
//! when the host declared them (their `roots/list` requests go to the host like any server
//! request; without them, servers use their own arguments for roots). A server that fails to
//! start or to initialize, or dies later, is reported on stderr; its tools answer with
//! `isError` results naming it, its pending requests get errors, and the other servers keep
//! working. When the host closes stdin every upstream's
//! stdin is closed, each gets [`super::stdio::GRACE`] to exit, and the gateway exits 0.
//!
//! Batches from the host are handled item by item and answered as one batch, once every
//! request in it is answered (a batch of notifications gets no answer).
//!
//! Tasks: task ids are shown as `{server}__{id}` and `tasks/get`, `tasks/result`,
//! `tasks/cancel` and `tasks/update` go to the server that made the task (see module `tasks`);
//! `tasks/list` is every server's list; the `tasks` capability is the servers' merged.
//!
//! Stateless (2026-07-28) hosts: when the host's first message is a stateless request (see
//! module `stateless`), each of its requests is checked on its own (`_meta` with the version
//! and the capabilities, a version the layer speaks: else its own error, in a batch too), each
//! upstream is discovered with `server/discover` under that
//! request's `_meta` instead of initialized (one that does not answer it is initialized as
//! before, sent requests without the lifecycle `_meta`, and its answers stamped with
//! `resultType`); the gateway's own requests for a stateless
//! request (list fan-outs, `server/discover`) carry its `_meta`; `initialize`, `ping` and
//! `logging/setLevel` are answered "method not found" (not part of that protocol), and
//! `subscriptions/listen` becomes one listen per server, merged into the host's stream (see
//! module `listen`); a session-era server's sampling, elicitation or roots request during a
//! call reaches the host as the call's input-required result (see module `mrtr`). A server
//! that answers `server/discover` with an unsupported-version error listing 2026-07-28 is asked
//! again at it; one that knows no `initialize` (the host's first request naming no lifecycle)
//! is discovered.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::process::Child;
use tokio::sync::oneshot;

use super::classify::{self, Flaw, Rejected, Side};
use super::envelope::{self, Envelope};
use super::interceptor::Interceptor;
use super::listen::{Delivery, Listens};
use super::methods::Method;
use super::mrtr::Rounds;
use super::stateless;
use super::stdio::{
    self, GRACE, Lines, LinesOut, ProxyError, ServerCommand, Spawned, normalize_name,
};
use super::take_pending;
use super::tasks;
use super::tool_search::{ToolSearch, ToolSearchConfig};
use crate::shown::Shown;

mod handshake;
mod rounds;
mod wire;
use wire::*;

/// The longest exposed tool or prompt name.
pub const MAX_NAME_LEN: usize = 64;
/// Separator between server and tool in exposed names.
pub const SEPARATOR: &str = "__";
/// The protocol version the gateway proposes to upstreams.
const PROPOSED_VERSION: &str = "2025-11-25";
/// How long the gateway waits for an upstream's answer to its own requests.
const OWN_TIMEOUT: Duration = Duration::from_secs(60);
/// The most pages followed in one list.
const MAX_PAGES: usize = 1000;

/// The exposed name of `name` on `server`.
pub fn exposed_name(server: &str, name: &str) -> String {
    let mut out = normalize_name(&format!("{server}{SEPARATOR}{name}"));
    out.truncate(MAX_NAME_LEN);
    out
}

#[derive(Debug, Clone)]
enum Status {
    Starting,
    Ready {
        capabilities: Capabilities,
        version: String,
    },
    Failed(String),
}

/// An upstream's capabilities, kept as JSON text: a parsed `Value` costs every idle session a
/// dozen small allocations per upstream (about 1.3 KB for a server with nested capabilities);
/// they are read only at a few points (`initialize`, list refreshes, `subscriptions/listen`).
#[derive(Debug, Clone)]
struct Capabilities(Arc<str>);

impl Capabilities {
    fn new(capabilities: &Value) -> Capabilities {
        Capabilities(capabilities.to_string().into())
    }

    /// The capabilities as a `Value` (the text was written from one: it parses).
    fn value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or_else(|_| json!({}))
    }
}

#[derive(Debug)]
struct Upstream {
    name: String,
    to_server: Mutex<Option<stdio::LineTx>>,
    status: Mutex<Status>,
}

impl Upstream {
    fn status(&self) -> Status {
        self.status
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn set_status(&self, status: Status) {
        *self.status.lock().unwrap_or_else(|e| e.into_inner()) = status;
    }

    fn send(&self, line: String) -> bool {
        match &*self.to_server.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(tx) => tx.send(line).is_ok(),
            None => false,
        }
    }

    fn is_ready(&self) -> bool {
        matches!(self.status(), Status::Ready { .. })
    }

    /// Whether it runs a session-era protocol (it was initialized, not discovered).
    fn session_era(&self) -> bool {
        matches!(self.status(), Status::Ready { version, .. } if stateless::is_session_version(&version))
    }

    /// Why calls to this server fail, when they do.
    fn unavailable(&self) -> Option<String> {
        match self.status() {
            Status::Ready { .. } => None,
            Status::Starting => Some(format!("server `{}` is still starting", self.name)),
            Status::Failed(why) => Some(format!("server `{}` is not available: {why}", self.name)),
        }
    }
}

/// Exposed name → (upstream index, the server's own name).
type Routes = HashMap<String, (usize, String)>;

#[derive(Debug)]
struct Gateway {
    interceptor: Arc<Interceptor>,
    upstreams: Vec<Arc<Upstream>>,
    to_host: stdio::LineTx,
    next_id: AtomicU64,
    /// The gateway's own requests awaiting an answer, by id text → (upstream, waiter).
    own: Mutex<HashMap<String, (usize, oneshot::Sender<String>)>>,
    /// Server → host requests, by the id the host sees → (upstream, original id text).
    server_requests: Mutex<HashMap<String, (usize, String)>>,
    /// Host requests forwarded to an upstream, by id text → (upstream, is a tool call).
    host_routes: Mutex<HashMap<String, (usize, bool)>>,
    tools: Mutex<Routes>,
    prompts: Mutex<Routes>,
    /// The host has gone: upstreams exiting now is expected.
    closing: std::sync::atomic::AtomicBool,
    resources: Mutex<HashMap<String, usize>>,
    /// `tool_search:`: what `tools/list` shows and the `search_tools` tool.
    search: ToolSearch,
    /// Host batches whose requests are not all answered yet.
    batches: Mutex<Vec<Batch>>,
    /// The host is a stateless (2026-07-28) client (its first message was a stateless request).
    stateless_host: std::sync::atomic::AtomicBool,
    /// The host's `subscriptions/listen` streams (see module `listen`).
    listens: Listens,
    /// Session-era servers' requests carried to a stateless host (see module `mrtr`).
    rounds: Rounds,
}

/// A host batch being answered.
#[derive(Debug)]
struct Batch {
    /// Ids (as text) of its requests still unanswered.
    waiting: std::collections::HashSet<String>,
    /// The answers so far.
    answers: Vec<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the gateway on the process's stdin/stdout.
pub async fn run(
    interceptor: Arc<Interceptor>,
    servers: &BTreeMap<String, ServerCommand>,
    tool_search: &ToolSearchConfig,
) -> Result<(), ProxyError> {
    let (host_in, host_out) = super::host_io::stdio();
    relay(interceptor, servers, tool_search, host_in, host_out).await
}

/// Runs the gateway between `host_in`/`host_out` and the configured servers (each its own
/// child: `share` is for `serve`, see [`relay_shared`]).
pub async fn relay<R, W>(
    interceptor: Arc<Interceptor>,
    servers: &BTreeMap<String, ServerCommand>,
    tool_search: &ToolSearchConfig,
    host_in: R,
    host_out: W,
) -> Result<(), ProxyError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    relay_io(
        interceptor,
        servers,
        tool_search,
        None,
        Lines::Stream(BufReader::new(host_in)),
        LinesOut::Stream(host_out),
    )
    .await
}

/// [`relay`] over line sources of any kind (`serve` hands its sessions' messages over in
/// process), with the stdio servers marked `share` connected to their child in `hubs`
/// (started when none runs) instead of starting one of their own.
pub(crate) async fn relay_io<R, W>(
    interceptor: Arc<Interceptor>,
    servers: &BTreeMap<String, ServerCommand>,
    tool_search: &ToolSearchConfig,
    hubs: Option<&Arc<super::shared::Hubs>>,
    host_in: Lines<R>,
    host_out: LinesOut<W>,
) -> Result<(), ProxyError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    if servers.is_empty() {
        return Err(ProxyError::Config("the `servers:` section is empty".into()));
    }
    let search = ToolSearch::new(tool_search).map_err(|e| ProxyError::Config(e.to_string()))?;
    let mut names: HashMap<String, &str> = HashMap::new();
    for (configured, server) in servers {
        if server.command.is_empty() == server.url.is_none() {
            return Err(ProxyError::Config(format!(
                "server `{configured}` needs exactly one of `command` and `url`"
            )));
        }
        let name = normalize_name(configured);
        if let Some(other) = names.insert(name.clone(), configured) {
            return Err(ProxyError::Config(format!(
                "servers `{other}` and `{configured}` both normalise to `{name}`"
            )));
        }
    }
    let (to_host, host_writer) = host_out.start();
    let upstreams: Vec<Arc<Upstream>> = servers
        .keys()
        .map(|configured| {
            Arc::new(Upstream {
                name: normalize_name(configured),
                to_server: Mutex::new(None),
                status: Mutex::new(Status::Starting),
            })
        })
        .collect();
    let gw = Arc::new(Gateway {
        interceptor,
        upstreams,
        to_host,
        next_id: AtomicU64::new(1),
        own: Mutex::new(HashMap::new()),
        server_requests: Mutex::new(HashMap::new()),
        host_routes: Mutex::new(HashMap::new()),
        tools: Mutex::new(HashMap::new()),
        prompts: Mutex::new(HashMap::new()),
        resources: Mutex::new(HashMap::new()),
        closing: std::sync::atomic::AtomicBool::new(false),
        search,
        batches: Mutex::new(Vec::new()),
        stateless_host: std::sync::atomic::AtomicBool::new(false),
        listens: Listens::default(),
        rounds: Rounds::default(),
    });

    let mut children: Vec<Child> = Vec::new();
    let mut http_tasks = Vec::new();
    let mut writers = Vec::new();
    for (idx, command) in servers.values().enumerate() {
        let upstream = gw.upstreams[idx].clone();
        if command.url.is_some() {
            match super::http_upstream::spawn(&upstream.name, command) {
                Ok(http) => {
                    *lock(&upstream.to_server) = Some(http.to_server);
                    tokio::spawn(
                        gw.clone()
                            .read_upstream(idx, Lines::channel(http.from_server)),
                    );
                    http_tasks.push(http.task);
                }
                Err(e) => {
                    eprintln!("mcp-veil: {e}");
                    upstream.set_status(Status::Failed(format!("it is misconfigured ({e})")));
                }
            }
            continue;
        }
        if command.share
            && let Some(hubs) = hubs
        {
            match hubs.connect(&upstream.name, command) {
                Ok(conn) => {
                    *lock(&upstream.to_server) = Some(conn.to_server);
                    tokio::spawn(
                        gw.clone()
                            .read_upstream(idx, Lines::channel(conn.from_server)),
                    );
                }
                Err(e) => {
                    eprintln!("mcp-veil: {e}");
                    upstream.set_status(Status::Failed(format!("it failed to start ({e})")));
                }
            }
            continue;
        }
        match stdio::spawn(&upstream.name, command) {
            Ok(Spawned {
                child,
                stdin,
                stdout,
            }) => {
                let (tx, rx) = stdio::line_channel();
                *lock(&upstream.to_server) = Some(tx);
                writers.push(tokio::spawn(stdio::write_lines(stdin, rx)));
                tokio::spawn(gw.clone().read_upstream(
                    idx,
                    Lines::Stream(BufReader::with_capacity(stdio::PIPE_READ, stdout)),
                ));
                children.push(child);
            }
            Err(e) => {
                eprintln!("mcp-veil: {e}");
                upstream.set_status(Status::Failed(format!("it failed to start ({e})")));
            }
        }
    }

    // The host's first message is read before the upstreams are initialized: when it is
    // `initialize`, its protocol version (up to the one the gateway speaks) is proposed
    // upstream, so servers run the version the host asked for.
    let mut reader = host_in;
    let mut buf = Vec::new();
    let first = match reader.next(&mut buf).await {
        Ok(Some(())) => Ok(Some(buf.clone())),
        Ok(None) => Ok(None),
        Err(e) => Err(e),
    };
    // Boxed: a task keeps its largest state for its whole life, and what starting the
    // upstreams needs (the first message's version, roots, `_meta`, the lists) is not kept
    // by an idle session.
    let started = Box::pin(async {
        let first_text = first
            .as_ref()
            .ok()
            .and_then(|f| f.as_deref())
            .and_then(|b| std::str::from_utf8(b).ok());
        let proposed = first_text
            .and_then(requested_version)
            .unwrap_or_else(|| PROPOSED_VERSION.to_string());
        let roots = first_text.and_then(host_roots);
        // A stateless (2026-07-28) host: its first request's `_meta` discovers every upstream
        // (`server/discover`) instead of an `initialize`, and goes on the first lists.
        let stateless_meta = first_text.and_then(stateless_meta);
        match &stateless_meta {
            Some(meta) => {
                gw.stateless_host.store(true, Ordering::Relaxed);
                // Boxed here and below: every upstream's start at once is a large future.
                Box::pin(futures::future::join_all(
                    (0..gw.upstreams.len()).map(|idx| gw.discover_upstream(idx, meta, true)),
                ))
                .await;
            }
            None => {
                Box::pin(futures::future::join_all((0..gw.upstreams.len()).map(
                    |idx| gw.initialize_upstream(idx, &proposed, roots.as_ref()),
                )))
                .await;
            }
        }
        let (tools, prompts) = futures::join!(
            gw.refresh(ListKind::Tools, true, stateless_meta.as_ref()),
            gw.refresh(ListKind::Prompts, true, stateless_meta.as_ref())
        );
        tools.and(prompts)
    })
    .await;
    if let Err(e) = started {
        return Err(ProxyError::Config(e));
    }

    // Host → upstreams until the host closes stdin.
    let mut first = Some(first);
    let result = loop {
        match first.take() {
            Some(Ok(Some(f))) => buf = f,
            Some(Ok(None)) => break Ok(()),
            Some(Err(e)) => break Err(ProxyError::Host(e)),
            None => {
                reader.release(&mut buf);
                match reader.next(&mut buf).await {
                    Ok(Some(())) => {}
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(ProxyError::Host(e)),
                }
            }
        }
        let Ok(line) = std::str::from_utf8(&buf) else {
            gw.refuse_host_bytes(&buf);
            continue;
        };
        if envelope::is_batch(line) {
            match envelope::split_batch(line) {
                Ok(items) if !items.is_empty() => {
                    gw.expect_batch(&items);
                    for item in items {
                        Box::pin(gw.clone().host_message(item.get().to_string())).await;
                    }
                }
                Ok(_) => gw.reply(envelope::error_response(None, -32600, "empty batch")),
                Err(_) => gw.reply(envelope::error_response(None, -32700, "parse error")),
            }
        } else {
            Box::pin(gw.clone().host_message(line.to_string())).await;
        }
    };

    // Boxed, like the start: only the loop's state stays with an idle session's task.
    Box::pin(async move {
        // Shut down: close every upstream's stdin, give them time, then kill.
        gw.closing.store(true, Ordering::Relaxed);
        for upstream in &gw.upstreams {
            lock(&upstream.to_server).take();
        }
        for writer in writers {
            let _ = writer.await;
        }
        for mut child in children {
            if tokio::time::timeout(GRACE, child.wait()).await.is_err() {
                let _ = child.kill().await;
            }
        }
        for task in http_tasks {
            if tokio::time::timeout(GRACE, &mut *Box::pin(task))
                .await
                .is_err()
            {
                tracing::warn!("an HTTP upstream did not close in time");
            }
        }
        drop(gw);
        if let Some(writer) = host_writer {
            let _ = writer.await;
        }
    })
    .await;
    result
}

/// What became of a message sent toward an upstream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    /// It went to the server.
    Forwarded,
    /// The interceptor answered the host itself (a denied call).
    Answered,
    /// The server is not running.
    NotRunning,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListKind {
    Tools,
    Prompts,
    Resources,
    Templates,
    Tasks,
}

impl ListKind {
    fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "tools/list",
            ListKind::Prompts => "prompts/list",
            ListKind::Resources => "resources/list",
            ListKind::Templates => "resources/templates/list",
            ListKind::Tasks => "tasks/list",
        }
    }

    fn key(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources => "resources",
            ListKind::Templates => "resourceTemplates",
            ListKind::Tasks => "tasks",
        }
    }

    fn capability(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Prompts => "prompts",
            ListKind::Resources | ListKind::Templates => "resources",
            ListKind::Tasks => "tasks",
        }
    }
}

impl Gateway {
    fn reply(&self, line: String) {
        // An answer to a request of a host batch waits for the rest of its batch.
        let id = Envelope::parse(&line)
            .ok()
            .filter(|e| e.method.is_none())
            .and_then(|e| e.id_key().map(str::to_string));
        if let Some(id) = id {
            let mut batches = lock(&self.batches);
            if let Some(at) = batches.iter().position(|b| b.waiting.contains(&id)) {
                let batch = &mut batches[at];
                batch.waiting.remove(&id);
                batch.answers.push(line);
                if batch.waiting.is_empty() {
                    let done = batches.swap_remove(at);
                    drop(batches);
                    let _ = self.to_host.send(format!("[{}]", done.answers.join(",")));
                }
                return;
            }
        }
        let _ = self.to_host.send(line);
    }

    /// Answers to the requests of a host batch are sent together, as one batch.
    fn expect_batch(&self, items: &[&RawValue]) {
        let waiting: std::collections::HashSet<String> = items
            .iter()
            .filter_map(|item| {
                let env = Envelope::parse(item.get()).ok()?;
                env.method.as_ref()?;
                env.id_key().map(str::to_string)
            })
            .collect();
        if !waiting.is_empty() {
            lock(&self.batches).push(Batch {
                waiting,
                answers: Vec::new(),
            });
        }
    }

    /// Sends `line` from the host to upstream `idx` through the interceptor.
    async fn send_to_upstream(&self, idx: usize, line: &str) -> Sent {
        let upstream = &self.upstreams[idx];
        // A stateless host's request to a session-era server: without the lifecycle `_meta`.
        let plain = if upstream.session_era() {
            stateless::for_session_server(line)
        } else {
            None
        };
        let line = plain.as_deref().unwrap_or(line);
        let outcome = self.interceptor.from_host(&upstream.name, line).await;
        let answered = outcome.reply.is_some();
        if let Some(reply) = outcome.reply {
            self.reply(reply);
        }
        match outcome.forward {
            Some(f) => {
                if upstream.send(f.into_owned()) {
                    Sent::Forwarded
                } else {
                    Sent::NotRunning
                }
            }
            None if answered => Sent::Answered,
            None => Sent::Forwarded,
        }
    }

    /// The gateway's own request to upstream `idx`: the result, or an error message.
    async fn request(&self, idx: usize, method: &str, params: Value) -> Result<Value, String> {
        let answer = self.request_answer(idx, method, params).await?;
        result_of(&self.upstreams[idx].name, method, answer)
    }

    /// The gateway's own request to upstream `idx`: its whole answer (a result or a JSON-RPC
    /// error), or why there is none.
    async fn request_answer(
        &self,
        idx: usize,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed);
        let id = format!("\"mcp-veil-{n}\"");
        let (tx, rx) = oneshot::channel();
        lock(&self.own).insert(id.clone(), (idx, tx));
        let msg = json!({"jsonrpc": "2.0", "id": format!("mcp-veil-{n}"), "method": method, "params": params});
        let name = &self.upstreams[idx].name;
        if self.send_to_upstream(idx, &msg.to_string()).await != Sent::Forwarded {
            take_pending(&mut *lock(&self.own), &id);
            return Err(format!("server `{name}` is not running"));
        }
        let answer = match tokio::time::timeout(OWN_TIMEOUT, rx).await {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => return Err(format!("server `{name}` exited")),
            Err(_) => {
                take_pending(&mut *lock(&self.own), &id);
                return Err(format!("server `{name}` did not answer {method} in time"));
            }
        };
        serde_json::from_str(&answer).map_err(|e| e.to_string())
    }

    fn has_capability(&self, idx: usize, capability: &str) -> bool {
        match self.upstreams[idx].status() {
            Status::Ready { capabilities, .. } => capabilities.value().get(capability).is_some(),
            _ => false,
        }
    }

    /// Every live upstream's complete list of `kind`, with the upstream's index, and the
    /// list-level fields of every page (`_meta`, `ttlMs`, `cacheScope` ...) merged into
    /// `fields` (see [`merge_list_fields`]).
    async fn list_all(
        &self,
        kind: ListKind,
        fields: &mut serde_json::Map<String, Value>,
        meta: Option<&Value>,
    ) -> Vec<(usize, Vec<Value>)> {
        let lists = (0..self.upstreams.len())
            .filter(|&idx| self.has_capability(idx, kind.capability()))
            .map(|idx| async move {
                let mut items = Vec::new();
                let mut fields = serde_json::Map::new();
                let mut cursor: Option<String> = None;
                for _ in 0..MAX_PAGES {
                    let mut params = match &cursor {
                        Some(c) => json!({"cursor": c}),
                        None => json!({}),
                    };
                    if let Some(meta) = meta {
                        params["_meta"] = meta.clone();
                    }
                    match self.request(idx, kind.method(), params).await {
                        Ok(mut result) => {
                            if let Some(Value::Array(page)) = result.get_mut(kind.key()) {
                                items.append(page);
                            }
                            cursor = result
                                .get("nextCursor")
                                .and_then(Value::as_str)
                                .map(str::to_string);
                            if let Value::Object(page) = result {
                                let rest = page
                                    .into_iter()
                                    .filter(|(k, _)| k != kind.key() && k != "nextCursor");
                                merge_list_fields(&mut fields, rest);
                            }
                            if cursor.is_none() {
                                break;
                            }
                        }
                        Err(e) => {
                            tracing::error!("{e}");
                            break;
                        }
                    }
                }
                (idx, items, fields)
            });
        let lists = futures::future::join_all(lists).await;
        lists
            .into_iter()
            .map(|(idx, items, page_fields)| {
                merge_list_fields(fields, page_fields);
                (idx, items)
            })
            .collect()
    }

    /// Re-lists tools or prompts, rebuilds the routes and returns the exposed list. At start-up
    /// (`strict`) a name collision is an error; later, the second name is dropped.
    async fn refresh(
        &self,
        kind: ListKind,
        strict: bool,
        meta: Option<&Value>,
    ) -> Result<(Vec<Value>, serde_json::Map<String, Value>), String> {
        let mut fields = serde_json::Map::new();
        let lists = self.list_all(kind, &mut fields, meta).await;
        let mut routes: Routes = HashMap::new();
        let mut exposed = Vec::new();
        for (idx, items) in lists {
            let server = &self.upstreams[idx].name;
            for mut item in items {
                let Some(name) = item.get("name").and_then(Value::as_str).map(str::to_string)
                else {
                    continue;
                };
                let public = exposed_name(server, &name);
                if let Some((other_idx, other)) = routes.get(&public) {
                    let message = format!(
                        "{} name `{}` is exposed by both `{}/{}` and `{server}/{}`",
                        kind.key().trim_end_matches('s'),
                        Shown(&public),
                        self.upstreams[*other_idx].name,
                        Shown(other),
                        Shown(&name),
                    );
                    if strict {
                        return Err(message);
                    }
                    tracing::error!("{message}; the second is not exposed");
                    continue;
                }
                item["name"] = Value::String(public.clone());
                routes.insert(public, (idx, name));
                exposed.push(item);
            }
        }
        let table = if kind == ListKind::Tools {
            self.search.update(&exposed, |public| {
                let (idx, name) = routes.get(public)?;
                Some((self.upstreams[*idx].name.as_str(), name.as_str()))
            });
            &self.tools
        } else {
            &self.prompts
        };
        *lock(table) = routes;
        Ok((exposed, fields))
    }

    /// Resources and templates from every server; read/subscribe route by the URIs seen here.
    async fn list_resources(
        &self,
        kind: ListKind,
        meta: Option<&Value>,
    ) -> (Vec<Value>, serde_json::Map<String, Value>) {
        let mut fields = serde_json::Map::new();
        let lists = self.list_all(kind, &mut fields, meta).await;
        let mut out = Vec::new();
        let mut routes = lock(&self.resources);
        for (idx, items) in lists {
            for item in items {
                if let Some(uri) = item.get("uri").and_then(Value::as_str) {
                    routes.insert(uri.to_string(), idx);
                }
                out.push(item);
            }
        }
        (out, fields)
    }

    /// A tool or prompt's route, or why there is none.
    fn route(&self, table: &Mutex<Routes>, name: &str) -> Result<(usize, String), String> {
        if let Some((idx, original)) = lock(table).get(name).cloned() {
            return match self.upstreams[idx].unavailable() {
                None => Ok((idx, original)),
                Some(why) => Err(why),
            };
        }
        for upstream in &self.upstreams {
            if name.starts_with(&format!("{}{SEPARATOR}", upstream.name))
                && let Some(why) = upstream.unavailable()
            {
                return Err(why);
            }
        }
        Err(format!("unknown name `{}`", Shown(name)))
    }

    /// `server__tool` that no list showed (the tool policy denies `server/tool`, or the server
    /// does not list the tool): the upstream and the tool's name there. The call goes to that
    /// server, as it would without the gateway: the interceptor applies the tool policy to it
    /// like to any call, and the server answers for tools it does not list.
    fn hidden_tool(&self, name: &str) -> Option<(usize, String)> {
        self.upstreams
            .iter()
            .enumerate()
            .filter(|(_, upstream)| upstream.is_ready())
            .find_map(|(idx, upstream)| {
                let tool = name.strip_prefix(&format!("{}{SEPARATOR}", upstream.name))?;
                (!tool.is_empty()).then(|| (idx, tool.to_string()))
            })
    }

    fn resource_route(&self, uri: &str) -> Result<usize, String> {
        if let Some(&idx) = lock(&self.resources).get(uri) {
            return self.upstreams[idx].unavailable().map_or(Ok(idx), Err);
        }
        let with_resources: Vec<usize> = (0..self.upstreams.len())
            .filter(|&idx| self.has_capability(idx, "resources"))
            .collect();
        match with_resources.as_slice() {
            [idx] => Ok(*idx),
            _ => Err("unknown resource: list resources first".to_string()),
        }
    }

    /// A host line that is not UTF-8: refused (with its id when the lossy text has one).
    fn refuse_host_bytes(&self, bytes: &[u8]) {
        let lossy = String::from_utf8_lossy(bytes);
        let id = match classify::classify(&lossy, Side::Host) {
            Ok(m) => m.env.id_key(),
            Err(r) => r.id,
        };
        self.refuse_host(&Rejected {
            flaw: Flaw::NotUtf8,
            id,
            answers: false,
            asks: true,
        });
    }

    /// A host message that could not be classified: the host gets an error, and a server
    /// waiting on the refused answer gets one too.
    fn refuse_host(&self, rejected: &Rejected<'_>) {
        self.interceptor.count_refused();
        tracing::warn!(
            flaw = %rejected.flaw,
            "a host message was not forwarded: it is not a valid JSON-RPC message"
        );
        if rejected.answers
            && let Some(id) = rejected.id
            && let Some((idx, original)) = take_pending(&mut *lock(&self.server_requests), id)
        {
            self.upstreams[idx].send(envelope::error_response(
                Some(&original),
                -32600,
                "mcp-veil: the client's reply was withheld: it is not a valid JSON-RPC message",
            ));
            return;
        }
        self.reply(classify::host_refusal(rejected));
    }

    /// One message (not a batch) from the host.
    async fn host_message(self: Arc<Self>, text: String) {
        let env = match classify::classify(&text, Side::Host) {
            Ok(m) => m.env,
            Err(rejected) => return self.refuse_host(&rejected),
        };
        let id = env.id_key().map(str::to_string);
        match (env.method.as_deref(), id) {
            (Some(method), Some(id)) => {
                let method = method.to_string();
                let params = env.params.map(|p| p.get().to_string());
                drop(env);
                self.host_request(method, id, params, text).await;
            }
            (Some(method), None) => {
                let cancelled = match (method, env.params) {
                    ("notifications/cancelled", Some(p)) => serde_json::from_str::<Value>(p.get())
                        .ok()
                        .and_then(|v| v.get("requestId").map(Value::to_string)),
                    _ => None,
                };
                if method == "notifications/initialized" {
                    // The gateway initialized every upstream itself.
                    return;
                }
                if let Some(request_id) = cancelled {
                    if let Some(ended) = self.listens.cancel(&request_id) {
                        for (idx, own) in ended.listens {
                            let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                                "params": {"requestId": own}});
                            self.send_to_upstream(idx, &cancel.to_string()).await;
                        }
                        for (idx, uri) in ended.unsubscribe {
                            let gw = self.clone();
                            tokio::spawn(async move {
                                let params = json!({"uri": uri});
                                let _ = gw.request(idx, "resources/unsubscribe", params).await;
                            });
                        }
                        return;
                    }
                    // A retry of a call carried through input-required rounds: the server
                    // knows the call by its first id.
                    let call = self.rounds.call_of(&request_id);
                    let upstream_id = call.as_deref().unwrap_or(&request_id);
                    let route = take_pending(&mut *lock(&self.host_routes), upstream_id);
                    if let Some((idx, _)) = route {
                        let cancel = match &call {
                            Some(call) => json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                "params": {"requestId": serde_json::from_str::<Value>(call).unwrap_or(Value::Null)}})
                            .to_string(),
                            None => text.clone(),
                        };
                        self.send_to_upstream(idx, &cancel).await;
                    }
                    return;
                }
                for idx in 0..self.upstreams.len() {
                    if self.upstreams[idx].is_ready() {
                        self.send_to_upstream(idx, &text).await;
                    }
                }
            }
            (None, Some(id)) => {
                // The host answers the layer's own confirmation request: the interceptor
                // resumes (or denies) the call it holds for that server.
                if let Some(server) = self.interceptor.confirmation_for(&id) {
                    if let Some(idx) = self.upstreams.iter().position(|u| u.name == server) {
                        self.send_to_upstream(idx, &text).await;
                    }
                    return;
                }
                // The host answers a server's request: give it back its own id.
                let Some((idx, original)) = take_pending(&mut *lock(&self.server_requests), &id)
                else {
                    tracing::warn!("a response to an unknown request was dropped");
                    return;
                };
                let restored = match env.id {
                    Some(raw) => envelope::splice(&text, raw.get(), &original),
                    None => return,
                };
                self.send_to_upstream(idx, &restored).await;
            }
            (None, None) => {}
        }
    }

    async fn host_request(
        self: Arc<Self>,
        method: String,
        id: String,
        params: Option<String>,
        text: String,
    ) {
        let params_value: Value = params
            .as_deref()
            .and_then(|p| serde_json::from_str(p).ok())
            .unwrap_or(Value::Null);
        // A stateless (2026-07-28) request: its `_meta` goes on the gateway's own requests for
        // it; the session-era methods are not part of that protocol.
        let meta = stateless::params_meta(&params_value).cloned();
        // A stateless host's request: checked on its own (so each item of a batch gets its
        // own error), as an HTTP front end checks it.
        if self.stateless_host.load(Ordering::Relaxed)
            && let Err((code, message, data)) = stateless::check_meta(&params_value)
        {
            let mut error =
                json!({"code": code, "message": format!("mcp-veil gateway: {message}")});
            if let Some(data) = data {
                error["data"] = data;
            }
            let id: Value = serde_json::from_str(&id).unwrap_or(Value::Null);
            return self.reply(json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string());
        }
        // `tasks/result` and `tasks/list` are the session-era tasks surface: the 2026-07-28 tasks
        // extension (SEP-2663) inlines the result in `tasks/get` and has no list.
        if meta.is_some()
            && matches!(
                method.as_str(),
                "initialize" | "ping" | "logging/setLevel" | "tasks/result" | "tasks/list"
            )
        {
            return self.error(
                &id,
                -32601,
                &format!(
                    "method `{}` is not part of the stateless protocol",
                    Method(&method)
                ),
            );
        }
        match method.as_str() {
            "initialize" => {
                if let Some(p) = &params {
                    self.interceptor.host_initialize(p);
                }
                let requested = params_value
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or(PROPOSED_VERSION);
                let (capabilities, version) = self.merged(requested);
                let result = json!({
                    "protocolVersion": version,
                    "capabilities": capabilities,
                    "serverInfo": {"name": "mcp-veil-gateway", "version": env!("CARGO_PKG_VERSION")},
                });
                self.reply(envelope::result_response(&id, &result.to_string()));
            }
            "ping" => self.reply(envelope::result_response(&id, "{}")),
            "server/discover" => {
                tokio::spawn(async move {
                    let answers = futures::future::join_all(
                        (0..self.upstreams.len())
                            .filter(|&i| self.upstreams[i].is_ready())
                            .map(|i| {
                                self.request_answer(i, "server/discover", params_value.clone())
                            }),
                    )
                    .await;
                    let mut first_error = None;
                    let mut upstream_error = None;
                    let mut merged: Option<Value> = None;
                    for answer in answers {
                        match answer {
                            Ok(mut a) if a.get("error").is_some() => {
                                upstream_error.get_or_insert(a["error"].take());
                            }
                            Ok(mut a) => {
                                let result =
                                    a.get_mut("result").map(Value::take).unwrap_or(json!({}));
                                match &mut merged {
                                    None => merged = Some(result),
                                    Some(m) => merge_into(m, &result),
                                }
                            }
                            Err(e) => {
                                first_error.get_or_insert(e);
                            }
                        }
                    }
                    let info =
                        json!({"name": "mcp-veil-gateway", "version": env!("CARGO_PKG_VERSION")});
                    match (merged, upstream_error) {
                        (Some(Value::Object(mut result)), _) => {
                            if meta.is_some() {
                                let meta = result.entry("_meta").or_insert_with(|| json!({}));
                                if !meta.is_object() {
                                    *meta = json!({});
                                }
                                meta[stateless::META_SERVER_INFO] = info;
                                let mut result = Value::Object(result);
                                stateless::stamp(&mut result, true);
                                self.reply(envelope::result_response(&id, &result.to_string()));
                            } else {
                                result.insert("serverInfo".into(), info);
                                self.reply(envelope::result_response(
                                    &id,
                                    &Value::Object(result).to_string(),
                                ));
                            }
                        }
                        // A result that is not an object: no server discovered.
                        (Some(_), _) => self.error(&id, -32603, "a server's discovery result is not an object"),
                        // Every server refused it (an unsupported version ...): the
                        // server's own error, as a single server would answer.
                        (None, Some(error)) => self.reply(
                            json!({"jsonrpc": "2.0", "id": serde_json::from_str::<Value>(&id).unwrap_or(Value::Null), "error": error}).to_string(),
                        ),
                        (None, None) => self.reply(envelope::error_response(
                            Some(&id),
                            -32601,
                            &first_error.unwrap_or_else(|| "no server is running".into()),
                        )),
                    }
                });
            }
            "tools/list" | "prompts/list" => {
                tokio::spawn(async move {
                    let kind = if method == "tools/list" {
                        ListKind::Tools
                    } else {
                        ListKind::Prompts
                    };
                    let (mut items, fields) = self
                        .refresh(kind, false, meta.as_ref())
                        .await
                        .unwrap_or_default();
                    if kind == ListKind::Tools {
                        items = self.search.list(items);
                    }
                    let mut result = list_result(kind, items, fields);
                    if meta.is_some() {
                        stateless::stamp(&mut result, true);
                    }
                    self.reply(envelope::result_response(&id, &result.to_string()));
                });
            }
            "resources/list" | "resources/templates/list" => {
                tokio::spawn(async move {
                    let kind = if method == "resources/list" {
                        ListKind::Resources
                    } else {
                        ListKind::Templates
                    };
                    let (items, fields) = self.list_resources(kind, meta.as_ref()).await;
                    let mut result = list_result(kind, items, fields);
                    if meta.is_some() {
                        stateless::stamp(&mut result, true);
                    }
                    self.reply(envelope::result_response(&id, &result.to_string()));
                });
            }
            "logging/setLevel" => {
                tokio::spawn(async move {
                    let all = (0..self.upstreams.len())
                        .filter(|&i| self.has_capability(i, "logging"))
                        .map(|i| self.request(i, "logging/setLevel", params_value.clone()));
                    futures::future::join_all(all).await;
                    self.reply(envelope::result_response(&id, "{}"));
                });
            }
            "tools/call" => {
                // No name to route by: refused, as the interceptor refuses it.
                let Some(name) = params_value.get("name").and_then(Value::as_str) else {
                    return self.invalid(&id);
                };
                if self.search.handles(name) {
                    return self.search_tools(&id, &params_value);
                }
                // A retry answering the gateway's input-required result (see module `mrtr`).
                if let Some(state) = params_value.get("requestState").and_then(Value::as_str)
                    && Rounds::is_ours(state)
                {
                    return self.resume_round(id, state, &params_value).await;
                }
                match self.route(&self.tools, name) {
                    Ok((idx, original)) => {
                        let Some(msg) = with_param(&text, "name", &original) else {
                            return self.invalid(&id);
                        };
                        self.forward_request(idx, id, &msg, true).await;
                    }
                    Err(why) => match self.hidden_tool(name) {
                        // Hidden by `tools:` (the interceptor refuses and audits the call, as
                        // the single proxy does) or not listed by its server (which answers).
                        Some((idx, tool)) => match with_param(&text, "name", &tool) {
                            Some(msg) => self.forward_request(idx, id, &msg, true).await,
                            None => self.invalid(&id),
                        },
                        None => self.reply(envelope::result_response(
                            &id,
                            &envelope::tool_error_result(&format!("mcp-veil gateway: {why}")),
                        )),
                    },
                }
            }
            "prompts/get" => {
                let Some(name) = params_value.get("name").and_then(Value::as_str) else {
                    return self.invalid(&id);
                };
                match self.route(&self.prompts, name) {
                    Ok((idx, original)) => match with_param(&text, "name", &original) {
                        Some(msg) => self.forward_request(idx, id, &msg, false).await,
                        None => self.invalid(&id),
                    },
                    Err(why) => self.error(&id, -32602, &why),
                }
            }
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                let uri = params_value
                    .get("uri")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                match self.resource_route(uri) {
                    Ok(idx) => self.forward_request(idx, id, &text, false).await,
                    Err(why) => self.error(&id, -32602, &why),
                }
            }
            "completion/complete" => {
                let reference = params_value.get("ref").cloned().unwrap_or(Value::Null);
                let routed = match reference.get("type").and_then(Value::as_str) {
                    Some("ref/prompt") => {
                        let name = reference.get("name").and_then(Value::as_str).unwrap_or("");
                        self.route(&self.prompts, name).and_then(|(idx, original)| {
                            let mut new_ref = reference.clone();
                            new_ref["name"] = Value::String(original);
                            with_param(&text, "ref", &new_ref)
                                .map(|msg| (idx, msg))
                                .ok_or_else(|| "invalid params".to_string())
                        })
                    }
                    Some("ref/resource") => {
                        let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
                        self.resource_route(uri).map(|idx| (idx, text.clone()))
                    }
                    _ => Err("unsupported completion reference".to_string()),
                };
                match routed {
                    Ok((idx, msg)) => self.forward_request(idx, id, &msg, false).await,
                    Err(why) => self.error(&id, -32602, &why),
                }
            }
            // A task's own server, by the id's prefix (see module `tasks`).
            "tasks/get" | "tasks/result" | "tasks/cancel" | "tasks/update" => {
                let exposed = params_value
                    .get("taskId")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let names: Vec<&str> = self.upstreams.iter().map(|u| u.name.as_str()).collect();
                let Some((idx, own)) = tasks::route(exposed, &names) else {
                    // A stateless client that did not declare the tasks extension is told so
                    // first, as a server answers it (SEP-2663), whatever the id.
                    if let Some(meta) = &meta
                        && !tasks::declared(meta)
                    {
                        let id: Value = serde_json::from_str(&id).unwrap_or(Value::Null);
                        return self.reply(tasks::missing_capability(&id).to_string());
                    }
                    return self.error(&id, -32602, "unknown task id");
                };
                if let Some(why) = self.upstreams[idx].unavailable() {
                    return self.error(&id, -32603, &why);
                }
                match with_param(&text, "taskId", own) {
                    Some(msg) => self.forward_request(idx, id, &msg, false).await,
                    None => self.invalid(&id),
                }
            }
            "tasks/list" => {
                tokio::spawn(async move {
                    let mut fields = serde_json::Map::new();
                    let lists = self
                        .list_all(ListKind::Tasks, &mut fields, meta.as_ref())
                        .await;
                    let items = lists.into_iter().flat_map(|(_, items)| items).collect();
                    let mut result = list_result(ListKind::Tasks, items, fields);
                    if meta.is_some() {
                        stateless::stamp(&mut result, false);
                    }
                    self.reply(envelope::result_response(&id, &result.to_string()));
                });
            }
            // A stateless client's notification stream: one listen per server, merged (see
            // module `listen`).
            "subscriptions/listen" if meta.is_some() => {
                tokio::spawn(async move { self.listen(id, &params_value, &text).await });
            }
            other => self.error(
                &id,
                -32601,
                &format!(
                    "method `{}` is not supported by the mcp-veil gateway",
                    Method(other)
                ),
            ),
        }
    }

    fn error(&self, id: &str, code: i64, message: &str) {
        self.reply(envelope::error_response(
            Some(id),
            code,
            &format!("mcp-veil gateway: {message}"),
        ));
    }

    /// A `search_tools` call: answered here, and `list_changed` when it found new tools.
    fn search_tools(&self, id: &str, params: &Value) {
        let answer = self
            .search
            .call(params.get("arguments").unwrap_or(&Value::Null));
        self.reply(envelope::result_response(id, &answer.result));
        if answer.list_changed {
            self.reply(r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.into());
        }
    }

    fn invalid(&self, id: &str) {
        self.error(id, -32602, "invalid params");
    }

    async fn forward_request(&self, idx: usize, id: String, msg: &str, tool: bool) {
        lock(&self.host_routes).insert(id.clone(), (idx, tool));
        let sent = self.send_to_upstream(idx, msg).await;
        if sent != Sent::Forwarded {
            take_pending(&mut *lock(&self.host_routes), &id);
        }
        if sent == Sent::NotRunning {
            let why = self.upstreams[idx]
                .unavailable()
                .unwrap_or_else(|| format!("server `{}` is not running", self.upstreams[idx].name));
            self.fail_host_request(&id, tool, &why);
        }
    }

    fn fail_host_request(&self, id: &str, tool: bool, why: &str) {
        let why = format!("mcp-veil gateway: {why}");
        if tool {
            self.reply(envelope::result_response(
                id,
                &envelope::tool_error_result(&why),
            ));
        } else {
            self.reply(envelope::error_response(Some(id), -32603, &why));
        }
    }

    /// Merged capabilities of ready upstreams and the version to announce.
    fn merged(&self, requested: &str) -> (Value, String) {
        let mut capabilities = json!({});
        let mut version = requested.to_string();
        for upstream in &self.upstreams {
            if let Status::Ready {
                capabilities: c,
                version: v,
            } = upstream.status()
            {
                merge_into(&mut capabilities, &c.value());
                if v < version {
                    version = v;
                }
            }
        }
        if let Some(map) = capabilities.as_object_mut()
            && self.search.may_change_list()
            && (self.search.is_on() || map.contains_key("tools"))
        {
            map.insert("tools".into(), json!({"listChanged": true}));
        }
        (capabilities, version)
    }

    /// Reads upstream `idx` until it exits.
    async fn read_upstream<R: AsyncRead + Unpin>(self: Arc<Self>, idx: usize, mut lines: Lines<R>) {
        let name = self.upstreams[idx].name.clone();
        let mut line = Vec::new();
        loop {
            lines.release(&mut line);
            let Ok(Some(())) = lines.next(&mut line).await else {
                break;
            };
            // Boxed: the reading task keeps only its loop between messages.
            let outcome = Box::pin(self.interceptor.from_server_bytes(&name, &line)).await;
            if let Some(reply) = outcome.reply {
                self.upstreams[idx].send(reply);
            }
            let Some(forward) = outcome.forward else {
                continue;
            };
            if envelope::is_batch(&forward) {
                if let Ok(items) = envelope::split_batch(&forward) {
                    for item in items {
                        self.upstream_message(idx, item.get());
                    }
                }
            } else {
                self.upstream_message(idx, &forward);
            }
        }
        // The server is gone.
        let upstream = &self.upstreams[idx];
        lock(&upstream.to_server).take();
        upstream.set_status(Status::Failed("it exited".into()));
        if !self.closing.load(Ordering::Relaxed) {
            eprintln!("mcp-veil: server `{name}` exited; its tools now answer with errors");
        }
        // Own requests still waiting on it fail now (their senders drop).
        lock(&self.own).retain(|_, (i, _)| *i != idx);
        let orphans: Vec<(String, bool)> = {
            let mut routes = lock(&self.host_routes);
            let ids: Vec<(String, bool)> = routes
                .iter()
                .filter(|(_, (i, _))| *i == idx)
                .map(|(id, (_, tool))| (id.clone(), *tool))
                .collect();
            for (id, _) in &ids {
                routes.remove(id);
            }
            ids
        };
        for (id, tool) in orphans {
            let host_id = self.rounds.finish(&id).unwrap_or(id);
            self.fail_host_request(&host_id, tool, &format!("server `{name}` exited"));
        }
    }

    /// One message (not a batch) from upstream `idx`, already through the interceptor.
    fn upstream_message(&self, idx: usize, text: &str) {
        // Its task ids as the host sees them (`{server}__{id}`).
        let exposed = tasks::expose(text, &self.upstreams[idx].name);
        let text = exposed.as_deref().unwrap_or(text);
        let Ok(env) = Envelope::parse(text) else {
            return;
        };
        match (env.method.is_some(), env.id) {
            (false, Some(id)) => {
                let key = id.get().trim();
                if let Some((_, tx)) = take_pending(&mut *lock(&self.own), key) {
                    let _ = tx.send(text.to_string());
                    return;
                }
                if let Delivery::Host(lines) = self.listens.upstream_answer(key, text) {
                    return lines.into_iter().for_each(|l| self.reply(l));
                }
                take_pending(&mut *lock(&self.host_routes), key);
                // A call carried through input-required rounds: its answer goes to the
                // latest retry, or waits for it (see module `mrtr`).
                let redirected;
                let text = match self.rounds.finish(key) {
                    Some(to) => {
                        redirected = answer_with_id(text, &to);
                        redirected.as_str()
                    }
                    None if self.rounds.park(key, text) => return,
                    None => text,
                };
                // A session-era server's answer to a stateless host: stamped as a stateless
                // result must be (`resource/read` is cacheable).
                if self.stateless_host.load(Ordering::Relaxed)
                    && self.upstreams[idx].session_era()
                    && let Some(stamped) = stateless::stamp_answer(text)
                {
                    return self.reply(stamped);
                }
                self.reply(text.to_string());
            }
            (true, Some(id)) => {
                let n = self.next_id.fetch_add(1, Ordering::Relaxed);
                let public = format!("\"mcp-veil-s{n}\"");
                lock(&self.server_requests)
                    .insert(public.clone(), (idx, id.get().trim().to_string()));
                if self.stateless_host.load(Ordering::Relaxed) && self.upstreams[idx].session_era()
                {
                    let method = env.method.as_deref().unwrap_or_default().to_string();
                    let params = env.params.and_then(|p| serde_json::from_str(p.get()).ok());
                    return self.carry_as_input(idx, &method, params, &public);
                }
                self.reply(envelope::splice(text, id.get(), &public));
            }
            (_, None) => match self.listens.upstream_notification(idx, text) {
                Delivery::Host(lines) => lines.into_iter().for_each(|l| self.reply(l)),
                Delivery::NotOurs => self.reply(text.to_string()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposed_names_are_normalised_and_bounded() {
        assert_eq!(exposed_name("fs", "read_file"), "fs__read_file");
        assert_eq!(exposed_name("my.srv", "get thing"), "my_srv__get_thing");
        let long = exposed_name("server", &"x".repeat(100));
        assert_eq!(long.len(), MAX_NAME_LEN);
        assert!(long.starts_with("server__x"));
    }
}
