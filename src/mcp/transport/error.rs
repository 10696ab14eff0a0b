//! Errors of the rmcp transport decorator.
//!
//! Messages never quote message text: a JSON (de)serialization error from `serde_json` can
//! quote the value it choked on, so only its category is kept.

use std::error::Error as StdError;

/// Why a wrapped transport could not send or close.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The wrapped transport failed (its own error is the source).
    #[error("the wrapped transport failed")]
    Inner(#[source] Box<dyn StdError + Send + Sync + 'static>),
    /// An outgoing rmcp message could not be written as JSON.
    #[error("cannot encode a message as JSON ({0})")]
    Encode(&'static str),
    /// The layer's rewritten message is not a valid rmcp message (it is not sent: fail closed).
    #[error("the rewritten message is not a valid MCP message ({0})")]
    Decode(&'static str),
    /// The transport's background task has stopped (the connection closed or was dropped).
    #[error("the transport is closed")]
    Closed,
}

/// The category of a serde_json error, without the text it may quote.
pub(super) fn category(e: &serde_json::Error) -> &'static str {
    match e.classify() {
        serde_json::error::Category::Io => "i/o error",
        serde_json::error::Category::Syntax => "syntax error",
        serde_json::error::Category::Data => "unexpected shape",
        serde_json::error::Category::Eof => "unexpected end",
    }
}
