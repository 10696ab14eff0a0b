//! Added latency of `mcp-veil proxy` per `tools/call`, against a direct connection.
//!
//! Runs `examples/echo_server.rs` directly and behind `mcp-veil proxy`, sends sequential
//! `tools/call` requests (small and 10 KB results, each with personal values to tokenize) and
//! prints the median and p99 round trip of each, and the difference. Each call's arguments carry
//! a token from an earlier result, so the proxy restores one value per call.
//!
//! The echo server also runs behind `examples/line_relay.rs`, a bare relay that only copies
//! lines: the `rly` columns are what those two extra pipe hops add, the floor under `added`.
//!
//! The proxy runs twice: with the default configuration (no rules, no audit log) and with
//! 1,000 flow rules (the matching one last) plus the audit log on (`fsync: interval`), so the
//! last columns are the cost of policy + audit per call (rule evaluation, the raw-PII scan of
//! the arguments, fingerprints and two or three appended audit lines).
//!
//! ```text
//! cargo build --release --bin mcp-veil --example echo_server --example line_relay \
//!     --example proxy_latency
//! target/release/examples/proxy_latency [CALLS]      # default 2000 calls per case
//! PROXY_LATENCY_FSYNC=never target/release/examples/proxy_latency   # audit fsync policy
//! PROXY_LATENCY_AUDIT=off target/release/examples/proxy_latency      # rules only
//! ```

#![allow(clippy::print_stdout)] // An example reports on stdout.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

struct Peer {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Peer {
    fn start(program: &Path, args: &[&str]) -> Peer {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut peer = Peer {
            child,
            stdin,
            stdout,
            line: String::new(),
        };
        peer.round_trip(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}"#);
        writeln!(
            peer.stdin,
            r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
        )
        .unwrap();
        peer
    }

    fn round_trip(&mut self, msg: &str) -> Duration {
        let start = Instant::now();
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
        self.line.clear();
        self.stdout.read_line(&mut self.line).unwrap();
        let took = start.elapsed();
        assert!(
            self.line.contains("\"result\"") && !self.line.contains("\"isError\":true"),
            "unexpected answer: {}",
            self.line
        );
        took
    }

    fn stop(self) {
        drop(self.stdin);
        let mut child = self.child;
        let _ = child.wait();
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx]
}

fn measure(peer: &mut Peer, size: &str, calls: usize) -> (Duration, Duration) {
    let msg = |id: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"lookup","arguments":{{"size":"{size}","who":"[EMPLOYEE_ID_1]"}}}}}}"#
        )
    };
    // The first result mints [EMPLOYEE_ID_1]; every later call restores it.
    peer.round_trip(&format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"lookup","arguments":{{"size":"{size}"}}}}}}"#
    ));
    for id in 2..=calls / 10 {
        peer.round_trip(&msg(id));
    }
    let mut times: Vec<Duration> = (0..calls)
        .map(|i| peer.round_trip(&msg(100_000 + i)))
        .collect();
    times.sort();
    (percentile(&times, 0.5), percentile(&times, 0.99))
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("CALLS is a number"))
        .unwrap_or(2000);
    let here = std::env::current_exe().unwrap();
    let examples = here.parent().unwrap();
    let echo: PathBuf = examples.join("echo_server");
    let relay: PathBuf = examples.join("line_relay");
    let veil: PathBuf = examples.parent().unwrap().join("mcp-veil");
    for p in [&echo, &relay, &veil] {
        assert!(
            p.exists(),
            "{} is missing: cargo build --release --bin mcp-veil --example echo_server \
             --example line_relay",
            p.display()
        );
    }
    let dir = std::env::temp_dir().join(format!("mcp-veil-latency-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("veil.yaml");
    let detect = "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{6}'\n";
    std::fs::write(&config, detect).unwrap();
    // 1,000 rules, none of which matches until the last one.
    let mut rules = String::from("flows:\n  default: deny\n  rules:\n");
    for n in 0..999 {
        rules.push_str(&format!(
            "    - name: r{n}\n      kinds: [EMPLOYEE_ID]\n      from: crm{n}/*\n      to: \"echo_server/*\"\n      args: [who]\n      action: deny\n"
        ));
    }
    rules.push_str("    - name: ids-to-echo\n      kinds: [EMPLOYEE_ID]\n      to: \"echo_server/*\"\n      action: allow\n");
    // `PROXY_LATENCY_FSYNC=never|interval|always` (default interval, the configuration default);
    // `PROXY_LATENCY_AUDIT=off`: the rules without the audit log.
    let fsync = std::env::var("PROXY_LATENCY_FSYNC").unwrap_or_else(|_| "interval".into());
    let audit = match std::env::var("PROXY_LATENCY_AUDIT").as_deref() {
        Ok("off") => String::new(),
        _ => format!(
            "audit:\n  path: {}\n  key_file: {}\n  required: true\n  fsync: {fsync}\n",
            dir.join("audit.jsonl").display(),
            dir.join("audit.key").display()
        ),
    };
    let policy_config = dir.join("policy.yaml");
    std::fs::write(&policy_config, format!("{detect}{rules}{audit}")).unwrap();
    std::fs::write(dir.join("audit.key"), "0123456789abcdef".repeat(4)).unwrap();

    println!(
        "{calls} sequential tools/call round trips per case (after {} warm-up calls)",
        calls / 10
    );
    println!(
        "{:<6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>12} {:>12}",
        "result",
        "dir p50",
        "dir p99",
        "rly50",
        "rly99",
        "prx p50",
        "prx p99",
        "added50",
        "added99",
        "pol p50",
        "pol p99",
        "pol+aud p50",
        "pol+aud p99"
    );
    println!(
        "(microseconds; rly = bare relay - direct; added = proxy - direct; \
         pol+aud = policy+audit proxy - plain proxy)"
    );
    for size in ["small", "10k"] {
        let mut direct = Peer::start(&echo, &[]);
        let (d50, d99) = measure(&mut direct, size, calls);
        direct.stop();
        let echo_s = echo.to_str().unwrap();
        let mut relayed = Peer::start(&relay, &[echo_s]);
        let (r50, r99) = measure(&mut relayed, size, calls);
        relayed.stop();
        let config = config.to_str().unwrap();
        let mut proxied = Peer::start(&veil, &["proxy", "--config", config, "--", echo_s]);
        let (p50, p99) = measure(&mut proxied, size, calls);
        proxied.stop();
        let policy = policy_config.to_str().unwrap();
        let mut governed = Peer::start(&veil, &["proxy", "--config", policy, "--", echo_s]);
        let (g50, g99) = measure(&mut governed, size, calls);
        governed.stop();
        println!(
            "{:<6} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>12.1} {:>12.1}",
            size,
            us(d50),
            us(d99),
            us(r50) - us(d50),
            us(r99) - us(d99),
            us(p50),
            us(p99),
            us(p50) - us(d50),
            us(p99) - us(d99),
            us(g50),
            us(g99),
            us(g50) - us(p50),
            us(g99) - us(p99)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
