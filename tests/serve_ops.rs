//! `mcp-veil serve` operations: `/healthz` is liveness and `/readyz` readiness (a real
//! redis-server started, killed and restarted under it); weak bearer tokens stop start-up with an
//! error naming their source and never the token. Needs `redis-server` and the npm peers.

mod common;
mod support;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use serde_json::Value;
use support::redis_server::RedisServer;
use support::serve::Replica;

const KEY: &str = "8f3c0d2a9b7e6f5a4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c";

async fn get(http: &reqwest::Client, url: &str) -> (u16, String) {
    let r = http.get(url).send().await.unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

/// Polls `/readyz` until it answers `status` (the vault reconnects in the background).
async fn readyz_until(http: &reqwest::Client, url: &str, status: u16) -> String {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let (got, body) = get(http, url).await;
        if got == status || Instant::now() > deadline {
            assert_eq!(got, status, "{body}");
            return body;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_follows_the_vault_and_healthz_stays_ok() {
    let mut redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "vault:\n  backend: redis\n  url: {}\nservers:\n  everything:\n    command: {}\n    args: [stdio]\n",
        redis.url(),
        npm_bin("mcp-server-everything").display()
    );
    let config = write_config(dir.path(), &yaml);
    let replica = Replica::start(&veil(), &config, &[("MCP_VEIL_VAULT_KEY", KEY)]);
    let http = reqwest::Client::new();
    let (healthz, readyz) = (
        format!("{}/healthz", replica.base()),
        format!("{}/readyz", replica.base()),
    );

    let body = readyz_until(&http, &readyz, 200).await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        serde_json::json!({"ready": true})
    );
    assert_eq!(get(&http, &healthz).await.0, 200);

    redis.stop();
    let body = readyz_until(&http, &readyz, 503).await;
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        serde_json::json!({"ready": false, "not_ready": ["vault"]})
    );
    assert!(
        !body.contains("redis://") && !body.contains("127.0.0.1"),
        "{body}"
    );
    // Liveness does not depend on the vault.
    assert_eq!(get(&http, &healthz).await, (200, "ok\n".to_string()));

    redis.restart();
    readyz_until(&http, &readyz, 200).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readyz_names_upstreams_that_cannot_serve_and_nothing_else() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "servers:\n  gone:\n    command: /nonexistent/secret-path/mcp-server\n  down:\n    url: http://{closed}/mcp\n  everything:\n    command: {}\n",
        npm_bin("mcp-server-everything").display()
    );
    let replica = Replica::start(&veil(), &write_config(dir.path(), &yaml), &[]);
    let http = reqwest::Client::new();
    let (status, body) = get(&http, &format!("{}/readyz", replica.base())).await;
    assert_eq!(status, 503);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        serde_json::json!({"ready": false, "not_ready": ["upstream down", "upstream gone"]})
    );
    assert!(!body.contains("secret-path") && !body.contains(&closed.to_string()));
}

#[test]
fn weak_bearer_tokens_stop_start_up_naming_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let everything = npm_bin("mcp-server-everything");
    let start = |yaml: String, env: &[(&str, &str)]| {
        let config = write_config(dir.path(), &yaml);
        let out = Command::new(veil())
            .args(["serve", "--config"])
            .arg(&config)
            .args(["--listen", "127.0.0.1:0"])
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let servers = format!("servers:\n  e:\n    command: {}\n", everything.display());
    for weak in ["abc", "aaaaaaaaaaaaaaaaaaaaaaaa", "0123456789abcde"] {
        let err = start(
            format!("{servers}serve:\n  auth:\n    token_env: VEIL_WEAK_TOKEN\n"),
            &[("VEIL_WEAK_TOKEN", weak)],
        );
        assert!(
            err.contains("variable `VEIL_WEAK_TOKEN`") && err.contains("16"),
            "{err}"
        );
        assert!(!err.contains(weak), "the token is in the error: {err}");
    }
    let tokens = dir.path().join("tokens");
    std::fs::write(
        &tokens,
        "# principal token\nalice 9f2c4e6a8b0d1357\nbob hunter2\n",
    )
    .unwrap();
    let err = start(
        format!(
            "{servers}serve:\n  auth:\n    token_file: {}\n",
            tokens.display()
        ),
        &[],
    );
    assert!(err.contains("line 3") && err.contains("tokens"), "{err}");
    assert!(!err.contains("hunter2"), "{err}");
}

/// SIGTERM stops `serve` with success, and its audit log ends in the closing seal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_closes_the_audit_log_with_a_seal() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("logs/audit.jsonl");
    let yaml = format!(
        "audit:\n  path: {}\nservers:\n  everything:\n    command: {}\n    args: [stdio]\n",
        log.display(),
        npm_bin("mcp-server-everything").display()
    );
    let audit_key = "c0ffee00".repeat(8);
    let mut replica = Replica::start(
        &veil(),
        &write_config(dir.path(), &yaml),
        &[("MCP_VEIL_AUDIT_KEY", &audit_key)],
    );
    let http = reqwest::Client::new();
    let post = |body: Value, sid: Option<&str>| {
        let mut req = http
            .post(&replica.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .body(body.to_string());
        if let Some(sid) = sid {
            req = req.header("mcp-session-id", sid);
        }
        req.send()
    };
    let init = post(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
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
    post(
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(&sid),
    )
    .await
    .unwrap();
    let result: Value = post(
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "everything__echo", "arguments": {"message": "mail maria.ortiz@example.com"}}}),
        Some(&sid),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert!(result.to_string().contains("[EMAIL_1]"), "{result}");

    let status = Command::new("kill")
        .args(["-TERM", &replica.pid().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    while replica.is_running() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!replica.is_running(), "serve did not stop on SIGTERM");
    let text = std::fs::read_to_string(&log).unwrap();
    let last = text.lines().last().unwrap();
    assert!(
        last.contains("\"event\":\"sealed\",\"seal\":\"close\""),
        "{text}"
    );
    assert!(!text.contains("maria.ortiz"));
    let out = Command::new(veil())
        .args(["audit", "verify", "--require-sealed"])
        .arg(&log)
        .env("MCP_VEIL_AUDIT_KEY", &audit_key)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&log), 0o600);
        assert_eq!(mode(log.parent().unwrap()), 0o700);
    }
}
