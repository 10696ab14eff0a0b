//! One HTTP session: a stdio-style gateway ([`crate::mcp::gateway::relay`]) fed by an
//! in-process channel, whose messages are dispatched as it sends them, with its own interceptor
//! on the vault session derived from the session key.
//!
//! Each session has its own upstream connections (stdio children or HTTP sessions), started on
//! first use, so two clients never share a server process's state (except stdio servers marked
//! `share`, see [`crate::mcp::shared`]). A replica that meets a
//! session key it has not seen (the client's previous request went to another replica) starts
//! the session's upstreams itself; the vault session, derived only from the key, is the same,
//! so with a shared Redis vault the tokens minted on one replica restore on another.
//!
//! Messages from the gateway are routed by JSON-RPC id to the POST that carried the request;
//! other messages (notifications, server → client requests) go to an open POST stream of the
//! session, else its GET stream, else are dropped (logged by count, never content).
//!
//! # Resumable streams
//!
//! Every event stream (a POST answered as SSE, the GET stream) is an [`EventStream`]: its
//! events are numbered (`id: {replica nonce}.{stream}.{n}`) and the last ones kept (at most
//! [`KEPT_EVENTS`] events and [`KEPT_BYTES`] bytes per stream, [`KEPT_STREAMS`] streams per
//! session), so a client that lost the connection resumes with `GET` and `Last-Event-ID`: it
//! gets the events of that stream after the id, then the rest of the stream. What is kept is
//! what the client was sent, tokenized. With a vault shared by replicas, a [`Mirror`] copies
//! each event to the vault as well (in order, events over [`SHARED_EVENT_BYTES`] recorded as not
//! kept), so another replica can replay the stream; the nonce tells a replica its own streams
//! from others'.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::mpsc;

use crate::mcp::envelope::{self, Envelope};
use crate::mcp::gateway;
use crate::mcp::interceptor::Interceptor;
use crate::mcp::stdio::{self, ServerCommand};
use crate::mcp::take_pending;
use crate::mcp::tool_search::ToolSearchConfig;

/// Where the front end's messages for one POST answered as JSON go.
pub(crate) type Sink = mpsc::UnboundedSender<String>;

/// Events kept per stream for `Last-Event-ID` resumption.
pub(crate) const KEPT_EVENTS: usize = 64;
/// Bytes of events kept per stream (the oldest events go first; an event larger than this is
/// not kept, so it cannot be replayed).
pub(crate) const KEPT_BYTES: usize = 256 * 1024;
/// Streams kept per session for resumption (the oldest finished ones go first): with
/// [`KEPT_BYTES`], at most 2 MiB of events per session.
pub(crate) const KEPT_STREAMS: usize = 8;

/// Events larger than this are not copied to a shared vault: a client resuming on another
/// replica past one gets a refusal (HTTP 409) instead of a stream with a hole.
pub(crate) const SHARED_EVENT_BYTES: usize = 64 * 1024;
/// What a shared vault holds for an event that was not copied ([`SHARED_EVENT_BYTES`]).
pub(crate) const NOT_KEPT: &str = "-";
/// What a shared vault holds for the end of a POST's stream.
pub(crate) const END: &str = "";

/// Copies a session's events to a vault shared by replicas
/// ([`crate::vault::VaultBackend::append_event`]), in order, by one task started on the first
/// event, so a client can resume a stream on another replica.
#[derive(Debug)]
pub(crate) struct Mirror {
    vault: Arc<dyn crate::vault::VaultBackend>,
    session: crate::vault::SessionId,
    tx: std::sync::OnceLock<mpsc::UnboundedSender<(String, u64, String)>>,
}

impl Mirror {
    pub(crate) fn new(
        vault: Arc<dyn crate::vault::VaultBackend>,
        session: crate::vault::SessionId,
    ) -> Mirror {
        Mirror {
            vault,
            session,
            tx: std::sync::OnceLock::new(),
        }
    }

    fn copy(&self, stream: &str, seq: u64, event: &str) {
        let tx = self.tx.get_or_init(|| {
            let (tx, mut rx) = mpsc::unbounded_channel::<(String, u64, String)>();
            let vault = self.vault.clone();
            let session = self.session.clone();
            tokio::spawn(async move {
                while let Some((stream, seq, event)) = rx.recv().await {
                    if let Err(e) = vault
                        .append_event(&session, &stream, seq, &event, KEPT_EVENTS)
                        .await
                    {
                        tracing::warn!("could not copy a stream event to the vault: {e}");
                    }
                }
            });
            tx
        });
        let event = if event.len() > SHARED_EVENT_BYTES {
            NOT_KEPT
        } else {
            event
        };
        let _ = tx.send((stream.to_string(), seq, event.to_string()));
    }
}

/// Who waits for the answer to a request.
#[derive(Debug)]
enum Waiter {
    /// A POST answered as JSON.
    Json(Sink),
    /// A POST answered as an event stream.
    Stream(Arc<EventStream>),
}

/// One event stream of a session: numbered events, the last ones kept for resumption, and the
/// HTTP response currently attached to it (none while the client is away).
#[derive(Debug)]
pub(crate) struct EventStream {
    /// `{replica nonce}.{stream}`: the prefix of its event ids.
    prefix: String,
    /// The GET stream (never finishes by itself) rather than a POST's.
    pub(crate) get: bool,
    /// When the POST's requests time out (none for the GET stream).
    pub(crate) deadline: Option<tokio::time::Instant>,
    /// Copies events to a shared vault, when the vault is shared.
    mirror: Option<Arc<Mirror>>,
    inner: Mutex<StreamInner>,
}

#[derive(Debug, Default)]
struct StreamInner {
    next: u64,
    kept: VecDeque<(u64, String)>,
    kept_bytes: usize,
    sink: Option<mpsc::UnboundedSender<(u64, String)>>,
    /// Counts attachments, so a response that went away detaches only itself.
    attachments: u64,
    /// Requests of the POST still unanswered.
    pending: HashSet<String>,
    /// Every request answered (or the stream closed): nothing more comes.
    finished: bool,
}

impl EventStream {
    fn new(
        prefix: String,
        get: bool,
        pending: HashSet<String>,
        deadline: Option<tokio::time::Instant>,
        mirror: Option<Arc<Mirror>>,
    ) -> EventStream {
        EventStream {
            prefix,
            get,
            deadline,
            mirror,
            inner: Mutex::new(StreamInner {
                next: 1,
                pending,
                ..Default::default()
            }),
        }
    }

    /// The SSE id of event `seq` (0: the priming event, before any message).
    pub(crate) fn event_id(&self, seq: u64) -> String {
        format!("{}.{seq}", self.prefix)
    }

    /// Numbers and keeps a message, and passes it to the attached response; true when one
    /// took it.
    pub(crate) fn push(&self, msg: String) -> bool {
        let mut s = lock(&self.inner);
        if s.finished {
            return false;
        }
        let seq = s.next;
        s.next += 1;
        if let Ok(env) = Envelope::parse(&msg)
            && env.method.is_none()
            && let Some(id) = env.id_key()
        {
            s.pending.remove(id);
            if s.pending.is_empty() && !self.get {
                s.finished = true;
            }
        }
        if let Some(mirror) = &self.mirror {
            mirror.copy(&self.prefix, seq, &msg);
            if s.finished {
                mirror.copy(&self.prefix, seq + 1, END);
            }
        }
        if msg.len() <= KEPT_BYTES {
            s.kept_bytes += msg.len();
            s.kept.push_back((seq, msg.clone()));
        }
        while s.kept.len() > KEPT_EVENTS || s.kept_bytes > KEPT_BYTES {
            let Some((_, old)) = s.kept.pop_front() else {
                break;
            };
            s.kept_bytes -= old.len();
        }
        if let Some(tx) = &s.sink {
            if tx.send((seq, msg)).is_ok() {
                return true;
            }
            s.sink = None;
        }
        false
    }

    /// Attaches a response: it gets the kept events after `after` (all kept ones for `None`),
    /// then every new one. Returns the attachment's number and the receiver.
    pub(crate) fn attach(
        &self,
        after: Option<u64>,
    ) -> (u64, mpsc::UnboundedReceiver<(u64, String)>) {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut s = lock(&self.inner);
        for (seq, msg) in &s.kept {
            if after.is_none_or(|a| *seq > a) {
                let _ = tx.send((*seq, msg.clone()));
            }
        }
        s.sink = Some(tx);
        s.attachments += 1;
        (s.attachments, rx)
    }

    /// Detaches attachment `n`, unless another response attached since; true when it was the
    /// current one.
    pub(crate) fn detach(&self, n: u64) -> bool {
        let mut s = lock(&self.inner);
        if s.attachments == n {
            s.sink = None;
            true
        } else {
            false
        }
    }

    /// Whether attachment `n` is still the latest one (nobody resumed the stream since).
    pub(crate) fn is_latest(&self, n: u64) -> bool {
        lock(&self.inner).attachments == n
    }

    /// Whether a response is attached and still there.
    fn is_live(&self) -> bool {
        let s = lock(&self.inner);
        !s.finished && s.sink.as_ref().is_some_and(|tx| !tx.is_closed())
    }

    /// Whether every request is answered (POST), or the stream was closed.
    pub(crate) fn is_finished(&self) -> bool {
        lock(&self.inner).finished
    }

    /// The requests still unanswered.
    pub(crate) fn pending(&self) -> Vec<String> {
        lock(&self.inner).pending.iter().cloned().collect()
    }

    /// Ends the stream: nothing more is added, the attached response ends.
    fn close(&self) {
        let mut s = lock(&self.inner);
        s.finished = true;
        s.sink = None;
    }
}

/// A live session on this replica.
#[derive(Debug)]
pub(crate) struct Session {
    /// Lines to the session's gateway (`None` once closed).
    to_gateway: Mutex<Option<stdio::LineTx>>,
    /// Request id text → the POST waiting for its answer.
    waiters: Mutex<HashMap<String, Waiter>>,
    /// The GET stream, when open.
    get_stream: Mutex<Option<Arc<EventStream>>>,
    /// Recent event streams, for resumption (oldest first).
    streams: Mutex<VecDeque<Arc<EventStream>>>,
    /// Numbers this session's streams on this replica.
    next_stream: AtomicU64,
    /// Random, per session and replica: the first part of every event id.
    nonce: String,
    /// Copies events to a shared vault (when the vault is shared).
    mirror: Option<Arc<Mirror>>,
    /// Ids of `tools/list` requests, whose answers teach the session its `Mcp-Param-*` headers.
    lists: Mutex<HashSet<String>>,
    /// Seconds since `epoch` at the last request.
    last_used: AtomicU64,
    epoch: Instant,
    ready: std::sync::atomic::AtomicBool,
    /// Exposed tool → [(`Mcp-Param-` suffix, argument)], learnt from `tools/list` answers.
    param_headers: Mutex<HashMap<String, Vec<(String, String)>>>,
    /// Progress token (JSON text) → the id text of the request that carried it, while it is
    /// unanswered: its notifications go to that request's stream.
    progress: Mutex<HashMap<String, String>>,
    ended: std::sync::atomic::AtomicBool,
}

/// Where a session's gateway sends its messages: each is dispatched as it is sent; dropping
/// the last sender (the gateway has stopped) ends the session, as the end of a channel did.
struct Output<F: FnOnce()> {
    session: Arc<Session>,
    on_end: Mutex<Option<F>>,
}

impl<F: FnOnce()> Drop for Output<F> {
    fn drop(&mut self) {
        self.session.end();
        if let Some(on_end) = lock(&self.on_end).take() {
            on_end();
        }
    }
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
        hubs: Arc<crate::mcp::shared::Hubs>,
        mirror: Option<Arc<Mirror>>,
        epoch: Instant,
        on_end: impl FnOnce() + Send + 'static,
    ) -> Arc<Session> {
        let (tx, rx) = stdio::line_channel();
        let session = Arc::new(Session {
            to_gateway: Mutex::new(Some(tx)),
            waiters: Mutex::new(HashMap::new()),
            get_stream: Mutex::new(None),
            streams: Mutex::new(VecDeque::new()),
            next_stream: AtomicU64::new(1),
            nonce: super::random_id()[..8].to_string(),
            mirror,
            lists: Mutex::new(HashSet::new()),
            last_used: AtomicU64::new(epoch.elapsed().as_secs()),
            epoch,
            ready: Default::default(),
            param_headers: Mutex::new(HashMap::new()),
            progress: Mutex::new(HashMap::new()),
            ended: Default::default(),
        });
        // The gateway's messages are dispatched on its own tasks as it sends them (no channel,
        // no task of the session's own); the session ends when the gateway lets go of them.
        let output = Output {
            session: session.clone(),
            on_end: Mutex::new(Some(on_end)),
        };
        let out_tx = stdio::LineTx::to_fn(move |text| output.session.dispatch(&text));
        tokio::spawn(async move {
            if let Err(e) = gateway::relay_io(
                interceptor,
                &servers,
                &tool_search,
                Some(&hubs),
                stdio::Lines::channel(rx),
                stdio::LinesOut::<tokio::io::Sink>::Channel(out_tx),
            )
            .await
            {
                tracing::error!("session gateway stopped: {e}");
            }
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

    /// Registers `sink` as the waiter of request `id`, answered as JSON.
    pub(crate) fn wait_json(&self, id: &str, sink: Sink) {
        lock(&self.waiters).insert(id.to_string(), Waiter::Json(sink));
    }

    /// Opens the event stream answering requests `ids` (until `deadline`).
    pub(crate) fn open_stream(
        &self,
        ids: &[String],
        deadline: tokio::time::Instant,
    ) -> Arc<EventStream> {
        let stream = Arc::new(EventStream::new(
            self.stream_prefix(false),
            false,
            ids.iter().cloned().collect(),
            Some(deadline),
            self.mirror.clone(),
        ));
        {
            let mut waiters = lock(&self.waiters);
            for id in ids {
                waiters.insert(id.clone(), Waiter::Stream(stream.clone()));
            }
        }
        self.remember(stream.clone());
        stream
    }

    /// Opens a new GET stream; the previous one ends.
    pub(crate) fn open_get_stream(&self) -> Arc<EventStream> {
        let stream = Arc::new(EventStream::new(
            self.stream_prefix(true),
            true,
            HashSet::new(),
            None,
            self.mirror.clone(),
        ));
        if let Some(old) = lock(&self.get_stream).replace(stream.clone()) {
            old.close();
        }
        self.remember(stream.clone());
        stream
    }

    /// The stream a `Last-Event-ID` names, and the event number in it; `None` for an id this
    /// replica did not give in this session (or whose stream is no longer kept).
    pub(crate) fn resumable(&self, last_event_id: &str) -> Option<(Arc<EventStream>, u64)> {
        let (prefix, seq) = last_event_id.rsplit_once('.')?;
        let seq: u64 = seq.parse().ok()?;
        let stream = lock(&self.streams)
            .iter()
            .find(|s| s.prefix == prefix)
            .cloned()?;
        if stream.get {
            // Resuming an earlier GET stream makes it the GET stream again.
            lock(&stream.inner).finished = false;
            let mut get = lock(&self.get_stream);
            if !get.as_ref().is_some_and(|g| Arc::ptr_eq(g, &stream))
                && let Some(old) = get.replace(stream.clone())
            {
                old.close();
            }
        }
        Some((stream, seq))
    }

    /// `{nonce}.{n}` for a POST's stream, `{nonce}.g{n}` for a GET stream (so another replica
    /// resuming it from a shared vault knows which kind it is).
    fn stream_prefix(&self, get: bool) -> String {
        let n = self.next_stream.fetch_add(1, Ordering::Relaxed);
        let g = if get { "g" } else { "" };
        format!("{}.{g}{n}", self.nonce)
    }

    /// Whether `prefix` (of a `Last-Event-ID`) names a stream of this session on this replica.
    pub(crate) fn is_own_stream(&self, prefix: &str) -> bool {
        prefix.split_once('.').is_some_and(|(n, _)| n == self.nonce)
    }

    /// Keeps `stream` for resumption, forgetting the oldest (finished ones first).
    fn remember(&self, stream: Arc<EventStream>) {
        let mut streams = lock(&self.streams);
        streams.push_back(stream);
        while streams.len() > KEPT_STREAMS {
            let victim = streams.iter().position(|s| s.is_finished()).unwrap_or(0);
            streams.remove(victim);
        }
    }

    /// Forgets the waiter of `id` (answered, timed out or the client went away).
    pub(crate) fn forget(&self, id: &str) -> bool {
        lock(&self.progress).retain(|_, request| request != id);
        take_pending(&mut *lock(&self.waiters), id).is_some()
    }

    /// Marks `id` as a `tools/list` request: its answer teaches the `Mcp-Param-*` headers.
    pub(crate) fn expect_tools_list(&self, id: &str) {
        lock(&self.lists).insert(id.to_string());
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

    /// Sends a message to the session's gateway; false when it has stopped.
    pub(crate) fn send(&self, line: String) -> bool {
        if line.contains("progressToken")
            && let Ok(env) = Envelope::parse(&line)
            && env.method.is_some()
            && let (Some(id), Some(params)) = (env.id_key(), env.params)
            && let Ok(v) = serde_json::from_str::<serde_json::Value>(params.get())
            && let Some(token) = v.pointer("/_meta/progressToken")
        {
            lock(&self.progress).insert(token.to_string(), id.to_string());
        }
        match &*lock(&self.to_gateway) {
            Some(tx) => tx.send(line).is_ok(),
            None => false,
        }
    }

    /// Stops the session: its gateway closes its upstreams.
    pub(crate) fn close(&self) {
        lock(&self.to_gateway).take();
    }

    /// One message from the gateway (or an answer the front end gives itself, in its place).
    pub(crate) fn dispatch(&self, line: &str) {
        self.ready.store(true, Ordering::Relaxed);
        let id = match Envelope::parse(line) {
            Ok(env) if env.method.is_none() => env.id_key().map(str::to_string),
            _ => None,
        };
        if let Some(id) = id {
            lock(&self.progress).retain(|_, request| *request != id);
            if lock(&self.lists).remove(&id) {
                self.learn_tools(line);
            }
            // An answer goes to its own POST or nowhere (that POST timed out or went away).
            match take_pending(&mut *lock(&self.waiters), &id) {
                Some(Waiter::Json(sink)) => {
                    let _ = sink.send(line.to_string());
                }
                Some(Waiter::Stream(stream)) => {
                    stream.push(line.to_string());
                }
                None => tracing::debug!("an answer nobody waits for any more was dropped"),
            }
            return;
        }
        // A progress notification: the stream of the request that asked for it; a stateless
        // client's subscription notification: the stream of its `subscriptions/listen` (the
        // subscription id is that request's id).
        if let Some(stream) = self.related_stream(line)
            && stream.push(line.to_string())
        {
            return;
        }
        // Not an answer: an open POST event stream, else the GET stream while a client reads
        // it, else kept on a POST stream or the GET stream for a client that resumes.
        let streams: Vec<Arc<EventStream>> = {
            let waiters = lock(&self.waiters);
            let mut seen = HashSet::new();
            waiters
                .values()
                .filter_map(|w| match w {
                    Waiter::Stream(s) if seen.insert(Arc::as_ptr(s)) => Some(s.clone()),
                    _ => None,
                })
                .collect()
        };
        let get = lock(&self.get_stream).clone();
        if let Some(s) = streams.iter().find(|s| s.is_live())
            && s.push(line.to_string())
        {
            return;
        }
        if let Some(g) = &get
            && g.is_live()
            && g.push(line.to_string())
        {
            return;
        }
        if let Some(s) = streams.iter().find(|s| !s.is_finished()) {
            s.push(line.to_string());
            return;
        }
        if let Some(g) = &get
            && !g.is_finished()
        {
            g.push(line.to_string());
            return;
        }
        tracing::debug!("a server message with no open stream was dropped");
    }

    /// The POST stream of the request a notification belongs to: by its progress token, or
    /// the `subscriptions/listen` request it names in `_meta`
    /// (`io.modelcontextprotocol/subscriptionId`: that request's id, as a string).
    fn related_stream(&self, line: &str) -> Option<Arc<EventStream>> {
        const KEY: &str = "io.modelcontextprotocol/subscriptionId";
        if !line.contains(KEY) && !line.contains("progressToken") {
            return None;
        }
        let v: serde_json::Value = serde_json::from_str(line).ok()?;
        let params = v.get("params")?;
        if let Some(token) = params.get("progressToken") {
            let id = lock(&self.progress).get(&token.to_string()).cloned()?;
            return match lock(&self.waiters).get(&id)? {
                Waiter::Stream(s) => Some(s.clone()),
                Waiter::Json(_) => None,
            };
        }
        let sub = params.get("_meta")?.get(KEY)?.as_str()?;
        let waiters = lock(&self.waiters);
        let quoted = serde_json::Value::String(sub.to_string()).to_string();
        match waiters.get(sub).or_else(|| waiters.get(&quoted))? {
            Waiter::Stream(s) => Some(s.clone()),
            Waiter::Json(_) => None,
        }
    }

    /// The gateway stopped: every waiting POST gets an error.
    fn end(&self) {
        self.ended.store(true, Ordering::Relaxed);
        lock(&self.to_gateway).take();
        let waiters: Vec<(String, Waiter)> = lock(&self.waiters).drain().collect();
        for (id, waiter) in waiters {
            let error = envelope::error_response(
                Some(&id),
                super::UPSTREAM_ERROR,
                "mcp-veil: the session's gateway stopped before answering",
            );
            match waiter {
                Waiter::Json(sink) => {
                    let _ = sink.send(error);
                }
                Waiter::Stream(stream) => {
                    stream.push(error);
                }
            }
        }
        if let Some(get) = lock(&self.get_stream).take() {
            get.close();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(id: u64) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#)
    }

    #[test]
    fn streams_replay_after_an_id_and_finish_when_answered() {
        let pending = ["1".to_string(), "2".to_string()].into_iter().collect();
        let stream = EventStream::new("n.1".into(), false, pending, None, None);
        let (first, mut rx) = stream.attach(None);
        assert!(stream.push(r#"{"jsonrpc":"2.0","method":"notifications/message"}"#.into()));
        assert_eq!(rx.try_recv().unwrap().0, 1);
        // The client goes away; what comes meanwhile is kept.
        assert!(stream.detach(first));
        assert!(!stream.push(answer(1)));
        assert!(!stream.is_finished());
        // It resumes after event 1: event 2 is replayed, then the rest is live.
        let (second, mut rx) = stream.attach(Some(1));
        assert!(!stream.detach(first), "an old attachment detaches nothing");
        assert!(stream.is_latest(second));
        assert_eq!(rx.try_recv().unwrap(), (2, answer(1)));
        assert!(stream.push(answer(2)));
        assert_eq!(rx.try_recv().unwrap(), (3, answer(2)));
        assert!(stream.is_finished());
        assert!(stream.pending().is_empty());
        assert!(
            !stream.push(answer(3)),
            "nothing is added to a finished stream"
        );
        assert_eq!(stream.event_id(3), "n.1.3");
    }

    #[test]
    fn kept_events_are_bounded() {
        let stream = EventStream::new("n.2".into(), true, HashSet::new(), None, None);
        for _ in 0..(KEPT_EVENTS + 10) {
            stream.push("{}".into());
        }
        let big = "x".repeat(KEPT_BYTES + 1);
        stream.push(big);
        let (_, mut rx) = stream.attach(None);
        let mut replayed = Vec::new();
        while let Ok((seq, _)) = rx.try_recv() {
            replayed.push(seq);
        }
        // The oversized event is not kept; of the rest, the last KEPT_EVENTS are.
        assert_eq!(replayed.len(), KEPT_EVENTS);
        assert_eq!(replayed.last(), Some(&(KEPT_EVENTS as u64 + 10)));
    }
}
