//! One HTTP session: a stdio-style gateway ([`crate::mcp::gateway::relay`]) over in-memory
//! pipes, with its own interceptor on the vault session derived from the session key.
//!
//! Each session has its own upstream connections (stdio children or HTTP sessions), started on
//! first use, so two clients never share a server process's state. A replica that meets a
//! session key it has not seen (the client's previous request went to another replica) starts
//! the session's upstreams itself; the vault session, derived only from the key, is the same,
//! so with a shared Redis vault the tokens minted on one replica restore on another.
//!
//! Messages from the gateway are routed by JSON-RPC id to the POST that carried the request;
//! other messages (notifications, server → client requests) go to an open POST stream of the
//! session, else its GET stream, else are dropped (logged by count, never content).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::io::BufReader;
use tokio::sync::mpsc;

use crate::mcp::envelope::{self, Envelope};
use crate::mcp::gateway;
use crate::mcp::interceptor::Interceptor;
use crate::mcp::stdio::{self, ServerCommand};
use crate::mcp::tool_search::ToolSearchConfig;

/// Bytes buffered in each pipe between the HTTP front end and the session's gateway.
const PIPE: usize = 1 << 20;

/// Where the front end's messages for one POST (or the GET stream) go.
pub(crate) type Sink = mpsc::UnboundedSender<String>;

/// A live session on this replica.
#[derive(Debug)]
pub(crate) struct Session {
    /// Lines to the session's gateway (`None` once closed).
    to_gateway: Mutex<Option<mpsc::UnboundedSender<String>>>,
    /// Request id text → the POST waiting for its answer, and whether it is an event stream
    /// (only those can carry other messages too).
    waiters: Mutex<HashMap<String, (Sink, bool)>>,
    /// The GET stream, when open.
    get_stream: Mutex<Option<Sink>>,
    /// Seconds since `epoch` at the last request.
    last_used: AtomicU64,
    epoch: Instant,
    ready: std::sync::atomic::AtomicBool,
    /// Exposed tool → [(`Mcp-Param-` suffix, argument)], learnt from `tools/list` answers.
    param_headers: Mutex<HashMap<String, Vec<(String, String)>>>,
    ended: std::sync::atomic::AtomicBool,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Session {
    /// Whether the session's gateway has answered anything yet (it answers only once its
    /// upstreams are started and initialized).
    pub(crate) fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Relaxed)
    }

    /// Starts a session's gateway; `on_end` runs when it stops.
    pub(crate) fn start(
        interceptor: Arc<Interceptor>,
        servers: Arc<BTreeMap<String, ServerCommand>>,
        tool_search: Arc<ToolSearchConfig>,
        epoch: Instant,
        on_end: impl FnOnce() + Send + 'static,
    ) -> Arc<Session> {
        let (host_in_w, host_in_r) = tokio::io::duplex(PIPE);
        let (host_out_w, host_out_r) = tokio::io::duplex(PIPE);
        let (tx, rx) = mpsc::unbounded_channel();
        let session = Arc::new(Session {
            to_gateway: Mutex::new(Some(tx)),
            waiters: Mutex::new(HashMap::new()),
            get_stream: Mutex::new(None),
            last_used: AtomicU64::new(epoch.elapsed().as_secs()),
            epoch,
            ready: Default::default(),
            param_headers: Mutex::new(HashMap::new()),
            ended: Default::default(),
        });
        tokio::spawn(stdio::write_lines(host_in_w, rx));
        tokio::spawn(async move {
            if let Err(e) =
                gateway::relay(interceptor, &servers, &tool_search, host_in_r, host_out_w).await
            {
                tracing::error!("session gateway stopped: {e}");
            }
        });
        let reader = session.clone();
        tokio::spawn(async move {
            // Small: the pipe is in memory, and an idle session should cost little.
            let mut lines = BufReader::with_capacity(1024, host_out_r);
            let mut line = Vec::new();
            while let Ok(Some(())) = stdio::read_message(&mut lines, &mut line).await {
                // The gateway's own output: always UTF-8.
                if let Some(text) = stdio::own_line(&line) {
                    reader.dispatch(text);
                }
            }
            reader.end();
            on_end();
        });
        session
    }

    /// Marks the session used now.
    pub(crate) fn touch(&self) {
        self.last_used
            .store(self.epoch.elapsed().as_secs(), Ordering::Relaxed);
    }

    /// Seconds since the last request.
    pub(crate) fn idle_seconds(&self) -> u64 {
        self.epoch
            .elapsed()
            .as_secs()
            .saturating_sub(self.last_used.load(Ordering::Relaxed))
    }

    /// Whether the gateway has stopped.
    pub(crate) fn is_ended(&self) -> bool {
        self.ended.load(Ordering::Relaxed)
    }

    /// Registers `sink` as the waiter of request `id`; `streaming` when it is an SSE answer.
    pub(crate) fn wait_for(&self, id: &str, sink: Sink, streaming: bool) {
        lock(&self.waiters).insert(id.to_string(), (sink, streaming));
    }

    /// Forgets the waiter of `id` (answered, timed out or the client went away).
    pub(crate) fn forget(&self, id: &str) -> bool {
        lock(&self.waiters).remove(id).is_some()
    }

    /// Learns the `x-mcp-header` arguments of the tools in a `tools/list` answer.
    pub(crate) fn learn_tools(&self, answer: &str) {
        let result = Envelope::parse(answer)
            .ok()
            .and_then(|e| e.result)
            .and_then(|r| serde_json::from_str::<serde_json::Value>(r.get()).ok());
        if let Some(result) = result {
            lock(&self.param_headers).extend(crate::mcp::http_upstream::param_headers(&result));
        }
    }

    /// The `Mcp-Param-` suffixes of `tool` and the arguments they mirror.
    pub(crate) fn param_headers(&self, tool: &str) -> Vec<(String, String)> {
        lock(&self.param_headers)
            .get(tool)
            .cloned()
            .unwrap_or_default()
    }

    /// Sets the GET stream.
    pub(crate) fn set_get_stream(&self, sink: Sink) {
        *lock(&self.get_stream) = Some(sink);
    }

    /// Sends a message to the session's gateway; false when it has stopped.
    pub(crate) fn send(&self, line: String) -> bool {
        match &*lock(&self.to_gateway) {
            Some(tx) => tx.send(line).is_ok(),
            None => false,
        }
    }

    /// Stops the session: its gateway closes its upstreams.
    pub(crate) fn close(&self) {
        lock(&self.to_gateway).take();
    }

    /// One message from the gateway.
    fn dispatch(&self, line: &str) {
        self.ready.store(true, Ordering::Relaxed);
        let id = match Envelope::parse(line) {
            Ok(env) if env.method.is_none() => env.id_key().map(str::to_string),
            _ => None,
        };
        if let Some(id) = id {
            // An answer goes to its own POST or nowhere (that POST timed out or went away).
            if let Some((sink, _)) = lock(&self.waiters).remove(&id) {
                let _ = sink.send(line.to_string());
            } else {
                tracing::debug!("an answer nobody waits for any more was dropped");
            }
            return;
        }
        // Not an answer to a waiting POST: any open POST event stream, else the GET stream.
        let mut line = Some(line.to_string());
        for (sink, _) in lock(&self.waiters)
            .values()
            .filter(|(_, streaming)| *streaming)
        {
            match sink.send(line.take().unwrap_or_default()) {
                Ok(()) => return,
                Err(e) => line = Some(e.0),
            }
        }
        if let Some(get) = &*lock(&self.get_stream)
            && let Some(l) = line.take()
            && get.send(l).is_ok()
        {
            return;
        }
        tracing::debug!("a server message with no open stream was dropped");
    }

    /// The gateway stopped: every waiting POST gets an error.
    fn end(&self) {
        self.ended.store(true, Ordering::Relaxed);
        lock(&self.to_gateway).take();
        let waiters: Vec<(String, (Sink, bool))> = lock(&self.waiters).drain().collect();
        for (id, (sink, _)) in waiters {
            let _ = sink.send(envelope::error_response(
                Some(&id),
                super::UPSTREAM_ERROR,
                "mcp-veil: the session's gateway stopped before answering",
            ));
        }
        lock(&self.get_stream).take();
    }
}
