//! The seam for data-flow policy: one decision per outbound message.
//!
//! Before anything goes back to a server, the interceptor describes the outbound message as an
//! [`Outbound`]: where it goes (`server`, the tool, URI or prompt, and whether it is a tool
//! call), every token occurrence in it (the token, its vault entry with kind and origin, the
//! JSON path of the string that holds it) and, for tool calls, every piece of raw PII the
//! model wrote itself (kind and path, found by the engine's detector). A [`FlowPolicy`]
//! answers with one [`Verdict`]: the call as a whole proceeds, needs the user's confirmation,
//! or is denied ([`CallVerdict`]), plus one decision per token and per raw value, in the same
//! order. The interceptor applies it: a restored token becomes its value, a kept one stays as
//! text, a tokenized raw value becomes a fresh token; a confirmation is asked through MCP
//! elicitation (see `super::confirm`); a denial stops the whole message and the host gets an
//! error naming rules and tokens, never values.
//!
//! Two policies are built in: [`crate::policy::Policy`] (the `flows:` and `tools:` sections,
//! what `mcp-veil proxy` uses) and [`RestoreKnown`] (restore every token the session minted; a
//! token it never minted denies the call, or stays as text with `pass_unknown`). Server
//! annotations (`readOnlyHint` ...) are not part of [`Outbound`]: they cannot grant anything.

use std::fmt;
use std::sync::Arc;

use crate::detect::Kind;
use crate::policy::{
    Action, CallVerdict, Cause, Concern, Decision, Denial, Policy, RawAction, RawDecision, Subject,
};
use crate::token::Token;
use crate::vault::Entry;

/// One token occurrence in an outbound message.
#[derive(Debug, Clone, Copy)]
pub struct TokenUse<'a> {
    /// The token as written.
    pub token: &'a Token,
    /// What the session knows about it (`None`: this session never minted it).
    pub entry: Option<&'a Entry>,
    /// The dotted JSON path of the string holding it within the outbound member.
    pub path: &'a str,
}

/// Raw PII the model wrote itself into a tool call's arguments (not a token).
#[derive(Debug, Clone, Copy)]
pub struct RawUse<'a> {
    /// What the detector took it for.
    pub kind: &'a Kind,
    /// The dotted JSON path of the argument string holding it.
    pub path: &'a str,
}

/// One outbound message, as the policy sees it.
#[derive(Debug, Clone, Copy)]
pub struct Outbound<'a> {
    /// The upstream server's name (`--name`, derived from the command, or the gateway's key).
    pub server: &'a str,
    /// The tool (for a `tools/call`), else `resources/read`, `prompts/get`, `sampling` or
    /// `elicitation` (the host's reply to a server's request).
    pub name: &'a str,
    /// Whether this is a `tools/call` (tool policy applies, raw values are looked for).
    pub tool_call: bool,
    /// Every token occurrence, in document order.
    pub tokens: &'a [TokenUse<'a>],
    /// Every raw value, in document order (tool calls only).
    pub raw: &'a [RawUse<'a>],
}

/// The policy's answer for one outbound message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// For the message as a whole.
    pub call: CallVerdict,
    /// One per [`Outbound::tokens`] entry: restore, keep (or deny / confirm, which the call
    /// verdict already accounts for).
    pub tokens: Vec<Decision>,
    /// One per [`Outbound::raw`] entry.
    pub raw: Vec<RawDecision>,
}

/// Decides what an outbound message may carry to its destination.
pub trait FlowPolicy: Send + Sync + fmt::Debug {
    /// The verdict for one outbound message.
    fn check(&self, call: &Outbound<'_>) -> Verdict;

    /// Whether raw values in tool call arguments can change anything (otherwise the
    /// interceptor looks for them only when it audits).
    fn acts_on_raw(&self) -> bool {
        false
    }

    /// Whether `tools/list` may show `server`'s `tool` to the host.
    fn tool_listed(&self, _server: &str, _tool: &str) -> bool {
        true
    }

    /// Whether [`FlowPolicy::tool_listed`] can ever say no (so lists need filtering).
    fn hides_tools(&self) -> bool {
        false
    }
}

/// Restores every token the session minted; unknown tokens deny (or pass with `pass_unknown`).
/// Raw values are sent as written; no tool is hidden.
#[derive(Debug, Clone, Copy, Default)]
pub struct RestoreKnown {
    /// Leave tokens this session never minted as text instead of refusing the message.
    pub pass_unknown: bool,
}

impl FlowPolicy for RestoreKnown {
    fn check(&self, call: &Outbound<'_>) -> Verdict {
        let mut concerns = Vec::new();
        let tokens = call
            .tokens
            .iter()
            .map(|t| {
                let action = match (t.entry, self.pass_unknown) {
                    (Some(_), _) => Action::Restore,
                    (None, true) => Action::Keep,
                    (None, false) => {
                        concerns.push(Concern {
                            subject: Subject::Unknown(t.token.clone()),
                            origin: None,
                            arg_path: Box::from(t.path),
                            cause: Cause::UnknownTokens,
                        });
                        Action::Deny
                    }
                };
                Decision { action, rule: None }
            })
            .collect();
        let raw = call
            .raw
            .iter()
            .map(|_| RawDecision {
                action: RawAction::Allow,
                rule: None,
            })
            .collect();
        let call = if concerns.is_empty() {
            CallVerdict::Proceed
        } else {
            CallVerdict::Deny(Denial {
                destination: Arc::from(format!("{}/{}", call.server, call.name)),
                concerns,
            })
        };
        Verdict { call, tokens, raw }
    }
}

impl FlowPolicy for Policy {
    fn check(&self, call: &Outbound<'_>) -> Verdict {
        let mut check = if call.tool_call {
            self.check_call(call.server, call.name)
        } else {
            self.check_flow(call.server, call.name)
        };
        let tokens = call
            .tokens
            .iter()
            .map(|t| match t.entry {
                Some(entry) => check.token(t.token, &entry.origin, t.path),
                None => check.unknown_token(t.token, t.path),
            })
            .collect();
        let raw = call.raw.iter().map(|r| check.raw(r.kind, r.path)).collect();
        Verdict {
            call: check.finish(),
            tokens,
            raw,
        }
    }

    fn acts_on_raw(&self) -> bool {
        Policy::acts_on_raw(self)
    }

    fn tool_listed(&self, server: &str, tool: &str) -> bool {
        Policy::tool_listed(self, server, tool)
    }

    fn hides_tools(&self) -> bool {
        Policy::hides_tools(self)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::Config;

    fn call<'a>(name: &'a str, tokens: &'a [TokenUse<'a>], raw: &'a [RawUse<'a>]) -> Outbound<'a> {
        Outbound {
            server: "mail",
            name,
            tool_call: true,
            tokens,
            raw,
        }
    }

    #[test]
    fn unknown_tokens_deny_unless_passed() {
        let token = Token::new(Kind::Email, 9);
        let uses = [TokenUse {
            token: &token,
            entry: None,
            path: "to",
        }];
        let v = RestoreKnown::default().check(&call("send", &uses, &[]));
        match v.call {
            CallVerdict::Deny(d) => assert_eq!(
                d.to_string(),
                "call to mail/send denied: [EMAIL_9] is not a token of this session in argument `to` (flows.unknown_tokens)"
            ),
            other => panic!("{other:?}"),
        }
        let v = RestoreKnown { pass_unknown: true }.check(&call("send", &uses, &[]));
        assert_eq!(v.call, CallVerdict::Proceed);
        assert_eq!(v.tokens[0].action, Action::Keep);
    }

    #[test]
    fn the_policy_decides_tokens_raw_values_and_tools_in_one_verdict() {
        let yaml = "flows:\n  rules:\n    - name: mail-ok\n      kinds: [EMAIL]\n      from: crm/*\n      to: mail/send\n      action: allow\n      raw: tokenize\n    - name: ask\n      to: mail/draft\n      action: confirm\ntools:\n  - match: mail/delete\n    action: deny\n";
        let policy =
            Policy::from_config(&Config::parse(yaml, Path::new("p.yaml")).unwrap()).unwrap();
        let token = Token::new(Kind::Email, 1);
        let entry = Entry {
            token: token.clone(),
            value: crate::Sensitive::new("a@example.com".to_string()),
            origin: Arc::from("crm/get"),
            created: std::time::SystemTime::now(),
        };
        let uses = [TokenUse {
            token: &token,
            entry: Some(&entry),
            path: "to",
        }];
        let raw = [RawUse {
            kind: &Kind::Email,
            path: "cc",
        }];
        let v = policy.check(&call("send", &uses, &raw));
        assert_eq!(v.call, CallVerdict::Proceed);
        assert_eq!(v.tokens[0].action, Action::Restore);
        assert_eq!(v.raw[0].action, RawAction::Tokenize);
        assert_eq!(v.raw[0].rule.as_deref(), Some("mail-ok"));
        let v = policy.check(&call("draft", &uses, &[]));
        assert!(matches!(v.call, CallVerdict::Confirm(_)));
        // The tool policy denies a call with nothing in it, and hides the tool.
        assert!(matches!(
            policy.check(&call("delete", &[], &[])).call,
            CallVerdict::Deny(_)
        ));
        assert!(!FlowPolicy::tool_listed(&policy, "mail", "delete"));
        assert!(FlowPolicy::hides_tools(&policy));
        assert!(FlowPolicy::acts_on_raw(&policy));
        // Not a tool call: no tool policy.
        let read = Outbound {
            tool_call: false,
            ..call("delete", &[], &[])
        };
        assert_eq!(policy.check(&read).call, CallVerdict::Proceed);
    }
}
