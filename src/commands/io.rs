//! Reading the input (a file or stdin) and writing the output (stdout, buffered).

use std::io::{Read, Write};
use std::path::Path;

use anyhow::{Context, anyhow};
use mcp_veil::engine::Deferred;

use crate::exit::{Failure, usage};

/// Reads the whole input as UTF-8. `None` reads stdin. A named file that cannot be read is a
/// usage error (exit 2, as in every command); input that is not UTF-8 a runtime error.
pub(super) fn read_input(path: Option<&Path>) -> Result<String, Failure> {
    let (name, bytes) = match path {
        Some(p) => (
            p.display().to_string(),
            std::fs::read(p).map_err(|e| usage(anyhow!("{}: cannot read: {e}", p.display())))?,
        ),
        None => {
            let mut buf = Vec::new();
            std::io::stdin()
                .lock()
                .read_to_end(&mut buf)
                .context("<stdin>: cannot read")?;
            ("<stdin>".to_string(), buf)
        }
    };
    String::from_utf8(bytes).map_err(|e| {
        Failure::Runtime(anyhow!(
            "{name}: input is not valid UTF-8 (at byte {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

/// Writes `text` to stdout and flushes. A broken pipe surfaces as an `io::Error` that the exit
/// code mapping treats as success.
pub(super) fn write_output(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to stdout")
}

/// Writes a tokenized document to stdout as it goes ([`Deferred::write_to`]) and flushes, with
/// the same error as [`write_output`].
pub(super) fn write_document(doc: &Deferred<'_>) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    doc.write_to(&mut out)
        .map_err(anyhow::Error::from)
        .and_then(|()| Ok(out.flush()?))
        .context("cannot write to stdout")
}
