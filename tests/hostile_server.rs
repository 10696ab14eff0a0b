//! Regression tests for issue 17 (a strict envelope): a hostile stdio server
//! (`tests/e2e/hostile_server.py`) and a hostile host, through `mcp-veil proxy -- CMD` and
//! through the stdio gateway (`proxy --config` with `servers:`).
//!
//! Each test plants real-looking values (an email, a phone number) in a message that fits no
//! JSON-RPC class and checks that they never reach the other side raw (nor stderr, where the
//! logs go), that a request the hostile message claimed to answer gets an error instead of
//! hanging, and that the relay keeps working afterwards (a later normal call is answered).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::*;
use serde_json::{Value, json};

const EMAIL: &str = "maria.garcia@example.com";
const PHONE: &str = "+1 415 555 0132";
const PLANTED: &[&str] = &[EMAIL, PHONE];

/// How long a test waits for one answer before calling it a hang.
const PATIENCE: Duration = Duration::from_secs(20);

/// Policy for the host-side cases: raw values and the `delete` tool are denied.
const POLICY: &str = "flows:\n  raw: deny\ntools:\n  - match: \"*/delete\"\n    action: deny\n";

/// Which front end runs the hostile server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Front {
    /// `mcp-veil proxy --config POLICY -- python3 hostile_server.py SCRIPT`.
    Proxy,
    /// `mcp-veil proxy --config F` with `servers: {hostile: ...}`; tools are `hostile__NAME`.
    Gateway,
}

/// One running layer with the hostile server behind it.
struct Peer {
    front: Front,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: std::thread::JoinHandle<String>,
    /// What the server received.
    server_log: PathBuf,
    _dir: tempfile::TempDir,
    next_id: u64,
}

impl Peer {
    /// Starts `front` with a server that writes `script`'s lines for each tool.
    fn start(front: Front, script: Value) -> Peer {
        let dir = tempfile::tempdir().unwrap();
        let script_path = dir.path().join("script.json");
        std::fs::write(&script_path, script.to_string()).unwrap();
        let server_log = dir.path().join("server.log");
        let fixture = root().join("tests/e2e/hostile_server.py");
        let mut cmd = Command::new(veil());
        match front {
            Front::Proxy => {
                let config = write_config(dir.path(), POLICY);
                // Through `env`: the layer starts servers from a clean environment.
                cmd.args(["proxy", "--config"])
                    .arg(config)
                    .args(["--", "env"])
                    .arg(format!("HOSTILE_LOG={}", server_log.display()))
                    .arg("python3")
                    .arg(&fixture)
                    .arg(&script_path);
            }
            Front::Gateway => {
                let yaml = format!(
                    "{POLICY}servers:\n  hostile:\n    command: python3\n    args: [{}, {}]\n    env: {{HOSTILE_LOG: {}}}\n",
                    json!(fixture.display().to_string()),
                    json!(script_path.display().to_string()),
                    json!(server_log.display().to_string()),
                );
                let config = write_config(dir.path(), &yaml);
                cmd.args(["proxy", "--config"]).arg(config);
            }
        }
        let mut child = cmd
            .env("MCP_VEIL_LOG", "debug")
            .env_remove("MCP_VEIL_AUDIT_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp-veil runs");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        let mut peer = Peer {
            front,
            stdin: child.stdin.take(),
            child,
            lines,
            stderr,
            server_log,
            _dir: dir,
            next_id: 100,
        };
        let init = peer.ask(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "hostile-test", "version": "1"}}}),
        );
        assert!(init["result"].is_object(), "{init}");
        peer.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        peer
    }

    /// The tool's name as the host sees it.
    fn tool(&self, name: &str) -> String {
        match self.front {
            Front::Proxy => name.to_string(),
            Front::Gateway => format!("hostile__{name}"),
        }
    }

    fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Reads host-bound lines until the answer to `id`; every line is checked clean.
    fn answer_to(&mut self, id: &Value) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(PATIENCE)
                .unwrap_or_else(|_| panic!("no answer to id {id}: the relay hangs"));
            assert_absent(&line, PLANTED, "a line the host received");
            let v: Value = serde_json::from_str(&line).expect("the host gets JSON");
            let items = match v {
                Value::Array(items) => items,
                one => vec![one],
            };
            if let Some(answer) = items.into_iter().find(|m| &m["id"] == id) {
                return answer;
            }
        }
    }

    fn ask(&mut self, msg: Value) -> Value {
        self.send(msg.to_string().as_bytes());
        self.answer_to(&msg["id"])
    }

    /// Calls `tool` (its plain name) with `arguments`.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call",
            "params": {"name": self.tool(tool), "arguments": arguments}});
        self.ask(msg)
    }

    /// A normal call still works.
    fn still_works(&mut self) {
        let answer = self.call("echo", json!({"text": "still here"}));
        assert_eq!(
            answer["result"]["content"][0]["text"], "still here",
            "{answer}"
        );
    }

    /// What the server received so far.
    fn server_saw(&self) -> String {
        std::fs::read_to_string(&self.server_log).unwrap_or_default()
    }

    /// Ends the session; stderr (the logs) must hold no planted value.
    fn finish(mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
        let stderr = self.stderr.join().unwrap();
        assert_absent(&stderr, PLANTED, "stderr");
    }
}

fn both(test: impl Fn(Front)) {
    for front in [Front::Proxy, Front::Gateway] {
        test(front);
    }
}

/// A result line with `text` for the call being answered.
fn result_line(text: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{{id}},"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#
    )
}

/// Calls `tool`, expects a JSON-RPC error in place of its answer, then checks the relay.
fn answered_with_an_error(front: Front, lines: Vec<String>) {
    let mut peer = Peer::start(front, json!({ "bad": lines }));
    let answer = peer.call("bad", json!({}));
    assert!(answer["error"]["code"].is_i64(), "{front:?}: {answer}");
    assert!(answer.get("result").is_none(), "{front:?}: {answer}");
    peer.still_works();
    peer.finish();
}

/// Calls `tool`, whose hostile lines come before a normal answer: the host gets the answer only.
fn hostile_lines_dropped(front: Front, lines: Vec<String>) {
    let mut script_lines = lines;
    script_lines.push(result_line("fine"));
    let mut peer = Peer::start(front, json!({ "noisy": script_lines }));
    let answer = peer.call("noisy", json!({}));
    assert_eq!(
        answer["result"]["content"][0]["text"], "fine",
        "{front:?}: {answer}"
    );
    peer.still_works();
    peer.finish();
}

// ---- Server → host ----

#[test]
fn a_response_with_both_result_and_error_is_an_error() {
    both(|front| {
        answered_with_an_error(
            front,
            vec![format!(
                r#"{{"jsonrpc":"2.0","id":{{id}},"result":{{"content":[{{"type":"text","text":"{EMAIL}"}}]}},"error":{{"code":1,"message":"{PHONE}"}}}}"#
            )],
        )
    });
}

#[test]
fn a_response_with_a_method_is_an_error() {
    both(|front| {
        answered_with_an_error(
            front,
            vec![format!(
                r#"{{"jsonrpc":"2.0","id":{{id}},"method":"tools/call","result":{{"content":[{{"type":"text","text":"{EMAIL}"}}]}}}}"#
            )],
        )
    });
}

#[test]
fn a_duplicated_result_member_is_an_error_not_a_hang() {
    both(|front| {
        answered_with_an_error(
            front,
            vec![format!(
                r#"{{"jsonrpc":"2.0","id":{{id}},"result":{{"content":[{{"type":"text","text":"ok"}}]}},"result":{{"content":[{{"type":"text","text":"{EMAIL}"}}]}}}}"#
            )],
        )
    });
}

#[test]
fn duplicate_members_deep_in_a_result_are_an_error() {
    both(|front| {
        answered_with_an_error(
            front,
            vec![format!(
                r#"{{"jsonrpc":"2.0","id":{{id}},"result":{{"content":[{{"type":"text","text":"ok","text":"{EMAIL}"}}]}}}}"#
            )],
        )
    });
}

#[test]
fn a_member_json_rpc_does_not_define_is_an_error() {
    both(|front| {
        answered_with_an_error(
            front,
            vec![format!(
                r#"{{"jsonrpc":"2.0","id":{{id}},"result":{{"content":[]}},"contact":"{EMAIL}"}}"#
            )],
        )
    });
}

#[test]
fn invalid_utf8_costs_one_message_not_the_relay() {
    both(|front| {
        answered_with_an_error(
            front,
            vec![format!(
                r#"{{"jsonrpc":"2.0","id":{{id}},"result":{{"content":[{{"type":"text","text":"{EMAIL} {{FF}}"}}]}}}}"#
            )],
        )
    });
}

#[test]
fn an_id_of_the_wrong_type_never_passes() {
    both(|front| {
        hostile_lines_dropped(
            front,
            vec![
                format!(r#"{{"jsonrpc":"2.0","id":{{"a":1}},"result":{{"text":"{EMAIL}"}}}}"#),
                format!(r#"{{"jsonrpc":"2.0","id":true,"result":{{"text":"{PHONE}"}}}}"#),
            ],
        )
    });
}

#[test]
fn sampling_with_a_null_or_missing_id_is_dropped() {
    let params = format!(
        r#"{{"messages":[{{"role":"user","content":{{"type":"text","text":"write to {EMAIL} or {PHONE}"}}}}],"maxTokens":10}}"#
    );
    both(|front| {
        hostile_lines_dropped(
            front,
            vec![
                format!(
                    r#"{{"jsonrpc":"2.0","id":null,"method":"sampling/createMessage","params":{params}}}"#
                ),
                format!(
                    r#"{{"jsonrpc":"2.0","method":"sampling/createMessage","params":{params}}}"#
                ),
            ],
        )
    });
}

#[test]
fn a_notification_carrying_an_id_is_dropped() {
    both(|front| {
        hostile_lines_dropped(
            front,
            vec![format!(
                r#"{{"jsonrpc":"2.0","id":77,"method":"notifications/message","params":{{"level":"info","data":"{EMAIL}"}}}}"#
            )],
        )
    });
}

#[test]
fn a_notification_with_duplicate_members_is_dropped() {
    both(|front| {
        hostile_lines_dropped(
            front,
            vec![format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"ok","data":"{EMAIL}"}}}}"#
            )],
        )
    });
}

#[test]
fn lines_that_are_not_json_rpc_are_dropped() {
    both(|front| {
        hostile_lines_dropped(
            front,
            vec![
                format!("debug: calling {EMAIL}"),
                format!(r#"["{EMAIL}"]"#),
                format!(
                    r#"{{"jsonrpc":"1.0","method":"notifications/message","params":{{"data":"{PHONE}"}}}}"#
                ),
                "{FF}{FF}".to_string(),
            ],
        )
    });
}

#[test]
fn a_batch_item_that_fits_no_class_is_an_error() {
    both(|front| {
        answered_with_an_error(
            front,
            vec![format!(
                r#"[{{"jsonrpc":"2.0","id":{{id}},"result":{{"text":"{EMAIL}"}},"error":{{"code":1,"message":"x"}}}}]"#
            )],
        )
    });
}

// ---- Host → server ----

/// Sends `msg` (raw bytes) from the host: it is refused with an error for `id` and the server
/// never receives the planted marker.
fn refused_from_host(front: Front, msg: &[u8], id: Value) {
    let mut peer = Peer::start(front, json!({}));
    peer.send(msg);
    let answer = peer.answer_to(&id);
    assert!(answer["error"]["code"].is_i64(), "{front:?}: {answer}");
    peer.still_works();
    let saw = peer.server_saw();
    assert_absent(&saw, PLANTED, "what the server received");
    assert!(
        !saw.contains("delete"),
        "{front:?}: the server got the call: {saw}"
    );
    peer.finish();
}

fn call_text(name_part: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{name_part}}}"#)
}

#[test]
fn a_tool_name_given_twice_is_refused() {
    both(|front| {
        let (ok, bad) = match front {
            Front::Proxy => ("echo", "delete"),
            Front::Gateway => ("hostile__echo", "hostile__delete"),
        };
        let msg = call_text(&format!(
            r#"{{"name":"{ok}","name":"{bad}","arguments":{{"text":"{EMAIL}"}}}}"#
        ));
        refused_from_host(front, msg.as_bytes(), json!(9));
    });
}

#[test]
fn arguments_given_twice_are_refused() {
    both(|front| {
        let echo = if front == Front::Proxy {
            "echo"
        } else {
            "hostile__echo"
        };
        let msg = call_text(&format!(
            r#"{{"name":"{echo}","arguments":{{"text":"[EMAIL_1]"}},"arguments":{{"text":"{EMAIL} delete"}}}}"#
        ));
        refused_from_host(front, msg.as_bytes(), json!(9));
    });
}

#[test]
fn a_call_without_a_readable_name_is_refused() {
    both(|front| {
        let msg = call_text(&format!(
            r#"{{"name":["delete"],"arguments":{{"text":"{EMAIL}"}}}}"#
        ));
        refused_from_host(front, msg.as_bytes(), json!(9));
    });
}

#[test]
fn a_call_sent_as_a_notification_is_refused() {
    both(|front| {
        let delete = if front == Front::Proxy {
            "delete"
        } else {
            "hostile__delete"
        };
        let mut peer = Peer::start(front, json!({}));
        peer.send(
            format!(
                r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"{delete}","arguments":{{"to":"{EMAIL}"}}}}}}"#
            )
            .as_bytes(),
        );
        // With no id the refusal carries a null id.
        let answer = peer.answer_to(&Value::Null);
        assert!(answer["error"]["code"].is_i64(), "{front:?}: {answer}");
        peer.still_works();
        assert!(!peer.server_saw().contains("delete"), "{front:?}");
        peer.finish();
    });
}

#[test]
fn invalid_utf8_from_the_host_is_refused_and_the_relay_goes_on() {
    both(|front| {
        let echo = if front == Front::Proxy {
            "echo"
        } else {
            "hostile__echo"
        };
        let mut msg = format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"{echo}","arguments":{{"text":"{EMAIL} "#
        )
        .into_bytes();
        msg.extend_from_slice(b"\xff\"}}}");
        refused_from_host(front, &msg, json!(9));
    });
}

#[test]
fn an_id_of_the_wrong_type_from_the_host_is_refused() {
    both(|front| {
        let echo = if front == Front::Proxy {
            "echo"
        } else {
            "hostile__echo"
        };
        let mut peer = Peer::start(front, json!({}));
        peer.send(
            format!(
                r#"{{"jsonrpc":"2.0","id":{{"x":1}},"method":"tools/call","params":{{"name":"{echo}","arguments":{{"text":"{EMAIL}"}}}}}}"#
            )
            .as_bytes(),
        );
        let answer = peer.answer_to(&Value::Null);
        assert!(answer["error"]["code"].is_i64(), "{front:?}: {answer}");
        peer.still_works();
        assert_absent(&peer.server_saw(), PLANTED, "what the server received");
        peer.finish();
    });
}

/// The fixture itself: a normal call goes through both front ends.
#[test]
fn the_fixture_answers_normal_calls() {
    both(|front| {
        let mut peer = Peer::start(front, json!({}));
        peer.still_works();
        assert!(peer.server_saw().contains("tools/call"));
        peer.finish();
    });
}
