//! The 2026-07-28 stateless lifecycle, as the layer needs it: which requests are stateless,
//! what an HTTP front end must check before it handles one, and which HTTP status a JSON-RPC
//! error answer gets.
//!
//! From 2026-07-28 a client sends no `initialize` and holds no session: every request carries
//! its protocol version and capabilities in `params._meta`
//! (`io.modelcontextprotocol/protocolVersion`, `.../clientCapabilities`, `.../clientInfo`), and
//! over HTTP the same version in `MCP-Protocol-Version`. The layer passes that `_meta` on
//! unchanged, puts it on the requests it makes itself for such a client (the gateway's list
//! fan-outs, its `server/discover` of each upstream), and sends such requests to `url:`
//! upstreams without an `Mcp-Session-Id` and with the request's own version as the header.
//! Which vault session a stateless client's tokens live in is the HTTP front end's decision
//! (see `serve::Gateway::key`): there is no session id to key it by.
//!
//! The rule for "stateless" is the one the reference server uses: a request without a session
//! id that carries the version header or `_meta`, unless it carries no `_meta` and names a
//! session-era version in the header (that is an old client's request).

use serde_json::Value;

/// `_meta` key of the request's protocol version.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of a server's identity in a result.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The stateless protocol version the layer knows.
pub const VERSION: &str = "2026-07-28";
/// Protocol versions with the `initialize`/session lifecycle.
pub const SESSION_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// JSON-RPC code: the `MCP-Protocol-Version` header is missing or disagrees with `_meta`.
pub const HEADER_MISMATCH: i64 = -32020;
/// JSON-RPC code: invalid params (here: `_meta` or its required fields missing).
pub const INVALID_PARAMS: i64 = -32602;

/// Whether `version` uses the session lifecycle.
pub fn is_session_version(version: &str) -> bool {
    SESSION_VERSIONS.contains(&version)
}

/// The stateless protocol version a request's params name in `_meta`, if any.
pub fn params_version(params: &Value) -> Option<&str> {
    params
        .get("_meta")?
        .get(META_VERSION)?
        .as_str()
        .filter(|v| !is_session_version(v))
}

/// The `_meta` of a stateless request's params (see [`params_version`]).
pub fn params_meta(params: &Value) -> Option<&Value> {
    params_version(params)?;
    params.get("_meta")
}

/// The stateless protocol version of a request line, if it is one (see [`params_version`]).
pub fn line_version(line: &str) -> Option<String> {
    let env = super::envelope::Envelope::parse(line).ok()?;
    env.method.as_ref()?;
    let params: Value = serde_json::from_str(env.params?.get()).ok()?;
    params_version(&params).map(str::to_string)
}

/// JSON-RPC code: the server does not support the request's protocol version (its `data`
/// lists the `supported` ones).
pub const UNSUPPORTED_VERSION: i64 = -32022;

/// The version to ask again with after `answer` (a JSON-RPC answer to a stateless request
/// made at `asked`) refused it: for an unsupported-version error, [`VERSION`] when the server
/// lists it as supported (even when it was the one asked: a server may refuse a first
/// request); for any other error, [`VERSION`] when another version was asked. `None`: the
/// answer is a result, or asking again cannot help.
pub fn retry_version(answer: &Value, asked: Option<&Value>) -> Option<&'static str> {
    let error = answer.get("error")?;
    if error.get("code").and_then(Value::as_i64) == Some(UNSUPPORTED_VERSION) {
        let supported = error.pointer("/data/supported")?.as_array()?;
        return supported
            .iter()
            .any(|v| v.as_str() == Some(VERSION))
            .then_some(VERSION);
    }
    (asked.and_then(Value::as_str) != Some(VERSION)).then_some(VERSION)
}

/// The per-request checks of a stateless host's request on any transport (`params`: its
/// params): `_meta` with the protocol version and the client capabilities (else
/// [`INVALID_PARAMS`]), the version one the layer speaks (else [`UNSUPPORTED_VERSION`], with
/// `data` naming the supported ones). The error as (code, message, data).
pub fn check_meta(params: &Value) -> Result<(), (i64, &'static str, Option<Value>)> {
    let meta = params.get("_meta");
    let version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    let capabilities = meta.and_then(|m| m.get(META_CAPABILITIES));
    let (Some(version), Some(_)) = (version, capabilities) else {
        return Err((
            INVALID_PARAMS,
            "a stateless request needs `_meta` with the protocol version and the client capabilities",
            None,
        ));
    };
    if version != VERSION {
        return Err((
            UNSUPPORTED_VERSION,
            "unsupported protocol version",
            Some(serde_json::json!({"supported": [VERSION], "requested": version})),
        ));
    }
    Ok(())
}

/// Why an HTTP front end refuses a stateless request before handling it: HTTP 400 with this
/// JSON-RPC code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The JSON-RPC error code.
    pub code: i64,
    /// The error message (names headers and fields, never values).
    pub message: &'static str,
}

/// Whether one HTTP request is stateless (`Ok(true)`), an old-style one (`Ok(false)`), or a
/// stateless one to refuse. `header` is `MCP-Protocol-Version`, `session` whether an
/// `Mcp-Session-Id` came, `params` the message's params.
pub fn check_http(
    header: Option<&str>,
    session: bool,
    params: Option<&Value>,
) -> Result<bool, Refusal> {
    let meta = params.and_then(|p| p.get("_meta"));
    let legacy = meta.is_none() && header.is_some_and(is_session_version);
    if session || (header.is_none() && meta.is_none()) || legacy {
        return Ok(false);
    }
    let Some(header) = header else {
        return Err(Refusal {
            code: HEADER_MISMATCH,
            message: "a stateless request needs the MCP-Protocol-Version header",
        });
    };
    let version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    let capabilities = meta.and_then(|m| m.get(META_CAPABILITIES));
    let (Some(version), Some(_)) = (version, capabilities) else {
        return Err(Refusal {
            code: INVALID_PARAMS,
            message: "a stateless request needs `_meta` with the protocol version and the client capabilities",
        });
    };
    if version != header {
        return Err(Refusal {
            code: HEADER_MISMATCH,
            message: "the MCP-Protocol-Version header does not match `_meta`",
        });
    }
    Ok(true)
}

/// The HTTP status of a stateless request answered with JSON-RPC error `code`: 404 for an
/// unknown method, 400 for invalid params, a header mismatch, a missing client capability
/// and an unsupported version, else 200.
pub fn http_status(code: i64) -> u16 {
    match code {
        -32601 => 404,
        -32602 | -32020 | -32021 | -32022 => 400,
        _ => 200,
    }
}

/// The error code of a JSON-RPC error answer.
pub fn error_code(message: &str) -> Option<i64> {
    let v: Value = serde_json::from_str(message).ok()?;
    v.get("error")?.get("code")?.as_i64()
}

/// `_meta` keys that carry the stateless lifecycle (a session-era server has no use for them).
const LIFECYCLE_KEYS: [&str; 3] = [
    META_VERSION,
    META_CAPABILITIES,
    "io.modelcontextprotocol/clientInfo",
];

/// A stateless request rewritten for a session-era server (one that was initialized because it
/// does not answer `server/discover`): without the lifecycle keys of `_meta` (and without
/// `_meta` when nothing else is in it). `None` when there is nothing to take out.
pub fn for_session_server(line: &str) -> Option<String> {
    if !line.contains(META_VERSION) {
        return None;
    }
    let mut v: Value = serde_json::from_str(line).ok()?;
    let params = v.get_mut("params")?.as_object_mut()?;
    let meta = params.get_mut("_meta")?.as_object_mut()?;
    for key in LIFECYCLE_KEYS {
        meta.remove(key);
    }
    if meta.is_empty() {
        params.remove("_meta");
    }
    Some(v.to_string())
}

/// What a stateless result must carry, added where missing: `resultType` (`complete`) and,
/// for a `cacheable` one (discovery, lists, `resources/read`), `ttlMs` 0 and `cacheScope`
/// `private` (no caching: nothing is promised that the server did not say).
pub fn stamp(result: &mut Value, cacheable: bool) {
    let Some(map) = result.as_object_mut() else {
        return;
    };
    map.entry("resultType").or_insert_with(|| "complete".into());
    if cacheable {
        map.entry("ttlMs").or_insert_with(|| 0.into());
        map.entry("cacheScope").or_insert_with(|| "private".into());
    }
}

/// A session-era server's answer (one JSON-RPC message) stamped for a stateless client (see
/// [`stamp`]; a `resources/read` result, one with `contents`, is cacheable); `None` when it is
/// not a result or already carries what it must.
pub fn stamp_answer(line: &str) -> Option<String> {
    let mut v: Value = serde_json::from_str(line).ok()?;
    let result = v.get_mut("result")?;
    let before = result.clone();
    let cacheable = result.get("contents").is_some();
    stamp(result, cacheable);
    (*result != before).then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(version: &str) -> Value {
        json!({"_meta": {META_VERSION: version, META_CAPABILITIES: {}}})
    }

    #[test]
    fn stateless_requests_are_told_from_session_ones() {
        // A session request, an initialize without header or _meta, an old client naming its
        // version in the header only.
        assert_eq!(
            check_http(Some(VERSION), true, Some(&meta(VERSION))),
            Ok(false)
        );
        assert_eq!(check_http(None, false, Some(&json!({}))), Ok(false));
        assert_eq!(
            check_http(Some("2025-11-25"), false, Some(&json!({}))),
            Ok(false)
        );
        assert_eq!(
            check_http(Some(VERSION), false, Some(&meta(VERSION))),
            Ok(true)
        );
        assert_eq!(params_version(&meta(VERSION)), Some(VERSION));
        assert_eq!(params_version(&meta("2025-11-25")), None);
    }

    #[test]
    fn malformed_stateless_requests_are_refused() {
        let code = |h: Option<&str>, p: Value| check_http(h, false, Some(&p)).map_err(|r| r.code);
        assert_eq!(code(Some(VERSION), json!({})), Err(INVALID_PARAMS));
        assert_eq!(
            code(Some(VERSION), json!({"_meta": {META_VERSION: VERSION}})),
            Err(INVALID_PARAMS)
        );
        assert_eq!(code(None, meta(VERSION)), Err(HEADER_MISMATCH));
        assert_eq!(code(Some(VERSION), meta("v999")), Err(HEADER_MISMATCH));
        // An unknown version agreeing with the header is the server's to refuse (-32022).
        assert_eq!(code(Some("v999"), meta("v999")), Ok(true));
    }

    #[test]
    fn session_servers_get_plain_requests_and_stamped_answers() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "t", "_meta": {META_VERSION: VERSION, META_CAPABILITIES: {}, "progressToken": 3}}});
        let plain: Value =
            serde_json::from_str(&for_session_server(&call.to_string()).unwrap()).unwrap();
        assert_eq!(plain["params"]["_meta"], json!({"progressToken": 3}));
        let bare = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(VERSION)["_meta"]}});
        let plain: Value =
            serde_json::from_str(&for_session_server(&bare.to_string()).unwrap()).unwrap();
        assert_eq!(plain["params"], json!({}));
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{"contents":[]}}"#;
        let stamped: Value = serde_json::from_str(&stamp_answer(answer).unwrap()).unwrap();
        assert_eq!(stamped["result"]["resultType"], "complete");
        assert_eq!(stamped["result"]["cacheScope"], "private");
        let done = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#;
        assert_eq!(stamp_answer(done), None);
    }

    #[test]
    fn stateless_requests_are_checked_on_any_transport() {
        assert!(check_meta(&meta(VERSION)).is_ok());
        let no_caps = json!({"_meta": {META_VERSION: VERSION}});
        assert_eq!(check_meta(&no_caps).unwrap_err().0, INVALID_PARAMS);
        assert_eq!(check_meta(&json!({})).unwrap_err().0, INVALID_PARAMS);
        let (code, _, data) = check_meta(&meta("2027-01-01")).unwrap_err();
        assert_eq!(code, UNSUPPORTED_VERSION);
        assert_eq!(data.unwrap()["supported"], json!([VERSION]));
    }

    #[test]
    fn a_refused_discovery_is_retried_at_a_supported_version() {
        let unsupported = |supported: Value| {
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "Unsupported",
                   "data": {"supported": supported, "requested": VERSION}}})
        };
        let asked = json!(VERSION);
        assert_eq!(
            retry_version(&unsupported(json!([VERSION])), Some(&asked)),
            Some(VERSION)
        );
        assert_eq!(
            retry_version(&unsupported(json!(["2027-01-01"])), Some(&asked)),
            None
        );
        let not_found =
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}});
        assert_eq!(retry_version(&not_found, Some(&asked)), None);
        assert_eq!(
            retry_version(&not_found, Some(&json!("2027-01-01"))),
            Some(VERSION)
        );
        let ok = json!({"jsonrpc": "2.0", "id": 1, "result": {}});
        assert_eq!(retry_version(&ok, Some(&asked)), None);
    }

    #[test]
    fn error_codes_map_to_http_statuses() {
        assert_eq!(http_status(-32601), 404);
        assert_eq!(http_status(-32022), 400);
        assert_eq!(http_status(-32603), 200);
        let answer = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"m"}}"#;
        assert_eq!(error_code(answer), Some(-32021));
        assert_eq!(line_version(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#).as_deref(), Some(VERSION));
    }
}
