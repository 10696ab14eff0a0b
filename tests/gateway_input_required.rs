//! A session-era server's sampling and elicitation requests reach a stateless (2026-07-28)
//! host through the gateway (`mcp-veil proxy --config`) as input-required results: the
//! server (`mcp-server-everything`, 2025-11-25, stdio) asks during a `tools/call`; the host
//! gets `resultType: input_required` with the server's request, tokenized, and a
//! `requestState`; its retry with `inputResponses` answers the server's request (restored), and
//! the call's final result answers the retry.
//!
//! The same round through `mcp-veil serve`, the stateless client on HTTP.
//!
//! Needs `bash .ci/install-peers.sh` (server-everything from npm).

mod common;
mod support;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

const VERSION: &str = "2026-07-28";
const RAW: &str = "EMP-12345678";

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": VERSION,
           "io.modelcontextprotocol/clientCapabilities": {"sampling": {}, "elicitation": {}},
           "io.modelcontextprotocol/clientInfo": {"name": "mrtr", "version": "1"}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_era_requests_become_input_required_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!(
            "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
             tool_search:\n  mode: never\n\
             servers:\n  ev:\n    command: {}\n",
            npm_bin("mcp-server-everything").display()
        ),
    );
    let support::stdio_proxy::StdioProxy {
        mut child,
        mut stdin,
        mut lines,
    } = support::stdio_proxy::spawn(&veil(), &config);
    let mut all = String::new();
    macro_rules! ask {
        ($msg:expr) => {{
            let msg: Value = $msg;
            stdin
                .write_all(format!("{msg}\n").as_bytes())
                .await
                .unwrap();
            let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
            loop {
                let line = tokio::time::timeout_at(deadline, lines.next_line())
                    .await
                    .unwrap_or_else(|_| panic!("an answer to {msg} in time"))
                    .unwrap()
                    .expect("a line");
                all.push_str(&line);
                let v: Value = serde_json::from_str(&line).unwrap();
                if v["id"] == msg["id"] && v.get("method").is_none() {
                    break v;
                }
            }
        }};
    }
    let call = |id: &str, name: &str, args: Value, more: Value| {
        let mut params = json!({"name": name, "arguments": args, "_meta": meta()});
        if let (Some(p), Some(m)) = (params.as_object_mut(), more.as_object()) {
            p.extend(m.clone());
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    let list = ask!(
        json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list",
                           "params": {"_meta": meta()}})
    );
    assert!(
        list.to_string().contains("ev__trigger-sampling-request"),
        "the gateway announced sampling upstream: {list}"
    );
    let echoed = ask!(call("echo", "ev__echo", json!({"message": RAW}), json!({})));
    let text = echoed["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let token = text
        .split_whitespace()
        .find(|w| w.starts_with("[EMPLOYEE_ID"))
        .unwrap_or_else(|| panic!("a token: {echoed}"))
        .to_string();

    // Sampling: the round, then the final result on the retry's id.
    let args = json!({"prompt": format!("check {token}"), "maxTokens": 20});
    let first = ask!(call(
        "s1",
        "ev__trigger-sampling-request",
        args.clone(),
        json!({})
    ));
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let state = result["requestState"].as_str().expect("a requestState");
    let (key, input) = result["inputRequests"]
        .as_object()
        .and_then(|m| m.iter().next())
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap_or_else(|| panic!("one input request: {first}"));
    assert_eq!(input["method"], "sampling/createMessage", "{first}");
    let asked = input["params"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        asked.contains(&token),
        "tokenized as the host knows it: {first}"
    );
    let sampled = json!({"role": "assistant", "model": "test", "stopReason": "endTurn",
                         "content": {"type": "text", "text": format!("seen {token}")}});
    let done = ask!(call(
        "s2",
        "ev__trigger-sampling-request",
        args,
        json!({"inputResponses": {key: sampled}, "requestState": state})
    ));
    assert_eq!(done["id"], "s2", "{done}");
    let text = done["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("LLM sampling result"), "{done}");
    assert!(
        text.contains(&token),
        "the server saw the value, the host the token: {done}"
    );
    assert_eq!(done["result"]["resultType"], "complete", "{done}");

    // Elicitation, declined.
    let first = ask!(call(
        "e1",
        "ev__trigger-elicitation-request",
        json!({}),
        json!({})
    ));
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let (key, input) = result["inputRequests"]
        .as_object()
        .and_then(|m| m.iter().next())
        .map(|(k, v)| (k.clone(), v.clone()))
        .unwrap();
    assert_eq!(input["method"], "elicitation/create", "{first}");
    // A retry without the response: an error, and the round is still there.
    let state = result["requestState"].as_str().unwrap().to_string();
    let missing = ask!(call(
        "e2",
        "ev__trigger-elicitation-request",
        json!({}),
        json!({"inputResponses": {}, "requestState": state})
    ));
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    let done = ask!(call(
        "e3",
        "ev__trigger-elicitation-request",
        json!({}),
        json!({"inputResponses": {key: {"action": "decline"}}, "requestState": state})
    ));
    assert_eq!(done["id"], "e3", "{done}");
    assert!(done["result"]["content"].is_array(), "{done}");
    // A state the gateway never gave: refused.
    let forged = ask!(call(
        "f1",
        "ev__trigger-elicitation-request",
        json!({}),
        json!({"inputResponses": {}, "requestState": "mcp-veil-r999-0"})
    ));
    assert_eq!(forged["error"]["code"], -32602, "{forged}");
    assert!(!all.contains(RAW), "no raw value reached the host");
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
}

/// Through `serve`: a stateless HTTP client (its session key a header) gets the round as the
/// JSON answer of its POST, and the final result as the answer of its retry's POST.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_through_serve() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!(
            "tool_search:\n  mode: never\nserve:\n  session:\n    header: x-client\n\
             servers:\n  ev:\n    command: {}\n",
            npm_bin("mcp-server-everything").display()
        ),
    );
    let replica = support::serve::Replica::start(&veil(), &config, &[]);
    let http = reqwest::Client::new();
    let post = |body: Value| {
        let req = http
            .post(&replica.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .header("mcp-protocol-version", VERSION)
            .header("x-client", "erin")
            // The standard request headers of a 2026-07-28 client (SEP-2243).
            .header("mcp-method", body["method"].as_str().unwrap_or_default())
            .header(
                "mcp-name",
                body["params"]["name"].as_str().unwrap_or_default(),
            )
            .body(body.to_string());
        async move {
            let r = req.send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let call = |id: u64, more: Value| {
        let mut params = json!({"name": "ev__trigger-elicitation-request", "arguments": {},
                                "_meta": meta()});
        if let (Some(p), Some(m)) = (params.as_object_mut(), more.as_object()) {
            p.extend(m.clone());
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    let (status, first) = post(call(1, json!({}))).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let key = first["result"]["inputRequests"]
        .as_object()
        .and_then(|m| m.keys().next().cloned())
        .unwrap();
    let (status, done) = post(call(
        2,
        json!({"inputResponses": {key: {"action": "decline"}}, "requestState": state}),
    ))
    .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["id"], 2, "{done}");
    assert!(done["result"]["content"].is_array(), "{done}");
}
