//! The one configuration file.
//!
//! ```yaml
//! detect: ...   # which kinds, regions, name lists, custom kinds (see [`DetectConfig`])
//! vault: ...    # backend, TTL, per-session cap (see [`VaultConfig`])
//! flows: ...    # data-flow rules (see [`FlowsConfig`] and [`crate::policy`])
//! tools: ...    # host-side tool policy (see [`ToolRuleConfig`])
//! audit: ...    # audit log path, key file, rotation, fsync (see [`AuditConfig`])
//! servers: ...  # name -> {command, args, env} | {url, headers}: servers behind a gateway
//!               # (see [`ServerCommand`])
//! serve: ...    # `mcp-veil serve`: listen, auth, hosts/origins, sessions, limits
//!               # (see [`ServeConfig`])
//! surfaces: ... # scan | pass for what hosts show only to their user: elicitation, progress
//!               # (see [`SurfacesConfig`])
//! restore: ...  # syntax-safe restore: which arguments are SQL, shell, URL
//!               # (see [`RestoreConfig`])
//! tool_search: ... # gateways: list pinned tools + `search_tools` instead of every tool
//!               # (see [`ToolSearchConfig`])
//! ```
//!
//! Unknown keys are errors, and every error names the file, line and column. `rules/default.yaml`
//! documents every key with its default.

pub mod policy;
pub mod restore;
pub mod serve;
mod servers;
pub mod spans;
pub mod surfaces;
pub mod tool_search;

pub use servers::ServerCommand;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::audit::AuditConfig;
use crate::config::restore::RestoreConfig;
use crate::detect::DetectConfig;
use crate::vault::VaultConfig;
use policy::{FlowsConfig, ToolRuleConfig};
use serve::ServeConfig;
use surfaces::SurfacesConfig;
use tool_search::ToolSearchConfig;

/// The whole configuration.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Detection settings.
    pub detect: DetectConfig,
    /// Vault settings.
    pub vault: VaultConfig,
    /// Data-flow rules.
    pub flows: FlowsConfig,
    /// Host-side tool policy, first match wins.
    pub tools: Vec<ToolRuleConfig>,
    /// Audit log settings.
    pub audit: AuditConfig,
    /// Upstream servers (stdio or `url:`) for the gateways (`proxy --config F`, `serve`), by name.
    pub servers: BTreeMap<String, ServerCommand>,
    /// Settings of `mcp-veil serve` (the HTTP gateway).
    pub serve: ServeConfig,
    /// How the server → host surfaces a host shows only to its user are scanned.
    pub surfaces: SurfacesConfig,
    /// Syntax-safe restore: which tool arguments are SQL, shell or URL text.
    pub restore: RestoreConfig,
    /// Gateway tool search: list pinned tools and `search_tools` instead of every tool.
    pub tool_search: ToolSearchConfig,
}

/// The documented default configuration, embedded in the binary.
pub const DEFAULT_YAML: &str = include_str!("../rules/default.yaml");

/// Why a configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The YAML is malformed or does not match the schema.
    #[error("{path}:{line}:{column}: {message}")]
    Invalid {
        /// The file (or `<default>` / `<string>`).
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: u64,
        /// 1-based column (0 when unknown).
        column: u64,
        /// What was wrong and what was expected.
        message: String,
    },
}

impl Config {
    /// Loads and validates a configuration file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        Config::parse(&text, path)
    }

    /// The embedded default configuration.
    pub fn embedded_default() -> Config {
        Config::parse(DEFAULT_YAML, Path::new("<default>"))
            .expect("the embedded default configuration is valid")
    }

    /// Parses YAML text; `path` is used in error messages only.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        serde_saphyr::from_str::<Config>(text).map_err(|e| {
            let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
            // The first line of the rendered message says what was wrong; the rest is a
            // snippet of the file, which the location already points at.
            let rendered = e.to_string();
            let first = rendered.lines().next().unwrap_or("invalid configuration");
            // serde-saphyr repeats the location ("error: line 2 column 3: ..."); the path prefix
            // already carries it.
            let message = first
                .trim()
                .trim_start_matches("error: ")
                .split_once(": ")
                .filter(|(loc, _)| loc.starts_with("line ") && loc.contains(" column "))
                .map_or(first.trim(), |(_, rest)| rest)
                .to_string();
            ConfigError::Invalid {
                path: path.to_path_buf(),
                line,
                column,
                message,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_default_parses() {
        let c = Config::embedded_default();
        assert!(c.detect.email);
        assert!(c.detect.phone_regions.contains(&"US".to_string()));
    }

    #[test]
    fn unknown_keys_are_errors_with_location() {
        let err = Config::parse("detect:\n  emial: true\n", Path::new("x.yaml")).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.starts_with("x.yaml:2:3: unknown field `emial`"),
            "{msg}"
        );
    }

    #[test]
    fn the_audit_key_cannot_live_in_the_yaml() {
        let err = Config::parse("audit:\n  key: abcdef\n", Path::new("x.yaml")).unwrap_err();
        assert!(err.to_string().starts_with("x.yaml:2:"), "{err}");
    }

    #[test]
    fn policy_and_audit_sections_parse() {
        let c = Config::parse(
            "flows:\n  default: deny\n  rules:\n    - name: r\n      to: a/b\n      action: keep\ntools:\n  - match: web/*\n    action: deny\naudit:\n  path: /tmp/a.jsonl\n  fsync: always\n",
            Path::new("x.yaml"),
        )
        .unwrap();
        assert_eq!(c.flows.rules.len(), 1);
        assert_eq!(c.tools.len(), 1);
        assert_eq!(c.audit.fsync, crate::audit::FsyncPolicy::Always);
        let d = Config::embedded_default();
        assert!(d.audit.path.is_none() && !d.audit.required);
        assert!(d.flows.rules.is_empty() && d.tools.is_empty());
    }

    #[test]
    fn servers_parse_and_reject_unknown_keys() {
        let c = Config::parse(
            "servers:\n  fs:\n    command: node\n    args: [a.js, /tmp]\n    env: {DEBUG: '1'}\n  mem:\n    command: mem\n",
            Path::new("x.yaml"),
        )
        .unwrap();
        assert_eq!(c.servers["fs"].args, ["a.js", "/tmp"]);
        assert_eq!(c.servers["fs"].env["DEBUG"], "1");
        assert!(c.servers["mem"].args.is_empty());
        let err =
            Config::parse("servers:\n  fs:\n    cmd: node\n", Path::new("x.yaml")).unwrap_err();
        assert!(err.to_string().starts_with("x.yaml:3:"), "{err}");
    }

    #[test]
    fn serve_section_parses_and_rejects_unknown_keys() {
        let c = Config::parse(
            "servers:\n  crm:\n    url: https://crm.example/mcp\n    headers_from_env: {Authorization: CRM}\n\
             serve:\n  listen: 127.0.0.1:9000\n  session:\n    header: X-Session\n  limits:\n    upstream_timeout_seconds: 5\n",
            Path::new("x.yaml"),
        )
        .unwrap();
        assert_eq!(
            c.servers["crm"].url.as_deref(),
            Some("https://crm.example/mcp")
        );
        assert_eq!(c.serve.listen, "127.0.0.1:9000");
        assert_eq!(c.serve.session.header.as_deref(), Some("X-Session"));
        assert_eq!(c.serve.limits.upstream_timeout_seconds, 5);
        assert_eq!(c.serve.limits.max_body_bytes, 4 << 20);
        let err = Config::parse(
            "serve:\n  session:\n    sharde: true\n",
            Path::new("x.yaml"),
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("x.yaml:3:"), "{err}");
        let err =
            Config::parse("serve:\n  auth:\n    token: abc\n", Path::new("x.yaml")).unwrap_err();
        assert!(err.to_string().starts_with("x.yaml:3:"), "{err}");
    }

    #[test]
    fn surfaces_section_parses_and_rejects_unknown_keys_and_values() {
        use surfaces::SurfaceMode;
        let d = Config::embedded_default();
        assert_eq!(d.surfaces.elicitation, SurfaceMode::Scan);
        assert_eq!(d.surfaces.progress, SurfaceMode::Scan);
        let c = Config::parse("surfaces:\n  progress: pass\n", Path::new("x.yaml")).unwrap();
        assert_eq!(c.surfaces.progress, SurfaceMode::Pass);
        assert_eq!(c.surfaces.elicitation, SurfaceMode::Scan);
        for bad in [
            "surfaces:\n  tools: pass\n",
            "surfaces:\n  progress: skip\n",
        ] {
            let err = Config::parse(bad, Path::new("x.yaml")).unwrap_err();
            assert!(err.to_string().starts_with("x.yaml:2:"), "{err}");
        }
    }

    #[test]
    fn wrong_types_are_errors() {
        let err = Config::parse("vault:\n  ttl_seconds: soon\n", Path::new("x.yaml")).unwrap_err();
        assert!(err.to_string().starts_with("x.yaml:2:"), "{err}");
    }
}
