//! Task ids through the gateway (`tasks/*`, MCP 2025-11-25).
//!
//! A task belongs to the server that created it, and two servers may well number their tasks
//! the same way (`task-1`). So the host sees every task id as `{server}__{id}`, like tool
//! names: the gateway rewrites the ids in what a server sends (a created task, `tasks/get`,
//! `tasks/cancel` and `tasks/list` results, `notifications/tasks/status`, and the
//! `io.modelcontextprotocol/related-task` entry of any `_meta`), and routes `tasks/get`,
//! `tasks/result` and `tasks/cancel` by the prefix, giving the server its own id back. The
//! route is in the id itself, so nothing is remembered (and any replica can route it).
//!
//! The 2026-07-28 tasks extension (SEP-2663) is routed the same way, `tasks/update` included;
//! its removed `tasks/result` and `tasks/list` get `-32601` from a stateless client, and an id
//! of no server gets `-32021` when the client did not declare the extension (a server checks
//! that first), else `-32602`.

use serde_json::{Value, json};

use super::gateway::SEPARATOR;
use super::stateless::META_CAPABILITIES;

/// The 2026-07-28 tasks extension (SEP-2663): task ids are routed the same way, and
/// `tasks/update` (input for a task that asked for it) goes to the task's server too.
pub(crate) const EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// Whether a stateless request's `_meta` declares the tasks extension among its client
/// capabilities.
pub(crate) fn declared(meta: &Value) -> bool {
    meta.get(META_CAPABILITIES)
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(EXTENSION))
        .is_some()
}

/// The answer to a `tasks/*` request of a client that did not declare the extension: `-32021`
/// (Missing Required Client Capability) naming it.
pub(crate) fn missing_capability(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {
        "code": -32021,
        "message": "mcp-veil gateway: the tasks extension is not declared",
        "data": {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}}})
}

/// `_meta` key tying a message to a task.
const RELATED: &str = "io.modelcontextprotocol/related-task";

/// `text` (one message from server `server`) with its task ids exposed as `{server}__{id}`;
/// `None` when it names no task.
pub(crate) fn expose(text: &str, server: &str) -> Option<String> {
    if !text.contains("taskId") {
        return None;
    }
    let mut v: Value = serde_json::from_str(text).ok()?;
    let mut changed = false;
    let mut prefix = |id: &mut Value| {
        if let Value::String(s) = id {
            *s = format!("{server}{SEPARATOR}{s}");
            changed = true;
        }
    };
    for part in ["result", "params"] {
        let Some(body) = v.get_mut(part) else {
            continue;
        };
        if let Some(id) = body.get_mut("taskId") {
            prefix(id);
        }
        if let Some(id) = body.pointer_mut("/task/taskId") {
            prefix(id);
        }
        if let Some(Value::Array(tasks)) = body.get_mut("tasks") {
            for id in tasks.iter_mut().filter_map(|t| t.get_mut("taskId")) {
                prefix(id);
            }
        }
        if let Some(id) = body
            .get_mut("_meta")
            .and_then(|m| m.get_mut(RELATED))
            .and_then(|r| r.get_mut("taskId"))
        {
            prefix(id);
        }
    }
    changed.then(|| v.to_string())
}

/// The server an exposed task id belongs to (the longest matching name of `servers`) and
/// the server's own id.
pub(crate) fn route<'a>(exposed: &'a str, servers: &[&str]) -> Option<(usize, &'a str)> {
    servers
        .iter()
        .enumerate()
        .filter_map(|(idx, name)| {
            let own = exposed.strip_prefix(name)?.strip_prefix(SEPARATOR)?;
            (!own.is_empty()).then_some((idx, name.len(), own))
        })
        .max_by_key(|(_, len, _)| *len)
        .map(|(idx, _, own)| (idx, own))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn task_ids_are_exposed_with_their_server() {
        let created =
            r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"taskId":"t1","status":"working"}}}"#;
        let v: Value = serde_json::from_str(&expose(created, "a").unwrap()).unwrap();
        assert_eq!(v["result"]["task"]["taskId"], "a__t1");
        let list =
            json!({"jsonrpc":"2.0","id":2,"result":{"tasks":[{"taskId":"t1"},{"taskId":"t2"}]}});
        let v: Value = serde_json::from_str(&expose(&list.to_string(), "b").unwrap()).unwrap();
        assert_eq!(v["result"]["tasks"][1]["taskId"], "b__t2");
        let status = json!({"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t9","status":"completed"}});
        let v: Value = serde_json::from_str(&expose(&status.to_string(), "a").unwrap()).unwrap();
        assert_eq!(v["params"]["taskId"], "a__t9");
        let related = json!({"jsonrpc":"2.0","id":3,"result":{"content":[],"_meta":{RELATED:{"taskId":"t1"}}}});
        let v: Value = serde_json::from_str(&expose(&related.to_string(), "a").unwrap()).unwrap();
        assert_eq!(v["result"]["_meta"][RELATED]["taskId"], "a__t1");
        assert_eq!(expose(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#, "a"), None);
    }

    #[test]
    fn the_extension_is_read_from_the_client_capabilities() {
        let meta = json!({META_CAPABILITIES: {"extensions": {EXTENSION: {}}}});
        assert!(declared(&meta));
        assert!(!declared(&json!({META_CAPABILITIES: {"sampling": {}}})));
        assert!(!declared(&json!({})));
        let answer = missing_capability(&json!(7));
        assert_eq!(answer["error"]["code"], -32021);
        assert!(
            answer["error"]["data"]["requiredCapabilities"]["extensions"][EXTENSION].is_object()
        );
    }

    #[test]
    fn exposed_ids_route_to_their_server() {
        let servers = ["a", "a__b", "c"];
        assert_eq!(route("a__t1", &servers), Some((0, "t1")));
        assert_eq!(route("a__b__t1", &servers), Some((1, "t1")));
        assert_eq!(route("c__", &servers), None);
        assert_eq!(route("d__t1", &servers), None);
    }
}
