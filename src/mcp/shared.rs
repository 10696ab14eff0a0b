//! One stdio child shared by every session of `mcp-veil serve` (`servers: {name: {share: true}}`),
//! for servers that keep no per-client state.
//!
//! Each session's gateway still has its own interceptor: what it sends here is already restored
//! with that session's vault session, and what comes back goes to that session's gateway only,
//! which tokenizes it with its own vault session. The hub between the sessions and the child:
//!
//! - **Ids**: every request gets a hub id (`"mcp-veil-share-N"`), mapped back to the session's
//!   own id on the answer, so two sessions' `id: 1` never meet and an answer goes to the
//!   session that asked or nowhere. Progress tokens are renumbered the same way
//!   (`"mcp-veil-share-pN"`), and `notifications/cancelled` names the hub id.
//! - **Lifecycle**: the first session's `initialize` goes to the child; its result answers every
//!   later session's `initialize` (with that session's id), and `notifications/initialized` is
//!   sent once. The child starts with the first session and its stdin is closed when the last
//!   one ends (it then has [`super::stdio::GRACE`] to exit); a child that exits ends every
//!   session's connection to it (their gateways report the server as exited) and the next
//!   session starts a new one.
//! - **Messages that belong to no request** never reach another session: progress
//!   notifications go to the session whose request carried the token, notifications tagged
//!   with a `subscriptions/listen` request's id to that request's session, and
//!   `notifications/{tools,prompts,resources}/list_changed` (no payload: the lists are shared)
//!   to every session. Everything else (log messages, `resources/updated`, unknown
//!   notifications, answers nobody waits for, lines that are not JSON-RPC) is dropped and
//!   counted ([`Hubs::dropped`]); requests from the server (sampling, elicitation, roots) are
//!   refused with a JSON-RPC error to the server and counted, since there is no way to know
//!   whose they are. Notifications from sessions other than `initialized` and `cancelled`
//!   (e.g. `roots/list_changed`) are not forwarded.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};

use super::envelope::{self, Envelope};
use super::stdio::{self, GRACE, ProxyError, ServerCommand};

/// The key of a stateless subscription's notifications (the `subscriptions/listen` id).
const SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The shared children of one `serve` replica, by server name.
#[derive(Debug, Default)]
pub struct Hubs {
    hubs: Mutex<HashMap<String, Arc<Hub>>>,
    dropped: Arc<AtomicU64>,
}

/// One session's connection to a shared child, seen by its gateway like a child's pipes.
#[derive(Debug)]
pub(crate) struct Connection {
    /// Lines to the server (already restored by the session's interceptor).
    pub(crate) to_server: stdio::LineTx,
    /// The server's messages for this session.
    pub(crate) from_server: stdio::LineRx,
}

impl Hubs {
    /// Hubs counting what they drop in `dropped`.
    pub fn new(dropped: Arc<AtomicU64>) -> Hubs {
        Hubs {
            hubs: Mutex::new(HashMap::new()),
            dropped,
        }
    }

    /// Messages from shared children that belonged to no session and were dropped (or, for
    /// server requests, refused).
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// How many shared children run.
    pub fn running(&self) -> usize {
        lock(&self.hubs).len()
    }

    /// Connects a session to the shared child of server `name`, started when none runs.
    pub(crate) fn connect(
        self: &Arc<Self>,
        name: &str,
        command: &ServerCommand,
    ) -> Result<Connection, ProxyError> {
        let mut hubs = lock(&self.hubs);
        let hub = match hubs.get(name).filter(|h| !lock(&h.state).closing) {
            Some(hub) => hub.clone(),
            None => {
                let spawned = stdio::spawn(name, command)?;
                let hub = Hub::start(
                    name,
                    Arc::downgrade(self),
                    self.dropped.clone(),
                    spawned.stdout,
                    spawned.stdin,
                    Some(spawned.child),
                );
                hubs.insert(name.to_string(), hub.clone());
                hub
            }
        };
        drop(hubs);
        Ok(hub.connect())
    }

    /// Forgets `hub` (it is closing), unless another took its place.
    fn remove(&self, hub: &Arc<Hub>) {
        let mut hubs = lock(&self.hubs);
        if hubs.get(&hub.name).is_some_and(|h| Arc::ptr_eq(h, hub)) {
            hubs.remove(&hub.name);
        }
    }
}

/// One shared child and the sessions connected to it.
#[derive(Debug)]
pub(crate) struct Hub {
    name: String,
    hubs: std::sync::Weak<Hubs>,
    dropped: Arc<AtomicU64>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Lines to the child (`None` once closing).
    to_child: Option<stdio::LineTx>,
    /// No new session connects: the child's stdin is closed or it exited.
    closing: bool,
    next_conn: u64,
    next_id: u64,
    /// Each connected session's way back.
    conns: HashMap<u64, stdio::LineTx>,
    /// Hub id text (JSON) → the request it stands for.
    pending: HashMap<String, Request>,
    /// Hub progress token text (JSON) → (session, its own token text).
    progress: HashMap<String, (u64, String)>,
    init: Init,
    initialized_sent: bool,
}

#[derive(Debug)]
struct Request {
    conn: u64,
    /// The session's own id (JSON text).
    id: String,
    /// The hub progress token it carries, if any.
    progress: Option<String>,
}

#[derive(Debug, Default)]
enum Init {
    #[default]
    None,
    /// Sent to the child under `hub_id`; these sessions' `initialize` (session, id) wait.
    Pending {
        hub_id: String,
        waiters: Vec<(u64, String)>,
    },
    /// The child's `initialize` result (JSON text).
    Done(String),
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow, rename = "_meta")]
    meta: Option<&'a RawValue>,
    #[serde(borrow, rename = "requestId")]
    request_id: Option<&'a RawValue>,
    #[serde(borrow, rename = "progressToken")]
    progress_token: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(borrow, rename = "progressToken")]
    progress_token: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/subscriptionId")]
    subscription: Option<String>,
}

fn params<'a>(env: &Envelope<'a>) -> Option<Params<'a>> {
    serde_json::from_str(env.params?.get()).ok()
}

fn meta<'a>(params: &Params<'a>) -> Option<Meta<'a>> {
    serde_json::from_str(params.meta?.get()).ok()
}

impl Hub {
    /// A hub over a child's pipes (`child`, when given, is waited for and killed after
    /// [`GRACE`] once its stdin is closed).
    fn start<R, W>(
        name: &str,
        hubs: std::sync::Weak<Hubs>,
        dropped: Arc<AtomicU64>,
        stdout: R,
        stdin: W,
        child: Option<tokio::process::Child>,
    ) -> Arc<Hub>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (tx, rx) = stdio::line_channel();
        let hub = Arc::new(Hub {
            name: name.to_string(),
            hubs,
            dropped,
            state: Mutex::new(State {
                to_child: Some(tx),
                ..Default::default()
            }),
        });
        tokio::spawn(async move {
            let _ = stdio::write_lines(stdin, rx).await;
            if let Some(mut child) = child
                && tokio::time::timeout(GRACE, child.wait()).await.is_err()
            {
                let _ = child.kill().await;
            }
        });
        tokio::spawn(hub.clone().read_child(stdout));
        hub
    }

    /// A new session's connection.
    fn connect(self: &Arc<Self>) -> Connection {
        let (to_server, mut from_session) = stdio::line_channel();
        let (back_tx, from_server) = stdio::line_channel();
        let conn = {
            let mut s = lock(&self.state);
            s.next_conn += 1;
            let conn = s.next_conn;
            s.conns.insert(conn, back_tx);
            conn
        };
        let hub = self.clone();
        tokio::spawn(async move {
            while let Some(line) = from_session.recv().await {
                if envelope::is_batch(&line) {
                    if let Ok(items) = envelope::split_batch(&line) {
                        for item in items {
                            hub.on_session_message(conn, item.get());
                        }
                    }
                } else {
                    hub.on_session_message(conn, &line);
                }
            }
            hub.disconnect(conn);
        });
        Connection {
            to_server,
            from_server,
        }
    }

    /// A session went away: its unanswered requests are cancelled at the child; the last
    /// session closes the child's stdin.
    fn disconnect(self: &Arc<Self>, conn: u64) {
        let last = {
            let mut s = lock(&self.state);
            s.conns.remove(&conn);
            let gone: Vec<String> = s
                .pending
                .iter()
                .filter(|(_, r)| r.conn == conn)
                .map(|(id, _)| id.clone())
                .collect();
            for id in gone {
                if let Some(r) = s.pending.remove(&id)
                    && let Some(p) = r.progress
                {
                    s.progress.remove(&p);
                }
                send_child(&s, cancelled(&id));
            }
            if let Init::Pending { waiters, .. } = &mut s.init {
                waiters.retain(|(c, _)| *c != conn);
            }
            s.progress.retain(|_, (c, _)| *c != conn);
            let last = s.conns.is_empty();
            if last {
                s.closing = true;
                s.to_child = None;
            }
            last
        };
        if last && let Some(hubs) = self.hubs.upgrade() {
            hubs.remove(self);
        }
    }

    /// One message from session `conn`'s gateway.
    fn on_session_message(&self, conn: u64, line: &str) {
        let Ok(env) = Envelope::parse(line) else {
            return;
        };
        let mut s = lock(&self.state);
        match (env.method.as_deref(), env.id) {
            (Some("initialize"), Some(id)) => {
                let theirs = id.get().trim().to_string();
                if let Init::Done(result) = &s.init {
                    let answer = format!(r#"{{"jsonrpc":"2.0","id":{theirs},"result":{result}}}"#);
                    send_conn(&s, conn, answer);
                    return;
                }
                if let Init::Pending { waiters, .. } = &mut s.init {
                    waiters.push((conn, theirs));
                    return;
                }
                let hub_id = next_id(&mut s);
                let out = envelope::splice(line, id.get(), &hub_id);
                s.init = Init::Pending {
                    hub_id,
                    waiters: vec![(conn, theirs)],
                };
                send_child(&s, out);
            }
            (Some(_), Some(id)) => {
                let hub_id = next_id(&mut s);
                let mut out = envelope::splice(line, id.get(), &hub_id);
                let mut progress = None;
                if line.contains("progressToken")
                    && let Ok(again) = Envelope::parse(&out)
                    && let Some(p) = params(&again)
                    && let Some(m) = meta(&p)
                    && let Some(token) = m.progress_token
                {
                    s.next_id += 1;
                    let hub_token = format!("\"mcp-veil-share-p{}\"", s.next_id);
                    s.progress
                        .insert(hub_token.clone(), (conn, token.get().trim().to_string()));
                    out = envelope::splice(&out, token.get(), &hub_token);
                    progress = Some(hub_token);
                }
                s.pending.insert(
                    hub_id,
                    Request {
                        conn,
                        id: id.get().trim().to_string(),
                        progress,
                    },
                );
                send_child(&s, out);
            }
            (Some("notifications/initialized"), None)
                if !s.initialized_sent && matches!(s.init, Init::Done(_)) =>
            {
                s.initialized_sent = true;
                send_child(&s, line.to_string());
            }
            (Some("notifications/cancelled"), None) => {
                let Some(request) = params(&env).and_then(|p| p.request_id) else {
                    return;
                };
                let theirs = request.get().trim();
                let hub_id = s
                    .pending
                    .iter()
                    .find(|(_, r)| r.conn == conn && r.id == theirs)
                    .map(|(id, _)| id.clone());
                if let Some(hub_id) = hub_id {
                    if let Some(r) = s.pending.remove(&hub_id)
                        && let Some(p) = r.progress
                    {
                        s.progress.remove(&p);
                    }
                    send_child(&s, envelope::splice(line, request.get(), &hub_id));
                }
            }
            // Other notifications would reach every session's server state; answers to
            // server requests cannot come (none are routed to sessions).
            _ => {}
        }
    }

    /// Reads the child until it exits, routing each message.
    async fn read_child<R: AsyncRead + Unpin>(self: Arc<Self>, stdout: R) {
        let mut reader = BufReader::with_capacity(stdio::PIPE_READ, stdout);
        let mut buf = Vec::new();
        while let Ok(Some(())) = stdio::read_message(&mut reader, &mut buf).await {
            let Ok(line) = std::str::from_utf8(&buf) else {
                self.drop_one();
                continue;
            };
            if envelope::is_batch(line) {
                match envelope::split_batch(line) {
                    Ok(items) => {
                        for item in items {
                            self.on_child_message(item.get());
                        }
                    }
                    Err(_) => self.drop_one(),
                }
            } else {
                self.on_child_message(line);
            }
        }
        // The child is gone: every session's connection ends (their gateways report it).
        {
            let mut s = lock(&self.state);
            s.closing = true;
            s.to_child = None;
            s.conns.clear();
            s.pending.clear();
            s.progress.clear();
        }
        if let Some(hubs) = self.hubs.upgrade() {
            hubs.remove(&self);
        }
    }

    fn drop_one(&self) {
        self.dropped.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(
            server = self.name,
            "a message from a shared server that belongs to no session was dropped"
        );
    }

    /// One message from the child.
    fn on_child_message(&self, line: &str) {
        let Ok(env) = Envelope::parse(line) else {
            return self.drop_one();
        };
        let mut s = lock(&self.state);
        match (env.method.as_deref(), env.id) {
            (None, Some(id)) => {
                let key = id.get().trim();
                if let Init::Pending { hub_id, .. } = &s.init
                    && hub_id == key
                {
                    let Init::Pending { waiters, .. } = std::mem::take(&mut s.init) else {
                        return;
                    };
                    if let Some(result) = env.result {
                        s.init = Init::Done(result.get().to_string());
                    }
                    for (conn, theirs) in waiters {
                        send_conn(&s, conn, envelope::splice(line, id.get(), &theirs));
                    }
                    return;
                }
                let Some(request) = s.pending.remove(key) else {
                    drop(s);
                    return self.drop_one();
                };
                if let Some(p) = &request.progress {
                    s.progress.remove(p);
                }
                send_conn(
                    &s,
                    request.conn,
                    envelope::splice(line, id.get(), &request.id),
                );
            }
            (Some(_), Some(id)) => {
                // Whose sampling, elicitation or roots request this is cannot be known.
                let refusal = envelope::error_response(
                    Some(id.get().trim()),
                    -32601,
                    "mcp-veil: this server is shared between sessions; its requests cannot \
                     be routed to a client",
                );
                send_child(&s, refusal);
                drop(s);
                self.drop_one();
            }
            (Some(method), None) => {
                if matches!(
                    method,
                    "notifications/tools/list_changed"
                        | "notifications/prompts/list_changed"
                        | "notifications/resources/list_changed"
                ) {
                    let bare = format!(r#"{{"jsonrpc":"2.0","method":"{method}"}}"#);
                    for tx in s.conns.values() {
                        let _ = tx.send(bare.clone());
                    }
                    return;
                }
                if let Some(routed) = route_notification(&s, line, &env) {
                    let (conn, text) = routed;
                    send_conn(&s, conn, text);
                    return;
                }
                drop(s);
                self.drop_one();
            }
            (None, None) => {
                drop(s);
                self.drop_one();
            }
        }
    }
}

/// The session a notification belongs to (by its progress token or its subscription id) and
/// the notification as that session knows it.
fn route_notification(s: &State, line: &str, env: &Envelope<'_>) -> Option<(u64, String)> {
    if !line.contains("progressToken") && !line.contains(SUBSCRIPTION) {
        return None;
    }
    let p = params(env)?;
    if let Some(token) = p.progress_token {
        let (conn, theirs) = s.progress.get(token.get().trim())?;
        return Some((*conn, envelope::splice(line, token.get(), theirs)));
    }
    let sub = meta(&p)?.subscription?;
    let hub_id = serde_json::Value::String(sub).to_string();
    let request = s.pending.get(&hub_id)?;
    // The subscription id is the request's id as a string.
    let theirs: String = match serde_json::from_str::<serde_json::Value>(&request.id) {
        Ok(serde_json::Value::String(v)) => v,
        _ => request.id.clone(),
    };
    let theirs = serde_json::Value::String(theirs).to_string();
    Some((request.conn, line.replacen(&hub_id, &theirs, 1)))
}

fn next_id(s: &mut State) -> String {
    s.next_id += 1;
    format!("\"mcp-veil-share-{}\"", s.next_id)
}

fn send_child(s: &State, line: String) {
    if let Some(tx) = &s.to_child {
        let _ = tx.send(line);
    }
}

fn send_conn(s: &State, conn: u64, line: String) {
    if let Some(tx) = s.conns.get(&conn) {
        let _ = tx.send(line);
    }
}

fn cancelled(hub_id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{hub_id},"reason":"the session ended"}}}}"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, DuplexStream};

    /// A hub over in-memory pipes: (hub, the child's view: lines in, a writer for its output).
    fn hub() -> (
        Arc<Hubs>,
        Arc<Hub>,
        tokio::io::Lines<BufReader<DuplexStream>>,
        DuplexStream,
    ) {
        let hubs = Arc::new(Hubs::default());
        let (child_in_hub, child_in) = tokio::io::duplex(1 << 16);
        let (child_out, child_out_hub) = tokio::io::duplex(1 << 16);
        let hub = Hub::start(
            "t",
            Arc::downgrade(&hubs),
            hubs.dropped.clone(),
            child_out_hub,
            child_in_hub,
            None,
        );
        lock(&hubs.hubs).insert("t".into(), hub.clone());
        (hubs, hub, BufReader::new(child_in).lines(), child_out)
    }

    async fn next(rx: &mut stdio::LineRx) -> String {
        tokio::time::timeout(std::time::Duration::from_secs(5), rx.recv())
            .await
            .expect("a message in time")
            .expect("a message")
    }

    async fn line(lines: &mut tokio::io::Lines<BufReader<DuplexStream>>) -> String {
        tokio::time::timeout(std::time::Duration::from_secs(5), lines.next_line())
            .await
            .expect("a line in time")
            .unwrap()
            .expect("a line")
    }

    async fn write(w: &mut DuplexStream, text: &str) {
        w.write_all(format!("{text}\n").as_bytes()).await.unwrap();
    }

    #[tokio::test]
    async fn ids_and_tokens_are_per_session_and_unrelated_messages_go_nowhere() {
        let (hubs, hub, mut child, mut child_out) = hub();
        let a = hub.connect();
        let b = hub.connect();
        let (mut a_out, mut b_out) = (a.from_server, b.from_server);
        // Initialized once; B's initialize is answered from A's.
        a.to_server
            .send(r#"{"jsonrpc":"2.0","id":"mcp-veil-1","method":"initialize","params":{}}"#.into())
            .unwrap();
        let init = line(&mut child).await;
        assert!(init.contains(r#""id":"mcp-veil-share-1""#), "{init}");
        write(
            &mut child_out,
            r#"{"jsonrpc":"2.0","id":"mcp-veil-share-1","result":{"protocolVersion":"2025-11-25"}}"#,
        )
        .await;
        assert!(next(&mut a_out).await.contains(r#""id":"mcp-veil-1""#));
        b.to_server
            .send(r#"{"jsonrpc":"2.0","id":"mcp-veil-1","method":"initialize","params":{}}"#.into())
            .unwrap();
        let b_init = next(&mut b_out).await;
        assert!(
            b_init.contains(r#""protocolVersion":"2025-11-25""#),
            "{b_init}"
        );
        for s in [&a.to_server, &b.to_server] {
            s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into())
                .unwrap();
        }
        // Both sessions use id 7 and progress token 1.
        let call = |v: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"x","arguments":{{"v":"{v}"}},"_meta":{{"progressToken":1}}}}}}"#
            )
        };
        a.to_server.send(call("A")).unwrap();
        let initialized = line(&mut child).await;
        assert!(initialized.contains("notifications/initialized"));
        let to_a = line(&mut child).await;
        b.to_server.send(call("B")).unwrap();
        let to_b = line(&mut child).await;
        assert!(to_a.contains(r#""v":"A""#) && to_b.contains(r#""v":"B""#));
        let hub_id = |l: &str| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].to_string(),
                v["params"]["_meta"]["progressToken"].to_string(),
            )
        };
        let (ida, pa) = hub_id(&to_a);
        let (idb, pb) = hub_id(&to_b);
        assert_ne!(ida, idb);
        assert_ne!(pa, pb);
        // B's progress and answer go to B only, A's to A only; a log goes nowhere.
        write(
            &mut child_out,
            &format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{pb},"progress":1}}}}"#
            ),
        )
        .await;
        write(
            &mut child_out,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"B's secret"}}"#,
        )
        .await;
        write(
            &mut child_out,
            r#"{"jsonrpc":"2.0","id":99,"method":"sampling/createMessage","params":{}}"#,
        )
        .await;
        let refused = line(&mut child).await;
        assert!(refused.contains(r#""id":99"#) && refused.contains("error"));
        write(
            &mut child_out,
            &format!(r#"{{"jsonrpc":"2.0","id":{idb},"result":{{"v":"B"}}}}"#),
        )
        .await;
        write(
            &mut child_out,
            &format!(r#"{{"jsonrpc":"2.0","id":{ida},"result":{{"v":"A"}}}}"#),
        )
        .await;
        let progress = next(&mut b_out).await;
        assert!(progress.contains(r#""progressToken":1"#), "{progress}");
        assert_eq!(
            next(&mut b_out).await,
            r#"{"jsonrpc":"2.0","id":7,"result":{"v":"B"}}"#
        );
        assert_eq!(
            next(&mut a_out).await,
            r#"{"jsonrpc":"2.0","id":7,"result":{"v":"A"}}"#
        );
        assert_eq!(hubs.dropped(), 2, "the log and the server request");
        // A leaves with a request pending: it is cancelled at the child.
        a.to_server.send(call("A2")).unwrap();
        let pending = line(&mut child).await;
        let (id2, _) = hub_id(&pending);
        drop(a.to_server);
        let cancel = line(&mut child).await;
        assert!(
            cancel.contains("notifications/cancelled") && cancel.contains(&id2),
            "{cancel}"
        );
        // The last session leaving closes the child's stdin and forgets the hub.
        drop(b.to_server);
        assert!(
            tokio::time::timeout(std::time::Duration::from_secs(5), child.next_line())
                .await
                .unwrap()
                .unwrap()
                .is_none()
        );
        assert_eq!(hubs.running(), 0);
    }
}
