//! `mcp-veil serve`: the streamable-HTTP gateway over the configured servers.

use crate::cli::{ServeArgs, Settings};
use crate::exit::{Failure, usage};

pub(super) fn run(settings: Settings, args: ServeArgs) -> Result<(), Failure> {
    if settings.config.servers.is_empty() {
        return Err(usage(anyhow::anyhow!(
            "{}: `serve` needs a `servers:` section naming at least one upstream",
            settings.config_source.display()
        )));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(mcp_veil::mcp::serve::serve(settings.config, args.listen))?;
    Ok(())
}
