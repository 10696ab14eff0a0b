//! A call to a tool `tools:` denies gets the same answer, and the same audit event, behind the
//! gateway (`proxy --config F` with `servers:`) as behind the single proxy. The upstream is the
//! embedded demo CRM server (`mcp-veil demo --server`), so no Node is needed.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const KEY: &str = "gateway-policy-key-gateway-policy-key";
const BIN: &str = env!("CARGO_BIN_EXE_mcp-veil");

struct Session {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Session {
    fn start(config: &Path, extra: &[&str]) -> Session {
        let mut child = Command::new(BIN)
            .arg("--config")
            .arg(config)
            .arg("proxy")
            .args(extra)
            .env("MCP_VEIL_AUDIT_KEY", KEY)
            .env_remove("MCP_VEIL_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Session { child, lines }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// The response with `id`.
    fn response(&self, id: u32) -> serde_json::Value {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .expect("a response in time");
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    fn finish(mut self) {
        drop(self.child.stdin.take());
        self.child.wait().unwrap();
    }
}

fn denied_call(config: &Path, extra: &[&str], tool: &str) -> String {
    let mut s = Session::start(config, extra);
    s.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
    s.response(1);
    s.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    s.send(&format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"{tool}","arguments":{{"to":"a@b.example","subject":"s","body":"b"}}}}}}"#
    ));
    let r = s.response(2);
    s.finish();
    assert_eq!(r["result"]["isError"], true, "{r}");
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_denied_tool_is_refused_and_audited_alike_by_gateway_and_proxy() {
    let dir = tempfile::tempdir().unwrap();
    let mut answers = Vec::new();
    for gateway in [true, false] {
        let log = dir.path().join(format!("audit-{gateway}.jsonl"));
        let config = dir.path().join(format!("c-{gateway}.yaml"));
        let servers = if gateway {
            format!("servers:\n  crm:\n    command: {BIN}\n    args: [demo, --server]\n")
        } else {
            String::new()
        };
        std::fs::write(
            &config,
            format!(
                "{servers}tools:\n  - match: crm/send_email\n    action: deny\naudit:\n  path: {}\n  fsync: never\n",
                log.display()
            ),
        )
        .unwrap();
        let text = if gateway {
            denied_call(&config, &[], "crm__send_email")
        } else {
            denied_call(
                &config,
                &["--name", "crm", "--", BIN, "demo", "--server"],
                "send_email",
            )
        };
        assert!(
            text.contains("denied: tool policy `crm/send_email`"),
            "{text}"
        );
        let audit = std::fs::read_to_string(&log).unwrap();
        let event = audit
            .lines()
            .find(|l| l.contains("\"name\":\"send_email\"") && l.contains("\"event\":\"denied\""))
            .unwrap_or_else(|| panic!("no audit event for the call: {audit}"));
        assert!(event.contains("\"server\":\"crm\""), "{event}");
        answers.push(text.replace("mcp-veil gateway: ", ""));
    }
    assert_eq!(answers[0], answers[1]);
}
