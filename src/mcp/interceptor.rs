//! The interceptor: one JSON-RPC message in, what to forward and what to answer out.
//!
//! Every front end (stdio proxy, gateway, rmcp transport, HTTP) feeds raw message text to
//! [`Interceptor::from_host`] or [`Interceptor::from_server`] and acts on the [`Outcome`]:
//! `forward` goes on in the same direction, `reply` goes back to the sender (a denied call, a
//! withheld result). Single messages and batches are both accepted.
//!
//! ```
//! use std::sync::Arc;
//! use mcp_veil::mcp::Interceptor;
//! use mcp_veil::vault::{MemoryVault, SessionId};
//! use mcp_veil::{Detector, Engine};
//!
//! let engine = Engine::new(Arc::new(Detector::with_defaults()), Arc::new(MemoryVault::default()));
//! let veil = Interceptor::new(engine, SessionId::random());
//! futures::executor::block_on(async {
//!     // Host → server: nothing to restore, so the text is forwarded byte for byte.
//!     let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{}}}"#;
//!     let out = veil.from_host("crm", call).await;
//!     assert_eq!(out.forward.as_deref(), Some(call));
//!     // Server → host: the result is tokenized (here a token-shaped string the server sent,
//!     // which becomes a fresh `[LITERAL_1]` so the model never sees a token it was not given).
//!     let result = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"see [EMAIL_1]"}]}}"#;
//!     let out = veil.from_server("crm", result).await;
//!     assert!(out.forward.unwrap().contains("see [LITERAL_1]"));
//!     assert!(out.reply.is_none());
//! });
//! ```
//!
//! # What changes
//!
//! Inbound (server → host), tokenized before the host sees it, with the origin recorded on each
//! minted token:
//! - `tools/call` results (`content[]` text, embedded resource text, `structuredContent`):
//!   origin `server/tool`; `tasks/result` (a task-augmented call's result): `server/tasks/result`;
//! - `resources/read` results: `server/uri` (the URI as the host wrote it, so tokens rather than
//!   values); `prompts/get` results: `server/prompt-name`;
//! - JSON-RPC error `message`/`data` of any response: `server/<tool, uri, prompt or method>`;
//! - `notifications/message` (logging): `server/log`;
//! - `sampling/createMessage` requests (their messages go to the host's model):
//!   `server/sampling`;
//! - `tools/list` results: string constraints in `outputSchema` are relaxed (see
//!   `super::schema`) so tokenized `structuredContent` validates;
//! - every other surface (see `super::surfaces` and `interceptor/surface_scan.rs`): the lists
//!   (`tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`: descriptions,
//!   titles, schemas, URIs; tool, prompt and argument names are kept), `initialize` and
//!   `server/discover` results, `completion/complete` values, `notifications/progress`,
//!   `elicitation/create`, and any other result, server request or notification: origin
//!   `server/<surface>` (`crm/tools/list`, `crm/progress`, `crm/<method>`). Token-shaped text
//!   becomes `[LITERAL_N]` on every surface, names included; progress and elicitation can be
//!   set to pass PII (the `surfaces:` section, [`Interceptor::with_surfaces`]).
//!
//! Base64 `data` (image, audio) and `blob` members are never scanned (see `super::blobs`).
//! Values this interceptor restored to a server are tokenized again wherever they come back in
//! an inbound member, even where the detector would not find them (see `super::echo`).
//!
//! Outbound (host → server), rehydrated: `tools/call` `arguments` (and a 2026-07-28 retry's
//! `inputResponses`, as `tasks/update`'s, restored as replies are); `resources/read`,
//! `resources/subscribe`/`unsubscribe`, `prompts/get` and `completion/complete` params (a URI
//! from a tokenized list or resource link, a prompt argument, a completion value); and the
//! host's replies to `sampling/createMessage` and `elicitation/create`. Each message gets one
//! verdict from the [`FlowPolicy`] (see [`super::flow`] and `outbound.rs`): tokens restored or
//! kept, raw PII the model typed tokenized or let through, the call confirmed with the user
//! (an `elicitation/create` of the layer's own, see `super::confirm`) or denied: for a
//! `tools/call` the host gets a `CallToolResult` with `isError: true` naming rule and tokens,
//! for a read or prompt a JSON-RPC error. `tools/list` results lose the tools the policy denies.
//! With an audit log ([`Interceptor::with_audit`]) every decision is recorded.
//!
//! Host → server messages other than those (initialize, ping, list requests, cancellation,
//! unknown methods) are forwarded byte for byte, and so is any message the layer does not
//! change.
//!
//! # Correlation
//!
//! Responses carry only an id, so the interceptor remembers, per server and per direction, the
//! method of each request it forwarded (`id: 0` from the host and `id: 0` from the server are
//! different requests). An entry lives until its response (or the host's cancellation); at most
//! 65,536 per direction are kept, and a response whose request was forgotten is tokenized whole.
//!
//! # Fail closed
//!
//! If tokenizing fails (vault full, backend down), the host gets a JSON-RPC error for that
//! request instead of the result; a failed log notification is dropped; a server response whose
//! request the interceptor never saw is tokenized as a whole rather than passed on.
//!
//! Every message is classified strictly first (`super::classify`: request, notification, result
//! or error; duplicate members at any depth, both `result` and `error`, a bad id and the like fit
//! none). One that fits no class, is not JSON or not UTF-8 is never forwarded (see `refuse.rs`):
//! from a server, the host gets a JSON-RPC error for its id when it has a usable one (the
//! pending request is consumed), otherwise it is dropped and counted
//! ([`Interceptor::refused`]); from the host, it is refused with a JSON-RPC error. So is a
//! `tools/call`, `resources/read` or `prompts/get` whose params cannot be read.
//! Errors and logs name tokens, counts and flaws, never values; names from the wire (tools,
//! argument keys, URIs, methods) only when they are plain identifiers (`crate::shown`).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::blobs::{self, Patterns};
use super::classify::{self, Class, Message, Side};
use super::confirm;
use super::echo::EchoGuard;
use super::envelope::{self, Envelope, Raw};
use super::flow::{FlowPolicy, RestoreKnown};
use super::methods;
use super::report::{Reporter, Site};
use super::restore::RestoreRules;
use super::schema;
use super::surfaces::SurfacesConfig;
use super::take_pending;
use crate::audit::{AuditLog, Direction, EventKind, Item};
use crate::engine::{Engine, EngineError};
use crate::shown::Shown;
use crate::vault::SessionId;
use crate::walk;

mod outbound;
mod refuse;
mod surface_scan;

use outbound::{Held, Out, Shape};

/// The most outstanding requests remembered per direction. Past it the table is cleared: a
/// response whose request was forgotten is tokenized whole, so forgetting is safe.
const MAX_PENDING: usize = 65_536;

/// JSON-RPC code for a message that is JSON but not a valid request.
const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC code for parameters the layer refuses to forward.
const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC code for the layer's own failures (tokenizing, vault).
const INTERNAL_ERROR: i64 = -32603;

/// What to do with one message (or batch).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome<'a> {
    /// Send this on in the message's direction (borrowed: unchanged, byte for byte).
    pub forward: Option<Cow<'a, str>>,
    /// Send this back to the sender (e.g. a denied call's result).
    pub reply: Option<String>,
}

impl<'a> Outcome<'a> {
    fn forward(text: Cow<'a, str>) -> Self {
        Outcome {
            forward: Some(text),
            reply: None,
        }
    }

    fn reply(text: String) -> Self {
        Outcome {
            forward: None,
            reply: Some(text),
        }
    }
}

/// A host request awaiting the server's response.
#[derive(Debug, Clone)]
enum HostRequest {
    /// `tools/call` of this tool.
    ToolsCall(Box<str>),
    /// `resources/read` of this URI.
    ResourcesRead(Box<str>),
    /// `prompts/get` of this prompt.
    PromptsGet(Box<str>),
    /// `tools/list`.
    ToolsList,
    /// Any other method: its result passes untouched.
    Other(Box<str>),
}

/// A server request awaiting the host's response.
#[derive(Debug, Clone, Copy)]
enum ServerRequest {
    /// `sampling/createMessage`.
    Sampling,
    /// `elicitation/create`.
    Elicitation,
}

type PendingKey = (Box<str>, Box<str>);

/// The MCP interceptor for one vault session. Share it (`Arc`) between both directions and, in a
/// gateway, between every upstream server.
#[derive(Debug)]
pub struct Interceptor {
    engine: Engine,
    session: SessionId,
    policy: Arc<dyn FlowPolicy>,
    /// (server, id) of host requests → what was asked.
    host_requests: Mutex<HashMap<PendingKey, HostRequest>>,
    /// (server, id) of server requests → what was asked.
    server_requests: Mutex<HashMap<PendingKey, ServerRequest>>,
    /// Values restored to servers, tokenized again when they come back.
    echo: EchoGuard,
    /// Audit events, when there is a log.
    audit: Reporter,
    /// The host announced form elicitation in its `initialize` request.
    host_elicits: AtomicBool,
    /// Numbers the layer's own confirmation requests.
    next_ask: AtomicU64,
    /// Messages held for a confirmation, by the confirmation request's id.
    held: Mutex<HashMap<Box<str>, Held>>,
    /// How the surfaces a host shows only to its user are scanned.
    surfaces: SurfacesConfig,
    /// Which arguments have a syntax restored values are escaped for (`super::restore`).
    restore: Arc<RestoreRules>,
    /// Messages refused because they could not be classified (see `refuse.rs`).
    refused: AtomicU64,
}

#[derive(Deserialize)]
struct CallParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    /// A 2026-07-28 retry's answers to the server's requests (input-required rounds).
    #[serde(borrow, default, rename = "inputResponses")]
    input_responses: Option<&'a RawValue>,
}

/// Params that may carry a 2026-07-28 client's `inputResponses` (`tasks/update`).
#[derive(Deserialize)]
struct InputParams<'a> {
    #[serde(borrow, default, rename = "inputResponses")]
    input_responses: Option<&'a RawValue>,
}

/// A `tools/call` message, for finding its arguments again.
#[derive(Deserialize)]
struct CallEnvelope<'a> {
    #[serde(borrow)]
    params: CallParams<'a>,
}

#[derive(Deserialize)]
struct ReadParams<'a> {
    #[serde(borrow)]
    uri: Cow<'a, str>,
}

#[derive(Deserialize)]
struct NamedParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
}

#[derive(Deserialize)]
struct CancelParams<'a> {
    #[serde(borrow, rename = "requestId")]
    request_id: &'a RawValue,
}

impl Interceptor {
    /// An interceptor over `engine` for one session, restoring every token the session minted
    /// and refusing calls that carry a token it never minted.
    pub fn new(engine: Engine, session: SessionId) -> Interceptor {
        Interceptor {
            engine,
            session,
            policy: Arc::new(RestoreKnown::default()),
            host_requests: Mutex::new(HashMap::new()),
            server_requests: Mutex::new(HashMap::new()),
            echo: EchoGuard::default(),
            audit: Reporter::default(),
            host_elicits: AtomicBool::new(false),
            next_ask: AtomicU64::new(1),
            held: Mutex::new(HashMap::new()),
            surfaces: SurfacesConfig::default(),
            restore: Arc::new(RestoreRules::default()),
            refused: AtomicU64::new(0),
        }
    }

    /// Sets how the surfaces a host shows only to its user (elicitation, progress) are scanned
    /// (the `surfaces:` section; see `super::surfaces`).
    pub fn with_surfaces(mut self, surfaces: SurfacesConfig) -> Interceptor {
        self.surfaces = surfaces;
        self
    }

    /// Escapes restored values for the syntax of the arguments `rules` name (the default
    /// rules: SQL arguments found by the heuristic of `super::restore`).
    pub fn with_restore(mut self, rules: Arc<RestoreRules>) -> Interceptor {
        self.restore = rules;
        self
    }

    /// Writes audit events to `log` (see `super::report`).
    pub fn with_audit(mut self, log: Option<Arc<AuditLog>>) -> Interceptor {
        self.audit = Reporter::new(log);
        self
    }

    /// Reads the host's `initialize` params: whether it can be asked to confirm a flow (form
    /// elicitation). Front ends that answer `initialize` themselves (the gateway) call this;
    /// when the request passes through [`Interceptor::from_host`] it is read there.
    pub fn host_initialize(&self, params: &str) {
        self.host_elicits
            .store(confirm::host_can_elicit(params), Ordering::Relaxed);
    }

    /// Whether the host announced form elicitation.
    pub fn host_can_elicit(&self) -> bool {
        self.host_elicits.load(Ordering::Relaxed)
    }

    /// The server a held message waits for, when `id` (JSON text of a host response) answers
    /// one of this layer's confirmation requests: a front end that routes host responses by
    /// id (the gateway) sends such a response to that server's [`Interceptor::from_host`].
    pub fn confirmation_for(&self, id: &str) -> Option<String> {
        if !confirm::is_ours(id) {
            return None;
        }
        lock(&self.held).get(id).map(|h| h.server().to_string())
    }

    fn hold(&self, ask_id: String, held: Held) {
        let mut table = lock(&self.held);
        if table.len() >= MAX_PENDING {
            tracing::warn!("{MAX_PENDING} confirmations never answered: forgetting them");
            table.clear();
        }
        table.insert(ask_id.into(), held);
    }

    /// Replaces the data-flow policy (e.g. [`RestoreKnown`] with `pass_unknown` for a second,
    /// stacked layer, or the rules of `flows:`).
    pub fn with_policy(mut self, policy: Arc<dyn FlowPolicy>) -> Interceptor {
        self.policy = policy;
        self
    }

    /// Whether the tool policy lets the host see (and call) `server`'s `tool`.
    pub fn tool_listed(&self, server: &str, tool: &str) -> bool {
        self.policy.tool_listed(server, tool)
    }

    /// The vault session.
    pub fn session(&self) -> &SessionId {
        &self.session
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// A message (or batch) from the host, on its way to `server`.
    pub async fn from_host<'a>(&self, server: &str, msg: &'a str) -> Outcome<'a> {
        if envelope::is_batch(msg) {
            return self.batch(server, msg, true).await;
        }
        self.one_from_host(server, msg).await
    }

    /// A message (or batch) from `server`, on its way to the host.
    pub async fn from_server<'a>(&self, server: &str, msg: &'a str) -> Outcome<'a> {
        if envelope::is_batch(msg) {
            return self.batch(server, msg, false).await;
        }
        self.one_from_server(server, msg).await
    }

    async fn batch<'a>(&self, server: &str, msg: &'a str, from_host: bool) -> Outcome<'a> {
        let items = match envelope::split_batch(msg) {
            Ok(items) if !items.is_empty() => items,
            // Not JSON, or an empty batch: nothing in it can be forwarded.
            Ok(_) => {
                return self
                    .refuse(server, msg.len(), from_host, classify::Flaw::Shape)
                    .await;
            }
            Err(_) => {
                return self
                    .refuse(server, msg.len(), from_host, classify::Flaw::NotJson)
                    .await;
            }
        };
        let mut forwards: Vec<Cow<'a, str>> = Vec::with_capacity(items.len());
        let mut replies: Vec<Cow<'a, str>> = Vec::new();
        let mut changed = false;
        for item in items {
            let outcome = if from_host {
                self.one_from_host(server, item.get()).await
            } else {
                self.one_from_server(server, item.get()).await
            };
            match outcome.forward {
                Some(f) => {
                    changed |= matches!(f, Cow::Owned(_));
                    forwards.push(f);
                }
                None => changed = true,
            }
            if let Some(r) = outcome.reply {
                replies.push(Cow::Owned(r));
            }
        }
        let forward = if changed {
            envelope::join_batch(&forwards).map(Cow::Owned)
        } else {
            Some(Cow::Borrowed(msg))
        };
        Outcome {
            forward,
            reply: envelope::join_batch(&replies),
        }
    }

    async fn one_from_host<'a>(&self, server: &str, text: &'a str) -> Outcome<'a> {
        let (class, env) = match classify::classify(text, Side::Host) {
            Ok(Message { class, env }) => (class, env),
            Err(rejected) => return self.refuse_from_host(server, &rejected).await,
        };
        match (class, env.method.as_deref(), env.id_key()) {
            (Class::Request, Some(method), Some(id)) => {
                self.host_request(server, method, id, &env, text).await
            }
            (Class::Notification, Some("notifications/cancelled"), None) => {
                if let Some(params) = env.params
                    && let Ok(p) = serde_json::from_str::<CancelParams<'_>>(params.get())
                {
                    let id = p.request_id.get().trim();
                    self.take_host_request(server, id);
                    lock(&self.held).retain(|_, h| h.server() != server || h.id() != id);
                }
                Outcome::forward(Cow::Borrowed(text))
            }
            (Class::Result | Class::Error, None, Some(id)) => {
                self.host_response(server, id, &env, text).await
            }
            // Other notifications, and an error response with a null id.
            _ => Outcome::forward(Cow::Borrowed(text)),
        }
    }

    async fn host_request<'a>(
        &self,
        server: &str,
        method: &str,
        id: &str,
        env: &Envelope<'a>,
        text: &'a str,
    ) -> Outcome<'a> {
        let params = env.params.map(Raw::get);
        let pending = match method {
            "tools/call" => {
                let Some(call) =
                    params.and_then(|p| serde_json::from_str::<CallParams<'_>>(p).ok())
                else {
                    // Malformed (no name, a name that is not a string): neither the tool
                    // policy nor the flow rules could check it, so it is not forwarded.
                    return self.refuse_params(server, method, id);
                };
                let out = Out {
                    server,
                    method,
                    name: &call.name,
                    subject: Some(&call.name),
                    id,
                    shape: Shape::Call(HostRequest::ToolsCall(call.name.as_ref().into())),
                };
                if let Some(responses) = call.input_responses
                    && memchr::memchr(b'[', responses.get().as_bytes()).is_some()
                {
                    return self
                        .call_with_input_responses(out, text, responses.get())
                        .await;
                }
                // No arguments: still checked (the tool policy applies to every call).
                let part = call.arguments.map_or(outbound::NO_ARGUMENTS, RawValue::get);
                return self.outbound(out, text, part, false).await;
            }
            "resources/read" | "prompts/get" => {
                // Params that cannot be read (no URI or name, or one that is not a string)
                // are not forwarded: they could carry tokens the policy never saw.
                let parsed = if method == "resources/read" {
                    params
                        .and_then(|p| serde_json::from_str::<ReadParams>(p).ok())
                        .map(|p| (HostRequest::ResourcesRead(p.uri.as_ref().into()), p.uri))
                } else {
                    params
                        .and_then(|p| serde_json::from_str::<NamedParams>(p).ok())
                        .map(|p| (HostRequest::PromptsGet(p.name.as_ref().into()), p.name))
                };
                let (Some((pending, subject)), Some(p)) = (parsed, env.params) else {
                    return self.refuse_params(server, method, id);
                };
                // A URI or prompt argument the model wrote may hold tokens (a tokenized
                // resource link): restore them too, under the same policy.
                let out = Out {
                    server,
                    method,
                    name: method,
                    subject: Some(&subject),
                    id,
                    shape: Shape::Request(pending),
                };
                return self.outbound(out, text, p.get(), false).await;
            }
            "tasks/update" => {
                // The tasks extension's answers to a task's requests (`inputResponses`): the
                // model may have written tokens in them; restored as replies are.
                let responses = params
                    .and_then(|p| serde_json::from_str::<InputParams<'_>>(p).ok())
                    .and_then(|p| p.input_responses)
                    .filter(|r| memchr::memchr(b'[', r.get().as_bytes()).is_some());
                let pending = HostRequest::Other(method.into());
                let Some(responses) = responses else {
                    self.remember_host_request(server, id, pending);
                    return Outcome::forward(Cow::Borrowed(text));
                };
                let out = Out {
                    server,
                    method,
                    name: method,
                    subject: None,
                    id,
                    shape: Shape::Request(pending),
                };
                return self.outbound(out, text, responses.get(), false).await;
            }
            "resources/subscribe"
            | "resources/unsubscribe"
            | "subscriptions/listen"
            | "completion/complete" => {
                // A URI or completion value the host took from a tokenized list: restore it.
                let pending = HostRequest::Other(method.into());
                let Some(p) = env.params else {
                    self.remember_host_request(server, id, pending);
                    return Outcome::forward(Cow::Borrowed(text));
                };
                let out = Out {
                    server,
                    method,
                    name: method,
                    subject: None,
                    id,
                    shape: Shape::Request(pending),
                };
                return self.outbound(out, text, p.get(), false).await;
            }
            "initialize" => {
                if let Some(p) = params {
                    self.host_initialize(p);
                }
                HostRequest::Other(method.into())
            }
            "tools/list" => HostRequest::ToolsList,
            // A task-augmented `tools/call` delivers its `CallToolResult` here.
            "tasks/result" => HostRequest::ToolsCall("tasks/result".into()),
            // Only a method the protocol defines is remembered by name: it becomes part of
            // origins and audit lines.
            other => HostRequest::Other(methods::known(other).unwrap_or("<unknown>").into()),
        };
        self.remember_host_request(server, id, pending);
        Outcome::forward(Cow::Borrowed(text))
    }

    async fn host_response<'a>(
        &self,
        server: &str,
        id: &str,
        env: &Envelope<'a>,
        text: &'a str,
    ) -> Outcome<'a> {
        if confirm::is_ours(id) {
            let held = lock(&self.held).remove(id);
            if let Some(held) = held {
                return self.resume(held, env).await;
            }
        }
        let pending = take_pending(
            &mut *lock(&self.server_requests),
            &(Box::from(server), Box::from(id)),
        );
        let (Some(request), Some(result)) = (pending, env.result) else {
            return Outcome::forward(Cow::Borrowed(text));
        };
        let (method, name) = match request {
            ServerRequest::Sampling => ("sampling/createMessage", "sampling"),
            ServerRequest::Elicitation => ("elicitation/create", "elicitation"),
        };
        let out = Out {
            server,
            method,
            name,
            subject: None,
            id,
            shape: Shape::Reply,
        };
        self.outbound(out, text, result.get(), false).await
    }

    async fn one_from_server<'a>(&self, server: &str, text: &'a str) -> Outcome<'a> {
        let env = match classify::classify(text, Side::Server) {
            Ok(Message { env, .. }) => env,
            // Not JSON (often a server logging to stdout) or not a JSON-RPC message: it
            // cannot be scanned, so it never reaches the host (see `refuse.rs`).
            Err(rejected) => return self.refuse_from_server(server, text.len(), &rejected),
        };
        match (env.method.as_deref(), env.id_key()) {
            (Some("sampling/createMessage"), Some(id)) => {
                let Some(params) = env.params else {
                    return Outcome::forward(Cow::Borrowed(text));
                };
                let origin = format!("{server}/sampling");
                match self
                    .tokenize(
                        &origin,
                        &Site {
                            server,
                            method: "sampling/createMessage",
                            name: None,
                            id: Some(id),
                        },
                        (text, &env),
                        params.get(),
                        blobs::MESSAGES,
                    )
                    .await
                {
                    Ok(t) => {
                        self.remember_server_request(server, id, ServerRequest::Sampling);
                        Outcome::forward(t)
                    }
                    Err(e) => {
                        tracing::error!(server, "sampling request withheld: {e}");
                        Outcome::reply(envelope::error_response(
                            Some(id),
                            INTERNAL_ERROR,
                            &format!("mcp-veil: the request could not be tokenized: {e}"),
                        ))
                    }
                }
            }
            (Some(method @ "elicitation/create"), Some(id)) => {
                self.surface_message(server, method, Some(id), &env, text)
                    .await
            }
            (Some("notifications/message"), None) => {
                let Some(params) = env.params else {
                    return Outcome::forward(Cow::Borrowed(text));
                };
                let origin = format!("{server}/log");
                match self
                    .tokenize(
                        &origin,
                        &Site {
                            server,
                            method: "notifications/message",
                            name: None,
                            id: None,
                        },
                        (text, &env),
                        params.get(),
                        blobs::NONE,
                    )
                    .await
                {
                    Ok(t) => Outcome::forward(t),
                    Err(e) => {
                        tracing::error!(server, "log notification dropped: {e}");
                        Outcome::default()
                    }
                }
            }
            // Progress, resource updates, any other request or notification: scanned.
            (Some(method), id) => self.surface_message(server, method, id, &env, text).await,
            (None, id) => self.server_response(server, id, &env, text).await,
        }
    }

    async fn server_response<'a>(
        &self,
        server: &str,
        id: Option<&str>,
        env: &Envelope<'a>,
        text: &'a str,
    ) -> Outcome<'a> {
        let pending = id.and_then(|id| self.take_host_request(server, id));
        let subject = match &pending {
            Some(HostRequest::ToolsCall(s) | HostRequest::ResourcesRead(s))
            | Some(HostRequest::PromptsGet(s) | HostRequest::Other(s)) => &**s,
            Some(HostRequest::ToolsList) => "tools/list",
            None => "",
        };
        let origin = if subject.is_empty() {
            server.to_string()
        } else {
            format!("{server}/{subject}")
        };
        let (part, patterns): (&str, Patterns) = match (env.error, env.result, &pending) {
            (Some(error), _, _) => (error.get(), blobs::NONE),
            (None, Some(result), Some(HostRequest::ToolsCall(_))) => {
                (result.get(), blobs::CALL_RESULT)
            }
            (None, Some(result), Some(HostRequest::ResourcesRead(_))) => {
                (result.get(), blobs::READ_RESULT)
            }
            (None, Some(result), Some(HostRequest::PromptsGet(_))) => {
                (result.get(), blobs::MESSAGES)
            }
            (None, Some(result), Some(HostRequest::ToolsList)) => {
                let relaxed = schema::relax_tools_list(result.get());
                let listed = relaxed.as_deref().unwrap_or(result.get());
                let shown = if self.policy.hides_tools() {
                    schema::retain_tools(listed, |tool| self.policy.tool_listed(server, tool))
                } else {
                    None
                };
                let member = match shown.or(relaxed) {
                    Some(new) => Cow::Owned(new),
                    None => Cow::Borrowed(result.get()),
                };
                return self
                    .surface_result(server, id, "tools/list", text, result.get(), member)
                    .await;
            }
            (None, Some(result), Some(HostRequest::Other(method))) => {
                let member = Cow::Borrowed(result.get());
                return self
                    .surface_result(server, id, method, text, result.get(), member)
                    .await;
            }
            (None, Some(result), None) => {
                // A response to a request this layer never saw: scan all of it (fail closed).
                tracing::warn!(
                    server,
                    "response to an unknown request id: tokenizing it whole"
                );
                (result.get(), blobs::UNKNOWN)
            }
            (None, None, _) => return Outcome::forward(Cow::Borrowed(text)),
        };
        let method = match &pending {
            Some(HostRequest::ToolsCall(_)) => "tools/call",
            Some(HostRequest::ResourcesRead(_)) => "resources/read",
            Some(HostRequest::PromptsGet(_)) => "prompts/get",
            Some(HostRequest::ToolsList) => "tools/list",
            Some(HostRequest::Other(m)) => m,
            None => "response",
        };
        let site = Site {
            server,
            method,
            name: (!subject.is_empty()).then_some(subject),
            id,
        };
        match self
            .tokenize(&origin, &site, (text, env), part, patterns)
            .await
        {
            Ok(t) => Outcome::forward(t),
            Err(e) => {
                tracing::error!(server, subject = %Shown(subject), "result withheld: {e}");
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

    /// Tokenizes `part` (a member of `whole`, which `env` was read from) and returns `whole`
    /// rewritten, or borrowed when nothing was found.
    async fn tokenize<'a>(
        &self,
        origin: &str,
        site: &Site<'_>,
        (whole, env): (&'a str, &Envelope<'_>),
        part: &'a str,
        patterns: Patterns,
    ) -> Result<Cow<'a, str>, EngineError> {
        let skip = |pos: &walk::json::Position<'_>| blobs::is_binary(patterns, pos);
        // The ends of the long strings the read of the message found, for the walk.
        let known = env.known_in(whole, part);
        Ok(
            match self
                .tokenize_member(origin, site, part, &skip, &known)
                .await?
            {
                Cow::Borrowed(_) => Cow::Borrowed(whole),
                Cow::Owned(new) => Cow::Owned(envelope::splice_owned(whole, part, new)),
            },
        )
    }

    /// Tokenizes the JSON `part` (leaving alone the string values `skip` selects), audits what
    /// was minted and applies the echo guard; borrowed when nothing changed. `known`: where
    /// long strings of `part` end, as the read of the message found ([`Envelope::known_in`]).
    async fn tokenize_member<'p>(
        &self,
        origin: &str,
        site: &Site<'_>,
        part: &'p str,
        skip: &(dyn Fn(&walk::json::Position<'_>) -> bool + Sync),
        known: &[std::ops::Range<usize>],
    ) -> Result<Cow<'p, str>, EngineError> {
        let t = self
            .engine
            .tokenize_json_except(&self.session, origin, part, skip, known)
            .await?;
        if !t.tokens.is_empty() {
            tracing::debug!(origin = %Shown(origin), tokens = t.tokens.len(), "tokenized");
            self.audit.record(
                &self.session,
                site,
                Direction::Inbound,
                EventKind::Tokenized,
                t.found
                    .iter()
                    .zip(&t.tokens)
                    .map(|(f, tok)| (None, Item::tokenized(f, tok))),
            );
        }
        let text = match self.echo.kept_back(&t.text, &t.found, &t.tokens) {
            Some(back) => Cow::Owned(back),
            None => t.text,
        };
        Ok(match self.echo.apply(&text) {
            Some(guarded) => {
                tracing::debug!(origin = %Shown(origin), "re-tokenized values echoed by the server");
                Cow::Owned(guarded)
            }
            None => text,
        })
    }

    fn remember_host_request(&self, server: &str, id: &str, request: HostRequest) {
        let mut pending = self.host_requests.lock().unwrap_or_else(|e| e.into_inner());
        if pending.len() >= MAX_PENDING {
            tracing::warn!("{MAX_PENDING} host requests never answered: forgetting them");
            pending.clear();
        }
        pending.insert((server.into(), id.into()), request);
    }

    fn take_host_request(&self, server: &str, id: &str) -> Option<HostRequest> {
        take_pending(
            &mut *lock(&self.host_requests),
            &(Box::from(server), Box::from(id)),
        )
    }

    fn remember_server_request(&self, server: &str, id: &str, request: ServerRequest) {
        let mut pending = self
            .server_requests
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if pending.len() >= MAX_PENDING {
            tracing::warn!("{MAX_PENDING} server requests never answered: forgetting them");
            pending.clear();
        }
        pending.insert((server.into(), id.into()), request);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod surface_tests;
#[cfg(test)]
mod tests;
