//! A remote streamable-HTTP MCP server seen as a pair of message channels, so the gateway
//! drives it like a stdio child (`servers: {name: {url: ..., headers: ...}}`).
//!
//! The gateway sends JSON-RPC messages into [`HttpUpstream::to_server`] and reads the server's
//! messages from [`HttpUpstream::from_server`] (in-process channels, no pipe). A task in between
//! POSTs each message to the URL and relays the answer: a JSON body as one message, an SSE body
//! event by event as it arrives (never buffered whole). `initialize` is sent alone and its
//! `Mcp-Session-Id` and protocol version go on every later request; `notifications/initialized`
//! is sent alone too, before any later message; after it, a GET stream carries the server's own
//! messages (a server that answers 405 has none). When the gateway closes `to_server`, the
//! session is DELETEd.
//!
//! Streams the server closes (SSE polling): a POST's stream that ends before its answer is
//! resumed with a `GET` carrying `Last-Event-ID` (the server's last event id, its priming event
//! included) after the server's `retry` delay (at most 10 s), as long as it makes progress; the
//! GET stream is reopened the same way.
//!
//! Headers: the configured `headers` (and `headers_from_env`), `Mcp-Method`, `Mcp-Name` and
//! `Mcp-Param-*` computed from the message actually sent (after the interceptor restored its
//! values and the gateway renamed the tool), so they always agree with the body. Which
//! arguments travel as `Mcp-Param-{H}` is learnt from `x-mcp-header` in the server's
//! `tools/list`; values that are not plain visible ASCII use the `=?base64?...?=` form.
//!
//! A stateless (2026-07-28) request, one with the protocol version in `_meta`, is sent without
//! `Mcp-Session-Id` and with its own version in `MCP-Protocol-Version`; when the server refuses
//! it with an HTTP error status and a JSON-RPC error for it, that error is its answer.
//!
//! Failures become JSON-RPC errors for the request concerned (unreachable, HTTP status, a stream
//! that ended before the answer), so the host always hears back. Messages name the server and
//! the HTTP status, never a value.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use futures::StreamExt;
use serde_json::Value;
use serde_json::value::RawValue;
use sse_stream::SseStream;
use tokio::task::JoinHandle;

use super::envelope::{self, Envelope};
use super::stdio::{self, ProxyError, ServerCommand};

/// JSON-RPC code for an upstream that failed at the HTTP level.
const UPSTREAM_ERROR: i64 = -32603;
/// How often a closed stream is resumed without the server making progress.
const MAX_RESUME_ATTEMPTS: u32 = 5;
/// The reconnection delay when the server sent no `retry`.
const DEFAULT_RETRY: Duration = Duration::from_millis(500);
/// The longest reconnection delay honoured (a larger `retry` is shortened to it).
const MAX_RETRY: Duration = Duration::from_secs(10);

/// A running HTTP upstream: the gateway's ends of the two channels and the task between them.
#[derive(Debug)]
pub struct HttpUpstream {
    /// Send JSON-RPC messages here (they are POSTed).
    pub(crate) to_server: stdio::LineTx,
    /// The server's messages, one per item.
    pub(crate) from_server: stdio::LineRx,
    /// Ends after `to_server` closes and the session was deleted.
    pub(crate) task: JoinHandle<()>,
}

#[derive(Debug)]
struct State {
    name: String,
    client: reqwest::Client,
    url: reqwest::Url,
    headers: reqwest::header::HeaderMap,
    session: Mutex<Option<String>>,
    version: Mutex<Option<String>>,
    /// tool → (header suffix, argument name), from `x-mcp-header` in `tools/list`.
    param_headers: Mutex<HashMap<String, Vec<(String, String)>>>,
    out: stdio::LineTx,
}

/// Starts the task for `server` (which has a `url`).
pub fn spawn(name: &str, server: &ServerCommand) -> Result<HttpUpstream, ProxyError> {
    let bad = |why: String| ProxyError::Config(format!("server `{name}`: {why}"));
    let url = server.url.as_deref().unwrap_or_default();
    let url = reqwest::Url::parse(url).map_err(|e| bad(format!("bad url: {e}")))?;
    let mut headers = reqwest::header::HeaderMap::new();
    let from_env = server.headers_from_env.iter().map(|(h, var)| {
        std::env::var(var)
            .map(|v| (h.clone(), v))
            .map_err(|_| bad(format!("header `{h}`: variable `{var}` is not set")))
    });
    let fixed = server
        .headers
        .iter()
        .map(|(h, v)| Ok((h.clone(), v.clone())));
    for pair in fixed.chain(from_env) {
        let (h, v) = pair?;
        let header = reqwest::header::HeaderName::from_bytes(h.as_bytes())
            .map_err(|_| bad(format!("bad header name `{h}`")))?;
        let mut value = reqwest::header::HeaderValue::from_str(&v)
            .map_err(|_| bad(format!("bad value for header `{h}`")))?;
        // May be a secret: `Debug` shows `Sensitive`.
        value.set_sensitive(true);
        headers.insert(header, value);
    }
    // One client (one connection pool) for every upstream session of the process.
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    let client = match CLIENT.get() {
        Some(c) => c.clone(),
        None => {
            let c = reqwest::Client::builder()
                .build()
                .map_err(|e| bad(format!("HTTP client: {e}")))?;
            CLIENT.get_or_init(|| c).clone()
        }
    };
    let (to_server, from_gateway) = stdio::line_channel();
    let (out, from_server) = stdio::line_channel();
    let state = Arc::new(State {
        name: name.to_string(),
        client,
        url,
        headers,
        session: Mutex::new(None),
        version: Mutex::new(None),
        param_headers: Mutex::new(HashMap::new()),
        out,
    });
    let task = tokio::spawn(run(state, from_gateway));
    Ok(HttpUpstream {
        to_server,
        from_server,
        task,
    })
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

async fn run(state: Arc<State>, mut from_gateway: stdio::LineRx) {
    let mut listener: Option<JoinHandle<()>> = None;
    let mut posts = tokio::task::JoinSet::new();
    while let Some(buf) = from_gateway.recv().await {
        let line = buf.as_str();
        let lifecycle = Envelope::parse(line).ok().is_some_and(|e| {
            matches!(
                e.method.as_deref(),
                Some("initialize" | "notifications/initialized")
            )
        });
        if lifecycle {
            // Alone and in order: the session id is known before anything else is sent, and
            // the server hears `notifications/initialized` before any request.
            Box::pin(post(state.clone(), line.to_string())).await;
        } else {
            if listener.is_none() && lock(&state.session).is_some() {
                listener = Some(tokio::spawn(listen(state.clone())));
            }
            posts.spawn(post(state.clone(), line.to_string()));
        }
        while posts.try_join_next().is_some() {}
    }
    posts.abort_all();
    if let Some(l) = listener {
        l.abort();
    }
    let session = lock(&state.session).clone();
    if let Some(session) = session {
        let _ = state
            .client
            .delete(state.url.clone())
            .headers(state.headers.clone())
            .header("mcp-session-id", session)
            .send()
            .await;
    }
}

/// The request's headers beyond the configured ones.
fn request_headers(state: &State, msg: &str) -> reqwest::header::HeaderMap {
    let mut headers = state.headers.clone();
    let mut put = |name: &str, value: &str| {
        if let (Ok(n), Ok(v)) = (
            reqwest::header::HeaderName::from_bytes(name.as_bytes()),
            reqwest::header::HeaderValue::from_str(value),
        ) {
            headers.insert(n, v);
        }
    };
    // A stateless (2026-07-28) request goes without the session, at its own version.
    match super::stateless::line_version(msg) {
        Some(v) => put("mcp-protocol-version", &v),
        None => {
            if let Some(s) = lock(&state.session).as_deref() {
                put("mcp-session-id", s);
            }
            if let Some(v) = lock(&state.version).as_deref() {
                put("mcp-protocol-version", v);
            }
        }
    }
    if let Ok(env) = Envelope::parse(msg)
        && let Some(method) = env.method.as_deref()
    {
        put("mcp-method", method);
        let params: Option<Value> = env.params.and_then(|p| serde_json::from_str(p.get()).ok());
        let name = params.as_ref().and_then(|p| routing_name(method, p));
        if let Some(name) = name {
            put("mcp-name", &header_value(name));
        }
        if method == "tools/call"
            && let (Some(tool), Some(args)) =
                (name, params.as_ref().and_then(|p| p.get("arguments")))
        {
            let wanted = lock(&state.param_headers).get(tool).cloned();
            for (header, arg) in wanted.unwrap_or_default() {
                let value = match args.get(&arg) {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Null) | None => continue,
                    Some(other) => other.to_string(),
                };
                put(&format!("mcp-param-{header}"), &header_value(&value));
            }
        }
    }
    headers
}

/// What `Mcp-Name` carries for a request (SEP-2243, SEP-2663): the task id for `tasks/get`,
/// `tasks/update` and `tasks/cancel`, else the `name` (tool, prompt) or `uri` (resource).
pub(crate) fn routing_name<'a>(method: &str, params: &'a Value) -> Option<&'a str> {
    match method {
        "tasks/get" | "tasks/update" | "tasks/cancel" => params.get("taskId"),
        _ => params.get("name").or_else(|| params.get("uri")),
    }
    .and_then(Value::as_str)
}

/// `value` as a header value: as is when it is visible ASCII without leading or trailing
/// spaces, else `=?base64?{standard base64 of its UTF-8}?=`.
pub fn header_value(value: &str) -> String {
    let visible = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let looks_encoded = value.starts_with("=?") && value.ends_with("?=");
    let plain = visible && !padded && !looks_encoded;
    if plain {
        value.to_string()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

/// The text a header value stands for, decoding the `=?base64?...?=` form.
pub fn decode_header_value(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(b64) => base64::engine::general_purpose::STANDARD
            .decode(b64)
            .ok()
            .and_then(|b| String::from_utf8(b).ok()),
        None => Some(value.to_string()),
    }
}

/// Which arguments of which tools travel as `Mcp-Param-{H}` headers, from a `tools/list`
/// result: tool → [(H, argument)], from `x-mcp-header` in each input schema.
pub(crate) fn param_headers(result: &Value) -> Vec<(String, Vec<(String, String)>)> {
    let Some(tools) = result.get("tools").and_then(Value::as_array) else {
        return Vec::new();
    };
    tools
        .iter()
        .filter_map(|tool| {
            let name = tool.get("name")?.as_str()?;
            let props = tool.pointer("/inputSchema/properties")?.as_object()?;
            let headers: Vec<(String, String)> = props
                .iter()
                .filter_map(|(arg, schema)| {
                    let h = schema.get("x-mcp-header")?.as_str()?;
                    Some((h.to_string(), arg.clone()))
                })
                .collect();
            (!headers.is_empty()).then(|| (name.to_string(), headers))
        })
        .collect()
}

/// Records which arguments of which tools travel as headers (from a `tools/list` result).
fn learn_param_headers(state: &State, result: &Value) {
    lock(&state.param_headers).extend(param_headers(result));
}

/// POSTs one message and relays what comes back.
async fn post(state: Arc<State>, msg: String) {
    let (id, method) = match Envelope::parse(&msg) {
        Ok(env) => (
            if env.method.is_some() {
                env.id_key().map(str::to_string)
            } else {
                None
            },
            env.method.as_deref().map(str::to_string),
        ),
        Err(_) => (None, None),
    };
    let fail = |why: String| {
        tracing::warn!(server = state.name, "{why}");
        if let Some(id) = &id {
            let _ = state.out.send(envelope::error_response(
                Some(id),
                UPSTREAM_ERROR,
                &format!("mcp-veil: upstream `{}` {why}", state.name),
            ));
        }
    };
    let request = state
        .client
        .post(state.url.clone())
        .headers(request_headers(&state, &msg))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(msg.clone());
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) => return fail(format!("is unreachable ({})", e.without_url())),
    };
    let status = response.status();
    if method.as_deref() == Some("initialize")
        && let Some(s) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
    {
        *lock(&state.session) = Some(s.to_string());
    }
    if status == reqwest::StatusCode::ACCEPTED || (id.is_none() && status.is_success()) {
        return;
    }
    if !status.is_success() {
        // A stateless request's refusal is a JSON-RPC error in the body (400 for a version the
        // server does not speak, 404 for a method it lacks): passed on as the answer.
        if id.is_some()
            && super::stateless::line_version(&msg).is_some()
            && let Ok(text) = response.text().await
            && Envelope::parse(text.trim())
                .is_ok_and(|e| e.method.is_none() && e.id_key() == id.as_deref())
            && deliver(&state, id.as_deref(), method.as_deref(), text)
        {
            return;
        }
        return fail(format!("answered HTTP {}", status.as_u16()));
    }
    let is_sse = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let mut answered = false;
    if is_sse {
        let mut resume = Resume::default();
        answered = read_events(
            &state,
            response,
            &mut resume,
            id.as_deref(),
            method.as_deref(),
        )
        .await;
        // The server closed the stream before answering: when it numbered its events, resume
        // the stream with `Last-Event-ID` (a GET), as often as it keeps making progress.
        let mut attempts = 0;
        while !answered && id.is_some() && attempts < MAX_RESUME_ATTEMPTS {
            let Some(last) = resume.last_id.clone() else {
                break;
            };
            attempts += 1;
            tokio::time::sleep(resume.delay()).await;
            let resumed = state
                .client
                .get(state.url.clone())
                .headers(request_headers(&state, ""))
                .header("accept", "text/event-stream")
                .header("last-event-id", last.as_str())
                .send()
                .await;
            let resumed = match resumed {
                Ok(r) if r.status().is_success() => r,
                Ok(r) => {
                    return fail(format!(
                        "answered HTTP {} when its stream was resumed",
                        r.status().as_u16()
                    ));
                }
                Err(e) => {
                    tracing::debug!(server = state.name, "resuming failed ({})", e.without_url());
                    continue;
                }
            };
            answered = read_events(
                &state,
                resumed,
                &mut resume,
                id.as_deref(),
                method.as_deref(),
            )
            .await;
            if resume.last_id.as_deref() != Some(last.as_str()) {
                attempts = 0;
            }
        }
    } else {
        // One JSON message, or several one after the other (a stateless server streams a
        // `subscriptions/listen` as newline-delimited JSON): each is passed on once complete.
        let mut body = response.bytes_stream();
        let mut pending: Vec<u8> = Vec::new();
        loop {
            let chunk = match body.next().await {
                Some(Ok(c)) => c,
                Some(Err(e)) => return fail(format!("broke off its answer ({})", e.without_url())),
                None => break,
            };
            pending.extend_from_slice(&chunk);
            if pending.len() > MAX_JSON_BODY {
                return fail("sent a JSON body that is too large".to_string());
            }
            let (messages, used) = complete_json_values(&pending);
            pending.drain(..used);
            for m in messages {
                answered |= deliver(&state, id.as_deref(), method.as_deref(), m);
            }
        }
        if !pending.iter().all(u8::is_ascii_whitespace) {
            // What is left is not JSON: passed on as it is (the interceptor refuses it).
            let rest = String::from_utf8_lossy(&pending).into_owned();
            answered |= deliver(&state, id.as_deref(), method.as_deref(), rest);
        }
    }
    if !answered {
        fail("closed the connection before answering".to_string());
    }
}

/// The largest JSON body (or unfinished JSON message of a streamed one) read from a server.
const MAX_JSON_BODY: usize = 64 << 20;

/// The complete JSON values at the start of `bytes`, and how many bytes they took (an
/// unfinished last value is left for more bytes to finish).
fn complete_json_values(bytes: &[u8]) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut values = serde_json::Deserializer::from_slice(bytes).into_iter::<&RawValue>();
    let mut used = 0;
    loop {
        match values.next() {
            Some(Ok(v)) => {
                out.push(v.get().to_string());
                used = values.byte_offset();
            }
            Some(Err(e)) if e.is_eof() => break,
            // Not JSON: everything from here is left as it is.
            Some(Err(_)) | None => break,
        }
    }
    (out, used)
}

/// Passes one message from the server to the gateway; true when it answers `id`.
fn deliver(state: &State, id: Option<&str>, method: Option<&str>, text: String) -> bool {
    // One line: the gateway reads newline-delimited messages (an SSE event's data lines, a
    // pretty-printed JSON body).
    let text = one_line(&text);
    let mut answers = false;
    if let Ok(env) = Envelope::parse(&text)
        && env.method.is_none()
    {
        answers = id.is_some() && env.id_key() == id;
        if answers
            && method == Some("initialize")
            && let Some(result) = env.result
            && let Ok(v) = serde_json::from_str::<Value>(result.get())
            && let Some(version) = v.get("protocolVersion").and_then(Value::as_str)
        {
            *lock(&state.version) = Some(version.to_string());
        }
        if answers
            && method == Some("tools/list")
            && let Some(result) = env.result
            && let Ok(v) = serde_json::from_str::<Value>(result.get())
        {
            learn_param_headers(state, &v);
        }
    }
    let _ = state.out.send(text);
    answers
}

/// Where a stream got to: the last event id and `retry` the server sent, for resuming it with
/// `Last-Event-ID`.
#[derive(Debug, Default)]
struct Resume {
    last_id: Option<String>,
    retry: Option<Duration>,
    /// Events with data seen.
    messages: u64,
}

impl Resume {
    /// Notes an event's id (also of an event without data, such as the priming event a
    /// resumable server sends first) and `retry`.
    fn see(&mut self, event: &sse_stream::Sse) {
        if let Some(id) = &event.id {
            self.last_id = Some(id.clone()).filter(|id| !id.is_empty());
        }
        if let Some(ms) = event.retry {
            self.retry = Some(Duration::from_millis(ms));
        }
        if event.data.as_deref().is_some_and(|d| !d.trim().is_empty()) {
            self.messages += 1;
        }
    }

    /// How long to wait before reconnecting.
    fn delay(&self) -> Duration {
        self.retry.unwrap_or(DEFAULT_RETRY).min(MAX_RETRY)
    }
}

/// Reads one SSE body, delivering each event with data; true when one of them answers `id`.
async fn read_events(
    state: &State,
    response: reqwest::Response,
    resume: &mut Resume,
    id: Option<&str>,
    method: Option<&str>,
) -> bool {
    let mut answered = false;
    let mut events = std::pin::pin!(events(response.bytes_stream()));
    while let Some(event) = events.next().await {
        resume.see(&event);
        if let Some(data) = event.data.filter(|d| !d.trim().is_empty()) {
            answered |= deliver(state, id, method, data);
        }
    }
    answered
}

/// The server's own stream (GET), until the upstream is closed. A server may close it at any
/// time (SSE polling); it is reopened after the server's `retry` delay, with `Last-Event-ID`
/// when the server numbered its events. A server that refuses it (405: it has none) or fails
/// to open it several times in a row is not asked again.
async fn listen(state: Arc<State>) {
    let mut resume = Resume::default();
    let mut failures = 0;
    loop {
        let mut request = state
            .client
            .get(state.url.clone())
            .headers(request_headers(&state, ""))
            .header("accept", "text/event-stream");
        if let Some(last) = &resume.last_id {
            request = request.header("last-event-id", last.as_str());
        }
        match request.send().await {
            Ok(r) if r.status() == reqwest::StatusCode::METHOD_NOT_ALLOWED => return,
            Ok(r) if r.status().is_success() => {
                // A stream that carried nothing counts as a failure, so a server that closes
                // every GET at once is not polled for ever.
                let (id_before, messages_before) = (resume.last_id.clone(), resume.messages);
                read_events(&state, r, &mut resume, None, None).await;
                let progressed = resume.messages > messages_before
                    || (resume.last_id.is_some() && resume.last_id != id_before);
                failures = if progressed { 0 } else { failures + 1 };
            }
            _ => failures += 1,
        }
        if failures >= MAX_RESUME_ATTEMPTS {
            return;
        }
        tokio::time::sleep(resume.delay() * (failures + 1)).await;
    }
}

/// Each event of an SSE body, as it arrives.
///
/// Framing is `sse_stream`'s (the parser rmcp uses): `data:` lines of one event joined with
/// `\n`, comments skipped, `event:`, `id:` and `retry:` read, CR, LF and CRLF line ends. A
/// line the parser refuses costs the rest of its chunk, never the stream.
fn events<S, E>(body: S) -> impl futures::Stream<Item = sse_stream::Sse>
where
    S: futures::Stream<Item = Result<bytes::Bytes, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    SseStream::from_bytes_stream(body).filter_map(|event| async move {
        match event {
            Ok(event) => Some(event),
            Err(e) => {
                tracing::debug!("skipped a malformed event-stream line: {e}");
                None
            }
        }
    })
}

/// The `data` of each event of an SSE body that has some, as it arrives.
#[cfg(test)]
fn event_data<S, E>(body: S) -> impl futures::Stream<Item = String>
where
    S: futures::Stream<Item = Result<bytes::Bytes, E>>,
    E: std::error::Error + Send + Sync + 'static,
{
    events(body).filter_map(|event| async move { event.data.filter(|d| !d.trim().is_empty()) })
}

/// `text` on one line: JSON allows line breaks only between tokens, where a space is the same.
fn one_line(text: &str) -> String {
    let text = text.trim();
    if text.contains(['\n', '\r']) {
        text.replace(['\n', '\r'], " ")
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_bodies_are_split_into_complete_messages() {
        let (v, used) = complete_json_values(b"{\"a\":1}\n{\"b\": [2]}\n{\"c\"");
        assert_eq!(
            v,
            vec![r#"{"a":1}"#.to_string(), r#"{"b": [2]}"#.to_string()]
        );
        assert_eq!(used, 18);
        let (v, used) = complete_json_values(b"{\n  \"pretty\": true\n}\n");
        assert_eq!((v.len(), used), (1, 20));
        let (v, used) = complete_json_values(b"not json");
        assert_eq!((v.len(), used), (0, 0));
    }

    #[test]
    fn sse_events_follow_the_spec() {
        let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = [
            &b"event: message\r\nid: 1\r\nretry: 10\r\ndata: {\"a\""[..],
            b":1}\r\n\r\n: comment\n\ndata: {\"b\":\ndata: [1,\ndata: 2]}\n\n",
            b"data:{}\r\rid: 3\n\n",
        ]
        .into_iter()
        .map(|c| Ok(bytes::Bytes::from_static(c)))
        .collect();
        let got: Vec<String> =
            futures::executor::block_on(event_data(futures::stream::iter(chunks)).collect());
        assert_eq!(got, vec!["{\"a\":1}", "{\"b\":\n[1,\n2]}", "{}"]);
        assert_eq!(one_line(&got[1]), "{\"b\": [1, 2]}");
    }

    #[test]
    fn sse_ids_and_retry_are_remembered() {
        let chunks: Vec<Result<bytes::Bytes, std::io::Error>> = [
            // A priming event: an id and empty data.
            &b"id: s1::0\nretry: 250\ndata: \n\n"[..],
            b"id: s1::1\ndata: {}\n\n",
            b"data: x\n\n",
        ]
        .into_iter()
        .map(|c| Ok(bytes::Bytes::from_static(c)))
        .collect();
        let got: Vec<sse_stream::Sse> =
            futures::executor::block_on(events(futures::stream::iter(chunks)).collect());
        let mut resume = Resume::default();
        resume.see(&got[0]);
        assert_eq!(resume.last_id.as_deref(), Some("s1::0"));
        assert_eq!(resume.delay(), Duration::from_millis(250));
        resume.see(&got[1]);
        assert_eq!(resume.last_id.as_deref(), Some("s1::1"));
        // An event without an id keeps the last one.
        resume.see(&got[2]);
        assert_eq!(resume.last_id.as_deref(), Some("s1::1"));
    }

    #[test]
    fn mcp_name_is_the_task_id_on_tasks_methods() {
        let p = serde_json::json!({"taskId": "ref__t1", "name": "x"});
        assert_eq!(routing_name("tasks/get", &p), Some("ref__t1"));
        assert_eq!(routing_name("tasks/cancel", &p), Some("ref__t1"));
        assert_eq!(routing_name("tools/call", &p), Some("x"));
        let p = serde_json::json!({"uri": "test://a"});
        assert_eq!(routing_name("resources/read", &p), Some("test://a"));
        assert_eq!(routing_name("tasks/update", &p), None);
    }

    #[test]
    fn header_values_use_base64_when_needed() {
        assert_eq!(header_value("us-west"), "us-west");
        let encoded = header_value("Zoë Ortiz");
        assert!(encoded.starts_with("=?base64?"), "{encoded}");
        assert_eq!(decode_header_value(&encoded).unwrap(), "Zoë Ortiz");
        assert_eq!(decode_header_value("plain").unwrap(), "plain");
        assert!(header_value(" x").starts_with("=?base64?"));
    }
}
