//! A throwaway `redis-server` for tests: a free loopback port, a temporary directory, no system
//! service. Install the binary with `.ci/install-redis.sh`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server`, killed when dropped.
#[derive(Debug)]
pub(crate) struct RedisServer {
    child: Option<Child>,
    port: u16,
    dir: tempfile::TempDir,
    extra: Vec<String>,
}

impl RedisServer {
    /// A server that keeps nothing on disk (`--save '' --appendonly no`).
    pub(crate) fn start() -> RedisServer {
        RedisServer::start_with(&[])
    }

    /// A server with an append-only file fsynced on every write, so data survives
    /// [`RedisServer::stop`] + [`RedisServer::restart`] (the directory is kept).
    #[allow(dead_code)]
    pub(crate) fn start_persistent() -> RedisServer {
        RedisServer::start_with(&["--appendonly", "yes", "--appendfsync", "always"])
    }

    /// A server with extra configuration arguments (they override the defaults).
    pub(crate) fn start_with(extra: &[&str]) -> RedisServer {
        let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        let dir = tempfile::tempdir().expect("temp dir for redis-server");
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port();
            match spawn(port, dir.path(), &extra) {
                Ok(child) => {
                    return RedisServer {
                        child: Some(child),
                        port,
                        dir,
                        extra,
                    };
                }
                Err(e) => last = e,
            }
        }
        panic!("could not start redis-server: {last}");
    }

    /// `redis://127.0.0.1:PORT/0`.
    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Kills the server (SIGKILL: no shutdown save, like a crash).
    #[allow(dead_code)]
    pub(crate) fn stop(&mut self) {
        self.kill();
    }

    /// Starts the server again on the same port and directory.
    #[allow(dead_code)]
    pub(crate) fn restart(&mut self) {
        self.kill();
        let child = spawn(self.port, self.dir.path(), &self.extra).expect("redis-server restarts");
        self.child = Some(child);
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `redis-server` on `port` with its files in `dir` and waits until it answers.
fn spawn(port: u16, dir: &Path, extra: &[String]) -> Result<Child, String> {
    let mut cmd = Command::new("redis-server");
    cmd.arg("--port")
        .arg(port.to_string())
        .arg("--bind")
        .arg("127.0.0.1")
        .arg("--save")
        .arg("")
        .arg("--dir")
        .arg(dir)
        .arg("--logfile")
        .arg(dir.join("redis.log"))
        .arg("--daemonize")
        .arg("no")
        .args(["--appendonly", "no"])
        .args(extra);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("redis-server is not runnable ({e}); install it with .ci/install-redis.sh")
        });
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(dir.join("redis.log")).unwrap_or_default();
            return Err(format!("redis-server exited with {status}: {log}"));
        }
        if ping(port) {
            return Ok(child);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err("redis-server did not answer PING within 10 s".into())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

/// True once the server answers; an authentication error also counts as up.
fn ping(port: u16) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
    let mut buf = [0u8; 16];
    s.write_all(b"PING\r\n").is_ok()
        && s.read(&mut buf)
            .is_ok_and(|n| buf[..n].starts_with(b"+PONG") || buf[..n].starts_with(b"-NOAUTH"))
}
