//! `mcp-veil proxy`: command-line arguments and start-up, shared by the binary and tests.
//!
//! ```text
//! mcp-veil proxy [--config F] [--name NAME] [--pass-unknown-tokens] [--pass-env VAR]... [--] CMD [ARGS...]
//! mcp-veil proxy --config F          # with a `servers:` section: the gateway
//! ```
//!
//! With a command, one server runs behind the layer ([`super::stdio`]); without one, every server
//! of the configuration's `servers:` section runs behind one gateway ([`super::gateway`]). Both
//! use one vault session for the life of the process.

use std::sync::Arc;
use std::time::Duration;

use super::child_env;
use super::interceptor::Interceptor;
use super::restore::RestoreRules;
use super::stdio::{self, ProxyError, ServerCommand};
use crate::audit::AuditLog;
use crate::config::Config;
use crate::detect::Detector;
use crate::engine::Engine;
use crate::policy::{Policy, UnknownTokens};
use crate::vault::{BackendKind, MemoryVault, SessionId};

/// Arguments of `mcp-veil proxy`.
#[derive(Debug, Clone, clap::Args)]
pub struct ProxyArgs {
    /// The server's name in token origins (`NAME/tool`); derived from CMD when absent.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Forward tokens this session never minted as text instead of refusing the call (for a
    /// second layer stacked behind another).
    #[arg(long)]
    pub pass_unknown_tokens: bool,
    /// Pass this variable of the proxy's environment on to CMD (repeatable). CMD otherwise
    /// starts with only ordinary variables (PATH, HOME, the locale ...); `MCP_VEIL_*` variables
    /// and the configuration's secret sources are refused.
    #[arg(long = "pass-env", value_name = "VAR")]
    pub pass_env: Vec<String>,
    /// The stdio server to run, with its arguments (everything after the first non-option, or
    /// after `--`).
    #[arg(
        value_name = "CMD",
        trailing_var_arg = true,
        allow_hyphen_values = true,
        num_args = 0..
    )]
    pub command: Vec<String>,
}

/// Runs `mcp-veil proxy` to completion on a new Tokio runtime. SIGINT and SIGTERM stop it
/// (and its servers) with success.
///
/// One server (a command) runs on a single-threaded runtime: its results are tokenized one after
/// another by one task anyway, and with every task and the reactor on one thread a message is
/// never handed from one thread to another on its way through (a wake-up of the other worker
/// cost tens of microseconds per message). The gateway keeps two workers for its several
/// servers' tasks.
pub fn run(args: ProxyArgs, config: Config) -> Result<(), ProxyError> {
    let mut builder = if args.command.is_empty() {
        let mut b = tokio::runtime::Builder::new_multi_thread();
        b.worker_threads(2);
        b
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    let runtime = builder.enable_all().build().map_err(ProxyError::Host)?;
    let result = runtime.block_on(async {
        let stop = termination();
        tokio::select! {
            result = run_async(args, config) => result,
            () = stop => {
                // Dropping the relay kills the servers (they were spawned with kill_on_drop).
                tracing::info!("terminated by a signal: stopping the server(s)");
                Ok(())
            }
        }
    });
    // A read of the process's stdin may still be blocked in the pool: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

/// Runs `mcp-veil proxy` on the current runtime.
/// `config` is the loaded configuration (the binary's global `--config`, or the embedded default).
pub async fn run_async(args: ProxyArgs, config: Config) -> Result<(), ProxyError> {
    let interceptor = Arc::new(interceptor(&config, args.pass_unknown_tokens)?);
    serve(interceptor, &args, &config).await
}

/// Installs SIGINT/SIGTERM handlers now; the future resolves when one arrives.
pub fn termination() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let signals = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        );
        async move {
            let (Ok(mut term), Ok(mut int)) = signals else {
                return std::future::pending().await;
            };
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        }
    }
}

async fn serve(
    interceptor: Arc<Interceptor>,
    args: &ProxyArgs,
    config: &Config,
) -> Result<(), ProxyError> {
    match args.command.split_first() {
        Some((command, rest)) => {
            let server = ServerCommand {
                command: command.clone(),
                args: rest.to_vec(),
                env_passthrough: args.pass_env.clone(),
                ..Default::default()
            };
            let name = match &args.name {
                Some(n) => stdio::normalize_name(n),
                None => stdio::server_name(command, rest),
            };
            let secrets = child_env::secret_sources(
                config.servers.values(),
                config.serve.auth.token_env.as_deref(),
            );
            child_env::check([(name.as_str(), &server)], &secrets)
                .map_err(|e| ProxyError::Config(e.replace("env_passthrough", "--pass-env")))?;
            tracing::info!(server = name, session = %interceptor.session(), "proxy starting");
            stdio::run(interceptor, &name, &server).await
        }
        None if args.name.is_some() => Err(ProxyError::Config(
            "--name names the one server given as a command; the servers of a `servers:` \
             section are named by their keys"
                .into(),
        )),
        None if !config.servers.is_empty() => {
            check_servers(config).map_err(ProxyError::Config)?;
            super::gateway::run(interceptor, &config.servers, &config.tool_search).await
        }
        None => Err(ProxyError::Config(
            "nothing to proxy: give a server command (mcp-veil proxy -- CMD ARGS...) or a \
             --config file with a `servers:` section"
                .into(),
        )),
    }
}

/// Checks every `servers:` entry: `share` only on stdio servers, and the environment rules
/// ([`child_env::check`]) against the configuration's secret sources.
pub fn check_servers(config: &Config) -> Result<(), String> {
    for (name, server) in &config.servers {
        if server.share && server.url.is_some() {
            return Err(format!(
                "server `{name}`: `share` applies to stdio servers (`command:`); a `url:` \
                 server gets its own upstream session per client and shares one connection pool \
                 already"
            ));
        }
    }
    let secrets = child_env::secret_sources(
        config.servers.values(),
        config.serve.auth.token_env.as_deref(),
    );
    child_env::check(
        config.servers.iter().map(|(n, s)| (n.as_str(), s)),
        &secrets,
    )
}

/// The interceptor the configuration describes, over a fresh in-process session: the
/// `flows:` and `tools:` policy (with `pass_unknown`, tokens this session never minted pass as
/// text whatever `flows.unknown_tokens` says) and the `audit:` log (see
/// [`AuditLog::from_config`]: without a key it is off with one warning, or start-up fails when
/// `audit.required` is true).
pub fn interceptor(config: &Config, pass_unknown: bool) -> Result<Interceptor, ProxyError> {
    let detector = Detector::new(&config.detect).map_err(|e| ProxyError::Config(e.to_string()))?;
    // Before the first message: its tool result would pay what is built on first use.
    crate::walk::warm_up(&detector);
    if config.vault.backend != BackendKind::Memory {
        return Err(ProxyError::Config(
            "the stdio proxy keeps its session in process: use `vault: {backend: memory}`".into(),
        ));
    }
    let (policy, audit) = policy_and_audit(config, pass_unknown)?;
    let vault = MemoryVault::new(
        Duration::from_secs(config.vault.ttl_seconds),
        config.vault.max_entries_per_session,
    );
    let engine = Engine::new(Arc::new(detector), Arc::new(vault));
    Ok(Interceptor::new(engine, SessionId::random())
        .with_policy(Arc::new(policy))
        .with_audit(audit)
        .with_surfaces(config.surfaces)
        .with_restore(Arc::new(RestoreRules::new(&config.restore))))
}

/// The `flows:`/`tools:` policy and the `audit:` log the configuration describes, shared by
/// every front end (with `pass_unknown`, tokens this session never minted pass as text whatever
/// `flows.unknown_tokens` says).
pub fn policy_and_audit(
    config: &Config,
    pass_unknown: bool,
) -> Result<(Policy, Option<Arc<AuditLog>>), ProxyError> {
    let mut flows = config.flows.clone();
    if pass_unknown {
        flows.unknown_tokens = UnknownTokens::Pass;
    }
    let policy = Policy::from_sections(
        &flows,
        &config.tools,
        config.detect.custom.iter().map(|c| c.kind.as_str()),
    )
    .map_err(|e| ProxyError::Config(format!("invalid rules:\n{e}")))?;
    let audit = AuditLog::from_config(&config.audit)
        .map_err(|e| ProxyError::Config(format!("audit log: {e}")))?
        .map(|log| Arc::new(log.with_phone_regions(&config.detect.phone_regions)));
    Ok((policy, audit))
}
