//! The `mcp-veil` binary: thin clap glue over library functions.
//!
//! Exit codes: 0 success; 1 the check failed (invalid rules, tampered log, nothing found);
//! 2 usage or I/O error.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mcp_veil::Kind;
use mcp_veil::audit::{self, AuditKey, VerifyError, VerifyOptions};
use mcp_veil::policy;

#[derive(Parser)]
#[command(
    name = "mcp-veil",
    version,
    about = "A privacy layer for the Model Context Protocol"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Data-flow rules.
    Rules {
        #[command(subcommand)]
        command: RulesCommand,
    },
    /// The audit log.
    Audit {
        #[command(subcommand)]
        command: AuditCommand,
    },
}

#[derive(Subcommand)]
enum RulesCommand {
    /// Validate configuration files and print each rule in normalised form.
    Check {
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

#[derive(Subcommand)]
enum AuditCommand {
    /// Verify the hash chain of a log (the current file and its rotated files, any order).
    Verify {
        /// A file holding the audit key (default: the MCP_VEIL_AUDIT_KEY environment variable).
        #[arg(long)]
        key_file: Option<PathBuf>,
        /// Accept a chain that does not start at the first line ever written.
        #[arg(long)]
        allow_partial_start: bool,
        /// Log files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// List every event that involved a value (matched by its keyed fingerprint).
    Find {
        /// The value to look for (an email address, a phone number, a name ...).
        #[arg(long)]
        value: String,
        /// Its kind (EMAIL, PHONE ...); default: every kind found in the log.
        #[arg(long)]
        kind: Option<String>,
        /// Regions for phone numbers in national form (default: the detect defaults).
        #[arg(long = "region")]
        regions: Vec<String>,
        /// A file holding the audit key (default: the MCP_VEIL_AUDIT_KEY environment variable).
        #[arg(long)]
        key_file: Option<PathBuf>,
        /// Log files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-veil: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match cli.command {
        Command::Rules {
            command: RulesCommand::Check { files },
        } => {
            let mut ok = true;
            for file in &files {
                match policy::check_file(file) {
                    Ok(lines) => {
                        writeln!(out, "{}: ok", file.display())?;
                        for line in lines {
                            writeln!(out, "  {line}")?;
                        }
                    }
                    Err(e) => {
                        ok = false;
                        eprintln!("{e}");
                    }
                }
            }
            Ok(if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            })
        }
        Command::Audit {
            command:
                AuditCommand::Verify {
                    key_file,
                    allow_partial_start,
                    files,
                },
        } => {
            let key = load_key(key_file)?;
            match audit::verify_files(
                &key,
                &files,
                VerifyOptions {
                    allow_partial_start,
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
                    Ok(ExitCode::SUCCESS)
                }
                Err(e @ VerifyError::Tampered { .. }) => {
                    eprintln!("tampered: {e}");
                    Ok(ExitCode::FAILURE)
                }
                Err(e) => Err(e.into()),
            }
        }
        Command::Audit {
            command:
                AuditCommand::Find {
                    value,
                    kind,
                    regions,
                    key_file,
                    files,
                },
        } => {
            let key = load_key(key_file)?;
            let kind = match kind {
                Some(k) if Kind::is_valid_name(&k) => Some(Kind::from_name(&k)),
                Some(k) => anyhow::bail!("invalid kind `{k}`: expected a name like EMAIL or PHONE"),
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
            Ok(if hits.is_empty() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

fn load_key(key_file: Option<PathBuf>) -> anyhow::Result<AuditKey> {
    if let Some(path) = key_file {
        return Ok(AuditKey::from_file(&path)?);
    }
    AuditKey::load(None)?
        .ok_or_else(|| anyhow::anyhow!("no audit key: set {} or pass --key-file", audit::KEY_ENV))
}
