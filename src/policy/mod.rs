//! Data-flow rules and host-side tool policy: may this restored value go to that tool?
//!
//! Every token the vault mints remembers its kind and its origin (`server/tool` or
//! `server/resource`). When an outbound `tools/call` would restore a token, a [`Policy`] built
//! once from the `flows:` and `tools:` sections decides what happens to it; the interceptor
//! applies the decision. Nothing here does I/O or knows MCP message shapes: callers pass kinds,
//! origins, destinations and argument paths, and get explicit outcomes back.
//!
//! # The API
//!
//! - [`Policy::from_config`] validates and compiles the rules (every glob compiled here, once);
//!   [`compile`] does the same with errors that name the file.
//! - [`Policy::decide_token`]`(kind, origin, destination, arg_path)` → [`Decision`] for a token
//!   the session minted; [`Policy::decide_unknown`] for one it never minted;
//!   [`Policy::decide_raw`]`(kind, destination, arg_path)` → [`RawDecision`] for raw PII the
//!   model wrote itself; [`Policy::tool_action`]`(server, tool)` → [`ToolAction`].
//! - For a whole call, [`Policy::check_call`] returns a [`CallCheck`] that keeps only the rules
//!   whose `to:` matches the destination (so each token costs a walk over those only), records
//!   every decision, and [`CallCheck::finish`]es into one [`CallVerdict`]: any deny denies the
//!   call, otherwise any confirm yields one [`Confirmation`] naming kinds, origins, destination
//!   and rules, otherwise the call proceeds.
//!
//! ```
//! use std::path::Path;
//! use mcp_veil::config::Config;
//! use mcp_veil::policy::{Action, CallVerdict, Policy};
//! use mcp_veil::token::Token;
//! use mcp_veil::Kind;
//!
//! let yaml = "flows:\n  rules:\n    - name: nothing-to-search\n      to: web/*\n      action: deny\n";
//! let policy = Policy::from_config(&Config::parse(yaml, Path::new("x.yaml")).unwrap()).unwrap();
//!
//! // One outbound call: `web/search` with `{"q": "[EMAIL_1]"}`, where the vault says
//! // [EMAIL_1] was minted from `crm/get_contact`.
//! let mut call = policy.check_call("web", "search");
//! let d = call.token(&Token::new(Kind::Email, 1), "crm/get_contact", "q");
//! assert_eq!(d.action, Action::Deny);
//! match call.finish() {
//!     CallVerdict::Deny(denial) => assert_eq!(
//!         denial.to_string(),
//!         "call to web/search denied: [EMAIL_1] (EMAIL) from crm/get_contact in argument `q` (rule `nothing-to-search`)"
//!     ),
//!     other => panic!("{other:?}"),
//! }
//! ```
//!
//! # Precedence (tested in this module)
//!
//! 1. **Tool policy first.** The first `tools[]` entry whose `match` glob matches `server/tool`
//!    decides: `deny` denies the call outright (and the tool is hidden from `tools/list`),
//!    `confirm` adds a confirmation, `allow` (or no entry) lets the flow rules run.
//! 2. **Unknown tokens** (token-shaped text the session never minted) are not subject to rules,
//!    which need a kind and an origin the vault does not have: `flows.unknown_tokens` decides
//!    (`deny` denies the call, `pass` sends the text unchanged).
//! 3. **Known tokens:** rules are tried in file order; the first rule whose every given
//!    condition holds decides (`kinds` contains the token's kind, `from` matches its origin,
//!    `to` matches the destination, one of `args` matches the argument path). No rule matches:
//!    `flows.default`. A rule without `kinds` covers every kind **except `LITERAL`**: a
//!    `[LITERAL_N]` token stands for token-shaped text a server sent (see [`crate::token`]),
//!    not for personal data, so it is restored unless a rule names `LITERAL` explicitly.
//! 4. **Raw values** (PII the model wrote into arguments itself, found by the detector): rules
//!    are tried in file order, ignoring `from` (a raw value has no origin) and skipping rules
//!    without a `raw:` setting; the first whose `kinds`, `to` and `args` match decides with
//!    its `raw:`. None: `flows.raw`. A rule's `action` never applies to raw values, so a
//!    "no PII to web search" rule sets `raw: deny` as well (see `rules/no-pii-to-web-search.yaml`).
//! 5. **The call:** any deny (tool policy, unknown token, rule, default, raw) denies the whole
//!    call, naming the first denying rule; otherwise any confirm (tool policy, rule or default)
//!    asks once for the whole call; otherwise each token gets its own decision (restore or
//!    keep) and each raw value its own (send or tokenize).
//!
//! Server-supplied tool annotations (`readOnlyHint`, `destructiveHint` ...) are deliberately not
//! an input anywhere in this API: a server cannot grant itself anything by describing its tool.
//!
//! Deny and confirmation messages name rules, token names, kinds, origins, destinations and
//! argument paths; this module never sees a value, so it cannot leak one.
//!
//! Globs: see [`glob`]. Configuration types: see [`config`].

mod check;
mod compile;
pub use crate::config::policy as config;
/// The glob dialects (they live below `config` and `policy`: `crate::glob`).
pub mod glob {
    pub use crate::glob::*;
}
mod verdict;

use std::fmt;
use std::sync::Arc;

use crate::config::Config;
use crate::detect::Kind;
use crate::token::Token;

pub use crate::glob::{GlobError, NameGlob, PathGlob};
pub use check::{CheckError, check_file, check_text, compile};
pub use config::{
    FlowAction, FlowsConfig, RawAction, RuleConfig, ToolAction, ToolRuleConfig, UnknownTokens,
};
pub use verdict::{CallVerdict, Cause, Concern, Confirmation, Denial, Subject};

/// What happens to one token in an outbound call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Replace the token with its real value.
    Restore,
    /// Send the token text unchanged.
    Keep,
    /// Block the whole call.
    Deny,
    /// Ask the user; restore if they agree, otherwise block the call.
    Confirm,
}

impl Action {
    fn from_flow(a: FlowAction) -> Action {
        match a {
            FlowAction::Allow => Action::Restore,
            FlowAction::Keep => Action::Keep,
            FlowAction::Deny => Action::Deny,
            FlowAction::Confirm => Action::Confirm,
        }
    }

    /// Whether a call check keeps a [`Concern`] for this action (deny and confirm do).
    fn needs_record(self) -> bool {
        matches!(self, Action::Deny | Action::Confirm)
    }

    /// A lower-case name (`restore`, `keep`, `deny`, `confirm`).
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Restore => "restore",
            Action::Keep => "keep",
            Action::Deny => "deny",
            Action::Confirm => "confirm",
        }
    }
}

/// A decision on one token and the rule that made it (`None`: a default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// What to do.
    pub action: Action,
    /// The deciding rule's name; `None` when `flows.default` or `flows.unknown_tokens` decided.
    pub rule: Option<Arc<str>>,
}

/// A decision on one raw value and the rule that made it (`None`: `flows.raw`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawDecision {
    /// What to do.
    pub action: RawAction,
    /// The deciding rule's name.
    pub rule: Option<Arc<str>>,
}

/// One compiled flow rule.
#[derive(Clone, Debug)]
struct Rule {
    name: Arc<str>,
    /// `None`: every kind but `LITERAL`.
    kinds: Option<Box<[Kind]>>,
    from: Option<NameGlob>,
    to: NameGlob,
    args: Option<Box<[PathGlob]>>,
    action: FlowAction,
    raw: Option<RawAction>,
}

impl Rule {
    fn kind_matches(&self, kind: &Kind) -> bool {
        match &self.kinds {
            Some(kinds) => kinds.contains(kind),
            None => *kind != Kind::Literal,
        }
    }

    fn args_match(&self, arg_path: &str) -> bool {
        self.args
            .as_ref()
            .is_none_or(|globs| globs.iter().any(|g| g.matches(arg_path)))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rule {}: kinds ", self.name)?;
        match &self.kinds {
            Some(k) => write!(f, "[{}]", join(k.iter()))?,
            None => f.write_str("all-but-LITERAL")?,
        }
        match &self.from {
            Some(g) => write!(f, ", from {g}")?,
            None => f.write_str(", from */*")?,
        }
        write!(f, ", to {}, args ", self.to)?;
        match &self.args {
            Some(a) => write!(f, "[{}]", join(a.iter()))?,
            None => f.write_str("all")?,
        }
        write!(f, ", action {}", self.action.as_str())?;
        if let Some(raw) = self.raw {
            write!(f, ", raw {}", raw.as_str())?;
        }
        Ok(())
    }
}

fn join<T: fmt::Display>(items: impl Iterator<Item = T>) -> String {
    items.map(|i| i.to_string()).collect::<Vec<_>>().join(", ")
}

/// One compiled `tools[]` entry.
#[derive(Clone, Debug)]
struct ToolRule {
    pattern: NameGlob,
    /// The glob as written, quoted in messages.
    source: Arc<str>,
    action: ToolAction,
}

/// One problem found while validating rules: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// 1-based line (0 when unknown).
    pub line: u64,
    /// 1-based column (0 when unknown).
    pub column: u64,
    /// What is wrong and what was expected.
    pub message: String,
}

/// The rules are invalid; every problem found is listed.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{}", render_issues(.issues))]
pub struct PolicyError {
    /// Each problem, in file order.
    pub issues: Vec<Issue>,
}

fn render_issues(issues: &[Issue]) -> String {
    issues
        .iter()
        .map(|i| format!("{}:{}: {}", i.line, i.column, i.message))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The compiled flow rules and tool policy. Cheap to share (`Arc` it); immutable.
#[derive(Clone, Debug)]
pub struct Policy {
    default: FlowAction,
    unknown: UnknownTokens,
    raw: RawAction,
    rules: Box<[Rule]>,
    tools: Box<[ToolRule]>,
}

impl Default for Policy {
    /// The policy of an empty configuration: restore everything, deny unknown tokens, send raw.
    fn default() -> Self {
        Policy::from_sections(&FlowsConfig::default(), &[], std::iter::empty())
            .expect("the empty policy is valid")
    }
}

impl Policy {
    /// Validates and compiles the `flows:` and `tools:` sections of a configuration. Kind names
    /// must be built in or defined under `detect.custom`.
    pub fn from_config(config: &Config) -> Result<Policy, PolicyError> {
        Policy::from_sections(
            &config.flows,
            &config.tools,
            config.detect.custom.iter().map(|c| c.kind.as_str()),
        )
    }

    /// Validates and compiles the two sections; `custom_kinds` are the extra valid kind names.
    pub fn from_sections<'a>(
        flows: &FlowsConfig,
        tools: &[ToolRuleConfig],
        custom_kinds: impl Iterator<Item = &'a str>,
    ) -> Result<Policy, PolicyError> {
        let custom: Vec<&str> = custom_kinds.collect();
        let mut issues = Vec::new();
        let rules = compile::rules(&flows.rules, &custom, &mut issues);
        let tools = compile::tools(tools, &mut issues);
        if !issues.is_empty() {
            return Err(PolicyError { issues });
        }
        Ok(Policy {
            default: flows.default,
            unknown: flows.unknown_tokens,
            raw: flows.raw,
            rules: rules.into(),
            tools: tools.into(),
        })
    }

    /// The decision for a token the session minted, of `kind`, first seen at `origin`
    /// (`server/tool`), bound for `destination` (`server/tool`) in argument `arg_path`.
    pub fn decide_token(
        &self,
        kind: &Kind,
        origin: &str,
        destination: &str,
        arg_path: &str,
    ) -> Decision {
        let (server, tool) = split(destination);
        self.decide_among(
            self.rules.iter().filter(|r| r.to.matches(server, tool)),
            kind,
            origin,
            arg_path,
        )
    }

    fn decide_among<'r>(
        &self,
        rules: impl Iterator<Item = &'r Rule>,
        kind: &Kind,
        origin: &str,
        arg_path: &str,
    ) -> Decision {
        let (origin_server, origin_name) = split(origin);
        for r in rules {
            if r.kind_matches(kind)
                && r.from
                    .as_ref()
                    .is_none_or(|g| g.matches(origin_server, origin_name))
                && r.args_match(arg_path)
            {
                return Decision {
                    action: Action::from_flow(r.action),
                    rule: Some(r.name.clone()),
                };
            }
        }
        let action = if *kind == Kind::Literal {
            Action::Restore
        } else {
            Action::from_flow(self.default)
        };
        Decision { action, rule: None }
    }

    /// The decision for a token the session never minted (`flows.unknown_tokens`).
    pub fn decide_unknown(&self) -> Decision {
        Decision {
            action: match self.unknown {
                UnknownTokens::Deny => Action::Deny,
                UnknownTokens::Pass => Action::Keep,
            },
            rule: None,
        }
    }

    /// The decision for raw PII of `kind` the model wrote into `arg_path` of a call to
    /// `destination` (see the precedence in the module documentation).
    pub fn decide_raw(&self, kind: &Kind, destination: &str, arg_path: &str) -> RawDecision {
        let (server, tool) = split(destination);
        self.decide_raw_among(
            self.rules.iter().filter(|r| r.to.matches(server, tool)),
            kind,
            arg_path,
        )
    }

    fn decide_raw_among<'r>(
        &self,
        rules: impl Iterator<Item = &'r Rule>,
        kind: &Kind,
        arg_path: &str,
    ) -> RawDecision {
        for r in rules {
            if let Some(raw) = r.raw
                && r.kind_matches(kind)
                && r.args_match(arg_path)
            {
                return RawDecision {
                    action: raw,
                    rule: Some(r.name.clone()),
                };
            }
        }
        RawDecision {
            action: self.raw,
            rule: None,
        }
    }

    /// The host-side policy for one tool: the first matching `tools[]` entry, else `allow`.
    /// `deny` means: hide it from `tools/list` and refuse calls.
    pub fn tool_action(&self, server: &str, tool: &str) -> ToolAction {
        self.tool_rule(server, tool)
            .map_or(ToolAction::Allow, |t| t.action)
    }

    /// Whether `tools/list` may show the tool (its tool action is not `deny`).
    pub fn tool_listed(&self, server: &str, tool: &str) -> bool {
        self.tool_action(server, tool) != ToolAction::Deny
    }

    fn tool_rule(&self, server: &str, tool: &str) -> Option<&ToolRule> {
        self.tools.iter().find(|t| t.pattern.matches(server, tool))
    }

    /// Starts checking one call to `server`/`tool`: applies the tool policy and keeps the
    /// rules whose `to:` matches, so each token and raw value costs a walk over those only.
    pub fn check_call<'p>(&'p self, server: &'p str, tool: &'p str) -> CallCheck<'p> {
        let candidates = self
            .rules
            .iter()
            .filter(|r| r.to.matches(server, tool))
            .collect();
        let mut check = CallCheck {
            policy: self,
            server,
            tool,
            candidates,
            denials: Vec::new(),
            confirms: Vec::new(),
        };
        if let Some(t) = self.tool_rule(server, tool) {
            let concern = Concern {
                subject: Subject::Tool,
                origin: None,
                arg_path: Box::from(""),
                cause: Cause::ToolPolicy(t.source.clone()),
            };
            match t.action {
                ToolAction::Allow => {}
                ToolAction::Deny => check.denials.push(concern),
                ToolAction::Confirm => check.confirms.push(concern),
            }
        }
        check
    }

    /// Starts checking a flow that is not a tool call (a `resources/read` URI, a prompt
    /// argument, the host's reply to a server's request) to `server`/`name`: like
    /// [`Policy::check_call`] without the tool policy.
    pub fn check_flow<'p>(&'p self, server: &'p str, name: &'p str) -> CallCheck<'p> {
        CallCheck {
            policy: self,
            server,
            tool: name,
            candidates: self
                .rules
                .iter()
                .filter(|r| r.to.matches(server, name))
                .collect(),
            denials: Vec::new(),
            confirms: Vec::new(),
        }
    }

    /// Whether raw values can change anything: `flows.raw` or some rule's `raw:` is not
    /// `allow` (otherwise a caller may skip detecting raw PII in arguments).
    pub fn acts_on_raw(&self) -> bool {
        self.raw != RawAction::Allow
            || self
                .rules
                .iter()
                .any(|r| r.raw.is_some_and(|a| a != RawAction::Allow))
    }

    /// Whether some `tools[]` entry denies (so `tools/list` results need filtering).
    pub fn hides_tools(&self) -> bool {
        self.tools.iter().any(|t| t.action == ToolAction::Deny)
    }

    /// The compiled rules, one normalised line each (for `rules check`).
    pub fn describe(&self) -> Vec<String> {
        let mut out = vec![format!(
            "flows: default {}, unknown_tokens {}, raw {}",
            self.default.as_str(),
            self.unknown.as_str(),
            self.raw.as_str()
        )];
        out.extend(self.rules.iter().map(|r| r.to_string()));
        out.extend(
            self.tools
                .iter()
                .map(|t| format!("tool {}: action {}", t.pattern, t.action.as_str())),
        );
        out
    }

    /// The number of flow rules.
    pub fn rule_count(&self) -> usize {
        self.rules.len()
    }
}

fn split(joined: &str) -> (&str, &str) {
    joined.split_once('/').unwrap_or((joined, ""))
}

/// The decisions of one outbound call, accumulated into a [`CallVerdict`].
#[derive(Debug)]
pub struct CallCheck<'p> {
    policy: &'p Policy,
    server: &'p str,
    tool: &'p str,
    candidates: Vec<&'p Rule>,
    denials: Vec<Concern>,
    confirms: Vec<Concern>,
}

impl CallCheck<'_> {
    /// Decides (and records) one known token of `kind` from `origin` in `arg_path`.
    pub fn token(&mut self, token: &Token, origin: &str, arg_path: &str) -> Decision {
        let d = self.policy.decide_among(
            self.candidates.iter().copied(),
            &token.kind,
            origin,
            arg_path,
        );
        if d.action.needs_record() {
            self.record(
                d.action,
                Subject::Token(token.clone()),
                Some(Arc::from(origin)),
                arg_path,
                d.rule.clone().map_or(Cause::Default, Cause::Rule),
            );
        }
        d
    }

    /// Decides (and records) a token the session never minted.
    pub fn unknown_token(&mut self, token: &Token, arg_path: &str) -> Decision {
        let d = self.policy.decide_unknown();
        if d.action.needs_record() {
            self.record(
                d.action,
                Subject::Unknown(token.clone()),
                None,
                arg_path,
                Cause::UnknownTokens,
            );
        }
        d
    }

    /// Decides (and records) raw PII of `kind` the model wrote into `arg_path`.
    pub fn raw(&mut self, kind: &Kind, arg_path: &str) -> RawDecision {
        let d = self
            .policy
            .decide_raw_among(self.candidates.iter().copied(), kind, arg_path);
        if d.action == RawAction::Deny {
            self.denials.push(Concern {
                subject: Subject::Raw(kind.clone()),
                origin: None,
                arg_path: Box::from(arg_path),
                cause: d.rule.clone().map_or(Cause::RawDefault, Cause::Rule),
            });
        }
        d
    }

    fn record(
        &mut self,
        action: Action,
        subject: Subject,
        origin: Option<Arc<str>>,
        arg_path: &str,
        cause: Cause,
    ) {
        let list = match action {
            Action::Deny => &mut self.denials,
            Action::Confirm => &mut self.confirms,
            Action::Restore | Action::Keep => return,
        };
        list.push(Concern {
            subject,
            origin,
            arg_path: Box::from(arg_path),
            cause,
        });
    }

    /// The verdict for the whole call: any deny denies it; otherwise any confirm asks once.
    pub fn finish(self) -> CallVerdict {
        let destination = || -> Arc<str> { Arc::from(format!("{}/{}", self.server, self.tool)) };
        if !self.denials.is_empty() {
            CallVerdict::Deny(Denial {
                destination: destination(),
                concerns: self.denials,
            })
        } else if !self.confirms.is_empty() {
            CallVerdict::Confirm(Confirmation {
                destination: destination(),
                concerns: self.confirms,
            })
        } else {
            CallVerdict::Proceed
        }
    }
}

#[cfg(test)]
mod tests;
