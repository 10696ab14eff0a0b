//! The MCP method names the layer logs as written; any other method is logged by its length.
//!
//! A method name comes from the wire and can hold anything (an email address, a customer id),
//! so logs and errors name a method only when it is one the protocol defines.

use std::fmt;

/// Every method of the MCP specification (2025-11-25 and the draft), requests and
/// notifications, in both directions.
const KNOWN: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "sampling/createMessage",
    "elicitation/create",
    "roots/list",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tasks/cancel",
    "tasks/update",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/message",
    "notifications/resources/updated",
    "notifications/resources/list_changed",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/roots/list_changed",
    "notifications/elicitation/complete",
    "notifications/tasks/status",
];

/// `method` when the protocol defines it, else `None`.
pub(crate) fn known(method: &str) -> Option<&'static str> {
    KNOWN.iter().copied().find(|&k| k == method)
}

/// A method name for a log line or an error: as written when known, else
/// `<unknown method of N bytes>`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Method<'a>(pub(crate) &'a str);

impl fmt::Display for Method<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match known(self.0) {
            Some(m) => f.write_str(m),
            None => write!(f, "<unknown method of {} bytes>", self.0.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_known_methods_are_written() {
        assert_eq!(Method("tools/call").to_string(), "tools/call");
        assert_eq!(
            Method("maria.garcia@example.com").to_string(),
            "<unknown method of 24 bytes>"
        );
    }
}
