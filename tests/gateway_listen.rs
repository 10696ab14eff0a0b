//! `subscriptions/listen` (2026-07-28) through the gateway (`mcp-veil proxy --config`) in
//! front of two stateless `url:` servers (`support::http_echo`): each server gets its own
//! listen with the filter narrowed to it (the resource URIs only to the server with
//! resources), the host gets one acknowledgement (what the servers agreed to, under its own
//! subscription id) and both servers' notifications on its subscription, re-tagged with its id
//! and tokenized (a resource URI holding an employee id); its `notifications/cancelled` ends
//! the servers' listens, and what they send after that does not reach it. A session-era server
//! (`mcp-server-everything`) is subscribed to the listen's resource and its updates are tagged.

mod common;
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use support::http_echo::{self, Echo};

const VERSION: &str = "2026-07-28";
const SUB: &str = "io.modelcontextprotocol/subscriptionId";

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": VERSION,
           "io.modelcontextprotocol/clientCapabilities": {},
           "io.modelcontextprotocol/clientInfo": {"name": "listen", "version": "1"}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_listen_reaches_every_server_and_merges_their_notifications() {
    let a = Arc::new(Echo::default());
    let b = Arc::new(Echo::default());
    b.with_resources.store(true, Ordering::Relaxed);
    let (url_a, url_b) = (
        http_echo::start(a.clone()).await,
        http_echo::start(b.clone()).await,
    );
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!(
            "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
             servers:\n  a:\n    url: {url_a}\n  b:\n    url: {url_b}\n"
        ),
    );
    let mut proxy = support::stdio_proxy::spawn(&veil(), &config);
    let mut seen: Vec<Value> = Vec::new();
    let answered = |id: Value| {
        move |s: &Vec<Value>| s.iter().any(|m| m["id"] == id && m.get("method").is_none())
    };
    let count = |method: &'static str| {
        move |s: &Vec<Value>| s.iter().filter(|m| m["method"] == method).count()
    };
    proxy
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                 "params": {"_meta": meta()}}))
        .await;
    proxy.read_until(&mut seen, answered(json!(1))).await;
    proxy
        .send(
            json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen",
                 "params": {"_meta": meta(), "notifications": {
                     "toolsListChanged": true, "promptsListChanged": true,
                     "resourceSubscriptions": ["file:///staff/EMP-00990007"]}}}),
        )
        .await;
    let acks = count("notifications/subscriptions/acknowledged");
    proxy
        .read_until(&mut seen, |s: &Vec<Value>| acks(s) >= 1)
        .await;
    // Each server's listen, narrowed to it (no prompts anywhere; the URI to `b`).
    assert_eq!(
        *a.listens.lock().unwrap(),
        vec![json!({"toolsListChanged": true})]
    );
    assert_eq!(
        *b.listens.lock().unwrap(),
        vec![json!({"toolsListChanged": true,
                    "resourceSubscriptions": ["file:///staff/EMP-00990007"]})]
    );
    let ack = seen
        .iter()
        .find(|m| m["method"] == "notifications/subscriptions/acknowledged")
        .unwrap()
        .clone();
    assert_eq!(ack["params"]["_meta"][SUB], "sub-1", "{ack}");
    assert_eq!(
        ack["params"]["notifications"]["toolsListChanged"], true,
        "{ack}"
    );
    let honored_uri = ack["params"]["notifications"]["resourceSubscriptions"][0]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(honored_uri.contains("[EMPLOYEE_ID"), "tokenized: {ack}");
    // Both servers' notifications, on the host's subscription.
    for (id, server) in [(2, "a"), (3, "b")] {
        proxy
            .send(
                json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": format!("{server}__change"), "arguments": {}, "_meta": meta()}}),
            )
            .await;
        proxy.read_until(&mut seen, answered(json!(id))).await;
    }
    let changed = count("notifications/tools/list_changed");
    let updated = count("notifications/resources/updated");
    proxy
        .read_until(&mut seen, |s: &Vec<Value>| {
            changed(s) >= 2 && updated(s) >= 1
        })
        .await;
    assert_eq!(acks(&seen), 1, "one acknowledgement: {seen:?}");
    for m in &seen {
        if m["method"] == "notifications/tools/list_changed"
            || m["method"] == "notifications/resources/updated"
        {
            assert_eq!(m["params"]["_meta"][SUB], "sub-1", "re-tagged: {m}");
        }
        if m["method"] == "notifications/resources/updated" {
            assert_eq!(m["params"]["uri"], honored_uri.as_str(), "tokenized: {m}");
        }
    }
    // Cancelled: nothing more from the servers' listens.
    proxy
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": {"requestId": "sub-1"}}),
        )
        .await;
    proxy
        .send(
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "a__change", "arguments": {}, "_meta": meta()}}),
        )
        .await;
    proxy.read_until(&mut seen, answered(json!(4))).await;
    proxy
        .send(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list",
                 "params": {"_meta": meta()}}))
        .await;
    proxy.read_until(&mut seen, answered(json!(5))).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    proxy
        .send(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list",
                 "params": {"_meta": meta()}}))
        .await;
    proxy.read_until(&mut seen, answered(json!(6))).await;
    assert_eq!(changed(&seen), 2, "nothing after the cancel: {seen:?}");
    assert!(a.cancelled.load(Ordering::Relaxed) >= 1);
    assert!(b.cancelled.load(Ordering::Relaxed) >= 1);
    // The servers' listen responses stay open until the gateway ends (a known limit).
    drop(proxy.stdin);
    let _ = proxy.child.kill().await;
}

/// A session-era server (`mcp-server-everything`, stdio) behind a stateless host's listen: the
/// gateway subscribes there to the listen's resource, acknowledges it, and tags the server's
/// untagged `notifications/resources/updated` with the host's subscription id; the host's
/// cancel unsubscribes it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_era_servers_resource_updates_reach_the_listen() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!(
            "tool_search:\n  mode: never\nservers:\n  ev:\n    command: {}\n",
            npm_bin("mcp-server-everything").display()
        ),
    );
    let mut proxy = support::stdio_proxy::spawn(&veil(), &config);
    let mut seen: Vec<Value> = Vec::new();
    let answer = |id: Value, s: &Vec<Value>| {
        s.iter()
            .find(|m| m["id"] == id && m.get("method").is_none())
            .cloned()
    };
    proxy
        .send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list",
                 "params": {"_meta": meta()}}),
        )
        .await;
    proxy
        .read_until(&mut seen, |s: &Vec<Value>| answer(json!(1), s).is_some())
        .await;
    let list = answer(json!(1), &seen).unwrap();
    let uri = list["result"]["resources"][0]["uri"]
        .as_str()
        .unwrap_or_else(|| panic!("a resource: {list}"))
        .to_string();
    proxy
        .send(
            json!({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
                 "params": {"_meta": meta(), "notifications": {"resourceSubscriptions": [uri]}}}),
        )
        .await;
    let ack_of = |s: &Vec<Value>| {
        s.iter()
            .find(|m| m["method"] == "notifications/subscriptions/acknowledged")
            .cloned()
    };
    proxy
        .read_until(&mut seen, |s: &Vec<Value>| ack_of(s).is_some())
        .await;
    let ack = ack_of(&seen).unwrap();
    assert_eq!(ack["params"]["_meta"][SUB], "9", "{ack}");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"resourceSubscriptions": [uri]}),
        "{ack}"
    );
    proxy
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "ev__toggle-subscriber-updates", "arguments": {}, "_meta": meta()}}),
        )
        .await;
    let updated = |s: &Vec<Value>| {
        s.iter()
            .filter(|m| m["method"] == "notifications/resources/updated")
            .cloned()
            .collect::<Vec<Value>>()
    };
    proxy
        .read_until(&mut seen, |s: &Vec<Value>| {
            !updated(s).is_empty() && answer(json!(2), s).is_some()
        })
        .await;
    let first = &updated(&seen)[0];
    assert_eq!(first["params"]["uri"], uri.as_str(), "{first}");
    assert_eq!(first["params"]["_meta"][SUB], "9", "tagged: {first}");
    // Cancelled: unsubscribed upstream (the server's updates stop; its timer is switched off).
    proxy
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": {"requestId": 9}}),
        )
        .await;
    proxy
        .send(
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "ev__toggle-subscriber-updates", "arguments": {}, "_meta": meta()}}),
        )
        .await;
    proxy
        .read_until(&mut seen, |s: &Vec<Value>| answer(json!(3), s).is_some())
        .await;
    drop(proxy.stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), proxy.child.wait()).await;
}
