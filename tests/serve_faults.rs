//! Faults around `mcp-veil serve`: an upstream that hangs (timeout), crashes mid-call (HTTP and
//! stdio), a client that goes away mid-stream, and Redis restarting under load. Each time the
//! gateway stays up, the affected calls get clear errors, nothing raw reaches the client, and
//! later calls work.
//!
//! Needs `redis-server` (`.ci/install-redis.sh`) and the Python peers (`.ci/install-peers.sh`).

mod common;
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use common::*;
use serde_json::{Value, json};
use support::http_echo::{self, Echo};
use support::load::Client;
use support::redis_server::RedisServer;
use support::serve::Replica;

const KEY: &str = "8f3c0d2a9b7e6f5a4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c";
const DETECT: &str = "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{6,8}'\n";

fn init() -> Value {
    json!({"protocolVersion": "2025-06-18", "capabilities": {},
           "clientInfo": {"name": "faults", "version": "1"}})
}

async fn call(client: &mut Client, url: &str, tool: &str, args: Value) -> Result<Value, String> {
    client
        .request(url, "tools/call", json!({"name": tool, "arguments": args}))
        .await
}

async fn healthy(http: &reqwest::Client, replica: &mut Replica) {
    assert!(replica.is_running(), "the gateway exited");
    let r = http
        .get(format!("{}/healthz", replica.base()))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
}

async fn echo_works(client: &mut Client, url: &str) {
    let ok = call(client, url, "up__echo", json!({"text": "id EMP-77770001"}))
        .await
        .unwrap();
    assert_eq!(
        ok.pointer("/result/content/0/text").and_then(Value::as_str),
        Some("id [EMPLOYEE_ID_1]"),
        "{ok}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hang_crash_and_disconnect_leave_the_gateway_up() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "{DETECT}servers:\n  up:\n    url: {upstream}\n    forward_authorization: true\n\
         \x20 tiny:\n    command: {python}\n    args: [{script}, crashy]\n\
         serve:\n  limits:\n    upstream_timeout_seconds: 2\n",
        python = python().display(),
        script = root().join("tests/e2e/tiny_server.py").display(),
    );
    let config = write_config(dir.path(), &yaml);
    let mut replica = Replica::start(&veil(), &config, &[]);
    let url = replica.url.clone();
    // The client's Authorization goes on to `up` (forward_authorization), not to `tiny`.
    let mut auth = reqwest::header::HeaderMap::new();
    auth.insert("authorization", "Bearer upstream-secret".parse().unwrap());
    let http = reqwest::Client::builder()
        .default_headers(auth)
        .build()
        .unwrap();
    let mut client = Client::new(http.clone());
    client.request(&url, "initialize", init()).await.unwrap();

    // Upstream hang: a JSON-RPC timeout error, and the upstream is told to cancel.
    let started = Instant::now();
    let hung = call(&mut client, &url, "up__hang", json!({}))
        .await
        .unwrap();
    assert_eq!(hung.pointer("/error/code"), Some(&json!(-32001)), "{hung}");
    assert!(
        hung.pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap()
            .contains("did not answer within 2 s")
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    wait_for(
        || echo.cancelled.load(Ordering::Relaxed) >= 1,
        "cancel after timeout",
    )
    .await;
    healthy(&http, &mut replica).await;
    echo_works(&mut client, &url).await;

    // HTTP upstream crashes mid-answer: a clear error naming the upstream.
    let crashed = call(&mut client, &url, "up__crash", json!({}))
        .await
        .unwrap();
    let message = crashed
        .pointer("/error/message")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("an error: {crashed}"));
    assert!(message.contains("upstream `up`"), "{message}");
    healthy(&http, &mut replica).await;
    echo_works(&mut client, &url).await;

    // Stdio upstream dies mid-call: the call gets a tool error naming it; the rest still works.
    let hello = call(&mut client, &url, "tiny__hello", json!({}))
        .await
        .unwrap();
    assert_ne!(
        hello.pointer("/result/isError"),
        Some(&json!(true)),
        "{hello}"
    );
    assert!(!hello.to_string().contains("EMP-"));
    let died = call(&mut client, &url, "tiny__crash", json!({}))
        .await
        .unwrap();
    let died_text = died.to_string();
    assert!(
        died_text.contains("exited") && died.pointer("/result/isError") == Some(&json!(true)),
        "{died}"
    );
    healthy(&http, &mut replica).await;
    echo_works(&mut client, &url).await;

    // The client goes away mid-stream: the pending call is cancelled upstream.
    let before = echo.cancelled.load(Ordering::Relaxed);
    let body = json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                      "params": {"name": "up__hang", "arguments": {}}});
    let mut req = http
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    if let Some(sid) = client.session() {
        req = req.header("mcp-session-id", sid);
    }
    let streaming = req.send().await.unwrap();
    assert_eq!(
        streaming.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    drop(streaming);
    wait_for(
        || echo.cancelled.load(Ordering::Relaxed) > before,
        "cancel after disconnect",
    )
    .await;
    healthy(&http, &mut replica).await;
    echo_works(&mut client, &url).await;
    assert!(!replica.stderr().contains("EMP-"));

    // A non-ASCII argument travels as `Mcp-Param-Text: =?base64?...?=`, restored and
    // consistent with the body.
    let token = call(
        &mut client,
        &url,
        "up__echo",
        json!({"text": "Zoë EMP-77770002"}),
    )
    .await
    .unwrap();
    let token = token
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .unwrap()
        .to_string();
    assert_eq!(token, "Zoë [EMPLOYEE_ID_3]");
    let back = call(&mut client, &url, "up__echo", json!({"text": token}))
        .await
        .unwrap();
    assert_eq!(
        back.pointer("/result/content/0/text")
            .and_then(Value::as_str),
        Some(token.as_str())
    );
    assert_eq!(echo.headers_inconsistent.load(Ordering::Relaxed), 0);
    assert!(echo.headers_consistent.load(Ordering::Relaxed) >= 6);
    assert!(
        echo.authorized.load(Ordering::Relaxed) >= 6,
        "Authorization forwarded"
    );
}

async fn wait_for(cond: impl Fn() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_restart_under_load_fails_closed_and_recovers() {
    let mut redis = RedisServer::start_persistent();
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "{DETECT}vault:\n  backend: redis\n  url: {}\nservers:\n  up:\n    url: {upstream}\n",
        redis.url()
    );
    let config = write_config(dir.path(), &yaml);
    let env = [
        ("MCP_VEIL_VAULT_KEY", KEY),
        ("MCP_VEIL_SESSION_SECRET", "replicas-share-this-secret"),
    ];
    let mut a = Replica::start(&veil(), &config, &env);
    let mut b = Replica::start(&veil(), &config, &env);
    let urls = [a.url.clone(), b.url.clone()];
    let http = reqwest::Client::new();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));

    // 10 sessions loop: mint on one replica, restore on the other, until told to stop.
    let sessions = (0..10u64).map(|s| {
        let (http, urls, stop) = (http.clone(), urls.clone(), stop.clone());
        tokio::spawn(async move {
            let mut client = Client::new(http);
            client
                .request(&urls[0], "initialize", init())
                .await
                .unwrap();
            let (mut ok, mut failed, mut first) = (0u64, 0u64, None);
            let mut k = 0;
            while !stop.load(Ordering::Relaxed) {
                k += 1;
                let raw = http_echo::value(s, k);
                let minted = call(
                    &mut client,
                    &urls[(k % 2) as usize],
                    "up__echo",
                    json!({"text": raw}),
                )
                .await;
                // A raw value reaching the client is an Err from `Client::request`: fatal.
                let minted = minted.unwrap_or_else(|e| panic!("session {s}: {e}"));
                let Some(token) = minted
                    .pointer("/result/content/0/text")
                    .and_then(Value::as_str)
                else {
                    failed += 1;
                    assert!(minted.get("error").is_some(), "{minted}");
                    continue;
                };
                first.get_or_insert((k, token.to_string()));
                let back = call(
                    &mut client,
                    &urls[((k + 1) % 2) as usize],
                    "up__echo",
                    json!({"text": token, "session": s, "k": k}),
                )
                .await
                .unwrap_or_else(|e| panic!("session {s}: {e}"));
                if back
                    .pointer("/result/content/0/text")
                    .and_then(Value::as_str)
                    == Some(token)
                {
                    ok += 1;
                } else {
                    failed += 1;
                }
            }
            (client, ok, failed, first)
        })
    });
    let sessions: Vec<_> = sessions.collect();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    tokio::task::block_in_place(|| redis.stop());
    tokio::time::sleep(Duration::from_millis(2500)).await;
    tokio::task::block_in_place(|| redis.restart());
    // Past the restart, calls succeed again.
    tokio::time::sleep(Duration::from_millis(3000)).await;
    let ok_before = echo.restored.load(Ordering::Relaxed);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    stop.store(true, Ordering::Relaxed);
    let mut total_failed = 0;
    for handle in sessions {
        let (mut client, ok, failed, first) = handle.await.unwrap();
        assert!(ok > 0, "session made progress");
        total_failed += failed;
        // A token minted before the restart still restores after it (Redis AOF).
        let (k, token) = first.unwrap();
        let back = call(&mut client, &urls[0], "up__echo", json!({"text": token}))
            .await
            .unwrap();
        assert_eq!(
            back.pointer("/result/content/0/text")
                .and_then(Value::as_str),
            Some(token.as_str()),
            "round {k}: {back}"
        );
    }
    assert!(
        echo.restored.load(Ordering::Relaxed) > ok_before,
        "calls succeed after the restart"
    );
    assert!(
        total_failed > 0,
        "the outage was noticed (calls failed closed)"
    );
    assert_eq!(echo.mismatches.load(Ordering::Relaxed), 0);
    healthy(&http, &mut a).await;
    healthy(&http, &mut b).await;
    for r in [&a, &b] {
        assert!(!r.stderr().contains("EMP-"));
    }
}
