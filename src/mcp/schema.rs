//! Relaxing tools' `outputSchema` so tokenized `structuredContent` still validates.
//!
//! A token is a string such as `[EMAIL_1]`. A tool whose `outputSchema` declares
//! `{"type": "string", "format": "email"}` (or a `pattern`, an `enum`, a `maxLength` or a
//! `minLength`) would have its tokenized result rejected by a client that validates
//! `structuredContent`. So in every `tools/list` result, those five constraints are removed from
//! string schemas (schemas whose `type` is or includes `"string"`, or that have no `type`; an
//! `enum` is removed only when its values are all strings). Nothing else changes: types,
//! `required`, object and array structure, numeric constraints and `inputSchema` are kept.
//! The server still validates real values after outbound rehydration.
//!
//! A JSON *number* under a key that names a kind held as digits (`phone`, `card_number`, `ssn`:
//! see `walk`) is tokenized into a string (`{"phone": "[PHONE_1]"}`), so the schema of such a
//! property (anywhere in `properties`) whose `type` is `number` or `integer` gets `"string"` added
//! to its type (`{"type": "integer"}` becomes `{"type": ["integer", "string"]}`) and loses its
//! numeric constraints (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//! `multipleOf`, a numeric `enum` or `const`); an array property's `items` (and the branches of
//! `anyOf`/`oneOf`) are relaxed the same way, since the numbers of an array under such a key are
//! tokenized too. Other numeric properties keep their schema.
//!
//! Also here: [`retain_tools`] drops the tools the host-side tool policy denies from a
//! `tools/list` result.

use serde_json::{Map, Value};

/// Constraints a token can break.
const STRING_CONSTRAINTS: [&str; 4] = ["format", "pattern", "maxLength", "minLength"];
/// Keywords whose value is one subschema.
const ONE_SCHEMA: [&str; 13] = [
    "items",
    "additionalProperties",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "additionalItems",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
    "additionalContents",
];
/// Keywords whose value is an array of subschemas.
const SCHEMA_ARRAYS: [&str; 5] = ["anyOf", "oneOf", "allOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
const SCHEMA_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// Relaxes the `outputSchema` of every tool in a `tools/list` result. Returns the new result
/// text, or `None` when nothing needed to change (or the result is not a tool list).
pub(crate) fn relax_tools_list(result: &str) -> Option<String> {
    let mut value: Value = serde_json::from_str(result).ok()?;
    let tools = value.get_mut("tools")?.as_array_mut()?;
    let mut changed = false;
    for tool in tools {
        if let Some(schema) = tool.get_mut("outputSchema") {
            changed |= relax(schema);
        }
    }
    changed.then(|| value.to_string())
}

/// Relaxes one schema and its subschemas; returns whether anything was removed.
fn relax(schema: &mut Value) -> bool {
    let Some(obj) = schema.as_object_mut() else {
        return false;
    };
    let mut changed = relax_node(obj);
    for (key, sub) in obj.iter_mut() {
        let key = key.as_str();
        if ONE_SCHEMA.contains(&key) && sub.is_object() {
            changed |= relax(sub);
        }
        if SCHEMA_ARRAYS.contains(&key)
            && let Some(items) = sub.as_array_mut()
        {
            for item in items {
                changed |= relax(item);
            }
        }
        if SCHEMA_MAPS.contains(&key)
            && let Some(map) = sub.as_object_mut()
        {
            for (name, item) in map.iter_mut() {
                if key == "properties" && crate::detect::KeyFacts::of(Some(name)).holds_digits() {
                    changed |= relax_digits(item, 0);
                }
                changed |= relax(item);
            }
        }
    }
    changed
}

fn relax_node(obj: &mut Map<String, Value>) -> bool {
    let (stringy, typed) = match obj.get("type") {
        None => (true, false),
        Some(Value::String(t)) => (t == "string", true),
        Some(Value::Array(ts)) => (ts.iter().any(|t| t == "string"), true),
        Some(_) => (false, true),
    };
    if !stringy {
        return false;
    }
    let mut changed = false;
    for key in STRING_CONSTRAINTS {
        changed |= obj.remove(key).is_some();
    }
    let enum_is_stringy = match obj.get("enum") {
        Some(Value::Array(values)) => typed || values.iter().all(Value::is_string),
        _ => false,
    };
    if enum_is_stringy {
        obj.remove("enum");
        changed = true;
    }
    changed
}

/// Numeric constraints a token (a string) breaks.
const NUMBER_CONSTRAINTS: [&str; 5] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];

/// Lets the schema of a property whose numbers are tokenized (see the module doc) hold a
/// string; returns whether anything changed.
fn relax_digits(schema: &mut Value, depth: usize) -> bool {
    let Some(obj) = schema.as_object_mut() else {
        return false;
    };
    if depth > 8 {
        return false;
    }
    let mut changed = false;
    let numeric = |t: &Value| t == "number" || t == "integer";
    let is_number = match obj.get_mut("type") {
        Some(t @ Value::String(_)) if numeric(t) => {
            let was = t.take();
            *t = Value::Array(vec![was, Value::from("string")]);
            changed = true;
            true
        }
        Some(Value::Array(ts)) if ts.iter().any(numeric) => {
            if !ts.iter().any(|t| t == "string") {
                ts.push(Value::from("string"));
                changed = true;
            }
            true
        }
        _ => false,
    };
    if is_number {
        for key in NUMBER_CONSTRAINTS {
            changed |= obj.remove(key).is_some();
        }
        for key in ["enum", "const"] {
            let has_number = match obj.get(key) {
                Some(Value::Array(values)) => values.iter().any(Value::is_number),
                Some(v) => v.is_number(),
                None => false,
            };
            if has_number {
                obj.remove(key);
                changed = true;
            }
        }
    }
    if let Some(items) = obj.get_mut("items") {
        changed |= relax_digits(items, depth + 1);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get_mut(key) {
            for branch in branches {
                changed |= relax_digits(branch, depth + 1);
            }
        }
    }
    changed
}

/// A `tools/list` result without the tools `keep` refuses (tool policy `deny`), or `None`
/// when every tool stays.
pub(crate) fn retain_tools(result: &str, keep: impl Fn(&str) -> bool) -> Option<String> {
    let mut v: serde_json::Value = serde_json::from_str(result).ok()?;
    let tools = v.get_mut("tools")?.as_array_mut()?;
    let before = tools.len();
    tools.retain(|t| {
        t.get("name")
            .and_then(serde_json::Value::as_str)
            .is_none_or(&keep)
    });
    (tools.len() != before).then(|| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn relaxes_exactly_the_string_constraints() {
        let result = json!({"tools": [{
            "name": "get_contact",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string", "pattern": "^c"}}},
            "outputSchema": {
                "type": "object",
                "required": ["email"],
                "properties": {
                    "email": {"type": "string", "format": "email", "maxLength": 64},
                    "pattern": {"type": ["string", "null"], "pattern": "^\\+", "minLength": 3},
                    "status": {"type": "string", "enum": ["a", "b"]},
                    "count": {"type": "integer", "minimum": 0, "enum": [1, 2]},
                    "tags": {"type": "array", "maxItems": 3, "items": {"type": "string", "format": "uri"}},
                    "alt": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
                    "ref": {"$ref": "#/$defs/e"}
                },
                "$defs": {"e": {"enum": ["x", "y"]}}
            }
        }]})
        .to_string();
        let out: Value = serde_json::from_str(&relax_tools_list(&result).unwrap()).unwrap();
        let s = &out["tools"][0]["outputSchema"];
        let p = &s["properties"];
        assert_eq!(p["email"], json!({"type": "string"}));
        // A property named `pattern` is a property, not a keyword: it stays.
        assert_eq!(p["pattern"], json!({"type": ["string", "null"]}));
        assert_eq!(p["status"], json!({"type": "string"}));
        assert_eq!(
            p["count"],
            json!({"type": "integer", "minimum": 0, "enum": [1, 2]})
        );
        assert_eq!(
            p["tags"],
            json!({"type": "array", "maxItems": 3, "items": {"type": "string"}})
        );
        assert_eq!(p["alt"]["anyOf"][0], json!({"type": "string"}));
        assert_eq!(s["$defs"]["e"], json!({}));
        assert_eq!(s["required"], json!(["email"]));
        // inputSchema is not touched.
        assert_eq!(
            out["tools"][0]["inputSchema"]["properties"]["id"]["pattern"],
            "^c"
        );
    }

    #[test]
    fn numbers_under_digit_keys_may_be_token_strings() {
        let result = json!({"tools": [{
            "name": "get_contact",
            "inputSchema": {"type": "object", "properties": {"phone": {"type": "integer"}}},
            "outputSchema": {
                "type": "object",
                "properties": {
                    "phone": {"type": "integer", "minimum": 0},
                    "card_number": {"type": ["number", "null"], "maximum": 1e19},
                    "ssn": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                    "phones": {"type": "array", "items": {"type": "integer", "enum": [1, 2]}},
                    "count": {"type": "integer", "minimum": 0},
                    "mobile": {"type": "string"}
                }
            }
        }]})
        .to_string();
        let out: Value = serde_json::from_str(&relax_tools_list(&result).unwrap()).unwrap();
        let p = &out["tools"][0]["outputSchema"]["properties"];
        assert_eq!(p["phone"], json!({"type": ["integer", "string"]}));
        assert_eq!(
            p["card_number"],
            json!({"type": ["number", "null", "string"]})
        );
        assert_eq!(
            p["ssn"],
            json!({"anyOf": [{"type": ["integer", "string"]}, {"type": "null"}]})
        );
        assert_eq!(
            p["phones"],
            json!({"type": "array", "items": {"type": ["integer", "string"]}})
        );
        assert_eq!(p["count"], json!({"type": "integer", "minimum": 0}));
        assert_eq!(p["mobile"], json!({"type": "string"}));
        assert_eq!(
            out["tools"][0]["inputSchema"]["properties"]["phone"],
            json!({"type": "integer"})
        );
    }

    #[test]
    fn unchanged_lists_are_left_alone() {
        let result = r#"{"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"number"}}}}]}"#;
        assert!(relax_tools_list(result).is_none());
        assert!(relax_tools_list(r#"{"tools":[{"name":"t"}]}"#).is_none());
        assert!(relax_tools_list("not json").is_none());
    }
}
