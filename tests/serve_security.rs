//! `mcp-veil serve` refusals and session handling over real HTTP: DNS-rebinding protection
//! (Host, Origin), bearer tokens from the environment, the body limit, requests with no session
//! key, the configured session header, GET and DELETE.

mod common;
mod support;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use support::http_echo::{self, Echo};
use support::serve::Replica;

const TOKEN: &str = "client-token-7f3a";

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
    .to_string()
}

fn call(id: u64, text: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "up__echo", "arguments": {"text": text}}})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_and_session_keys() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         servers:\n  up:\n    url: {upstream}\n\
         serve:\n  auth:\n    token_env: VEIL_TEST_TOKEN\n  session:\n    header: X-Veil-Session\n\
         \x20 limits:\n    max_body_bytes: 2048\n"
    );
    let config = write_config(dir.path(), &yaml);
    let replica = Replica::start(&veil(), &config, &[("VEIL_TEST_TOKEN", TOKEN)]);
    let url = replica.url.clone();
    let http = reqwest::Client::new();
    let post = |body: String| {
        http.post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .bearer_auth(TOKEN)
            .body(body)
    };

    // No token, a wrong token: 401.
    let r = http.post(&url).body(initialize()).send().await.unwrap();
    assert_eq!(r.status(), 401);
    let r = http
        .post(&url)
        .bearer_auth("nope")
        .body(initialize())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // DNS rebinding: a foreign Host or Origin is refused.
    let r = post(initialize())
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = post(initialize())
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = post(initialize())
        .header("origin", "http://localhost:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // Too large: 413.
    let r = post(call(2, &"x".repeat(4096))).send().await.unwrap();
    assert_eq!(r.status(), 413);
    // Not JSON: 400 with a parse error.
    let r = post("{oops".into()).send().await.unwrap();
    assert_eq!(r.status(), 400);
    // A call with no session key at all: refused, saying what to send.
    let r = post(call(2, "EMP-00000001")).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let text = r.text().await.unwrap();
    assert!(
        text.contains("Mcp-Session-Id") && text.contains("X-Veil-Session"),
        "{text}"
    );

    // An Mcp-Session-Id the gateway did not issue (signed) is unknown: 404.
    let r = post(call(2, "x"))
        .header(
            "mcp-session-id",
            "0123456789abcdef0123456789abcdef.0123456789abcdef0123456789abcdef",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);

    // Mcp-Method / Mcp-Name that disagree with the body are refused; agreeing ones pass.
    let r = post(call(2, "x"))
        .header("x-veil-session", "gamma-1")
        .header("mcp-method", "tools/list")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let r = post(call(2, "x"))
        .header("x-veil-session", "gamma-1")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "=?base64?dXBfX2VjaG8=?=")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "base64 form of up__echo accepted");
    let r = post(call(2, "x"))
        .header("x-veil-session", "gamma-1")
        .header("mcp-name", "up__other")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);

    // Mcp-Param-Text (the echo tool's `x-mcp-header`) must match the `text` argument as sent
    // (tokens and all), once the session has listed its tools.
    let list = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}).to_string();
    let r = post(list)
        .header("x-veil-session", "gamma-1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let _ = r.text().await.unwrap();
    let r = post(call(8, "[EMPLOYEE_ID_9] x"))
        .header("x-veil-session", "gamma-1")
        .header("mcp-param-text", "something else")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("Mcp-Param-Text"));
    let r = post(call(9, "Zoë x"))
        .header("x-veil-session", "gamma-1")
        .header("mcp-param-text", "=?base64?Wm/DqyB4?=")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the base64 form of the argument matches");

    // The configured header keys a session without initialize (stateless clients).
    let minted: Value = post(call(3, "id EMP-00000001"))
        .header("x-veil-session", "alpha-5b1e")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(minted["result"]["content"][0]["text"], "id [EMPLOYEE_ID_1]");
    let restored: Value = post(call(4, "[EMPLOYEE_ID_1]"))
        .header("x-veil-session", "alpha-5b1e")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(restored["result"]["content"][0]["text"], "[EMPLOYEE_ID_1]");
    // Another header value is another session: the token is refused there.
    let other: Value = post(call(5, "[EMPLOYEE_ID_1]"))
        .header("x-veil-session", "beta-77c2")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(other["result"]["isError"], true, "{other}");

    // GET needs an event-stream Accept; DELETE ends the session and its tokens.
    let r = http
        .get(&url)
        .bearer_auth(TOKEN)
        .header("x-veil-session", "alpha-5b1e")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 406);
    let r = http
        .get(&url)
        .bearer_auth(TOKEN)
        .header("x-veil-session", "alpha-5b1e")
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    drop(r);
    let r = http
        .delete(&url)
        .bearer_auth(TOKEN)
        .header("x-veil-session", "alpha-5b1e")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let after: Value = post(call(6, "[EMPLOYEE_ID_1]"))
        .header("x-veil-session", "alpha-5b1e")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(after["result"]["isError"], true, "{after}");

    // Health and metrics: counts only.
    let health = http
        .get(format!("{}/healthz", replica.base()))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), 200);
    let metrics = http
        .get(format!("{}/metrics", replica.base()))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(metrics.contains("mcp_veil_denials_total 2"), "{metrics}");
    assert!(metrics.contains("status=\"401\""), "{metrics}");
    assert!(!metrics.contains("EMP-") && !replica.stderr().contains("EMP-"));
    assert!(!replica.stderr().contains(TOKEN));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn principals_key_sessions_and_the_shared_session_is_opt_in() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens");
    std::fs::write(
        &tokens,
        "# principal token\nalice tok-alice-1-5e8c0d\nbob tok-bob-2-a94f71c3\n",
    )
    .unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         servers:\n  up:\n    url: {upstream}\n\
         serve:\n  auth:\n    token_file: {}\n  session:\n    principal: true\n",
        tokens.display()
    );
    let config = write_config(dir.path(), &yaml);
    let replica = Replica::start(&veil(), &config, &[]);
    let http = reqwest::Client::new();
    let ask = |token: &'static str, body: String| {
        let req = http
            .post(&replica.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .bearer_auth(token)
            .body(body);
        async move { req.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let minted = ask("tok-alice-1-5e8c0d", call(1, "EMP-00000009")).await;
    assert_eq!(minted["result"]["content"][0]["text"], "[EMPLOYEE_ID_1]");
    let again = ask("tok-alice-1-5e8c0d", call(2, "[EMPLOYEE_ID_1]")).await;
    assert_eq!(again["result"]["content"][0]["text"], "[EMPLOYEE_ID_1]");
    assert_eq!(again["result"]["isError"], Value::Null);
    // Bob is another session: Alice's token means nothing there.
    let bob = ask("tok-bob-2-a94f71c3", call(3, "[EMPLOYEE_ID_1]")).await;
    assert_eq!(bob["result"]["isError"], true, "{bob}");

    // Without `shared: true` a keyless call is refused; with it, one session serves them.
    let shared_yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         servers:\n  up:\n    url: {upstream}\nserve:\n  session:\n    shared: true\n"
    );
    let shared_dir = tempfile::tempdir().unwrap();
    let shared = Replica::start(&veil(), &write_config(shared_dir.path(), &shared_yaml), &[]);
    let post = |body: String| {
        let req = http
            .post(&shared.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .body(body);
        async move { req.send().await.unwrap().json::<Value>().await.unwrap() }
    };
    let first = post(call(1, "EMP-00000010")).await;
    assert_eq!(first["result"]["content"][0]["text"], "[EMPLOYEE_ID_1]");
    let second = post(call(2, "[EMPLOYEE_ID_1]")).await;
    assert_eq!(second["result"]["isError"], Value::Null, "{second}");
    assert_eq!(
        echo.mismatches.load(std::sync::atomic::Ordering::Relaxed),
        0
    );
}

#[test]
fn a_non_loopback_address_needs_auth() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "servers:\n  up:\n    url: http://127.0.0.1:9/mcp\n",
    );
    let out = std::process::Command::new(veil())
        .args(["serve", "--config"])
        .arg(&config)
        .args(["--listen", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("requires `serve.auth`"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sessions_are_closed_and_come_back_from_the_vault() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         servers:\n  up:\n    url: {upstream}\nserve:\n  session:\n    idle_seconds: 1\n"
    );
    let replica = Replica::start(&veil(), &write_config(dir.path(), &yaml), &[]);
    let http = reqwest::Client::new();
    let mut client = support::load::Client::new(http.clone());
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "t", "version": "1"}});
    client
        .request(&replica.url, "initialize", init)
        .await
        .unwrap();
    let minted = client
        .request(
            &replica.url,
            "tools/call",
            json!({"name": "up__echo", "arguments": {"text": "EMP-00000077"}}),
        )
        .await
        .unwrap();
    assert_eq!(minted["result"]["content"][0]["text"], "[EMPLOYEE_ID_1]");
    let metrics = || async {
        http.get(format!("{}/metrics", replica.base()))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    assert!(metrics().await.contains("mcp_veil_sessions 1"));
    // Idle past `idle_seconds`: this replica closes the session's upstreams ...
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !metrics().await.contains("mcp_veil_sessions 0") {
        assert!(
            std::time::Instant::now() < deadline,
            "the idle session was not closed"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // ... but the vault table lives on: the same session id restores the token.
    let back = client
        .request(&replica.url, "tools/call", json!({"name": "up__echo", "arguments": {"text": "[EMPLOYEE_ID_1]", "session": 0, "k": 77}}))
        .await
        .unwrap();
    assert_eq!(
        back["result"]["content"][0]["text"], "[EMPLOYEE_ID_1]",
        "{back}"
    );
    assert_eq!(echo.restored.load(std::sync::atomic::Ordering::Relaxed), 1);
}
