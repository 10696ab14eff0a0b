//! The leak benchmark's floor: `benches/leak/leakbench.py --quick` (real mcp-server-git,
//! mcp-server-sqlite, server-filesystem and server-memory over generated people, read directly
//! and through `mcp-veil proxy`) must not leak more, nor mint more false tokens, than the figures
//! below, and every round-trip check must hold.
//!
//! The floors are today's quick-size figures (seed 1) plus a small margin; lower them as
//! detection improves (the benchmark prints the figures). Needs `bash .ci/install-peers.sh`: with
//! `CI` set a missing peer fails the test, otherwise it skips with a message.

use std::path::{Path, PathBuf};
use std::process::Command;

/// % of distinct personal values that reached the client in the clear, overall.
const MAX_LEAK_PCT: f64 = 1.0;
/// % per server.
const MAX_LEAK_PCT_PER_SERVER: [(&str, f64); 4] = [
    ("filesystem", 1.0),
    ("git", 1.0),
    ("memory", 1.0),
    ("sqlite", 1.0),
];
/// % of tokens whose covered text is no planted personal value.
const MAX_FALSE_PCT: f64 = 3.0;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn peers_missing(root: &Path) -> Vec<PathBuf> {
    [
        ".venv/bin/python",
        ".venv/bin/mcp-server-git",
        ".venv-servers/bin/mcp-server-sqlite",
        "node_modules/.bin/mcp-server-filesystem",
        "node_modules/.bin/mcp-server-memory",
    ]
    .iter()
    .map(|p| root.join(p))
    .filter(|p| !p.exists())
    .collect()
}

#[test]
fn leak_benchmark_stays_at_or_under_the_floor() {
    let root = root();
    let missing = peers_missing(&root);
    if !missing.is_empty() {
        let msg = format!(
            "leak floor: peers missing ({}); run `bash .ci/install-peers.sh`",
            missing
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        if std::env::var_os("CI").is_some() {
            panic!("{msg}");
        }
        eprintln!("\n!!! SKIPPED: {msg}\n");
        return;
    }
    let work = root.join("target").join("leak_floor");
    let out = work.join("report.json");
    let status = Command::new(root.join(".venv/bin/python"))
        .arg(root.join("benches/leak/leakbench.py"))
        .args([
            "--quick",
            "--seed",
            "1",
            "--veil",
            env!("CARGO_BIN_EXE_mcp-veil"),
        ])
        .arg("--work")
        .arg(work.join("data"))
        .arg("--out")
        .arg(&out)
        .status()
        .expect("run the leak benchmark");
    assert!(status.success(), "the leak benchmark failed: {status}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("report")).expect("json");

    let mut failures = Vec::new();
    let overall = &report["overall"];
    let leak = overall["leak_pct"].as_f64().expect("leak_pct");
    if leak > MAX_LEAK_PCT {
        failures.push(format!("overall leak {leak}% > floor {MAX_LEAK_PCT}%"));
    }
    for (server, floor) in MAX_LEAK_PCT_PER_SERVER {
        let r = &report["per_server"][server];
        let pct = r["leak_pct"].as_f64().unwrap_or(f64::INFINITY);
        if pct > floor || r["present"].as_u64().unwrap_or(0) == 0 {
            failures.push(format!(
                "{server}: leak {pct}% > floor {floor}% (or nothing read)"
            ));
        }
    }
    let false_pct = overall["false_pct"].as_f64().expect("false_pct");
    if false_pct > MAX_FALSE_PCT {
        failures.push(format!(
            "false tokens {false_pct}% > floor {MAX_FALSE_PCT}%"
        ));
    }
    // A tool error or a proxied answer that lost content would hide leaks: none is allowed.
    for e in report["errors"].as_array().into_iter().flatten() {
        failures.push(format!("tool error: {}", e.as_str().unwrap_or_default()));
    }
    let checks = report["checks"].as_array().expect("checks");
    assert!(checks.len() >= 11, "every round-trip check ran: {checks:?}");
    for c in checks {
        let name = c["name"].as_str().unwrap_or_default();
        let holds = c["holds"].as_bool().unwrap_or(false);
        if !holds {
            failures.push(format!("round-trip check does not hold: {name}"));
        }
    }
    eprintln!(
        "leak floor: {leak}% leaked (floor {MAX_LEAK_PCT}%), {false_pct}% false tokens \
         (floor {MAX_FALSE_PCT}%)"
    );
    assert!(failures.is_empty(), "leak floor: {failures:#?}");
}
