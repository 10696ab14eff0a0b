//! SSE through `mcp-veil serve` is relayed event by event: an upstream's first event (a log
//! message holding a raw value) reaches the client, tokenized, while the upstream is still
//! holding back its result; nothing waits for the whole stream.

mod common;
mod support;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use futures::StreamExt;
use serde_json::{Value, json};
use support::http_echo::{self, Echo};
use support::serve::Replica;

/// Reads SSE events' data from `body` until one contains `needle`.
async fn until(
    body: &mut (impl futures::Stream<Item = reqwest::Result<axum::body::Bytes>> + Unpin),
    buf: &mut String,
    needle: &str,
) -> String {
    loop {
        if let Some(at) = buf.find("\n\n") {
            let event: String = buf.drain(..at + 2).collect();
            if event.contains(needle) {
                return event;
            }
            continue;
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), body.next())
            .await
            .expect("an event in time")
            .expect("the stream goes on")
            .unwrap();
        buf.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_are_relayed_and_tokenized_as_they_arrive() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         servers:\n  up:\n    url: {upstream}\n"
    );
    let replica = Replica::start(&veil(), &write_config(dir.path(), &yaml), &[]);
    let http = reqwest::Client::new();
    let post = |body: Value, sid: Option<&str>| {
        let mut req = http
            .post(&replica.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(s) = sid {
            req = req.header("mcp-session-id", s);
        }
        req.send()
    };
    let init = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        None,
    )
    .await
    .unwrap();
    let sid = init.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    drop(init);

    let response = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "up__stream", "arguments": {}}}),
        Some(&sid),
    )
    .await
    .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.bytes_stream();
    let mut buf = String::new();
    // The log event arrives while the upstream still holds its result back.
    let log = until(&mut body, &mut buf, "notifications/message").await;
    assert!(log.contains("working on [EMPLOYEE_ID_1]"), "{log}");
    assert!(!log.contains("EMP-0099"));
    echo.release.notify_one();
    let result = until(&mut body, &mut buf, "\"id\":2").await;
    assert!(result.contains("done"), "{result}");
}

/// Issue 17: an SSE event whose data spans several `data:` lines (with a comment, `retry:` and
/// `id:` around it) from a `url:` upstream is one message: answered and tokenized, not dropped
/// until the timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_line_event_from_a_url_upstream_is_one_message() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         servers:\n  up:\n    url: {upstream}\n"
    );
    let replica = Replica::start(&veil(), &write_config(dir.path(), &yaml), &[]);
    let http = reqwest::Client::new();
    let post = |body: Value, sid: Option<&str>| {
        let mut req = http
            .post(&replica.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        if let Some(s) = sid {
            req = req.header("mcp-session-id", s);
        }
        req.send()
    };
    let init = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        None,
    )
    .await
    .unwrap();
    let sid = init.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_string();
    drop(init);
    for id in [2, 3] {
        let response = post(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "up__multiline", "arguments": {}}}),
            Some(&sid),
        )
        .await
        .unwrap();
        // One JSON answer or an SSE stream: either way the whole body, in time.
        let answer = tokio::time::timeout(Duration::from_secs(10), response.text())
            .await
            .expect("answered, not dropped")
            .unwrap();
        assert!(
            answer.replace(' ', "").contains(&format!("\"id\":{id},")),
            "{answer}"
        );
        assert!(answer.contains("multi [EMPLOYEE_ID_1]"), "{answer}");
        assert!(!answer.contains("EMP-0099"), "{answer}");
    }
}
