//! The outbound path: one policy verdict per message, then restore, keep, tokenize, ask or deny.
//!
//! For a `tools/call` (arguments), a `resources/read` or `prompts/get` (params) and the host's
//! reply to a server's `sampling/createMessage` or `elicitation/create` (result):
//!
//! 1. tokens in the member are resolved against the vault (one batched lookup); for tool calls
//!    raw PII the model wrote itself is found with the engine's detector (when the policy acts
//!    on raw values or the audit log is on; token-shaped text is left to step 1);
//! 2. the [`FlowPolicy`] gives one [`Verdict`] for the whole message;
//! 3. deny: nothing is forwarded, the host gets an error naming rules and tokens; confirm: the
//!    message is held and the user asked (see [`super::super::confirm`]); proceed: raw values to
//!    tokenize get tokens minted with origin `host/<server>/<tool>` (a value the model wrote,
//!    bound for that tool), then each token is restored or kept as decided;
//! 4. every step is audited (`restored`, `kept`, `denied`, `confirmed`, `unknown_token`,
//!    `raw_pii`), with rule names, token names and value fingerprints, never values.
//!
//! A raw value tokenized here and a token the model wrote for the same value in the same
//! string are indistinguishable after the rewrite; both then get the token's own decision
//! (restore or keep): the value goes only where a rule already lets that token go.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::value::RawValue;

use super::{HostRequest, INTERNAL_ERROR, INVALID_PARAMS, Interceptor, Outcome};
use crate::audit::{Direction, EventKind, Item};
use crate::engine::EngineError;
use crate::mcp::confirm::{self, Answer};
use crate::mcp::envelope::{self, Envelope, Raw};
use crate::mcp::flow::{Outbound, RawUse, TokenUse};
use crate::mcp::report::Site;
use crate::policy::{Action, CallVerdict, Cause, Confirmation, Denial, RawAction};
use crate::shown::Shown;
use crate::token::Token;
use crate::vault::MintRequest;
use crate::walk;

/// What kind of outbound message, for the answer on denial and what to remember on forward.
#[derive(Debug, Clone)]
pub(super) enum Shape {
    /// A `tools/call`: denials are `isError` results.
    Call(HostRequest),
    /// A `resources/read` or `prompts/get`: denials are JSON-RPC errors.
    Request(HostRequest),
    /// The host's reply to a server request: denials go to the server as errors.
    Reply,
}

/// One outbound message's context.
#[derive(Debug, Clone)]
pub(super) struct Out<'s> {
    pub server: &'s str,
    /// The JSON-RPC method (for the audit log).
    pub method: &'s str,
    /// The destination name for the policy: the tool, or `resources/read`, `prompts/get`,
    /// `sampling`, `elicitation`.
    pub name: &'s str,
    /// The tool, URI or prompt (for the audit log).
    pub subject: Option<&'s str>,
    /// The request id (JSON text).
    pub id: &'s str,
    pub shape: Shape,
}

impl Out<'_> {
    fn site(&self) -> Site<'_> {
        Site {
            server: self.server,
            method: self.method,
            name: self.subject,
            id: Some(self.id),
        }
    }

    fn destination(&self) -> String {
        format!("{}/{}", self.server, self.name)
    }
}

/// A message held until the user answers a confirmation request.
#[derive(Debug)]
pub(super) struct Held {
    server: Box<str>,
    method: Box<str>,
    name: Box<str>,
    subject: Option<Box<str>>,
    id: Box<str>,
    shape: Shape,
    /// The whole message as the host sent it.
    text: String,
    /// Where the checked member sits in `text` (`None`: a call without arguments).
    part: Option<std::ops::Range<usize>>,
    confirmation: Confirmation,
}

impl Held {
    /// The server the held message is bound for.
    pub(super) fn server(&self) -> &str {
        &self.server
    }

    /// The held request's own id (JSON text).
    pub(super) fn id(&self) -> &str {
        &self.id
    }
}

/// One token occurrence's action and deciding rule.
type Decided = (Action, Option<Arc<str>>);

/// Raw values found in arguments, with the path of each slot.
type RawScan = (walk::Findings<walk::FoundValue>, Vec<Box<str>>);

/// What the pipeline decided.
enum Step<'a> {
    Forward(Cow<'a, str>),
    Deny(String),
    Ask(Confirmation),
}

/// The audit log's `rule` for a cause: a rule's name, else the default or tool entry.
fn rule_of(cause: &Cause) -> Cow<'_, str> {
    match cause {
        Cause::Rule(r) => Cow::Borrowed(r),
        other => Cow::Owned(other.to_string()),
    }
}

impl Interceptor {
    /// Runs one outbound message through the policy and returns what to do with it.
    pub(super) async fn outbound<'a>(
        &self,
        out: Out<'_>,
        whole: &'a str,
        part: &'a str,
        confirmed: bool,
    ) -> Outcome<'a> {
        match self.check_and_apply(&out, whole, part, confirmed).await {
            Ok(Step::Forward(text)) => {
                if let Shape::Call(pending) | Shape::Request(pending) = &out.shape {
                    self.remember_host_request(out.server, out.id, pending.clone());
                }
                Outcome::forward(text)
            }
            Ok(Step::Deny(reason)) => {
                tracing::warn!(destination = %Shown(&out.destination()), "not forwarded: {reason}");
                deny(&out, &reason)
            }
            Ok(Step::Ask(confirmation)) => self.ask(out, whole, part, confirmation),
            Err(e) => {
                tracing::error!(destination = %Shown(&out.destination()), "cannot restore: {e}");
                let message = format!("mcp-veil: cannot restore the values: {e}");
                match out.shape {
                    Shape::Reply => Outcome::forward(Cow::Owned(envelope::error_response(
                        Some(out.id),
                        INTERNAL_ERROR,
                        &message,
                    ))),
                    _ => Outcome::reply(envelope::error_response(
                        Some(out.id),
                        INTERNAL_ERROR,
                        &message,
                    )),
                }
            }
        }
    }

    /// A `tools/call` retried in a 2026-07-28 input-required round: besides its arguments it
    /// carries the host's answers to the server's requests (`inputResponses`: sampling results,
    /// elicitation content), where the model may have written tokens. Those are restored first,
    /// as the host's replies to a session-era server's sampling and elicitation requests are
    /// (tokens under the flow rules, for this tool; no raw-value scan: what the user typed for
    /// the server is theirs to send), then the arguments as for any call. A denial there, or a
    /// confirmation the round cannot wait for, denies the call.
    pub(super) async fn call_with_input_responses(
        &self,
        out: Out<'_>,
        whole: &str,
        responses: &str,
    ) -> Outcome<'static> {
        let replies = Out {
            server: out.server,
            method: out.method,
            name: out.name,
            subject: out.subject,
            id: out.id,
            shape: Shape::Reply,
        };
        let text = match self
            .check_and_apply(&replies, whole, responses, false)
            .await
        {
            Ok(Step::Forward(text)) => text.into_owned(),
            Ok(Step::Deny(reason)) => return deny(&out, &reason),
            Ok(Step::Ask(confirmation)) => {
                let reason = format!(
                    "its input responses for {} need the user's confirmation ({}), which an input-required round cannot wait for",
                    confirmation.destination,
                    causes(&confirmation)
                );
                return deny(&out, &reason);
            }
            Err(e) => {
                tracing::error!(destination = %Shown(&out.destination()), "cannot restore: {e}");
                return Outcome::reply(envelope::error_response(
                    Some(out.id),
                    INTERNAL_ERROR,
                    &format!("mcp-veil: cannot restore the values: {e}"),
                ));
            }
        };
        // The arguments, found again in the message as it now stands.
        let envelope = serde_json::from_str::<super::CallEnvelope<'_>>(&text).ok();
        let part = envelope
            .as_ref()
            .and_then(|e| e.params.arguments)
            .map_or(NO_ARGUMENTS, RawValue::get);
        let outcome = self.outbound(out, &text, part, false).await;
        Outcome {
            forward: outcome.forward.map(|f| Cow::Owned(f.into_owned())),
            reply: outcome.reply,
        }
    }

    /// Holds the message and asks the host, or denies when the host cannot be asked.
    fn ask<'a>(
        &self,
        out: Out<'_>,
        whole: &'a str,
        part: &'a str,
        confirmation: Confirmation,
    ) -> Outcome<'a> {
        let rule = confirmation.concerns.first().map(|c| rule_of(&c.cause));
        if !self.host_can_elicit() {
            let reason = format!(
                "{} needs the user's confirmation ({}), and the client does not support elicitation",
                confirmation.destination,
                causes(&confirmation)
            );
            let items: Vec<Item<'_>> = confirmation
                .tokens()
                .into_iter()
                .map(Item::token_only)
                .collect();
            self.audit.record_one(
                &self.session,
                &out.site(),
                Direction::Outbound,
                EventKind::Denied,
                rule.as_deref(),
                &items,
            );
            tracing::warn!(destination = %Shown(&out.destination()), "not forwarded: {reason}");
            return deny(&out, &reason);
        }
        let n = self
            .next_ask
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let ask_id = confirm::request_id(n);
        let request = confirm::request(&ask_id, &confirmation);
        tracing::info!(
            destination = %Shown(&out.destination()),
            "asking the user to confirm"
        );
        self.hold(
            ask_id,
            Held {
                server: out.server.into(),
                method: out.method.into(),
                name: out.name.into(),
                subject: out.subject.map(Into::into),
                id: out.id.into(),
                shape: out.shape,
                text: whole.to_string(),
                part: within(whole, part).then(|| envelope::range_in(whole, part)),
                confirmation,
            },
        );
        Outcome::reply(request)
    }

    /// The host answered confirmation request `held`: resume or deny it.
    pub(super) async fn resume(&self, held: Held, env: &Envelope<'_>) -> Outcome<'static> {
        let answer = confirm::answer(env.result.map(Raw::get));
        let out = Out {
            server: &held.server,
            method: &held.method,
            name: &held.name,
            subject: held.subject.as_deref(),
            id: &held.id,
            shape: held.shape.clone(),
        };
        let rule = held
            .confirmation
            .concerns
            .first()
            .map(|c| rule_of(&c.cause));
        let tokens = held.confirmation.tokens();
        let items: Vec<Item<'_>> = tokens.into_iter().map(Item::token_only).collect();
        match answer {
            Answer::Approved => {
                self.audit.record_one(
                    &self.session,
                    &out.site(),
                    Direction::Outbound,
                    EventKind::Confirmed,
                    rule.as_deref(),
                    &items,
                );
                let part = held.part.clone().map_or(NO_ARGUMENTS, |r| &held.text[r]);
                let outcome = self.outbound(out.clone(), &held.text, part, true).await;
                Outcome {
                    forward: outcome.forward.map(|f| Cow::Owned(f.into_owned())),
                    reply: outcome.reply,
                }
            }
            Answer::Refused(why) => {
                self.audit.record_one(
                    &self.session,
                    &out.site(),
                    Direction::Outbound,
                    EventKind::Denied,
                    rule.as_deref(),
                    &items,
                );
                let reason = format!(
                    "{} needs the user's confirmation ({}): {why}",
                    held.confirmation.destination,
                    causes(&held.confirmation)
                );
                tracing::warn!(destination = %Shown(&out.destination()), "not forwarded: {reason}");
                let o = deny(&out, &reason);
                Outcome {
                    forward: o.forward.map(|f| Cow::Owned(f.into_owned())),
                    reply: o.reply,
                }
            }
        }
    }

    async fn check_and_apply<'a>(
        &self,
        out: &Out<'_>,
        whole: &'a str,
        part: &'a str,
        confirmed: bool,
    ) -> Result<Step<'a>, EngineError> {
        let tool_call = matches!(out.shape, Shape::Call(_));
        // Raw values the model wrote (tool calls only). Token-shaped text is the token
        // path's business, so LITERAL findings are not raw values.
        let raw_scan = if tool_call && (self.policy.acts_on_raw() || self.audit.on()) {
            let recall = self.engine.recall_for(&self.session).await;
            let (findings, paths) =
                walk::scan_json_with_paths(self.engine.detector(), recall.as_deref(), part)?;
            Some((findings, paths))
        } else {
            None
        };
        let raw_at: Vec<usize> = raw_scan.as_ref().map_or_else(Vec::new, |(f, _)| {
            (0..f.slots.len())
                .filter(|&i| f.slots[i].kind != crate::Kind::Literal)
                .collect()
        });
        let resolved = if memchr::memchr(b'[', part.as_bytes()).is_some() {
            Some(self.engine.resolve_json(&self.session, part).await?)
        } else {
            None
        };
        let (slots, entries) = match &resolved {
            Some(r) => (&r.findings.slots[..], &r.entries[..]),
            None => (&[][..], &[][..]),
        };
        if slots.is_empty() && raw_at.is_empty() && !tool_call {
            return Ok(Step::Forward(Cow::Borrowed(whole)));
        }
        let uses: Vec<TokenUse<'_>> = slots
            .iter()
            .zip(entries)
            .map(|(s, e)| TokenUse {
                token: &s.token,
                entry: e.as_ref(),
                path: &s.path,
            })
            .collect();
        let raw_uses: Vec<RawUse<'_>> = match &raw_scan {
            Some((f, paths)) => raw_at
                .iter()
                .map(|&i| RawUse {
                    kind: &f.slots[i].kind,
                    path: &paths[i],
                })
                .collect(),
            None => Vec::new(),
        };
        let verdict = self.policy.check(&Outbound {
            server: out.server,
            name: out.name,
            tool_call,
            tokens: &uses,
            raw: &raw_uses,
        });
        let site = out.site();
        // Unknown tokens and raw values are audited whatever the verdict.
        if self.audit.on() {
            self.audit.record(
                &self.session,
                &site,
                Direction::Outbound,
                EventKind::UnknownToken,
                uses.iter()
                    .filter(|u| u.entry.is_none())
                    .map(|u| (None, Item::token_only(u.token))),
            );
        }
        match verdict.call {
            CallVerdict::Deny(denial) => {
                self.audit_raw(&site, &raw_scan, &raw_at, &verdict.raw, &[]);
                self.audit_denial(
                    &site,
                    &denial,
                    &uses,
                    &verdict.tokens,
                    &raw_scan,
                    &raw_at,
                    &verdict.raw,
                );
                return Ok(Step::Deny(denial.to_string()));
            }
            CallVerdict::Confirm(c) if !confirmed => {
                self.audit_raw(&site, &raw_scan, &raw_at, &verdict.raw, &[]);
                return Ok(Step::Ask(c));
            }
            _ => {}
        }

        // Raw values to tokenize first, with tokens minted for this destination.
        let mut minted: Vec<Token> = Vec::new();
        let mut text: Cow<'a, str> = Cow::Borrowed(part);
        if let Some((findings, _)) = &raw_scan {
            let tokenize: Vec<usize> = raw_at
                .iter()
                .zip(&verdict.raw)
                .filter(|(_, d)| d.action == RawAction::Tokenize)
                .map(|(&i, _)| i)
                .collect();
            if !tokenize.is_empty() {
                let requests: Vec<MintRequest<'_>> = tokenize
                    .iter()
                    .map(|&i| {
                        let found = findings.found(i);
                        MintRequest {
                            kind: found.kind,
                            value: found.value.expose(),
                            canonical: found.canonical,
                        }
                    })
                    .collect();
                let origin = format!("host/{}", out.destination());
                minted = self
                    .engine
                    .vault()
                    .mint(&self.session, &origin, &requests)
                    .await?;
                let mut replacements: Vec<Cow<'_, str>> = findings
                    .found_iter()
                    .map(|s| Cow::Borrowed(*s.value.expose()))
                    .collect();
                for (&i, token) in tokenize.iter().zip(&minted) {
                    replacements[i] = Cow::Owned(token.to_string());
                }
                text = Cow::Owned(walk::apply(part, findings, &replacements)?.into_owned());
            }
            self.audit_raw(&site, &raw_scan, &raw_at, &verdict.raw, &minted);
        }

        // Then tokens: restore or keep, as decided.
        let rewritten = if minted.is_empty() {
            None
        } else {
            Some(self.engine.resolve_json(&self.session, &text).await?)
        };
        let (findings, entries, actions): (_, _, Vec<Option<Decided>>) =
            match (&rewritten, &resolved) {
                (Some(again), _) => {
                    // The text changed: give each occurrence the decision made for the same
                    // token at the same path (one minted above for a raw value has none and is sent as a token).
                    let actions = again
                        .findings
                        .slots
                        .iter()
                        .map(|s| {
                            slots
                                .iter()
                                .zip(&verdict.tokens)
                                .find(|(o, _)| o.token == s.token && o.path == s.path)
                                .map(|(_, d)| (d.action, d.rule.clone()))
                        })
                        .collect();
                    (Some(&again.findings), &again.entries[..], actions)
                }
                (None, Some(first)) => {
                    let actions = verdict
                        .tokens
                        .iter()
                        .map(|d| Some((d.action, d.rule.clone())))
                        .collect();
                    (Some(&first.findings), &first.entries[..], actions)
                }
                (None, None) => (None, &[][..], Vec::new()),
            };
        let token_slots = findings.map_or(&[][..], |f| &f.slots[..]);
        // Kept tokens are written back as they came, a revealed part included.
        let token_texts: Vec<String> = token_slots.iter().map(walk::FoundTokenAt::text).collect();
        let mut replacements: Vec<Cow<'_, str>> = Vec::with_capacity(token_slots.len());
        let mut is_restored: Vec<bool> = vec![false; token_slots.len()];
        let mut restored: Vec<(Option<&str>, Item<'_>)> = Vec::new();
        let mut kept: Vec<(Option<&str>, Item<'_>)> = Vec::new();
        for (i, (entry, decided)) in entries.iter().zip(&actions).enumerate() {
            let Some((action, rule)) = decided else {
                // Minted above for a raw value: sent as a token (audited as raw_pii).
                replacements.push(Cow::Borrowed(&token_texts[i]));
                continue;
            };
            let restore = matches!(action, Action::Restore)
                || (confirmed && matches!(action, Action::Confirm));
            match entry {
                Some(entry) if restore => {
                    replacements.push(Cow::Borrowed(entry.value.expose().as_str()));
                    is_restored[i] = true;
                    restored.push((rule.as_deref(), Item::entry(entry)));
                    let token = &token_slots[i].token;
                    let value = entry.value.expose();
                    self.echo
                        .remember(value, token, &self.engine.token_text(token, value));
                }
                Some(entry) => {
                    replacements.push(Cow::Borrowed(&token_texts[i]));
                    kept.push((rule.as_deref(), Item::entry(entry)));
                    self.echo.keep(&token_slots[i].token);
                }
                // Unknown and passed (audited above as unknown_token).
                None => replacements.push(Cow::Borrowed(&token_texts[i])),
            }
        }
        // Restored values escaped for the syntax of the arguments they land in; a value that
        // cannot be denies the call.
        if tool_call
            && !restored.is_empty()
            && let Err(reason) = self.restore.make_safe(
                out.server,
                out.name,
                &text,
                token_slots,
                &mut replacements,
                &is_restored,
            )
        {
            return Ok(Step::Deny(reason));
        }
        self.audit.record(
            &self.session,
            &site,
            Direction::Outbound,
            EventKind::Kept,
            kept,
        );
        let (Some(findings), false) = (findings, restored.is_empty()) else {
            return Ok(Step::Forward(match text {
                Cow::Borrowed(_) => Cow::Borrowed(whole),
                Cow::Owned(new) => Cow::Owned(envelope::splice(whole, part, &new)),
            }));
        };
        let count = restored.len();
        self.audit.record(
            &self.session,
            &site,
            Direction::Outbound,
            EventKind::Restored,
            restored,
        );
        let new = walk::apply(&text, findings, &replacements)?;
        tracing::debug!(
            destination = %Shown(&out.destination()),
            tokens = count,
            "rehydrated"
        );
        Ok(Step::Forward(Cow::Owned(envelope::splice(
            whole, part, &new,
        ))))
    }

    /// `raw_pii` events: one item per raw value (with its new token when tokenized).
    fn audit_raw(
        &self,
        site: &Site<'_>,
        raw_scan: &Option<RawScan>,
        raw_at: &[usize],
        decisions: &[crate::policy::RawDecision],
        minted: &[Token],
    ) {
        let Some((findings, _)) = raw_scan else {
            return;
        };
        if !self.audit.on() || raw_at.is_empty() {
            return;
        }
        let mut minted = minted.iter();
        let items = raw_at.iter().zip(decisions).map(|(&i, d)| {
            let found = findings.found(i);
            let token = (d.action == RawAction::Tokenize)
                .then(|| minted.next())
                .flatten();
            (
                d.rule.as_deref(),
                Item {
                    kind: found.kind,
                    token,
                    value: Some(found.value),
                    canonical: found.canonical,
                },
            )
        });
        self.audit.record(
            &self.session,
            site,
            Direction::Outbound,
            EventKind::RawPii,
            items,
        );
    }

    /// The `denied` event: the first denying rule, and the tokens and raw values it concerns.
    #[allow(clippy::too_many_arguments)]
    fn audit_denial(
        &self,
        site: &Site<'_>,
        denial: &Denial,
        uses: &[TokenUse<'_>],
        token_decisions: &[crate::policy::Decision],
        raw_scan: &Option<RawScan>,
        raw_at: &[usize],
        raw_decisions: &[crate::policy::RawDecision],
    ) {
        if !self.audit.on() {
            return;
        }
        let rule = denial.concerns.first().map(|c| rule_of(&c.cause));
        let mut items: Vec<Item<'_>> = uses
            .iter()
            .zip(token_decisions)
            .filter(|(_, d)| d.action == Action::Deny)
            .map(|(u, _)| match u.entry {
                Some(e) => Item::entry(e),
                None => Item::token_only(u.token),
            })
            .collect();
        if let Some((findings, _)) = raw_scan {
            for (&i, d) in raw_at.iter().zip(raw_decisions) {
                if d.action == RawAction::Deny {
                    let found = findings.found(i);
                    items.push(Item {
                        kind: found.kind,
                        token: None,
                        value: Some(found.value),
                        canonical: found.canonical,
                    });
                }
            }
        }
        self.audit.record_one(
            &self.session,
            site,
            Direction::Outbound,
            EventKind::Denied,
            rule.as_deref(),
            &items,
        );
    }
}

/// What a `tools/call` without `arguments` is checked as.
pub(super) const NO_ARGUMENTS: &str = "{}";

/// Whether `part` is a slice of `whole` (and not, say, [`NO_ARGUMENTS`]).
fn within(whole: &str, part: &str) -> bool {
    let (w, p) = (whole.as_ptr() as usize, part.as_ptr() as usize);
    p >= w && p + part.len() <= w + whole.len()
}

/// The causes of a confirmation, for messages.
fn causes(c: &Confirmation) -> String {
    c.causes()
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The answer to a denied message, by shape.
fn deny<'a>(out: &Out<'_>, reason: &str) -> Outcome<'a> {
    match &out.shape {
        Shape::Call(_) => Outcome::reply(envelope::result_response(
            out.id,
            &envelope::tool_error_result(&format!(
                "mcp-veil: this call was not forwarded: {reason}"
            )),
        )),
        Shape::Request(_) => Outcome::reply(envelope::error_response(
            Some(out.id),
            INVALID_PARAMS,
            &format!("mcp-veil: this request was not forwarded: {reason}"),
        )),
        Shape::Reply => Outcome::forward(Cow::Owned(envelope::error_response(
            Some(out.id),
            INTERNAL_ERROR,
            &format!("mcp-veil: the client's reply was withheld: {reason}"),
        ))),
    }
}

#[cfg(test)]
mod tests;
