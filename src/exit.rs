//! Exit codes and how a failure is reported.
//!
//! | code | meaning |
//! |------|---------|
//! | 0 | success (also when the reader of stdout went away: a broken pipe is not an error) |
//! | 1 | runtime error: input that cannot be processed, a session file that does not decrypt (wrong key or modified file, told apart), unknown tokens, a tampered audit log, `audit find` with no match, a server that exits or cannot be started |
//! | 2 | usage or configuration error: bad arguments; a configuration file that does not load or pass the start-up validation (`rules check` failing included; file:line:column); a missing or unreadable input, session or key file; an unset or bad environment variable (`MCP_VEIL_SESSION_KEY`, `MCP_VEIL_VAULT_KEY`, `MCP_VEIL_AUDIT_KEY`, a `serve.auth.token_env` variable); `serve` on a non-loopback address without `serve.auth` |
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
    eprintln!("mcp-veil: error: {}", one_line(&err));
    ExitCode::from(code)
}

/// The error and its causes on one line, `a: b: c`, without a cause its parent's message
/// already spells (library errors often print their source: "cannot read: No such file ...").
fn one_line(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_os_error_is_printed_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("x.yaml: cannot read: {source}")]
        struct Read {
            source: std::io::Error,
        }
        let e = anyhow::Error::new(Read {
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        });
        let line = one_line(&e.context("loading"));
        assert_eq!(line, "loading: x.yaml: cannot read: entity not found");
    }
}
