//! The MCP layer: an interceptor over JSON-RPC messages and the front ends that feed it.
//!
//! - [`interceptor`]: [`Interceptor`] tokenizes what servers send toward the host and
//!   rehydrates what the host sends to servers. It is transport-agnostic: it takes message text
//!   and returns an [`Outcome`] (what to forward, what to answer locally).
//! - [`flow`]: the seam where data-flow policy gives one verdict per outbound message (restore,
//!   keep, tokenize raw values, confirm, deny).
//! - [`stdio`]: `mcp-veil proxy CMD ...`, one stdio server behind the layer.
//! - [`child_env`]: the clean environment every stdio server starts with (never the layer's keys).
//! - [`transport`]: the rmcp client layer, a `Transport` decorator: `veil.wrap(transport)`.
//! - [`gateway`]: `mcp-veil proxy --config F` with `servers:`, several servers (stdio or
//!   `url:`) behind one session, their tools exposed as `{server}__{tool}`.
//! - [`http_upstream`]: a remote streamable-HTTP server driven like a stdio child.
//! - [`serve`]: `mcp-veil serve`, the streamable-HTTP gateway (axum), one gateway per session.
//! - [`shared`]: one stdio child shared by every `serve` session (`share: true`), ids and
//!   progress tokens remapped per session.
//! - [`surfaces`]: which members of lists, `initialize`, completion, progress and elicitation
//!   are scanned and which pass as identifiers, and the `surfaces:` settings.
//! - [`tool_search`]: the gateway's `search_tools` (BM25 over the scanned tool list) and the
//!   `tool_search:` settings.
//!
//! Private helpers: `classify` (strict JSON-RPC classification), `envelope` (JSON-RPC parsing and
//! splicing), `blobs` (binary members left alone), `schema` (relaxing `outputSchema` for tokens, hiding denied tools), `confirm` (asking the
//! user through elicitation), `report` (audit events), `echo` (values restored to a server are
//! tokenized again when they come back, whether or not the detector recognises them).

mod blobs;
pub mod child_env;
mod classify;
mod confirm;
mod echo;
mod envelope;
pub mod flow;
pub mod gateway;
mod host_io;
pub mod http_upstream;
pub mod interceptor;
pub mod launch;
mod listen;
mod methods;
mod mrtr;
mod report;
pub mod restore;
mod schema;
pub mod serve;
pub mod shared;
pub mod stateless;
pub mod stdio;
pub mod surfaces;
mod tasks;
pub mod tool_search;
pub mod transport;

/// Removes `key` from a table of requests in flight and, when that empties the table, gives its
/// memory back: a map keeps its capacity after its last entry goes, so every idle session
/// would hold a few hundred bytes per table it ever used (a gateway session has several). The
/// next request allocates again (one small allocation).
pub(crate) fn take_pending<K, V, Q>(map: &mut std::collections::HashMap<K, V>, key: &Q) -> Option<V>
where
    K: std::borrow::Borrow<Q> + std::hash::Hash + Eq,
    Q: std::hash::Hash + Eq + ?Sized,
{
    let taken = map.remove(key);
    if map.is_empty() {
        map.shrink_to_fit();
    }
    taken
}

pub use flow::{FlowPolicy, Outbound, RawUse, RestoreKnown, TokenUse, Verdict};
pub use interceptor::{Interceptor, Outcome};
pub use transport::{Veil, VeilTransport};
