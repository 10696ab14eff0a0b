//! What the layer does with a message it cannot classify or read: it never forwards it.
//!
//! A message [`classify`](crate::mcp::classify) rejects (not UTF-8, not JSON, duplicate
//! members, members that fit no JSON-RPC class ...) and a request whose params the layer needs
//! but cannot read go no further in their direction:
//!
//! - **From the host**: the host gets a JSON-RPC error (`-32700` for bytes that are not JSON,
//!   `-32600` for JSON that is not a valid message, `-32602` for unreadable params) carrying the
//!   message's id when it is a string or number, `null` otherwise. When the refused message
//!   answers a request the server is waiting on (or one of the layer's own confirmation
//!   requests), that request is settled instead: the server gets an error for its id (a held
//!   call is denied), so nobody waits forever.
//! - **From a server**: when the message claims to answer a request (it has `result` or `error`,
//!   or no `method`) and has a usable id, the host gets a JSON-RPC error for that id in place of
//!   the answer, and the pending request is consumed. When it asks something (a `method` with a
//!   usable id), the server gets an error. Anything else is dropped.
//!
//! Every refusal is counted ([`Interceptor::refused`]) and logged at WARN with the server, the
//! flaw and the message's length: never its content, its method or its id.
//!
//! Bytes that are not UTF-8 are one refused message ([`Interceptor::from_server_bytes`]); the
//! relay goes on with the next line. Their id, when one can be read from the lossy text, still
//! gets its error.

use std::borrow::Cow;
use std::sync::atomic::Ordering;

use super::{INVALID_PARAMS, INVALID_REQUEST, Interceptor, Outcome, lock};
use crate::mcp::classify::{self, Flaw, Rejected, Side};
use crate::mcp::confirm;
use crate::mcp::envelope::{self, Envelope};
use crate::mcp::take_pending;

impl Interceptor {
    /// How many messages this interceptor refused because they could not be classified or
    /// read, in both directions (a figure for metrics and logs).
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// A message (or batch) from the host as bytes: [`Interceptor::from_host`] when they are
    /// UTF-8, otherwise refused like any message that is not JSON.
    pub async fn from_host_bytes<'a>(&self, server: &str, msg: &'a [u8]) -> Outcome<'a> {
        match std::str::from_utf8(msg) {
            Ok(text) => self.from_host(server, text).await,
            Err(_) => {
                let lossy = String::from_utf8_lossy(msg);
                let rejected = not_utf8(&lossy, Side::Host);
                self.refuse_from_host(server, &rejected).await
            }
        }
    }

    /// A message (or batch) from `server` as bytes: [`Interceptor::from_server`] when they are
    /// UTF-8, otherwise refused (the host gets an error for its id when one can be read).
    pub async fn from_server_bytes<'a>(&self, server: &str, msg: &'a [u8]) -> Outcome<'a> {
        match std::str::from_utf8(msg) {
            Ok(text) => self.from_server(server, text).await,
            Err(_) => {
                let lossy = String::from_utf8_lossy(msg);
                let rejected = not_utf8(&lossy, Side::Server);
                self.refuse_from_server(server, msg.len(), &rejected)
            }
        }
    }

    /// The answer to a host message that could not be classified.
    pub(super) async fn refuse_from_host(
        &self,
        server: &str,
        rejected: &Rejected<'_>,
    ) -> Outcome<'static> {
        self.refused.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(
            server,
            flaw = %rejected.flaw,
            "a host message was not forwarded: it is not a valid JSON-RPC message"
        );
        if let Some(id) = rejected.id
            && rejected.answers
        {
            if confirm::is_ours(id) {
                let held = lock(&self.held).remove(id);
                if let Some(held) = held {
                    // An answer that cannot be read approves nothing.
                    return self.resume(held, &Envelope::none()).await;
                }
            }
            let pending = take_pending(
                &mut *lock(&self.server_requests),
                &(Box::from(server), Box::from(id)),
            );
            if pending.is_some() {
                return Outcome::forward(Cow::Owned(envelope::error_response(
                    Some(id),
                    INVALID_REQUEST,
                    "mcp-veil: the client's reply was withheld: it is not a valid JSON-RPC message",
                )));
            }
        }
        Outcome::reply(classify::host_refusal(rejected))
    }

    /// Counts a message a front end refused itself (the gateway reads host messages first).
    pub(crate) fn count_refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    /// What becomes of a server message that could not be classified (`bytes`: its length).
    pub(super) fn refuse_from_server(
        &self,
        server: &str,
        bytes: usize,
        rejected: &Rejected<'_>,
    ) -> Outcome<'static> {
        self.refused.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(
            server,
            flaw = %rejected.flaw,
            bytes,
            "a server message was not forwarded: it is not a valid JSON-RPC message"
        );
        let Some(id) = rejected.id else {
            return Outcome::default();
        };
        if rejected.answers || !rejected.asks {
            self.take_host_request(server, id);
            return Outcome::forward(Cow::Owned(envelope::error_response(
                Some(id),
                super::INTERNAL_ERROR,
                &format!(
                    "mcp-veil: the server's answer was withheld: it has {}",
                    rejected.flaw
                ),
            )));
        }
        Outcome::reply(envelope::error_response(
            Some(id),
            INVALID_REQUEST,
            &format!(
                "mcp-veil: the request was not forwarded to the client: it has {}",
                rejected.flaw
            ),
        ))
    }

    /// A batch (or bytes) refused as a whole, from either side.
    pub(super) async fn refuse(
        &self,
        server: &str,
        bytes: usize,
        from_host: bool,
        flaw: Flaw,
    ) -> Outcome<'static> {
        let rejected = Rejected {
            flaw,
            id: None,
            answers: false,
            asks: false,
        };
        if from_host {
            self.refuse_from_host(server, &rejected).await
        } else {
            self.refuse_from_server(server, bytes, &rejected)
        }
    }

    /// A host request whose params the layer must read and cannot.
    pub(super) fn refuse_params(&self, server: &str, method: &str, id: &str) -> Outcome<'static> {
        self.refused.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(
            server,
            method,
            "a request was not forwarded: its params cannot be read"
        );
        Outcome::reply(envelope::error_response(
            Some(id),
            INVALID_PARAMS,
            &format!("mcp-veil: this request was not forwarded: {method} needs params it can read"),
        ))
    }
}

/// The rejection of bytes that are not UTF-8, with the id read from their lossy text.
fn not_utf8<'a>(lossy: &'a str, side: Side) -> Rejected<'a> {
    let (id, answers, asks) = match classify::classify(lossy, side) {
        Ok(m) => (
            m.env.id_key(),
            m.env.result.is_some() || m.env.error.is_some(),
            m.env.method.is_some(),
        ),
        Err(r) => (r.id, r.answers, r.asks),
    };
    Rejected {
        flaw: Flaw::NotUtf8,
        id,
        answers,
        asks,
    }
}
