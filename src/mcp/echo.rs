//! The echo guard: values restored to a server are tokenized again when they come back.
//!
//! The detector decides what is personal data in a result. But a value the layer itself restored
//! (the model wrote `[NAME_1]`, the server got `Maria Ortiz`) is known to be personal, and servers
//! echo what they are given: a memory server returns the entity it stored, a CRM returns the
//! record it updated, under keys and in shapes the detector may not recognise. So the
//! interceptor remembers every value it restored (with its token) and, after the detector has
//! run, replaces any remaining occurrence of one inside a JSON string of an inbound member by
//! its token.
//!
//! Matching is exact on the value's JSON-escaped text, at word boundaries (`Ann` does not match
//! in `Annual`), case-sensitive, and only inside string literals (never numbers or structure).
//! Values shorter than [`MIN_LEN`] bytes and `LITERAL` values (forged tokens) are not guarded.
//! The automaton is rebuilt only when a new value is restored (the outbound path); inbound, a
//! message costs one Aho-Corasick scan, and nothing when no value was ever restored.
//!
//! Kept tokens: a token a flow rule `keep`s reaches the server as its own text (`[NAME_1]`).
//! A server that stores it and returns it sends back token-shaped text, which the detector
//! neutralises as a `LITERAL` like any token it did not mint. For a token this session kept,
//! that would cut the model's link to `[NAME_1]`, so [`EchoGuard::kept_back`] puts the token
//! back in place of its literal. Forged token text (never kept) stays a literal.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, RwLock};

use aho_corasick::{AhoCorasick, MatchKind};

use crate::detect::Kind;
use crate::token::Token;
use crate::walk::{FoundValues, json};

/// The shortest value guarded, in bytes.
pub(crate) const MIN_LEN: usize = 3;
/// The most values guarded per session (the oldest are not dropped; new ones are ignored).
const MAX_VALUES: usize = 10_000;

#[derive(Debug)]
struct Compiled {
    automaton: AhoCorasick,
    /// Token text per pattern.
    tokens: Vec<String>,
}

/// Restored values and their tokens, for one session.
#[derive(Debug, Default)]
pub(crate) struct EchoGuard {
    /// (JSON-escaped value, token text), in insertion order.
    values: Mutex<Vec<(String, String)>>,
    compiled: RwLock<Option<Arc<Compiled>>>,
    /// Token texts this session sent to a server as themselves (`keep`).
    kept: Mutex<HashSet<String>>,
}

impl EchoGuard {
    /// Remembers that `value` was restored for `token`, written `text` when tokenized (the
    /// token with its revealed part, if its kind reveals one), so an echo reads as the value
    /// did when it first came in.
    pub(crate) fn remember(&self, value: &str, token: &Token, text: &str) {
        if value.len() < MIN_LEN || token.kind == Kind::Literal {
            return;
        }
        let escaped = escape(value);
        let mut values = self.values.lock().unwrap_or_else(|e| e.into_inner());
        if values.len() >= MAX_VALUES || values.iter().any(|(v, _)| *v == escaped) {
            return;
        }
        values.push((escaped, text.to_string()));
        let Ok(automaton) = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(values.iter().map(|(v, _)| v.as_str()))
        else {
            tracing::error!("echo guard: cannot build the automaton; keeping the previous one");
            return;
        };
        let compiled = Compiled {
            automaton,
            tokens: values.iter().map(|(_, t)| t.clone()).collect(),
        };
        *self.compiled.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(compiled));
    }

    /// Remembers that `token` (one this session minted) was sent to a server as its own text.
    pub(crate) fn keep(&self, token: &Token) {
        if token.kind == Kind::Literal {
            return;
        }
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() < MAX_VALUES {
            kept.insert(token.to_string());
        }
    }

    /// `text` (just tokenized: `found` and `tokens` parallel) with the literal minted for a kept
    /// token's text replaced by that token; `None` when there is none.
    pub(crate) fn kept_back(
        &self,
        text: &str,
        found: &FoundValues,
        tokens: &[Token],
    ) -> Option<String> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if kept.is_empty() {
            return None;
        }
        let mut back: Vec<(String, &str)> = Vec::new();
        for (f, t) in found.iter().zip(tokens) {
            let value = *f.value.expose();
            if *f.kind == Kind::Literal && kept.contains(value) {
                let literal = t.to_string();
                if !back.iter().any(|(l, _)| *l == literal) {
                    back.push((literal, value));
                }
            }
        }
        if back.is_empty() {
            return None;
        }
        // The vault gives one literal per value, and token text ends in `]`: every occurrence
        // of `[LITERAL_n]` in the output stands for that value, and no other token contains it.
        let mut out = text.to_string();
        for (literal, token) in back {
            out = out.replace(&literal, token);
        }
        Some(out)
    }

    /// `member` (a JSON document) with guarded values inside string literals replaced by their
    /// tokens; `None` when there is nothing to replace.
    pub(crate) fn apply(&self, member: &str) -> Option<String> {
        let compiled = self
            .compiled
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()?;
        compiled.automaton.find(member)?;
        let bytes = member.as_bytes();
        let mut replacements: Vec<(usize, usize, usize)> = Vec::new();
        let mut literals: Vec<(usize, usize)> = Vec::new();
        json::for_each_string(member, |lit, _| literals.push((lit.start + 1, lit.end - 1))).ok()?;
        for (start, end) in literals {
            for m in compiled.automaton.find_iter(&member[start..end]) {
                let (s, e) = (start + m.start(), start + m.end());
                if at_boundary(bytes, s, true) && at_boundary(bytes, e, false) {
                    replacements.push((s, e, m.pattern().as_usize()));
                }
            }
        }
        if replacements.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(member.len());
        let mut last = 0;
        for (s, e, pattern) in replacements {
            out.push_str(&member[last..s]);
            out.push_str(&compiled.tokens[pattern]);
            last = e;
        }
        out.push_str(&member[last..]);
        Some(out)
    }
}

/// The text of `value` as it appears inside a JSON string.
fn escape(value: &str) -> String {
    let quoted = serde_json::Value::String(value.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

/// Whether a match may start (`start`) or end at byte `at`: no letter or digit joins it there.
/// An escape such as `\n` just before the match counts as a boundary.
fn at_boundary(bytes: &[u8], at: usize, start: bool) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b >= 0x80;
    if start {
        match at.checked_sub(1).map(|i| bytes[i]) {
            None => true,
            Some(b) if !word(b) => true,
            Some(_) => at >= 2 && bytes[at - 2] == b'\\',
        }
    } else {
        bytes.get(at).is_none_or(|&b| !word(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remember(g: &EchoGuard, value: &str, token: Token) {
        g.remember(value, &token, &token.to_string());
    }

    fn guard() -> EchoGuard {
        let g = EchoGuard::default();
        remember(&g, "Maria Ortiz", Token::new(Kind::Name, 1));
        remember(&g, "Ann", Token::new(Kind::Name, 2));
        remember(&g, "a\"b", Token::new(Kind::from_name("QUOTED"), 1));
        remember(&g, "[EMAIL_1]", Token::new(Kind::Literal, 1));
        remember(&g, "42", Token::new(Kind::from_name("SHORT"), 1));
        g
    }

    #[test]
    fn replaces_echoed_values_in_strings_only() {
        let g = guard();
        let doc =
            r#"{"name":"Maria Ortiz","note":"Ann met Maria Ortiz.\nAnn","n":42,"q":"x a\"b y"}"#;
        assert_eq!(
            g.apply(doc).unwrap(),
            r#"{"name":"[NAME_1]","note":"[NAME_2] met [NAME_1].\n[NAME_2]","n":42,"q":"x [QUOTED_1] y"}"#
        );
    }

    #[test]
    fn kept_tokens_come_back_as_themselves_forged_ones_stay_literals() {
        let g = EchoGuard::default();
        let mut found = FoundValues::new();
        found.push(Kind::Literal, "[NAME_1]", None);
        found.push(Kind::Literal, "[NAME_9]", None);
        let tokens = [Token::new(Kind::Literal, 1), Token::new(Kind::Literal, 2)];
        let text = r#"{"e":"[LITERAL_1] and [LITERAL_2]","f":"[LITERAL_1]"}"#;
        assert_eq!(g.kept_back(text, &found, &tokens), None);
        g.keep(&Token::new(Kind::Name, 1));
        assert_eq!(
            g.kept_back(text, &found, &tokens).unwrap(),
            r#"{"e":"[NAME_1] and [LITERAL_2]","f":"[NAME_1]"}"#
        );
    }

    #[test]
    fn an_echo_is_written_as_the_value_was_first_tokenized() {
        let g = EchoGuard::default();
        let token = Token::new(Kind::Email, 1);
        g.remember("ann@example.com", &token, "[EMAIL_1 @example.com]");
        assert_eq!(
            g.apply(r#"{"to":"ann@example.com"}"#).unwrap(),
            r#"{"to":"[EMAIL_1 @example.com]"}"#
        );
    }

    #[test]
    fn respects_word_boundaries_and_skips_literals_and_short_values() {
        let g = guard();
        for doc in [
            r#"{"a":"Annual report by Annette"}"#,
            r#"{"a":"see [EMAIL_1]"}"#,
            r#"{"a":"answer 42"}"#,
            r#"{"Maria Ortizson":1}"#,
        ] {
            assert_eq!(g.apply(doc), None, "{doc}");
        }
        assert_eq!(EchoGuard::default().apply(r#"{"a":"Maria Ortiz"}"#), None);
    }
}
