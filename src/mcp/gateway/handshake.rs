//! How the gateway opens each upstream: `initialize` for a session-era host (the host's
//! version proposed, its `roots` passed, `notifications/initialized` before any request), or
//! `server/discover` with a stateless host's `_meta`, each falling back to the other for a
//! server that knows only one lifecycle.

use serde_json::{Value, json};

use super::super::stateless;
use super::wire::result_of;
use super::{Capabilities, Gateway, PROPOSED_VERSION, Status};

impl Gateway {
    /// Discovers a stateless upstream (`server/discover` with the host's `_meta`; when the
    /// server refuses the host's version, once more at [`stateless::VERSION`]): its
    /// capabilities stand for an `initialize` result.
    /// `fallback`: a server that does not answer `server/discover` is initialized instead.
    pub(super) async fn discover_upstream(&self, idx: usize, meta: &Value, fallback: bool) {
        let upstream = &self.upstreams[idx];
        if !matches!(upstream.status(), Status::Starting) {
            return;
        }
        let mut meta = meta.clone();
        let mut answer = self
            .request_answer(idx, "server/discover", json!({"_meta": meta}))
            .await;
        // Refused: once more at the version the server names as supported (an unsupported
        // version error, `-32022`, lists them), or else at the one the gateway knows.
        let retry = match &answer {
            Ok(a) => stateless::retry_version(a, meta.get(stateless::META_VERSION)),
            Err(_) => None,
        };
        if let Some(version) = retry {
            meta[stateless::META_VERSION] = json!(version);
            answer = self
                .request_answer(idx, "server/discover", json!({"_meta": meta}))
                .await;
        }
        let answer = answer.and_then(|a| result_of(&upstream.name, "server/discover", a));
        if answer.is_err() && fallback {
            // A session-era server: initialized instead; what the stateless host sends it loses
            // the lifecycle `_meta`, what it answers gets `resultType` (see `send_to_upstream`,
            // `upstream_message`).
            tracing::info!(
                server = upstream.name,
                "the server does not answer server/discover; initializing it"
            );
            return self.initialize_upstream(idx, PROPOSED_VERSION, None).await;
        }
        match answer {
            Ok(result) => {
                let version = meta
                    .get(stateless::META_VERSION)
                    .and_then(Value::as_str)
                    .unwrap_or(stateless::VERSION)
                    .to_string();
                let capabilities =
                    Capabilities::new(result.get("capabilities").unwrap_or(&json!({})));
                upstream.set_status(Status::Ready {
                    capabilities,
                    version,
                });
            }
            Err(e) => {
                eprintln!("mcp-veil: server `{}` failed discovery: {e}", upstream.name);
                upstream.set_status(Status::Failed(format!("it failed discovery ({e})")));
            }
        }
    }

    pub(super) async fn initialize_upstream(
        &self,
        idx: usize,
        proposed: &str,
        roots: Option<&Value>,
    ) {
        let upstream = &self.upstreams[idx];
        if !matches!(upstream.status(), Status::Starting) {
            return;
        }
        let mut capabilities = json!({"sampling": {}, "elicitation": {"form": {}, "url": {}}});
        if let Some(roots) = roots {
            capabilities["roots"] = roots.clone();
        }
        let params = json!({
            "protocolVersion": proposed,
            "capabilities": capabilities,
            "clientInfo": {"name": "mcp-veil", "version": env!("CARGO_PKG_VERSION")},
        });
        let answer = self.request_answer(idx, "initialize", params).await;
        // A server that knows no `initialize` (a stateless-only one, and the host did not say
        // which lifecycle it speaks: its first request had neither `initialize` nor the
        // stateless `_meta`): discovered at the stateless version, as the gateway's own client.
        if let Ok(a) = &answer
            && a.pointer("/error/code").and_then(Value::as_i64) == Some(-32601)
        {
            tracing::info!(
                server = upstream.name,
                "the server does not answer initialize; discovering it"
            );
            let meta = json!({
                stateless::META_VERSION: stateless::VERSION,
                stateless::META_CAPABILITIES: capabilities,
                "io.modelcontextprotocol/clientInfo":
                    {"name": "mcp-veil", "version": env!("CARGO_PKG_VERSION")},
            });
            return Box::pin(self.discover_upstream(idx, &meta, false)).await;
        }
        match answer.and_then(|a| result_of(&upstream.name, "initialize", a)) {
            Ok(result) => {
                let version = result
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or(PROPOSED_VERSION)
                    .to_string();
                let capabilities =
                    Capabilities::new(result.get("capabilities").unwrap_or(&json!({})));
                upstream.set_status(Status::Ready {
                    capabilities,
                    version,
                });
                let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
                self.send_to_upstream(idx, initialized).await;
            }
            Err(e) => {
                eprintln!(
                    "mcp-veil: server `{}` failed to initialize: {e}",
                    upstream.name
                );
                upstream.set_status(Status::Failed(format!("it failed to initialize ({e})")));
            }
        }
    }
}
