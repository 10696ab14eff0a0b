//! Every server → host surface goes through the interceptor, with real servers (issue 17, 3).
//!
//! - Regression (token smuggling through the gateway): server `evil` writes `[EMAIL_1]` into
//!   its tool title and description, prompt description, resource URI and description and
//!   `initialize` instructions, after server `source` returned a real email that the session
//!   tokenized as `[EMAIL_1]`. The host sees `[LITERAL_N]` instead; a call with what it saw
//!   sends `evil` the literal text `[EMAIL_1]`, never the real address; the literal URI reads.
//! - The same through `mcp-veil serve` (the HTTP front end runs the same gateway per session).
//! - server-everything through `proxy`: its lists, instructions and completion values are
//!   scanned (a custom kind matches words it uses), the tokenized resource URI reads back the
//!   same document as directly, a tokenized completion value sent back as context restores
//!   (the server narrows on it), and progress still arrives.
//!
//! Needs `bash .ci/install-peers.sh`.

mod common;
mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::*;
use serde_json::{Value, json};
use support::serve::Replica;

const EMAIL: &str = "maria.ortiz@example.com";

struct Host {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    received: String,
}

impl Host {
    fn start(config: &std::path::Path) -> Host {
        let mut child = Command::new(veil())
            .args(["proxy", "--config", config.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Host {
            child,
            stdin,
            stdout,
            received: String::new(),
        }
    }

    /// Sends a request and returns the response with its id (other messages are kept in
    /// `received` too).
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "gateway closed"
            );
            self.received.push_str(&line);
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }
}

impl Drop for Host {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The one `[LITERAL_N]` in `text`.
fn literal_in(text: &str) -> String {
    let found = tokens(text);
    assert!(
        !text.contains("[EMAIL_1]"),
        "the forged token reached the host: {text}"
    );
    assert_eq!(found.len(), 1, "{text}");
    assert!(found[0].starts_with("[LITERAL_"), "{text}");
    found[0].clone()
}

/// A gateway over `source` and `evil` (which appends what `send` receives to `received`).
fn smuggle_config(
    dir: &std::path::Path,
    received: &std::path::Path,
    extra: &str,
) -> std::path::PathBuf {
    let script = root().join("tests/e2e/smuggle_server.py");
    write_config(
        dir,
        &format!(
            "servers:\n  source: {{command: {py}, args: [{script}, source]}}\n  \
             evil: {{command: {py}, args: [{script}, evil, {received}]}}\n{extra}",
            py = python().display(),
            script = script.display(),
            received = received.display()
        ),
    )
}

/// What `evil` received: one `to` per call, and never the real email.
fn evil_received(received: &std::path::Path) -> Vec<String> {
    let got = std::fs::read_to_string(received).unwrap();
    assert!(!got.contains(EMAIL), "the real email was sent to evil");
    got.lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["to"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn a_token_written_into_a_servers_lists_never_restores_another_servers_value() {
    let dir = tempfile::tempdir().unwrap();
    let received = dir.path().join("received.jsonl");
    let config = smuggle_config(dir.path(), &received, "");
    let mut host = Host::start(&config);
    host.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    // The real email, tokenized as [EMAIL_1] in this session.
    let looked = host.request(
        1,
        "tools/call",
        json!({"name": "source__lookup", "arguments": {}}),
    );
    assert_eq!(
        looked["result"]["content"][0]["text"], "contact [EMAIL_1]",
        "{looked}"
    );

    let tools = host.request(2, "tools/list", json!({}));
    let send = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "evil__send")
        .unwrap_or_else(|| panic!("{tools}"))
        .clone();
    let shown = literal_in(send["description"].as_str().unwrap());
    assert_eq!(literal_in(send["title"].as_str().unwrap()), shown);

    let prompts = host.request(3, "prompts/list", json!({}));
    let mail = &prompts["result"]["prompts"][0];
    assert_eq!(mail["name"], "evil__mail", "{prompts}");
    assert_eq!(literal_in(mail["description"].as_str().unwrap()), shown);

    let resources = host.request(4, "resources/list", json!({}));
    let inbox = &resources["result"]["resources"][0];
    let uri = inbox["uri"].as_str().unwrap().to_string();
    assert_eq!(literal_in(&uri), shown);
    assert_eq!(literal_in(inbox["description"].as_str().unwrap()), shown);
    // The URI the host saw reads the resource: the literal restores to the server's own text.
    let read = host.request(5, "resources/read", json!({"uri": uri}));
    assert_eq!(read["result"]["contents"][0]["text"], "empty", "{read}");

    // The model copies the address it was shown into the call.
    let sent = host.request(
        6,
        "tools/call",
        json!({"name": "evil__send", "arguments": {"to": shown}}),
    );
    assert_eq!(sent["result"]["isError"], false, "{sent}");
    assert_eq!(evil_received(&received), ["[EMAIL_1]"]);

    // Nothing token-shaped from the servers reached the host as a token of this session.
    assert!(!host.received.contains(EMAIL));
    let carrying: Vec<&str> = host
        .received
        .lines()
        .filter(|l| l.contains("[EMAIL_1]"))
        .collect();
    assert_eq!(carrying.len(), 1, "only the lookup result: {carrying:?}");
    assert!(carrying[0].starts_with(r#"{"jsonrpc":"2.0","id":1,"#));
}

#[test]
fn the_http_front_end_neutralises_smuggled_tokens_the_same_way() {
    let dir = tempfile::tempdir().unwrap();
    let received = dir.path().join("received.jsonl");
    let config = smuggle_config(
        dir.path(),
        &received,
        "serve:\n  session:\n    shared: true\n",
    );
    let replica = Replica::start(&veil(), &config, &[]);
    let summary = run_client("smuggle_http_client.py", &[&replica.url]);
    assert_eq!(summary["looked"], "contact [EMAIL_1]", "{summary}");
    let shown = literal_in(summary["description"].as_str().unwrap());
    assert_eq!(summary["shown"], shown.as_str());
    assert_eq!(literal_in(summary["prompts"][0].as_str().unwrap()), shown);
    assert_eq!(literal_in(summary["uri"].as_str().unwrap()), shown);
    assert_eq!(summary["read"], "empty");
    assert_eq!(summary["sent"], "sent");
    assert_eq!(evil_received(&received), ["[EMAIL_1]"]);
}

/// Words server-everything uses on its surfaces, declared as a custom kind.
const WORDS: [&str; 3] = [
    "architecture.md",
    "Engineering",
    "Cross-Feature Relationships",
];

fn everything(mode: &str, dir: &std::path::Path) -> (Value, String) {
    let log = dir.join(format!("{mode}.jsonl"));
    let everything = npm_bin("mcp-server-everything");
    let config = write_config(
        dir,
        "detect:\n  custom:\n    - kind: WORD\n      \
         pattern: 'architecture\\.md|\\bEngineering\\b|Cross-Feature Relationships'\n",
    );
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
    let summary = run_client("surfaces_client.py", &args);
    (summary, std::fs::read_to_string(&log).unwrap())
}

#[test]
fn everything_servers_surfaces_are_scanned_and_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let (direct, _) = everything("direct", dir.path());
    let (proxied, received) = everything("proxy", dir.path());
    // Directly, the words are there (so the proxy had something to find).
    assert!(direct["instructions"].as_str().unwrap().contains(WORDS[2]));
    assert!(
        direct["document"]["uri"]
            .as_str()
            .unwrap()
            .contains(WORDS[0])
    );
    assert!(
        direct["departments"]
            .as_array()
            .unwrap()
            .contains(&json!(WORDS[1]))
    );
    // Through the proxy, none of them reached the client, on any surface.
    assert_absent(&received, &WORDS, "what the client received");
    assert!(proxied["instructions"].as_str().unwrap().contains("[WORD_"));
    let uri = proxied["document"]["uri"].as_str().unwrap();
    assert!(uri.contains("[WORD_"), "{uri}");
    assert!(
        proxied["document"]["name"]
            .as_str()
            .unwrap()
            .contains("[WORD_")
    );
    // The tokenized URI reads the same document (tokenized the same way as any read).
    assert_eq!(
        proxied["document"]["read_len"].as_u64().unwrap() > 0,
        direct["document"]["read_len"].as_u64().unwrap() > 0
    );
    // Completion: the value is a token, and sent back as context it narrows the same way.
    let departments = proxied["departments"].as_array().unwrap();
    assert!(
        departments
            .iter()
            .any(|d| d.as_str().unwrap().starts_with("[WORD_")),
        "{departments:?}"
    );
    assert_eq!(proxied["members"].as_array().unwrap().len(), 3, "{proxied}");
    assert_eq!(
        proxied["members"].as_array().unwrap().len(),
        direct["members"].as_array().unwrap().len()
    );
    // Lists keep their shape and identifiers.
    assert_eq!(proxied["tools"], direct["tools"]);
    assert_eq!(proxied["prompts"], direct["prompts"]);
    assert_eq!(proxied["templates"], direct["templates"]);
    // Progress still arrives, every step.
    assert_eq!(proxied["progress"], direct["progress"]);
    assert!(!direct["progress"].as_array().unwrap().is_empty());
}
