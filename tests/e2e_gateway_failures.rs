//! The gateway's own behaviour, driven with raw JSON-RPC lines: paginated upstream lists merged
//! into one page with calls routed to every page's tools; a tool-name collision after
//! normalisation stops start-up naming both origins; a server that dies mid-session turns its
//! pending and later calls into clear errors while the other servers keep working. The servers
//! are a raw-JSON Python server, a tiny Python SDK server and server-memory. Needs
//! `bash .ci/install-peers.sh`.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use common::*;
use serde_json::{Value, json};

struct Host {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Host {
    fn start(config: &std::path::Path) -> Host {
        let mut child = Command::new(veil())
            .args(["proxy", "--config", config.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Host {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends a request and returns the response with its id (other messages are skipped).
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "gateway closed"
            );
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == id {
                return v;
            }
        }
    }

    fn call(&mut self, id: u64, tool: &str) -> Value {
        self.request(id, "tools/call", json!({"name": tool, "arguments": {}}))["result"].clone()
    }
}

fn tiny(mode: &str) -> String {
    format!(
        "{{command: {}, args: [{}, {mode}]}}",
        python().display(),
        root().join("tests/e2e/tiny_server.py").display()
    )
}

#[test]
fn paginated_lists_are_merged_and_every_page_is_routed() {
    let dir = tempfile::tempdir().unwrap();
    let paged = root().join("tests/e2e/paged_server.py");
    let config = write_config(
        dir.path(),
        &format!(
            "servers:\n  p.one:\n    command: python3\n    args: [{0}]\n  p2:\n    command: python3\n    args: [{0}]\n",
            paged.display()
        ),
    );
    let mut host = Host::start(&config);
    let init = host.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(init["result"]["capabilities"]["logging"], json!({}));
    let tools = host.request(1, "tools/list", json!({}));
    assert!(tools["result"].get("nextCursor").is_none());
    let mut names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort();
    let expected: Vec<String> = ["p2", "p_one"]
        .iter()
        .flat_map(|s| (0..7).map(move |i| format!("{s}__t{i}")))
        .collect();
    assert_eq!(names, expected);
    // A tool from the last page of the server whose name was normalised.
    let result = host.request(
        2,
        "tools/call",
        json!({"name": "p_one__t6", "arguments": {"k": 1}}),
    );
    assert_eq!(result["result"]["content"][0]["text"], "t6 {\"k\": 1}");
    let unknown = host.request(3, "nope/method", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    let pong = host.request(4, "ping", json!({}));
    assert_eq!(pong["result"], json!({}));
    drop(host.stdin);
    assert!(host.child.wait().unwrap().success());
}

#[test]
fn colliding_tool_names_stop_start_up_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &format!("servers:\n  t: {}\n", tiny("collide")));
    let out = Command::new(veil())
        .args(["proxy", "--config", config.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("`t__get_item`"), "{stderr}");
    assert!(
        stderr.contains("`t/get.item`") && stderr.contains("`t/get_item`"),
        "{stderr}"
    );
}

#[test]
fn a_server_that_dies_fails_its_calls_and_the_others_keep_working() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!(
            "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{6}}'\n\
             servers:\n  crashy: {}\n  memory:\n    command: {}\n    env: {{MEMORY_FILE_PATH: {}}}\n",
            tiny("crashy"),
            npm_bin("mcp-server-memory").display(),
            dir.path().join("memory.jsonl").display()
        ),
    );
    let mut host = Host::start(&config);
    let init = host.request(
        0,
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "mcp-veil-gateway");
    let tools = host.request(1, "tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"crashy__hello") && names.contains(&"memory__read_graph"),
        "{names:?}"
    );

    let hello = host.call(2, "crashy__hello");
    assert_eq!(hello["content"][0]["text"], "hello [EMPLOYEE_ID_1]");

    // The call in flight when the server dies gets an error result naming it.
    let crash = host.call(3, "crashy__crash");
    assert_eq!(crash["isError"], true, "{crash}");
    assert!(
        crash["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("`crashy`")
    );
    // Later calls too; the tool stays listed so the host can tell what happened.
    let again = host.call(4, "crashy__hello");
    assert_eq!(again["isError"], true);
    assert!(
        again["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("`crashy`")
    );

    // The other server keeps working, and the session still holds the earlier token.
    let created = host.request(
        5,
        "tools/call",
        json!({"name": "memory__create_entities", "arguments": {"entities": [
            {"name": "ticket", "entityType": "note", "observations": ["owner [EMPLOYEE_ID_1]"]}
        ]}}),
    );
    assert_ne!(created["result"]["isError"], true, "{created}");
    let stored = std::fs::read_to_string(dir.path().join("memory.jsonl")).unwrap();
    assert!(stored.contains("owner EMP-123456"));

    drop(host.stdin);
    let status = host.child.wait().unwrap();
    assert!(status.success(), "the gateway exits 0 when the host leaves");
}
