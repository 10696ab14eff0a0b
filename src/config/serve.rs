//! The `serve:` section: where `mcp-veil serve` listens, who may call it, how sessions are keyed,
//! and its limits. Secrets (the client bearer tokens) come from the environment or a file, never
//! from the YAML.

use std::path::PathBuf;

use serde::Deserialize;

/// Settings of `mcp-veil serve`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServeConfig {
    /// Address to listen on (`--listen` overrides it). Loopback by default; any other address
    /// requires `auth`.
    pub listen: String,
    /// `Host` values accepted besides the loopback names (`localhost`, `127.0.0.1`, `[::1]`,
    /// with or without a port): DNS-rebinding protection.
    pub allowed_hosts: Vec<String>,
    /// `Origin` values accepted besides loopback origins; a request without `Origin` is accepted.
    pub allowed_origins: Vec<String>,
    /// Client authentication.
    pub auth: AuthConfig,
    /// How requests are mapped to vault sessions.
    pub session: SessionConfig,
    /// Request limits.
    pub limits: LimitsConfig,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            listen: "127.0.0.1:8080".into(),
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            auth: AuthConfig::default(),
            session: SessionConfig::default(),
            limits: LimitsConfig::default(),
        }
    }
}

/// The shortest bearer token `serve.auth` accepts, in bytes.
pub const MIN_TOKEN_LEN: usize = 16;
/// The fewest distinct characters a bearer token must have (refuses `aaaaaaaaaaaaaaaa`).
pub const MIN_TOKEN_DISTINCT: usize = 8;

/// Whether `token` is long and varied enough to be a secret: at least [`MIN_TOKEN_LEN`] bytes
/// and [`MIN_TOKEN_DISTINCT`] distinct characters (`openssl rand -hex 32` passes). The error
/// names `source` (a variable or a file and line), never the token.
pub fn check_token(source: &str, token: &str) -> Result<(), String> {
    let distinct = token
        .chars()
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if token.len() < MIN_TOKEN_LEN || distinct < MIN_TOKEN_DISTINCT {
        return Err(format!(
            "serve.auth: the token from {source} is too weak to be a secret (it needs at least              {MIN_TOKEN_LEN} characters and {MIN_TOKEN_DISTINCT} different ones; use e.g.              `openssl rand -hex 32`)"
        ));
    }
    Ok(())
}

/// Bearer-token authentication of clients. With neither source set, there is none. Each token
/// must pass [`check_token`].
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuthConfig {
    /// Environment variable holding the one accepted token (principal `default`).
    pub token_env: Option<String>,
    /// File of accepted tokens: one per line, `PRINCIPAL TOKEN` or just `TOKEN`.
    pub token_file: Option<PathBuf>,
}

/// Where a request's session key comes from, in this order: the `Mcp-Session-Id` header (the
/// gateway issues one on `initialize`); the configured `header`; the authenticated principal
/// (when `principal` is true); one shared session (when `shared` is true). With none of these the
/// request is refused.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SessionConfig {
    /// A header naming the session, for stateless (2026-07-28) clients.
    pub header: Option<String>,
    /// Key sessions by the authenticated principal when there is no session header.
    pub principal: bool,
    /// Allow one shared session for requests with no key at all: only for a single-user
    /// gateway on loopback.
    pub shared: bool,
    /// Seconds a session may stay idle before this replica drops its upstreams (the vault
    /// table lives on until the vault's own TTL).
    pub idle_seconds: u64,
    /// The most sessions one replica holds; new ones are refused past it (HTTP 503).
    pub max_sessions: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            header: None,
            principal: false,
            shared: false,
            idle_seconds: 3600,
            max_sessions: 10_000,
        }
    }
}

/// Request limits.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LimitsConfig {
    /// The largest request body accepted (HTTP 413 past it).
    pub max_body_bytes: usize,
    /// Seconds to wait for an upstream's answer before the client gets a JSON-RPC error.
    pub upstream_timeout_seconds: u64,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        LimitsConfig {
            max_body_bytes: 4 << 20,
            upstream_timeout_seconds: 120,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weak_tokens_are_refused_without_being_named() {
        for weak in [
            "abc",
            "aaaaaaaaaaaaaaaaaaaa",
            "121212121212121212",
            "0123456789abcde",
        ] {
            let err = check_token("variable `T`", weak).unwrap_err();
            assert!(err.contains("variable `T`") && !err.contains(weak), "{err}");
        }
        assert!(check_token("x", "3f9a0c7e5b1d2486").is_ok());
        assert!(check_token("x", &"9e107d9d372bb6826bd81d3542a419d6".repeat(2)).is_ok());
    }
}
