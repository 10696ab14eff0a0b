//! The `mcp-veil` command: a thin wrapper over the library.

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
    let result = match cli.command {
        Command::Proxy(args) => mcp_veil::mcp::launch::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-veil: {e}");
            ExitCode::FAILURE
        }
    }
}
