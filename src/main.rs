//! The `mcp-veil` command line.

use std::io::Write as _;

use clap::{Parser, Subcommand};

/// mcp-veil: a privacy layer for MCP.
#[derive(Debug, Parser)]
#[command(name = "mcp-veil", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the layer at work: an agent, an embedded CRM MCP server with fake contacts, and
    /// mcp-veil between them, in this process (no network). Prints what the model saw and what
    /// the server received.
    Demo {
        /// Run only the demo CRM MCP server, speaking MCP on stdin/stdout (to try the layer
        /// in front of it, e.g. as a child process).
        #[arg(long)]
        server: bool,
    },
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("MCP_VEIL_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    match Cli::parse().command {
        Command::Demo { server: false } => demo(),
        Command::Demo { server: true } => runtime()?
            .block_on(mcp_veil::demo::serve_stdio())
            .map_err(Into::into),
    }
}

/// `mcp-veil demo`: its transcript goes to stdout (the demo speaks no MCP on stdout).
fn demo() -> anyhow::Result<()> {
    let transcript = runtime()?.block_on(mcp_veil::demo::run())?;
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(transcript.render().as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}
