//! `mcp-veil serve` replicas for tests: started on a free loopback port (`--listen
//! 127.0.0.1:0`, the address read from its first stderr line), stderr kept for inspection,
//! killed when dropped.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// A running replica.
#[derive(Debug)]
pub(crate) struct Replica {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub(crate) url: String,
    stderr: Arc<Mutex<String>>,
}

impl Replica {
    /// Starts `veil serve --config config` with extra environment variables.
    pub(crate) fn start(veil: &Path, config: &Path, env: &[(&str, &str)]) -> Replica {
        let mut child = Command::new(veil)
            .args(["serve", "--config"])
            .arg(config)
            .args(["--listen", "127.0.0.1:0"])
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp-veil serve starts");
        let mut reader = BufReader::new(child.stderr.take().expect("stderr"));
        let mut first = String::new();
        let _ = reader.read_line(&mut first);
        let Some(url) = first.trim().strip_prefix("mcp-veil serve: listening on ") else {
            let _ = child.kill();
            let mut rest = String::new();
            let _ = reader.read_to_string(&mut rest);
            panic!("mcp-veil serve did not start: {first}{rest}");
        };
        let url = url.to_string();
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = stderr.clone();
        std::thread::spawn(move || {
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                sink.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        Replica { child, url, stderr }
    }

    /// `http://127.0.0.1:PORT` (without `/mcp`).
    #[allow(dead_code)]
    pub(crate) fn base(&self) -> &str {
        self.url.trim_end_matches("/mcp")
    }

    /// What it wrote on stderr so far.
    #[allow(dead_code)]
    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Its process id.
    #[allow(dead_code)]
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Whether it is still running.
    #[allow(dead_code)]
    pub(crate) fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
