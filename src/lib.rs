//! mcp-veil: a privacy layer for the Model Context Protocol.
//!
//! Tool results are scanned for personal data ([`detect`]); each value is replaced by a token
//! such as `[EMAIL_1]` ([`token`]) that is stable within a session ([`vault`]) before the model
//! sees it; tool-call arguments written by the model get the real values back ([`walk`]).
//!
//! The engine (`detect`, `token`, `vault`, `walk`) knows nothing about MCP; the MCP interceptor
//! and its front ends build on it. Logs never contain raw values: types that hold them wrap them
//! in [`Sensitive`], whose `Debug` is redacted.

pub mod audit;
pub mod config;
pub mod config_check;
pub mod demo;
pub mod detect;
pub mod engine;
pub mod eval;
mod glob;
mod kind;
pub mod mcp;
pub mod policy;
pub mod reveal;
pub mod sensitive;
mod session;
pub mod session_file;
pub mod shown;
pub mod testdata;
pub mod token;
pub mod vault;
pub mod walk;

pub use detect::{Detector, Kind, Span};
pub use engine::Engine;
pub use sensitive::Sensitive;
