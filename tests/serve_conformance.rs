//! The official MCP conformance runner (server mode) against the conformance reference server
//! (`tests/conformance/reference_server.ts`), directly and through every front end: `serve`
//! with a `url:` and with a stdio upstream, `proxy --name` and `proxy --config` (the gateway).
//! The direct run is the baseline: the reference server must pass every scenario, and no
//! scenario may pass directly but fail through the layer. The work is in `conformance/run.sh`,
//! which can also be run by hand.
//!
//! Also the client scenarios (`conformance/run_client.sh`): against the rmcp layer, and with the
//! reference client directly and through `mcp-veil proxy --config` (a `url:` upstream).
//!
//! Needs `bash .ci/install-peers.sh` (Node 22 and the runner come from npm, pinned).

mod common;

use std::process::Command;

use common::*;

#[test]
fn every_front_end_passes_every_scenario_the_reference_server_passes() {
    run_sh(&[]);
}

/// The 2026-07-28 requirement set (stateless lifecycle) on every front end, after the default
/// run rather than beside it (both load the 2 cores; about 25 s, every scenario passing
/// directly).
#[test]
fn every_front_end_passes_the_2026_07_28_scenarios_the_reference_server_passes() {
    run_sh(&[
        ("CONFORMANCE_REQUIREMENTS", "2026-07-28"),
        ("CONFORMANCE_NEXT_ALL", "1"),
        ("CONFORMANCE_SKIP_0_1", "1"),
    ]);
}

/// Serialises the runs of `conformance/run.sh`.
static RUNS: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `conformance/run.sh` with `env` (one run at a time) and checks it found no extra
/// failure on any front end.
fn run_sh(env: &[(&str, &str)]) {
    let _one_at_a_time = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let out = Command::new("bash")
        .arg(root().join("conformance/run.sh"))
        .arg(veil())
        .envs(env.iter().copied())
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "conformance/run.sh failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("no extra failure through any front end"),
        "{stdout}"
    );
    for front in ["serve-url", "serve-stdio", "proxy", "proxy-config"] {
        assert!(stdout.contains(front), "{front} was not run:\n{stdout}");
    }
}

/// The runners' client scenarios (initialize, tools_call, SEP-1034 elicitation defaults, SSE
/// retry) against an rmcp client wrapped in mcp-veil (`examples/conformance_client.rs`), and
/// every non-OAuth client scenario with the reference client (`tests/conformance/
/// reference_client.ts`) directly and through `mcp-veil proxy --config` as its stdio server:
/// whatever passes directly passes through the proxy. Both runners (`conformance/
/// run_client.sh`, about 1 min).
#[test]
fn the_rmcp_layer_and_the_proxy_pass_the_client_scenarios() {
    let profile_dir = veil().parent().expect("a target dir").to_path_buf();
    let mut build = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build.args(["build", "--example", "conformance_client"]);
    if profile_dir.ends_with("release") {
        build.arg("--release");
    }
    assert!(
        build.status().expect("cargo runs").success(),
        "the example builds"
    );
    let client = profile_dir.join("examples/conformance_client");
    let out = Command::new("bash")
        .arg(root().join("conformance/run_client.sh"))
        .arg(&client)
        .arg(veil())
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "conformance/run_client.sh failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("client 0.1.16  4/4"), "{stdout}");
    assert!(stdout.contains("client 0.2     4/4"), "{stdout}");
    // The reference client has no handler for 0.2's three HTTP header scenarios.
    assert!(
        stdout.contains("reference 0.1.16  direct 4/4, proxy 4/4"),
        "{stdout}"
    );
    assert!(
        stdout.contains("reference 0.2     direct 11/14, proxy 11/14"),
        "{stdout}"
    );
}
