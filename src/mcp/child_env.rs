//! The environment an upstream stdio server starts with: clean, never the layer's secrets.
//!
//! Upstream servers are untrusted (a server can hand its whole environment to the model:
//! server-everything's `get-env` tool does). So a child never inherits the layer's environment
//! wholesale. It starts from nothing (`env_clear`) and gets, in this order (later wins):
//!
//! 1. the ordinary variables of [`INHERITED`] (and every `LC_*`), when the layer has them: what
//!    the official MCP SDKs pass by default (`get_default_environment`), plus the locale, `TMPDIR`
//!    and `TZ` and the Windows equivalents. Values starting with `()` (exported shell functions)
//!    are skipped, as the SDKs do;
//! 2. the variables the server's `env_passthrough:` list names (or `proxy --pass-env NAME`), when
//!    the layer has them;
//! 3. the server's own `env:` map from the configuration.
//!
//! Never passed, whatever the lists say: any `MCP_VEIL_*` variable (the audit, vault and session
//! keys, the Redis password, the log filter) and every variable the configuration names as a
//! secret source (`serve.auth.token_env`, any server's `headers_from_env`). A passthrough list or
//! an `env:` map naming one of them is a start-up error ([`check`]); so is a secret source named
//! like an inherited variable (`token_env: HOME`). [`build`] drops `MCP_VEIL_*` names again at
//! spawn time, so a caller that skipped [`check`] still cannot leak the layer's keys.
//!
//! Errors name variables, never their values.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};

use super::stdio::ServerCommand;

/// Variables every child inherits from the layer when set (compared case-insensitively on
/// Windows, where names are). Unix: the SDKs' list (`HOME LOGNAME PATH SHELL TERM USER`) plus the
/// locale, `TMPDIR`, `TZ`; Windows: the SDKs' list plus what common runtimes need to start.
pub const INHERITED: &[&str] = &[
    // Unix.
    "HOME",
    "LOGNAME",
    "PATH",
    "SHELL",
    "TERM",
    "USER",
    "LANG",
    "LANGUAGE",
    "TMPDIR",
    "TZ",
    // Windows.
    "APPDATA",
    "COMSPEC",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATHEXT",
    "PROCESSOR_ARCHITECTURE",
    "PROGRAMDATA",
    "PROGRAMFILES",
    "PROGRAMFILES(X86)",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "TMP",
    "USERNAME",
    "USERPROFILE",
    "WINDIR",
];

/// Prefixes of inherited variables (the locale categories: `LC_ALL`, `LC_CTYPE` ...).
pub const INHERITED_PREFIXES: &[&str] = &["LC_"];

/// The layer's own variables: never passed to a child by any route.
pub const RESERVED_PREFIX: &str = "MCP_VEIL_";

/// Whether `name` is one of the layer's own variables (any case).
pub fn is_reserved(name: &str) -> bool {
    name.len() >= RESERVED_PREFIX.len()
        && name.as_bytes()[..RESERVED_PREFIX.len()].eq_ignore_ascii_case(RESERVED_PREFIX.as_bytes())
}

/// Whether `name` is inherited by default.
pub fn is_inherited(name: &str) -> bool {
    let same = |a: &str, b: &str| {
        if cfg!(windows) {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    };
    INHERITED.iter().any(|v| same(v, name))
        || INHERITED_PREFIXES
            .iter()
            .any(|p| name.len() > p.len() && name.get(..p.len()).is_some_and(|h| same(h, p)))
}

/// The names of the configuration's secret sources: `extra` (e.g. `serve.auth.token_env`) and
/// every server's `headers_from_env` variables.
pub fn secret_sources<'a>(
    servers: impl IntoIterator<Item = &'a ServerCommand>,
    extra: impl IntoIterator<Item = &'a str>,
) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = extra.into_iter().map(str::to_string).collect();
    for server in servers {
        out.extend(server.headers_from_env.values().cloned());
    }
    out
}

/// Checks every stdio server's `env:` and `env_passthrough:` against the rules above, and the
/// secret sources against the inherited set. The error names the server and the variable.
pub fn check<'a>(
    servers: impl IntoIterator<Item = (&'a str, &'a ServerCommand)>,
    secrets: &BTreeSet<String>,
) -> Result<(), String> {
    for secret in secrets {
        if is_reserved(secret) {
            continue;
        }
        if is_inherited(secret) {
            return Err(format!(
                "`{secret}` is named as a secret source (serve.auth.token_env or headers_from_env) \
                 but every stdio server inherits it: use a dedicated variable"
            ));
        }
    }
    for (name, server) in servers {
        for var in &server.env_passthrough {
            if var.is_empty() || var.contains('=') {
                return Err(format!(
                    "server `{name}`: env_passthrough entry `{var}` is not a variable name"
                ));
            }
            if is_reserved(var) {
                return Err(format!(
                    "server `{name}`: env_passthrough names `{var}`; {RESERVED_PREFIX}* variables \
                     are the layer's own secrets and never reach a server"
                ));
            }
            if secrets.contains(var) {
                return Err(format!(
                    "server `{name}`: env_passthrough names `{var}`, a secret source of this \
                     configuration (serve.auth.token_env or headers_from_env); it never reaches \
                     a server"
                ));
            }
        }
        for var in server.env.keys() {
            if is_reserved(var) {
                return Err(format!(
                    "server `{name}`: env sets `{var}`; {RESERVED_PREFIX}* variables are the \
                     layer's own and are never passed to a server"
                ));
            }
        }
    }
    Ok(())
}

/// The environment of `server`'s child, from the layer's current environment.
pub fn for_server(server: &ServerCommand) -> BTreeMap<OsString, OsString> {
    build(std::env::vars_os(), server)
}

/// The environment of `server`'s child, from `parent` (the layer's environment): see the module
/// docs. `MCP_VEIL_*` names are dropped whatever the lists say.
pub fn build(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
    server: &ServerCommand,
) -> BTreeMap<OsString, OsString> {
    let passthrough: BTreeSet<&str> = server
        .env_passthrough
        .iter()
        .map(String::as_str)
        .filter(|v| !is_reserved(v))
        .collect();
    let mut out = BTreeMap::new();
    for (name, value) in parent {
        let Some(text) = name.to_str() else { continue };
        if is_reserved(text) {
            continue;
        }
        let listed = passthrough.contains(text)
            || (cfg!(windows) && passthrough.iter().any(|p| p.eq_ignore_ascii_case(text)));
        if listed || (is_inherited(text) && !is_shell_function(&value)) {
            out.insert(name, value);
        }
    }
    for (name, value) in &server.env {
        if is_reserved(name) {
            tracing::warn!(variable = %name, "not passing a reserved variable to a server");
            continue;
        }
        out.insert(OsString::from(name), OsString::from(value));
    }
    out
}

fn is_shell_function(value: &OsStr) -> bool {
    value.as_encoded_bytes().starts_with(b"()")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(vars: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        vars.iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect()
    }

    fn names(env: &BTreeMap<OsString, OsString>) -> Vec<String> {
        env.keys()
            .map(|k| k.to_string_lossy().into_owned())
            .collect()
    }

    fn server(passthrough: &[&str], env: &[(&str, &str)]) -> ServerCommand {
        ServerCommand {
            command: "srv".into(),
            env_passthrough: passthrough.iter().map(|s| s.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn only_ordinary_listed_and_configured_variables_reach_a_child() {
        let env = build(
            parent(&[
                ("PATH", "/bin"),
                ("HOME", "/home/a"),
                ("LC_CTYPE", "C.UTF-8"),
                ("MCP_VEIL_AUDIT_KEY", "k"),
                ("MCP_VEIL_VAULT_KEY", "k"),
                ("AWS_SECRET_ACCESS_KEY", "s"),
                ("GITHUB_TOKEN", "g"),
                ("RANDOM_THING", "r"),
            ]),
            &server(&["GITHUB_TOKEN", "MISSING"], &[("DEBUG", "1")]),
        );
        assert_eq!(
            names(&env),
            ["DEBUG", "GITHUB_TOKEN", "HOME", "LC_CTYPE", "PATH"]
        );
        assert_eq!(env[OsStr::new("DEBUG")], "1");
    }

    #[test]
    fn config_env_wins_over_inherited() {
        let env = build(
            parent(&[("PATH", "/bin")]),
            &server(&[], &[("PATH", "/opt/bin")]),
        );
        assert_eq!(env[OsStr::new("PATH")], "/opt/bin");
    }

    #[test]
    fn reserved_names_never_pass_even_when_listed() {
        let env = build(
            parent(&[("MCP_VEIL_AUDIT_KEY", "k"), ("mcp_veil_log", "x")]),
            &server(
                &["MCP_VEIL_AUDIT_KEY", "mcp_veil_log"],
                &[("MCP_VEIL_X", "1")],
            ),
        );
        assert!(env.is_empty(), "{:?}", names(&env));
    }

    #[test]
    fn exported_shell_functions_are_not_inherited() {
        let env = build(
            parent(&[("TERM", "() { :; }; echo pwned"), ("PATH", "/bin")]),
            &server(&[], &[]),
        );
        assert_eq!(names(&env), ["PATH"]);
    }

    #[test]
    fn lc_alone_is_not_a_locale_variable() {
        assert!(is_inherited("LC_ALL"));
        assert!(!is_inherited("LC_"));
        assert!(!is_inherited("PATHS"));
        // A multi-byte character where the prefix would end is no panic.
        assert!(!is_inherited("LCé_X"));
    }

    #[test]
    fn check_refuses_lists_naming_secrets() {
        let mut crm = server(&[], &[]);
        crm.url = Some("https://crm.example/mcp".into());
        crm.command.clear();
        crm.headers_from_env
            .insert("Authorization".into(), "CRM_TOKEN".into());
        let ok = server(&["GITHUB_TOKEN"], &[("DEBUG", "1")]);
        let secrets = secret_sources([&crm, &ok], ["SERVE_TOKEN"]);
        assert!(check([("crm", &crm), ("ok", &ok)], &secrets).is_ok());

        for (bad, named) in [
            (server(&["CRM_TOKEN"], &[]), "CRM_TOKEN"),
            (server(&["SERVE_TOKEN"], &[]), "SERVE_TOKEN"),
            (server(&["MCP_VEIL_AUDIT_KEY"], &[]), "MCP_VEIL_AUDIT_KEY"),
            (
                server(&[], &[("MCP_VEIL_VAULT_KEY", "x")]),
                "MCP_VEIL_VAULT_KEY",
            ),
            (server(&["A=B"], &[]), "A=B"),
        ] {
            let err = check([("fs", &bad)], &secrets).unwrap_err();
            assert!(err.contains("server `fs`") && err.contains(named), "{err}");
        }
    }

    #[test]
    fn a_secret_source_cannot_be_an_inherited_variable() {
        let secrets = secret_sources([], ["HOME"]);
        let err = check([], &secrets).unwrap_err();
        assert!(err.contains("`HOME`"), "{err}");
        // The layer's own names are secrets by construction.
        assert!(check([], &secret_sources([], ["MCP_VEIL_TOKEN"])).is_ok());
    }
}
