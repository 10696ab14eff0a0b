//! Validating and compiling the YAML rules into [`Rule`]s and [`ToolRule`]s.
//!
//! Every problem is collected (not only the first) with the line and column of the offending
//! YAML node: unknown kind names, bad globs, duplicate or empty rule names, empty lists.

use std::sync::Arc;

use serde_saphyr::{Location, Spanned};

use super::config::{RuleConfig, ToolRuleConfig};
use super::{Issue, Rule, ToolRule};
use crate::detect::Kind;
use crate::glob::{NameGlob, PathGlob};

fn at(loc: &Location, message: String) -> Issue {
    Issue {
        line: loc.line(),
        column: loc.column(),
        message,
    }
}

/// Compiles the flow rules; rules with problems are reported in `issues` and left out.
pub(super) fn rules(configs: &[RuleConfig], custom: &[&str], issues: &mut Vec<Issue>) -> Vec<Rule> {
    let mut names: Vec<&str> = Vec::with_capacity(configs.len());
    let mut out = Vec::with_capacity(configs.len());
    for r in configs {
        let name = r.name.value.as_str();
        if name.trim().is_empty() {
            issues.push(at(
                &r.name.referenced,
                "empty rule name: expected a short unique name".into(),
            ));
        } else if names.contains(&name) {
            issues.push(at(
                &r.name.referenced,
                format!("duplicate rule name `{name}`: expected every rule name to be unique"),
            ));
        }
        names.push(name);
        if let Some(rule) = rule(r, name, custom, issues) {
            out.push(rule);
        }
    }
    out
}

/// Compiles one rule; `None` if any part of it is invalid (each problem is in `issues`).
fn rule(r: &RuleConfig, name: &str, custom: &[&str], issues: &mut Vec<Issue>) -> Option<Rule> {
    let before = issues.len();
    let kinds = r.kinds.as_ref().map(|ks| {
        if ks.is_empty() {
            issues.push(at(
                &r.name.referenced,
                format!(
                    "rule `{name}` has an empty `kinds` list: expected at least one kind, or no `kinds` key for every kind"
                ),
            ));
        }
        let mut out: Vec<Kind> = Vec::with_capacity(ks.len());
        for k in ks {
            if let Some(kind) = kind(k, name, custom, issues)
                && !out.contains(&kind)
            {
                out.push(kind);
            }
        }
        out.into_boxed_slice()
    });
    let from = r
        .from
        .as_ref()
        .and_then(|f| name_glob(f, "from", name, issues));
    let to = name_glob(&r.to, "to", name, issues);
    if r.args.as_ref().is_some_and(Vec::is_empty) {
        issues.push(at(
            &r.to.referenced,
            format!(
                "rule `{name}` has an empty `args` list: expected at least one argument path, or no `args` key for every argument"
            ),
        ));
    }
    let args = r.args.as_ref().map(|args| {
        args.iter()
            .filter_map(|a| {
                PathGlob::new(&a.value)
                    .map_err(|e| {
                        issues.push(at(
                            &a.referenced,
                            format!("bad `args` path in rule `{name}`: {e}"),
                        ))
                    })
                    .ok()
            })
            .collect::<Box<[PathGlob]>>()
    });
    if issues.len() > before {
        return None;
    }
    Some(Rule {
        name: Arc::from(name),
        kinds,
        from,
        to: to?,
        args,
        action: r.action,
        raw: r.raw,
    })
}

fn kind(k: &Spanned<String>, rule: &str, custom: &[&str], issues: &mut Vec<Issue>) -> Option<Kind> {
    let n = k.value.as_str();
    if Kind::BUILTIN.contains(&n) || custom.contains(&n) {
        return Some(Kind::from_name(n));
    }
    let also = if custom.is_empty() {
        " (or a kind defined under detect.custom)".to_string()
    } else {
        format!(", {}", custom.join(", "))
    };
    issues.push(at(
        &k.referenced,
        format!(
            "unknown kind `{n}` in rule `{rule}`: expected one of {}{also}",
            Kind::BUILTIN.join(", ")
        ),
    ));
    None
}

fn name_glob(
    s: &Spanned<String>,
    key: &str,
    rule: &str,
    issues: &mut Vec<Issue>,
) -> Option<NameGlob> {
    NameGlob::new(&s.value)
        .map_err(|e| {
            issues.push(at(
                &s.referenced,
                format!("bad `{key}` glob in rule `{rule}`: {e}"),
            ))
        })
        .ok()
}

/// Compiles the `tools[]` entries.
pub(super) fn tools(configs: &[ToolRuleConfig], issues: &mut Vec<Issue>) -> Vec<ToolRule> {
    configs
        .iter()
        .filter_map(|t| match NameGlob::new(&t.pattern.value) {
            Ok(pattern) => Some(ToolRule {
                pattern,
                source: Arc::from(t.pattern.value.as_str()),
                action: t.action,
            }),
            Err(e) => {
                issues.push(at(
                    &t.pattern.referenced,
                    format!("bad `match` glob in tools: {e}"),
                ));
                None
            }
        })
        .collect()
}
