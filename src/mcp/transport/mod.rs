//! The rmcp client layer: a [`Transport`] decorator that puts the interceptor between an rmcp
//! client and its server.
//!
//! Any Rust program that talks to an MCP server through rmcp wraps its client transport in one
//! line; nothing else changes:
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use mcp_veil::mcp::transport::Veil;
//! use rmcp::ServiceExt;
//! use rmcp::transport::TokioChildProcess;
//!
//! let veil = Veil::builder().server_name("crm").build()?;
//! let cmd = tokio::process::Command::new("crm-mcp-server");
//! let client = ().serve(veil.wrap(TokioChildProcess::new(cmd)?)).await?;
//! # let _ = client; Ok(()) }
//! ```
//!
//! The shape follows tower's wrappers: [`Veil`] (built by [`VeilBuilder`]) is the configuration
//! and the session, [`VeilTransport`] the wrapper, with [`VeilTransport::get_ref`] and
//! [`VeilTransport::into_inner`]. One [`Veil`] is one vault session; clone it (or call
//! [`Veil::server`]) to put several transports in one session.
//!
//! # How a message goes through
//!
//! Each rmcp message is written as JSON text, handed to the
//! [`Interceptor`](crate::mcp::Interceptor) (`from_host` on the way out, `from_server` on the
//! way in) and read back. A message the interceptor leaves alone is passed on as the original
//! value, without a second parse. A local reply (a call refused by the flow policy) is delivered
//! to the client as the server's answer: the caller sees a `CallToolResult` with `isError` that
//! names the token, never a value.
//!
//! # Why a background task
//!
//! rmcp's [`Transport::send`] must return a `'static` future, so it cannot hold `&mut` on the
//! wrapped transport while the interceptor does its (possibly networked, with a shared vault)
//! work. On first use the wrapper therefore moves the wrapped transport into a small task that
//! owns it: it forwards rehydrated messages (the send future waits for the wrapped transport's
//! own result) and tokenizes every received message in order before the client can see it.
//! Received messages queue without bound so a client that is busy sending (rmcp's shutdown
//! drain) can never deadlock the task.
//!
//! # Cost
//!
//! Per message: one `serde_json` write, the interceptor's scan, and one parse only when the
//! interceptor changed something; plus one hop through the task and a oneshot per send.
//! `cargo bench --bench rmcp_layer` measures a tool call with and without the layer.
//!
//! # Fail closed
//!
//! A rewritten message that does not read back as an rmcp message is not delivered: an outgoing
//! one fails its `send` with [`TransportError::Decode`]; an incoming response becomes a JSON-RPC
//! error for its request, an incoming server request is answered with an error, and an incoming
//! notification is dropped. Errors never quote message text.

mod error;
mod veil;

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ErrorData, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::{mpsc, oneshot};

pub use error::TransportError;
pub use veil::{BuildError, Veil, VeilBuilder};

use error::category;
use veil::Shared;

/// A message from the client toward the server.
type ToServer = ClientJsonRpcMessage;
/// A message from the server (or the layer) toward the client.
type ToClient = ServerJsonRpcMessage;

/// Work for the task that owns the wrapped transport.
enum Command {
    /// Send this (already rehydrated) message and report the wrapped transport's result.
    Send(Box<ToServer>, oneshot::Sender<Result<(), TransportError>>),
    /// Close the wrapped transport and stop.
    Close(oneshot::Sender<Result<(), TransportError>>),
}

/// What the client receives.
enum Inbound {
    /// A tokenized server message or a local reply.
    Message(Box<ToClient>),
    /// The wrapped transport ended.
    Eof,
}

enum State<T> {
    /// Not used yet: the wrapped transport is still here.
    Idle(T),
    /// The task owns the wrapped transport.
    Running {
        commands: mpsc::Sender<Command>,
        /// Weak, so that the channel closes (and `receive` ends) if the task dies.
        replies: mpsc::WeakUnboundedSender<Inbound>,
        inbound: mpsc::UnboundedReceiver<Inbound>,
        eof: bool,
    },
    /// Closed.
    Done,
}

/// An rmcp client transport behind mcp-veil: what the client receives is tokenized, what it
/// sends is rehydrated. Made by [`Veil::wrap`].
pub struct VeilTransport<T> {
    veil: Veil,
    /// The correlation name claimed in the session (the server name, made unique).
    name: Arc<str>,
    state: State<T>,
}

impl<T> fmt::Debug for VeilTransport<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.state {
            State::Idle(_) => "idle",
            State::Running { .. } => "running",
            State::Done => "closed",
        };
        f.debug_struct("VeilTransport")
            .field("server", &self.name)
            .field("session", self.veil.interceptor().session())
            .field("state", &state)
            .finish()
    }
}

impl<T> VeilTransport<T>
where
    T: Transport<RoleClient> + 'static,
{
    fn new(veil: Veil, inner: T) -> VeilTransport<T> {
        let name = veil.shared.claim(veil.server_arc());
        VeilTransport {
            veil,
            name,
            state: State::Idle(inner),
        }
    }

    /// The wrapped transport, until the first message moves it into the layer's task.
    pub fn get_ref(&self) -> Option<&T> {
        match &self.state {
            State::Idle(inner) => Some(inner),
            _ => None,
        }
    }

    /// The wrapped transport, mutably, until the first message.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        match &mut self.state {
            State::Idle(inner) => Some(inner),
            _ => None,
        }
    }

    /// Unwraps the transport, if no message went through it yet.
    pub fn into_inner(mut self) -> Option<T> {
        match std::mem::replace(&mut self.state, State::Done) {
            State::Idle(inner) => Some(inner),
            _ => None,
        }
    }

    /// The session handle.
    pub fn veil(&self) -> &Veil {
        &self.veil
    }

    /// The server name this transport's messages are attributed to (`crm`, or `crm#2` when
    /// another live transport of the session already uses `crm`).
    pub fn server_name(&self) -> &str {
        &self.name
    }

    /// Starts the task on first use; the channels to it.
    fn start(
        &mut self,
    ) -> Result<(mpsc::Sender<Command>, mpsc::UnboundedSender<Inbound>), TransportError> {
        if let State::Idle(_) = self.state
            && let State::Idle(inner) = std::mem::replace(&mut self.state, State::Done)
        {
            let (commands, command_rx) = mpsc::channel(64);
            let (replies, inbound) = mpsc::unbounded_channel();
            let weak = replies.downgrade();
            tokio::spawn(work(
                inner,
                self.veil.shared.clone(),
                self.name.clone(),
                command_rx,
                replies,
            ));
            self.state = State::Running {
                commands,
                replies: weak,
                inbound,
                eof: false,
            };
        }
        match &self.state {
            State::Running {
                commands, replies, ..
            } => Ok((
                commands.clone(),
                replies.upgrade().ok_or(TransportError::Closed)?,
            )),
            _ => Err(TransportError::Closed),
        }
    }
}

impl<T> Drop for VeilTransport<T> {
    fn drop(&mut self) {
        self.veil.shared.release(&self.name);
    }
}

impl<T> Transport<RoleClient> for VeilTransport<T>
where
    T: Transport<RoleClient> + 'static,
{
    type Error = TransportError;

    fn send(
        &mut self,
        item: ToServer,
    ) -> impl Future<Output = Result<(), TransportError>> + Send + 'static {
        let started = self.start();
        let shared = self.veil.shared.clone();
        let name = self.name.clone();
        async move {
            let (commands, replies) = started?;
            let routed = outbound(&shared, &name, item).await?;
            if let Some(reply) = routed.reply {
                replies
                    .send(Inbound::Message(Box::new(reply)))
                    .map_err(|_| TransportError::Closed)?;
            }
            if let Some(message) = routed.forward {
                let (done, result) = oneshot::channel();
                commands
                    .send(Command::Send(Box::new(message), done))
                    .await
                    .map_err(|_| TransportError::Closed)?;
                result.await.map_err(|_| TransportError::Closed)??;
            }
            Ok(())
        }
    }

    async fn receive(&mut self) -> Option<ToClient> {
        self.start().ok()?;
        let State::Running { inbound, eof, .. } = &mut self.state else {
            return None;
        };
        if *eof {
            return None;
        }
        match inbound.recv().await {
            Some(Inbound::Message(message)) => Some(*message),
            Some(Inbound::Eof) | None => {
                *eof = true;
                None
            }
        }
    }

    async fn close(&mut self) -> Result<(), TransportError> {
        match std::mem::replace(&mut self.state, State::Done) {
            State::Idle(mut inner) => inner
                .close()
                .await
                .map_err(|e| TransportError::Inner(Box::new(e))),
            State::Running { commands, .. } => {
                let (done, result) = oneshot::channel();
                if commands.send(Command::Close(done)).await.is_err() {
                    return Ok(());
                }
                result.await.unwrap_or(Ok(()))
            }
            State::Done => Ok(()),
        }
    }
}

/// What became of an outgoing message.
struct Outbound {
    /// Send this to the server.
    forward: Option<ToServer>,
    /// Deliver this to the client.
    reply: Option<ToClient>,
}

/// Runs a client message through the interceptor.
async fn outbound(
    shared: &Shared,
    server: &str,
    item: ToServer,
) -> Result<Outbound, TransportError> {
    let text = serde_json::to_string(&item).map_err(|e| TransportError::Encode(category(&e)))?;
    let outcome = shared.interceptor.from_host(server, &text).await;
    let forward = match outcome.forward {
        None => None,
        Some(Cow::Borrowed(_)) => Some(item),
        Some(Cow::Owned(new)) => Some(
            serde_json::from_str::<ToServer>(&new)
                .map_err(|e| TransportError::Decode(category(&e)))?,
        ),
    };
    let reply = match outcome.reply {
        None => None,
        Some(reply) => Some(
            serde_json::from_str::<ToClient>(&reply)
                .map_err(|e| TransportError::Decode(category(&e)))?,
        ),
    };
    Ok(Outbound { forward, reply })
}

/// What became of an incoming message.
struct Incoming {
    /// Deliver this to the client.
    deliver: Option<ToClient>,
    /// Send this back to the server.
    answer: Option<ToServer>,
}

/// Runs a server message through the interceptor.
async fn incoming(shared: &Shared, server: &str, item: ToClient) -> Incoming {
    let text = match serde_json::to_string(&item) {
        Ok(text) => text,
        Err(e) => {
            tracing::error!(server, "cannot encode a server message: {}", category(&e));
            return withheld(&item);
        }
    };
    let outcome = shared.interceptor.from_server(server, &text).await;
    let answer = outcome
        .reply
        .and_then(|reply| match serde_json::from_str::<ToServer>(&reply) {
            Ok(message) => Some(message),
            Err(e) => {
                tracing::error!(server, "cannot read the layer's answer: {}", category(&e));
                None
            }
        });
    match outcome.forward {
        None => Incoming {
            deliver: None,
            answer,
        },
        Some(Cow::Borrowed(_)) => Incoming {
            deliver: Some(item),
            answer,
        },
        Some(Cow::Owned(new)) => match serde_json::from_str::<ToClient>(&new) {
            Ok(message) => Incoming {
                deliver: Some(message),
                answer,
            },
            Err(e) => {
                tracing::error!(
                    server,
                    "a tokenized message does not read back: withheld ({})",
                    category(&e)
                );
                withheld(&item)
            }
        },
    }
}

/// Fail closed for a server message the layer could not rewrite: a response becomes an error
/// for its request, a request is refused, a notification is dropped.
fn withheld(item: &ToClient) -> Incoming {
    let error = || ErrorData::internal_error("mcp-veil: the message was withheld", None);
    match item {
        JsonRpcMessage::Response(r) => Incoming {
            deliver: Some(ToClient::error(error(), Some(r.id.clone()))),
            answer: None,
        },
        JsonRpcMessage::Error(e) => Incoming {
            deliver: Some(ToClient::error(error(), e.id.clone())),
            answer: None,
        },
        JsonRpcMessage::Request(r) => Incoming {
            deliver: None,
            answer: Some(ToServer::error(error(), Some(r.id.clone()))),
        },
        JsonRpcMessage::Notification(_) => Incoming {
            deliver: None,
            answer: None,
        },
    }
}

/// What woke the task.
#[allow(
    clippy::large_enum_variant,
    reason = "lives on the stack for one turn of the loop; boxing would allocate per message"
)]
enum Event {
    Command(Option<Command>),
    Received(Option<ToClient>),
}

/// The task that owns the wrapped transport.
async fn work<T>(
    mut inner: T,
    shared: Arc<Shared>,
    server: Arc<str>,
    mut commands: mpsc::Receiver<Command>,
    inbound: mpsc::UnboundedSender<Inbound>,
) where
    T: Transport<RoleClient> + 'static,
{
    let mut eof = false;
    loop {
        let event = tokio::select! {
            command = commands.recv() => Event::Command(command),
            received = inner.receive(), if !eof => Event::Received(received),
        };
        match event {
            Event::Command(Some(Command::Send(message, done))) => {
                let sending = inner.send(*message);
                tokio::spawn(async move {
                    let result = sending
                        .await
                        .map_err(|e| TransportError::Inner(Box::new(e)));
                    let _ = done.send(result);
                });
            }
            Event::Command(Some(Command::Close(done))) => {
                let result = inner
                    .close()
                    .await
                    .map_err(|e| TransportError::Inner(Box::new(e)));
                let _ = done.send(result);
                return;
            }
            Event::Command(None) => {
                // Every handle is gone: close quietly.
                if inner.close().await.is_err() {
                    tracing::debug!(server = &*server, "closing the wrapped transport failed");
                }
                return;
            }
            Event::Received(Some(message)) => {
                let routed = incoming(&shared, &server, message).await;
                if let Some(answer) = routed.answer {
                    let sending = inner.send(answer);
                    let server = server.clone();
                    tokio::spawn(async move {
                        if sending.await.is_err() {
                            tracing::warn!(server = &*server, "cannot answer the server");
                        }
                    });
                }
                if let Some(message) = routed.deliver {
                    // The client may be gone while the transport still sends; keep going.
                    let _ = inbound.send(Inbound::Message(Box::new(message)));
                }
            }
            Event::Received(None) => {
                eof = true;
                let _ = inbound.send(Inbound::Eof);
            }
        }
    }
}

#[cfg(test)]
mod tests;
