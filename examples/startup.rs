//! Start-up and first-call latency: what a fresh process pays before its first answer.
//!
//! Run: `cargo run --release --example startup [-- ROUNDS]` (default 15 rounds).
//!
//! Every figure needs a fresh process (the detector's tables live in process-wide statics once
//! built), so the driver re-runs this binary once per round and stage and reports medians:
//!
//! - `build`: `Detector::new` with the default configuration, and with each kind switched off
//!   alone (what that kind's tables cost);
//! - `first` / `tenth`: the first and the tenth `Engine::tokenize_json` of the same 10 KB MCP
//!   tool result holding emails, phones, names and a card, in one process (the proxy's first
//!   tool result against a warm one): cold, and after `walk::warm_up`, which the proxy and
//!   `serve` run at start (its own time is printed too);
//! - `cli`: wall time of `mcp-veil redact` on an empty input, a line of prose and a line with a
//!   phone number, when `target/release/mcp-veil` exists.
//!
//! The machines are shared and noisy: read the ratios (first/tenth, each stage against the
//! empty CLI run) more than the absolute times.

#![allow(clippy::print_stdout)]

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use mcp_veil::detect::DetectConfig;
use mcp_veil::vault::{MemoryVault, SessionId};
use mcp_veil::{Detector, Engine, testdata, walk};

/// The configurations `build` times: the default, then each kind off alone.
fn configs() -> Vec<(&'static str, DetectConfig)> {
    let base = DetectConfig::default();
    let off = |f: fn(&mut DetectConfig)| {
        let mut c = base.clone();
        f(&mut c);
        c
    };
    vec![
        ("default", base.clone()),
        ("names off", off(|c| c.name = false)),
        ("phone off", off(|c| c.phone = false)),
        ("secrets off", off(|c| c.secret = false)),
        (
            "cards/iban/ssn off",
            off(|c| {
                c.credit_card = false;
                c.iban = false;
                c.us_ssn = false;
            }),
        ),
        (
            "all off",
            off(|c| {
                c.name = false;
                c.phone = false;
                c.secret = false;
                c.email = false;
                c.credit_card = false;
                c.iban = false;
                c.us_ssn = false;
                c.ip_address = false;
            }),
        ),
    ]
}

/// One stage in this process; prints microseconds on stdout.
fn child(stage: &str, which: usize) {
    match stage {
        "build" => {
            let (_, config) = configs().swap_remove(which);
            let t = Instant::now();
            let detector = Detector::new(&config).expect("valid configuration");
            println!("{}", t.elapsed().as_micros());
            drop(detector);
        }
        "calls" | "warmed" => {
            let detector = Arc::new(Detector::with_defaults());
            // What the proxy and `serve` do at start, before the first message.
            let t = Instant::now();
            if stage == "warmed" {
                walk::warm_up(&detector);
            }
            let warm = t.elapsed().as_micros();
            let engine = Engine::new(detector, Arc::new(MemoryVault::default()));
            let session = SessionId::new("startup");
            let result = testdata::mcp_tool_result(7, 10 * 1024).text;
            let mut times = Vec::new();
            for _ in 0..10 {
                let t = Instant::now();
                block_on(engine.tokenize_json(&session, "startup", &result)).expect("tokenizes");
                times.push(t.elapsed().as_micros());
            }
            println!("{} {} {warm}", times[0], times[9]);
        }
        _ => panic!("unknown stage {stage}"),
    }
}

fn median(mut v: Vec<u128>) -> u128 {
    v.sort_unstable();
    v[v.len() / 2]
}

fn run_self(args: &[&str]) -> String {
    let exe = std::env::current_exe().expect("own path");
    let out = Command::new(exe).args(args).output().expect("runs itself");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

fn cli(bin: &str, input: &str, rounds: usize) -> u128 {
    median(
        (0..rounds)
            .map(|_| {
                let t = Instant::now();
                let mut child = Command::new(bin)
                    .arg("redact")
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("runs mcp-veil");
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .expect("stdin")
                    .write_all(input.as_bytes())
                    .expect("writes");
                child.wait().expect("waits");
                t.elapsed().as_micros()
            })
            .collect(),
    )
}

fn ms(us: u128) -> String {
    format!(
        "{:.1} ms",
        Duration::from_micros(us as u64).as_secs_f64() * 1e3
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, stage, which] = args.as_slice()
        && flag == "--child"
    {
        child(stage, which.parse().expect("an index"));
        return;
    }
    let rounds: usize = args.first().map_or(15, |r| r.parse().expect("ROUNDS"));
    println!("start-up, median of {rounds} fresh processes");
    println!("\nDetector::new");
    for (i, (label, _)) in configs().iter().enumerate() {
        let which = i.to_string();
        let t = median(
            (0..rounds)
                .map(|_| {
                    run_self(&["--child", "build", &which])
                        .parse()
                        .expect("micros")
                })
                .collect(),
        );
        println!("  {label:<20} {}", ms(t));
    }
    println!("\nEngine::tokenize_json, 10 KB tool result, one process");
    for (stage, label) in [
        ("calls", "cold"),
        ("warmed", "after walk::warm_up (the proxy, serve)"),
    ] {
        let (mut first, mut tenth, mut warm) = (Vec::new(), Vec::new(), Vec::new());
        // Alternating with the other stage would be fairer on a loaded machine; each stage's
        // first/tenth ratio is taken within one process, which is what it is read for.
        for _ in 0..rounds {
            let out = run_self(&["--child", stage, "0"]);
            let mut it = out.split(' ').map(|n| n.parse::<u128>().expect("micros"));
            first.push(it.next().expect("first"));
            tenth.push(it.next().expect("tenth"));
            warm.push(it.next().expect("warm-up"));
        }
        let (first, tenth, warm) = (median(first), median(tenth), median(warm));
        println!("  {label}");
        if stage == "warmed" {
            println!("    warm-up              {}", ms(warm));
        }
        println!("    first call           {}", ms(first));
        println!("    tenth call           {}", ms(tenth));
        println!(
            "    first / tenth        {:.1}x",
            first as f64 / tenth.max(1) as f64
        );
    }
    let bin = "target/release/mcp-veil";
    if std::path::Path::new(bin).exists() {
        println!("\n`{bin} redact`, wall time");
        for (label, input) in [
            ("empty input", ""),
            ("a line of prose", "The build passed on the second try.\n"),
            (
                "a line with a phone",
                "Call me at (415) 555-0132 tomorrow.\n",
            ),
            ("a line with a name", "Maria Garcia signed the form.\n"),
        ] {
            println!("  {label:<20} {}", ms(cli(bin, input, rounds)));
        }
    }
}
