//! `mcp-veil proxy CMD ...`: one stdio MCP server behind the interceptor.
//!
//! The proxy launches `CMD` as a child with a clean environment ([`super::child_env`]), reads newline-delimited
//! JSON-RPC from the host on stdin and from the child on its stdout, passes every message through
//! the [`Interceptor`], and writes what it returns: forwards go on, replies go back to the
//! sender. The child's stderr is the proxy's stderr. Each direction is handled in order, one
//! message at a time, so nothing is reordered.
//!
//! Shutdown: when the host closes stdin, the child's stdin is closed too and the child gets
//! [`GRACE`] to exit before it is killed; the proxy then exits 0. When the child exits first,
//! the proxy says so on stderr and returns [`ProxyError::ServerExited`] (a non-zero exit).
//! SIGINT or SIGTERM to `mcp-veil proxy` kills the child and exits 0 (see [`super::launch`]).
//!
//! The server's name, used in token origins (`name/tool`), is `--name` or derived from the
//! command by [`server_name`].

use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use super::interceptor::Interceptor;
pub use crate::config::ServerCommand;

/// How long a server may take to exit after its stdin is closed.
pub const GRACE: Duration = Duration::from_secs(5);

/// Why the proxy stopped with an error. Messages name servers and commands, never values.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProxyError {
    /// The server could not be started (not found, not executable).
    #[error("cannot start server `{name}` (`{command}`): {source}")]
    Spawn {
        /// The server's name.
        name: String,
        /// The program.
        command: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The server exited while the host was still connected.
    #[error("server `{name}` exited ({status}) while the client was still connected")]
    ServerExited {
        /// The server's name.
        name: String,
        /// How it exited.
        status: ExitStatus,
    },
    /// Reading from or writing to the host failed.
    #[error("host connection: {0}")]
    Host(std::io::Error),
    /// A gateway configuration problem (no servers, a tool name collision).
    #[error("{0}")]
    Config(String),
}

/// The server name for origins, derived from a command line.
///
/// The file name of the program, without extension; when the program is an interpreter or
/// launcher (`node`, `python3`, `npx`, `uvx`, `docker` ...), the first argument that is not an
/// option instead, with an npm scope and version dropped
/// (`npx -y @modelcontextprotocol/server-memory@1` → `server-memory`); a script named like an
/// entry point (`index.js`, `main.py`, `server.js` ...) gives its folder's name, build folders
/// (`dist`, `build`, `src` ...) skipped. The result is
/// normalised to `[A-Za-z0-9_-]`.
pub fn server_name(command: &str, args: &[String]) -> String {
    const LAUNCHERS: [&str; 12] = [
        "node", "python", "python3", "npx", "uvx", "uv", "deno", "bun", "bunx", "docker", "pipx",
        "java",
    ];
    let stem = |s: &str| -> String {
        let base = s.rsplit(['/', '\\']).next().unwrap_or(s);
        let base = match base.rsplit_once('@') {
            Some((name, _version)) if !name.is_empty() => name,
            _ => base,
        };
        let base = base.trim_start_matches('@');
        match base.rsplit_once('.') {
            Some((name, ext)) if !name.is_empty() && ext.len() <= 4 => name.to_string(),
            _ => base.to_string(),
        }
    };
    // A script named like an entry point (`.../server-filesystem/dist/index.js`) is named after
    // its package's folder, skipping build folders.
    const ENTRY_POINTS: [&str; 8] = [
        "index", "main", "server", "cli", "app", "__main__", "mod", "start",
    ];
    const BUILD_DIRS: [&str; 10] = [
        "dist", "build", "lib", "src", "bin", "out", "esm", "cjs", ".bin", "..",
    ];
    let script = |s: &str| -> String {
        let name = stem(s);
        if !ENTRY_POINTS.contains(&name.as_str()) {
            return name;
        }
        let dirs: Vec<&str> = s.split(['/', '\\']).collect();
        dirs[..dirs.len().saturating_sub(1)]
            .iter()
            .rev()
            .find(|d| !d.is_empty() && **d != "." && !BUILD_DIRS.contains(d))
            .map_or(name, |d| d.trim_start_matches('@').to_string())
    };
    let program = stem(command);
    let chosen = if LAUNCHERS.contains(&program.as_str()) {
        args.iter()
            .filter(|a| !a.starts_with('-') && !matches!(a.as_str(), "run" | "exec" | "tool"))
            .map(|a| script(a))
            .next()
            .unwrap_or(program)
    } else {
        program
    };
    let name = normalize_name(&chosen);
    if name.is_empty() {
        "server".to_string()
    } else {
        name
    }
}

/// Replaces every character outside `[A-Za-z0-9_-]` by `_`.
pub fn normalize_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A started server: the child and its pipes.
#[derive(Debug)]
pub(crate) struct Spawned {
    pub(crate) child: Child,
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: ChildStdout,
}

/// Starts `server` from a clean environment ([`super::child_env`]: ordinary variables, its
/// `env_passthrough` and its own `env`), stderr inherited.
pub(crate) fn spawn(name: &str, server: &ServerCommand) -> Result<Spawned, ProxyError> {
    let mut child = Command::new(&server.command)
        .args(&server.args)
        .env_clear()
        .envs(super::child_env::for_server(server))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|source| ProxyError::Spawn {
            name: name.to_string(),
            command: server.command.clone(),
            source,
        })?;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(ProxyError::Spawn {
            name: name.to_string(),
            command: server.command.clone(),
            source: std::io::Error::other("no stdio pipes"),
        });
    };
    Ok(Spawned {
        child,
        stdin,
        stdout,
    })
}

/// The sending end of an in-process channel of messages (futures' unbounded channel: an idle
/// one costs a few words, where tokio's allocates a block of 32 slots up front, and a gateway
/// session holds several), or of a function that takes each message ([`LineTx::to_fn`]).
#[derive(Clone)]
pub(crate) struct LineTx(Tx);

#[derive(Clone)]
enum Tx {
    Channel(futures::channel::mpsc::UnboundedSender<String>),
    Fn(Arc<dyn Fn(String) + Send + Sync>),
}

impl std::fmt::Debug for LineTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Tx::Channel(_) => "LineTx(channel)",
            Tx::Fn(_) => "LineTx(fn)",
        })
    }
}

impl LineTx {
    /// A sender that hands each message to `f` on the sending task: no channel and no
    /// receiving task in between (a `serve` session's gateway output, so an idle session holds
    /// one task fewer). `f` is dropped with the last clone, as a channel closes.
    pub(crate) fn to_fn(f: impl Fn(String) + Send + Sync + 'static) -> LineTx {
        LineTx(Tx::Fn(Arc::new(f)))
    }

    /// Sends a message; the message back when the receiver is gone.
    pub(crate) fn send(&self, line: String) -> Result<(), String> {
        match &self.0 {
            Tx::Channel(tx) => tx.unbounded_send(line).map_err(|e| e.into_inner()),
            Tx::Fn(f) => {
                f(line);
                Ok(())
            }
        }
    }
}

/// The receiving end of a [`LineTx`].
#[derive(Debug)]
pub(crate) struct LineRx(futures::channel::mpsc::UnboundedReceiver<String>);

impl LineRx {
    /// The next message; `None` once every sender is gone.
    pub(crate) async fn recv(&mut self) -> Option<String> {
        futures::StreamExt::next(&mut self.0).await
    }
}

/// A channel of messages between tasks of the layer.
pub(crate) fn line_channel() -> (LineTx, LineRx) {
    let (tx, rx) = futures::channel::mpsc::unbounded();
    (LineTx(Tx::Channel(tx)), LineRx(rx))
}

/// Writes each line it receives, newline-terminated and flushed, until the channel closes.
pub(crate) async fn write_lines<W: AsyncWrite + Unpin>(
    mut out: W,
    mut rx: LineRx,
) -> std::io::Result<()> {
    while let Some(mut line) = rx.recv().await {
        line.push('\n');
        out.write_all(line.as_bytes()).await?;
        out.flush().await?;
    }
    out.shutdown().await.ok();
    Ok(())
}

/// How much a server's stdout is read at a time: what a Linux pipe holds, so one read takes all
/// the server has written (a 5 MB tool result takes about 100 reads, not 640 of 8 KiB).
pub(crate) const PIPE_READ: usize = 64 * 1024;

/// A line buffer keeps at most this much capacity between messages: one larger message grows
/// it, the next read gives the memory back.
const KEPT_LINE_CAPACITY: usize = 16 * 1024;

/// [`write_lines`] from a tokio channel (the single proxy's, whose server side holds a weak
/// sender).
async fn write_tokio_lines<W: AsyncWrite + Unpin>(
    mut out: W,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<String>,
) -> std::io::Result<()> {
    while let Some(mut line) = rx.recv().await {
        line.push('\n');
        out.write_all(line.as_bytes()).await?;
        out.flush().await?;
    }
    out.shutdown().await.ok();
    Ok(())
}

/// Reads newline-delimited messages as bytes; `None` at end of input. Blank lines are skipped.
///
/// Bytes, not text: a line that is not UTF-8 is one bad message for the interceptor to refuse
/// (see [`Interceptor::from_server_bytes`]), never an error that ends the relay.
pub(crate) async fn read_message<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<()>> {
    if buf.capacity() > KEPT_LINE_CAPACITY {
        *buf = Vec::new();
    }
    loop {
        buf.clear();
        if reader.read_until(b'\n', buf).await? == 0 {
            return Ok(None);
        }
        while buf.last().is_some_and(|b| matches!(b, b'\n' | b'\r')) {
            buf.pop();
        }
        if !buf.iter().all(u8::is_ascii_whitespace) {
            return Ok(Some(()));
        }
    }
}

/// Where a relay reads messages from: a byte stream read line by line (a child's stdout, the
/// process's stdin), or lines handed over in process (`serve` sessions, `url:` upstreams,
/// shared children), which cost no pipe, buffer or copying task.
#[derive(Debug)]
pub(crate) enum Lines<R> {
    /// Newline-delimited bytes.
    Stream(BufReader<R>),
    /// One message per item.
    Channel(LineRx),
}

impl Lines<tokio::io::Empty> {
    /// Lines from a channel.
    pub(crate) fn channel(rx: LineRx) -> Self {
        Lines::Channel(rx)
    }
}

impl<R: AsyncRead + Unpin> Lines<R> {
    /// Lets go of `buf` once its message is handled, when it is that message's own allocation
    /// (channel lines), so an idle relay holds no copy of the last message it read. A stream's
    /// line buffer is kept for the next read.
    pub(crate) fn release(&self, buf: &mut Vec<u8>) {
        if matches!(self, Lines::Channel(_)) {
            *buf = Vec::new();
        }
    }

    /// The next message into `buf` (see [`read_message`]); `None` at the end.
    pub(crate) async fn next(&mut self, buf: &mut Vec<u8>) -> std::io::Result<Option<()>> {
        match self {
            Lines::Stream(reader) => read_message(reader, buf).await,
            Lines::Channel(rx) => loop {
                let Some(line) = rx.recv().await else {
                    return Ok(None);
                };
                if !line.bytes().all(|b| b.is_ascii_whitespace()) {
                    // The line's own allocation: nothing is kept after the message.
                    *buf = line.into_bytes();
                    return Ok(Some(()));
                }
            },
        }
    }
}

/// Where a relay writes messages to: a byte stream (a line each, by a writer task) or a channel.
#[derive(Debug)]
pub(crate) enum LinesOut<W> {
    /// Newline-delimited bytes.
    Stream(W),
    /// One message per item.
    Channel(LineTx),
}

impl<W: AsyncWrite + Unpin + Send + 'static> LinesOut<W> {
    /// A sender for the messages, and the writer task when there is one.
    pub(crate) fn start(self) -> (LineTx, Option<tokio::task::JoinHandle<std::io::Result<()>>>) {
        match self {
            LinesOut::Stream(w) => {
                let (tx, rx) = line_channel();
                (tx, Some(tokio::spawn(write_lines(w, rx))))
            }
            LinesOut::Channel(tx) => (tx, None),
        }
    }
}

/// Runs the proxy on the process's stdin/stdout until the host disconnects or the server dies.
pub async fn run(
    interceptor: Arc<Interceptor>,
    name: &str,
    server: &ServerCommand,
) -> Result<(), ProxyError> {
    let (host_in, host_out) = super::host_io::stdio();
    relay(interceptor, name, server, host_in, host_out).await
}

/// Runs the proxy between `host_in`/`host_out` and a child started from `server`.
pub async fn relay<R, W>(
    interceptor: Arc<Interceptor>,
    name: &str,
    server: &ServerCommand,
    host_in: R,
    host_out: W,
) -> Result<(), ProxyError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let Spawned {
        mut child,
        stdin,
        stdout,
    } = spawn(name, server)?;
    let (to_host, host_rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let (to_server, server_rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let host_writer = tokio::spawn(write_tokio_lines(host_out, host_rx));
    let server_writer = tokio::spawn(write_tokio_lines(stdin, server_rx));

    // Server → host.
    let from_server = {
        let interceptor = interceptor.clone();
        // Weak: the server's stdin closes as soon as the host side is done.
        let (to_host, to_server) = (to_host.clone(), to_server.downgrade());
        let name = name.to_string();
        tokio::spawn(async move {
            let mut reader = BufReader::with_capacity(PIPE_READ, stdout);
            let mut line = Vec::new();
            while let Ok(Some(())) = read_message(&mut reader, &mut line).await {
                let outcome = interceptor.from_server_bytes(&name, &line).await;
                if let Some(f) = outcome.forward {
                    let _ = to_host.send(f.into_owned());
                }
                if let Some(r) = outcome.reply
                    && let Some(to_server) = to_server.upgrade()
                {
                    let _ = to_server.send(r);
                }
            }
        })
    };

    // Host → server, until the host closes stdin.
    let from_host = {
        let name = name.to_string();
        async move {
            let mut reader = BufReader::new(host_in);
            let mut line = Vec::new();
            loop {
                match read_message(&mut reader, &mut line).await {
                    Ok(Some(())) => {}
                    Ok(None) => return Ok(()),
                    Err(e) => return Err(ProxyError::Host(e)),
                }
                let outcome = interceptor.from_host_bytes(&name, &line).await;
                if let Some(f) = outcome.forward {
                    let _ = to_server.send(f.into_owned());
                }
                if let Some(r) = outcome.reply {
                    let _ = to_host.send(r);
                }
            }
        }
    };

    let result = tokio::select! {
        host_done = from_host => {
            // The host is gone (or its stdin failed): close the server's stdin, let it finish.
            let _ = server_writer.await;
            match tokio::time::timeout(GRACE, child.wait()).await {
                Ok(_) => {}
                Err(_) => {
                    tracing::warn!(server = name, "server did not exit after stdin closed; killing it");
                    let _ = child.kill().await;
                }
            }
            let _ = from_server.await;
            host_done
        }
        status = child.wait() => {
            // Relay whatever the server wrote before it died, then report.
            let _ = from_server.await;
            match status {
                Ok(status) => Err(ProxyError::ServerExited { name: name.to_string(), status }),
                Err(e) => Err(ProxyError::Spawn {
                    name: name.to_string(),
                    command: server.command.clone(),
                    source: e,
                }),
            }
        }
    };
    // Every sender is gone once both loops ended: the host writer drains and stops.
    let _ = host_writer.await;
    result
}

/// Whether a path names an executable that exists (for friendlier errors in tests and the CLI).
pub fn command_exists(command: &str) -> bool {
    if command.contains('/') {
        return Path::new(command).exists();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(command).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn names_come_from_the_command() {
        assert_eq!(
            server_name("node_modules/.bin/mcp-server-filesystem", &args(&["/tmp"])),
            "mcp-server-filesystem"
        );
        assert_eq!(
            server_name(
                "npx",
                &args(&["-y", "@modelcontextprotocol/server-memory@1.2"])
            ),
            "server-memory"
        );
        assert_eq!(
            server_name("python3", &args(&["-u", "srv/weather.py"])),
            "weather"
        );
        assert_eq!(
            server_name("uvx", &args(&["mcp-server-git"])),
            "mcp-server-git"
        );
        assert_eq!(server_name("/usr/bin/my server", &[]), "my_server");
        assert_eq!(server_name("node", &[]), "node");
        assert_eq!(
            server_name(
                "node",
                &args(&[
                    "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
                    "/tmp"
                ])
            ),
            "server-filesystem"
        );
        assert_eq!(
            server_name("node", &args(&["/home/u/weather-mcp/build/index.js"])),
            "weather-mcp"
        );
        assert_eq!(server_name("python3", &args(&["crm/server.py"])), "crm");
        assert_eq!(server_name("node", &args(&["index.js"])), "index");
    }
}
