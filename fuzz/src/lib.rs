//! The checks behind the fuzz targets, shared by the libFuzzer binaries and the stable replay
//! runner (`src/bin/replay.rs`). Each takes arbitrary bytes and panics only on a real bug:
//!
//! - [`check_detect`]: spans are in bounds, on character boundaries, sorted and disjoint; the
//!   text round trip `rehydrate_text(tokenize_text(x)) == x` holds byte for byte (as JSON
//!   values when the text is a JSON document, which is rewritten literal by literal);
//! - [`check_walk`]: any JSON serde accepts is tokenized without error into JSON of the same
//!   shape (keys may be tokenized: they can hold values too), and rehydrates to the same value;
//!   nothing panics on malformed input.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use futures::executor::block_on;
use mcp_veil::config::Config;
use mcp_veil::detect::FindContext;
use mcp_veil::vault::{MemoryVault, SessionId};
use mcp_veil::{Detector, Engine};
use serde::de::IgnoredAny;
use serde_json::Value;

const CONFIG: &str = r#"
detect:
  custom:
    - kind: EMPLOYEE_ID
      pattern: 'EMP-\d{6}'
      context: [badge, employee]
      json_keys: [employee_id]
"#;

fn detector() -> &'static Arc<Detector> {
    static D: OnceLock<Arc<Detector>> = OnceLock::new();
    D.get_or_init(|| {
        let config = Config::parse(CONFIG, Path::new("<fuzz>")).expect("fuzz config parses");
        Arc::new(Detector::new(&config.detect).expect("fuzz detector builds"))
    })
}

fn engine() -> Engine {
    Engine::new(detector().clone(), Arc::new(MemoryVault::default()))
}

/// Detector invariants and the text round trip.
pub fn check_detect(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let spans = detector().detect(text, &FindContext::default());
    let mut last_end = 0;
    for s in &spans {
        assert!(s.start < s.end && s.end <= text.len(), "span out of bounds");
        assert!(s.start >= last_end, "spans overlap or are unsorted");
        assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
        last_end = s.end;
    }
    let e = engine();
    let session = SessionId::new("fuzz");
    let t = block_on(e.tokenize_text(&session, "fuzz", text)).expect("text tokenizes");
    if folded_collision(&t) {
        return;
    }
    let back = block_on(e.rehydrate_text(&session, &t.text)).expect("own tokens resolve");
    let trimmed = text.trim_ascii();
    let json_text = (trimmed.starts_with('{') || trimmed.starts_with('['))
        && serde_json::from_str::<IgnoredAny>(text).is_ok();
    if !json_text {
        if back != text && might_be_repr(trimmed) {
            // Text bracketed like a Python/JS literal repr is read as one (`walk/repr.rs`): a
            // value found in a literal with escapes restores decoded (`E\u00e9k` as `Eék`,
            // the text the literal means), so the round trip is equal with escapes decoded.
            assert_eq!(unescaped(&back), unescaped(text), "repr text round trip");
            return;
        }
        assert_eq!(back, text, "text round trip");
        return;
    }
    // Text that is a JSON document is rewritten as JSON: string literals holding a value are
    // re-encoded (`\u00e9` may come back as `é`), so the round trip is equal as JSON.
    serde_json::from_str::<IgnoredAny>(&back).expect("JSON text stays JSON");
    if let Ok(original) = serde_json::from_str::<Value>(text) {
        let back: Value = serde_json::from_str(&back).expect("JSON text stays JSON");
        assert_eq!(back, original, "JSON text round trip");
    }
}

fn might_be_repr(t: &str) -> bool {
    let t = t.as_bytes();
    t.len() >= 4
        && matches!(
            (t[0], t[t.len() - 1]),
            (b'[', b']') | (b'{', b'}') | (b'(', b')')
        )
}

/// `text` with backslash escapes (`\n`, `\'`, `\uXXXX`, `\xHH` ...) decoded as a repr
/// literal's are; an escape that decodes to nothing valid is kept as written.
fn unescaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = chars.peek() else {
            out.push(c);
            break;
        };
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            '\'' | '"' | '\\' | '/' => Some(e),
            _ => None,
        };
        if let Some(d) = simple {
            chars.next();
            out.push(d);
            continue;
        }
        let digits = match e {
            'u' => 4,
            'x' => 2,
            _ => 0,
        };
        let hex: String = chars.clone().skip(1).take(digits).collect();
        match (digits > 0 && hex.len() == digits)
            .then(|| u32::from_str_radix(&hex, 16).ok())
            .flatten()
            .and_then(char::from_u32)
        {
            Some(d) => {
                for _ in 0..=digits {
                    chars.next();
                }
                out.push(d);
            }
            None => out.push(c),
        }
    }
    out
}

/// JSON walk: no panic on anything, structure and values preserved on valid JSON.
pub fn check_walk(data: &[u8]) {
    let Ok(doc) = std::str::from_utf8(data) else {
        return;
    };
    let e = engine();
    let session = SessionId::new("fuzz");
    let parsed = serde_json::from_str::<Value>(doc);
    let tokenized = block_on(e.tokenize_json(&session, "fuzz", doc));
    let original = match (parsed, tokenized) {
        (Ok(original), Ok(t)) => (original, t),
        (Ok(_), Err(err)) => panic!("JSON that serde accepts was rejected: {err}"),
        // Malformed input: an error, not a panic; rehydrating it must not panic either.
        (Err(_), _) => {
            let _ = block_on(e.rehydrate_json(&SessionId::new("other"), doc));
            return;
        }
    };
    let (original, t) = original;
    let out: Value = serde_json::from_str(&t.text).expect("tokenized JSON is JSON");
    if folded_collision(&t) {
        // Two surface forms of one value (`Ann@x.io`, `ann@x.io`) share a token and restore
        // as the first one seen, by design (see `vault::normalize`): no exact round trip.
        return;
    }
    assert_eq!(skeleton(&original), skeleton(&out), "shape changed");
    let back = block_on(e.rehydrate_json(&session, &t.text)).expect("own tokens resolve");
    let back: Value = serde_json::from_str(&back).expect("rehydrated JSON is JSON");
    assert_eq!(back, original, "JSON round trip");
}

/// Whether two different surface forms were given the same token.
fn folded_collision(t: &mcp_veil::engine::Tokenized<'_>) -> bool {
    let mut first: HashMap<String, &str> = HashMap::new();
    t.found.iter().zip(&t.tokens).any(|(found, token)| {
        let value = *found.value.expose();
        *first.entry(token.to_string()).or_insert(value) != value
    })
}

/// The document with every string blanked and object keys dropped (keys may hold values and
/// be tokenized too); object members are sorted so key order does not matter.
fn skeleton(v: &Value) -> String {
    match v {
        Value::String(_) => "s".into(),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(skeleton).collect();
            format!("[{}]", inner.join(","))
        }
        Value::Object(map) => {
            let mut inner: Vec<String> = map.values().map(skeleton).collect();
            inner.sort();
            format!("{{{}}}", inner.join(","))
        }
        other => other.to_string(),
    }
}

/// Values planted in the interceptor corpus (`corpus/interceptor/`). Emails: the detector
/// finds them with no context, so a mutation that keeps one intact keeps it detectable (the
/// corpus's employee ids need the word `badge` nearby, which a mutation may break).
pub const PLANTED: &[&str] = &["maria.garcia@example.com", "omar.haddad@example.org"];

/// Members of a server request or notification the host matches on (ids, cursors, progress
/// tokens): the interceptor passes them as identifiers (`mcp::surfaces`), so the planted-value
/// check leaves them out.
const IDENTIFIERS: &[&str] = &[
    "requestId",
    "progressToken",
    "elicitationId",
    "taskId",
    "nextCursor",
    "mode",
];

/// The interceptor on arbitrary message bytes, from a server and from the host: nothing panics,
/// and no planted value reaches the host raw, whether the bytes form a valid JSON-RPC message,
/// a malformed one (duplicate members, both `result` and `error`, a bad id, invalid UTF-8 ...)
/// or no message at all. What the interceptor answers the sender carries no planted value
/// either (error texts name flaws, never content).
pub fn check_interceptor(data: &[u8]) {
    let veil = mcp_veil::mcp::Interceptor::new(engine(), SessionId::new("fuzz"));
    block_on(async {
        // Pending host requests the server message may answer (a tool call, a read, a list).
        for (id, method, params) in [
            ("1", "tools/call", r#"{"name":"lookup","arguments":{}}"#),
            (
                "\"a\"",
                "tools/call",
                r#"{"name":"find","arguments":{"q":"x"}}"#,
            ),
            ("2", "resources/read", r#"{"uri":"file:///notes.txt"}"#),
            ("3", "prompts/get", r#"{"name":"brief"}"#),
        ] {
            let msg =
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#);
            let out = veil.from_host("srv", &msg).await;
            assert!(
                out.forward.is_some(),
                "a well-formed host request is forwarded"
            );
        }
        let out = veil.from_server_bytes("srv", data).await;
        if let Some(f) = out.forward.as_deref() {
            let mut sent: Value = serde_json::from_str(f).expect("the host gets JSON");
            // Base64 members are never scanned, by design (`mcp::blobs`), nor are the ids of
            // server messages; strings are compared decoded (`\u0040` is `@`).
            without_blobs(&mut sent);
            without_identifiers(&mut sent);
            assert!(
                !holds_planted(&sent.to_string()),
                "a planted value was forwarded to the host"
            );
        }
        if let Some(r) = out.reply.as_deref() {
            assert!(
                !PLANTED.iter().any(|v| r.contains(v)),
                "a planted value was in the layer's answer to the server"
            );
        }
        let out = veil.from_host_bytes("srv", data).await;
        if let Some(r) = out.reply.as_deref() {
            assert!(
                !PLANTED.iter().any(|v| r.contains(v)),
                "a planted value was in the layer's answer to the host"
            );
        }
    });
}

/// `v` without the `data` and `blob` members of content blocks and resource contents (objects
/// with a `type`, `mimeType` or `uri`), the binary members the interceptor leaves alone.
fn without_blobs(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if ["type", "mimeType", "uri"]
                .iter()
                .any(|k| map.contains_key(*k))
            {
                map.remove("data");
                map.remove("blob");
            }
            map.values_mut().for_each(without_blobs);
        }
        Value::Array(items) => items.iter_mut().for_each(without_blobs),
        _ => {}
    }
}

/// Whether `text` holds a planted email as an email: not glued to more address characters (a
/// mutation that turns `example.com` into `example.com424242` makes a different string, which
/// is no email, and the detector rightly leaves it).
fn holds_planted(text: &str) -> bool {
    PLANTED.iter().any(|v| {
        text.match_indices(v).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + v.len()..].chars().next();
            !before.is_some_and(|c| c.is_alphanumeric() || "._%+-".contains(c))
                && !after.is_some_and(|c| c.is_alphanumeric() || "-_".contains(c))
        })
    })
}

/// `v` (a message or batch) without the [`IDENTIFIERS`] of its server requests' and
/// notifications' params.
fn without_identifiers(v: &mut Value) {
    match v {
        Value::Array(items) => items.iter_mut().for_each(without_identifiers),
        Value::Object(map) if map.contains_key("method") => {
            if let Some(params) = map.get_mut("params") {
                strip_keys(params);
            }
        }
        _ => {}
    }
}

fn strip_keys(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|k, _| !IDENTIFIERS.contains(&k.as_str()));
            map.values_mut().for_each(strip_keys);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_keys),
        _ => {}
    }
}
