//! `mcp-veil redact`: tokenize text, JSON or JSON Lines from a file or stdin to stdout.

use futures::executor::block_on;
use mcp_veil::engine::{EngineError, Tokenized};
use mcp_veil::token::Token;
use mcp_veil::vault::SessionId;
use mcp_veil::walk::{FoundValues, WalkError};
use mcp_veil::{Engine, Kind};

use super::format::{Format, lines_or_text, lines_with_ends, opens_json};
use super::io::{read_input, write_output};
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
    let (output, leftovers) = block_on(redact(&engine, &session, &input))?;
    // Save before writing: output whose tokens cannot be restored is worse than none.
    if let Some(store) = &store {
        store.save(&vault)?;
    }
    write_output(&output)?;
    // The process exits next: freeing the session's table, the detector and the values found
    // one by one (tens of thousands of small blocks for a large file) would only cost time
    // (1–3% of a run), as the exit hands all of it back at once. Nothing here needs its drop
    // to run: the session was saved above, and values are not wiped on drop
    // (`sensitive.rs`), so leaving them in memory to the exit is what freeing them did.
    std::mem::forget(leftovers);
    std::mem::forget(engine);
    std::mem::forget(vault);
    Ok(())
}

/// What a whole document's tokenization found, kept past the output for the exit to free
/// (see `run`).
type Leftovers = Option<(FoundValues, Vec<Token>)>;

/// Tokenizes `input` in the format it is in (see `format.rs`).
async fn redact(
    engine: &Engine,
    session: &SessionId,
    input: &str,
) -> Result<(String, Leftovers), EngineError> {
    let mut values = 0;
    let mut format = Format::Text;
    if opens_json(input) {
        match engine.tokenize_json(session, super::ORIGIN, input).await {
            Ok(t) => {
                let (out, left) = counted(t, &mut values);
                tracing::info!(format = ?Format::Json, values, bytes = input.len(), "redacted");
                return Ok((out, Some(left)));
            }
            // Not one JSON document (JSON Lines, text, a truncated document): read by lines
            // below.
            Err(EngineError::Walk(WalkError::Json(_))) => format = lines_or_text(input),
            Err(e) => return Err(e),
        }
    }
    let mut leftovers = None;
    let out = match format {
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
                    out.push_str(&counted(t, &mut values).0);
                }
                out.push_str(end);
            }
            out
        }
        Format::Json | Format::Text => {
            let t = engine.tokenize_text(session, super::ORIGIN, input).await?;
            let (out, left) = counted(t, &mut values);
            leftovers = Some(left);
            out
        }
    };
    tracing::info!(?format, values, bytes = input.len(), "redacted");
    Ok((out, leftovers))
}

/// The text of `t`, with its count of values added to `values`; its found values and tokens
/// are given back for the caller to drop or keep.
fn counted(t: Tokenized<'_>, values: &mut usize) -> (String, (FoundValues, Vec<Token>)) {
    *values += t.found.len();
    if tracing::enabled!(tracing::Level::TRACE) {
        let names: Vec<String> = t.tokens.iter().map(ToString::to_string).collect();
        tracing::trace!(tokens = %names.join(" "), "tokens written");
    }
    (t.text.into_owned(), (t.found, t.tokens))
}
