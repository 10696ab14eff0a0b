//! The CLI side of the encrypted session file: load it into a [`MemoryVault`], write it back.
//!
//! A missing or too short `MCP_VEIL_SESSION_KEY` is a usage error (exit 2); a file that does not
//! decrypt is a runtime error (exit 1). Both name the file, never its content.

use std::path::{Path, PathBuf};

use anyhow::anyhow;
use mcp_veil::session_file::{self, FileKey, SessionData, SessionFileError, SessionSecret};
use mcp_veil::vault::{MemoryVault, SessionId};

use crate::exit::{Failure, usage};

/// An open session file and the session it holds.
#[derive(Debug)]
pub(super) struct SessionStore {
    path: PathBuf,
    key: FileKey,
    /// The session the file's table belongs to.
    pub(super) session: SessionId,
}

fn failure(path: &Path, e: SessionFileError) -> Failure {
    let missing_key = matches!(e, SessionFileError::MissingKey | SessionFileError::WeakKey);
    let e = anyhow!("session file {}: {e}", path.display());
    if missing_key {
        usage(e)
    } else {
        Failure::Runtime(e)
    }
}

impl SessionStore {
    /// Opens `path` into `vault`; with `create`, a missing file starts a new session.
    pub(super) fn open(path: &Path, vault: &MemoryVault, create: bool) -> Result<Self, Failure> {
        let secret = SessionSecret::from_env().map_err(|e| failure(path, e))?;
        match session_file::load(path, &secret).map_err(|e| failure(path, e))? {
            Some((data, key)) => {
                let values = data.entries.len();
                vault
                    .import_session(&data.session, data.entries)
                    .map_err(|e| anyhow!("session file {}: {e}", path.display()))?;
                tracing::debug!(values, "session file loaded");
                Ok(SessionStore {
                    path: path.to_path_buf(),
                    key,
                    session: data.session,
                })
            }
            None if create => {
                tracing::debug!("new session file");
                Ok(SessionStore {
                    path: path.to_path_buf(),
                    key: FileKey::new(&secret),
                    session: SessionId::random(),
                })
            }
            None => Err(Failure::Runtime(anyhow!(
                "session file {}: does not exist (write it with `mcp-veil redact --session`)",
                path.display()
            ))),
        }
    }

    /// Writes the session's current table back, encrypted.
    pub(super) fn save(&self, vault: &MemoryVault) -> Result<(), Failure> {
        let data = SessionData {
            session: self.session.clone(),
            entries: vault.export_session(&self.session),
        };
        let values = data.entries.len();
        session_file::save(&self.path, &self.key, &data).map_err(|e| failure(&self.path, e))?;
        tracing::debug!(values, "session file saved");
        Ok(())
    }
}
