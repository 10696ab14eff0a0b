//! E2E (b): the Python `mcp` client → `mcp-veil proxy --config` (gateway) → server-filesystem and
//! server-memory, plus one server that cannot start.
//!
//! One session spans both servers: values read from the filesystem server (seen by the client
//! only as tokens) are stored in the memory server as real values, and read back as the same
//! tokens. Needs `bash .ci/install-peers.sh`.

mod common;

use common::*;

const CONTACTS: &str = "full_name,email,phone,employee\n\
Maria Ortiz,maria.ortiz@example.com,+1 415 555 0100,EMP-123456\n";

const RAW: [&str; 4] = [
    "Maria Ortiz",
    "maria.ortiz@example.com",
    "+1 415 555 0100",
    "EMP-123456",
];

#[test]
fn one_session_spans_filesystem_and_memory() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("files");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("contacts.csv"), CONTACTS).unwrap();
    let memory_file = dir.path().join("memory.jsonl");
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{6}}'\n\
         servers:\n  fs:\n    command: {fs}\n    args: [{folder}]\n\
         \x20 memory:\n    command: {memory}\n    env: {{MEMORY_FILE_PATH: {memory_file}}}\n\
         \x20 broken:\n    command: {missing}\n",
        fs = npm_bin("mcp-server-filesystem").display(),
        folder = folder.display(),
        memory = npm_bin("mcp-server-memory").display(),
        memory_file = memory_file.display(),
        missing = dir.path().join("no-such-server").display(),
    );
    let config = write_config(dir.path(), &yaml);
    let log = dir.path().join("received.jsonl");
    let summary = run_client(
        "gateway_client.py",
        &[
            veil().to_str().unwrap(),
            config.to_str().unwrap(),
            folder.to_str().unwrap(),
            log.to_str().unwrap(),
        ],
    );

    assert_eq!(summary["server_name"], "mcp-veil-gateway");
    let tools: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for name in [
        "fs__read_text_file",
        "fs__write_file",
        "memory__create_entities",
        "memory__open_nodes",
    ] {
        assert!(tools.contains(&name), "{name} in {tools:?}");
    }
    assert!(tools.iter().all(|t| t.len() <= 64 && t.contains("__")));

    // The client never saw a raw value, from either server.
    let received = std::fs::read_to_string(&log).unwrap();
    assert_absent(&received, &RAW, "what the client received");
    let found: Vec<String> = serde_json::from_value(summary["tokens"].clone()).unwrap();
    assert_eq!(found.len(), RAW.len(), "one token per value: {found:?}");

    // Tokens minted from the filesystem server restored in calls to the memory server: its
    // store holds the real values ...
    assert_eq!(summary["created_is_error"], false);
    let stored = std::fs::read_to_string(&memory_file).unwrap();
    for value in RAW {
        assert!(
            stored.contains(value),
            "the memory store holds every real value"
        );
    }
    assert_absent(
        &stored,
        &found.iter().map(String::as_str).collect::<Vec<_>>(),
        "the memory store (tokens)",
    );
    // ... and reading it back gives the same tokens.
    let opened = summary["opened"].as_str().unwrap();
    for token in &found {
        assert!(opened.contains(token.as_str()), "{token} in {opened}");
    }
    // A result of the memory server restored in a call to the filesystem server.
    let written = std::fs::read_to_string(folder.join("from_memory.json")).unwrap();
    for value in RAW {
        assert!(
            written.contains(value),
            "the file written from memory's answer holds real values"
        );
    }

    // The server that could not start is named in a tool error; the others kept working.
    assert_eq!(summary["broken_is_error"], true);
    assert!(
        summary["broken_text"]
            .as_str()
            .unwrap()
            .contains("`broken`")
    );
    assert_eq!(summary["unknown_is_error"], true);
}
