//! 2026-07-28 stateless requests (no `initialize`, no session id, the protocol version and
//! client capabilities in every request's `_meta`) through `mcp-veil serve` and through
//! `mcp-veil proxy --config` (the gateway), in front of a `url:` server: the upstream is
//! discovered, never initialized, and hears stateless requests; tokens are minted and restored
//! per client (another client's token is refused, not restored); a client with no session key, or whose header and `_meta` disagree, is refused
//! with HTTP 400 and a JSON-RPC error carrying its request id. A session-era upstream (no
//! `server/discover`) is initialized instead, hears plain requests, and its answers reach the
//! stateless client with `resultType`. A stateless client's batch, through `serve` and through
//! the stdio gateway, gets the per-request checks item by item and is answered as a batch.

mod common;
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use support::http_echo::{self, Echo};
use support::serve::Replica;
use tokio::io::AsyncWriteExt;

const VERSION: &str = "2026-07-28";

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": VERSION,
           "io.modelcontextprotocol/clientCapabilities": {},
           "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}})
}

fn call(id: u64, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "up__echo", "arguments": args, "_meta": meta()}})
}

fn text_of(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn yaml(upstream: &str, serve: &str) -> String {
    format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         {serve}servers:\n  up:\n    url: {upstream}\n"
    )
}

/// `Mcp-Method` and `Mcp-Name` for `body` (a 2026-07-28 client sends them, SEP-2243).
fn routing_headers(req: reqwest::RequestBuilder, body: &Value) -> reqwest::RequestBuilder {
    let mut req = req;
    if let Some(method) = body["method"].as_str() {
        req = req.header("mcp-method", method);
    }
    if let Some(name) = body["params"]["name"].as_str() {
        req = req.header("mcp-name", name);
    }
    // The echo tool maps its `text` argument to `Mcp-Param-Text` (`x-mcp-header`).
    if let Some(text) = body["params"]["arguments"]["text"].as_str() {
        req = req.header("mcp-param-text", text);
    }
    req
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_clients_through_serve_get_their_own_tokens() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &yaml(&upstream, "serve:\n  session:\n    header: x-client\n"),
    );
    let replica = Replica::start(&veil(), &config, &[]);
    let http = reqwest::Client::new();
    let post = |body: Value, client: Option<&str>, version: &str| {
        let req = http
            .post(&replica.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", version);
        let mut req = routing_headers(req, &body).body(body.to_string());
        if let Some(c) = client {
            req = req.header("x-client", c);
        }
        async move {
            let r = req.send().await.unwrap();
            let status = r.status().as_u16();
            let has_session = r.headers().contains_key("mcp-session-id");
            let text = r.text().await.unwrap();
            // JSON, or the data of the SSE event that answers.
            let answer = text
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(str::trim)
                .chain(std::iter::once(text.trim()))
                .filter_map(|d| serde_json::from_str::<Value>(d).ok())
                .find(|v| v.get("id").is_some())
                .unwrap_or(Value::Null);
            (status, has_session, answer)
        }
    };

    let (status, has_session, discover) = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta()}}),
        Some("alice"),
        VERSION,
    )
    .await;
    assert_eq!(status, 200, "{discover}");
    assert!(!has_session, "no session id for a stateless client");
    assert!(
        discover["result"]["capabilities"]["tools"].is_object(),
        "{discover}"
    );
    assert_eq!(
        discover["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-veil-gateway"
    );

    // A raw value in a result comes back as a token, which restores for the same client only.
    let (_, _, first) = post(
        call(2, json!({"text": "EMP-00010001"})),
        Some("alice"),
        VERSION,
    )
    .await;
    let token = text_of(&first);
    assert!(token.starts_with("[EMPLOYEE_ID"), "{first}");
    let (_, _, again) = post(
        call(3, json!({"text": token, "session": 1, "k": 1})),
        Some("alice"),
        VERSION,
    )
    .await;
    assert_eq!(text_of(&again), token, "{again}");
    assert_eq!(echo.restored.load(Ordering::Relaxed), 1);
    let (_, _, other) = post(
        call(4, json!({"text": token, "session": 1, "k": 1})),
        Some("bob"),
        VERSION,
    )
    .await;
    assert_eq!(other["id"], 4, "{other}");
    assert_eq!(
        echo.restored.load(Ordering::Relaxed),
        1,
        "bob's call restored alice's token"
    );
    // Not bob's token: the call is refused (flows.unknown_tokens), the value never shown.
    assert_eq!(other["result"]["isError"], true, "{other}");
    assert!(!other.to_string().contains("EMP-00010001"), "{other}");

    // Upstream: discovered and called statelessly, never initialized.
    assert!(
        echo.versions.lock().unwrap().is_empty(),
        "an initialize went upstream"
    );
    assert!(echo.stateless.load(Ordering::Relaxed) >= 4);

    // No session key: refused, never put in a table shared with another client.
    let (status, _, refused) = post(call(5, json!({"text": "x"})), None, VERSION).await;
    assert_eq!(status, 400);
    assert_eq!(refused["id"], 5);
    assert_eq!(refused["error"]["code"], -32600);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("x-client"),
        "{refused}"
    );
    // The header and `_meta` disagree; a removed method.
    let (status, _, mismatch) = post(call(6, json!({})), Some("alice"), "2099-01-01").await;
    assert_eq!(
        (status, mismatch["error"]["code"].as_i64()),
        (400, Some(-32020))
    );
    let (status, _, ping) = post(
        json!({"jsonrpc": "2.0", "id": 7, "method": "ping", "params": {"_meta": meta()}}),
        Some("alice"),
        VERSION,
    )
    .await;
    assert_eq!(
        (status, ping["error"]["code"].as_i64()),
        (404, Some(-32601))
    );
    let log = replica.stderr();
    assert!(
        !log.contains("EMP-00010001"),
        "a raw value in the log: {log}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_requests_through_the_stdio_gateway() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &yaml(&upstream, ""));
    let support::stdio_proxy::StdioProxy {
        mut child,
        mut stdin,
        mut lines,
    } = support::stdio_proxy::spawn(&veil(), &config);
    let mut ask = async |msg: Value| -> Value {
        stdin
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .unwrap();
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                .await
                .expect("an answer in time")
                .unwrap()
                .expect("the proxy goes on");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v.get("id") == msg.get("id") {
                return v;
            }
        }
    };
    let list = ask(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                          "params": {"_meta": meta()}}))
    .await;
    let tools = list["result"]["tools"].as_array().expect("a tool list");
    assert!(tools.iter().any(|t| t["name"] == "up__echo"), "{list}");
    // The list's own fields come through.
    assert_eq!(list["result"]["ttlMs"], 30000);
    let first = ask(call(2, json!({"text": "EMP-00020001"}))).await;
    let token = text_of(&first);
    assert!(token.starts_with("[EMPLOYEE_ID"), "{first}");
    let again = ask(call(3, json!({"text": token, "session": 2, "k": 1}))).await;
    assert_eq!(text_of(&again), token);
    assert_eq!(echo.restored.load(Ordering::Relaxed), 1);
    assert!(
        echo.versions.lock().unwrap().is_empty(),
        "an initialize went upstream"
    );
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_era_upstream_serves_a_stateless_client() {
    let echo = Arc::new(Echo::default());
    echo.no_discover.store(true, Ordering::Relaxed);
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &yaml(&upstream, "serve:\n  session:\n    header: x-client\n"),
    );
    let replica = Replica::start(&veil(), &config, &[]);
    let http = reqwest::Client::new();
    let post = |body: Value| {
        let req = http
            .post(&replica.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .header("mcp-protocol-version", VERSION)
            .header("x-client", "carol");
        let req = routing_headers(req, &body).body(body.to_string());
        async move {
            let r = req.send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (status, list) = post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                                     "params": {"_meta": meta()}}))
    .await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["result"]["resultType"], "complete", "{list}");
    assert!(list["result"]["ttlMs"].is_number(), "{list}");
    let (_, first) = post(call(2, json!({"text": "EMP-00030001"}))).await;
    assert_eq!(first["result"]["resultType"], "complete", "{first}");
    let token = text_of(&first);
    assert!(token.starts_with("[EMPLOYEE_ID"), "{first}");
    let (_, again) = post(call(3, json!({"text": token, "session": 3, "k": 1}))).await;
    assert_eq!(text_of(&again), token);
    assert_eq!(echo.restored.load(Ordering::Relaxed), 1);
    // Initialized the old way; after the refused discovery, no request carried the stateless
    // `_meta`.
    assert_eq!(
        *echo.versions.lock().unwrap(),
        vec!["2025-11-25".to_string()]
    );
    assert_eq!(
        echo.lifecycle_meta.load(Ordering::Relaxed),
        1,
        "only the discovery"
    );
    // A 2026-07-28 request without its Mcp-Method header, or a tools/call without Mcp-Name (or
    // Mcp-Param-Text), is refused (SEP-2243): HTTP 400, -32020, its own id; nothing reaches the
    // upstream.
    let calls = echo.restored.load(Ordering::Relaxed);
    for (id, drop) in [(4, "mcp-method"), (5, "mcp-name"), (6, "mcp-param-text")] {
        let body = call(id, json!({"text": "EMP-00030002"}));
        let mut req = http
            .post(&replica.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .header("mcp-protocol-version", VERSION)
            .header("x-client", "carol");
        for (header, value) in [
            ("mcp-method", "tools/call"),
            ("mcp-name", "up__echo"),
            ("mcp-param-text", "EMP-00030002"),
        ] {
            if header != drop {
                req = req.header(header, value);
            }
        }
        let r = req.body(body.to_string()).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 400, "without {drop}");
        let answer: Value = r.json().await.unwrap();
        assert_eq!(answer["error"]["code"], -32020, "{answer}");
        assert_eq!(answer["id"], id, "{answer}");
    }
    assert_eq!(echo.restored.load(Ordering::Relaxed), calls);
}

/// A stateless client's batch through `serve`: every request gets the per-request checks on
/// its own (its `_meta`, the header against its version); a refused one gets its own error
/// with its id, the others are still answered, all in one JSON array.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_batch_is_checked_item_by_item_and_answered_as_a_batch() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &yaml(&upstream, "serve:\n  session:\n    header: x-client\n"),
    );
    let replica = Replica::start(&veil(), &config, &[]);
    let mut other_version = meta();
    other_version["io.modelcontextprotocol/protocolVersion"] = json!("2027-01-01");
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}},
        {"jsonrpc": "2.0", "id": "no-caps", "method": "tools/list",
         "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": VERSION}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": other_version}},
        call(4, json!({"text": "EMP-00040001"})),
    ]);
    let response = reqwest::Client::new()
        .post(&replica.url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-protocol-version", VERSION)
        .header("x-client", "dave")
        .body(batch.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let answer: Value = response.json().await.unwrap();
    let items = answer
        .as_array()
        .unwrap_or_else(|| panic!("a batch: {answer}"));
    assert_eq!(items.len(), 4, "{answer}");
    let by_id = |id: Value| {
        items
            .iter()
            .find(|i| i["id"] == id)
            .unwrap_or_else(|| panic!("no answer for {id}: {answer}"))
    };
    assert!(by_id(json!(1))["result"]["tools"].is_array(), "{answer}");
    assert_eq!(by_id(json!("no-caps"))["error"]["code"], -32602, "{answer}");
    assert_eq!(by_id(json!(3))["error"]["code"], -32020, "{answer}");
    let called = by_id(json!(4));
    assert!(text_of(called).starts_with("[EMPLOYEE_ID"), "{answer}");
    assert_eq!(echo.calls.load(Ordering::Relaxed), 1);
}

/// A stateless host's batch through the stdio gateway: each request checked on its own
/// (`_meta` with the version and the capabilities, a version the layer speaks), each refused
/// one its own error with its id (the unsupported version naming the supported ones), the rest
/// answered, all in one batch line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_batch_through_the_stdio_gateway() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &yaml(&upstream, ""));
    let support::stdio_proxy::StdioProxy {
        mut child,
        mut stdin,
        mut lines,
    } = support::stdio_proxy::spawn(&veil(), &config);
    let mut next = async || -> Value {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("the proxy goes on");
        serde_json::from_str(&line).unwrap()
    };
    let first = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                       "params": {"_meta": meta()}});
    stdin
        .write_all(format!("{first}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(next().await["id"], 1);
    let mut other_version = meta();
    other_version["io.modelcontextprotocol/protocolVersion"] = json!("2027-01-01");
    let batch = json!([
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta()}},
        {"jsonrpc": "2.0", "id": "no-meta", "method": "tools/list", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": other_version}},
        call(4, json!({"text": "EMP-00050001"})),
    ]);
    stdin
        .write_all(format!("{batch}\n").as_bytes())
        .await
        .unwrap();
    let answer = next().await;
    let items = answer
        .as_array()
        .unwrap_or_else(|| panic!("a batch: {answer}"));
    assert_eq!(items.len(), 4, "{answer}");
    let by_id = |id: Value| {
        items
            .iter()
            .find(|i| i["id"] == id)
            .unwrap_or_else(|| panic!("no answer for {id}: {answer}"))
    };
    assert!(by_id(json!(2))["result"]["tools"].is_array(), "{answer}");
    assert_eq!(by_id(json!("no-meta"))["error"]["code"], -32602, "{answer}");
    let unsupported = by_id(json!(3));
    assert_eq!(unsupported["error"]["code"], -32022, "{answer}");
    assert_eq!(
        unsupported["error"]["data"]["supported"],
        json!([VERSION]),
        "{answer}"
    );
    assert!(
        text_of(by_id(json!(4))).starts_with("[EMPLOYEE_ID"),
        "{answer}"
    );
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
}
