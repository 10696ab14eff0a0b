//! E2E: tool search in the gateway (`tool_search:`), the Python `mcp` client → `mcp-veil proxy
//! --config` → server-filesystem, server-memory and a tiny Python server whose tool description
//! holds PII. Needs `bash .ci/install-peers.sh`.

mod common;

use common::*;
use serde_json::{Value, json};

const CONTACTS: &str = "full_name,email\nMaria Ortiz,maria.ortiz@example.com\n";
const RAW: [&str; 2] = ["Maria Ortiz", "maria.ortiz@example.com"];

struct Setup {
    dir: tempfile::TempDir,
    folder: std::path::PathBuf,
    memory_file: std::path::PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("files");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("contacts.csv"), CONTACTS).unwrap();
    let memory_file = dir.path().join("memory.jsonl");
    Setup {
        dir,
        folder,
        memory_file,
    }
}

/// Runs `plan` against a gateway over fs + memory (+ the described server) with `extra` YAML.
fn run(s: &Setup, extra: &str, plan: Value) -> Value {
    let yaml = format!(
        "servers:\n  fs:\n    command: {fs}\n    args: [{folder}]\n\
         \x20 memory:\n    command: {memory}\n    env: {{MEMORY_FILE_PATH: {memory_file}}}\n\
         \x20 desk:\n    command: {python}\n    args: [{desk}]\n{extra}",
        fs = npm_bin("mcp-server-filesystem").display(),
        folder = s.folder.display(),
        memory = npm_bin("mcp-server-memory").display(),
        memory_file = s.memory_file.display(),
        python = python().display(),
        desk = root().join("tests/e2e/described_server.py").display(),
    );
    let config = write_config(s.dir.path(), &yaml);
    let log = s.dir.path().join("received.jsonl");
    let summary = run_client(
        "tool_search_client.py",
        &[
            veil().to_str().unwrap(),
            config.to_str().unwrap(),
            log.to_str().unwrap(),
            &plan.to_string(),
        ],
    );
    let received = std::fs::read_to_string(&log).unwrap();
    assert_absent(&received, &RAW, "what the client received");
    summary
}

fn names(step: &Value) -> Vec<&str> {
    step["names"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect()
}

#[test]
fn search_on_lists_pinned_tools_and_found_tools_are_callable_through_the_layer() {
    let s = setup();
    let contacts = format!("{}/contacts.csv", s.folder.display());
    let summary = run(
        &s,
        "tool_search:\n  mode: always\n  pinned: [fs/read_text_file]\n\
         flows:\n  rules:\n    - name: no-deletes\n      to: memory/delete_entities\n      action: deny\n",
        json!([
            {"op": "list"},
            {"op": "call", "name": "fs__read_text_file", "args": {"path": contacts}},
            {"op": "search", "query": "create new entities in the knowledge graph", "limit": 3},
            {"op": "wait"},
            {"op": "list"},
            {"op": "call", "name": "memory__create_entities", "args": {"entities": [
                {"name": "{tok0}", "entityType": "person", "observations": ["mail {tok1}"]}]}},
            // Never listed nor searched: still routed, and the flow rule still applies.
            {"op": "call", "name": "memory__delete_entities", "args": {"entityNames": ["{tok0}"]}},
            {"op": "search", "query": "escalate a billing dispute"},
            {"op": "search", "query": "create new entities in the knowledge graph", "limit": 3},
        ]),
    );
    let steps = summary["steps"].as_array().unwrap();
    assert_eq!(summary["capabilities"]["tools"]["listChanged"], true);

    // Listing: the pinned tool and the search tool only.
    assert_eq!(names(&steps[0]), ["fs__read_text_file", "search_tools"]);
    let tokens: Vec<String> = serde_json::from_value(summary["tokens"].clone()).unwrap();
    assert_eq!(tokens.len(), 2, "{tokens:?}");

    // A search: best match first, full definitions, a compact text.
    let found = &steps[2];
    assert_eq!(found["is_error"], false);
    assert_eq!(names(found)[0], "memory__create_entities", "{found}");
    assert!(names(found).len() <= 3);
    let definition = &found["tools"][0];
    assert_eq!(definition["inputSchema"]["type"], "object");
    assert!(definition["description"].as_str().unwrap().len() > 10);
    assert!(
        found["text"]
            .as_str()
            .unwrap()
            .contains("- memory__create_entities(entities)"),
        "{found}"
    );

    // list_changed after the search, and the found tools join the list.
    assert!(steps[3]["list_changed"].as_u64().unwrap() >= 1, "{summary}");
    let listed = names(&steps[4]);
    assert!(listed.contains(&"memory__create_entities"), "{listed:?}");
    assert!(listed.contains(&"fs__read_text_file") && listed.contains(&"search_tools"));
    assert!(!listed.contains(&"fs__write_file"), "{listed:?}");

    // The found tool, called by name: tokens restored for the memory server ...
    assert_eq!(steps[5]["is_error"], false, "{}", steps[5]);
    let stored = std::fs::read_to_string(&s.memory_file).unwrap();
    for value in RAW {
        assert!(stored.contains(value), "{value} restored in {stored}");
    }
    // ... and the flow rule denies the unlisted tool's call, which never reaches the server.
    assert_eq!(steps[6]["is_error"], true, "{}", steps[6]);
    let stored = std::fs::read_to_string(&s.memory_file).unwrap();
    assert!(stored.contains("Maria Ortiz"), "not deleted: {stored}");

    // PII in a description is tokenized in search results as in listings.
    let desk = &steps[7];
    assert_eq!(names(desk)[0], "desk__escalate", "{desk}");
    let description = desk["tools"][0]["description"].as_str().unwrap();
    assert!(description.contains("[EMAIL_"), "{description}");
    // A search that finds nothing new changes nothing.
    assert_eq!(names(&steps[8])[0], "memory__create_entities");
}

#[test]
fn search_off_lists_every_tool_and_no_search_tool() {
    let s = setup();
    let summary = run(
        &s,
        "tool_search:\n  mode: never\n",
        json!([
            {"op": "list"},
            {"op": "call", "name": "search_tools", "args": {"query": "files"}},
        ]),
    );
    let steps = summary["steps"].as_array().unwrap();
    let listed = names(&steps[0]);
    assert!(!listed.contains(&"search_tools"), "{listed:?}");
    for name in [
        "fs__read_text_file",
        "fs__write_file",
        "memory__create_entities",
        "desk__escalate",
    ] {
        assert!(listed.contains(&name), "{name} in {listed:?}");
    }
    assert_eq!(steps[1]["is_error"], true);
    assert!(steps[1]["text"].as_str().unwrap().contains("unknown name"));
}

#[test]
fn denied_tools_are_never_found() {
    let s = setup();
    let summary = run(
        &s,
        "tool_search:\n  mode: always\n\
         tools:\n  - match: memory/delete_*\n    action: deny\n",
        json!([
            {"op": "search", "query": "delete entities observations relations", "limit": 50},
            {"op": "list"},
            {"op": "call", "name": "memory__delete_entities", "args": {"entityNames": ["x"]}},
        ]),
    );
    let steps = summary["steps"].as_array().unwrap();
    let found = names(&steps[0]);
    assert!(!found.is_empty());
    assert!(
        found.iter().all(|n| !n.starts_with("memory__delete_")),
        "{found:?}"
    );
    let listed = names(&steps[1]);
    assert!(
        listed.iter().all(|n| !n.starts_with("memory__delete_")),
        "{listed:?}"
    );
    assert_eq!(steps[2]["is_error"], true);
}

#[test]
fn auto_mode_switches_on_above_the_thresholds_only() {
    let s = setup();
    let plan = json!([{"op": "list"}]);
    // fs (14 tools) + memory (9) + desk (1): above 5 tools ...
    let on = run(&s, "tool_search:\n  max_listed_tools: 5\n", plan.clone());
    assert_eq!(names(&on["steps"][0]), ["search_tools"]);
    // ... or above 2,000 bytes of definitions ...
    let on = run(&s, "tool_search:\n  max_listed_bytes: 2000\n", plan.clone());
    assert_eq!(names(&on["steps"][0]), ["search_tools"]);
    // ... but not under the defaults (40 tools, 40,000 bytes).
    let off = run(&s, "", plan);
    let listed = names(&off["steps"][0]);
    assert!(
        !listed.contains(&"search_tools") && listed.len() > 20,
        "{listed:?}"
    );
}
