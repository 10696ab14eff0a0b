//! E2E (a): the Python `mcp` client → `mcp-veil proxy` → `@modelcontextprotocol/server-filesystem`
//! on a temporary folder holding a contacts CSV.
//!
//! The client must see only tokens (nothing raw anywhere in the bytes it received), files it
//! writes with tokens must hold the real values on disk, and reading them back must give the same
//! tokens. Needs `bash .ci/install-peers.sh`.

mod common;

use common::*;

const CONTACTS: &str = "full_name,email,phone,employee\n\
Maria Ortiz,maria.ortiz@example.com,+1 415 555 0100,EMP-123456\n\
Jonas Becker,jonas.becker@example.org,+49 30 901820,EMP-654321\n";

const RAW: [&str; 8] = [
    "Maria Ortiz",
    "maria.ortiz@example.com",
    "+1 415 555 0100",
    "EMP-123456",
    "Jonas Becker",
    "jonas.becker@example.org",
    "+49 30 901820",
    "EMP-654321",
];

#[test]
fn filesystem_client_sees_tokens_and_disk_holds_values() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("files");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("contacts.csv"), CONTACTS).unwrap();
    let config = write_config(
        dir.path(),
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{6}'\n",
    );
    let log = dir.path().join("received.jsonl");
    let folder_s = folder.to_str().unwrap();
    let summary = run_client(
        "fs_client.py",
        &[
            veil().to_str().unwrap(),
            config.to_str().unwrap(),
            npm_bin("mcp-server-filesystem").to_str().unwrap(),
            folder_s,
            log.to_str().unwrap(),
        ],
    );

    // Nothing raw in any byte the client received (results, structuredContent, errors, logs).
    let received = std::fs::read_to_string(&log).unwrap();
    assert!(
        received.contains("read_text_file"),
        "the log holds the session"
    );
    assert_absent(&received, &RAW, "what the client received");

    let first = summary["first"].as_str().unwrap();
    let found = tokens(first);
    assert!(found.len() >= 8, "two rows of four values each: {found:?}");
    for kind in ["[NAME_", "[EMAIL_", "[PHONE_", "[EMPLOYEE_ID_"] {
        assert!(
            found.iter().any(|t| t.starts_with(kind)),
            "{kind} in {found:?}"
        );
    }
    // The CSV keeps its shape: header untouched, one token per cell.
    assert!(
        first.starts_with("full_name,email,phone,employee\n"),
        "{first}"
    );

    // The copy written with tokens holds the real values on disk ...
    let copy = std::fs::read_to_string(folder.join("copy.csv")).unwrap();
    assert_eq!(copy, CONTACTS);
    let note = std::fs::read_to_string(folder.join("note.txt")).unwrap();
    for value in RAW {
        assert!(
            note.contains(value),
            "the note on disk holds every real value"
        );
    }
    // ... and reads back as the same tokens.
    assert_eq!(summary["second"], summary["first"]);

    // A token this session never minted is refused, named, and nothing is written.
    assert_eq!(summary["forged_is_error"], true);
    assert!(
        summary["forged_text"]
            .as_str()
            .unwrap()
            .contains("[EMAIL_999]")
    );
    assert!(!folder.join("forged.txt").exists());
}
