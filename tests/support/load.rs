//! The load pattern shared by `tests/serve_load.rs` and `examples/http_load.rs`: a session
//! alternates between two endpoints; each round mints a value (the upstream echoes a raw
//! `EMP-ssssKKKK`, the client must see `[EMPLOYEE_ID_k]`) and restores it on the other endpoint
//! (the client sends the token, the upstream checks it got the session's own value).
//!
//! Run directly against the upstream (no gateway) the same pattern sends and checks raw values,
//! which gives the baseline for the added latency.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::http_echo::value;

/// A JSON-RPC client over streamable HTTP (JSON answers) for one session.
#[derive(Debug)]
pub(crate) struct Client {
    http: reqwest::Client,
    session: Option<String>,
    next_id: u64,
}

impl Client {
    /// A client with no session yet.
    pub(crate) fn new(http: reqwest::Client) -> Client {
        Client {
            http,
            session: None,
            next_id: 1,
        }
    }

    /// The session id the gateway issued, if any.
    pub(crate) fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// Sends one request; returns the JSON-RPC message answered.
    pub(crate) async fn request(
        &mut self,
        url: &str,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let mut req = self
            .http
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .body(body.to_string());
        if let Some(s) = &self.session {
            req = req.header("mcp-session-id", s);
        }
        let resp = req.send().await.map_err(|e| format!("{method}: {e}"))?;
        if let Some(s) = resp.headers().get("mcp-session-id") {
            self.session = s.to_str().ok().map(str::to_string);
        }
        let status = resp.status();
        let text = resp.text().await.map_err(|e| format!("{method}: {e}"))?;
        if text.contains("EMP-") && self.session.is_some() {
            return Err(format!("{method}: a raw value reached the client"));
        }
        if !status.is_success() {
            return Err(format!("{method}: HTTP {status}: {text}"));
        }
        serde_json::from_str(&text).map_err(|e| format!("{method}: {e}: {text}"))
    }
}

/// One session's run: `rounds` rounds (two calls each) alternating between `urls`. `tool` is
/// the echo tool's name at these URLs (`echo` direct, `up__echo` through the gateway);
/// `through_gateway` says whether the client should see tokens. Latencies of every call are
/// appended to `latencies`.
pub(crate) async fn run_session(
    http: reqwest::Client,
    urls: [&str; 2],
    tool: &str,
    through_gateway: bool,
    s: u64,
    rounds: u64,
    latencies: &mut Vec<Duration>,
) -> Result<(), String> {
    let mut client = Client::new(http);
    let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "load", "version": "1"}});
    client
        .request(urls[(s % 2) as usize], "initialize", init)
        .await?;
    if through_gateway && client.session.is_none() {
        return Err("the gateway issued no Mcp-Session-Id".into());
    }
    for k in 1..=rounds {
        let (first, second) = (urls[(k % 2) as usize], urls[((k + 1) % 2) as usize]);
        let raw = value(s, k);
        let t = Instant::now();
        let seen = call(&mut client, first, tool, json!({"text": raw})).await?;
        latencies.push(t.elapsed());
        let expected = if through_gateway {
            format!("[EMPLOYEE_ID_{k}]")
        } else {
            raw.clone()
        };
        if seen != expected {
            return Err(format!(
                "session {s} round {k}: saw {seen:?}, expected {expected:?}"
            ));
        }
        let t = Instant::now();
        let back = call(
            &mut client,
            second,
            tool,
            json!({"text": seen, "session": s, "k": k}),
        )
        .await?;
        latencies.push(t.elapsed());
        if back != expected {
            return Err(format!("session {s} round {k}: echo came back as {back:?}"));
        }
    }
    Ok(())
}

async fn call(client: &mut Client, url: &str, tool: &str, args: Value) -> Result<String, String> {
    let answer = client
        .request(url, "tools/call", json!({"name": tool, "arguments": args}))
        .await?;
    if let Some(e) = answer.get("error") {
        return Err(format!("JSON-RPC error {e}"));
    }
    if answer.pointer("/result/isError") == Some(&Value::Bool(true)) {
        return Err(format!("tool error {}", answer["result"]));
    }
    answer
        .pointer("/result/content/0/text")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| format!("no text in {answer}"))
}

/// The `q` quantile (0..=1) of `samples` (sorted in place).
pub(crate) fn quantile(samples: &mut [Duration], q: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort_unstable();
    let i = ((samples.len() - 1) as f64 * q).round() as usize;
    samples[i]
}
