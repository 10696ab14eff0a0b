//! The gateway's stateless (2026-07-28) streams and rounds: the host's `subscriptions/listen`
//! fanned out to every server (module `listen`), and a session-era server's requests carried
//! to the host as input-required results (module `mrtr`).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::{Value, json};

use super::super::envelope::{self, Envelope};
use super::super::listen;
use super::super::mrtr::{self, Resume};
use super::wire::{answer_with_id, with_param};
use super::{Gateway, Status, lock};
use crate::mcp::take_pending;

impl Gateway {
    /// The host's `subscriptions/listen` `id`: each server's own listen (its filter narrowed
    /// to it), or, for a session-era server, its list changes tagged for this subscription.
    pub(super) async fn listen(self: Arc<Self>, id: String, params: &Value, text: &str) {
        let filter = params.get("notifications").cloned().unwrap_or(json!({}));
        let mut sends = Vec::new();
        let mut untagged = Vec::new();
        for (idx, upstream) in self.upstreams.iter().enumerate() {
            let Status::Ready { capabilities, .. } = upstream.status() else {
                continue;
            };
            let capabilities = capabilities.value();
            let owns = |uri: &str| self.resource_route(uri) == Ok(idx);
            if upstream.session_era() {
                let methods = listen::untagged_methods(&filter, &capabilities);
                let mut uris = Vec::new();
                if capabilities.pointer("/resources/subscribe") == Some(&Value::Bool(true)) {
                    let asked = filter
                        .get("resourceSubscriptions")
                        .and_then(Value::as_array);
                    for uri in asked.into_iter().flatten().filter_map(Value::as_str) {
                        if owns(uri)
                            && self
                                .request(idx, "resources/subscribe", json!({"uri": uri}))
                                .await
                                .is_ok()
                        {
                            uris.push(uri.to_string());
                        }
                    }
                }
                if !methods.is_empty() || !uris.is_empty() {
                    untagged.push(listen::Untagged { idx, methods, uris });
                }
                continue;
            }
            let Some(narrowed) = listen::narrow(&filter, &capabilities, owns) else {
                continue;
            };
            let own = format!("mcp-veil-l{}", self.next_id.fetch_add(1, Ordering::Relaxed));
            let Some(msg) = with_param(text, "notifications", &narrowed) else {
                continue;
            };
            let Some(raw) = Envelope::parse(&msg).ok().and_then(|e| e.id) else {
                continue;
            };
            let msg = envelope::splice(&msg, raw.get(), &Value::String(own.clone()).to_string());
            sends.push((idx, own, msg));
        }
        // Registered before anything is sent: an acknowledgement may come at once.
        let routes = sends.iter().map(|(i, own, _)| (*i, own.clone())).collect();
        for line in self.listens.open(&id, routes, untagged) {
            self.reply(line);
        }
        for (idx, _, msg) in &sends {
            self.send_to_upstream(*idx, msg).await;
        }
        if !sends.is_empty() {
            // Weak: a gateway shutting down does not wait for this timer.
            let gw = Arc::downgrade(&self);
            tokio::spawn(async move {
                tokio::time::sleep(listen::ACK_WAIT).await;
                if let Some(gw) = gw.upgrade() {
                    for line in gw.listens.ack_timeout(&id) {
                        gw.reply(line);
                    }
                }
            });
        }
    }

    /// The host's retry `id` of a suspended call: its input response answers the server's
    /// request, and the call's answer will answer this retry.
    pub(super) async fn resume_round(self: Arc<Self>, id: String, state: &str, params: &Value) {
        match self.rounds.resume(state, &id) {
            None => self.error(&id, -32602, "unknown or expired `requestState`"),
            Some(Resume::Done(answer)) => self.reply(answer_with_id(&answer, &id)),
            Some(Resume::Round(held)) => {
                let Some(response) = params
                    .get("inputResponses")
                    .and_then(|r| r.get(&held.key))
                    .cloned()
                else {
                    let key = held.key.clone();
                    self.rounds.hold_again(state, held);
                    return self.error(
                        &id,
                        -32602,
                        &format!("the retry has no input response for `{key}`"),
                    );
                };
                // As if the host had answered the server's request itself.
                let answer = mrtr::answer_line(&held.request, &response);
                Box::pin(self.host_message(answer)).await;
            }
        }
    }

    /// A session-era server's request `method` (public id `public`) while a stateless host
    /// waits: carried as the input-required result of the one call it can belong to, else
    /// refused to the server with an error naming why (see module `mrtr`).
    pub(super) fn carry_as_input(
        &self,
        idx: usize,
        method: &str,
        params: Option<Value>,
        public: &str,
    ) {
        let refuse = |why: &str| {
            if let Some((_, original)) = take_pending(&mut *lock(&self.server_requests), public) {
                self.upstreams[idx].send(envelope::error_response(
                    Some(&original),
                    -32603,
                    &format!("mcp-veil gateway: the client is stateless (2026-07-28): {why}"),
                ));
            }
        };
        if !mrtr::CARRIED.contains(&method) {
            return refuse("it can be asked only for sampling, elicitation and roots");
        }
        let calls: Vec<String> = lock(&self.host_routes)
            .iter()
            .filter(|(_, (i, tool))| *i == idx && *tool)
            .map(|(call, _)| call.clone())
            .filter(|call| !self.rounds.is_suspended(call))
            .collect();
        let [call] = calls.as_slice() else {
            return refuse(&format!(
                "a request can reach it only as the result of the tool call it belongs to,                  and {} calls are open to this server",
                calls.len()
            ));
        };
        let result = self.rounds.suspend(call, public, method, params);
        let host_id = self.rounds.host_id(call);
        self.reply(envelope::result_response(&host_id, &result.to_string()));
    }
}
