//! One module per subcommand, and what they share (input, output, format sniffing, the session
//! file). [`run`] resolves the global options once and dispatches.

mod audit;
mod demo;
mod detect;
mod format;
mod io;
mod redact;
mod restore;
mod rules;
mod serve;
mod session;

use std::sync::Arc;
use std::time::Duration;

use mcp_veil::Detector;
use mcp_veil::vault::MemoryVault;

use crate::cli::{Cli, Command, Settings};
use crate::exit::{Failure, usage};
use crate::logging;

/// The origin recorded with tokens the CLI mints.
const ORIGIN: &str = "cli";

/// Runs the parsed command line.
pub(crate) fn run(cli: Cli) -> Result<(), Failure> {
    // The demo prints a transcript to a terminal: its refusals are the show, not warnings.
    let quiet = matches!(cli.command, Command::Demo(_));
    logging::init(cli.global.verbose, if quiet { "error" } else { "warn" }).map_err(usage)?;
    let settings = cli.global.settings()?;
    tracing::debug!(config = %settings.config_source.display(), "configuration loaded");
    match cli.command {
        Command::Detect(args) => detect::run(&settings, &args),
        Command::Redact(args) => redact::run(&settings, &args),
        Command::Restore(args) => restore::run(&settings, &args),
        Command::Proxy(args) => {
            mcp_veil::mcp::launch::run(args, settings.config).map_err(|e| match e {
                mcp_veil::mcp::stdio::ProxyError::Config(_) => usage(e),
                e => Failure::Runtime(e.into()),
            })
        }
        Command::Serve(args) => serve::run(settings, args),
        Command::Demo(args) => demo::run(&settings, &args),
        Command::Rules(command) => rules::run(command),
        Command::Audit(command) => audit::run(&settings, command),
    }
}

/// Compiles the detector; a bad `detect:` section is a configuration error naming the file.
fn detector(settings: &Settings) -> Result<Arc<Detector>, Failure> {
    Detector::new(&settings.config.detect)
        .map(Arc::new)
        .map_err(|e| usage(anyhow::anyhow!("{}: {e}", settings.config_source.display())))
}

/// An in-process vault with the configured TTL and per-session cap.
fn vault(settings: &Settings) -> Arc<MemoryVault> {
    let v = &settings.config.vault;
    Arc::new(MemoryVault::new(
        Duration::from_secs(v.ttl_seconds),
        v.max_entries_per_session,
    ))
}
