//! The `flows:` and `tools:` sections of the configuration, as written in YAML.
//!
//! These types only describe the file; [`crate::policy::Policy::from_config`] validates them (kind names,
//! globs, duplicate rule names) and compiles them. Strings that can be wrong in ways serde cannot
//! see are [`Spanned`], so those errors point at their line and column too.

use serde::Deserialize;
use serde_saphyr::Spanned;

/// The `flows:` section: which restored values may go where.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FlowsConfig {
    /// What happens to a known token no rule matches.
    pub default: FlowAction,
    /// What happens to a token the session never minted.
    pub unknown_tokens: UnknownTokens,
    /// What happens to raw PII the model wrote itself into arguments, when no rule says.
    pub raw: RawAction,
    /// The rules, first match wins.
    pub rules: Vec<RuleConfig>,
}

impl Default for FlowsConfig {
    fn default() -> Self {
        FlowsConfig {
            default: FlowAction::Allow,
            unknown_tokens: UnknownTokens::Deny,
            raw: RawAction::Allow,
            rules: Vec::new(),
        }
    }
}

/// One `flows.rules[]` entry.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleConfig {
    /// Unique name, quoted in decisions, audit lines and deny messages.
    pub name: Spanned<String>,
    /// Kinds the rule applies to; absent: every kind except `LITERAL`.
    #[serde(default)]
    pub kinds: Option<Vec<Spanned<String>>>,
    /// Origin glob (`server/tool` or `server/resource`); absent: any origin.
    #[serde(default)]
    pub from: Option<Spanned<String>>,
    /// Destination glob (`server/tool`).
    pub to: Spanned<String>,
    /// Argument-path globs; absent: every argument.
    #[serde(default)]
    pub args: Option<Vec<Spanned<String>>>,
    /// What to do with a matching token.
    pub action: FlowAction,
    /// What to do with raw PII of a matching kind in a matching argument.
    #[serde(default)]
    pub raw: Option<RawAction>,
}

/// What a rule (or the default) does with a token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FlowAction {
    /// Restore the real value.
    Allow,
    /// Send the token text as is.
    Keep,
    /// Block the whole call.
    Deny,
    /// Ask the user first; restore if confirmed.
    Confirm,
}

/// What happens to tokens the session never minted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnknownTokens {
    /// Block the call.
    #[default]
    Deny,
    /// Send the token text as is.
    Pass,
}

/// What happens to raw PII the model wrote into arguments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RawAction {
    /// Send it.
    #[default]
    Allow,
    /// Block the call.
    Deny,
    /// Replace it with a token before sending.
    Tokenize,
}

/// One `tools[]` entry: host-side tool policy.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolRuleConfig {
    /// A `server/tool` glob.
    #[serde(rename = "match")]
    pub pattern: Spanned<String>,
    /// What to do with matching tools.
    pub action: ToolAction,
}

/// What the host may do with a tool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolAction {
    /// Listed and callable.
    #[default]
    Allow,
    /// Hidden from `tools/list` and refused if called.
    Deny,
    /// Listed; each call needs the user's confirmation.
    Confirm,
}

impl FlowAction {
    /// The YAML spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FlowAction::Allow => "allow",
            FlowAction::Keep => "keep",
            FlowAction::Deny => "deny",
            FlowAction::Confirm => "confirm",
        }
    }
}

impl RawAction {
    /// The YAML spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            RawAction::Allow => "allow",
            RawAction::Deny => "deny",
            RawAction::Tokenize => "tokenize",
        }
    }
}

impl ToolAction {
    /// The YAML spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolAction::Allow => "allow",
            ToolAction::Deny => "deny",
            ToolAction::Confirm => "confirm",
        }
    }
}

impl UnknownTokens {
    /// The YAML spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            UnknownTokens::Deny => "deny",
            UnknownTokens::Pass => "pass",
        }
    }
}
