//! `keep` and servers that echo: a token a `keep` rule sent to a server as itself, stored and
//! returned by that server, reaches the model as the same token; token text the session never
//! kept (forged, or minted but never sent as itself) stays a `LITERAL`.

use std::path::Path;
use std::sync::Arc;

use mcp_veil::config::Config;
use mcp_veil::detect::Detector;
use mcp_veil::engine::Engine;
use mcp_veil::mcp::Interceptor;
use mcp_veil::policy::Policy;
use mcp_veil::vault::{MemoryVault, SessionId};
use serde_json::Value;

const CONFIG: &str = "flows:\n  rules:\n    - name: names-stay-tokens\n      kinds: [NAME]\n      to: memory/*\n      action: keep\n";

fn interceptor() -> Interceptor {
    let config = Config::parse(CONFIG, Path::new("keep.yaml")).unwrap();
    let engine = Engine::new(
        Arc::new(Detector::new(&config.detect).unwrap()),
        Arc::new(MemoryVault::default()),
    );
    Interceptor::new(engine, SessionId::new("keep"))
        .with_policy(Arc::new(Policy::from_config(&config).unwrap()))
}

fn text_of(out: &str) -> String {
    let v: Value = serde_json::from_str(out).unwrap();
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_kept_token_echoed_back_is_itself_and_forged_ones_stay_literals() {
    let i = interceptor();
    // The model learns [NAME_1] and [NAME_2] from a CRM.
    let call =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{}}}"#;
    i.from_host("crm", call).await;
    let out = i
        .from_server(
            "crm",
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"full_name\":\"Zebulon Quarrington\",\"contact\":{\"full_name\":\"Ottoline Varga\"}}"}]}}"#,
        )
        .await;
    let seen = text_of(out.forward.as_deref().unwrap());
    assert!(
        seen.contains("[NAME_1]") && seen.contains("[NAME_2]"),
        "{seen}"
    );

    // It stores [NAME_1] in a memory server: `keep` sends the token as itself.
    let store = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_entities","arguments":{"entity":"[NAME_1]"}}}"#;
    let out = i.from_host("memory", store).await;
    assert_eq!(out.forward.as_deref(), Some(store));
    i.from_server(
        "memory",
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}"#,
    )
    .await;

    // The memory server returns what it stored, plus token text it made up and a token the
    // session minted but never sent it.
    let read = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_graph","arguments":{}}}"#;
    i.from_host("memory", read).await;
    let out = i
        .from_server(
            "memory",
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"entities: [NAME_1]; also [NAME_1], [EMAIL_7] and [NAME_2]"}]}}"#,
        )
        .await;
    let seen = text_of(out.forward.as_deref().unwrap());
    assert!(
        seen.starts_with("entities: [NAME_1]; also [NAME_1], "),
        "{seen}"
    );
    assert!(
        !seen.contains("[EMAIL_7]"),
        "forged token text passed: {seen}"
    );
    assert!(
        !seen.contains("[NAME_2]"),
        "a token never kept passed: {seen}"
    );
    assert_eq!(seen.matches("[LITERAL_").count(), 2, "{seen}");
}
