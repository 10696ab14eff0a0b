//! The gateway's JSON helpers: reading the host's first message, building and merging list
//! results and capabilities, and editing a message's params without reordering them.

use serde_json::Value;
use serde_json::value::RawValue;

use super::super::envelope::{self, Envelope};
use super::super::stateless;
use super::{ListKind, PROPOSED_VERSION};

/// `answer` (a JSON-RPC answer) with its id replaced by `id` (JSON text).
pub(super) fn answer_with_id(answer: &str, id: &str) -> String {
    match Envelope::parse(answer).ok().and_then(|e| e.id) {
        Some(raw) => envelope::splice(answer, raw.get(), id),
        None => answer.to_string(),
    }
}

/// The result of an upstream's answer to the gateway's own `method`, or its error's message.
pub(super) fn result_of(name: &str, method: &str, mut answer: Value) -> Result<Value, String> {
    if let Some(error) = answer.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("error");
        return Err(format!(
            "server `{name}` answered {method} with an error: {message}"
        ));
    }
    Ok(answer
        .get_mut("result")
        .map(Value::take)
        .unwrap_or(Value::Null))
}

/// The `_meta` of the host's first message when it is a stateless (2026-07-28) request.
pub(super) fn stateless_meta(message: &str) -> Option<Value> {
    let env = Envelope::parse(message).ok()?;
    env.method.as_ref()?;
    let params: Value = serde_json::from_str(env.params?.get()).ok()?;
    stateless::params_meta(&params).cloned()
}

/// The protocol version an `initialize` message asks for, when it is a dated version no newer
/// than the one the gateway speaks ([`PROPOSED_VERSION`]); a newer one gets that one.
pub(super) fn requested_version(message: &str) -> Option<String> {
    let env = Envelope::parse(message).ok()?;
    if env.method.as_deref() != Some("initialize") {
        return None;
    }
    let params: Value = serde_json::from_str(env.params?.get()).ok()?;
    let version = params.get("protocolVersion")?.as_str()?;
    let dated = version.len() == 10
        && version.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !dated {
        return None;
    }
    Some(version.min(PROPOSED_VERSION).to_string())
}

/// The `roots` capability of the host's `initialize`, when it declares one: upstreams are
/// initialized with it, and their `roots/list` requests reach the host.
pub(super) fn host_roots(message: &str) -> Option<Value> {
    let env = Envelope::parse(message).ok()?;
    if env.method.as_deref() != Some("initialize") {
        return None;
    }
    let params: Value = serde_json::from_str(env.params?.get()).ok()?;
    params
        .pointer("/capabilities/roots")
        .filter(|r| r.is_object())
        .cloned()
}

/// A list answer to the host: the merged items, then the merged list-level fields.
pub(super) fn list_result(
    kind: ListKind,
    items: Vec<Value>,
    fields: serde_json::Map<String, Value>,
) -> Value {
    let mut result = serde_json::Map::new();
    result.insert(kind.key().to_string(), Value::Array(items));
    result.extend(fields);
    Value::Object(result)
}

/// Merges the list-level fields of one page (or one server's list) into `into`: `_meta`
/// objects key by key (the first value of a key wins), the shortest `ttlMs`, `cacheScope`
/// `private` as soon as one list is private, any other field as first seen.
pub(super) fn merge_list_fields(
    into: &mut serde_json::Map<String, Value>,
    from: impl IntoIterator<Item = (String, Value)>,
) {
    for (key, value) in from {
        match (key.as_str(), into.get_mut(&key)) {
            (_, None) => {
                into.insert(key, value);
            }
            ("_meta", Some(Value::Object(existing))) => {
                if let Value::Object(more) = value {
                    for (k, v) in more {
                        existing.entry(k).or_insert(v);
                    }
                }
            }
            ("ttlMs", Some(existing)) => {
                if let (Some(a), Some(b)) = (existing.as_u64(), value.as_u64())
                    && b < a
                {
                    *existing = value;
                }
            }
            ("cacheScope", Some(existing)) if value.as_str() == Some("private") => {
                *existing = value;
            }
            _ => {}
        }
    }
}

/// `text` (a request) with `params[key]` replaced by `value`; other params keep their bytes
/// and their order.
pub(super) fn with_param(text: &str, key: &str, value: impl serde::Serialize) -> Option<String> {
    let env = Envelope::parse(text).ok()?;
    let params = env.params?;
    let OrderedRaw(mut fields) = serde_json::from_str(params.get()).ok()?;
    let value = serde_json::value::to_raw_value(&value).ok()?;
    match fields.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => *v = value,
        None => fields.push((key.to_string(), value)),
    }
    let mut new = String::from("{");
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            new.push(',');
        }
        new.push_str(&serde_json::to_string(k).ok()?);
        new.push(':');
        new.push_str(v.get());
    }
    new.push('}');
    Some(envelope::splice(text, params.get(), &new))
}

/// A JSON object's members in their order, values as raw text (a later duplicate key wins,
/// in the first one's place).
pub(super) struct OrderedRaw(Vec<(String, Box<RawValue>)>);

impl<'de> serde::Deserialize<'de> for OrderedRaw {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = OrderedRaw;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<OrderedRaw, A::Error> {
                let mut out: Vec<(String, Box<RawValue>)> = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Box<RawValue>>()? {
                    match out.iter_mut().find(|(existing, _)| *existing == k) {
                        Some((_, slot)) => *slot = v,
                        None => out.push((k, v)),
                    }
                }
                Ok(OrderedRaw(out))
            }
        }
        d.deserialize_map(Members)
    }
}

/// Deep-merges capability objects: objects merge key by key, `true` wins over `false`, the
/// first value wins otherwise.
pub(super) fn merge_into(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(k) {
                    Some(existing) => merge_into(existing, v),
                    None => {
                        a.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (Value::Bool(a), Value::Bool(b)) => *a |= *b,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn capabilities_merge() {
        let mut a = json!({"tools": {"listChanged": false}, "logging": {}});
        merge_into(
            &mut a,
            &json!({"tools": {"listChanged": true}, "resources": {"subscribe": true}}),
        );
        assert_eq!(
            a,
            json!({"tools": {"listChanged": true}, "logging": {}, "resources": {"subscribe": true}})
        );
    }

    #[test]
    fn the_hosts_version_is_proposed_upstream() {
        let init = |v: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{v}","capabilities":{{}}}}}}"#
            )
        };
        assert_eq!(
            requested_version(&init("2025-03-26")).as_deref(),
            Some("2025-03-26")
        );
        assert_eq!(
            requested_version(&init("2026-07-28")).as_deref(),
            Some(PROPOSED_VERSION)
        );
        assert_eq!(requested_version(&init("latest")), None);
        assert_eq!(
            requested_version(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            None
        );
    }

    #[test]
    fn list_fields_merge_per_server() {
        let mut fields = serde_json::Map::new();
        let a = json!({"_meta": {"a": 1, "x": "first"}, "ttlMs": 60000, "cacheScope": "public"});
        let b = json!({"_meta": {"b": 2, "x": "second"}, "ttlMs": 5000, "cacheScope": "private"});
        for page in [a, b] {
            let Value::Object(page) = page else {
                unreachable!()
            };
            merge_list_fields(&mut fields, page);
        }
        assert_eq!(
            Value::Object(fields),
            json!({"_meta": {"a": 1, "b": 2, "x": "first"}, "ttlMs": 5000, "cacheScope": "private"})
        );
    }

    #[test]
    fn params_are_replaced_keeping_the_rest() {
        let msg = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fs__read","arguments":{"n":1.50}}}"#;
        let out = with_param(msg, "name", "read").unwrap();
        assert_eq!(
            out,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read","arguments":{"n":1.50}}}"#
        );
        let added = with_param(
            r#"{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"z":1,"a":2}}"#,
            "ref",
            json!({"type": "ref/prompt"}),
        )
        .unwrap();
        assert!(
            added.ends_with(r#""params":{"z":1,"a":2,"ref":{"type":"ref/prompt"}}}"#),
            "{added}"
        );
    }
}
