//! The `mcp-veil` command. Parsing lives in [`cli`], each subcommand in [`commands`], exit codes
//! in [`exit`]; this file only wires them together.

mod cli;
mod commands;
mod exit;
mod heap;
mod logging;

fn main() -> std::process::ExitCode {
    heap::keep_large_blocks();
    let cli = cli::parse();
    exit::report(commands::run(cli))
}
