//! The seam for data-flow policy: one decision per token occurrence in an outbound message.
//!
//! Before a value goes back to a server, the interceptor lists every token occurrence in the
//! outbound member (a `tools/call`'s `arguments`, `resources/read` / `prompts/get` params, the
//! host's reply to `sampling/createMessage` or `elicitation/create`) as an [`Occurrence`]: the
//! token, its vault entry (kind, origin, first seen), the destination (`server/tool`) and the
//! JSON path of the string that holds it. A [`FlowPolicy`] answers each with a [`Decision`].
//! The interceptor applies the answers: a restored token becomes its value, a kept one stays as
//! text, and one denial stops the whole message (the host gets an error naming the token, never
//! its value).
//!
//! [`RestoreKnown`] is the built-in policy: restore every token this session minted; a token it
//! never minted denies the call, or stays as text with `pass_unknown` (two stacked layers).
//! Richer rules (`flows:` in the configuration) plug in by implementing [`FlowPolicy`].

use std::fmt;

use crate::token::Token;
use crate::vault::Entry;

/// One token occurrence in an outbound message.
#[derive(Debug, Clone, Copy)]
pub struct Occurrence<'a> {
    /// The token as written.
    pub token: &'a Token,
    /// What the session knows about it (`None`: this session never minted it).
    pub entry: Option<&'a Entry>,
    /// Where the value would go: `server/tool` (or `server/resources/read`,
    /// `server/prompts/get`, `server/sampling`, `server/elicitation`).
    pub destination: &'a str,
    /// The dotted JSON path of the string holding the token within the outbound member.
    pub path: &'a str,
}

/// What to do with one occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Replace the token by its real value.
    Restore,
    /// Leave the token text as it is.
    Keep,
    /// Refuse the whole message. `reason` names tokens and rules, never values.
    Deny {
        /// Why, for the host (and the audit log).
        reason: String,
    },
}

/// Decides, per occurrence, whether a value may flow to its destination.
pub trait FlowPolicy: Send + Sync + fmt::Debug {
    /// The decision for one occurrence.
    fn decide(&self, occurrence: &Occurrence<'_>) -> Decision;
}

/// Restores every token the session minted; unknown tokens deny (or pass with `pass_unknown`).
#[derive(Debug, Clone, Copy, Default)]
pub struct RestoreKnown {
    /// Leave tokens this session never minted as text instead of refusing the message.
    pub pass_unknown: bool,
}

impl FlowPolicy for RestoreKnown {
    fn decide(&self, occurrence: &Occurrence<'_>) -> Decision {
        match (occurrence.entry, self.pass_unknown) {
            (Some(_), _) => Decision::Restore,
            (None, true) => Decision::Keep,
            (None, false) => Decision::Deny {
                reason: format!("{} is not a token of this session", occurrence.token),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::Kind;

    #[test]
    fn unknown_tokens_deny_unless_passed() {
        let token = Token::new(Kind::Email, 9);
        let occ = Occurrence {
            token: &token,
            entry: None,
            destination: "mail/send",
            path: "to",
        };
        assert_eq!(
            RestoreKnown::default().decide(&occ),
            Decision::Deny {
                reason: "[EMAIL_9] is not a token of this session".into()
            }
        );
        assert_eq!(
            RestoreKnown { pass_unknown: true }.decide(&occ),
            Decision::Keep
        );
    }
}
