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
    /// Serve the configured servers over MCP streamable HTTP (`/mcp`), behind the layer.
    Serve {
        /// Configuration file (YAML) with `servers:` and optionally `serve:`.
        #[arg(long, value_name = "FILE")]
        config: std::path::PathBuf,
        /// Address to listen on (overrides `serve.listen`).
        #[arg(long, value_name = "IP:PORT")]
        listen: Option<String>,
    },
}

fn serve(config: &std::path::Path, listen: Option<String>) -> anyhow::Result<()> {
    let config = mcp_veil::config::Config::load(config)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(mcp_veil::mcp::serve::serve(config, listen))?;
    Ok(())
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
        Command::Proxy(args) => mcp_veil::mcp::launch::run(args).map_err(anyhow::Error::from),
        Command::Serve { config, listen } => serve(&config, listen),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mcp-veil: {e}");
            ExitCode::FAILURE
        }
    }
}
