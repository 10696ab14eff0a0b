//! No raw value reaches stderr, even at `MCP_VEIL_LOG=trace`.
//!
//! Runs the real binary (`redact`, `restore`, `detect`, and failing runs) over a seeded corpus
//! with planted values (prose, CRM JSON, an MCP tool result, JSON Lines, CSV, a custom kind) and
//! checks that stderr, which carries the logs and error messages, holds none of them. It also
//! checks that the logs were really on (trace lines present) and that restore gives back the
//! input byte for byte.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use mcp_veil::testdata;

const KEY: &str = "8f4e2c1a9b7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f";

const CONFIG: &str = r#"
detect:
  custom:
    - kind: EMPLOYEE_ID
      pattern: 'EMP-\d{6}'
"#;

fn run(args: &[&str], stdin: &str, dir: &Path) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .args(args)
        .current_dir(dir)
        .env("MCP_VEIL_LOG", "trace")
        .env("MCP_VEIL_SESSION_KEY", KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // A run that fails early (a config error) exits without reading: ignore the broken pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// The corpus: (document, values planted in it).
fn corpus(seed: u64) -> Vec<(String, Vec<String>)> {
    let mut docs = Vec::new();
    let mut prose = testdata::prose(seed, 8_000);
    // A value today's detector finds in prose (a custom kind), beside those found once the
    // email, phone, card and name recognizers land.
    prose
        .text
        .push_str("Badge EMP-314159 was issued to the contractor.\n");
    prose.planted.push("EMP-314159".into());
    docs.push((prose.text, prose.planted));
    for g in [
        testdata::crm_json(seed + 1, 8_000),
        testdata::mcp_tool_result(seed + 2, 8_000),
    ] {
        docs.push((g.text, g.planted));
    }
    let mut rng = testdata::Rng::new(seed + 3);
    let mut lines = String::new();
    let mut csv = String::from("full_name,email,employee\n");
    let mut planted = Vec::new();
    for i in 0..40 {
        let name = testdata::full_name(&mut rng);
        let email = testdata::email_for(&mut rng, &name);
        let emp = format!("EMP-{:06}", 100_000 + rng.below(900_000));
        lines.push_str(
            &serde_json::json!({"id": i, "author": name, "text": format!("ping {email} re {emp} and [EMAIL_{}]", i + 1)})
                .to_string(),
        );
        lines.push('\n');
        csv.push_str(&format!("{name},{email},{emp}\n"));
        planted.extend([name, email, emp]);
    }
    docs.push((lines, planted.clone()));
    docs.push((csv, planted));
    docs
}

fn assert_clean(stderr: &[u8], planted: &[String], what: &str) {
    let stderr = String::from_utf8_lossy(stderr);
    for v in planted {
        assert!(
            !stderr.contains(v.as_str()),
            "{what}: a planted value appears in stderr"
        );
    }
}

#[test]
fn redact_and_restore_log_no_values_at_trace() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("veil.yaml"), CONFIG).unwrap();
    let mut trace_lines = 0;
    for (i, (doc, planted)) in corpus(42).into_iter().enumerate() {
        assert!(!planted.is_empty());
        let session = format!("s{i}.veil");
        let redacted = run(
            &["redact", "--config", "veil.yaml", "--session", &session],
            &doc,
            dir.path(),
        );
        assert!(redacted.status.success(), "redact failed: doc {i}");
        assert_clean(&redacted.stderr, &planted, "redact");
        trace_lines += String::from_utf8_lossy(&redacted.stderr)
            .lines()
            .filter(|l| l.contains("TRACE"))
            .count();
        let out = String::from_utf8(redacted.stdout).unwrap();
        assert!(out.contains('['), "doc {i}: nothing was tokenized");

        // A second run over the same input reuses the session file: same output.
        let again = run(
            &["-vvv", "redact", "-c", "veil.yaml", "-s", &session],
            &doc,
            dir.path(),
        );
        assert_eq!(String::from_utf8(again.stdout).unwrap(), out, "doc {i}");
        assert_clean(&again.stderr, &planted, "redact -vvv");

        let restored = run(
            &["restore", "--config", "veil.yaml", "--session", &session],
            &out,
            dir.path(),
        );
        assert!(restored.status.success(), "restore failed: doc {i}");
        assert_clean(&restored.stderr, &planted, "restore");
        assert_eq!(String::from_utf8(restored.stdout).unwrap(), doc, "doc {i}");

        // A failing restore (a token this session never minted) still names only the token.
        let bad = run(
            &["restore", "-c", "veil.yaml", "-s", &session],
            &format!("{out}\n[NAME_99999]"),
            dir.path(),
        );
        assert_eq!(bad.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&bad.stderr).contains("[NAME_99999]"));
        assert_clean(&bad.stderr, &planted, "failed restore");

        // detect prints values on stdout by design, never on stderr.
        let detected = run(&["detect", "-c", "veil.yaml"], &doc, dir.path());
        assert!(detected.status.success());
        assert_clean(&detected.stderr, &planted, "detect");
    }
    assert!(trace_lines > 0, "trace logging was not on");
}

#[test]
fn wrong_key_and_bad_config_errors_hold_no_values() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("veil.yaml"), CONFIG).unwrap();
    let (doc, planted) = corpus(7).swap_remove(3);
    let out = run(
        &["redact", "-c", "veil.yaml", "-s", "s.veil"],
        &doc,
        dir.path(),
    );
    assert!(out.status.success());

    let wrong = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .args(["restore", "-s", "s.veil"])
        .current_dir(dir.path())
        .env("MCP_VEIL_LOG", "trace")
        .env("MCP_VEIL_SESSION_KEY", KEY.replace('8', "9"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(1));
    let err = String::from_utf8_lossy(&wrong.stderr);
    assert!(err.contains("wrong MCP_VEIL_SESSION_KEY"), "{err}");
    assert_clean(&wrong.stderr, &planted, "wrong key");

    let no_key = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .args(["restore", "-s", "s.veil"])
        .current_dir(dir.path())
        .env_remove("MCP_VEIL_SESSION_KEY")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(no_key.status.code(), Some(2));

    std::fs::write(
        dir.path().join("bad.yaml"),
        "detect:\n  custom:\n    - kind: x\n",
    )
    .unwrap();
    let bad = run(&["redact", "-c", "bad.yaml"], &doc, dir.path());
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("bad.yaml:"), "{err}");
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("mcp-veil: error"))
            .count(),
        1,
        "{err}"
    );
    assert_clean(&bad.stderr, &planted, "bad config");
}

/// Issue 17: names from the wire hold values too. An argument *key* holding an email, a tool
/// name holding one, and an unknown method name holding one reach neither the logs (at trace)
/// nor the denial texts, through `proxy -- CMD` and through the gateway.
#[test]
fn argument_keys_tool_names_and_methods_from_the_wire_are_not_logged() {
    const KEY_EMAIL: &str = "maria.garcia@example.com";
    const VALUE_EMAIL: &str = "omar.haddad@example.org";
    const TOOL_EMAIL: &str = "lena.fischer@example.net";
    const METHOD_EMAIL: &str = "tom.okafor@example.com";
    let planted: Vec<String> = [KEY_EMAIL, VALUE_EMAIL, TOOL_EMAIL, METHOD_EMAIL]
        .map(String::from)
        .to_vec();
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/e2e/hostile_server.py");
    let script = dir.path().join("script.json");
    std::fs::write(&script, "{}").unwrap();
    let policy = "flows:\n  raw: deny\n";
    std::fs::write(dir.path().join("proxy.yaml"), policy).unwrap();
    std::fs::write(
        dir.path().join("gateway.yaml"),
        format!(
            "{policy}servers:\n  hostile:\n    command: python3\n    args: [{}, {}]\n",
            serde_json::json!(fixture.display().to_string()),
            serde_json::json!(script.display().to_string())
        ),
    )
    .unwrap();
    let fixture = fixture.display().to_string();
    let script = script.display().to_string();
    let proxy: Vec<&str> = vec![
        "proxy",
        "--config",
        "proxy.yaml",
        "--",
        "python3",
        &fixture,
        &script,
    ];
    let gateway: Vec<&str> = vec!["proxy", "--config", "gateway.yaml"];
    for (args, prefix) in [(proxy, ""), (gateway, "hostile__")] {
        let lines = [
            serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
            // A raw value under a key that is itself an email: denied (raw: deny).
            serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": format!("{prefix}echo"),
                "arguments": {KEY_EMAIL: format!("write to {VALUE_EMAIL}")}}}),
            // A tool named after an email, called with a raw value: denied, naming the tool.
            serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "name": format!("{prefix}{TOOL_EMAIL}"),
                "arguments": {"text": format!("write to {VALUE_EMAIL}")}}}),
            // A method no specification defines, named after an email.
            serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": METHOD_EMAIL, "params": {}}),
            serde_json::json!({"jsonrpc": "2.0", "id": 5, "method": format!("x/{METHOD_EMAIL}")}),
            serde_json::json!({"jsonrpc": "2.0", "method": format!("notifications/{METHOD_EMAIL}")}),
            serde_json::json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
        ];
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
            .args(&args)
            .current_dir(dir.path())
            .env("MCP_VEIL_LOG", "trace")
            .env_remove("MCP_VEIL_AUDIT_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
        // Keep stdin open until the last answer (ping) is in.
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut answers = String::new();
        let mut by_id = std::collections::HashMap::new();
        loop {
            let mut line = String::new();
            if std::io::BufRead::read_line(&mut out, &mut line).unwrap() == 0 {
                break;
            }
            answers.push_str(&line);
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            by_id.insert(v["id"].to_string(), line);
            if by_id.contains_key("6") {
                break;
            }
        }
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        let what = if prefix.is_empty() {
            "proxy"
        } else {
            "gateway"
        };
        assert!(
            by_id.contains_key("6"),
            "{what}: no answer to the ping:\n{answers}"
        );
        for id in ["2", "3"] {
            let denied = by_id
                .get(id)
                .unwrap_or_else(|| panic!("{what}: no answer to {id}:\n{answers}"));
            // The gateway does not know the tool named after an email: it says so by length.
            assert!(
                denied.contains("not forwarded") || denied.contains("unknown name `<33 bytes>`"),
                "{what}: {denied}"
            );
        }
        assert_clean(
            answers.as_bytes(),
            &planted,
            &format!("{what}: answers to the host"),
        );
        assert_clean(&output.stderr, &planted, &format!("{what}: stderr"));
        // The denials were logged (without the names).
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("not forwarded"),
            "{what}: the denials were not logged"
        );
    }
}
