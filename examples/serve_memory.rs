//! Memory per idle session of `mcp-veil serve` (memory vault), measured from outside: the
//! gateway runs as its own process in front of an in-process streamable-HTTP echo server;
//! SESSIONS sessions are opened (`initialize` plus one `tools/call` that mints one token each)
//! and left idle; the gateway's resident set (VmRSS) before and after gives bytes per session.
//!
//! ```sh
//! cargo build --release --bin mcp-veil --example serve_memory
//! target/release/examples/serve_memory [SESSIONS=10000]
//! ```
//!
//! A session here holds its gateway (interceptor, correlation tables, channels, tasks), its HTTP
//! upstream task and its vault table with one entry. Stdio upstreams would add one child
//! process per session on top (not counted: they are other processes).

// The report is this example's output; stdout is not an MCP wire here.
#![allow(clippy::print_stdout)]

#[path = "../tests/support/http_echo.rs"]
#[allow(dead_code)]
mod http_echo;
#[path = "../tests/support/load.rs"]
#[allow(dead_code)]
mod load;
#[path = "../tests/support/serve.rs"]
#[allow(dead_code)]
mod serve;

use std::sync::Arc;

use serde_json::json;

fn rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("procfs");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS");
    kb * 1024
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let sessions: u64 = std::env::args()
        .nth(1)
        .map_or(10_000, |a| a.parse().expect("SESSIONS"));
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
    let echo = Arc::new(http_echo::Echo::default());
    let upstream = http_echo::start(echo).await;
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("veil.yaml");
    std::fs::write(
        &config,
        format!(
            "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
             servers:\n  up:\n    url: {upstream}\nserve:\n  session:\n    max_sessions: {}\n",
            sessions + 10
        ),
    )
    .unwrap();
    let replica = serve::Replica::start(&veil, &config, &[]);
    let pid = replica.pid();
    let http = reqwest::Client::new();
    // Warm up (first session, allocator arenas), then measure.
    open(&http, &replica.url, 9_999).await;
    let before = rss_bytes(pid);
    let batch = 200;
    let mut s = 0;
    while s < sessions {
        let opens = (s..(s + batch).min(sessions)).map(|i| open(&http, &replica.url, i));
        futures::future::join_all(opens).await;
        s += batch;
    }
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let after = rss_bytes(pid);
    let per = (after.saturating_sub(before)) as f64 / sessions as f64;
    println!(
        "{sessions} idle sessions (memory vault, one token each, HTTP upstream): \
         RSS {:.1} MiB -> {:.1} MiB, {:.0} bytes per session",
        before as f64 / 1048576.0,
        after as f64 / 1048576.0,
        per
    );
}

async fn open(http: &reqwest::Client, url: &str, s: u64) {
    let mut client = load::Client::new(http.clone());
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "mem", "version": "1"}});
    client
        .request(url, "initialize", init)
        .await
        .expect("initialize");
    let raw = http_echo::value(s, 1);
    let r = client
        .request(
            url,
            "tools/call",
            json!({"name": "up__echo", "arguments": {"text": raw}}),
        )
        .await
        .expect("call");
    assert!(r.get("result").is_some(), "{r}");
}
