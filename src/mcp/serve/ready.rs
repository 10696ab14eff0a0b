//! `GET /readyz`: whether this replica can serve a session now (`/healthz` is liveness only).
//!
//! Cheap checks, run together, each bounded by [`PROBE_TIMEOUT`]:
//! - the vault: [`VaultBackend::ping`] (Redis `PING` for `backend: redis`; always ready in memory);
//! - each `url:` upstream: a TCP connection to its host and port opens (no HTTP request is sent,
//!   so no credentials leave the replica);
//! - each stdio upstream: its command resolves (a path that exists, or a file on `PATH`).
//!
//! `200 {"ready":true}` when all pass; otherwise `503 {"ready":false,"not_ready":[...]}` listing
//! `vault` and `upstream NAME` for the parts that failed: names only, never addresses, errors or
//! values.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::Gateway;
use crate::mcp::stdio::{self, ServerCommand};
use crate::vault::VaultBackend;

/// The most one check may take.
pub(super) const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The `/readyz` handler.
pub(super) async fn get_readyz(State(gateway): State<Arc<Gateway>>) -> Response {
    let failing = not_ready(gateway.vault.as_ref(), &gateway.servers).await;
    let (status, body) = if failing.is_empty() {
        (StatusCode::OK, serde_json::json!({"ready": true}))
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            serde_json::json!({"ready": false, "not_ready": failing}),
        )
    };
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        format!("{body}\n"),
    )
        .into_response()
}

/// The parts that cannot serve now: `vault`, `upstream NAME`.
pub(crate) async fn not_ready(
    vault: &dyn VaultBackend,
    servers: &BTreeMap<String, ServerCommand>,
) -> Vec<String> {
    let vault_ok = async {
        matches!(
            tokio::time::timeout(PROBE_TIMEOUT, vault.ping()).await,
            Ok(Ok(()))
        )
    };
    let upstreams = futures::future::join_all(
        servers
            .iter()
            .map(|(name, server)| async move { (name, upstream_ok(server).await) }),
    );
    let (vault_ok, upstreams) = futures::join!(vault_ok, upstreams);
    let mut out = Vec::new();
    if !vault_ok {
        out.push("vault".to_string());
    }
    out.extend(
        upstreams
            .into_iter()
            .filter(|(_, ok)| !ok)
            .map(|(name, _)| format!("upstream {name}")),
    );
    out
}

async fn upstream_ok(server: &ServerCommand) -> bool {
    match &server.url {
        Some(url) => {
            let Ok(url) = reqwest::Url::parse(url) else {
                return false;
            };
            let (Some(host), Some(port)) = (url.host_str(), url.port_or_known_default()) else {
                return false;
            };
            let host = host.trim_start_matches('[').trim_end_matches(']');
            matches!(
                tokio::time::timeout(PROBE_TIMEOUT, tokio::net::TcpStream::connect((host, port)))
                    .await,
                Ok(Ok(_))
            )
        }
        None => resolvable(server),
    }
}

/// Whether the command would be found: the server's own `PATH` (from `env:`) when it sets one.
fn resolvable(server: &ServerCommand) -> bool {
    let command = &server.command;
    if command.is_empty() {
        return false;
    }
    match server.env.get("PATH") {
        Some(path) if !command.contains('/') => {
            std::env::split_paths(path).any(|dir| dir.join(command).is_file())
        }
        _ => stdio::command_exists(command),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::MemoryVault;

    #[tokio::test]
    async fn names_the_parts_that_cannot_serve() {
        let vault = MemoryVault::new(Duration::from_secs(60), 100);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let open = listener.local_addr().unwrap();
        let closed = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap()
        };
        let mut servers = BTreeMap::new();
        let url = |addr: std::net::SocketAddr| ServerCommand {
            url: Some(format!("http://{addr}/mcp")),
            ..Default::default()
        };
        let cmd = |c: &str| ServerCommand {
            command: c.into(),
            ..Default::default()
        };
        servers.insert("up".to_string(), url(open));
        servers.insert("sh".to_string(), cmd("sh"));
        assert!(not_ready(&vault, &servers).await.is_empty());
        servers.insert("down".to_string(), url(closed));
        servers.insert("gone".to_string(), cmd("/nonexistent/mcp-server"));
        assert_eq!(
            not_ready(&vault, &servers).await,
            ["upstream down", "upstream gone"]
        );
    }
}
