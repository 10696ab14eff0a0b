//! A minimal streamable-HTTP MCP server for tests and the load bench: stateless, JSON answers.
//!
//! Tools: `echo {text, session?, k?}` returns `text` (and checks, when `session` and `k` are
//! given, that `text` is the value that session's k-th value should restore to:
//! `EMP-{session:04}{k:04}`), `hang` never answers, `crash` starts an event stream and breaks
//! the connection. It counts calls, checked restorations, mismatches and cancellations.

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
            post(handle)
                .get(|| async { StatusCode::METHOD_NOT_ALLOWED })
                .delete(|| async { StatusCode::OK }),
        )
        .with_state(echo);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/mcp")
}

fn json_response(id: &Value, result: Value) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn handle(State(echo): State<Arc<Echo>>, body: Bytes) -> Response {
    let Ok(msg) = serde_json::from_slice::<Value>(&body) else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let Some(id) = msg.get("id").filter(|_| !method.is_empty()) else {
        if method == "notifications/cancelled" {
            echo.cancelled.fetch_add(1, Ordering::Relaxed);
        }
        return StatusCode::ACCEPTED.into_response();
    };
    match method {
        "initialize" => json_response(
            id,
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "http-echo", "version": "1"}}),
        ),
        "tools/list" => {
            let schema = json!({"type": "object"});
            json_response(
                id,
                json!({"tools": [
                    {"name": "echo", "inputSchema": schema},
                    {"name": "hang", "inputSchema": schema},
                    {"name": "crash", "inputSchema": schema},
                ]}),
            )
        }
        "tools/call" => {
            echo.calls.fetch_add(1, Ordering::Relaxed);
            let name = msg.pointer("/params/name").and_then(Value::as_str);
            let args = msg
                .pointer("/params/arguments")
                .cloned()
                .unwrap_or(json!({}));
            match name {
                Some("hang") => {
                    futures::future::pending::<()>().await;
                    StatusCode::OK.into_response()
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
