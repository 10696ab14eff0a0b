//! The `mcp-veil` command: a thin wrapper over the library.

use std::io::Write as _;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// A privacy layer for the Model Context Protocol.
#[derive(Debug, Parser)]
#[command(name = "mcp-veil", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run MCP stdio server(s) behind the layer: tokenize what they return, restore what the
    /// model sends them.
    Proxy(mcp_veil::mcp::launch::ProxyArgs),
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("MCP_VEIL_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let result: anyhow::Result<()> = match cli.command {
        Command::Proxy(args) => mcp_veil::mcp::launch::run(args).map_err(Into::into),
        Command::Demo { server: false } => demo(),
        Command::Demo { server: true } => runtime()
            .map_err(anyhow::Error::from)
            .and_then(|rt| Ok(rt.block_on(mcp_veil::demo::serve_stdio())?)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-veil: {e}");
            ExitCode::FAILURE
        }
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
