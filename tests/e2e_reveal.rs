//! E2E: partial reveals (`detect.reveal`) and postal addresses (`detect.ids.address`) through
//! `mcp-veil proxy` in front of `@modelcontextprotocol/server-filesystem`.
//!
//! The client sees tokens that carry the allowed parts (an email's domain, a card's brand and
//! last four, a phone's calling code) and nothing raw; a copy written with those tokens holds
//! the exact values on disk; the bare token restores; a token whose part was changed is refused
//! as unknown and nothing is written. Needs `bash .ci/install-peers.sh`.

mod common;

use common::*;

const CONTACTS: &str = "full_name,email,phone,card,street\n\
Maria Ortiz,maria.ortiz@example.com,+44 20 7946 0958,4111 1111 1111 1111,42 Oak Lane\n";

const RAW: [&str; 6] = [
    "Maria Ortiz",
    "maria.ortiz",
    "7946 0958",
    "4111 1111 1111 1111",
    "42 Oak Lane",
    "Oak Lane",
];

#[test]
fn revealed_parts_reach_the_model_and_restore_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("files");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("contacts.csv"), CONTACTS).unwrap();
    let config = write_config(
        dir.path(),
        "detect:\n  ids:\n    address: true\n  reveal:\n    email: true\n    credit_card: true\n    phone: true\n",
    );
    let log = dir.path().join("received.jsonl");
    let summary = run_client(
        "reveal_client.py",
        &[
            veil().to_str().unwrap(),
            config.to_str().unwrap(),
            npm_bin("mcp-server-filesystem").to_str().unwrap(),
            folder.to_str().unwrap(),
            log.to_str().unwrap(),
        ],
    );
    let received = std::fs::read_to_string(&log).unwrap();
    assert_absent(&received, &RAW, "what the client received");

    let first = summary["first"].as_str().unwrap();
    for token in [
        "[EMAIL_1 @example.com]",
        "[PHONE_1 +44]",
        "[CREDIT_CARD_1 visa 1111]",
        "[ADDRESS_1]",
        "[NAME_1]",
    ] {
        assert!(first.contains(token), "{token} in {first}");
    }
    // Written back with the revealed tokens: the exact file on disk; read back: the same tokens.
    assert_eq!(
        std::fs::read_to_string(folder.join("copy.csv")).unwrap(),
        CONTACTS
    );
    assert_eq!(summary["second"], summary["first"]);
    // The bare token is the same token.
    assert_eq!(
        std::fs::read_to_string(folder.join("bare.txt")).unwrap(),
        "to maria.ortiz@example.com"
    );
    // A changed part never restores: refused as unknown, named by its bare token.
    assert_eq!(summary["altered_is_error"], true, "{summary}");
    assert!(
        summary["altered_text"]
            .as_str()
            .unwrap()
            .contains("[EMAIL_1]"),
        "{summary}"
    );
    assert!(!folder.join("altered.txt").exists());
}
