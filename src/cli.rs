//! Command-line types (clap) and their resolution into what the commands run with.
//!
//! Each subcommand is one variant of [`Command`] with its own `Args` struct, so adding one
//! (`proxy`, `demo`, `serve` ...) is a variant here and a module in `commands/`. Options every
//! command takes (`--config`, `-v`) are global and resolved once by [`Global::settings`].

use std::path::{Path, PathBuf};

use clap::{ArgAction, Args, Parser, Subcommand};

use mcp_veil::config::Config;

use crate::exit::{Failure, usage};

/// mcp-veil: a privacy layer for the Model Context Protocol.
///
/// Finds personal data in tool results and replaces each value with a token such as
/// [EMAIL_1] before a model sees it, and puts the values back into tool-call arguments.
#[derive(Debug, Parser)]
#[command(name = "mcp-veil", version, propagate_version = true)]
#[command(
    after_help = "Exit codes: 0 ok, 1 runtime error, 2 usage or configuration error (also a missing input file).\n\
Logging goes to stderr: -v/-vv/-vvv or MCP_VEIL_LOG=<filter> (default warn). Logs never contain values."
)]
pub(crate) struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub(crate) global: Global,
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Options every command takes.
#[derive(Debug, Args)]
pub(crate) struct Global {
    /// Configuration file (YAML); the documented defaults are `rules/default.yaml`.
    #[arg(long, short = 'c', global = true, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    /// More log output on stderr (-v info, -vv debug, -vvv trace); overrides MCP_VEIL_LOG.
    #[arg(long, short = 'v', global = true, action = ArgAction::Count)]
    pub(crate) verbose: u8,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Print the values found in JSON Lines {"text": ...} or plain text (shows raw values).
    ///
    /// A developer tool for tuning and evaluating detection: unlike every other command it prints
    /// the values it finds, in clear, on stdout. Do not run it over production data you would
    /// not paste into a terminal.
    ///
    /// Input: JSON Lines with a string field "text" (other fields are ignored), one
    /// {"spans":[{"start":S,"end":E,"kind":"EMAIL","text":"..."}]} line out per line in; or any
    /// other text, reported as one line for the whole input. Offsets count Unicode scalar values
    /// (characters), not bytes.
    Detect(DetectArgs),
    /// Replace personal data in text or JSON with tokens (format detected automatically).
    ///
    /// JSON (one document or JSON Lines) keeps its structure, key order and number spelling;
    /// other text is tokenized as text, with embedded JSON and CSV followed. With --session the
    /// values are kept, encrypted, in FILE so `restore` can put them back; an existing FILE is
    /// reused, so the same value keeps its token across runs. The key comes from
    /// MCP_VEIL_SESSION_KEY: 64 hex digits (openssl rand -hex 32) or a passphrase of at least
    /// 16 characters (stretched with PBKDF2-HMAC-SHA256).
    Redact(RedactArgs),
    /// Put the values back in place of the tokens minted by `redact --session FILE`.
    ///
    /// A token the session never minted is an error (exit 1), named in the message.
    Restore(RestoreArgs),
    /// Run MCP stdio server(s) behind the layer: tokenize what they return, restore what the
    /// model sends them.
    ///
    /// `mcp-veil proxy [--name NAME] [--] CMD [ARGS...]` runs one server; `mcp-veil proxy
    /// --config F` with a `servers:` section runs them all behind one gateway, with one token
    /// session across them. Speaks MCP on stdin/stdout; logs go to stderr.
    Proxy(mcp_veil::mcp::launch::ProxyArgs),
    /// Serve the configured servers over MCP streamable HTTP (`/mcp`), behind the layer.
    ///
    /// Needs `--config` with a `servers:` section; `serve:` sets the address, client auth,
    /// allowed hosts and origins, how sessions are keyed and limits. Binds loopback by default.
    Serve(ServeArgs),
    /// See the layer at work: an embedded CRM server with fake contacts behind the layer, an
    /// agent that lists contacts and emails one, and what the model saw next to what the server
    /// received. Needs no network and no Node.
    ///
    /// It shows a confirmation (answered by a scripted user), a flow rule denying a call, raw
    /// PII the model typed, a forged token, and `audit verify`/`audit find` on the audit log it
    /// wrote to a temporary directory. With --config FILE it uses FILE's detection, flows and
    /// tools instead of the demo's own rules.
    Demo(DemoArgs),
    /// Data-flow rules and tool policy.
    #[command(subcommand)]
    Rules(RulesCommand),
    /// The tamper-evident audit log.
    #[command(subcommand)]
    Audit(AuditCommand),
}

/// `mcp-veil serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on (overrides `serve.listen`).
    #[arg(long, value_name = "IP:PORT")]
    pub(crate) listen: Option<String>,
}

/// `mcp-veil demo`.
#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// Run only the demo CRM MCP server, speaking MCP on stdin/stdout (to put the layer, or any
    /// other client, in front of it).
    #[arg(long)]
    pub(crate) server: bool,
}

/// `mcp-veil rules ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum RulesCommand {
    /// Validate configuration files exactly as the commands do at start-up, and print each rule
    /// in normalised form (exit 2 if a file is invalid, naming file:line:column).
    Check {
        /// Files to check.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
}

/// `mcp-veil audit ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum AuditCommand {
    /// Verify the HMAC chain of a log (the current file and its rotated files, in any order);
    /// exit 1 naming the first edited, deleted, inserted or reordered line.
    Verify {
        /// A file holding the audit key (default: the MCP_VEIL_AUDIT_KEY environment variable,
        /// then the configuration's `audit.key_file`).
        #[arg(long, value_name = "FILE")]
        key_file: Option<PathBuf>,
        /// Accept a chain that does not start at the first line ever written.
        #[arg(long)]
        allow_partial_start: bool,
        /// Fail when lines after the last seal exist (for a log whose writer has stopped: it must
        /// end in a seal, else lines may have been cut from its end).
        #[arg(long)]
        require_sealed: bool,
        /// Log files.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// List every event that involved a value, matched by its keyed fingerprint (exit 1 if none).
    Find {
        /// The value to look for (an email address, a phone number, a name ...); `-` reads it
        /// from stdin, so it stays out of shell history.
        #[arg(
            long,
            required_unless_present = "value_file",
            conflicts_with = "value_file"
        )]
        value: Option<String>,
        /// A file holding the value to look for (one trailing line break is ignored).
        #[arg(long, value_name = "FILE")]
        value_file: Option<PathBuf>,
        /// Its kind (EMAIL, PHONE ...); default: every kind found in the log.
        #[arg(long)]
        kind: Option<String>,
        /// Regions for phone numbers in national form (default: the detect defaults).
        #[arg(long = "region", value_name = "REGION")]
        regions: Vec<String>,
        /// A file holding the audit key (default: the MCP_VEIL_AUDIT_KEY environment variable,
        /// then the configuration's `audit.key_file`).
        #[arg(long, value_name = "FILE")]
        key_file: Option<PathBuf>,
        /// Log files.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
}

/// `mcp-veil detect`.
#[derive(Debug, Args)]
pub(crate) struct DetectArgs {
    /// Input file; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
}

/// `mcp-veil redact`.
#[derive(Debug, Args)]
pub(crate) struct RedactArgs {
    /// Encrypted session file to reuse and update (created if missing).
    #[arg(long, short = 's', value_name = "FILE")]
    pub(crate) session: Option<PathBuf>,
    /// Input file; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
}

/// `mcp-veil restore`.
#[derive(Debug, Args)]
pub(crate) struct RestoreArgs {
    /// Encrypted session file written by `redact --session`.
    #[arg(long, short = 's', value_name = "FILE")]
    pub(crate) session: PathBuf,
    /// Input file; `-` or nothing reads stdin.
    #[arg(value_name = "FILE")]
    pub(crate) input: Option<PathBuf>,
}

/// Parses the command line; on a usage error prints it and exits with code 2 (help and
/// version exit 0).
pub(crate) fn parse() -> Cli {
    Cli::try_parse().unwrap_or_else(|e| e.exit())
}

/// What every command runs with, resolved from [`Global`].
#[derive(Debug)]
pub(crate) struct Settings {
    /// The loaded configuration (the embedded default without `--config`).
    pub(crate) config: Config,
    /// Where it came from, for messages.
    pub(crate) config_source: PathBuf,
}

impl Settings {
    /// Whether the configuration came from a `--config` file (not the embedded default).
    pub(crate) fn has_config_file(&self) -> bool {
        self.config_source != Path::new("<default>")
    }
}

impl Global {
    /// Loads and validates the configuration (the start-up validation `rules check` runs).
    /// Errors are usage errors and name file, line and column.
    pub(crate) fn settings(&self) -> Result<Settings, Failure> {
        match &self.config {
            Some(path) => Ok(Settings {
                config: mcp_veil::config_check::load(path).map_err(usage)?,
                config_source: path.clone(),
            }),
            None => Ok(Settings {
                config: Config::embedded_default(),
                config_source: PathBuf::from("<default>"),
            }),
        }
    }
}

/// `None` for stdin (no path or `-`).
pub(crate) fn input_path(input: &Option<PathBuf>) -> Option<&Path> {
    input.as_deref().filter(|p| *p != Path::new("-"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn config_is_global() {
        let cli =
            Cli::try_parse_from(["mcp-veil", "redact", "--config", "x.yaml", "-vv", "in.txt"])
                .unwrap();
        assert_eq!(cli.global.config.as_deref(), Some(Path::new("x.yaml")));
        assert_eq!(cli.global.verbose, 2);
        let Command::Redact(a) = cli.command else {
            panic!("redact expected");
        };
        assert_eq!(input_path(&a.input), Some(Path::new("in.txt")));
        let cli = Cli::try_parse_from(["mcp-veil", "detect", "-"]).unwrap();
        let Command::Detect(a) = cli.command else {
            panic!("detect expected");
        };
        assert_eq!(input_path(&a.input), None);
    }

    #[test]
    fn restore_needs_a_session() {
        let err = Cli::try_parse_from(["mcp-veil", "restore"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }
}
