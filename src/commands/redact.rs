//! `mcp-veil redact`: tokenize text, JSON or JSON Lines from a file or stdin to stdout.

use futures::executor::block_on;
use mcp_veil::engine::{Deferred, EngineError};
use mcp_veil::token::Token;
use mcp_veil::vault::SessionId;
use mcp_veil::walk::WalkError;
use mcp_veil::{Engine, Kind};

use super::format::{Format, lines_or_text, lines_with_ends, opens_json};
use super::io::{read_input, write_document, write_output};
use super::session::SessionStore;
use crate::cli::{RedactArgs, Settings, input_path};
use crate::exit::Failure;

pub(super) fn run(settings: &Settings, args: &RedactArgs) -> Result<(), Failure> {
    let detector = super::detector(settings)?;
    let vault = super::vault(settings);
    let store = match &args.session {
        Some(path) => Some(SessionStore::open(path, &vault, true)?),
        None => None,
    };
    let session = store
        .as_ref()
        .map_or_else(SessionId::random, |s| s.session.clone());
    if store.is_none() {
        tracing::info!("no --session: the tokens written cannot be restored later");
    }
    let input = read_input(input_path(&args.input))?;
    let engine = Engine::new(detector, vault.clone());
    if store.is_some() {
        // Names tokenized in earlier runs of this session are recalled like today's.
        let earlier = vault.export_session(&session);
        engine.recall_names(
            &session,
            earlier
                .iter()
                .filter(|e| e.entry.token.kind == Kind::Name)
                .map(|e| e.entry.value.expose().as_str()),
        );
    }
    let output = block_on(redact(&engine, &session, &input))?;
    // Save before writing: output whose tokens cannot be restored is worse than none.
    if let Some(store) = &store {
        store.save(&vault)?;
    }
    match &output {
        Output::Document(d) => write_document(d)?,
        Output::Lines(text) => write_output(text)?,
    }
    // The process exits next: freeing the session's table, the detector and the values found
    // one by one (tens of thousands of small blocks for a large file) would only cost time
    // (1–3% of a run), as the exit hands all of it back at once. Nothing here needs its drop
    // to run: the session was saved above, and values are not wiped on drop
    // (`sensitive.rs`), so leaving them in memory to the exit is what freeing them did.
    std::mem::forget(output);
    std::mem::forget(engine);
    std::mem::forget(vault);
    Ok(())
}

/// What `redact` writes: one document, minted and not yet written (written to stdout as it
/// goes, after the session is saved: no second copy of a large input is built), or the lines
/// of a JSON Lines input, each rewritten on its own.
enum Output<'a> {
    Document(Deferred<'a>),
    Lines(String),
}

/// Tokenizes `input` in the format it is in (see `format.rs`).
async fn redact<'a>(
    engine: &Engine,
    session: &SessionId,
    input: &'a str,
) -> Result<Output<'a>, EngineError> {
    let mut values = 0;
    let mut format = Format::Text;
    if opens_json(input) {
        match engine
            .tokenize_json_deferred(session, super::ORIGIN, input)
            .await
        {
            Ok(d) => {
                values = d.found.len();
                trace_tokens(&d.tokens);
                tracing::info!(format = ?Format::Json, values, bytes = input.len(), "redacted");
                return Ok(Output::Document(d));
            }
            // Not one JSON document (JSON Lines, text, a truncated document): read by lines
            // below.
            Err(EngineError::Walk(WalkError::Json(_))) => format = lines_or_text(input),
            Err(e) => return Err(e),
        }
    }
    let output = match format {
        Format::JsonLines => {
            let mut out = String::with_capacity(input.len() + input.len() / 8);
            for (line, end) in lines_with_ends(input) {
                if line.trim_ascii().is_empty() {
                    out.push_str(line);
                } else {
                    let t = match engine.tokenize_json(session, super::ORIGIN, line).await {
                        Err(EngineError::Walk(WalkError::Json(_))) => {
                            engine.tokenize_text(session, super::ORIGIN, line).await?
                        }
                        other => other?,
                    };
                    // Each line's values are freed with it: one line's are few, and
                    // keeping every line's would hold a whole file's worth of them.
                    values += t.found.len();
                    trace_tokens(&t.tokens);
                    out.push_str(&t.text);
                }
                out.push_str(end);
            }
            Output::Lines(out)
        }
        Format::Json | Format::Text => {
            let d = engine
                .tokenize_text_deferred(session, super::ORIGIN, input)
                .await?;
            values = d.found.len();
            trace_tokens(&d.tokens);
            Output::Document(d)
        }
    };
    tracing::info!(?format, values, bytes = input.len(), "redacted");
    Ok(output)
}

/// The tokens written, at TRACE level (tokens only, never values).
fn trace_tokens(tokens: &[Token]) {
    if tracing::enabled!(tracing::Level::TRACE) {
        let names: Vec<String> = tokens.iter().map(ToString::to_string).collect();
        tracing::trace!(tokens = %names.join(" "), "tokens written");
    }
}
