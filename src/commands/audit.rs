//! `mcp-veil audit verify|find`: check the log's chain; find the events that involved a value.

use std::io::Write;
use std::path::{Path, PathBuf};

use mcp_veil::Kind;
use mcp_veil::audit::{self, AuditKey, VerifyError, VerifyOptions};

use crate::cli::{AuditCommand, Settings};
use crate::exit::{Failure, usage};

pub(super) fn run(settings: &Settings, command: AuditCommand) -> Result<(), Failure> {
    let configured = settings.config.audit.key_file.as_deref();
    let mut out = std::io::stdout().lock();
    match command {
        AuditCommand::Verify {
            key_file,
            allow_partial_start,
            require_sealed,
            files,
        } => {
            let key = load_key(key_file, configured)?;
            match audit::verify_files(
                &key,
                &files,
                VerifyOptions {
                    allow_partial_start,
                    require_sealed,
                },
            ) {
                Ok(r) => {
                    writeln!(
                        out,
                        "ok: {} lines in {} file(s), seq {}..{}, head {}",
                        r.lines,
                        r.files.len(),
                        r.first_seq,
                        r.last_seq,
                        r.last_mac
                    )?;
                    if r.closed {
                        writeln!(out, "sealed: closed cleanly at seq {}", r.last_seq)?;
                    } else if r.unsealed > 0 {
                        writeln!(
                            out,
                            "unsealed tail: {} line(s) after {}: lines cut from the end there \
                             cannot be detected (the writer may still be running, or crashed)",
                            r.unsealed,
                            match r.sealed_through {
                                0 => "the start (no seal in the log)".to_string(),
                                s => format!("the last seal (seq {s})"),
                            }
                        )?;
                    } else {
                        writeln!(out, "sealed: through seq {}", r.sealed_through)?;
                    }
                    Ok(())
                }
                Err(e @ VerifyError::Tampered { .. }) => {
                    Err(Failure::Runtime(anyhow::anyhow!("tampered: {e}")))
                }
                Err(e) => Err(usage(e)),
            }
        }
        AuditCommand::Find {
            value,
            value_file,
            kind,
            regions,
            key_file,
            files,
        } => {
            let key = load_key(key_file, configured)?;
            let value = raw_value(value, value_file)?;
            let kind = match kind {
                Some(k) if Kind::is_valid_name(&k) => Some(Kind::from_name(&k)),
                Some(k) => {
                    return Err(usage(anyhow::anyhow!(
                        "invalid kind `{k}`: expected a name like EMAIL or PHONE"
                    )));
                }
                None => None,
            };
            let regions: Vec<&str> = if regions.is_empty() {
                audit::key::DEFAULT_REGIONS.to_vec()
            } else {
                regions.iter().map(String::as_str).collect()
            };
            let hits = audit::find_value(&key, &files, &value, kind.as_ref(), &regions)?;
            for h in &hits {
                writeln!(out, "{}:{}: {}", h.file.display(), h.line, h.text)?;
            }
            if hits.is_empty() {
                return Err(Failure::Runtime(anyhow::anyhow!(
                    "no event in the log involves this value"
                )));
            }
            Ok(())
        }
    }
}

/// The key: `--key-file`, else the environment variable, else the configuration's
/// `audit.key_file` (the order the log writer uses).
fn load_key(key_file: Option<PathBuf>, configured: Option<&Path>) -> Result<AuditKey, Failure> {
    if let Some(path) = key_file {
        return AuditKey::from_file(&path).map_err(usage);
    }
    AuditKey::load(configured).map_err(usage)?.ok_or_else(|| {
        usage(anyhow::anyhow!(
            "no audit key: set {}, audit.key_file or pass --key-file",
            audit::KEY_ENV
        ))
    })
}

/// The value to look for: `--value V`, `--value -` (stdin) or `--value-file F`, so it need not
/// be typed into shell history. One trailing line break is not part of it.
fn raw_value(value: Option<String>, file: Option<PathBuf>) -> Result<String, Failure> {
    let text = match (value, file) {
        (Some(v), None) if v != "-" => return Ok(v),
        (Some(_), None) => {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)
                .map_err(|e| anyhow::anyhow!("stdin: {e}"))?;
            text
        }
        (None, Some(path)) => std::fs::read_to_string(&path)
            .map_err(|e| usage(anyhow::anyhow!("{}: cannot read: {e}", path.display())))?,
        _ => {
            return Err(usage(anyhow::anyhow!(
                "give one of --value and --value-file"
            )));
        }
    };
    let value = text
        .strip_suffix('\n')
        .map_or(text.as_str(), |t| t.strip_suffix('\r').unwrap_or(t));
    if value.is_empty() {
        return Err(usage(anyhow::anyhow!("the value to find is empty")));
    }
    Ok(value.to_string())
}
