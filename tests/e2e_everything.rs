//! E2E (c): `@modelcontextprotocol/server-everything` directly and through `mcp-veil proxy`, with
//! the same Python client script.
//!
//! Progress notifications, sampling (tokenized toward the client, rehydrated back to the server),
//! elicitation and logging all arrive, and every result matches the direct run except that the
//! personal values are tokens. A server that got a token instead of the real value would echo
//! it, and the proxy would then show the client a `[LITERAL_N]` token: none may appear. Needs
//! `bash .ci/install-peers.sh`.

mod common;

use common::*;
use serde_json::Value;

const RAW: [&str; 2] = ["EMP-123456", "maria.ortiz@example.com"];

fn run(mode: &str, dir: &std::path::Path) -> (Value, String) {
    let log = dir.join(format!("{mode}.jsonl"));
    let everything = npm_bin("mcp-server-everything");
    let mut yaml =
        "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{6}'\n".to_string();
    if mode == "gateway" {
        yaml.push_str(&format!(
            "servers:\n  everything:\n    command: {}\n    args: [stdio]\n",
            everything.display()
        ));
    }
    let config = write_config(dir, &yaml);
    let mut args = vec![
        mode.to_string(),
        everything.display().to_string(),
        log.display().to_string(),
    ];
    if mode != "direct" {
        args.push(veil().display().to_string());
        args.push(config.display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let summary = run_client("everything_client.py", &args);
    (summary, std::fs::read_to_string(&log).unwrap())
}

/// Raw values and tokens both become `<V>`, so the two runs compare equal.
fn normalise(v: &Value) -> String {
    let mut text = v.to_string();
    for raw in RAW {
        text = text.replace(raw, "<V>");
    }
    for token in tokens(&text) {
        text = text.replace(&token, "<V>");
    }
    text
}

#[test]
fn everything_server_behaves_the_same_through_the_proxy() {
    let dir = tempfile::tempdir().unwrap();
    let (direct, _) = run("direct", dir.path());
    let (proxied, received) = run("proxy", dir.path());
    compare(&direct, &proxied, &received);
}

/// The same through the gateway: server → client requests (sampling, elicitation) get new ids
/// and find their way back; progress and log notifications are forwarded.
#[test]
fn everything_server_behaves_the_same_through_the_gateway() {
    let dir = tempfile::tempdir().unwrap();
    let (direct, _) = run("direct", dir.path());
    let (proxied, received) = run("gateway", dir.path());
    compare(&direct, &proxied, &received);
    assert!(received.contains("everything__echo"));
}

fn compare(direct: &Value, proxied: &Value, received: &str) {
    // Nothing raw reached the client through the proxy, and no forged-token marker either.
    assert_absent(received, &RAW, "what the client received");
    assert!(
        !received.contains("[LITERAL_"),
        "the server got real values back"
    );
    assert!(direct["echo"].as_str().unwrap().contains(RAW[0]));

    // Same tools; same image bytes (blobs are never touched).
    assert_eq!(proxied["tools"], direct["tools"]);
    assert_eq!(proxied["image_sha256"], direct["image_sha256"]);
    assert_eq!(direct["image_sha256"].as_array().unwrap().len(), 1);

    // Progress notifications arrived, all of them.
    assert_eq!(proxied["long_run"], direct["long_run"]);
    assert_eq!(proxied["seen"]["progress"], direct["seen"]["progress"]);
    assert!(!direct["seen"]["progress"].as_array().unwrap().is_empty());

    // Sampling: the client's model saw tokens; the server got the real values back (its answer,
    // tokenized again, shows the same token, not a LITERAL).
    let sampling = &proxied["seen"]["sampling"];
    assert_eq!(sampling.as_array().unwrap().len(), 1);
    let asked = sampling[0]["text"].as_str().unwrap();
    assert!(asked.contains("[EMPLOYEE_ID_1]"), "{asked}");
    assert_eq!(normalise(sampling), normalise(&direct["seen"]["sampling"]));
    assert_eq!(
        normalise(&proxied["sampled"]),
        normalise(&direct["sampled"])
    );

    // Elicitation arrived; the reply's tokens were restored for the server.
    assert_eq!(
        proxied["seen"]["elicitation"],
        direct["seen"]["elicitation"]
    );
    assert!(
        proxied["elicited"]
            .as_str()
            .unwrap()
            .contains("[EMPLOYEE_ID_1]")
    );
    assert_eq!(
        normalise(&proxied["elicited"]),
        normalise(&direct["elicited"])
    );

    // Logging notifications arrived.
    assert!(!proxied["seen"]["logs"].as_array().unwrap().is_empty());

    // Everything else matches except for tokens.
    assert_eq!(normalise(&proxied["echo"]), normalise(&direct["echo"]));
    assert_eq!(
        proxied["structured"].is_object(),
        direct["structured"].is_object()
    );
}
