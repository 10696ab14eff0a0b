//! `mcp-veil proxy --config F` (the stdio gateway) with a `url:` server: a remote
//! streamable-HTTP server behind the layer, next to nothing else. Tool results are tokenized,
//! tokens in arguments restored, and the upstream gets consistent `Mcp-Name`/`Mcp-Param-*`.

mod common;
mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::Ordering;

use common::*;
use serde_json::{Value, json};
use support::http_echo::{self, Echo};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxy_gateway_drives_an_http_upstream() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         servers:\n  up:\n    url: {upstream}\n    headers: {{X-Tenant: acme}}\n"
    );
    let config = write_config(dir.path(), &yaml);
    let lines = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(veil())
            .args(["proxy", "--config"])
            .arg(&config)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut ask = |msg: Value| -> Value {
            writeln!(stdin, "{msg}").unwrap();
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            serde_json::from_str(&line).unwrap()
        };
        let init = ask(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        );
        let minted = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "up__echo", "arguments": {"text": "id EMP-00420001"}}}));
        let back = ask(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "up__echo",
                       "arguments": {"text": "[EMPLOYEE_ID_1]", "session": 42, "k": 1}}}));
        drop(stdin);
        let status = child.wait().unwrap();
        (init, minted, back, status)
    })
    .await
    .unwrap();
    let (init, minted, back, status) = lines;
    assert_eq!(init["result"]["serverInfo"]["name"], "mcp-veil-gateway");
    assert_eq!(minted["result"]["content"][0]["text"], "id [EMPLOYEE_ID_1]");
    // The upstream got the real value (it checks session 42's first value), and its echo
    // came back tokenized.
    assert_eq!(back["result"]["content"][0]["text"], "[EMPLOYEE_ID_1]");
    assert_eq!(echo.restored.load(Ordering::Relaxed), 1);
    assert_eq!(echo.mismatches.load(Ordering::Relaxed), 0);
    assert!(status.success());
    assert_eq!(echo.headers_inconsistent.load(Ordering::Relaxed), 0);
    assert_eq!(echo.headers_consistent.load(Ordering::Relaxed), 2);
}

/// Issue 17: an SSE event whose data spans several `data:` lines from a `url:` upstream is one
/// message through the stdio gateway: answered and tokenized, and the relay goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_line_event_is_one_message() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         servers:\n  up:\n    url: {upstream}\n"
    );
    let config = write_config(dir.path(), &yaml);
    let (multi, after) = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(veil())
            .args(["proxy", "--config"])
            .arg(&config)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut ask = |msg: Value| -> Value {
            writeln!(stdin, "{msg}").unwrap();
            let mut line = String::new();
            out.read_line(&mut line).unwrap();
            serde_json::from_str(&line).unwrap()
        };
        ask(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
        );
        let multi = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "up__multiline", "arguments": {}}}));
        let after = ask(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "up__echo", "arguments": {"text": "still here"}}}));
        drop(stdin);
        let _ = child.wait();
        (multi, after)
    })
    .await
    .unwrap();
    assert_eq!(multi["id"], 2);
    assert_eq!(
        multi["result"]["content"][0]["text"], "multi [EMPLOYEE_ID_1]",
        "{multi}"
    );
    assert_eq!(
        after["result"]["content"][0]["text"], "still here",
        "{after}"
    );
}
