//! The layer's configuration and session handle: [`Veil`] and its [`VeilBuilder`].
//!
//! A [`Veil`] owns one [`Interceptor`], hence one vault session: every transport it wraps shares
//! that session's token table, so a token minted from one server's result can be restored in a
//! call to another. Cloning the handle is cheap (an `Arc`) and keeps the session.
//!
//! Requests are correlated with their responses per server name, and every rmcp client numbers
//! its requests from 0, so two transports that are live at the same time must not share a name:
//! give each its own with [`Veil::server`]. A second live transport under a name already in use
//! is given a suffixed name (`crm#2`) rather than mixing up the two correlation tables.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::transport::Transport;

use super::VeilTransport;
use crate::config::Config;
use crate::detect::{DetectError, Detector};
use crate::engine::Engine;
use crate::mcp::flow::FlowPolicy;
use crate::mcp::interceptor::Interceptor;
use crate::vault::{BackendKind, MemoryVault, SessionId};

/// Why a [`Veil`] could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// The `detect:` settings do not compile (bad region, custom kind, regex).
    #[error("invalid detect settings: {0}")]
    Detect(#[from] DetectError),
    /// The configuration asks for a vault backend the layer cannot build by itself (`redis`):
    /// pass one with [`VeilBuilder::engine`].
    #[error("vault backend `{0:?}` is not built in by the rmcp layer; pass an Engine instead")]
    UnsupportedVault(BackendKind),
    /// The server name is empty or contains `/` (it prefixes `server/tool` origins).
    #[error("invalid server name `{0}`: use a non-empty name without `/`")]
    InvalidServerName(String),
    /// The `flows:` or `tools:` section of the configuration is invalid.
    #[error("invalid rules: {0}")]
    Policy(#[from] crate::policy::PolicyError),
}

/// Builds a [`Veil`]: configuration, server name, session, policy.
#[derive(Default)]
pub struct VeilBuilder {
    config: Option<Config>,
    engine: Option<Engine>,
    server: Option<String>,
    session: Option<SessionId>,
    policy: Option<Arc<dyn FlowPolicy>>,
    audit: Option<Arc<crate::audit::AuditLog>>,
}

impl fmt::Debug for VeilBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VeilBuilder")
            .field("server", &self.server)
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl VeilBuilder {
    /// Detection and vault settings (default: [`Config::default`]).
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
        self
    }

    /// A ready engine (detector and vault), e.g. over a shared Redis vault. Takes precedence
    /// over [`VeilBuilder::config`].
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = Some(engine);
        self
    }

    /// The name of the server behind the transports this handle wraps (default `server`). It
    /// prefixes the origin of every token (`crm/list_contacts`) and the destination policies see.
    pub fn server_name(mut self, name: impl Into<String>) -> Self {
        self.server = Some(name.into());
        self
    }

    /// The vault session (default: a fresh random id).
    pub fn session(mut self, session: SessionId) -> Self {
        self.session = Some(session);
        self
    }

    /// The data-flow policy (default: the `flows:` and `tools:` sections of
    /// [`VeilBuilder::config`] when one is given, else restore every token of the session and
    /// refuse unknown ones).
    pub fn policy(mut self, policy: Arc<dyn FlowPolicy>) -> Self {
        self.policy = Some(policy);
        self
    }

    /// Writes audit events (tokenized, restored, denied ...) to `log`.
    pub fn audit(mut self, log: Arc<crate::audit::AuditLog>) -> Self {
        self.audit = Some(log);
        self
    }

    /// Compiles the detector and opens the session.
    pub fn build(self) -> Result<Veil, BuildError> {
        let server = self.server.unwrap_or_else(|| "server".to_string());
        check_name(&server)?;
        let policy: Option<Arc<dyn FlowPolicy>> = match (self.policy, &self.config) {
            (Some(p), _) => Some(p),
            (None, Some(config)) => Some(Arc::new(crate::policy::Policy::from_config(config)?)),
            (None, None) => None,
        };
        let engine = match self.engine {
            Some(engine) => engine,
            None => {
                let config = self.config.clone().unwrap_or_default();
                if config.vault.backend != BackendKind::Memory {
                    return Err(BuildError::UnsupportedVault(config.vault.backend));
                }
                let detector = Detector::new(&config.detect)?;
                // Before the first message: its tool result would pay what is built on first use.
                crate::walk::warm_up(&detector);
                let vault = MemoryVault::new(
                    Duration::from_secs(config.vault.ttl_seconds),
                    config.vault.max_entries_per_session,
                );
                Engine::new(Arc::new(detector), Arc::new(vault))
            }
        };
        let mut interceptor =
            Interceptor::new(engine, self.session.unwrap_or_else(SessionId::random));
        if let Some(policy) = policy {
            interceptor = interceptor.with_policy(policy);
        }
        interceptor = interceptor.with_audit(self.audit);
        Ok(Veil {
            shared: Arc::new(Shared {
                interceptor,
                live: Mutex::new(HashMap::new()),
            }),
            server: server.into(),
        })
    }
}

fn check_name(name: &str) -> Result<(), BuildError> {
    if name.is_empty() || name.contains('/') {
        return Err(BuildError::InvalidServerName(name.to_string()));
    }
    Ok(())
}

/// What every clone of a [`Veil`] shares.
#[derive(Debug)]
pub(super) struct Shared {
    pub(super) interceptor: Interceptor,
    /// Live transports per server name, to keep correlation names unique.
    live: Mutex<HashMap<Arc<str>, usize>>,
}

impl Shared {
    /// Claims a correlation name for a new transport to `server`.
    pub(super) fn claim(&self, server: &Arc<str>) -> Arc<str> {
        let mut live = self.live.lock().unwrap_or_else(|e| e.into_inner());
        let mut n = 1usize;
        loop {
            let name: Arc<str> = if n == 1 {
                server.clone()
            } else {
                format!("{server}#{n}").into()
            };
            if !live.contains_key(&name) {
                if n > 1 {
                    tracing::warn!(
                        server = &**server,
                        name = &*name,
                        "a transport to this server is already live in this session: using a suffixed name"
                    );
                }
                live.insert(name.clone(), 1);
                return name;
            }
            n += 1;
        }
    }

    /// Releases a name claimed by [`Shared::claim`].
    pub(super) fn release(&self, name: &str) {
        self.live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(name);
    }
}

/// A handle on one privacy session: wraps rmcp client transports.
///
/// ```no_run
/// # async fn demo() -> anyhow::Result<()> {
/// use mcp_veil::mcp::transport::Veil;
/// use rmcp::ServiceExt;
/// use rmcp::transport::TokioChildProcess;
///
/// let veil = Veil::builder().server_name("crm").build()?;
/// let cmd = tokio::process::Command::new("crm-mcp-server");
/// let client = ().serve(veil.wrap(TokioChildProcess::new(cmd)?)).await?;
/// # let _ = client; Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Veil {
    pub(super) shared: Arc<Shared>,
    server: Arc<str>,
}

impl Veil {
    /// A builder with every default.
    pub fn builder() -> VeilBuilder {
        VeilBuilder::default()
    }

    /// Wraps a client transport: results it receives are tokenized, calls it sends are
    /// rehydrated, calls refused by policy are answered locally.
    pub fn wrap<T>(&self, inner: T) -> VeilTransport<T>
    where
        T: Transport<RoleClient> + 'static,
    {
        VeilTransport::new(self.clone(), inner)
    }

    /// The same session, for a transport to another server.
    pub fn server(&self, name: impl Into<String>) -> Result<Veil, BuildError> {
        let name = name.into();
        check_name(&name)?;
        Ok(Veil {
            shared: self.shared.clone(),
            server: name.into(),
        })
    }

    /// The server name of this handle.
    pub fn server_name(&self) -> &str {
        &self.server
    }

    pub(super) fn server_arc(&self) -> &Arc<str> {
        &self.server
    }

    /// The interceptor (and through it the engine and the session).
    pub fn interceptor(&self) -> &Interceptor {
        &self.shared.interceptor
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert!(matches!(
            Veil::builder().server_name("a/b").build(),
            Err(BuildError::InvalidServerName(_))
        ));
        let veil = Veil::builder().server_name("crm").build().unwrap();
        assert_eq!(veil.server_name(), "crm");
        assert!(veil.server("").is_err());
        let mail = veil.server("mail").unwrap();
        assert_eq!(mail.server_name(), "mail");
        assert_eq!(
            mail.interceptor().session(),
            veil.interceptor().session(),
            "one session per handle, shared by its clones"
        );
    }

    #[test]
    fn live_names_are_unique() {
        let veil = Veil::builder().server_name("crm").build().unwrap();
        let crm: Arc<str> = "crm".into();
        let a = veil.shared.claim(&crm);
        let b = veil.shared.claim(&crm);
        assert_eq!(&*a, "crm");
        assert_eq!(&*b, "crm#2");
        veil.shared.release(&a);
        assert_eq!(&*veil.shared.claim(&crm), "crm");
    }

    #[test]
    fn redis_needs_an_engine() {
        let mut config = Config::default();
        config.vault.backend = BackendKind::Redis;
        assert!(matches!(
            Veil::builder().config(config).build(),
            Err(BuildError::UnsupportedVault(BackendKind::Redis))
        ));
    }
}
