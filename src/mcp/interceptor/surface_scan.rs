//! The inbound path of every surface other than tool, read and prompt results: lists,
//! `initialize`, completion values, progress, elicitation and any other server message.
//!
//! What is scanned where is decided in [`crate::mcp::surfaces`]; this file runs it: first
//! token-shaped text becomes `[LITERAL_N]` (in identifiers too; in every string and key when the
//! surface is set to `pass`), then, unless the surface passes, the engine tokenizes the member
//! leaving the surface's identifiers alone, then the echo guard. A failure withholds the
//! message: a result becomes a JSON-RPC error, a server request is answered with one, a
//! notification is dropped.

use std::borrow::Cow;

use super::{INTERNAL_ERROR, Interceptor, Outcome, ServerRequest};
use crate::audit::{Direction, EventKind, Item};
use crate::engine::EngineError;
use crate::mcp::envelope::{self, Envelope};
use crate::mcp::report::Site;
use crate::mcp::surfaces::{self, Class, Select, Surface, SurfaceMode};
use crate::token::Token;
use crate::walk::FoundValues;
use crate::walk::json::Position;

impl Interceptor {
    /// `member` scanned as `surface`: the new member, or `None` when nothing changed.
    pub(super) async fn scan_surface(
        &self,
        surface: Surface,
        origin: &str,
        site: &Site<'_>,
        member: &str,
    ) -> Result<Option<String>, EngineError> {
        let mode = surface.mode(&self.surfaces);
        let everything: Select<'_> = &|_, _| Some(Class::Identifier);
        let by_class: Select<'_> = &|lit, pos| match surface.class(pos) {
            _ if lit.is_key => None,
            Class::Scan => None,
            class => Some(class),
        };
        let select = match mode {
            SurfaceMode::Pass => everything,
            _ => by_class,
        };
        let picked = surfaces::pick(member, select)?;
        let mut new: Vec<Option<String>> = Vec::with_capacity(picked.len());
        if !picked.is_empty() {
            let literal: Vec<&str> = picked
                .iter()
                .filter(|p| p.class == Class::Identifier)
                .map(|p| p.text.as_str())
                .collect();
            let literal =
                surfaces::literalize(&self.engine, &self.session, origin, &literal).await?;
            self.audit_minted(site, &literal.found, &literal.tokens);
            let mut literal = literal.texts.into_iter();
            for p in &picked {
                new.push(match p.class {
                    Class::Identifier => literal.next(),
                    _ => {
                        let t = self
                            .engine
                            .tokenize_text(&self.session, origin, &p.text)
                            .await?;
                        self.audit_minted(site, &t.found, &t.tokens);
                        match t.text {
                            Cow::Owned(s) => Some(s),
                            Cow::Borrowed(_) => None,
                        }
                    }
                });
            }
        }
        let rebuilt = new
            .iter()
            .any(Option::is_some)
            .then(|| surfaces::rebuild(member, &picked, &new));
        let input = rebuilt.as_deref().unwrap_or(member);
        let scanned = match mode {
            SurfaceMode::Pass => self.echo.apply(input),
            _ => {
                let skip = |pos: &Position<'_>| surface.class(pos) != Class::Scan;
                match self
                    .tokenize_member(origin, site, input, &skip, &[])
                    .await?
                {
                    Cow::Owned(s) => Some(s),
                    Cow::Borrowed(_) => None,
                }
            }
        };
        Ok(scanned.or(rebuilt))
    }

    /// Audits what one step of a surface scan minted.
    fn audit_minted(&self, site: &Site<'_>, found: &FoundValues, tokens: &[Token]) {
        if tokens.is_empty() {
            return;
        }
        tracing::debug!(tokens = tokens.len(), "tokenized on a surface");
        self.audit.record(
            &self.session,
            site,
            Direction::Inbound,
            EventKind::Tokenized,
            found
                .iter()
                .zip(tokens)
                .map(|(f, tok)| (None, Item::tokenized(f, tok))),
        );
    }

    /// A result of `method` (a host request other than a tool call, read or prompt; `member`
    /// is the result, possibly already rewritten, `text` the message): scanned as its surface.
    pub(super) async fn surface_result<'a>(
        &self,
        server: &str,
        id: Option<&str>,
        method: &str,
        text: &'a str,
        result: &str,
        member: Cow<'_, str>,
    ) -> Outcome<'a> {
        let surface = Surface::of_result(method);
        let name = surface.origin_name(method);
        let origin = format!("{server}/{name}");
        let site = Site {
            server,
            method: name,
            name: None,
            id,
        };
        match self.scan_surface(surface, &origin, &site, &member).await {
            Ok(None) => match member {
                Cow::Borrowed(_) => Outcome::forward(Cow::Borrowed(text)),
                Cow::Owned(new) => {
                    Outcome::forward(Cow::Owned(envelope::splice_owned(text, result, new)))
                }
            },
            Ok(Some(new)) => {
                Outcome::forward(Cow::Owned(envelope::splice_owned(text, result, new)))
            }
            Err(e) => {
                tracing::error!(server, surface = ?surface, "result withheld: {e}");
                Outcome::forward(Cow::Owned(envelope::error_response(
                    id,
                    INTERNAL_ERROR,
                    &format!(
                        "mcp-veil: the result was withheld because it could not be tokenized: {e}"
                    ),
                )))
            }
        }
    }

    /// A request or notification from `server` that no other path handles (progress,
    /// elicitation, resource updates, anything unknown): its params scanned as its surface.
    pub(super) async fn surface_message<'a>(
        &self,
        server: &str,
        method: &str,
        id: Option<&str>,
        env: &Envelope<'a>,
        text: &'a str,
    ) -> Outcome<'a> {
        let surface = Surface::of_message(method);
        let remember = |this: &Self| {
            if let (Surface::Elicitation, Some(id)) = (surface, id) {
                this.remember_server_request(server, id, ServerRequest::Elicitation);
            }
        };
        let Some(params) = env.params else {
            remember(self);
            return Outcome::forward(Cow::Borrowed(text));
        };
        let name = surface.origin_name(method);
        let origin = format!("{server}/{name}");
        let site = Site {
            server,
            method: name,
            name: None,
            id,
        };
        match self
            .scan_surface(surface, &origin, &site, params.get())
            .await
        {
            Ok(new) => {
                remember(self);
                Outcome::forward(match new {
                    Some(new) => Cow::Owned(envelope::splice_owned(text, params.get(), new)),
                    None => Cow::Borrowed(text),
                })
            }
            Err(e) => match id {
                Some(id) => {
                    tracing::error!(server, surface = ?surface, "server request withheld: {e}");
                    Outcome::reply(envelope::error_response(
                        Some(id),
                        INTERNAL_ERROR,
                        &format!("mcp-veil: the request could not be tokenized: {e}"),
                    ))
                }
                None => {
                    tracing::error!(server, surface = ?surface, "notification dropped: {e}");
                    Outcome::default()
                }
            },
        }
    }
}
