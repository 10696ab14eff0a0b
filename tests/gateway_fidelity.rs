//! What the gateway passes on unchanged, through `mcp-veil serve` with a `url:` upstream:
//! - the host's protocol version is the one proposed upstream, with its `roots` capability;
//! - the upstream hears `notifications/initialized` before any other request;
//! - list-level fields (`_meta`, `ttlMs`, `cacheScope`) of the upstream's lists reach the host;
//! - what the gateway passes keeps the upstream's key order (not sorted).

mod common;
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use common::*;
use serde_json::json;
use support::http_echo::{self, Echo};
use support::load::Client;
use support::serve::Replica;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_lifecycle_order_and_list_fields_pass_through() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!("servers:\n  up:\n    url: {upstream}\n"),
    );
    let replica = Replica::start(&veil(), &config, &[]);
    let mut client = Client::new(reqwest::Client::new());
    let init = client
        .request(
            &replica.url,
            "initialize",
            json!({"protocolVersion": "2025-03-26", "capabilities": {"roots": {"listChanged": true}},
                   "clientInfo": {"name": "fidelity", "version": "1"}}),
        )
        .await
        .unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2025-03-26", "{init}");
    assert_eq!(
        *echo.versions.lock().unwrap(),
        vec!["2025-03-26".to_string()]
    );
    let list = client
        .request(&replica.url, "tools/list", json!({}))
        .await
        .unwrap();
    let result = &list["result"];
    assert!(
        result["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "up__echo")),
        "{list}"
    );
    assert_eq!(
        result["_meta"],
        json!({"example.com/list": "tools"}),
        "{list}"
    );
    assert_eq!(result["ttlMs"], 30000, "{list}");
    assert_eq!(result["cacheScope"], "public", "{list}");
    // Key order as the upstream wrote it (`name` before `inputSchema`, `type` before
    // `properties`: sorted keys would flip both), the list's own fields after the list.
    let keys = |v: &serde_json::Value| -> Vec<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let echo_tool = result["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "up__echo"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(keys(&echo_tool), ["name", "inputSchema"], "{list}");
    assert_eq!(
        keys(&echo_tool["inputSchema"]),
        ["type", "properties"],
        "{list}"
    );
    assert_eq!(
        keys(result),
        ["tools", "_meta", "ttlMs", "cacheScope"],
        "{list}"
    );
    assert_eq!(
        echo.roots_declared.load(Ordering::Relaxed),
        1,
        "the host's roots capability reaches the upstream's initialize"
    );
    assert!(echo.initialized.load(Ordering::Relaxed));
    assert_eq!(
        echo.early.load(Ordering::Relaxed),
        0,
        "a request reached the upstream before notifications/initialized"
    );
}

/// `proxy --config` answers a host batch as one batch: every request's answer in one array
/// line, nothing for its notification.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_batch_is_answered_as_a_batch() {
    use tokio::io::AsyncWriteExt;
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!(
            "servers:\n  tiny:\n    command: {python}\n    args: [{script}, crashy]\n",
            python = python().display(),
            script = root().join("tests/e2e/tiny_server.py").display(),
        ),
    );
    let support::stdio_proxy::StdioProxy {
        mut child,
        mut stdin,
        mut lines,
    } = support::stdio_proxy::spawn(&veil(), &config);
    let mut next = async || {
        tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("a line")
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "batch", "version": "1"}}});
    stdin
        .write_all(format!("{init}\n").as_bytes())
        .await
        .unwrap();
    let answer: serde_json::Value = serde_json::from_str(&next().await).unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    let batch = json!([
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": "three", "method": "ping"},
    ]);
    stdin
        .write_all(format!("{batch}\n").as_bytes())
        .await
        .unwrap();
    let answer: serde_json::Value = serde_json::from_str(&next().await).unwrap();
    let items = answer
        .as_array()
        .unwrap_or_else(|| panic!("a batch: {answer}"));
    assert_eq!(items.len(), 2, "{answer}");
    let mut ids: Vec<String> = items.iter().map(|i| i["id"].to_string()).collect();
    ids.sort();
    assert_eq!(ids, vec!["\"three\"".to_string(), "2".to_string()]);
    assert!(
        items.iter().any(|i| i["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())),
        "{answer}"
    );
    drop(stdin);
    let _ = child.wait().await;
}
