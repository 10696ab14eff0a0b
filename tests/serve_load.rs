//! Load through `mcp-veil serve`: 100 concurrent sessions alternate between two replicas sharing
//! one Redis vault, in front of a streamable-HTTP upstream (`url:`). Every value the upstream
//! receives is the calling session's own (nothing mixed), every call succeeds (nothing lost),
//! and the client only ever sees tokens. Throughput and latency figures come from
//! `examples/http_load.rs`, not from here.
//!
//! Needs `redis-server` (`.ci/install-redis.sh`).

mod common;
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use common::*;
use support::http_echo::{self, Echo};
use support::load;
use support::redis_server::RedisServer;
use support::serve::Replica;

const KEY: &str = "8f3c0d2a9b7e6f5a4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c";
const SESSIONS: u64 = 100;
const ROUNDS: u64 = 5;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hundred_sessions_across_two_replicas_never_mix() {
    let redis = RedisServer::start();
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{6,8}}'\n\
         vault:\n  backend: redis\n  url: {}\n\
         servers:\n  up:\n    url: {upstream}\n",
        redis.url()
    );
    let config = write_config(dir.path(), &yaml);
    let env = [
        ("MCP_VEIL_VAULT_KEY", KEY),
        ("MCP_VEIL_SESSION_SECRET", "replicas-share-this-secret"),
    ];
    let a = Replica::start(&veil(), &config, &env);
    let b = Replica::start(&veil(), &config, &env);

    let http = reqwest::Client::new();
    let runs = (0..SESSIONS).map(|s| {
        let http = http.clone();
        let urls = [a.url.clone(), b.url.clone()];
        tokio::spawn(async move {
            let mut latencies = Vec::new();
            load::run_session(
                http,
                [&urls[0], &urls[1]],
                "up__echo",
                true,
                s,
                ROUNDS,
                &mut latencies,
            )
            .await
        })
    });
    let results = futures::future::join_all(runs).await;
    let failures: Vec<String> = results
        .into_iter()
        .filter_map(|r| r.unwrap().err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} sessions failed: {:?}",
        failures.len(),
        &failures[..failures.len().min(5)]
    );
    assert_eq!(
        echo.mismatches.load(Ordering::Relaxed),
        0,
        "a value reached the wrong session"
    );
    assert_eq!(echo.restored.load(Ordering::Relaxed), SESSIONS * ROUNDS);
    assert_eq!(echo.calls.load(Ordering::Relaxed), 2 * SESSIONS * ROUNDS);
    // Mcp-Name and Mcp-Param-Text agree with the body the upstream got (restored values).
    assert_eq!(echo.headers_inconsistent.load(Ordering::Relaxed), 0);
    assert_eq!(
        echo.headers_consistent.load(Ordering::Relaxed),
        2 * SESSIONS * ROUNDS
    );

    // Both replicas served, and their metrics count tokens by kind, never values.
    for replica in [&a, &b] {
        let metrics = http
            .get(format!("{}/metrics", replica.base()))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            metrics.contains("mcp_veil_tokens_restored_total{kind=\"EMPLOYEE_ID\"}"),
            "{metrics}"
        );
        assert!(!metrics.contains("EMP-"));
        assert!(!replica.stderr().contains("EMP-"));
    }
}
