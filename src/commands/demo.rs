//! `mcp-veil demo`: the embedded CRM server behind the layer, an agent that emails a contact,
//! and what each side saw. `--server` runs only the demo CRM server on stdio. `--config F` runs
//! it with F's rules instead of the demo's own.

use std::io::Write;

use crate::cli::{DemoArgs, Settings};
use crate::exit::Failure;

/// Runs the demo with `--config` when given (its detection, vault, `flows:` and `tools:`), else
/// with the demo's own rules.
pub(super) fn run(settings: &Settings, args: &DemoArgs) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    if args.server {
        return Ok(runtime.block_on(mcp_veil::demo::serve_stdio())?);
    }
    let config = if settings.has_config_file() {
        settings.config.clone()
    } else {
        mcp_veil::demo::demo_config()
    };
    let transcript = runtime.block_on(mcp_veil::demo::run_with(config))?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(transcript.render().as_bytes())?;
    stdout.flush()?;
    Ok(())
}
