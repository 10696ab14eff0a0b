//! A tiny stdio MCP server for latency measurements: one tool, `lookup`, whose result is a
//! fixed text of about 60 bytes (`{"size": "small"}`) or 10 KB (`{"size": "10k"}`), with a few
//! personal-looking values in it so the proxy has work to do.
//!
//! Used by `examples/proxy_latency.rs`; run it by hand with
//! `cargo run --example echo_server` and type JSON-RPC lines.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// The result text for `size`.
fn payload(size: &str) -> String {
    if size != "10k" {
        return "Ticket 42 is assigned to EMP-123456 (maria.ortiz@example.com).".to_string();
    }
    let mut text = String::with_capacity(10_300);
    let mut i = 0u32;
    while text.len() < 10_000 {
        i += 1;
        if i.is_multiple_of(5) {
            text.push_str(&format!(
                "Row {i}: escalated by EMP-{:06} <agent{i}@example.com>, call +1 415 555 {:04}.\n",
                100_000 + i,
                i % 10_000
            ));
        } else {
            text.push_str(&format!(
                "Row {i}: the customer reported that the export finished without errors today.\n"
            ));
        }
    }
    text
}

fn main() {
    let small = payload("small");
    let large = payload("10k");
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = msg.get("id").cloned() else {
            continue; // notification
        };
        let result = match msg["method"].as_str().unwrap_or("") {
            "initialize" => json!({
                "protocolVersion": msg["params"]["protocolVersion"].as_str().unwrap_or("2025-06-18"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "echo", "version": "1"}
            }),
            "tools/list" => json!({"tools": [{
                "name": "lookup",
                "inputSchema": {"type": "object", "properties": {"size": {"type": "string"}}}
            }]}),
            "tools/call" => {
                let text = if msg["params"]["arguments"]["size"] == "10k" {
                    &large
                } else {
                    &small
                };
                json!({"content": [{"type": "text", "text": text}]})
            }
            _ => json!({}),
        };
        let reply = json!({"jsonrpc": "2.0", "id": id, "result": result});
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
}
