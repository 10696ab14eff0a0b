//! `mcp-veil serve`: the Python `mcp` client over streamable HTTP through two replicas sharing
//! one Redis vault, in front of server-filesystem. Read via replica A, write via replica B in the
//! same session: the client sees only tokens, the file on disk holds the real values, and a
//! fresh session cannot use those tokens. Replica B also recalls a name replica A tokenized,
//! written in lower case in a note where the name finder alone would leave it.
//!
//! Needs `bash .ci/install-peers.sh` and `redis-server` (`.ci/install-redis.sh`).

mod common;
mod support;

use common::*;
use support::redis_server::RedisServer;
use support::serve::Replica;

const KEY: &str = "8f3c0d2a9b7e6f5a4c3b2a1908f7e6d5c4b3a2918f7e6d5c4b3a29180f7e6d5c";

const CONTACTS: &str = "full_name,employee\nMaria Ortiz,EMP-123456\nJohn Smith,EMP-654321\n";
const RAW: [&str; 4] = ["Maria Ortiz", "EMP-123456", "John Smith", "EMP-654321"];
/// A name of `CONTACTS` in lower case without a cue: only session recall finds it.
const NOTES: &str = "Call log: maria ortiz rang back about the renewal.\n";

#[test]
fn two_replicas_share_a_session_through_redis() {
    let redis = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("files");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("contacts.csv"), CONTACTS).unwrap();
    std::fs::write(folder.join("notes.txt"), NOTES).unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{6}}'\n\
         vault:\n  backend: redis\n  url: {url}\n\
         servers:\n  fs:\n    command: {fs}\n    args: [{folder}]\n",
        url = redis.url(),
        fs = npm_bin("mcp-server-filesystem").display(),
        folder = folder.display(),
    );
    let config = write_config(dir.path(), &yaml);
    let env = [
        ("MCP_VEIL_VAULT_KEY", KEY),
        ("MCP_VEIL_SESSION_SECRET", "replicas-share-this-secret"),
    ];
    let a = Replica::start(&veil(), &config, &env);
    let b = Replica::start(&veil(), &config, &env);
    let log = dir.path().join("received.jsonl");
    let summary = run_client(
        "http_client.py",
        &[
            &a.url,
            &b.url,
            folder.to_str().unwrap(),
            log.to_str().unwrap(),
        ],
    );

    assert_eq!(summary["server_name"], "mcp-veil-gateway");
    assert!(
        summary["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "fs__write_file")
    );
    let sid = summary["session_id"]
        .as_str()
        .expect("an issued session id");
    assert_eq!(sid.len(), 65, "{sid}");

    // The client saw tokens only.
    let received = std::fs::read_to_string(&log).unwrap();
    assert_absent(&received, &RAW, "what the client received");
    assert_absent(summary["read"].as_str().unwrap(), &RAW, "the read result");
    let tokens: Vec<String> = serde_json::from_value(summary["tokens"].clone()).unwrap();
    assert_eq!(tokens.len(), RAW.len(), "one token per value: {tokens:?}");

    // Replica B recalled the name replica A tokenized (from the shared vault).
    let notes = summary["notes"].as_str().unwrap();
    assert_eq!(
        notes, "Call log: [NAME_1] rang back about the renewal.\n",
        "{summary}"
    );
    assert_eq!(tokens[0], "[NAME_1]", "Maria Ortiz is the first name read");

    // Written through replica B, in the session replica A opened: real values on disk.
    assert_eq!(summary["wrote_is_error"], false);
    let written = std::fs::read_to_string(folder.join("out.txt")).unwrap();
    for value in RAW {
        assert!(written.contains(value), "value {value:?} restored on disk");
    }

    // Another session cannot restore them: the call is refused, nothing is written.
    assert_eq!(summary["other_is_error"], true, "{summary}");
    assert!(!folder.join("other.txt").exists());

    // Logs carry no values.
    for replica in [&a, &b] {
        assert_absent(&replica.stderr(), &RAW, "the gateway's stderr");
    }
}
