//! Asking the user before a flow that needs confirmation: MCP elicitation from the layer itself.
//!
//! When the policy answers "confirm", the interceptor holds the outbound message and sends the
//! host an `elicitation/create` request of its own (form mode, one boolean `approve`), as a
//! [`super::Outcome::reply`]: every front end already sends replies back to the host, so none of
//! them needs to know about confirmations. The host's answer arrives like any other host
//! message, with the layer's id (`"mcp-veil-cN"`, which no host or server uses); the
//! interceptor takes the held message back and resumes it: `accept` with `approve: true`
//! restores and forwards, anything else (decline, cancel, `approve: false`, an error) denies.
//!
//! The message names kinds, tokens, origins, destination and rules, never values. A host that
//! did not announce the `elicitation` capability (form mode) in its `initialize` request is never
//! asked: the call is denied saying so.

use serde::Deserialize;
use serde_json::json;

use crate::policy::Confirmation;

/// The prefix of the layer's own request ids toward the host.
const ID_PREFIX: &str = "mcp-veil-c";

/// The id (as JSON text) of the layer's `n`th confirmation request.
pub(crate) fn request_id(n: u64) -> String {
    format!("\"{ID_PREFIX}{n}\"")
}

/// Whether an id (JSON text) may be one of the layer's confirmation requests.
pub(crate) fn is_ours(id: &str) -> bool {
    id.strip_prefix('"')
        .is_some_and(|rest| rest.starts_with(ID_PREFIX))
}

/// The text shown to the user.
pub(crate) fn message(confirmation: &Confirmation) -> String {
    format!("mcp-veil: {confirmation}")
}

/// The `elicitation/create` request asking about `confirmation`, with id `id` (JSON text).
pub(crate) fn request(id: &str, confirmation: &Confirmation) -> String {
    let id: serde_json::Value = serde_json::from_str(id).unwrap_or_default();
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "elicitation/create",
        "params": {
            "mode": "form",
            "message": message(confirmation),
            "requestedSchema": {
                "type": "object",
                "properties": {
                    "approve": {
                        "type": "boolean",
                        "title": "Allow this call",
                        "description": "Send the real values to the destination named above",
                        "default": false
                    }
                },
                "required": ["approve"]
            }
        }
    })
    .to_string()
}

/// What the user answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    /// Accepted with `approve: true`.
    Approved,
    /// Accepted with `approve: false`, declined, cancelled, or the host answered with an error.
    Refused(&'static str),
}

#[derive(Deserialize)]
struct ElicitResult {
    action: String,
    #[serde(default)]
    content: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Reads the host's answer: the `result` member's text, or `None` for an error response.
pub(crate) fn answer(result: Option<&str>) -> Answer {
    let Some(result) = result else {
        return Answer::Refused("the client answered the confirmation request with an error");
    };
    match serde_json::from_str::<ElicitResult>(result) {
        Ok(r) if r.action == "accept" => {
            let approved = r
                .content
                .as_ref()
                .and_then(|c| c.get("approve"))
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false);
            if approved {
                Answer::Approved
            } else {
                Answer::Refused("the user did not approve it")
            }
        }
        Ok(r) if r.action == "decline" => Answer::Refused("the user declined it"),
        Ok(r) if r.action == "cancel" => Answer::Refused("the user cancelled the confirmation"),
        _ => Answer::Refused("the client's answer to the confirmation was not understood"),
    }
}

/// Whether an `initialize` request's params announce form elicitation.
pub(crate) fn host_can_elicit(initialize_params: &str) -> bool {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(initialize_params) else {
        return false;
    };
    match v.pointer("/capabilities/elicitation") {
        // `{}` (before modes existed) means form; with modes, form must be listed.
        Some(serde_json::Value::Object(modes)) => {
            modes.is_empty() || modes.contains_key("form") || !modes.contains_key("url")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::Kind;
    use crate::policy::{Cause, Concern, Subject};
    use crate::token::Token;

    #[test]
    fn the_request_names_tokens_and_rules_and_answers_are_read() {
        let c = Confirmation {
            destination: Arc::from("mail/send"),
            concerns: vec![Concern {
                subject: Subject::Token(Token::new(Kind::Email, 1)),
                origin: Some(Arc::from("crm/get")),
                arg_path: Box::from("to"),
                cause: Cause::Rule(Arc::from("ask-first")),
            }],
        };
        let id = request_id(3);
        assert!(is_ours(&id));
        assert!(!is_ours("3") && !is_ours("\"mcp-veil-s1\""));
        let v: serde_json::Value = serde_json::from_str(&request(&id, &c)).unwrap();
        assert_eq!(v["id"], "mcp-veil-c3");
        assert_eq!(v["method"], "elicitation/create");
        assert_eq!(
            v["params"]["message"],
            "mcp-veil: send EMAIL ([EMAIL_1]) from crm/get to mail/send? required by rule `ask-first`"
        );
        assert_eq!(
            answer(Some(r#"{"action":"accept","content":{"approve":true}}"#)),
            Answer::Approved
        );
        for refused in [
            r#"{"action":"accept","content":{"approve":false}}"#,
            r#"{"action":"accept"}"#,
            r#"{"action":"decline"}"#,
            r#"{"action":"cancel"}"#,
            r#"{"what":1}"#,
        ] {
            assert!(
                matches!(answer(Some(refused)), Answer::Refused(_)),
                "{refused}"
            );
        }
        assert!(matches!(answer(None), Answer::Refused(_)));
    }

    #[test]
    fn elicitation_capability_is_read_from_initialize() {
        assert!(host_can_elicit(r#"{"capabilities":{"elicitation":{}}}"#));
        assert!(host_can_elicit(
            r#"{"capabilities":{"elicitation":{"form":{},"url":{}}}}"#
        ));
        assert!(!host_can_elicit(
            r#"{"capabilities":{"elicitation":{"url":{}}}}"#
        ));
        assert!(!host_can_elicit(r#"{"capabilities":{"sampling":{}}}"#));
        assert!(!host_can_elicit("nope"));
    }
}
