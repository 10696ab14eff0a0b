//! Engine throughput by on-CPU time, for machines shared with other work.
//!
//! Run: `cargo run --release --example throughput [SECONDS_PER_WORKLOAD] [FILTER]` (default 2
//! seconds; only the workloads whose name contains FILTER). Workloads marked `(no names)` run
//! with `detect.names_in_text: false`, to show the rest of the path without the free-text name
//! finder. With 0 seconds each workload runs a fixed four times (for callgrind).
//!
//! The criterion bench (`cargo bench --bench engine`) measures wall-clock time, which on a loaded
//! machine counts the time this thread waited for a core. This example runs the same workloads
//! (same generators, same sizes) in a loop and divides the bytes by the thread's on-CPU time from
//! `/proc/thread-self/schedstat` (Linux), next to the wall-clock figure. Single thread.
//!
//! The `detect:` rows time the detector alone (no session, no tokens) on the same prose, as one
//! text and line by line.
//!
//! With `REFCORPUS=DIR` (a reference corpus made by `../shared/bench/gen_corpus.py`, see
//! `benches/refcorpus/run.py`) the `ref:` rows run its three files first, as `mcp-veil redact`
//! does: `mcp_contacts.json` through `tokenize_json`, `prose.txt` and `clean.txt` through
//! `tokenize_text`, each call in a fresh session (ended after the call), so no call recalls the
//! names of an earlier one.

// The report is this example's output; stdout is not an MCP wire here.
#![allow(clippy::print_stdout)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use mcp_veil::detect::{DetectConfig, FindContext};
use mcp_veil::testdata;
use mcp_veil::vault::{MemoryVault, SessionId};
use mcp_veil::{Detector, Engine, walk};

const MB: usize = 1 << 20;

/// Nanoseconds this thread has run on a CPU.
fn cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

fn measure(name: &str, bytes: usize, budget: Duration, mut f: impl FnMut()) {
    let filter = std::env::args().nth(2).unwrap_or_default();
    if !name.contains(&filter) {
        return;
    }
    f(); // warm up
    let (wall0, cpu0) = (Instant::now(), cpu_ns());
    let mut n = 0u64;
    while wall0.elapsed() < budget || n < 3 {
        f();
        n += 1;
    }
    let wall = wall0.elapsed().as_secs_f64();
    let total = (bytes as u64 * n) as f64 / MB as f64;
    let cpu = match (cpu0, cpu_ns()) {
        (Some(a), Some(b)) if b > a => format!("{:>10.1}", total / ((b - a) as f64 / 1e9)),
        _ => format!("{:>10}", "n/a"),
    };
    let per_call_us = wall / n as f64 * 1e6;
    println!(
        "{name:<34} {:>9} {:>10.1} {cpu} {per_call_us:>12.1}",
        bytes,
        total / wall
    );
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let budget = Duration::from_secs_f64(secs);
    let vault = Arc::new(MemoryVault::default());
    let engine = Engine::new(Arc::new(Detector::with_defaults()), vault.clone());
    // Each workload in a session of its own: a session that has tokenized names recalls them
    // in everything it scans later (`detect/recall.rs`): the row "session recalling prose names"
    // measures that.
    let s = SessionId::new("prose");

    println!(
        "{:<34} {:>9} {:>10} {:>10} {:>12}",
        "workload", "bytes", "MiB/s wall", "MiB/s CPU", "µs/call wall"
    );
    if let Ok(dir) = std::env::var("REFCORPUS") {
        let dir = std::path::Path::new(&dir);
        for (file, json) in [
            ("mcp_contacts.json", true),
            ("prose.txt", false),
            ("clean.txt", false),
        ] {
            let path = dir.join(file);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let mut n = 0u64;
            measure(&format!("ref: {file}"), text.len(), budget, || {
                n += 1;
                let s = SessionId::new(format!("ref {file} {n}"));
                if json {
                    black_box(block_on(engine.tokenize_json(&s, "x", &text)).unwrap());
                } else {
                    black_box(block_on(engine.tokenize_text(&s, "x", &text)).unwrap());
                }
                block_on(engine.end_session(&s)).unwrap();
            });
        }
    }
    let prose = testdata::prose(1, MB).text;
    measure("prose: tokenize_text", prose.len(), budget, || {
        black_box(block_on(engine.tokenize_text(&s, "x", &prose)).unwrap());
    });
    let crm = testdata::crm_json(2, MB).text;
    let s_prose = s.clone();
    let s = SessionId::new("json");
    measure("json_tool_result: tokenize_json", crm.len(), budget, || {
        black_box(block_on(engine.tokenize_json(&s, "x", &crm)).unwrap());
    });
    measure("json_scan: scan_json", crm.len(), budget, || {
        black_box(walk::scan_json(engine.detector(), &crm).unwrap());
    });
    let clean = testdata::clean_text(3, MB).text;
    let s = SessionId::new("clean");
    measure("clean_text: tokenize_text", clean.len(), budget, || {
        black_box(block_on(engine.tokenize_text(&s, "x", &clean)).unwrap());
    });
    let result = testdata::mcp_tool_result(4, 10 * 1024).text;
    let s = SessionId::new("latency");
    measure("latency_10kb: tokenize_json", result.len(), budget, || {
        black_box(block_on(engine.tokenize_json(&s, "x", &result)).unwrap());
    });
    let s = SessionId::new("rehydrate");
    let args = testdata::tool_call_arguments(&vault, &s);
    measure("rehydrate: rehydrate_json", args.len(), budget, || {
        black_box(block_on(engine.rehydrate_json(&s, &args)).unwrap());
    });

    measure(
        "clean_text, session recalling prose names",
        clean.len(),
        budget,
        || {
            black_box(block_on(engine.tokenize_text(&s_prose, "x", &clean)).unwrap());
        },
    );

    // The detector alone, without the engine (no session, no recall, no tokens): the prose as
    // one text, and line by line (about 2,000 lines of 520 bytes), as the short strings of
    // tool results reach it, where what each call costs besides its bytes shows.
    let lines: Vec<&str> = prose.split_inclusive('\n').collect();
    let detect_rows = |suffix: &str, detector: &Detector| {
        let mut spans = Vec::new();
        let cx = FindContext::default();
        measure(
            &format!("detect: prose{suffix}"),
            prose.len(),
            budget,
            || {
                detector.detect_into(&prose, &cx, &mut spans);
                black_box(&spans);
            },
        );
        measure(
            &format!("detect: prose lines{suffix}"),
            prose.len(),
            budget,
            || {
                for line in &lines {
                    detector.detect_into(line, &cx, &mut spans);
                    black_box(&spans);
                }
            },
        );
    };
    detect_rows("", engine.detector());

    let no_names = DetectConfig {
        names_in_text: false,
        ..DetectConfig::default()
    };
    let detector = Detector::new(&no_names).expect("the configuration is valid");
    detect_rows(" (no names)", &detector);
    let engine = Engine::new(Arc::new(detector), vault.clone());
    measure(
        "prose: tokenize_text (no names)",
        prose.len(),
        budget,
        || {
            black_box(
                block_on(engine.tokenize_text(&SessionId::new("prose, no names"), "x", &prose))
                    .unwrap(),
            );
        },
    );
    measure("json: tokenize_json (no names)", crm.len(), budget, || {
        black_box(
            block_on(engine.tokenize_json(&SessionId::new("json, no names"), "x", &crm)).unwrap(),
        );
    });
    measure("json: scan_json (no names)", crm.len(), budget, || {
        black_box(walk::scan_json(engine.detector(), &crm).unwrap());
    });
    measure(
        "clean_text: tokenize_text (no names)",
        clean.len(),
        budget,
        || {
            black_box(
                block_on(engine.tokenize_text(&SessionId::new("clean, no names"), "x", &clean))
                    .unwrap(),
            );
        },
    );
}
