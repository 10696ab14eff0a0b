//! A session-era server's requests to a stateless (2026-07-28) host, carried as input-required
//! results (multi round-trip requests, SEP-2322).
//!
//! A 2025-11-25 server asks its client for sampling, elicitation or roots while a `tools/call`
//! runs (`sampling/createMessage` ... with its own id, the call still open). A stateless host
//! cannot be sent requests: in 2026-07-28 such questions come back as the call's result,
//! `{"resultType": "input_required", "inputRequests": {KEY: {method, params}}, "requestState"}`,
//! and the host calls again with `inputResponses: {KEY: result}` and the same `requestState`.
//! The gateway translates: the server's request (already through the interceptor: tokenized)
//! answers the host's call as an input-required result, the server's call stays open upstream;
//! the host's retry carrying that `requestState` is not sent as a new call: its input response
//! becomes the answer to the server's request (restored by the interceptor like any host
//! answer), and the server's final result answers the retry (its id). Another request during
//! the same call repeats the round. The host cancelling a retry cancels the server's call (by
//! its first id).
//!
//! The server's request is matched to the host call it belongs to by elimination: it is the one
//! `tools/call` the host has open to that server and not already suspended. When there are
//! several (or none), which call asked cannot be known from a session-era stdio or JSON-RPC
//! message (requests carry no reference to the call they serve), so the server gets an error
//! answer naming why, and the host's calls go on: never a hang, never a guess.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Value, json};

/// The server → client methods carried as input requests.
pub(crate) const CARRIED: [&str; 3] =
    ["sampling/createMessage", "elicitation/create", "roots/list"];

/// The most rounds held at once (then the oldest are dropped: their retries get an error).
const MAX_HELD: usize = 4096;

/// One suspended round: the server's request the host is to answer.
#[derive(Debug, Clone)]
pub(crate) struct Held {
    /// The call's id as the server knows it (JSON text: the host's first call's id).
    pub(crate) call: String,
    /// The server request's id as the gateway recorded it for the host (JSON text).
    pub(crate) request: String,
    /// The key of the input request in `inputRequests`.
    pub(crate) key: String,
}

/// What a retry resumes.
#[derive(Debug)]
pub(crate) enum Resume {
    /// The round: the host's input response answers the server's request.
    Round(Held),
    /// The call's final answer, which came while it was suspended.
    Done(String),
}

/// Suspended rounds and where calls' answers now go.
#[derive(Debug, Default)]
pub(crate) struct Rounds {
    next: std::sync::atomic::AtomicU64,
    /// `requestState` → the round.
    held: Mutex<HashMap<String, Held>>,
    /// `requestState` → the call's final answer, when the server answered the call while it
    /// was suspended (the retry gets it).
    parked: Mutex<HashMap<String, String>>,
    /// A call's id upstream (JSON text) → the id of the host's latest retry (JSON text).
    redirect: Mutex<HashMap<String, String>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Rounds {
    /// Whether the call `call` (its upstream id) is suspended (answered with input_required,
    /// its retry not in yet).
    pub(crate) fn is_suspended(&self, call: &str) -> bool {
        lock(&self.held).values().any(|h| h.call == call)
    }

    /// The id the host waits on for `call` now: its latest retry's, else the call's own.
    pub(crate) fn host_id(&self, call: &str) -> String {
        lock(&self.redirect)
            .get(call)
            .cloned()
            .unwrap_or_else(|| call.to_string())
    }

    /// The call the host's retry `retry_id` (JSON text) now stands for, forgotten (the host
    /// cancelled the retry).
    pub(crate) fn call_of(&self, retry_id: &str) -> Option<String> {
        let mut redirect = lock(&self.redirect);
        let call = redirect
            .iter()
            .find(|(_, to)| *to == retry_id)
            .map(|(call, _)| call.clone())?;
        redirect.remove(&call);
        Some(call)
    }

    /// The call's answer came: where it goes (the latest retry's id), forgotten.
    pub(crate) fn finish(&self, call: &str) -> Option<String> {
        lock(&self.redirect).remove(call)
    }

    /// Suspends `call` on the server's request `request` (`method`, `params`, already
    /// tokenized): the input-required result to answer the host with.
    pub(crate) fn suspend(
        &self,
        call: &str,
        request: &str,
        method: &str,
        params: Option<Value>,
    ) -> Value {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let state = format!("mcp-veil-r{n}-{}", nonce());
        let key = format!("r{n}");
        let mut held = lock(&self.held);
        if held.len() >= MAX_HELD {
            held.clear();
        }
        held.insert(
            state.clone(),
            Held {
                call: call.to_string(),
                request: request.to_string(),
                key: key.clone(),
            },
        );
        let mut input = json!({"method": method});
        if let Some(p) = params {
            input["params"] = p;
        }
        json!({"resultType": "input_required", "inputRequests": {key: input},
               "requestState": state})
    }

    /// The host's retry `retry_id` with `requestState` `state`: the round it resumes (the
    /// call now redirected to the retry), the call's answer when it came meanwhile, or `None`
    /// when the state names no round.
    pub(crate) fn resume(&self, state: &str, retry_id: &str) -> Option<Resume> {
        if let Some(answer) = lock(&self.parked).remove(state) {
            return Some(Resume::Done(answer));
        }
        let held = lock(&self.held).remove(state)?;
        lock(&self.redirect).insert(held.call.clone(), retry_id.to_string());
        Some(Resume::Round(held))
    }

    /// Puts a round back (its retry lacked the input response).
    pub(crate) fn hold_again(&self, state: &str, held: Held) {
        lock(&self.redirect).remove(&held.call);
        lock(&self.held).insert(state.to_string(), held);
    }

    /// The server answered `call` (`answer`): when the call is suspended, the answer waits for
    /// the retry (true); else it goes to the host now (false).
    pub(crate) fn park(&self, call: &str, answer: &str) -> bool {
        let mut held = lock(&self.held);
        let Some(state) = held
            .iter()
            .find(|(_, h)| h.call == call)
            .map(|(s, _)| s.clone())
        else {
            return false;
        };
        held.remove(&state);
        let mut parked = lock(&self.parked);
        if parked.len() >= MAX_HELD {
            parked.clear();
        }
        parked.insert(state, answer.to_string());
        true
    }

    /// Whether `state` names a round of the gateway's (its prefix).
    pub(crate) fn is_ours(state: &str) -> bool {
        state.starts_with("mcp-veil-r")
    }
}

/// 64 random bits as hex (a retry cannot name another round by guessing its number), or
/// nothing when the system's random source fails.
fn nonce() -> String {
    let mut bytes = [0u8; 8];
    match ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes) {
        Ok(()) => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        Err(_) => String::new(),
    }
}

/// The answer to the server's request `request_id` (JSON text) from the host's input
/// `response` (a result object), as a JSON-RPC response line.
pub(crate) fn answer_line(request_id: &str, response: &Value) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{request_id},"result":{response}}}"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_suspends_the_call_and_its_retry_resumes_it() {
        let rounds = Rounds::default();
        let result = rounds.suspend(
            "7",
            "\"mcp-veil-s3\"",
            "sampling/createMessage",
            Some(json!({"messages": []})),
        );
        assert_eq!(result["resultType"], "input_required");
        let state = result["requestState"].as_str().unwrap().to_string();
        assert!(Rounds::is_ours(&state));
        let (key, input) = result["inputRequests"]
            .as_object()
            .and_then(|m| m.iter().next())
            .map(|(k, v)| (k.clone(), v.clone()))
            .unwrap();
        assert_eq!(
            input,
            json!({"method": "sampling/createMessage", "params": {"messages": []}})
        );
        assert!(rounds.is_suspended("7"));
        assert_eq!(rounds.host_id("7"), "7");
        assert!(
            rounds.resume("mcp-veil-r99-x", "8").is_none(),
            "not a round"
        );
        let Some(Resume::Round(held)) = rounds.resume(&state, "8") else {
            panic!("a round")
        };
        assert_eq!((held.call.as_str(), held.key.as_str()), ("7", key.as_str()));
        assert!(!rounds.is_suspended("7"));
        assert_eq!(rounds.host_id("7"), "8");
        assert!(rounds.resume(&state, "9").is_none(), "once");
        assert_eq!(rounds.finish("7").as_deref(), Some("8"));
        // A retry cancelled: the call it stands for.
        let other = rounds.suspend("20", "\"mcp-veil-s5\"", "roots/list", None);
        let other = other["requestState"].as_str().unwrap().to_string();
        assert!(rounds.resume(&other, "21").is_some());
        assert_eq!(rounds.call_of("21").as_deref(), Some("20"));
        assert_eq!(rounds.call_of("21"), None);
        // Answered while suspended: the retry gets the answer.
        let again = rounds.suspend("10", "\"mcp-veil-s4\"", "roots/list", None);
        let state = again["requestState"].as_str().unwrap().to_string();
        assert!(rounds.park("10", "{}"));
        assert!(!rounds.park("10", "{}"));
        assert!(matches!(rounds.resume(&state, "11"), Some(Resume::Done(a)) if a == "{}"));
        assert_eq!(
            answer_line("\"mcp-veil-s3\"", &json!({"action": "accept"})),
            r#"{"jsonrpc":"2.0","id":"mcp-veil-s3","result":{"action":"accept"}}"#
        );
    }
}
