//! E2E (flows): the Python `mcp` client → `mcp-veil proxy` → `@modelcontextprotocol/server-filesystem`
//! with flow rules, a tool policy, confirmations by elicitation, raw PII the "model" typed
//! itself, and the audit log.
//!
//! What reaches the server is checked on the server's side: the files it wrote (or did not).
//! The audit log must hold every event with its rule, verify with `mcp-veil audit verify`, fail
//! after one line is edited, and hold none of the raw values. Needs `bash .ci/install-peers.sh`.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use serde_json::Value;

const STAFF: &str = "full_name,employee,badge,project\nMaria Ortiz,EMP-123456,BDG-40001,PRJ-7001\n";

/// Every raw value of the test: none may appear in the audit log.
const RAW: [&str; 6] = [
    "Maria Ortiz",
    "EMP-123456",
    "BDG-40001",
    "PRJ-7001",
    "EMP-777777",
    "BDG-50002",
];

const KEY: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

fn config(dir: &Path, gateway: bool) -> std::path::PathBuf {
    std::fs::write(dir.join("audit.key"), KEY).unwrap();
    let servers = if gateway {
        format!(
            "servers:\n  fs:\n    command: {}\n    args: [{}]\n",
            npm_bin("mcp-server-filesystem").display(),
            dir.join("files").display()
        )
    } else {
        String::new()
    };
    let yaml = format!(
        r#"detect:
  custom:
    - kind: EMPLOYEE_ID
      pattern: 'EMP-\d{{6}}'
    - kind: BADGE
      pattern: 'BDG-\d{{5}}'
    - kind: PROJECT
      pattern: 'PRJ-\d{{4}}'
flows:
  default: deny
  rules:
    - name: ids-to-files
      kinds: [EMPLOYEE_ID]
      from: fs/*
      to: fs/write_file
      args: [content]
      action: allow
      raw: tokenize
    - name: no-badges-to-disk
      kinds: [BADGE]
      to: fs/*
      action: deny
      raw: deny
    - name: names-stay-tokens
      kinds: [NAME]
      to: fs/write_file
      action: keep
    - name: ask-before-projects
      kinds: [PROJECT]
      to: fs/write_file
      action: confirm
tools:
  - match: fs/move_file
    action: deny
audit:
  path: {audit}
  key_file: {key}
  required: true
  fsync: never
{servers}"#,
        audit = dir.join("audit.jsonl").display(),
        key = dir.join("audit.key").display(),
    );
    let path = dir.join(if gateway { "gateway.yaml" } else { "veil.yaml" });
    std::fs::write(&path, yaml).unwrap();
    path
}

fn run(dir: &Path, config: &Path, mode: &str) -> Value {
    let folder = dir.join("files");
    run_client(
        "flows_client.py",
        &[
            veil().to_str().unwrap(),
            config.to_str().unwrap(),
            npm_bin("mcp-server-filesystem").to_str().unwrap(),
            folder.to_str().unwrap(),
            mode,
        ],
    )
}

fn text(v: &Value) -> &str {
    v["text"].as_str().unwrap_or_default()
}

/// The audit events as JSON, in order.
fn events(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("audit.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn has_event(events: &[Value], event: &str, rule: Option<&str>, token_prefix: &str) -> bool {
    events.iter().any(|e| {
        e["event"] == event
            && rule.is_none_or(|r| e["rule"] == r)
            && (token_prefix.is_empty()
                || e["items"].as_array().is_some_and(|items| {
                    items.iter().any(|i| {
                        i["token"]
                            .as_str()
                            .is_some_and(|t| t.starts_with(token_prefix))
                    })
                }))
    })
}

fn verify(dir: &Path) -> std::process::Output {
    Command::new(veil())
        .args(["audit", "verify", "--key-file"])
        .arg(dir.join("audit.key"))
        .arg(dir.join("audit.jsonl"))
        .output()
        .unwrap()
}

#[test]
fn flows_rules_confirmations_raw_values_tool_policy_and_audit_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("files");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("staff.csv"), STAFF).unwrap();
    let single = config(dir.path(), false);

    let all = run(dir.path(), &single, "all");
    let file = |name: &str| std::fs::read_to_string(folder.join(name)).ok();

    // Tool policy: hidden from tools/list, refused when called anyway, the file not moved.
    let tools: Vec<&str> = all["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"write_file") && !tools.contains(&"move_file"),
        "{tools:?}"
    );
    assert_eq!(all["moved"]["is_error"], true);
    assert!(
        text(&all["moved"]).contains("tool policy `fs/move_file`"),
        "{}",
        all["moved"]
    );
    assert!(folder.join("staff.csv").exists() && !folder.join("moved.csv").exists());

    // The client only ever saw tokens.
    let staff = all["staff"].as_str().unwrap();
    assert_absent(staff, &RAW, "the tool result");
    // An allowed flow restores.
    assert_eq!(all["allowed"]["is_error"], false, "{}", all["allowed"]);
    assert_eq!(file("allowed.txt").as_deref(), Some("id EMP-123456"));
    // A denied flow never reaches the server; the host is told which rule and token.
    assert_eq!(all["denied"]["is_error"], true);
    let denied = text(&all["denied"]);
    assert!(
        denied.contains("no-badges-to-disk") && denied.contains("[BADGE_1]"),
        "{denied}"
    );
    assert_absent(denied, &RAW, "the denial");
    assert_eq!(file("denied.txt"), None);
    // keep: the token text lands in the file.
    assert_eq!(all["kept"]["is_error"], false, "{}", all["kept"]);
    assert_eq!(file("kept.txt").as_deref(), Some("name [NAME_1]"));
    // confirm, accepted: the user was asked (kinds, tokens, origin, destination, rule; no
    // value), then the value was restored.
    let asked = all["asked"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let question = asked[0].as_str().unwrap();
    for part in [
        "PROJECT",
        "[PROJECT_1]",
        "fs/read_text_file",
        "fs/write_file",
        "ask-before-projects",
    ] {
        assert!(question.contains(part), "{part} in {question}");
    }
    assert_absent(question, &RAW, "the confirmation request");
    assert_eq!(all["confirm"]["is_error"], false, "{}", all["confirm"]);
    assert_eq!(file("confirm.txt").as_deref(), Some("project PRJ-7001"));
    // Raw values the model typed: tokenized where the rule says so (the token lands) ...
    assert_eq!(
        all["raw_tokenized"]["is_error"], false,
        "{}",
        all["raw_tokenized"]
    );
    let raw_id = file("raw-id.txt").unwrap();
    assert!(!raw_id.contains("EMP-777777"), "{raw_id}");
    assert_eq!(tokens(&raw_id).len(), 1, "{raw_id}");
    assert!(raw_id.starts_with("raw [EMPLOYEE_ID_"), "{raw_id}");
    // ... and denied where it says so (nothing written).
    assert_eq!(all["raw_denied"]["is_error"], true);
    assert!(text(&all["raw_denied"]).contains("no-badges-to-disk"));
    assert_eq!(file("raw-badge.txt"), None);
    // An unknown token is denied.
    assert_eq!(all["unknown"]["is_error"], true);
    assert!(text(&all["unknown"]).contains("[EMPLOYEE_ID_999]"));
    assert_eq!(file("forged.txt"), None);

    // Declined: nothing written. A client without elicitation: denied, saying why.
    std::fs::remove_file(folder.join("confirm.txt")).unwrap();
    let declined = run(dir.path(), &single, "decline");
    assert_eq!(declined["asked"].as_array().unwrap().len(), 1);
    assert_eq!(declined["confirm"]["is_error"], true);
    assert!(
        text(&declined["confirm"]).contains("declined"),
        "{}",
        declined["confirm"]
    );
    assert_eq!(file("confirm.txt"), None);
    let unasked = run(dir.path(), &single, "noelicit");
    assert_eq!(unasked["asked"].as_array().unwrap().len(), 0);
    assert_eq!(unasked["confirm"]["is_error"], true);
    assert!(
        text(&unasked["confirm"]).contains("does not support elicitation"),
        "{}",
        unasked["confirm"]
    );
    assert_eq!(file("confirm.txt"), None);

    // The gateway: the same tool policy under gateway names, and a confirmation routed back.
    let gateway = run(dir.path(), &config(dir.path(), true), "gateway");
    let tools: Vec<&str> = gateway["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"fs__write_file") && !tools.contains(&"fs__move_file"),
        "{tools:?}"
    );
    assert_eq!(gateway["moved"]["is_error"], true);
    assert!(!folder.join("moved.csv").exists());
    assert_eq!(gateway["asked"].as_array().unwrap().len(), 1);
    assert_eq!(
        gateway["confirm"]["is_error"], false,
        "{}",
        gateway["confirm"]
    );
    assert_eq!(file("confirm.txt").as_deref(), Some("project PRJ-7001"));

    // The audit log: every event with its rule.
    let ev = events(dir.path());
    assert!(has_event(&ev, "tokenized", None, "[EMPLOYEE_ID_"));
    assert!(has_event(
        &ev,
        "restored",
        Some("ids-to-files"),
        "[EMPLOYEE_ID_1]"
    ));
    assert!(has_event(
        &ev,
        "denied",
        Some("no-badges-to-disk"),
        "[BADGE_1]"
    ));
    assert!(has_event(
        &ev,
        "kept",
        Some("names-stay-tokens"),
        "[NAME_1]"
    ));
    assert!(has_event(
        &ev,
        "confirmed",
        Some("ask-before-projects"),
        "[PROJECT_1]"
    ));
    assert!(has_event(
        &ev,
        "restored",
        Some("ask-before-projects"),
        "[PROJECT_1]"
    ));
    assert!(has_event(
        &ev,
        "denied",
        Some("ask-before-projects"),
        "[PROJECT_1]"
    ));
    assert!(has_event(
        &ev,
        "raw_pii",
        Some("ids-to-files"),
        "[EMPLOYEE_ID_"
    ));
    assert!(has_event(&ev, "raw_pii", Some("no-badges-to-disk"), ""));
    assert!(has_event(&ev, "unknown_token", None, "[EMPLOYEE_ID_999]"));
    assert!(has_event(
        &ev,
        "denied",
        Some("flows.unknown_tokens"),
        "[EMPLOYEE_ID_999]"
    ));
    assert!(has_event(
        &ev,
        "denied",
        Some("tool policy `fs/move_file`"),
        ""
    ));
    let restored = ev
        .iter()
        .find(|e| e["event"] == "restored" && e["rule"] == "ids-to-files")
        .unwrap();
    assert_eq!(restored["server"], "fs");
    assert_eq!(restored["method"], "tools/call");
    assert_eq!(restored["name"], "write_file");
    assert_eq!(restored["dir"], "out");
    assert!(restored["id"].is_number() && restored["session"].is_string());
    assert_eq!(restored["kinds"]["EMPLOYEE_ID"], 1);
    assert_eq!(restored["items"][0]["fp"].as_str().unwrap().len(), 16);
    // Raw values typed by the model are fingerprinted like any other.
    let raw = ev
        .iter()
        .find(|e| e["event"] == "raw_pii" && e["rule"] == "no-badges-to-disk")
        .unwrap();
    assert_eq!(raw["items"][0]["kind"], "BADGE");
    assert!(raw["items"][0]["fp"].is_string());

    // No raw value anywhere in the log.
    let log = std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap();
    assert_absent(&log, &RAW, "the audit log");

    // The chain verifies, then fails after one line is edited.
    let ok = verify(dir.path());
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let tampered = log.replacen("\"event\":\"denied\"", "\"event\":\"restored\"", 1);
    assert_ne!(tampered, log);
    std::fs::write(dir.path().join("audit.jsonl"), tampered).unwrap();
    let bad = verify(dir.path());
    assert!(!bad.status.success());
}

#[test]
fn audit_required_without_a_key_refuses_to_start_and_optional_warns_once() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = |required: bool| {
        let path = dir.path().join(format!("audit-{required}.yaml"));
        std::fs::write(
            &path,
            format!(
                "audit:\n  path: {}\n  required: {required}\n",
                dir.path().join("audit.jsonl").display()
            ),
        )
        .unwrap();
        path
    };
    let run = |config: &Path| {
        Command::new(veil())
            .env_remove("MCP_VEIL_AUDIT_KEY")
            .args(["proxy", "--config"])
            .arg(config)
            .args(["--", "true"])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let refused = run(&cfg(true));
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("no audit key"), "{stderr}");
    let warned = run(&cfg(false));
    let stderr = String::from_utf8_lossy(&warned.stderr);
    assert_eq!(stderr.matches("audit log disabled").count(), 1, "{stderr}");
    assert!(!dir.path().join("audit.jsonl").exists());
}
