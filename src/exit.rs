//! Exit codes and how a failure is reported.
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | success (also when the reader of stdout went away: a broken pipe is not an error) |
//! | 1 | runtime error: unreadable input, a session file that does not decrypt, unknown tokens |
//! | 2 | usage or configuration error: bad arguments, a config error (file:line:column), a missing or too short `MCP_VEIL_SESSION_KEY` |
//!
//! The error is printed once, to stderr, as one line with its causes. Library errors carry
//! offsets, token names and paths, never values, so the line is safe to show.

use std::process::ExitCode;

/// Success.
pub(crate) const OK: u8 = 0;
/// A runtime error.
pub(crate) const RUNTIME: u8 = 1;
/// A usage or configuration error (clap uses the same code for bad arguments).
pub(crate) const USAGE: u8 = 2;

/// Why a command failed, and so which exit code it gets.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The user's to fix in the arguments, configuration or environment (exit 2).
    Usage(anyhow::Error),
    /// Something failed while running (exit 1).
    Runtime(anyhow::Error),
}

impl<E: Into<anyhow::Error>> From<E> for Failure {
    fn from(e: E) -> Failure {
        Failure::Runtime(e.into())
    }
}

/// Marks an error as a usage/configuration error.
pub(crate) fn usage(e: impl Into<anyhow::Error>) -> Failure {
    Failure::Usage(e.into())
}

/// Prints the failure (if any) and maps it to an exit code.
pub(crate) fn report(result: Result<(), Failure>) -> ExitCode {
    let (code, err) = match result {
        Ok(()) => return ExitCode::from(OK),
        Err(Failure::Usage(e)) => (USAGE, e),
        Err(Failure::Runtime(e)) => (RUNTIME, e),
    };
    if is_broken_pipe(&err) {
        return ExitCode::from(OK);
    }
    tracing::debug!(code, "exiting with an error");
    eprintln!("mcp-veil: error: {err:#}");
    ExitCode::from(code)
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
