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
        let value = found.value.expose().as_str();
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
