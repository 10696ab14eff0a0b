//! `mcp-veil rules check`: validate configuration files with the start-up validation every
//! command runs ([`check::load`]), print each rule normalised.

use std::io::Write;

use mcp_veil::config_check as check;
use mcp_veil::policy::Policy;

use crate::cli::RulesCommand;
use crate::exit::Failure;

pub(super) fn run(command: RulesCommand) -> Result<(), Failure> {
    let RulesCommand::Check { files } = command;
    let mut out = std::io::stdout().lock();
    let mut invalid = 0usize;
    for file in &files {
        // The validation every command runs at start-up, then the rules' normalised form.
        let checked = check::load(file).map(|config| {
            Policy::from_config(&config).map_or_else(|_| Vec::new(), |p| p.describe())
        });
        match checked {
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
        return Err(crate::exit::usage(anyhow::anyhow!(
            "{invalid} of {} file(s) invalid",
            files.len()
        )));
    }
    Ok(())
}
