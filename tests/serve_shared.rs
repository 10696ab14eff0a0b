//! `share: true` on a stdio server: one child (server-memory) serves every HTTP session of
//! `mcp-veil serve`, with ids remapped per session and tokens per session.
//!
//! Two sessions send the same JSON-RPC ids at the same time; each stores its own raw value
//! and gets a token for it; each session's token restores to its own value only (the child
//! finds that session's entity, never the other's); no raw value reaches either client; one
//! child process runs for both, and it stays until the last session ends.
//!
//! Needs `bash .ci/install-peers.sh`.

mod common;
mod support;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use support::load::Client;
use support::serve::Replica;

/// The processes whose parent is `pid`.
fn children_of(pid: u32) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter(|stat| {
            // `pid (comm) state ppid ...`: comm may hold spaces, so split after the last `)`.
            stat.rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|ppid| ppid.parse::<u32>().ok())
                == Some(pid)
        })
        .count()
}

fn init() -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {},
           "clientInfo": {"name": "shared", "version": "1"}})
}

fn text(answer: &Value) -> String {
    answer
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .unwrap_or_else(|| panic!("a tool result: {answer}"))
        .to_string()
}

/// Stores an entity named `name` observing `value` and returns what the client saw.
async fn store(client: &mut Client, url: &str, name: &str, value: &str) -> String {
    let answer = client
        .request(
            url,
            "tools/call",
            json!({"name": "memory__create_entities", "arguments": {"entities": [
                {"name": name, "entityType": "thing", "observations": [value]}
            ]}}),
        )
        .await
        .unwrap();
    text(&answer)
}

async fn search(client: &mut Client, url: &str, query: &str) -> String {
    let answer = client
        .request(
            url,
            "tools/call",
            json!({"name": "memory__search_nodes", "arguments": {"query": query}}),
        )
        .await
        .unwrap();
    text(&answer)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_child_serves_two_sessions_with_their_own_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = format!(
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{8}}'\n\
         servers:\n  memory:\n    command: {memory}\n    env: {{MEMORY_FILE_PATH: {file}}}\n    share: true\n",
        memory = npm_bin("mcp-server-memory").display(),
        file = dir.path().join("memory.jsonl").display(),
    );
    let config = write_config(dir.path(), &yaml);
    let replica = Replica::start(&veil(), &config, &[]);
    let http = reqwest::Client::new();
    let (mut a, mut b) = (Client::new(http.clone()), Client::new(http.clone()));
    let url = replica.url.clone();
    // Both initialize at once (the second is answered from the child's first answer); their
    // request ids are the same numbers throughout.
    let (ia, ib) = tokio::join!(
        a.request(&url, "initialize", init()),
        b.request(&url, "initialize", init())
    );
    ia.unwrap();
    ib.unwrap();
    assert_ne!(a.session(), b.session());
    // `Client::request` fails on any raw `EMP-` value in an answer.
    // One after the other: server-memory's own file writes race when two calls overlap.
    let sa = store(&mut a, &url, "item-alpha", "EMP-11111111").await;
    let sb = store(&mut b, &url, "item-beta", "EMP-22222222").await;
    let (ta, tb) = (tokens(&sa), tokens(&sb));
    assert_eq!(ta.len(), 1, "{sa}");
    assert_eq!(tb.len(), 1, "{sb}");
    assert!(
        sa.contains("item-alpha") && !sa.contains("item-beta"),
        "{sa}"
    );
    assert!(
        sb.contains("item-beta") && !sb.contains("item-alpha"),
        "{sb}"
    );
    // Each session's token restores to its own value: the child finds that session's entity.
    let (fa, fb) = tokio::join!(search(&mut a, &url, &ta[0]), search(&mut b, &url, &tb[0]));
    assert!(
        fa.contains("item-alpha") && !fa.contains("item-beta"),
        "{fa}"
    );
    assert!(
        fb.contains("item-beta") && !fb.contains("item-alpha"),
        "{fb}"
    );
    // More concurrent requests with the same ids.
    for _ in 0..5 {
        let (x, y) = tokio::join!(
            a.request(&url, "tools/list", json!({})),
            b.request(&url, "tools/list", json!({}))
        );
        x.unwrap();
        y.unwrap();
    }
    assert_eq!(children_of(replica.pid()), 1, "one child for both sessions");
    let stderr = replica.stderr();
    assert!(!stderr.contains("EMP-"), "{stderr}");

    // The child outlives the first session, and ends with the last.
    let delete = |sid: String| {
        let http = http.clone();
        let url = url.clone();
        async move {
            http.delete(&url)
                .header("mcp-session-id", sid)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(delete(a.session().unwrap().to_string()).await, 200);
    let again = search(&mut b, &url, &tb[0]).await;
    assert!(again.contains("item-beta"), "{again}");
    assert_eq!(children_of(replica.pid()), 1);
    assert_eq!(delete(b.session().unwrap().to_string()).await, 200);
    let mut left = 1;
    for _ in 0..80 {
        left = children_of(replica.pid());
        if left == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(left, 0, "the child ends with the last session");
    // A new session starts a new child.
    let mut c = Client::new(http.clone());
    c.request(&url, "initialize", init()).await.unwrap();
    let found = search(&mut c, &url, "item-alpha").await;
    assert!(found.contains("item-alpha"), "{found}");
    assert_eq!(children_of(replica.pid()), 1);
    let metrics = http
        .get(format!("{}/metrics", replica.base()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("mcp_veil_shared_dropped_total"),
        "{metrics}"
    );
}

#[test]
fn share_on_a_url_server_is_a_configuration_error() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        "servers:\n  up:\n    url: http://127.0.0.1:9/mcp\n    share: true\n",
    );
    let out = std::process::Command::new(veil())
        .args(["serve", "--config"])
        .arg(&config)
        .args(["--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("`share` applies to stdio servers"),
        "{stderr}"
    );
}
