//! Throughput and added latency of `mcp-veil serve`: concurrent sessions alternate between two
//! replicas sharing one Redis vault, in front of a streamable-HTTP echo server (`url:`); the
//! same pattern straight against the echo server gives the baseline.
//!
//! ```sh
//! .ci/install-redis.sh     # once, if redis-server is missing
//! cargo build --release --bin mcp-veil --example http_load
//! target/release/examples/http_load [SESSIONS=100] [CALLS_PER_SESSION=1000]
//! ```
//!
//! Each session: `initialize`, then rounds of two `tools/call`s: one whose result holds a fresh
//! employee id (the client must see `[EMPLOYEE_ID_k]`), one sending that token to the other
//! replica (the echo server checks it received the session's own value). Every call is checked;
//! any error, raw value or cross-session value aborts the run. Latency is per call, seen by the
//! client; "added" is gateway minus direct at the same quantile. See `src/mcp/serve/README.md`
//! for measured figures.

// The report is this example's output; stdout is not an MCP wire here.
#![allow(clippy::print_stdout)]

#[path = "../tests/support/http_echo.rs"]
#[allow(dead_code)]
mod http_echo;
#[path = "../tests/support/load.rs"]
#[allow(dead_code)]
mod load;
#[path = "../tests/support/redis_server.rs"]
#[allow(dead_code)]
mod redis_server;
#[path = "../tests/support/serve.rs"]
#[allow(dead_code)]
mod serve;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

const KEY: &str = "8f3c0d2a9b7e6f5a4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c";

async fn run(
    urls: [String; 2],
    tool: &'static str,
    gateway: bool,
    sessions: u64,
    rounds: u64,
) -> (Duration, Vec<Duration>) {
    let http = reqwest::Client::new();
    let started = Instant::now();
    let runs = (0..sessions).map(|s| {
        let (http, urls) = (http.clone(), urls.clone());
        tokio::spawn(async move {
            let mut lat = Vec::with_capacity(2 * rounds as usize);
            load::run_session(
                http,
                [&urls[0], &urls[1]],
                tool,
                gateway,
                s,
                rounds,
                &mut lat,
            )
            .await
            .map(|()| lat)
        })
    });
    let mut all = Vec::new();
    for r in futures::future::join_all(runs).await {
        match r.expect("session task") {
            Ok(lat) => all.extend(lat),
            Err(e) => panic!("a session failed: {e}"),
        }
    }
    (started.elapsed(), all)
}

fn report(name: &str, elapsed: Duration, lat: &mut [Duration]) -> (Duration, Duration) {
    let (p50, p99) = (load::quantile(lat, 0.5), load::quantile(lat, 0.99));
    println!(
        "{name:<8} calls={:<7} {:>8.0} calls/s  p50={:>8.2?}  p99={:>8.2?}",
        lat.len(),
        lat.len() as f64 / elapsed.as_secs_f64(),
        p50,
        p99
    );
    (p50, p99)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let sessions: u64 = args.next().map_or(100, |a| a.parse().expect("SESSIONS"));
    let calls: u64 = args
        .next()
        .map_or(1000, |a| a.parse().expect("CALLS_PER_SESSION"));
    let rounds = (calls / 2).max(1);
    let veil = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(|p| p.parent())
        .unwrap()
        .join("mcp-veil");
    assert!(
        veil.exists(),
        "build the binary first: cargo build --release --bin mcp-veil"
    );

    let redis = redis_server::RedisServer::start();
    let echo = Arc::new(http_echo::Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("veil.yaml");
    std::fs::write(
        &config,
        format!(
            "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{6,8}}'\n\
             vault:\n  backend: redis\n  url: {}\nservers:\n  up:\n    url: {upstream}\n",
            redis.url()
        ),
    )
    .unwrap();
    let env = [
        ("MCP_VEIL_VAULT_KEY", KEY),
        ("MCP_VEIL_SESSION_SECRET", "replicas-share-this-secret"),
    ];
    let a = serve::Replica::start(&veil, &config, &env);
    let b = serve::Replica::start(&veil, &config, &env);

    println!(
        "{sessions} sessions x {} calls, two replicas, Redis vault",
        2 * rounds
    );
    let (t, mut direct) = run(
        [upstream.clone(), upstream.clone()],
        "echo",
        false,
        sessions,
        rounds,
    )
    .await;
    let (d50, d99) = report("direct", t, &mut direct);
    let before = echo.restored.load(Ordering::Relaxed);
    let (t, mut gw) = run(
        [a.url.clone(), b.url.clone()],
        "up__echo",
        true,
        sessions,
        rounds,
    )
    .await;
    let (g50, g99) = report("gateway", t, &mut gw);
    assert_eq!(
        echo.mismatches.load(Ordering::Relaxed),
        0,
        "a value reached the wrong session"
    );
    assert_eq!(
        echo.restored.load(Ordering::Relaxed) - before,
        sessions * rounds,
        "every restoration arrived"
    );
    println!(
        "added    p50={:>8.2?}  p99={:>8.2?}  (every call checked: no error, no raw value, no mix)",
        g50.saturating_sub(d50),
        g99.saturating_sub(d99)
    );
}
