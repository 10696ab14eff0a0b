//! `mcp-veil proxy --config FILE` as a child the test talks to line by line on stdio.

use std::path::Path;
use std::process::Stdio;

use tokio::io::{AsyncBufReadExt, BufReader, Lines};
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
