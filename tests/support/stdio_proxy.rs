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
