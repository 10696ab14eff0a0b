//! The outcome of checking one call: proceed, one confirmation, or a denial.
//!
//! A [`Denial`] or [`Confirmation`] lists its [`Concern`]s: what (a token, an unknown token,
//! a raw value's kind, the tool itself), from where, in which argument, and why (which rule or
//! default). Their messages are built from those names only; no value ever reaches this module,
//! and names from the wire (destination, origin, argument path) are written through [`Shown`], so
//! a tool or an argument key that holds a value is named by its length.

use std::fmt;
use std::sync::Arc;

use crate::detect::Kind;
use crate::shown::Shown;
use crate::token::Token;

/// What a concern is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A token the session minted.
    Token(Token),
    /// A token-shaped string the session never minted.
    Unknown(Token),
    /// Raw PII of this kind that the model wrote itself.
    Raw(Kind),
    /// The tool as a whole (tool policy).
    Tool,
}

impl Subject {
    /// The kind involved, if any.
    pub fn kind(&self) -> Option<&Kind> {
        match self {
            Subject::Token(t) | Subject::Unknown(t) => Some(&t.kind),
            Subject::Raw(k) => Some(k),
            Subject::Tool => None,
        }
    }
}

/// Why a concern arose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// A named flow rule.
    Rule(Arc<str>),
    /// `flows.default` (no rule matched).
    Default,
    /// `flows.unknown_tokens`.
    UnknownTokens,
    /// `flows.raw` (no rule with `raw:` matched).
    RawDefault,
    /// A `tools[]` entry; holds its `match` glob as written.
    ToolPolicy(Arc<str>),
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cause::Rule(r) => write!(f, "rule `{r}`"),
            Cause::Default => f.write_str("flows.default"),
            Cause::UnknownTokens => f.write_str("flows.unknown_tokens"),
            Cause::RawDefault => f.write_str("flows.raw"),
            Cause::ToolPolicy(p) => write!(f, "tool policy `{p}`"),
        }
    }
}

/// One reason a call is denied or needs confirmation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Concern {
    /// What it is about.
    pub subject: Subject,
    /// Where the value was first seen (`server/tool`), for minted tokens.
    pub origin: Option<Arc<str>>,
    /// The argument path it sits in (empty for the tool itself).
    pub arg_path: Box<str>,
    /// The rule or default that decided.
    pub cause: Cause,
}

impl fmt::Display for Concern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.subject {
            Subject::Tool => return write!(f, "{} covers this tool", self.cause),
            Subject::Token(t) => write!(f, "{t} ({})", t.kind)?,
            Subject::Unknown(t) => write!(f, "{t} is not a token of this session")?,
            Subject::Raw(k) => write!(f, "raw {k} written by the model")?,
        }
        if let Some(o) = &self.origin {
            write!(f, " from {}", Shown(o))?;
        }
        if !self.arg_path.is_empty() {
            write!(f, " in argument `{}`", Shown(&self.arg_path))?;
        }
        write!(f, " ({})", self.cause)
    }
}

/// The verdict on a whole call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallVerdict {
    /// Go ahead; apply each token's and raw value's own decision.
    Proceed,
    /// Ask the user once; on yes, restore the confirmed tokens and proceed; on no, deny.
    Confirm(Confirmation),
    /// Block the call; answer the host with [`Denial`]'s message.
    Deny(Denial),
}

/// Why a call is blocked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Denial {
    /// `server/tool`.
    pub destination: Arc<str>,
    /// Every denying concern, in the order they were checked (tool policy first).
    pub concerns: Vec<Concern>,
}

impl Denial {
    /// The first denying rule's name (`None` when a default or the tool policy denied).
    pub fn rule(&self) -> Option<&str> {
        self.concerns.iter().find_map(|c| match &c.cause {
            Cause::Rule(r) => Some(&**r),
            _ => None,
        })
    }

    /// Token names concerned, deduplicated, in order.
    pub fn tokens(&self) -> Vec<&Token> {
        tokens_of(&self.concerns)
    }
}

impl fmt::Display for Denial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "call to {} denied: ", Shown(&self.destination))?;
        for (i, c) in self.concerns.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// What the user is asked to approve: one question for the whole call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confirmation {
    /// `server/tool`.
    pub destination: Arc<str>,
    /// Every concern that asks for confirmation.
    pub concerns: Vec<Concern>,
}

impl Confirmation {
    /// The kinds concerned, deduplicated, in order.
    pub fn kinds(&self) -> Vec<&Kind> {
        let mut out: Vec<&Kind> = Vec::new();
        for k in self.concerns.iter().filter_map(|c| c.subject.kind()) {
            if !out.contains(&k) {
                out.push(k);
            }
        }
        out
    }

    /// The origins concerned, deduplicated, in order.
    pub fn origins(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for o in self.concerns.iter().filter_map(|c| c.origin.as_deref()) {
            if !out.contains(&o) {
                out.push(o);
            }
        }
        out
    }

    /// The causes (rules, defaults, tool policy), deduplicated, in order.
    pub fn causes(&self) -> Vec<&Cause> {
        let mut out: Vec<&Cause> = Vec::new();
        for c in self.concerns.iter().map(|c| &c.cause) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
        out
    }

    /// Token names concerned, deduplicated, in order.
    pub fn tokens(&self) -> Vec<&Token> {
        tokens_of(&self.concerns)
    }
}

impl fmt::Display for Confirmation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kinds = self.kinds();
        if kinds.is_empty() {
            write!(f, "call {}", Shown(&self.destination))?;
        } else {
            let tokens = self.tokens();
            write!(f, "send {}", join(&kinds))?;
            if !tokens.is_empty() {
                write!(f, " ({})", join(&tokens))?;
            }
            let origins: Vec<Shown<'_>> = self.origins().into_iter().map(Shown).collect();
            if !origins.is_empty() {
                write!(f, " from {}", join(&origins))?;
            }
            write!(f, " to {}", Shown(&self.destination))?;
        }
        write!(f, "? required by {}", join(&self.causes()))
    }
}

fn tokens_of(concerns: &[Concern]) -> Vec<&Token> {
    let mut out: Vec<&Token> = Vec::new();
    for c in concerns {
        if let Subject::Token(t) | Subject::Unknown(t) = &c.subject
            && !out.contains(&t)
        {
            out.push(t);
        }
    }
    out
}

fn join<T: fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
