//! `mcp-veil demo`: the embedded CRM server behind the layer, an agent that emails a contact,
//! and what each side saw. `--server` runs only the demo CRM server on stdio.

use std::io::Write;

use crate::cli::DemoArgs;
use crate::exit::Failure;

pub(super) fn run(args: &DemoArgs) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    if args.server {
        return Ok(runtime.block_on(mcp_veil::demo::serve_stdio())?);
    }
    let transcript = runtime.block_on(mcp_veil::demo::run())?;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(transcript.render().as_bytes())?;
    stdout.flush()?;
    Ok(())
}
