//! Resumable streams and terminated sessions through `mcp-veil serve`:
//! - a `url:` upstream that closes its stream mid-call (SSE polling) is resumed with
//!   `Last-Event-ID`, and the answer reaches the client tokenized;
//! - a client that lost its POST stream resumes it with `GET` + `Last-Event-ID`: it gets what
//!   was sent while it was away (tokenized), the request is not cancelled upstream;
//! - a session ended with `DELETE` on one replica is refused (404) on another sharing the
//!   Redis vault;
//! - a client that lost its stream on one replica resumes it on another with `Last-Event-ID`
//!   (events from the shared vault), and an id nobody kept is refused (409).
//!
//! Needs `redis-server` (`.ci/install-redis.sh`).

mod common;
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use futures::StreamExt;
use serde_json::{Value, json};
use support::http_echo::{self, Echo};
use support::load::Client;
use support::redis_server::RedisServer;
use support::serve::Replica;

const DETECT: &str = "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{8}'\n";
const KEY: &str = "8f3c0d2a9b7e6f5a4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c";

fn init() -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {},
           "clientInfo": {"name": "resume", "version": "1"}})
}

/// One SSE event: its id (if any) and its data.
#[derive(Debug)]
struct Event {
    id: Option<String>,
    data: String,
    raw: String,
}

/// Reads the next event from `body` (None when the stream ends).
async fn next_event(
    body: &mut (impl futures::Stream<Item = reqwest::Result<axum::body::Bytes>> + Unpin),
    buf: &mut String,
) -> Option<Event> {
    loop {
        if let Some(at) = buf.find("\n\n") {
            let raw: String = buf.drain(..at + 2).collect();
            let mut event = Event {
                id: None,
                data: String::new(),
                raw: raw.clone(),
            };
            let mut fields = 0;
            for line in raw.lines() {
                if let Some(v) = line.strip_prefix("id:") {
                    event.id = Some(v.trim_start().to_string());
                    fields += 1;
                } else if let Some(v) = line.strip_prefix("data:") {
                    event.data.push_str(v.strip_prefix(' ').unwrap_or(v));
                    fields += 1;
                }
            }
            if fields == 0 {
                continue; // a keep-alive comment
            }
            return Some(event);
        }
        let chunk = tokio::time::timeout(Duration::from_secs(10), body.next())
            .await
            .expect("an event in time")?
            .ok()?;
        buf.push_str(&String::from_utf8_lossy(&chunk).replace("\r\n", "\n"));
    }
}

/// Two replicas of `serve` sharing one Redis vault and session secret, in front of one HTTP
/// echo upstream; the Redis server and the folder live as long as the returned values.
async fn two_replicas() -> (RedisServer, tempfile::TempDir, Arc<Echo>, Replica, Replica) {
    let redis = RedisServer::start();
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let vault = format!("vault:\n  backend: redis\n  url: {}\n", redis.url());
    let config = serve_config(dir.path(), &upstream, &vault);
    let env = [
        ("MCP_VEIL_VAULT_KEY", KEY),
        ("MCP_VEIL_SESSION_SECRET", "replicas-share-this-secret"),
    ];
    let a = Replica::start(&veil(), &config, &env);
    let b = Replica::start(&veil(), &config, &env);
    (redis, dir, echo, a, b)
}

fn serve_config(dir: &std::path::Path, upstream: &str, vault: &str) -> std::path::PathBuf {
    let yaml = format!("{DETECT}{vault}servers:\n  up:\n    url: {upstream}\n");
    write_config(dir, &yaml)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_stream_closed_mid_call_is_resumed() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let replica = Replica::start(&veil(), &serve_config(dir.path(), &upstream, ""), &[]);
    let mut client = Client::new(reqwest::Client::new());
    client
        .request(&replica.url, "initialize", init())
        .await
        .unwrap();
    let answer = client
        .request(
            &replica.url,
            "tools/call",
            json!({"name": "up__polling", "arguments": {}}),
        )
        .await
        .unwrap();
    let text = answer
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("a result: {answer}"));
    // `[EMPLOYEE_ID_1]` is the value in the log event before the stream closed.
    assert_eq!(text, "polled [EMPLOYEE_ID_2]", "{answer}");
    assert_eq!(echo.resumed.load(Ordering::Relaxed), 1);
    assert!(!replica.stderr().contains("EMP-"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_resumes_its_stream_with_last_event_id() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let replica = Replica::start(&veil(), &serve_config(dir.path(), &upstream, ""), &[]);
    let http = reqwest::Client::new();
    let mut client = Client::new(http.clone());
    client
        .request(&replica.url, "initialize", init())
        .await
        .unwrap();
    let sid = client.session().unwrap().to_string();

    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "up__stream", "arguments": {}}});
    let response = http
        .post(&replica.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut body = response.bytes_stream();
    let mut buf = String::new();
    // First a priming event: an id and no message.
    let priming = next_event(&mut body, &mut buf).await.unwrap();
    assert!(
        priming.id.is_some() && priming.data.is_empty(),
        "{priming:?}"
    );
    assert!(priming.raw.contains("retry:"), "{priming:?}");
    // The upstream's log event, tokenized, with an id.
    let log = next_event(&mut body, &mut buf).await.unwrap();
    assert!(log.data.contains("working on [EMPLOYEE_ID_1]"), "{log:?}");
    let last = log.id.clone().expect("the event has an id");
    // The client loses the connection; the upstream answers meanwhile.
    drop(body);
    tokio::time::sleep(Duration::from_millis(200)).await;
    echo.release.notify_one();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        echo.cancelled.load(Ordering::Relaxed),
        0,
        "a client that can resume is not taken as gone"
    );

    let resumed = http
        .get(&replica.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", &last)
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    let mut body = resumed.bytes_stream();
    let mut buf = String::new();
    let answer = next_event(&mut body, &mut buf).await.unwrap();
    let message: Value = serde_json::from_str(&answer.data).unwrap();
    assert_eq!(message["id"], 7, "{message}");
    assert_eq!(
        message.pointer("/result/content/0/text"),
        Some(&json!("done"))
    );
    assert_ne!(answer.id, Some(last.clone()));
    // Every request of that stream is answered: the resumed stream ends.
    assert!(next_event(&mut body, &mut buf).await.is_none());

    // An id this replica never gave opens a plain GET stream (nothing replayed).
    let unknown = http
        .get(&replica.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("last-event-id", "nobody.1.1")
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 200);
    drop(unknown);

    let metrics = http
        .get(format!("{}/metrics", replica.base()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("mcp_veil_streams_resumed_total 1"),
        "{metrics}"
    );
    assert!(!replica.stderr().contains("EMP-"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_session_is_refused_on_every_replica() {
    let (_redis, _dir, _echo, a, b) = two_replicas().await;
    let http = reqwest::Client::new();
    let mut client = Client::new(http.clone());
    client.request(&a.url, "initialize", init()).await.unwrap();
    let sid = client.session().unwrap().to_string();
    // The session works on both replicas.
    for url in [&a.url, &b.url] {
        let ok = client
            .request(
                url,
                "tools/call",
                json!({"name": "up__echo", "arguments": {"text": "EMP-12345678"}}),
            )
            .await
            .unwrap();
        assert_eq!(
            ok.pointer("/result/content/0/text"),
            Some(&json!("[EMPLOYEE_ID_1]")),
            "{ok}"
        );
    }
    let deleted = http
        .delete(&a.url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    // Replica B still holds the session's upstreams, but refuses the id now.
    let post = client
        .request(&b.url, "tools/list", json!({}))
        .await
        .unwrap_err();
    assert!(post.contains("404"), "{post}");
    let get = http
        .get(&b.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 404);
    let again = http
        .delete(&b.url)
        .header("mcp-session-id", &sid)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 404);
    // A new session works.
    let mut fresh = Client::new(http.clone());
    fresh.request(&b.url, "initialize", init()).await.unwrap();
    fresh
        .request(&a.url, "tools/list", json!({}))
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_resumes_on_another_replica_from_the_shared_vault() {
    let (_redis, _dir, echo, a, b) = two_replicas().await;
    let http = reqwest::Client::new();
    let mut client = Client::new(http.clone());
    client.request(&a.url, "initialize", init()).await.unwrap();
    let sid = client.session().unwrap().to_string();

    // A call on replica A, answered as a stream; the client reads the log event and goes.
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "up__stream", "arguments": {}}});
    let response = http
        .post(&a.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .body(call.to_string())
        .send()
        .await
        .unwrap();
    let mut body = response.bytes_stream();
    let mut buf = String::new();
    let priming = next_event(&mut body, &mut buf).await.unwrap();
    assert!(priming.data.is_empty(), "{priming:?}");
    let log = next_event(&mut body, &mut buf).await.unwrap();
    assert!(log.data.contains("working on [EMPLOYEE_ID_1]"), "{log:?}");
    let last = log.id.clone().expect("an id");
    drop(body);

    // It reconnects to replica B, which replays from the shared vault what A sends from now.
    let resumed = http
        .get(&b.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", &last)
        .send()
        .await
        .unwrap();
    assert_eq!(resumed.status(), 200);
    let mut body = resumed.bytes_stream();
    let mut buf = String::new();
    tokio::time::sleep(Duration::from_millis(300)).await;
    echo.release.notify_one();
    let answer = next_event(&mut body, &mut buf).await.unwrap();
    let message: Value = serde_json::from_str(&answer.data).unwrap();
    assert_eq!(message["id"], 7, "{message}");
    assert_eq!(
        message.pointer("/result/content/0/text"),
        Some(&json!("done"))
    );
    // The event keeps A's id (the client may resume again anywhere).
    let (prefix, _) = last.rsplit_once('.').unwrap();
    let id = answer.id.clone().unwrap();
    assert!(id.starts_with(&format!("{prefix}.")), "{id} after {last}");
    assert_ne!(id, last);
    // The call is answered: the stream ends.
    assert!(next_event(&mut body, &mut buf).await.is_none());

    // Resuming again after that id replays nothing and ends at once.
    let again = http
        .get(&b.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("last-event-id", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    let mut body = again.bytes_stream();
    let mut buf = String::new();
    assert!(next_event(&mut body, &mut buf).await.is_none());

    // A stream nobody kept is refused clearly, not opened empty.
    let unknown = http
        .get(&b.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &sid)
        .header("last-event-id", "0123abcd.5.3")
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 409);
    let text = unknown.text().await.unwrap();
    assert!(text.contains("cannot be replayed"), "{text}");
    for r in [&a, &b] {
        assert!(!r.stderr().contains("EMP-"));
    }
}
