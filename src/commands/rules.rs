//! `mcp-veil rules check`: validate configuration files, print each rule normalised.

use std::io::Write;

use mcp_veil::policy;

use crate::cli::RulesCommand;
use crate::exit::Failure;

pub(super) fn run(command: RulesCommand) -> Result<(), Failure> {
    let RulesCommand::Check { files } = command;
    let mut out = std::io::stdout().lock();
    let mut invalid = 0usize;
    for file in &files {
        match policy::check_file(file) {
            Ok(lines) => {
                writeln!(out, "{}: ok", file.display())?;
                for line in lines {
                    writeln!(out, "  {line}")?;
                }
            }
            Err(e) => {
                invalid += 1;
                eprintln!("{e}");
            }
        }
    }
    out.flush()?;
    if invalid > 0 {
        return Err(Failure::Runtime(anyhow::anyhow!(
            "{invalid} of {} file(s) invalid",
            files.len()
        )));
    }
    Ok(())
}
