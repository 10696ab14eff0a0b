//! Upstream servers never see the layer's secrets: server-everything's `get-env` tool (it returns
//! its whole environment to the model) called through `proxy -- CMD`, the stdio gateway
//! (`proxy --config` with `servers:`) and `serve` (HTTP, a stdio upstream). The layer's
//! environment holds the audit and vault keys, the session secret, the `serve.auth` variable, a
//! `headers_from_env` variable and an unlisted variable: none of their names or values reach the
//! server. PATH and HOME do, and so do the `env:` and `env_passthrough` variables. Needs
//! `bash .ci/install-peers.sh`.

mod common;
mod support;

use std::process::Command;

use common::*;
use support::serve::Replica;

const TOOL: &str = "get-env";

/// (name, value) the layer has and no server may see.
const SECRETS: [(&str, &str); 6] = [
    (
        "MCP_VEIL_AUDIT_KEY",
        "a1d17a1d17a1d17a1d17a1d17a1d17a1d17a1d17a1d17a1d17a1d17a1d17a1d1",
    ),
    (
        "MCP_VEIL_VAULT_KEY",
        "7a017a017a017a017a017a017a017a017a017a017a017a017a017a017a017a01",
    ),
    ("MCP_VEIL_SESSION_SECRET", "session-secret-not-for-servers"),
    ("VEIL_E2E_SERVE_TOKEN", "serve-bearer-3c9f1e7a5b2d"),
    ("VEIL_E2E_HEADER_TOKEN", "upstream-header-8e2a4c6f"),
    ("VEIL_E2E_UNLISTED", "unlisted-value-5d7b9f13"),
];
const PASSED: (&str, &str) = ("VEIL_E2E_PASS", "passed-on-by-name");
const CONFIGURED: (&str, &str) = ("VEIL_E2E_CONFIGURED", "set-in-the-config");

/// The parts of the configuration that name secret sources (a `url:` server nobody reaches
/// and `serve.auth`).
fn secret_sources_yaml() -> String {
    "  crm:\n    url: http://127.0.0.1:9/mcp\n    headers_from_env: {Authorization: VEIL_E2E_HEADER_TOKEN}\n\
     serve:\n  auth:\n    token_env: VEIL_E2E_SERVE_TOKEN\n"
        .to_string()
}

fn everything_yaml() -> String {
    format!(
        "  everything:\n    command: {}\n    args: [stdio]\n    env: {{{}: {}}}\n    env_passthrough: [{}]\n",
        npm_bin("mcp-server-everything").display(),
        CONFIGURED.0,
        CONFIGURED.1,
        PASSED.0
    )
}

/// Runs `tests/e2e/env_client.py` with the secrets in its (and so the layer's) environment.
fn client(args: &[&str]) -> serde_json::Value {
    let out = Command::new(python())
        .arg(root().join("tests/e2e/env_client.py"))
        .args(args)
        .envs(SECRETS)
        .env(PASSED.0, PASSED.1)
        .output()
        .expect("python runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "env_client.py failed:\n{stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("no JSON ({e}):\n{stderr}"))
}

/// The checks shared by the three front ends.
fn assert_clean(summary: &serde_json::Value, configured: bool) {
    assert_eq!(summary["is_error"], false, "{summary}");
    let text = summary["text"].as_str().unwrap();
    for (name, value) in SECRETS {
        assert!(!text.contains(name), "`{name}` reached the server");
        assert!(
            !text.contains(value),
            "the value of `{name}` reached the server"
        );
    }
    // Variable names are not PII: the server's list reaches the client as it is.
    let env: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("get-env text is JSON: {e}"));
    for ordinary in ["PATH", "HOME"] {
        if std::env::var_os(ordinary).is_some() {
            assert!(
                env.contains_key(ordinary),
                "{ordinary} missing: {:?}",
                env.keys()
            );
        }
    }
    assert!(env.contains_key(PASSED.0), "{:?}", env.keys());
    assert_eq!(
        env.contains_key(CONFIGURED.0),
        configured,
        "{:?}",
        env.keys()
    );
    assert!(
        !env.keys().any(|k| k.starts_with("CARGO")),
        "{:?}",
        env.keys()
    );
}

#[test]
fn proxy_gives_the_server_a_clean_environment() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &format!("servers:\n{}", secret_sources_yaml()));
    let everything = npm_bin("mcp-server-everything");
    let summary = client(&[
        "stdio",
        TOOL,
        veil().to_str().unwrap(),
        "proxy",
        "--config",
        config.to_str().unwrap(),
        "--pass-env",
        PASSED.0,
        "--",
        everything.to_str().unwrap(),
        "stdio",
    ]);
    assert_clean(&summary, false);
}

#[test]
fn the_gateway_gives_each_server_a_clean_environment() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!("servers:\n{}{}", everything_yaml(), secret_sources_yaml()),
    );
    let summary = client(&[
        "stdio",
        &format!("everything__{TOOL}"),
        veil().to_str().unwrap(),
        "proxy",
        "--config",
        config.to_str().unwrap(),
    ]);
    assert_clean(&summary, true);
}

#[test]
fn serve_gives_stdio_upstreams_a_clean_environment() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!("servers:\n{}{}", everything_yaml(), secret_sources_yaml()),
    );
    let mut env: Vec<(&str, &str)> = SECRETS.to_vec();
    env.push(PASSED);
    let replica = Replica::start(&veil(), &config, &env);
    let out = Command::new(python())
        .arg(root().join("tests/e2e/env_client.py"))
        .args([
            "http",
            &format!("everything__{TOOL}"),
            &replica.url,
            SECRETS[3].1,
        ])
        .output()
        .expect("python runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "env_client.py failed:\n{stderr}\n{}",
        replica.stderr()
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_clean(&summary, true);
}

/// A passthrough list naming the layer's own or a configured secret is a start-up error that
/// names the variable (and never a value).
#[test]
fn passthrough_of_a_secret_is_refused_at_start_up() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &format!("servers:\n{}", secret_sources_yaml()));
    for var in [
        "MCP_VEIL_AUDIT_KEY",
        "VEIL_E2E_HEADER_TOKEN",
        "VEIL_E2E_SERVE_TOKEN",
    ] {
        let out = Command::new(veil())
            .args([
                "proxy",
                "--config",
                config.to_str().unwrap(),
                "--pass-env",
                var,
            ])
            .args(["--", "true"])
            .envs(SECRETS)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success());
        assert!(
            stderr.contains(var) && stderr.contains("--pass-env"),
            "{stderr}"
        );
        for (_, value) in SECRETS {
            assert!(!stderr.contains(value), "{stderr}");
        }
    }
    // The same in a `servers:` entry, for the gateway and for serve.
    let yaml = format!(
        "servers:\n  everything:\n    command: true\n    env_passthrough: [VEIL_E2E_HEADER_TOKEN]\n{}",
        secret_sources_yaml()
    );
    let config = write_config(dir.path(), &yaml);
    for args in [vec!["proxy", "--config"], vec!["serve", "--config"]] {
        let out = Command::new(veil())
            .args(&args)
            .arg(&config)
            .envs(SECRETS)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr.contains("server `everything`") && stderr.contains("VEIL_E2E_HEADER_TOKEN"),
            "{args:?}: {stderr}"
        );
    }
}
