//! The official MCP conformance runner (server mode) against server-everything in
//! streamableHttp mode, directly and through `mcp-veil serve`: both runs must match their
//! recorded baselines (`conformance/baseline-*.yml`) and the gateway may add no failure. The
//! work is in `conformance/run.sh`, which can also be run by hand.
//!
//! Needs `bash .ci/install-peers.sh` (Node 22 and the runner come from npm, pinned).

mod common;

use std::process::Command;

use common::*;

#[test]
fn gateway_passes_every_scenario_server_everything_passes() {
    let out = Command::new("bash")
        .arg(root().join("conformance/run.sh"))
        .arg(veil())
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "conformance/run.sh failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("no extra failure through the gateway"),
        "{stdout}"
    );
}
