//! Syntax-safe restore through the interceptor: a SQL write with a restored O'-surname, run on
//! a real SQLite (Python's `sqlite3`, as mcp-server-sqlite runs it).

use std::sync::Arc;

use futures::executor::block_on;
use serde_json::{Value, json};

use crate::detect::Detector;
use crate::engine::Engine;
use crate::mcp::Interceptor;
use crate::mcp::restore::{RestoreConfig, RestoreRules};
use crate::vault::{MemoryVault, SessionId};

fn interceptor() -> Interceptor {
    let engine = Engine::new(
        Arc::new(Detector::with_defaults()),
        Arc::new(MemoryVault::default()),
    );
    Interceptor::new(engine, SessionId::new("test"))
}

/// A row read through the layer, then a write by the model that uses its token.
fn write_back(i: &Interceptor, tool: &str, query_of: impl Fn(&str) -> String) -> Value {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "read_query", "arguments": {"query": "SELECT * FROM customers"}}})
    .to_string();
    assert!(block_on(i.from_host("sqlite", &call)).forward.is_some());
    let rows = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text",
        "text": "[{\"full_name\": \"Siobhan O'Brien\", \"id\": 7}]"}]}})
    .to_string();
    let out = block_on(i.from_server("sqlite", &rows));
    let seen: Value = serde_json::from_str(out.forward.as_deref().unwrap()).unwrap();
    let text = seen["result"]["content"][0]["text"].as_str().unwrap();
    assert!(!text.contains("Brien"), "{text}");
    let token = "[NAME_1]";
    assert!(text.contains(token), "{text}");
    let write = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": tool, "arguments": {"query": query_of(token)}}})
    .to_string();
    let out = block_on(i.from_host("sqlite", &write));
    assert!(out.reply.is_none(), "{:?}", out.reply);
    serde_json::from_str(out.forward.as_deref().unwrap()).unwrap()
}

/// Runs `statements` on an in-memory SQLite database and prints `SELECT body FROM notes`.
fn sqlite(statements: &[&str]) -> String {
    let script = "import sqlite3, sys, json\n\
        db = sqlite3.connect(':memory:')\n\
        db.execute('CREATE TABLE notes (body TEXT, who TEXT)')\n\
        for s in json.loads(sys.argv[1]):\n    db.execute(s)\n\
        print(json.dumps([list(r) for r in db.execute('SELECT body, who FROM notes')]))\n";
    let out = std::process::Command::new("python3")
        .args(["-c", script, &serde_json::to_string(statements).unwrap()])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn a_restored_quote_in_a_sql_literal_is_doubled_and_the_row_is_written() {
    let i = interceptor();
    let sent = write_back(&i, "write_query", |t| {
        format!("INSERT INTO notes (body, who) VALUES ('Call {t} back', {t})")
    });
    let query = sent["params"]["arguments"]["query"].as_str().unwrap();
    assert_eq!(
        query,
        "INSERT INTO notes (body, who) VALUES ('Call Siobhan O''Brien back', 'Siobhan O''Brien')"
    );
    assert_eq!(
        sqlite(&[query]),
        r#"[["Call Siobhan O'Brien back", "Siobhan O'Brien"]]"#
    );
}

#[test]
fn declared_contexts_reach_the_interceptor() {
    let config: RestoreConfig = serde_saphyr::from_str(
        "contexts:\n  - {tool: \"sqlite/annotate\", argument: query, syntax: sql}\n",
    )
    .unwrap();
    let i = interceptor().with_restore(Arc::new(RestoreRules::new(&config)));
    // Not SQL by name or text, but declared.
    let sent = write_back(&i, "annotate", |t| format!("note '{t}'"));
    assert_eq!(
        sent["params"]["arguments"]["query"],
        "note 'Siobhan O''Brien'"
    );
    // Without the declaration the heuristic leaves it as is.
    let sent = write_back(&interceptor(), "annotate", |t| format!("note '{t}'"));
    assert_eq!(
        sent["params"]["arguments"]["query"],
        "note 'Siobhan O'Brien'"
    );
}
