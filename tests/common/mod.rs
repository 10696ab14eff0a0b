//! Helpers for the end-to-end tests: where the peers are, running the Python client scripts.
//!
//! The peers are installed by `.ci/install-peers.sh` (npm servers in `node_modules`, the Python
//! `mcp` SDK in `.venv`); a test that cannot find them fails with a message saying to run it.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The built `mcp-veil` binary.
pub(crate) fn veil() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcp-veil"))
}

/// An npm-installed server binary (`mcp-server-filesystem` ...).
pub(crate) fn npm_bin(name: &str) -> PathBuf {
    let path = root().join("node_modules/.bin").join(name);
    assert!(
        path.exists(),
        "{} is missing: run `bash .ci/install-peers.sh` first",
        path.display()
    );
    path
}

/// The venv's Python, with the `mcp` SDK.
pub(crate) fn python() -> PathBuf {
    let path = root().join(".venv/bin/python");
    assert!(
        path.exists(),
        "{} is missing: run `bash .ci/install-peers.sh` first",
        path.display()
    );
    path
}

/// Runs `tests/e2e/{script}` with `args`; returns its stdout parsed as JSON. Panics with the
/// script's stderr when it fails.
pub(crate) fn run_client(script: &str, args: &[&str]) -> serde_json::Value {
    let out = Command::new(python())
        .arg(root().join("tests/e2e").join(script))
        .args(args)
        .output()
        .expect("python runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{script} failed ({}):\n{stderr}",
        out.status
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{script} printed no JSON ({e}):\n{}\n{stderr}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Writes a configuration file into `dir` and returns its path.
pub(crate) fn write_config(dir: &Path, yaml: &str) -> PathBuf {
    let path = dir.join("veil.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

/// Asserts none of `raw` appears in `haystack` (checked also JSON-escaped).
pub(crate) fn assert_absent(haystack: &str, raw: &[&str], what: &str) {
    for (i, value) in raw.iter().enumerate() {
        let escaped = serde_json::to_string(value).unwrap();
        let escaped = &escaped[1..escaped.len() - 1];
        let at = haystack.find(value).or_else(|| haystack.find(escaped));
        // The message names the value's index and the text before it, never the value.
        if let Some(at) = at {
            let mut start = at.saturating_sub(120);
            while !haystack.is_char_boundary(start) {
                start += 1;
            }
            let before = &haystack[start..at];
            panic!("raw value #{i} leaked into {what}, after: {before:?}");
        }
    }
}

/// Every token (`[KIND_N]`) in `text`, in order, deduplicated.
pub(crate) fn tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for found in mcp_veil::token::find_tokens(text) {
        let t = text[found.start..found.end].to_string();
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}
