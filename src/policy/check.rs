//! A configuration file's rules, validated and listed normalised.
//!
//! `mcp-veil rules check` runs the whole start-up validation
//! ([`crate::config_check::load`]: detection, servers, vault, audit, serve and these rules);
//! this module checks the `flows:` and `tools:` sections alone, for library callers.
//!
//! Checking is loading: the file is parsed as a whole [`Config`] (so unknown keys anywhere are
//! errors, with their location) and its rules compiled with [`Policy::from_config`] (so invalid
//! kinds, bad globs and duplicate names are errors, with their location). Every semantic problem
//! in the file is reported, not only the first.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{Policy, PolicyError};
use crate::config::{Config, ConfigError};

/// Why a rules file did not pass.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The file could not be read or is not a valid configuration (syntax, unknown key, type).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The file parses but its rules are invalid.
    #[error("{}", Located(.path, .error))]
    Policy {
        /// The file.
        path: PathBuf,
        /// Every problem found.
        error: PolicyError,
    },
}

struct Located<'a>(&'a Path, &'a PolicyError);

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, issue) in self.1.issues.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(
                f,
                "{}:{}:{}: {}",
                self.0.display(),
                issue.line,
                issue.column,
                issue.message
            )?;
        }
        Ok(())
    }
}

/// Checks a file; on success returns its compiled policy's normalised lines.
pub fn check_file(path: &Path) -> Result<Vec<String>, CheckError> {
    let config = Config::load(path)?;
    Ok(compile(&config, path)?.describe())
}

/// Checks YAML text; `path` is used in messages only.
pub fn check_text(text: &str, path: &Path) -> Result<Vec<String>, CheckError> {
    let config = Config::parse(text, path)?;
    Ok(compile(&config, path)?.describe())
}

/// Compiles the policy of a configuration loaded from `path`, with errors that name the file
/// (what front ends call at startup, after [`Config::load`]).
pub fn compile(config: &Config, path: &Path) -> Result<Policy, CheckError> {
    Policy::from_config(config).map_err(|error| CheckError::Policy {
        path: path.to_path_buf(),
        error,
    })
}
