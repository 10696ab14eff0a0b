//! The start-up validation of a configuration: what every command refuses, and what
//! `mcp-veil rules check` reports, from the file alone (no environment, no network).
//!
//! One function, [`check`], so `rules check` cannot say "ok" to a file a command refuses. Each
//! section's check names the offending key or value by its path; [`validate`] turns paths into
//! `file:line:column` with the file's span tree ([`crate::config::spans`]). A new section adds a
//! function here and a call in [`check`]; it needs no location bookkeeping of its own.
//!
//! Outside `config`, which holds only the configuration's types (and re-exports this module as
//! `config::check`): the checks build the detector, compile the policy and look at the servers'
//! environments, and those modules read the `config` types, so `config` imports none of them.
//!
//! Checks that need the environment (an unset `MCP_VEIL_VAULT_KEY`, a `token_env` variable, an
//! unreadable key file) stay where the value is read, and are configuration errors there too.

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::config::spans::{self, Node, Step};
use crate::config::{Config, ConfigError};
use crate::detect::{DetectError, Detector};
use crate::mcp::child_env;
use crate::mcp::stdio::normalize_name;
use crate::policy::Policy;
use crate::vault::{BackendKind, RedisVault};

/// Where a problem is: a path into the file, or a line and column already known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum At {
    /// A key or value, by path (`servers.fs.url`).
    Path(Vec<Step>),
    /// A 1-based line and column (0 when unknown).
    Line(u64, u64),
}

/// One problem with a configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Where.
    pub at: At,
    /// What was wrong and what was expected.
    pub message: String,
}

impl Problem {
    fn at(path: Vec<Step>, message: impl Into<String>) -> Problem {
        Problem {
            at: At::Path(path),
            message: message.into(),
        }
    }
}

/// A configuration that does not pass, every problem located.
#[derive(Debug, thiserror::Error)]
#[error("{}", render(.path, .problems))]
pub struct Invalid {
    /// The file.
    pub path: PathBuf,
    /// `(line, column, message)`, in the order found; 0 when a location is unknown.
    pub problems: Vec<(u64, u64, String)>,
}

fn render(path: &Path, problems: &[(u64, u64, String)]) -> String {
    problems
        .iter()
        .map(|(l, c, m)| format!("{}:{l}:{c}: {m}", path.display()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why a configuration file could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// Unreadable, malformed, or not the schema.
    #[error(transparent)]
    Parse(#[from] ConfigError),
    /// Parsed but refused by [`check`].
    #[error(transparent)]
    Invalid(#[from] Invalid),
}

/// Loads, parses and validates a file: what every command and `rules check` run.
pub fn load(path: &Path) -> Result<Config, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let config = Config::parse(&text, path)?;
    validate(&config, &text, path)?;
    Ok(config)
}

/// Runs [`check`] and locates its problems in `text` (the file `config` was parsed from).
pub fn validate(config: &Config, text: &str, path: &Path) -> Result<(), Invalid> {
    let problems = check(config);
    if problems.is_empty() {
        return Ok(());
    }
    let tree = Node::parse(text);
    let problems = problems
        .into_iter()
        .map(|p| {
            let (line, column) = match &p.at {
                At::Line(l, c) => (*l, *c),
                At::Path(steps) => tree.as_ref().map_or((0, 0), |t| t.locate(steps)),
            };
            (line, column, p.message)
        })
        .collect();
    Err(Invalid {
        path: path.to_path_buf(),
        problems,
    })
}

/// Every problem the front ends would refuse `config` for at start-up, from the file alone.
pub fn check(config: &Config) -> Vec<Problem> {
    let mut problems = Vec::new();
    detect(config, &mut problems);
    policy(config, &mut problems);
    servers(config, &mut problems);
    vault(config, &mut problems);
    audit(config, &mut problems);
    serve(config, &mut problems);
    problems
}

fn key(parts: &[&str]) -> Vec<Step> {
    parts.iter().map(|p| Step::from(*p)).collect()
}

fn detect(config: &Config, out: &mut Vec<Problem>) {
    let d = &config.detect;
    let Err(e) = Detector::new(d) else { return };
    let custom_at = |i: usize, field: &str| {
        let mut p = key(&["detect", "custom"]);
        p.push(Step::Index(i));
        p.push(field.into());
        p
    };
    let path = match &e {
        DetectError::UnknownRegion(r) => {
            let i = d.phone_regions.iter().position(|x| x == r).unwrap_or(0);
            let mut p = key(&["detect", "phone_regions"]);
            p.push(Step::Index(i));
            p
        }
        DetectError::InvalidKindName(k) => custom_at(
            d.custom.iter().position(|c| &c.kind == k).unwrap_or(0),
            "kind",
        ),
        DetectError::DuplicateKind(k) => custom_at(
            d.custom.iter().rposition(|c| &c.kind == k).unwrap_or(0),
            "kind",
        ),
        DetectError::InvalidPattern { kind, .. } => custom_at(
            d.custom.iter().position(|c| &c.kind == kind).unwrap_or(0),
            "pattern",
        ),
    };
    out.push(Problem::at(path, e.to_string()));
}

fn policy(config: &Config, out: &mut Vec<Problem>) {
    if let Err(e) = Policy::from_config(config) {
        out.extend(e.issues.into_iter().map(|i| Problem {
            at: At::Line(i.line, i.column),
            message: i.message,
        }));
    }
}

fn servers(config: &Config, out: &mut Vec<Problem>) {
    let mut names: HashMap<String, &str> = HashMap::new();
    let secrets = child_env::secret_sources(
        config.servers.values(),
        config.serve.auth.token_env.as_deref(),
    );
    // A secret source every child would inherit (`PATH`, say) is refused once.
    let inherited_ok = match child_env::check(std::iter::empty(), &secrets) {
        Ok(()) => true,
        Err(e) => {
            out.push(Problem::at(key(&["servers"]), e));
            false
        }
    };
    for (configured, server) in &config.servers {
        let at = |field: &[&str]| {
            let mut p = key(&["servers"]);
            p.push(Step::Key(configured.clone()));
            p.extend(field.iter().map(|f| Step::from(*f)));
            p
        };
        match (server.command.is_empty(), &server.url) {
            (true, None) => out.push(Problem::at(
                at(&[]),
                format!("server `{configured}` needs one of `command` and `url`"),
            )),
            (false, Some(_)) => out.push(Problem::at(
                at(&["url"]),
                format!("server `{configured}` has both `command` and `url`: keep one"),
            )),
            (true, Some(url)) => {
                if let Err(e) = reqwest::Url::parse(url) {
                    out.push(Problem::at(
                        at(&["url"]),
                        format!("server `{configured}`: bad url: {e}"),
                    ));
                }
            }
            (false, None) => {}
        }
        for (table, headers) in [
            ("headers", &server.headers),
            ("headers_from_env", &server.headers_from_env),
        ] {
            for (h, v) in headers {
                if reqwest::header::HeaderName::from_bytes(h.as_bytes()).is_err() {
                    out.push(Problem::at(
                        at(&[table, h]),
                        format!("server `{configured}`: bad header name `{h}`"),
                    ));
                } else if table == "headers" && reqwest::header::HeaderValue::from_str(v).is_err() {
                    out.push(Problem::at(
                        at(&[table, h]),
                        format!("server `{configured}`: bad value for header `{h}`"),
                    ));
                }
            }
        }
        if server.share && server.url.is_some() {
            out.push(Problem::at(
                at(&["share"]),
                format!(
                    "server `{configured}`: `share` applies to stdio servers (`command:`); a \
                     `url:` server gets its own upstream session per client and shares one \
                     connection pool already"
                ),
            ));
        }
        let name = normalize_name(configured);
        if let Some(other) = names.insert(name.clone(), configured) {
            out.push(Problem::at(
                at(&[]),
                format!("servers `{other}` and `{configured}` both normalise to `{name}`"),
            ));
        }
        // What may reach the server's environment: no layer secret, no secret source.
        if inherited_ok && let Err(e) = child_env::check([(configured.as_str(), server)], &secrets)
        {
            let field = if e.contains("env_passthrough") {
                "env_passthrough"
            } else {
                "env"
            };
            out.push(Problem::at(at(&[field]), e));
        }
    }
}

fn vault(config: &Config, out: &mut Vec<Problem>) {
    if config.vault.backend != BackendKind::Redis {
        return;
    }
    if let Err(e) = RedisVault::check_config(&config.vault) {
        let field = if config.vault.url.is_none() {
            "backend"
        } else if e.to_string().contains("ttl_seconds") {
            "ttl_seconds"
        } else {
            "url"
        };
        out.push(Problem::at(key(&["vault", field]), e.to_string()));
    }
}

fn audit(config: &Config, out: &mut Vec<Problem>) {
    if config.audit.required && config.audit.path.is_none() {
        out.push(Problem::at(
            key(&["audit", "required"]),
            "audit.required is true but audit.path is not set",
        ));
    }
}

fn serve(config: &Config, out: &mut Vec<Problem>) {
    let s = &config.serve;
    match s.listen.parse::<SocketAddr>() {
        Err(_) => out.push(Problem::at(
            key(&["serve", "listen"]),
            format!("`{}` is not an IP:port address", s.listen),
        )),
        Ok(addr) if !addr.ip().is_loopback() && !has_auth(config) => out.push(Problem::at(
            key(&["serve", "listen"]),
            format!("listening on {addr} (not loopback) requires `serve.auth`"),
        )),
        Ok(_) => {}
    }
}

/// Whether `serve.auth` names a source of client tokens.
pub fn has_auth(config: &Config) -> bool {
    config.serve.auth.token_env.is_some() || config.serve.auth.token_file.is_some()
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.at {
            At::Path(p) => write!(f, "{}: {}", spans::render(p), self.message),
            At::Line(l, c) => write!(f, "{l}:{c}: {}", self.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(text: &str) -> String {
        let c = Config::parse(text, Path::new("x.yaml")).unwrap();
        validate(&c, text, Path::new("x.yaml"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn the_default_passes() {
        assert!(check(&Config::embedded_default()).is_empty());
        assert!(check(&Config::default()).is_empty());
    }

    #[test]
    fn each_refusal_is_located() {
        let e = errors("detect:\n  phone_regions: [US, XX]\n");
        assert!(
            e.starts_with("x.yaml:2:23: unknown phone region `XX`"),
            "{e}"
        );
        let e = errors("detect:\n  custom:\n    - kind: email\n      pattern: 'a'\n");
        assert!(
            e.starts_with("x.yaml:3:13: invalid custom kind name"),
            "{e}"
        );
        let e = errors("detect:\n  custom:\n    - kind: EMP\n      pattern: '('\n");
        assert!(
            e.starts_with("x.yaml:4:16: custom kind `EMP`: invalid regex"),
            "{e}"
        );
        let e = errors("servers:\n  fs:\n    command: node\n    url: http://x/mcp\n");
        assert!(e.starts_with("x.yaml:4:10: server `fs` has both"), "{e}");
        let e = errors("servers:\n  a.b:\n    command: x\n  a_b:\n    command: y\n");
        assert!(e.starts_with("x.yaml:4:3: servers `a.b` and `a_b`"), "{e}");
        let e =
            errors("servers:\n  fs:\n    command: x\n    env_passthrough: [MCP_VEIL_AUDIT_KEY]\n");
        assert!(
            e.starts_with("x.yaml:4:5: server `fs`: env_passthrough names"),
            "{e}"
        );
        let e = errors(
            "servers:\n  a:\n    command: x\n    env_passthrough: [TOK]\n  b:\n    url: http://x/mcp\n    headers_from_env: {Authorization: TOK}\n",
        );
        assert!(
            e.starts_with("x.yaml:4:5: server `a`: env_passthrough names `TOK`, a secret"),
            "{e}"
        );
        let e = errors("servers:\n  a:\n    command: x\n    env: {MCP_VEIL_VAULT_KEY: k}\n");
        assert!(e.starts_with("x.yaml:4:5: server `a`: env sets"), "{e}");
        let e = errors("serve:\n  listen: 0.0.0.0:8080\n");
        assert!(
            e.starts_with("x.yaml:2:11: listening on 0.0.0.0:8080"),
            "{e}"
        );
    }
}
