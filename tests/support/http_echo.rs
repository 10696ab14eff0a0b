//! A minimal streamable-HTTP MCP server for tests and the load bench: stateless, JSON answers.
//!
//! Tools: `echo {text, session?, k?}` returns `text` (and checks, when `session` and `k` are
//! given, that `text` is the value that session's k-th value should restore to:
//! `EMP-{session:04}{k:04}`), `hang` never answers, `crash` starts an event stream and breaks
//! the connection, `stream` sends a log event holding a raw value and its result only after
//! [`Echo::release`], `multiline` answers with one SSE event whose data spans several `data:`
//! lines (holding a raw value), `polling` sends a priming event and a log event (both with ids)
//! and closes its stream before answering: the answer (holding a raw value) comes only on a
//! `GET` resuming it with `Last-Event-ID` (SSE polling), `change` makes an open
//! `subscriptions/listen` stream send its notifications. It counts calls, checked
//! restorations, mismatches, cancellations and resumptions.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// What the server saw.
#[derive(Debug, Default)]
pub(crate) struct Echo {
    /// `tools/call` requests.
    pub(crate) calls: AtomicU64,
    /// `echo` calls whose text was the session's own value.
    pub(crate) restored: AtomicU64,
    /// `echo` calls whose text was not (a value of another session, a token, anything else).
    pub(crate) mismatches: AtomicU64,
    /// `notifications/cancelled` received.
    pub(crate) cancelled: AtomicU64,
    /// `echo` calls whose `Mcp-Name` and `Mcp-Param-Text` headers matched the body.
    pub(crate) headers_consistent: AtomicU64,
    /// `echo` calls whose headers were missing or disagreed with the body.
    pub(crate) headers_inconsistent: AtomicU64,
    /// Requests carrying `Authorization: Bearer upstream-secret`.
    pub(crate) authorized: AtomicU64,
    /// Lets a `stream` call send its result (after its first event).
    pub(crate) release: tokio::sync::Notify,
    /// `polling` answers not fetched yet: last event id → the answer.
    polled: std::sync::Mutex<std::collections::HashMap<String, String>>,
    /// `polling` answers fetched with `Last-Event-ID`.
    pub(crate) resumed: AtomicU64,
    /// `notifications/initialized` received.
    pub(crate) initialized: std::sync::atomic::AtomicBool,
    /// Requests (other than `initialize`) received before `notifications/initialized`.
    pub(crate) early: AtomicU64,
    /// The protocol versions `initialize` asked for.
    pub(crate) versions: std::sync::Mutex<Vec<String>>,
    /// `initialize` requests declaring the `roots` capability.
    pub(crate) roots_declared: AtomicU64,
    /// Stateless (2026-07-28) requests: `MCP-Protocol-Version: 2026-07-28`, the same version in
    /// `_meta`, and no `Mcp-Session-Id`.
    pub(crate) stateless: AtomicU64,
    /// The `taskId`s `tasks/*` requests named (it makes one task, `task-1`, for a `tools/call`
    /// with `task`).
    pub(crate) task_requests: std::sync::Mutex<Vec<String>>,
    /// Answer `server/discover` with "method not found", as a session-era server does.
    pub(crate) no_discover: std::sync::atomic::AtomicBool,
    /// Requests whose `_meta` carried a stateless protocol version (`io.modelcontextprotocol/`
    /// keys), whatever their headers.
    pub(crate) lifecycle_meta: AtomicU64,
    /// Announce resources (`resources: {subscribe: true}`) in `server/discover`.
    pub(crate) with_resources: std::sync::atomic::AtomicBool,
    /// The filters (`notifications`) of the `subscriptions/listen` requests received.
    pub(crate) listens: std::sync::Mutex<Vec<Value>>,
    /// A `change` call: each open listen sends `notifications/tools/list_changed` and, when it
    /// asked for resources, `notifications/resources/updated` for its first URI.
    pub(crate) change: tokio::sync::Notify,
}

/// The text a header value stands for (`=?base64?...?=` decoded).
fn header_text(value: &str) -> Option<String> {
    use base64::Engine as _;
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

/// The value the `k`-th token of session `s` stands for.
pub(crate) fn value(s: u64, k: u64) -> String {
    format!("EMP-{s:04}{k:04}")
}

/// Serves on a free loopback port; returns the MCP URL.
pub(crate) async fn start(echo: Arc<Echo>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Router::new()
        .route(
            "/mcp",
            post(handle).get(resume).delete(|| async { StatusCode::OK }),
        )
        .with_state(echo);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/mcp")
}

/// `GET`: only a `polling` stream resumed with `Last-Event-ID` (no stream of its own: 405).
async fn resume(State(echo): State<Arc<Echo>>, headers: axum::http::HeaderMap) -> Response {
    let last = headers.get("last-event-id").and_then(|v| v.to_str().ok());
    let answer = last.and_then(|id| echo.polled.lock().unwrap().remove(id));
    match answer {
        Some(answer) => {
            echo.resumed.fetch_add(1, Ordering::Relaxed);
            let id = format!("{}-end", last.unwrap_or_default());
            (
                [(header::CONTENT_TYPE, "text/event-stream")],
                format!("id: {id}\nevent: message\ndata: {answer}\n\n"),
            )
                .into_response()
        }
        None => StatusCode::METHOD_NOT_ALLOWED.into_response(),
    }
}

fn json_response(id: &Value, result: Value) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn handle(
    State(echo): State<Arc<Echo>>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    if headers.get("authorization").and_then(|v| v.to_str().ok()) == Some("Bearer upstream-secret")
    {
        echo.authorized.fetch_add(1, Ordering::Relaxed);
    }
    let Ok(msg) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let stateless = msg
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        == Some("2026-07-28");
    if stateless {
        echo.lifecycle_meta.fetch_add(1, Ordering::Relaxed);
    }
    if stateless
        && headers
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok())
            == Some("2026-07-28")
        && !headers.contains_key("mcp-session-id")
    {
        echo.stateless.fetch_add(1, Ordering::Relaxed);
    }
    let Some(id) = msg.get("id").filter(|_| !method.is_empty()) else {
        if method == "notifications/cancelled" {
            echo.cancelled.fetch_add(1, Ordering::Relaxed);
        }
        if method == "notifications/initialized" {
            echo.initialized.store(true, Ordering::Relaxed);
        }
        return StatusCode::ACCEPTED.into_response();
    };
    if method == "initialize" {
        if let Some(v) = msg
            .pointer("/params/protocolVersion")
            .and_then(Value::as_str)
        {
            echo.versions.lock().unwrap().push(v.to_string());
        }
        if msg.pointer("/params/capabilities/roots").is_some() {
            echo.roots_declared.fetch_add(1, Ordering::Relaxed);
        }
    } else if !echo.initialized.load(Ordering::Relaxed) && !stateless {
        echo.early.fetch_add(1, Ordering::Relaxed);
    }
    match method {
        "server/discover" if echo.no_discover.load(Ordering::Relaxed) => {
            let body = json!({"jsonrpc": "2.0", "id": id,
                              "error": {"code": -32601, "message": "Method not found"}});
            (
                StatusCode::NOT_FOUND,
                [(header::CONTENT_TYPE, "application/json")],
                body.to_string(),
            )
                .into_response()
        }
        "server/discover" => {
            let mut capabilities = json!({"tools": {"listChanged": true}});
            if echo.with_resources.load(Ordering::Relaxed) {
                capabilities["resources"] = json!({"subscribe": true});
            }
            json_response(
                id,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": capabilities,
                       "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}),
            )
        }
        // A stream of newline-delimited JSON: the acknowledgement, then what each `change`
        // call triggers, tagged with the listen's id.
        "subscriptions/listen" => {
            let filter = msg
                .pointer("/params/notifications")
                .cloned()
                .unwrap_or(json!({}));
            echo.listens.lock().unwrap().push(filter.clone());
            let tag = match id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let meta = json!({"io.modelcontextprotocol/subscriptionId": tag});
            let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
                             "params": {"_meta": meta, "notifications": filter}});
            let first = futures::stream::once(async move {
                Ok::<_, std::io::Error>(Bytes::from(format!("{ack}\n")))
            });
            let changes = futures::stream::unfold(echo.clone(), move |echo| {
                let meta = meta.clone();
                let filter = filter.clone();
                async move {
                    echo.change.notified().await;
                    let mut out = String::new();
                    if filter["toolsListChanged"] == true {
                        let n = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                                       "params": {"_meta": meta}});
                        out.push_str(&format!("{n}\n"));
                    }
                    if let Some(uri) = filter.pointer("/resourceSubscriptions/0") {
                        let n = json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                                       "params": {"uri": uri, "_meta": meta}});
                        out.push_str(&format!("{n}\n"));
                    }
                    Some((Ok(Bytes::from(out)), echo))
                }
            });
            (
                [(header::CONTENT_TYPE, "application/json")],
                Body::from_stream(futures::StreamExt::chain(first, changes)),
            )
                .into_response()
        }
        "initialize" => json_response(
            id,
            // The version asked for, up to 2025-06-18.
            json!({"protocolVersion": msg.pointer("/params/protocolVersion")
                       .and_then(Value::as_str).unwrap_or("2025-06-18").min("2025-06-18"),
                   "capabilities": {"tools": {}, "tasks": {"list": {}, "cancel": {},
                       "requests": {"tools": {"call": {}}}}},
                   "serverInfo": {"name": "http-echo", "version": "1"}}),
        ),
        "tools/list" => {
            let schema = json!({"type": "object"});
            // `text` travels as the `Mcp-Param-Text` header too (2026-07-28 protocol).
            let echo_schema = json!({"type": "object", "properties": {
                "text": {"type": "string", "x-mcp-header": "Text"}}});
            json_response(
                id,
                json!({"tools": [
                    {"name": "echo", "inputSchema": echo_schema},
                    {"name": "hang", "inputSchema": schema},
                    {"name": "crash", "inputSchema": schema},
                    {"name": "stream", "inputSchema": schema},
                    {"name": "multiline", "inputSchema": schema},
                    {"name": "polling", "inputSchema": schema},
                    {"name": "change", "inputSchema": schema},
                ], "_meta": {"example.com/list": "tools"}, "ttlMs": 30000,
                   "cacheScope": "public"}),
            )
        }
        "tools/call" if msg.pointer("/params/task").is_some() => json_response(
            id,
            json!({"task": {"taskId": "task-1", "status": "working", "ttl": 60000,
                            "createdAt": "2026-01-01T00:00:00Z"}}),
        ),
        "tasks/get" | "tasks/result" | "tasks/cancel" | "tasks/list" | "tasks/update" => {
            if let Some(t) = msg.pointer("/params/taskId").and_then(Value::as_str) {
                echo.task_requests.lock().unwrap().push(t.to_string());
            }
            let task = json!({"taskId": "task-1", "status": "completed", "ttl": 60000,
                              "createdAt": "2026-01-01T00:00:00Z"});
            match method {
                "tasks/list" => json_response(id, json!({"tasks": [task]})),
                "tasks/result" => json_response(
                    id,
                    json!({"content": [{"type": "text", "text": "task done EMP-00990005"}],
                           "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "task-1"}}}),
                ),
                _ => json_response(id, task),
            }
        }
        "tools/call" => {
            echo.calls.fetch_add(1, Ordering::Relaxed);
            let name = msg.pointer("/params/name").and_then(Value::as_str);
            let args = msg
                .pointer("/params/arguments")
                .cloned()
                .unwrap_or(json!({}));
            match name {
                Some("change") => {
                    echo.change.notify_one();
                    json_response(
                        id,
                        json!({"content": [{"type": "text", "text": "changed"}]}),
                    )
                }
                Some("hang") => {
                    futures::future::pending::<()>().await;
                    StatusCode::OK.into_response()
                }
                Some("stream") => {
                    let log = json!({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "working on EMP-00990001"}});
                    let result = json!({"jsonrpc": "2.0", "id": id,
                        "result": {"content": [{"type": "text", "text": "done"}]}});
                    let first = futures::stream::once(async move {
                        Ok::<_, std::io::Error>(Bytes::from(format!(
                            "event: message\ndata: {log}\n\n"
                        )))
                    });
                    let waiter = echo.clone();
                    let last = futures::stream::once(async move {
                        waiter.release.notified().await;
                        Ok(Bytes::from(format!("event: message\ndata: {result}\n\n")))
                    });
                    (
                        [(header::CONTENT_TYPE, "text/event-stream")],
                        Body::from_stream(futures::StreamExt::chain(first, last)),
                    )
                        .into_response()
                }
                Some("polling") => {
                    let n = echo.calls.load(Ordering::Relaxed);
                    let log = json!({"jsonrpc": "2.0", "method": "notifications/message",
                        "params": {"level": "info", "data": "polling for EMP-00990003"}});
                    let result = json!({"jsonrpc": "2.0", "id": id,
                        "result": {"content": [{"type": "text", "text": "polled EMP-00990004"}]}});
                    let last = format!("poll{n}-1");
                    echo.polled
                        .lock()
                        .unwrap()
                        .insert(last.clone(), result.to_string());
                    (
                        [(header::CONTENT_TYPE, "text/event-stream")],
                        format!(
                            "id: poll{n}-0\nretry: 50\ndata: \n\n\
                             id: {last}\nevent: message\ndata: {log}\n\n"
                        ),
                    )
                        .into_response()
                }
                Some("multiline") => {
                    // One event, its data split over several `data:` lines, after a comment
                    // and `retry:`/`id:` fields (all valid SSE).
                    let event = format!(
                        ": keep-alive\nretry: 1000\nid: 7\nevent: message\ndata: {{\"jsonrpc\": \"2.0\",\ndata: \"id\": {id},\ndata: \"result\": {{\"content\": [{{\"type\": \"text\",\ndata:  \"text\": \"multi EMP-00990002\"}}]}}}}\n\n"
                    );
                    (
                        [(header::CONTENT_TYPE, "text/event-stream")],
                        Body::from(event),
                    )
                        .into_response()
                }
                Some("crash") => {
                    let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
                        Ok(Bytes::from_static(b": starting\n\n")),
                        Err(std::io::Error::other("crashed")),
                    ];
                    (
                        [(header::CONTENT_TYPE, "text/event-stream")],
                        Body::from_stream(futures::stream::iter(chunks)),
                    )
                        .into_response()
                }
                _ => {
                    let text = args.get("text").and_then(Value::as_str).unwrap_or("");
                    let header = |h: &str| {
                        headers
                            .get(h)
                            .and_then(|v| v.to_str().ok())
                            .and_then(header_text)
                    };
                    if header("mcp-name").as_deref() == name
                        && header("mcp-param-text").as_deref() == Some(text)
                        && header("mcp-method").as_deref() == Some("tools/call")
                    {
                        echo.headers_consistent.fetch_add(1, Ordering::Relaxed);
                    } else {
                        echo.headers_inconsistent.fetch_add(1, Ordering::Relaxed);
                    }
                    if let (Some(s), Some(k)) = (
                        args.get("session").and_then(Value::as_u64),
                        args.get("k").and_then(Value::as_u64),
                    ) {
                        if text == value(s, k) {
                            echo.restored.fetch_add(1, Ordering::Relaxed);
                        } else {
                            echo.mismatches.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    json_response(id, json!({"content": [{"type": "text", "text": text}]}))
                }
            }
        }
        _ => json_response(id, json!({})),
    }
}
