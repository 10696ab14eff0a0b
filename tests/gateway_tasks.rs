//! `tasks/*` through the gateway (`mcp-veil proxy --config` with two `url:` servers that both
//! number their tasks `task-1`): the host sees `{server}__task-1`, `tasks/get`, `tasks/result`
//! and `tasks/cancel` reach the server that made the task with its own id, `tasks/list` is
//! both servers' tasks, and a task's result is tokenized like any other. A stateless
//! (2026-07-28, tasks extension) host: `tasks/update` is routed the same way, the removed
//! `tasks/result` and `tasks/list` are refused, an id of no server gets -32021 when the host did
//! not declare the extension.

mod common;
mod support;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use support::http_echo::{self, Echo};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_are_routed_to_the_server_that_made_them() {
    let (a, b) = (Arc::new(Echo::default()), Arc::new(Echo::default()));
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
    let mut next_id: u64 = 0;
    let mut ask = async |method: &str, params: Value| -> Value {
        next_id += 1;
        proxy.request(next_id, method, params).await
    };
    let init = ask(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    )
    .await;
    assert!(
        init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"].is_object(),
        "{init}"
    );
    let created = ask(
        "tools/call",
        json!({"name": "b__echo", "arguments": {"text": "x"}, "task": {"ttl": 60000}}),
    )
    .await;
    let task = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert_eq!(task, "b__task-1", "{created}");

    let got = ask("tasks/get", json!({"taskId": task})).await;
    assert_eq!(got["result"]["taskId"], "b__task-1", "{got}");
    assert_eq!(got["result"]["status"], "completed");
    let result = ask("tasks/result", json!({"taskId": task})).await;
    let text = result["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("task done [EMPLOYEE_ID"), "{result}");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        "b__task-1"
    );
    ask("tasks/cancel", json!({"taskId": task})).await;
    assert_eq!(*b.task_requests.lock().unwrap(), vec!["task-1"; 3]);
    assert!(
        a.task_requests.lock().unwrap().is_empty(),
        "server a got b's task"
    );

    let list = ask("tasks/list", json!({})).await;
    let mut ids: Vec<&str> = list["result"]["tasks"]
        .as_array()
        .expect("a task list")
        .iter()
        .filter_map(|t| t["taskId"].as_str())
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, ["a__task-1", "b__task-1"], "{list}");
    let unknown = ask("tasks/get", json!({"taskId": "c__task-1"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    drop(proxy.stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), proxy.child.wait()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_host_gets_the_tasks_extension_surface() {
    let (a, b) = (Arc::new(Echo::default()), Arc::new(Echo::default()));
    let (url_a, url_b) = (
        http_echo::start(a.clone()).await,
        http_echo::start(b.clone()).await,
    );
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!("servers:\n  a:\n    url: {url_a}\n  b:\n    url: {url_b}\n"),
    );
    let mut proxy = support::stdio_proxy::spawn(&veil(), &config);
    let meta = |extension: bool| {
        let caps = if extension {
            json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
        } else {
            json!({})
        };
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": caps,
               "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}})
    };
    let mut next_id: u64 = 0;
    let mut ask = async |method: &str, mut params: Value, extension: bool| -> Value {
        next_id += 1;
        params["_meta"] = meta(extension);
        proxy.request(next_id, method, params).await
    };
    let update = ask(
        "tasks/update",
        json!({"taskId": "b__task-1", "inputResponses": {}}),
        true,
    )
    .await;
    assert!(update.get("result").is_some(), "{update}");
    assert_eq!(*b.task_requests.lock().unwrap(), vec!["task-1"]);
    assert!(a.task_requests.lock().unwrap().is_empty());
    for method in ["tasks/list", "tasks/result"] {
        let removed = ask(method, json!({"taskId": "b__task-1"}), true).await;
        assert_eq!(removed["error"]["code"], -32601, "{removed}");
    }
    let undeclared = ask("tasks/get", json!({"taskId": "gate-test"}), false).await;
    assert_eq!(undeclared["error"]["code"], -32021, "{undeclared}");
    assert!(
        undeclared["error"]["data"]["requiredCapabilities"]["extensions"]
            ["io.modelcontextprotocol/tasks"]
            .is_object(),
        "{undeclared}"
    );
    let unknown = ask("tasks/get", json!({"taskId": "gate-test"}), true).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert_eq!(b.task_requests.lock().unwrap().len(), 1);
    drop(proxy.stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), proxy.child.wait()).await;
}
