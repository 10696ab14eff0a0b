//! The `servers:` section: the upstream servers behind a gateway, by name.
//!
//! A configuration type, so it lives with the configuration: `mcp/stdio.rs`, `mcp/http_upstream.rs`
//! and the gateways read it (`crate::mcp::stdio::ServerCommand` re-exports it).

use std::collections::BTreeMap;

use serde::Deserialize;

/// One upstream server (`servers:` entries in the configuration): a stdio program
/// (`command`, `args`, `env`) or a remote streamable-HTTP server (`url`, `headers`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ServerCommand {
    /// The program (looked up in `PATH`); empty for a `url` server.
    #[serde(default)]
    pub command: String,
    /// The MCP endpoint of a remote streamable-HTTP server, instead of `command`.
    #[serde(default)]
    pub url: Option<String>,
    /// Headers sent with every request to a `url` server (not secrets: see `headers_from_env`).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Headers whose values come from environment variables (header -> variable), e.g.
    /// `Authorization: UPSTREAM_AUTH`, so secrets stay out of the YAML.
    #[serde(default)]
    pub headers_from_env: BTreeMap<String, String>,
    /// `mcp-veil serve` only: send the client's own `Authorization` header to this `url`
    /// server (taken from the request that opened the session).
    #[serde(default)]
    pub forward_authorization: bool,
    /// Its arguments.
    #[serde(default)]
    pub args: Vec<String>,
    /// Variables set for this server (a stdio server starts from a clean environment: see
    /// [`crate::mcp::child_env`]).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Variables of the layer's environment passed on to this stdio server by name (e.g.
    /// `GITHUB_TOKEN`); never an `MCP_VEIL_*` variable or a configured secret source.
    #[serde(default)]
    pub env_passthrough: Vec<String>,
    /// `mcp-veil serve` only, stdio servers only: one child serves every HTTP session (for
    /// servers that keep no per-client state) instead of one child per session; ids and
    /// progress tokens are remapped per session and tokens stay per session (see
    /// [`crate::mcp::shared`]). Off by default.
    #[serde(default)]
    pub share: bool,
}
