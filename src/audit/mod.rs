//! The audit log: what happened to which value, provably unedited, without the values.
//!
//! One JSON line per event ([`Event`]: tokenized, restored, kept, denied, confirmed,
//! unknown_token, raw_pii) with time, session, direction, server, method and tool, request id,
//! kinds and counts, token names, the deciding rule, and for each value a keyed fingerprint
//! (HMAC-SHA256 under the audit key over the value as [`crate::vault::normalize`]d, 16 hex
//! characters): enough to answer "which events involved alice@example.com?" for someone who has
//! the key ([`find_value`]), and nothing that reveals a value to someone who has only the file.
//!
//! # Tamper evidence
//!
//! Each line ends with `"prev"` (the previous line's MAC) and `"mac"` (HMAC under the audit key
//! of every byte of the line before it), so the lines form a chain: editing, deleting,
//! inserting or reordering any line breaks it at that line, and [`verify_files`] names the first
//! broken line by file and number. The byte layout is in [`event`]; the checks in [`verify`].
//!
//! Cutting lines off the end leaves a chain that still links, so the writer also appends **seal**
//! lines (`"event":"sealed"`: on rotation, on a clean close, and on an interval while lines are
//! unsealed): `verify` reports the lines after the last seal as an unsealed tail and fails when
//! the chain ends on a rotation seal (the newer file is gone). What that can and cannot prove is
//! in [`verify`]. Files are created owner-only (0600; directories the writer creates 0700).
//!
//! # Durability
//!
//! Lines are written whole with one `write` call on an append-only file; the file is rotated by
//! size with the chain continued across files; a partial last line left by a crash is cut off on
//! the next open and recorded as a `recovered` event; fsync is `always`, `interval` (default) or
//! `never` ([`FsyncPolicy`]). See [`writer`].
//!
//! # The key
//!
//! From `MCP_VEIL_AUDIT_KEY` or `audit.key_file`, never the YAML ([`key`]). Without one the log
//! is off with one warning, or startup fails if `audit.required: true`
//! ([`AuditLog::from_config`]).

mod config;
pub mod event;
pub mod key;
pub mod verify;
pub mod writer;

use std::path::PathBuf;

pub use config::{AuditConfig, FsyncPolicy};
pub use event::{Direction, Event, EventKind, Item, SealReason};
pub use key::{AuditKey, KEY_ENV, KeyError};
pub use verify::{
    Hit, Problem, VerifyError, VerifyOptions, VerifyReport, find_value, verify_files,
};
pub use writer::AuditLog;

/// Why the audit log could not be opened or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// `audit.required` is true but `audit.path` is not set.
    #[error("audit.required is true but audit.path is not set")]
    NoPath,
    /// `audit.required` is true but there is no key.
    #[error("audit.required is true but there is no audit key: set {KEY_ENV} or audit.key_file")]
    NoKey,
    /// The key could not be loaded.
    #[error(transparent)]
    Key(#[from] KeyError),
    /// The log file could not be opened, read or written.
    #[error("audit log {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The log's last line does not verify under this key (another key, or tampering).
    #[error(
        "audit log {path}: its last line does not verify with this key; refusing to append (run `mcp-veil audit verify`)"
    )]
    Corrupt {
        /// The file.
        path: PathBuf,
    },
    /// An event could not be encoded (never expected).
    #[error("audit event could not be encoded: {0}")]
    Encode(serde_json::Error),
}

/// The files of a log: the current file and its rotated siblings (`<name>.<N>`), those that
/// exist, for verifying or searching the whole set.
pub fn log_files(path: &std::path::Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = writer::rotated_files(path)?
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    if path.exists() {
        out.push(path.to_path_buf());
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
