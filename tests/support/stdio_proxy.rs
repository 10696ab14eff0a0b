//! `mcp-veil proxy --config FILE` as a child the test talks to line by line on stdio.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// A running proxy: the child (killed on drop), its stdin, and its stdout's lines.
pub(crate) struct StdioProxy {
    pub(crate) child: Child,
    pub(crate) stdin: ChildStdin,
    pub(crate) lines: Lines<BufReader<ChildStdout>>,
}

/// Starts `veil proxy --config config` with stderr discarded.
pub(crate) fn spawn(veil: &Path, config: &Path) -> StdioProxy {
    let mut child = Command::new(veil)
        .args(["proxy", "--config"])
        .arg(config)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("mcp-veil proxy starts");
    let stdin = child.stdin.take().expect("piped stdin");
    let lines = BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    StdioProxy {
        child,
        stdin,
        lines,
    }
}

impl StdioProxy {
    /// Writes `msg` as one line.
    pub(crate) async fn send(&mut self, msg: impl std::fmt::Display) {
        self.stdin
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .unwrap();
    }

    /// Sends request `id` and reads lines until its answer, which it returns (other messages
    /// are skipped); panics when 30 s pass between lines.
    pub(crate) async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let msg =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(msg).await;
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), self.lines.next_line())
                .await
                .expect("an answer in time")
                .unwrap()
                .expect("the proxy goes on");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v.get("id") == Some(&serde_json::json!(id)) {
                return v;
            }
        }
    }

    /// Reads messages into `seen` until `done` holds for them; panics, showing what was seen,
    /// when 30 s pass first.
    pub(crate) async fn read_until(
        &mut self,
        seen: &mut Vec<Value>,
        done: impl Fn(&Vec<Value>) -> bool,
    ) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while !done(seen) {
            let line = tokio::time::timeout_at(deadline, self.lines.next_line())
                .await
                .unwrap_or_else(|_| panic!("in time; seen so far: {seen:?}"))
                .unwrap()
                .expect("a line");
            seen.push(serde_json::from_str(&line).unwrap());
        }
    }
}
