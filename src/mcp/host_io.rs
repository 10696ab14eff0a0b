//! The process's stdin and stdout as the host connection of `mcp-veil proxy`, read and written
//! through the runtime's reactor when they are pipes or sockets.
//!
//! `tokio::io::stdin()` and `stdout()` do every read and write on a blocking-pool thread: each
//! message from the host waits for that thread to wake and hand the bytes over, and each answer
//! for a second one to write it and report back. On an idle proxy those hand-overs were most of
//! the latency it adds to a `tools/call` (two thread wake-ups per direction, tens of
//! microseconds each). A host starts a stdio server with pipes (or, from Node, a socket pair),
//! and those can be registered with the reactor like the child's pipes are: a message is read
//! on the task that handles it, and an answer is written by the task that sends it.
//!
//! Anything else (a terminal, a file, `/dev/null`) keeps tokio's stdin/stdout. Stdout stays
//! blocking too when stderr is the same pipe or socket (`2>&1`): making it non-blocking would
//! make the process's (and the child's inherited) stderr non-blocking with it, and a log line
//! could then fail to write; stdin likewise when it is stderr's socket. (Stdin and stdout on one
//! socket are both switched or neither, since the same test decides both.)

#[cfg(unix)]
use std::os::fd::{AsFd, OwnedFd};
#[cfg(unix)]
use std::os::unix::fs::{FileTypeExt, MetadataExt};

use tokio::io::{AsyncRead, AsyncWrite};

/// The host's side of the relay: what the proxy reads messages from.
pub(crate) type HostIn = Box<dyn AsyncRead + Unpin + Send>;
/// The host's side of the relay: what the proxy writes messages to.
pub(crate) type HostOut = Box<dyn AsyncWrite + Unpin + Send>;

/// The process's stdin and stdout, as non-blocking as they can safely be (see the module doc).
/// Must be called inside the runtime (registering with the reactor needs it).
#[cfg(unix)]
pub(crate) fn stdio() -> (HostIn, HostOut) {
    let input: HostIn = match reactor_stdin() {
        Some(r) => r,
        None => Box::new(tokio::io::stdin()),
    };
    let output: HostOut = match reactor_stdout() {
        Some(w) => w,
        None => Box::new(tokio::io::stdout()),
    };
    (input, output)
}

/// Tokio's stdin and stdout.
#[cfg(not(unix))]
pub(crate) fn stdio() -> (HostIn, HostOut) {
    (Box::new(tokio::io::stdin()), Box::new(tokio::io::stdout()))
}

/// What a descriptor is, for the choice above.
#[cfg(unix)]
enum Shape {
    Pipe,
    Socket,
    Other,
}

#[cfg(unix)]
fn shape(fd: &OwnedFd) -> Option<(Shape, (u64, u64))> {
    let meta = std::fs::File::from(fd.try_clone().ok()?).metadata().ok()?;
    let kind = meta.file_type();
    let shape = if kind.is_fifo() {
        Shape::Pipe
    } else if kind.is_socket() {
        Shape::Socket
    } else {
        Shape::Other
    };
    Some((shape, (meta.dev(), meta.ino())))
}

#[cfg(unix)]
/// The identity of stderr's pipe or socket, if it has one to compare with.
fn stderr_id() -> Option<(u64, u64)> {
    let err = std::io::stderr().as_fd().try_clone_to_owned().ok()?;
    shape(&err).map(|(_, id)| id)
}

#[cfg(unix)]
fn reactor_stdin() -> Option<HostIn> {
    let fd = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let (shape, id) = shape(&fd)?;
    // Stdin on stderr's socket (one socket for all three): leave it blocking.
    if stderr_id().is_none_or(|err| err == id) {
        return None;
    }
    match shape {
        Shape::Pipe => {
            let rx = tokio::net::unix::pipe::Receiver::from_owned_fd(fd).ok()?;
            Some(Box::new(rx))
        }
        Shape::Socket => Some(Box::new(unix_stream(fd)?)),
        Shape::Other => None,
    }
}

#[cfg(unix)]
fn reactor_stdout() -> Option<HostOut> {
    let fd = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let (shape, id) = shape(&fd)?;
    // Stderr on the same pipe or socket: leave both blocking (see the module doc).
    if stderr_id().is_none_or(|err| err == id) {
        return None;
    }
    match shape {
        Shape::Pipe => {
            let tx = tokio::net::unix::pipe::Sender::from_owned_fd(fd).ok()?;
            Some(Box::new(tx))
        }
        Shape::Socket => Some(Box::new(unix_stream(fd)?)),
        Shape::Other => None,
    }
}

#[cfg(unix)]
fn unix_stream(fd: OwnedFd) -> Option<tokio::net::UnixStream> {
    let std = std::os::unix::net::UnixStream::from(fd);
    std.set_nonblocking(true).ok()?;
    tokio::net::UnixStream::from_std(std).ok()
}
