//! One value's whole path through the engine, the policy and the audit log, the way the MCP
//! interceptor strings them together: tokenize a tool result, decide an outbound call, restore
//! or deny, audit each step, verify the log, find the value in it, and never write the value.

use std::path::Path;
use std::sync::Arc;

use futures::executor::block_on;
use mcp_veil::audit::{
    AuditConfig, AuditKey, AuditLog, Direction, Event, EventKind, FsyncPolicy, Item, VerifyOptions,
};
use mcp_veil::config::Config;
use mcp_veil::detect::Detector;
use mcp_veil::engine::{Engine, restore_all};
use mcp_veil::policy::{Action, CallVerdict, Policy};
use mcp_veil::vault::{MemoryVault, SessionId};

const CONFIG: &str = r#"
detect:
  custom:
    - kind: EMPLOYEE_ID
      pattern: 'EMP-\d{6}'
      json_keys: [employee_id]
flows:
  default: keep
  rules:
    - name: ids-to-payroll
      kinds: [EMPLOYEE_ID]
      from: hr/*
      to: payroll/*
      args: [employee]
      action: allow
    - name: nothing-to-search
      to: web/*
      action: deny
"#;

const VALUE: &str = "EMP-424242";

#[test]
fn restore_where_allowed_deny_elsewhere_audit_everything() {
    let config = Config::parse(CONFIG, Path::new("flow.yaml")).unwrap();
    let policy = Policy::from_config(&config).unwrap();
    let engine = Engine::new(
        Arc::new(Detector::new(&config.detect).unwrap()),
        Arc::new(MemoryVault::default()),
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let key = || AuditKey::from_material(b"flow-test-key-flow-test-key-flow-test").unwrap();
    let audit_config = AuditConfig {
        fsync: FsyncPolicy::Never,
        ..AuditConfig::default()
    };
    let log = AuditLog::open(&path, key(), &audit_config).unwrap();
    let session = SessionId::new("flow");

    // Inbound: a tool result from hr/get_employee.
    let result = format!(r#"{{"employee_id":"{VALUE}","team":"ops"}}"#);
    let t = block_on(engine.tokenize_json(&session, "hr/get_employee", &result)).unwrap();
    assert_eq!(t.text, r#"{"employee_id":"[EMPLOYEE_ID_1]","team":"ops"}"#);
    let items: Vec<Item<'_>> = t
        .found
        .iter()
        .zip(&t.tokens)
        .map(|(f, tok)| Item::tokenized(f, tok))
        .collect();
    log.record(&Event {
        session: session.as_str(),
        direction: Direction::Inbound,
        server: "hr",
        method: "tools/call",
        name: Some("get_employee"),
        request_id: None,
        event: EventKind::Tokenized,
        rule: None,
        items: &items,
    })
    .unwrap();

    // Outbound 1: payroll/pay with the token in `employee`: restored.
    let args = r#"{"employee":"[EMPLOYEE_ID_1]","amount":10}"#;
    let resolved = block_on(engine.resolve_json(&session, args)).unwrap();
    let mut call = policy.check_call("payroll", "pay");
    for (slot, entry) in resolved.findings.slots.iter().zip(&resolved.entries) {
        let entry = entry.as_ref().expect("minted in this session");
        let d = call.token(&slot.token, &entry.origin, &slot.path);
        assert_eq!(d.action, Action::Restore);
        assert_eq!(d.rule.as_deref(), Some("ids-to-payroll"));
    }
    assert_eq!(call.finish(), CallVerdict::Proceed);
    let restored = restore_all(args, &resolved).unwrap();
    assert_eq!(restored, format!(r#"{{"employee":"{VALUE}","amount":10}}"#));
    let items: Vec<Item<'_>> = resolved.entries.iter().flatten().map(Item::entry).collect();
    log.record(&Event {
        session: session.as_str(),
        direction: Direction::Outbound,
        server: "payroll",
        method: "tools/call",
        name: Some("pay"),
        request_id: None,
        event: EventKind::Restored,
        rule: Some("ids-to-payroll"),
        items: &items,
    })
    .unwrap();

    // Outbound 2: web/search with the same token: the whole call is denied.
    let args = r#"{"q":"who is [EMPLOYEE_ID_1]"}"#;
    let resolved = block_on(engine.resolve_json(&session, args)).unwrap();
    let mut call = policy.check_call("web", "search");
    for (slot, entry) in resolved.findings.slots.iter().zip(&resolved.entries) {
        let entry = entry.as_ref().unwrap();
        call.token(&slot.token, &entry.origin, &slot.path);
    }
    let CallVerdict::Deny(denial) = call.finish() else {
        panic!("expected a denial")
    };
    let message = denial.to_string();
    assert_eq!(
        message,
        "call to web/search denied: [EMPLOYEE_ID_1] (EMPLOYEE_ID) from hr/get_employee in argument `q` (rule `nothing-to-search`)"
    );
    let items: Vec<Item<'_>> = resolved.entries.iter().flatten().map(Item::entry).collect();
    log.record(&Event {
        session: session.as_str(),
        direction: Direction::Outbound,
        server: "web",
        method: "tools/call",
        name: Some("search"),
        request_id: None,
        event: EventKind::Denied,
        rule: denial.rule(),
        items: &items,
    })
    .unwrap();
    drop(log);

    // The log verifies, names the value's three events by fingerprint, and never holds it.
    let files = [path.clone()];
    let report = mcp_veil::audit::verify_files(&key(), &files, VerifyOptions::default()).unwrap();
    // Three events and the seal written when the log closed.
    assert_eq!((report.lines, report.seals), (4, 1));
    assert!(report.closed);
    let hits = mcp_veil::audit::find_value(&key(), &files, VALUE, None, &[]).unwrap();
    assert_eq!(hits.len(), 3);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains(VALUE) && !text.contains("424242"), "{text}");
    assert!(text.contains("\"rule\":\"nothing-to-search\""));
}
