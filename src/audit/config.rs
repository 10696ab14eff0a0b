//! The `audit:` section of the configuration.
//!
//! The key itself is never here: it comes from `MCP_VEIL_AUDIT_KEY` or the file named by
//! `key_file` (see [`super::key`]).

use std::path::PathBuf;

use serde::Deserialize;

/// Audit log settings.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuditConfig {
    /// The log file (JSON Lines). Absent: no audit log.
    pub path: Option<PathBuf>,
    /// A file holding the audit key (used when `MCP_VEIL_AUDIT_KEY` is not set).
    pub key_file: Option<PathBuf>,
    /// Refuse to start when the log cannot be written (no path, no key, unwritable file).
    pub required: bool,
    /// Rotate when the current file would grow past this many bytes (0: never rotate).
    pub max_file_bytes: u64,
    /// When to fsync the file.
    pub fsync: FsyncPolicy,
    /// For `fsync: interval`: the most milliseconds between two fsyncs while lines are written.
    pub fsync_interval_ms: u64,
    /// Write a seal line when this many seconds passed with unsealed lines (0: no timer seals;
    /// rotation and a clean close still seal).
    pub seal_interval_seconds: u64,
    /// Write a seal line after this many unsealed lines (0: no count seals).
    pub seal_every_lines: u64,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            path: None,
            key_file: None,
            required: false,
            max_file_bytes: 64 * 1024 * 1024,
            fsync: FsyncPolicy::Interval,
            fsync_interval_ms: 1000,
            seal_interval_seconds: 60,
            seal_every_lines: 1000,
        }
    }
}

/// When the audit file is fsynced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FsyncPolicy {
    /// After every line: nothing written is lost on power failure; each event waits for the disk.
    Always,
    /// After a line when the last fsync is older than `fsync_interval_ms`, on rotation and on
    /// close: at most that window of lines is lost on power failure (a process crash loses
    /// nothing, the lines are in the OS already).
    #[default]
    Interval,
    /// Never explicitly (the OS writes back when it likes); rotation and close still fsync.
    Never,
}
