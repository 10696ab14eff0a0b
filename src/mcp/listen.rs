//! `subscriptions/listen` (2026-07-28) through the gateway: one host subscription, one listen
//! request per upstream, one merged stream.
//!
//! A stateless host opens a notification stream with `subscriptions/listen` and a filter
//! (`toolsListChanged`, `promptsListChanged`, `resourcesListChanged`, `resourceSubscriptions`).
//! The gateway sends each stateless upstream its own listen request (id `"mcp-veil-lN"`, so two
//! servers' answers cannot collide) with the filter narrowed to that server: the flags its
//! capabilities can honour, the URIs its resources were listed under (the only server with
//! resources gets the URIs no listing named). Upstream notifications tagged with that id are
//! re-tagged with the host's subscription id (its listen request's id). The host gets one
//! `notifications/subscriptions/acknowledged`, once every upstream acknowledged (or after
//! [`ACK_WAIT`]), holding the union of what they agreed to; notifications that come before it
//! wait for it, as the protocol wants the acknowledgement first. A session-era upstream has no
//! listen: its untagged list-changed notifications are tagged for every subscription that asked
//! for them (when its capabilities announce `listChanged`), and the gateway subscribes there
//! (`resources/subscribe`) to the subscription's URIs it owns, tagging its
//! `notifications/resources/updated` for them (a URI or one below it); the host's cancel
//! unsubscribes what no other subscription still wants. The host's `notifications/cancelled`
//! for the listen cancels every upstream's; the host gets the listen's result when the last
//! upstream ended its own.
//!
//! Everything still goes through the interceptor: notifications are scanned as they come
//! (resource URIs tokenized as in lists), and the URIs of `resourceSubscriptions` are restored
//! on the way up (`Interceptor::from_host` treats them like `resources/subscribe`).

use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Map, Value, json};

/// `_meta` key tagging a notification with its subscription.
pub(crate) const META_SUBSCRIPTION: &str = "io.modelcontextprotocol/subscriptionId";
/// The acknowledgement notification.
pub(crate) const ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// How long the host's acknowledgement waits for the upstreams'.
pub(crate) const ACK_WAIT: Duration = Duration::from_secs(10);

/// The filter flags and the list-changed notification each stands for.
const FLAGS: [(&str, &str, &str); 3] = [
    (
        "toolsListChanged",
        "notifications/tools/list_changed",
        "tools",
    ),
    (
        "promptsListChanged",
        "notifications/prompts/list_changed",
        "prompts",
    ),
    (
        "resourcesListChanged",
        "notifications/resources/list_changed",
        "resources",
    ),
];

/// One host subscription.
#[derive(Debug)]
struct Sub {
    /// The host's listen request id (JSON text).
    host_id: String,
    /// The subscription id the host's notifications carry.
    tag: String,
    /// Upstream listen ids still open.
    open: Vec<String>,
    /// Every upstream listen: (upstream index, id).
    routes: Vec<(usize, String)>,
    /// Upstream listen ids not acknowledged yet.
    unacked: Vec<String>,
    /// What the upstreams agreed to, merged.
    honored: Map<String, Value>,
    /// Notifications held until the acknowledgement.
    held: Vec<String>,
    acked: bool,
    /// Session-era upstreams and what of theirs is tagged for this subscription.
    untagged: Vec<Untagged>,
}

/// A session-era upstream's part in a subscription: its list changes (`methods`), and the
/// resources the gateway subscribed to there for it (`uris`, as the host knows them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Untagged {
    pub(crate) idx: usize,
    pub(crate) methods: Vec<&'static str>,
    pub(crate) uris: Vec<String>,
}

/// What a host's cancel ends.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Cancelled {
    /// Upstream listens to cancel: (upstream, id).
    pub(crate) listens: Vec<(usize, String)>,
    /// Resources to unsubscribe from (no other subscription wants them): (upstream, URI).
    pub(crate) unsubscribe: Vec<(usize, String)>,
}

/// The gateway's open subscriptions.
#[derive(Debug, Default)]
pub(crate) struct Listens {
    subs: Mutex<Vec<Sub>>,
    /// Upstream listen ids the host cancelled: what still comes tagged with them is dropped
    /// (capped at [`MAX_ENDED`], then cleared).
    ended: Mutex<std::collections::HashSet<String>>,
}

/// The most cancelled listen ids remembered.
const MAX_ENDED: usize = 4096;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a host message or upstream message becomes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Delivery {
    /// Not the listen machinery's: handle it as usual.
    NotOurs,
    /// Send these lines to the host (possibly none: held or swallowed).
    Host(Vec<String>),
}

/// The subscription id a host's listen request id stands for: a string id's text, else the
/// id's JSON text (`5` → `"5"`).
pub(crate) fn tag_of(host_id: &str) -> String {
    match serde_json::from_str::<Value>(host_id) {
        Ok(Value::String(s)) => s,
        _ => host_id.to_string(),
    }
}

/// The filter one upstream gets: the flags its `capabilities` announce, and the URIs `owns`
/// says are its own. `None`: nothing in the filter is for it.
pub(crate) fn narrow(
    filter: &Value,
    capabilities: &Value,
    owns: impl Fn(&str) -> bool,
) -> Option<Value> {
    let mut out = Map::new();
    for (flag, _, capability) in FLAGS {
        if filter.get(flag) == Some(&Value::Bool(true)) && capabilities.get(capability).is_some() {
            out.insert(flag.into(), Value::Bool(true));
        }
    }
    if let Some(uris) = filter
        .get("resourceSubscriptions")
        .and_then(Value::as_array)
    {
        let mine: Vec<Value> = uris
            .iter()
            .filter(|u| u.as_str().is_some_and(&owns))
            .cloned()
            .collect();
        if !mine.is_empty() && capabilities.get("resources").is_some() {
            out.insert("resourceSubscriptions".into(), Value::Array(mine));
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// What a session-era upstream's untagged notifications can give a subscription with
/// `filter`: the list-changed notifications its capabilities announce (`listChanged: true`).
pub(crate) fn untagged_methods(filter: &Value, capabilities: &Value) -> Vec<&'static str> {
    FLAGS
        .iter()
        .filter(|(flag, _, capability)| {
            filter.get(*flag) == Some(&Value::Bool(true))
                && capabilities.pointer(&format!("/{capability}/listChanged"))
                    == Some(&Value::Bool(true))
        })
        .map(|(_, method, _)| *method)
        .collect()
}

/// The filter flags `methods` stand for (what a session-era upstream honours).
fn flags_of(methods: &[&str]) -> Map<String, Value> {
    FLAGS
        .iter()
        .filter(|(_, method, _)| methods.contains(method))
        .map(|(flag, _, _)| ((*flag).to_string(), Value::Bool(true)))
        .collect()
}

/// `line` (a notification) with its subscription id set to `tag`.
fn retag(line: &str, tag: &str) -> Option<String> {
    let mut v: Value = serde_json::from_str(line).ok()?;
    let params = v
        .as_object_mut()?
        .entry("params")
        .or_insert_with(|| json!({}));
    let params = params.as_object_mut()?;
    let meta = params.entry("_meta").or_insert_with(|| json!({}));
    if !meta.is_object() {
        *meta = json!({});
    }
    meta[META_SUBSCRIPTION] = Value::String(tag.to_string());
    Some(v.to_string())
}

/// The subscription id a notification carries.
fn tag_in(v: &Value) -> Option<&str> {
    v.pointer("/params/_meta")?.get(META_SUBSCRIPTION)?.as_str()
}

/// Merges one acknowledgement's `notifications` into `into` (flags or'ed, URIs appended).
fn merge_honored(into: &mut Map<String, Value>, from: &Value) {
    let Some(from) = from.as_object() else {
        return;
    };
    for (k, v) in from {
        match (into.get_mut(k), v) {
            (Some(Value::Array(a)), Value::Array(b)) => {
                for item in b {
                    if !a.contains(item) {
                        a.push(item.clone());
                    }
                }
            }
            (Some(Value::Bool(a)), Value::Bool(b)) => *a |= *b,
            (None, _) => {
                into.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
}

impl Untagged {
    /// Whether `uri` is one of its resources or below one (`demo://r/1/part` for
    /// `demo://r/1`).
    fn covers(&self, uri: &str) -> bool {
        self.uris.iter().any(|s| {
            uri == s
                || uri
                    .strip_prefix(s.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    }
}

impl Sub {
    fn ack_line(&self) -> String {
        json!({"jsonrpc": "2.0", "method": ACKNOWLEDGED, "params": {
            "_meta": {META_SUBSCRIPTION: self.tag}, "notifications": self.honored}})
        .to_string()
    }

    /// The acknowledgement and everything held for it, once.
    fn release(&mut self) -> Vec<String> {
        if self.acked {
            return Vec::new();
        }
        self.acked = true;
        let mut out = vec![self.ack_line()];
        out.append(&mut self.held);
        out
    }

    fn deliver(&mut self, line: String) -> Vec<String> {
        if self.acked {
            vec![line]
        } else {
            self.held.push(line);
            Vec::new()
        }
    }
}

impl Listens {
    /// Registers the host's listen `host_id`: the upstream listens sent for it (`upstream`
    /// ids) and the session-era upstreams tagged for it. Returns the lines for the host now
    /// (the acknowledgement, when no upstream has one to give).
    pub(crate) fn open(
        &self,
        host_id: &str,
        upstream: Vec<(usize, String)>,
        untagged: Vec<Untagged>,
    ) -> Vec<String> {
        let ids: Vec<String> = upstream.iter().map(|(_, id)| id.clone()).collect();
        let mut honored = Map::new();
        for part in &untagged {
            let mut flags = flags_of(&part.methods);
            if !part.uris.is_empty() {
                flags.insert("resourceSubscriptions".into(), json!(part.uris));
            }
            merge_honored(&mut honored, &Value::Object(flags));
        }
        let mut sub = Sub {
            host_id: host_id.to_string(),
            tag: tag_of(host_id),
            unacked: ids.clone(),
            open: ids,
            routes: upstream,
            honored,
            held: Vec::new(),
            acked: false,
            untagged,
        };
        let now = if sub.unacked.is_empty() {
            sub.release()
        } else {
            Vec::new()
        };
        lock(&self.subs).push(sub);
        now
    }

    /// The acknowledgement of `host_id`'s subscription after [`ACK_WAIT`], if it is still
    /// waiting for some upstream's.
    pub(crate) fn ack_timeout(&self, host_id: &str) -> Vec<String> {
        let mut subs = lock(&self.subs);
        match subs.iter_mut().find(|s| s.host_id == host_id) {
            Some(sub) => sub.release(),
            None => Vec::new(),
        }
    }

    /// A notification from upstream `idx` (already through the interceptor).
    pub(crate) fn upstream_notification(&self, idx: usize, line: &str) -> Delivery {
        let mut subs = lock(&self.subs);
        if subs.is_empty() && lock(&self.ended).is_empty() {
            return Delivery::NotOurs;
        }
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            return Delivery::NotOurs;
        };
        if let Some(tag) = tag_in(&v) {
            let Some(sub) = subs.iter_mut().find(|s| s.open.iter().any(|o| o == tag)) else {
                if lock(&self.ended).contains(tag) {
                    return Delivery::Host(Vec::new());
                }
                return Delivery::NotOurs;
            };
            if v.get("method").and_then(Value::as_str) == Some(ACKNOWLEDGED) {
                let from = tag.to_string();
                sub.unacked.retain(|u| *u != from);
                if let Some(n) = v.pointer("/params/notifications") {
                    merge_honored(&mut sub.honored, n);
                }
                return Delivery::Host(if sub.unacked.is_empty() {
                    sub.release()
                } else {
                    Vec::new()
                });
            }
            let tag = sub.tag.clone();
            return match retag(line, &tag) {
                Some(out) => Delivery::Host(sub.deliver(out)),
                None => Delivery::Host(Vec::new()),
            };
        }
        // A session-era upstream's list change: a copy for each subscription that wants it.
        let Some(method) = v.get("method").and_then(Value::as_str) else {
            return Delivery::NotOurs;
        };
        let uri = v.pointer("/params/uri").and_then(Value::as_str);
        let mut out = Vec::new();
        let mut any = false;
        for sub in subs.iter_mut() {
            let wants = sub.untagged.iter().any(|part| {
                part.idx == idx
                    && (part.methods.contains(&method)
                        || (method == "notifications/resources/updated"
                            && uri.is_some_and(|u| part.covers(u))))
            });
            if wants && let Some(tagged) = retag(line, &sub.tag.clone()) {
                any = true;
                out.extend(sub.deliver(tagged));
            }
        }
        if any {
            Delivery::Host(out)
        } else {
            Delivery::NotOurs
        }
    }

    /// An answer from an upstream: when `id` (JSON text) is one of its listens, that listen
    /// ended; the host's gets its answer (`answer` with the host's id) when it was the last.
    pub(crate) fn upstream_answer(&self, id: &str, answer: &str) -> Delivery {
        let Ok(Value::String(own)) = serde_json::from_str::<Value>(id) else {
            return Delivery::NotOurs;
        };
        let mut subs = lock(&self.subs);
        let Some(at) = subs.iter().position(|s| s.open.contains(&own)) else {
            if lock(&self.ended).remove(&own) {
                return Delivery::Host(Vec::new());
            }
            return Delivery::NotOurs;
        };
        let sub = &mut subs[at];
        sub.open.retain(|o| *o != own);
        sub.unacked.retain(|o| *o != own);
        let mut out = Vec::new();
        if sub.unacked.is_empty() {
            out.extend(sub.release());
        }
        if sub.open.is_empty() {
            let sub = subs.swap_remove(at);
            if let Ok(env) = super::envelope::Envelope::parse(answer)
                && let Some(raw) = env.id
            {
                out.push(super::envelope::splice(answer, raw.get(), &sub.host_id));
            }
        }
        Delivery::Host(out)
    }

    /// The host cancelled its listen `host_id`: what to end upstream; `None` when it is not a
    /// listen.
    pub(crate) fn cancel(&self, host_id: &str) -> Option<Cancelled> {
        let mut subs = lock(&self.subs);
        let at = subs.iter().position(|s| s.host_id == host_id)?;
        let sub = subs.swap_remove(at);
        let mut ended = lock(&self.ended);
        if ended.len() >= MAX_ENDED {
            ended.clear();
        }
        ended.extend(sub.open.iter().cloned());
        let still = |idx: usize, uri: &str| {
            subs.iter().any(|s| {
                s.untagged
                    .iter()
                    .any(|p| p.idx == idx && p.uris.iter().any(|u| u == uri))
            })
        };
        let unsubscribe = sub
            .untagged
            .iter()
            .flat_map(|p| p.uris.iter().map(move |u| (p.idx, u.clone())))
            .filter(|(idx, uri)| !still(*idx, uri))
            .collect();
        let listens = sub
            .routes
            .into_iter()
            .filter(|(_, id)| sub.open.contains(id))
            .collect();
        Some(Cancelled {
            listens,
            unsubscribe,
        })
    }

    /// Whether an upstream listen id (a string) is open.
    #[cfg(test)]
    pub(crate) fn is_open(&self, own: &str) -> bool {
        lock(&self.subs)
            .iter()
            .any(|s| s.open.iter().any(|o| o == own))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_are_narrowed_per_server() {
        let filter = json!({"toolsListChanged": true, "promptsListChanged": true,
                            "resourceSubscriptions": ["file:///a", "file:///b"]});
        let tools_only = json!({"tools": {}});
        assert_eq!(
            narrow(&filter, &tools_only, |_| true),
            Some(json!({"toolsListChanged": true}))
        );
        let with_resources = json!({"resources": {"subscribe": true}});
        assert_eq!(
            narrow(&filter, &with_resources, |u| u == "file:///b"),
            Some(json!({"resourceSubscriptions": ["file:///b"]}))
        );
        assert_eq!(narrow(&filter, &json!({"logging": {}}), |_| true), None);
    }

    #[test]
    fn one_acknowledgement_after_every_upstreams_and_notifications_retagged() {
        let listens = Listens::default();
        let now = listens.open(
            "7",
            vec![(0, "mcp-veil-l1".into()), (1, "mcp-veil-l2".into())],
            Vec::new(),
        );
        assert!(now.is_empty());
        let ack = |own: &str, n: Value| {
            json!({"jsonrpc": "2.0", "method": ACKNOWLEDGED,
                   "params": {"_meta": {META_SUBSCRIPTION: own}, "notifications": n}})
            .to_string()
        };
        assert_eq!(
            listens
                .upstream_notification(0, &ack("mcp-veil-l1", json!({"toolsListChanged": true}))),
            Delivery::Host(Vec::new())
        );
        // Before the merged acknowledgement: held.
        let change = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                            "params": {"_meta": {META_SUBSCRIPTION: "mcp-veil-l1"}}})
        .to_string();
        assert_eq!(
            listens.upstream_notification(0, &change),
            Delivery::Host(Vec::new())
        );
        let Delivery::Host(out) = listens.upstream_notification(
            1,
            &ack(
                "mcp-veil-l2",
                json!({"resourceSubscriptions": ["file:///b"]}),
            ),
        ) else {
            panic!("ours")
        };
        assert_eq!(out.len(), 2, "{out:?}");
        let first: Value = serde_json::from_str(&out[0]).unwrap();
        assert_eq!(first["method"], ACKNOWLEDGED);
        assert_eq!(first["params"]["_meta"][META_SUBSCRIPTION], "7");
        assert_eq!(
            first["params"]["notifications"],
            json!({"toolsListChanged": true, "resourceSubscriptions": ["file:///b"]})
        );
        let second: Value = serde_json::from_str(&out[1]).unwrap();
        assert_eq!(second["params"]["_meta"][META_SUBSCRIPTION], "7");
        // Someone else's tag: not ours.
        let other = change.replace("mcp-veil-l1", "mcp-veil-l9");
        assert_eq!(listens.upstream_notification(0, &other), Delivery::NotOurs);
        // The host's answer comes with the last upstream's.
        let end = |own: &str| format!(r#"{{"jsonrpc":"2.0","id":"{own}","result":{{}}}}"#);
        assert_eq!(
            listens.upstream_answer("\"mcp-veil-l1\"", &end("mcp-veil-l1")),
            Delivery::Host(Vec::new())
        );
        assert_eq!(
            listens.upstream_answer("\"mcp-veil-l2\"", &end("mcp-veil-l2")),
            Delivery::Host(vec![r#"{"jsonrpc":"2.0","id":7,"result":{}}"#.to_string()])
        );
        assert!(!listens.is_open("mcp-veil-l2"));
    }

    #[test]
    fn session_era_list_changes_are_tagged_for_the_subscriptions_that_want_them() {
        let listens = Listens::default();
        let methods = untagged_methods(
            &json!({"toolsListChanged": true}),
            &json!({"tools": {"listChanged": true}, "prompts": {"listChanged": true}}),
        );
        assert_eq!(methods, vec!["notifications/tools/list_changed"]);
        let part = Untagged {
            idx: 3,
            methods,
            uris: vec!["demo://r/1".into()],
        };
        let now = listens.open("\"s1\"", Vec::new(), vec![part]);
        assert_eq!(now.len(), 1, "acknowledged at once");
        let ack: Value = serde_json::from_str(&now[0]).unwrap();
        assert_eq!(
            ack["params"]["notifications"],
            json!({"toolsListChanged": true, "resourceSubscriptions": ["demo://r/1"]})
        );
        let updated = |uri: &str| {
            json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                   "params": {"uri": uri}})
            .to_string()
        };
        assert!(matches!(
            listens.upstream_notification(3, &updated("demo://r/1/part")),
            Delivery::Host(lines) if lines.len() == 1
        ));
        assert_eq!(
            listens.upstream_notification(3, &updated("demo://r/10")),
            Delivery::NotOurs
        );
        let change = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
        let Delivery::Host(out) = listens.upstream_notification(3, change) else {
            panic!("tagged")
        };
        let v: Value = serde_json::from_str(&out[0]).unwrap();
        assert_eq!(v["params"]["_meta"][META_SUBSCRIPTION], "s1");
        assert_eq!(
            listens.upstream_notification(2, change),
            Delivery::NotOurs,
            "another server's"
        );
        assert_eq!(
            listens.cancel("\"s1\""),
            Some(Cancelled {
                listens: Vec::new(),
                unsubscribe: vec![(3, "demo://r/1".into())]
            })
        );
        assert_eq!(listens.cancel("\"s1\""), None);
        assert_eq!(listens.upstream_notification(3, change), Delivery::NotOurs);
    }
}
