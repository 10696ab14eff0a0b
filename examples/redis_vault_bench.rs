//! Mint and resolve latency of the Redis vault, per batch (one message).
//!
//! ```sh
//! .ci/install-redis.sh            # once, if redis-server is missing
//! cargo run --release --example redis_vault_bench
//! # or against a running Redis:
//! MCP_VEIL_BENCH_REDIS_URL=redis://10.0.0.5:6379/0 cargo run --release --example redis_vault_bench
//! ```
//!
//! Without `MCP_VEIL_BENCH_REDIS_URL` it starts its own `redis-server` on a free loopback port
//! (no persistence), so the figures are loopback round trips plus sealing, fingerprints and the
//! Lua script. Each scenario runs one batch at a time on one session and prints the median, p99
//! and mean of the whole `mint`/`resolve` call. "after another replica" measures a batch whose
//! replica's hints are stale (a second replica minted into the session just before), which costs
//! a second script call.
//!
//! Measured 2026-11-30 (release, loopback Redis 7.0.15, 2-core AMD EPYC VM shared with other
//! builds, load average ~6, so p99 is mostly scheduling noise):
//!
//! ```text
//! mint 1 new value(s)                n=2000  median=  66.8µs p99=   3.4ms
//! mint 1 known value(s)              n=2000  median=  56.7µs p99=   3.5ms
//! mint 1 new, after another replica  n=2000  median= 125.5µs p99=   5.5ms
//! resolve 1 token(s)                 n=2000  median=  53.0µs p99=   3.9ms
//! mint 50 new value(s)               n=400   median= 506.0µs p99=   6.4ms
//! mint 50 known value(s)             n=400   median= 178.0µs p99=   5.5ms
//! mint 50 new, after another replica n=400   median= 576.2µs p99=   9.6ms
//! mint 50 values, half new           n=400   median= 343.0µs p99=   5.5ms
//! resolve 50 token(s)                n=400   median= 150.2µs p99=   3.1ms
//! ```

#![allow(clippy::print_stdout)]

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_veil::Kind;
use mcp_veil::token::Token;
use mcp_veil::vault::{MintRequest, RedisVault, SessionId, VaultBackend, VaultKey};

/// Kills the spawned server on exit.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn_redis(dir: &std::path::Path) -> (Server, String) {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let child = Command::new("redis-server")
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .arg("--dir")
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server (install it with .ci/install-redis.sh)");
    let server = Server(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "redis-server did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
    (server, format!("redis://127.0.0.1:{port}/0"))
}

fn requests<'a>(kind: &'a Kind, values: &'a [String]) -> Vec<MintRequest<'a>> {
    values
        .iter()
        .map(|v| MintRequest {
            kind,
            value: v,
            canonical: None,
        })
        .collect()
}

fn report(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let pick = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
    println!(
        "{name:<34} n={:<5} median={:>8.1?} p99={:>8.1?} mean={:>8.1?}",
        samples.len(),
        pick(0.5),
        pick(0.99),
        mean
    );
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (_server, url) = match std::env::var("MCP_VEIL_BENCH_REDIS_URL") {
        Ok(url) => (None, url),
        Err(_) => {
            let (s, url) = spawn_redis(dir.path());
            (Some(s), url)
        }
    };
    let replica = || {
        RedisVault::new(
            &url,
            VaultKey::from_bytes(&[42; 32]),
            Duration::from_secs(600),
            1_000_000,
        )
        .expect("vault")
    };
    let vault = replica();
    // A second replica, for batches that arrive after another replica minted into the session.
    let other = replica();
    other.check().await.expect("redis answers");
    vault.check().await.expect("redis answers");
    let email = Kind::Email;
    let run = std::process::id();
    let mut counter = 0u64;
    let mut fresh = |n: usize| -> Vec<String> {
        (0..n)
            .map(|_| {
                counter += 1;
                format!("user{counter}.{run}@example.com")
            })
            .collect()
    };

    // Warm the connection and the script cache.
    let warm = SessionId::random();
    for _ in 0..50 {
        let v = fresh(5);
        vault
            .mint(&warm, "bench", &requests(&email, &v))
            .await
            .unwrap();
    }

    println!("redis vault batch latency ({url})");
    for (size, iterations) in [(1usize, 2000usize), (50, 400)] {
        let session = SessionId::random();
        let mut new_times = Vec::with_capacity(iterations);
        let mut known_times = Vec::with_capacity(iterations);
        let mut resolve_times = Vec::with_capacity(iterations);
        let mut mixed_times = Vec::with_capacity(iterations);
        let mut stale_times = Vec::with_capacity(iterations);
        for _ in 0..iterations {
            let values = fresh(size);
            let batch = requests(&email, &values);
            let t = Instant::now();
            let tokens: Vec<Token> = vault.mint(&session, "bench", &batch).await.unwrap();
            new_times.push(t.elapsed());

            let t = Instant::now();
            let again = vault.mint(&session, "bench", &batch).await.unwrap();
            known_times.push(t.elapsed());
            assert_eq!(again, tokens);

            let t = Instant::now();
            let entries = vault.resolve(&session, &tokens).await.unwrap();
            resolve_times.push(t.elapsed());
            assert!(entries.iter().all(Option::is_some));

            // The other replica mints first, so this replica's counters are stale: the first
            // script call is refused and the batch is committed by a second one.
            let other_values = fresh(1);
            other
                .mint(&session, "bench", &requests(&email, &other_values))
                .await
                .unwrap();
            let values = fresh(size);
            let t = Instant::now();
            vault
                .mint(&session, "bench", &requests(&email, &values))
                .await
                .unwrap();
            stale_times.push(t.elapsed());

            if size > 1 {
                // Half known, half new: the common shape of a follow-up message.
                let mut mixed = values[..size / 2].to_vec();
                mixed.extend(fresh(size - size / 2));
                let t = Instant::now();
                vault
                    .mint(&session, "bench", &requests(&email, &mixed))
                    .await
                    .unwrap();
                mixed_times.push(t.elapsed());
            }
        }
        report(&format!("mint {size} new value(s)"), new_times);
        report(&format!("mint {size} known value(s)"), known_times);
        report(
            &format!("mint {size} new, after another replica"),
            stale_times,
        );
        if !mixed_times.is_empty() {
            report(&format!("mint {size} values, half new"), mixed_times);
        }
        report(&format!("resolve {size} token(s)"), resolve_times);
    }
}
