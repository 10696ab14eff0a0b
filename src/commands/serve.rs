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
    // SIGINT/SIGTERM stop serving cleanly: dropping the runtime drops every session (their
    // children are killed) and the audit log, which writes its closing seal.
    runtime
        .block_on(async {
            let stop = mcp_veil::mcp::launch::termination();
            tokio::select! {
                result = mcp_veil::mcp::serve::serve(settings.config, args.listen) => result,
                () = stop => {
                    tracing::info!("terminated by a signal: stopping");
                    Ok(())
                }
            }
        })
        .map_err(|e| match e {
            // Unset variables, a non-loopback address without auth: the user's to fix.
            mcp_veil::mcp::serve::ServeError::Config(_) => usage(e),
            e => Failure::Runtime(e.into()),
        })?;
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    Ok(())
}
