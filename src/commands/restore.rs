//! `mcp-veil restore`: put back the values behind the tokens of a session file.

use std::borrow::Cow;

use futures::executor::block_on;
use mcp_veil::Engine;
use mcp_veil::engine::EngineError;
use mcp_veil::vault::SessionId;
use mcp_veil::walk::WalkError;

use super::format::{Format, lines_or_text, lines_with_ends, opens_json};
use super::io::{read_input, write_output};
use super::session::SessionStore;
use crate::cli::{RestoreArgs, Settings, input_path};
use crate::exit::Failure;

pub(super) fn run(settings: &Settings, args: &RestoreArgs) -> Result<(), Failure> {
    let detector = super::detector(settings)?;
    let vault = super::vault(settings);
    let store = SessionStore::open(&args.session, &vault, false)?;
    let input = read_input(input_path(&args.input))?;
    let engine = Engine::new(detector, vault);
    let output = block_on(restore(&engine, &store.session, &input))?;
    write_output(&output)?;
    Ok(())
}

/// Restores `input` read as `redact` reads it (see `format.rs`).
async fn restore(engine: &Engine, session: &SessionId, input: &str) -> Result<String, EngineError> {
    let mut format = Format::Text;
    if opens_json(input) {
        match engine.rehydrate_json(session, input).await {
            Ok(out) => {
                tracing::info!(format = ?Format::Json, bytes = input.len(), "restored");
                return Ok(out.into_owned());
            }
            Err(EngineError::Walk(WalkError::Json(_))) => format = lines_or_text(input),
            Err(e) => return Err(e),
        }
    }
    let out = match format {
        Format::JsonLines => {
            let mut out = String::with_capacity(input.len());
            for (line, end) in lines_with_ends(input) {
                out.push_str(&json_or_text(engine, session, line).await?);
                out.push_str(end);
            }
            out
        }
        Format::Json | Format::Text => engine.rehydrate_text(session, input).await?.into_owned(),
    };
    tracing::info!(?format, bytes = input.len(), "restored");
    Ok(out)
}

async fn json_or_text<'a>(
    engine: &Engine,
    session: &SessionId,
    doc: &'a str,
) -> Result<Cow<'a, str>, EngineError> {
    if doc.trim_ascii().is_empty() {
        return Ok(Cow::Borrowed(doc));
    }
    match engine.rehydrate_json(session, doc).await {
        Err(EngineError::Walk(WalkError::Json(_))) => engine.rehydrate_text(session, doc).await,
        other => other,
    }
}
