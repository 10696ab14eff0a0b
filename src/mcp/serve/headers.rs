//! What the gateway checks in a request's headers before it reaches a session: the stateless
//! (2026-07-28) request rules, `Mcp-Method` / `Mcp-Name` against the body (SEP-2243), and the
//! `Mcp-Param-*` headers against a tool's arguments, with the refusals they answer.

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::session::Session;
use crate::mcp::envelope::{self, Envelope};
use crate::mcp::stateless;

/// A JSON answer with `status` (a stateless request's error answer gets 400 or 404).
pub(super) fn stateless_answer(status: u16, body: String) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// A refusal of one request: HTTP status plus a JSON-RPC error carrying the request's id.
pub(super) fn refuse_request(status: StatusCode, item: &str, code: i64, message: &str) -> Response {
    let id = Envelope::parse(item)
        .ok()
        .and_then(|e| e.id_key().map(str::to_string));
    let body = envelope::error_response(id.as_deref(), code, &format!("mcp-veil: {message}"));
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Whether one message is a stateless (2026-07-28) request (see [`stateless::check_http`]),
/// or its refusal (HTTP 400).
#[allow(clippy::result_large_err)]
pub(super) fn stateless_request(headers: &HeaderMap, item: &str) -> Result<bool, Response> {
    stateless_verdict(headers, item)
        .map_err(|r| refuse_request(StatusCode::BAD_REQUEST, item, r.code, r.message))
}

/// [`stateless_request`] for an item of a batch: its refusal is the JSON-RPC error answer.
pub(super) fn stateless_check(headers: &HeaderMap, item: &str) -> Result<bool, String> {
    stateless_verdict(headers, item).map_err(|r| {
        let id = Envelope::parse(item)
            .ok()
            .and_then(|e| e.id_key().map(str::to_string));
        envelope::error_response(id.as_deref(), r.code, &format!("mcp-veil: {}", r.message))
    })
}

fn stateless_verdict(headers: &HeaderMap, item: &str) -> Result<bool, stateless::Refusal> {
    let Ok(env) = Envelope::parse(item) else {
        return Ok(false);
    };
    if env.method.is_none() || env.id.is_none() {
        return Ok(false);
    }
    let params: Option<serde_json::Value> =
        env.params.and_then(|p| serde_json::from_str(p.get()).ok());
    let version = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok());
    let session = headers.contains_key("mcp-session-id");
    stateless::check_http(version, session, params.as_ref())
}

/// A request refused for its `Mcp-*` headers (SEP-2243): HTTP 400, `-32020` (HeaderMismatch),
/// with the request's id.
pub(super) fn refuse_header(item: &str, message: &str) -> Response {
    let env = Envelope::parse(item).unwrap_or_else(|_| Envelope::none());
    let body = envelope::error_response(
        env.id_key(),
        crate::mcp::stateless::HEADER_MISMATCH,
        &format!("mcp-veil: {message}"),
    );
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response()
}

/// Whether the standard `Mcp-*` request headers are required (SEP-2243): on a 2026-07-28
/// request (a protocol version header that is not a session-era one, no session id). Before,
/// they are only checked when sent.
fn headers_required(headers: &HeaderMap) -> bool {
    !headers.contains_key("mcp-session-id")
        && headers
            .get("mcp-protocol-version")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| !crate::mcp::stateless::is_session_version(v))
}

/// `Mcp-Method` and `Mcp-Name` (2026-07-28) must agree with the body (`=?base64?...?=` values
/// decoded; `Mcp-Name` is the tool or prompt name, the resource URI, the task id); a mismatch
/// is refused rather than guessed at, and so is a missing one on a 2026-07-28 request.
/// Upstream, these headers are recomputed from the message actually sent.
pub(super) fn check_routing_headers(headers: &HeaderMap, item: &str) -> Result<(), String> {
    let required = headers_required(headers);
    let header = |name: &str| -> Option<Option<String>> {
        headers.get(name).map(|v| {
            v.to_str()
                .ok()
                .and_then(crate::mcp::http_upstream::decode_header_value)
        })
    };
    let Ok(env) = Envelope::parse(item) else {
        return Ok(());
    };
    let Some(method) = env.method.as_deref() else {
        return Ok(());
    };
    match header("mcp-method") {
        Some(sent) if sent.as_deref() != Some(method) => {
            return Err("the Mcp-Method header does not match the body".into());
        }
        None if required && env.id.is_some() => {
            return Err("the Mcp-Method header is missing".into());
        }
        _ => {}
    }
    let params: Option<serde_json::Value> =
        env.params.and_then(|p| serde_json::from_str(p.get()).ok());
    let in_body = params
        .as_ref()
        .and_then(|p| crate::mcp::http_upstream::routing_name(method, p));
    match header("mcp-name") {
        Some(sent) if sent.as_deref() != in_body => {
            return Err("the Mcp-Name header does not match the body".into());
        }
        // Required where SEP-2243 and SEP-2663 name it, not on every method with a `name`.
        None if required
            && in_body.is_some()
            && matches!(
                method,
                "tools/call"
                    | "prompts/get"
                    | "resources/read"
                    | "tasks/get"
                    | "tasks/update"
                    | "tasks/cancel"
            ) =>
        {
            return Err("the Mcp-Name header is missing".into());
        }
        _ => {}
    }
    Ok(())
}

/// `Mcp-Param-{H}` headers of a `tools/call` must equal the argument the tool's schema maps to
/// `H` (`x-mcp-header`, learnt from this session's `tools/list`), compared as the client sent
/// them (tokens, before any restoring); on a 2026-07-28 request one that is missing while the
/// argument is given is refused. Headers of unknown tools or suffixes are not checked.
pub(super) fn check_param_headers(
    headers: &HeaderMap,
    item: &str,
    session: &Session,
) -> Result<(), String> {
    let Ok(env) = Envelope::parse(item) else {
        return Ok(());
    };
    if env.method.as_deref() != Some("tools/call") {
        return Ok(());
    }
    let params: Option<serde_json::Value> =
        env.params.and_then(|p| serde_json::from_str(p.get()).ok());
    let Some(tool) = params
        .as_ref()
        .and_then(|p| p.get("name"))
        .and_then(serde_json::Value::as_str)
    else {
        return Ok(());
    };
    let required = headers_required(headers);
    for (suffix, arg) in session.param_headers(tool) {
        let expected = match params
            .as_ref()
            .and_then(|p| p.pointer(&format!("/arguments/{arg}")))
        {
            Some(serde_json::Value::String(s)) => Some(s.clone()),
            Some(serde_json::Value::Null) | None => None,
            Some(other) => Some(other.to_string()),
        };
        let Some(value) = headers.get(format!("mcp-param-{suffix}").as_str()) else {
            if required && expected.is_some() {
                return Err(format!("the Mcp-Param-{suffix} header is missing"));
            }
            continue;
        };
        let sent = value
            .to_str()
            .ok()
            .and_then(crate::mcp::http_upstream::decode_header_value);
        if sent != expected {
            return Err(format!(
                "the Mcp-Param-{suffix} header does not match the `{arg}` argument"
            ));
        }
    }
    Ok(())
}
