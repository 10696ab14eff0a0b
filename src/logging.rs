//! Logging to stderr with `tracing-subscriber` (stdout carries the command's output).
//!
//! The level comes from `-v` (`-v` info, `-vv` debug, `-vvv` trace) or, without it, from
//! `MCP_VEIL_LOG` (an `EnvFilter` directive such as `debug` or `mcp_veil=trace`); the default is
//! `warn` (`error` for `demo`, whose transcript shows the refusals the warnings would repeat). Log events carry counts, formats and token names, never values.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// The variable that sets the log filter.
pub(crate) const LOG_ENV: &str = "MCP_VEIL_LOG";

/// Installs the stderr subscriber; `default` is the level without `-v` or `MCP_VEIL_LOG`. A
/// malformed `MCP_VEIL_LOG` is a usage error.
pub(crate) fn init(verbose: u8, default: &str) -> anyhow::Result<()> {
    let filter = match verbose {
        0 => match std::env::var(LOG_ENV) {
            Ok(directives) if !directives.trim().is_empty() => EnvFilter::try_new(&directives)
                .map_err(|e| anyhow::anyhow!("{LOG_ENV}: invalid filter: {e}"))?,
            _ => EnvFilter::new(default),
        },
        1 => EnvFilter::new("info"),
        2 => EnvFilter::new("debug"),
        _ => EnvFilter::new("trace"),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(true)
        .try_init()
        .map_err(|e| anyhow::anyhow!("cannot install the logger: {e}"))
}
