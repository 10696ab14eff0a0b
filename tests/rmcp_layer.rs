//! The rmcp layer end to end: an rmcp client wraps its transport with `Veil::wrap` and talks to
//! the demo CRM server (rmcp, fake contacts), in process over an in-memory pipe, over
//! streamable HTTP on loopback, and as a child process (`mcp-veil demo --server`).
//!
//! What must hold on every transport: the client sees tokens where the server sent names (and
//! emails, once the email recognizer lands), the server receives the real values in a call's
//! arguments, and a token the session never minted yields an `isError` result the server never
//! sees.

use std::sync::Arc;
use std::time::Duration;

use mcp_veil::demo::server::{CONTACTS, CrmServer};
use mcp_veil::mcp::transport::Veil;
use mcp_veil::{Detector, detect::FindContext};
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
    TokioChildProcess,
};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

/// Whether the email recognizer finds anything yet (it is a placeholder on some branches).
fn emails_detected() -> bool {
    !Detector::with_defaults()
        .detect("a@example.com", &FindContext::default())
        .is_empty()
}

fn veil() -> Veil {
    Veil::builder().server_name("crm").build().unwrap()
}

/// A client through `veil` to a fresh in-process server over a duplex pipe.
async fn over_duplex(veil: &Veil, crm: &CrmServer) -> RunningService<RoleClient, ()> {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let crm = crm.clone();
    tokio::spawn(async move {
        let (r, w) = tokio::io::split(server_io);
        if let Ok(running) = crm.serve((r, w)).await {
            let _ = running.waiting().await;
        }
    });
    let (r, w) = tokio::io::split(client_io);
    ().serve(veil.wrap(AsyncRwTransport::new_client(r, w)))
        .await
        .unwrap()
}

/// Serves `crm` over streamable HTTP on 127.0.0.1; returns the URL and the server task.
async fn http_server(crm: &CrmServer) -> (String, tokio::task::JoinHandle<()>) {
    let crm = crm.clone();
    let service = StreamableHttpService::new(
        move || Ok(crm.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, router).await;
    });
    (url, task)
}

fn args(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => panic!("arguments must be an object"),
    }
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The whole check, on any connected client: list, send with tokens, send a forged token.
async fn check(client: &RunningService<RoleClient, ()>, crm: &CrmServer) {
    let emails = emails_detected();

    // The model's view of the contacts: names are tokens, in the text and the structured copy.
    let listed = client
        .call_tool(CallToolRequestParams::new("list_contacts"))
        .await
        .unwrap();
    let seen_text = text(&listed);
    let seen: Value = serde_json::from_str(&seen_text).unwrap();
    let structured = listed.structured_content.clone().unwrap();
    assert_eq!(
        seen, structured,
        "text and structuredContent tokenized alike"
    );
    for (i, c) in CONTACTS.iter().enumerate() {
        assert!(!seen_text.contains(c.name), "raw name reached the client");
        assert!(!structured.to_string().contains(c.name));
        assert_eq!(seen["contacts"][i]["name"], format!("[NAME_{}]", i + 1));
        // Not personal data: passes as it is.
        assert_eq!(seen["contacts"][i]["company"], c.company);
        if emails {
            assert!(!seen_text.contains(c.email), "raw email reached the client");
            assert_eq!(seen["contacts"][i]["email"], format!("[EMAIL_{}]", i + 1));
        }
    }

    // The model writes what it saw; the server gets the real values.
    let to = seen["contacts"][1]["email"].as_str().unwrap().to_string();
    let sent = client
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(args(json!({
                "to": to,
                "subject": "Re: [NAME_2]",
                "body": "Hi [NAME_2], [NAME_1] asked me to write. Best, the assistant",
            }))),
        )
        .await
        .unwrap();
    assert_ne!(sent.is_error, Some(true), "{}", text(&sent));
    let received = crm.received();
    let last = received.last().unwrap();
    assert_eq!(last.to, CONTACTS[1].email);
    assert_eq!(last.subject, format!("Re: {}", CONTACTS[1].name));
    assert_eq!(
        last.body,
        format!(
            "Hi {}, {} asked me to write. Best, the assistant",
            CONTACTS[1].name, CONTACTS[0].name
        )
    );
    if emails {
        assert_eq!(to, "[EMAIL_2]");
        // The server echoes the address; the client sees the same token again.
        assert_eq!(text(&sent), "sent to [EMAIL_2]");
    }

    // A token this session never minted: an error result, and the server sees nothing.
    let count = crm.received().len();
    let refused = client
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(args(json!({
                "to": "[EMAIL_41]",
                "subject": "hello",
                "body": "hi",
            }))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    let message = text(&refused);
    assert!(message.contains("[EMAIL_41]"), "{message}");
    assert!(message.contains("not a token of this session"), "{message}");
    assert_eq!(
        crm.received().len(),
        count,
        "the refused call reached the server"
    );
}

#[tokio::test]
async fn over_an_in_memory_pipe() {
    let crm = CrmServer::new();
    let client = over_duplex(&veil(), &crm).await;
    check(&client, &crm).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn over_streamable_http_on_loopback() {
    let crm = CrmServer::new();
    let (url, server) = http_server(&crm).await;
    let client = ().serve(veil().wrap(StreamableHttpClientTransport::from_uri(url))).await.unwrap();
    check(&client, &crm).await;
    client.cancel().await.unwrap();
    server.abort();
}

#[tokio::test]
async fn over_a_child_process() {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-veil"));
    cmd.args(["demo", "--server"]);
    let transport = TokioChildProcess::new(cmd).unwrap();
    let client = ().serve(veil().wrap(transport)).await.unwrap();
    // The server is in another process: check what crosses the layer in both directions.
    let listed = client
        .call_tool(CallToolRequestParams::new("list_contacts"))
        .await
        .unwrap();
    let seen = text(&listed);
    for c in CONTACTS {
        assert!(!seen.contains(c.name), "raw name reached the client");
    }
    assert!(seen.contains("[NAME_3]"), "{seen}");
    // The server echoes `to`: a token goes out as the real value and comes back as the token.
    let sent = client
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(args(json!({
                "to": "[NAME_3]",
                "subject": "s",
                "body": "b",
            }))),
        )
        .await
        .unwrap();
    // The server echoes the real name; the layer's echo guard tokenizes a restored value when
    // it comes back, so the client sees the token again.
    assert_eq!(text(&sent), "sent to [NAME_3]");
    let refused = client
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(args(json!({
                "to": "[NAME_9]",
                "subject": "s",
                "body": "b",
            }))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("[NAME_9]"));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn two_transports_share_one_session() {
    let veil = veil();
    let crm = CrmServer::new();
    let mail = CrmServer::new();
    let crm_client = over_duplex(&veil, &crm).await;
    let mail_client = over_duplex(&veil.server("mail").unwrap(), &mail).await;
    crm_client
        .call_tool(CallToolRequestParams::new("list_contacts"))
        .await
        .unwrap();
    // A token minted from the CRM's result is restored in a call to the other server.
    mail_client
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(args(json!({
                "to": "x",
                "subject": "s",
                "body": "Dear [NAME_3]",
            }))),
        )
        .await
        .unwrap();
    assert_eq!(
        mail.received()[0].body,
        format!("Dear {}", CONTACTS[2].name)
    );
    assert!(crm.received().is_empty());

    // Another session never resolves this session's tokens.
    let other_crm = CrmServer::new();
    let other = over_duplex(&Veil::builder().build().unwrap(), &other_crm).await;
    let refused = other
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(args(json!({
                "to": "x",
                "subject": "s",
                "body": "Dear [NAME_3]",
            }))),
        )
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(other_crm.received().is_empty());
    for c in [crm_client, mail_client, other] {
        c.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn same_server_name_twice_stays_correct() {
    // Both clients number requests from 0: the layer keeps their correlation apart.
    let veil = veil();
    let (a, b) = (CrmServer::new(), CrmServer::new());
    let ca = over_duplex(&veil, &a).await;
    let cb = over_duplex(&veil, &b).await;
    // Concurrently, so both requests (same id) are pending at once.
    let (la, lb) = tokio::join!(
        ca.call_tool(CallToolRequestParams::new("list_contacts")),
        cb.call_tool(CallToolRequestParams::new("list_contacts")),
    );
    for listed in [la.unwrap(), lb.unwrap()] {
        assert!(text(&listed).contains("[NAME_1]"));
        assert!(!text(&listed).contains(CONTACTS[0].name));
    }
    ca.cancel().await.unwrap();
    cb.cancel().await.unwrap();
}

#[tokio::test]
async fn the_wrapper_gives_its_transport_back_until_used() {
    let (client_io, _server_io) = tokio::io::duplex(1024);
    let (r, w) = tokio::io::split(client_io);
    let wrapped = veil().wrap(AsyncRwTransport::new_client(r, w));
    assert!(wrapped.get_ref().is_some());
    assert_eq!(wrapped.server_name(), "crm");
    assert!(wrapped.into_inner().is_some());
    // A closed pipe: the handshake fails with an error, not a hang.
    let (client_io, server_io) = tokio::io::duplex(1024);
    drop(server_io);
    let (r, w) = tokio::io::split(client_io);
    let result = tokio::time::timeout(
        Duration::from_secs(5),
        ().serve(veil().wrap(AsyncRwTransport::new_client(r, w))),
    )
    .await
    .expect("no hang");
    assert!(result.is_err());
}

#[tokio::test]
async fn a_configured_kind_flows_both_ways() {
    // Emails as a custom kind: what the email recognizer will do, checked independently of it.
    let yaml = r#"
detect:
  email: false
  custom:
    - kind: MAIL
      pattern: '[a-z.]+@example\.(com|org|net)'
      json_keys: [email]
"#;
    let config = mcp_veil::config::Config::parse(yaml, std::path::Path::new("<test>")).unwrap();
    let veil = Veil::builder()
        .config(config)
        .server_name("crm")
        .build()
        .unwrap();
    let crm = CrmServer::new();
    let client = over_duplex(&veil, &crm).await;
    let listed = client
        .call_tool(CallToolRequestParams::new("list_contacts"))
        .await
        .unwrap();
    let seen: Value = serde_json::from_str(&text(&listed)).unwrap();
    for (i, c) in CONTACTS.iter().enumerate() {
        assert!(!text(&listed).contains(c.email));
        assert_eq!(seen["contacts"][i]["email"], format!("[MAIL_{}]", i + 1));
    }
    let sent = client
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(args(json!({
                "to": "[MAIL_2]",
                "subject": "Hello",
                "body": "Hi [NAME_2]",
            }))),
        )
        .await
        .unwrap();
    let got = &crm.received()[0];
    assert_eq!(got.to, CONTACTS[1].email);
    assert_eq!(got.body, format!("Hi {}", CONTACTS[1].name));
    // The server echoes the address: the client sees the token again, never the value.
    assert_eq!(text(&sent), "sent to [MAIL_2]");
    client.cancel().await.unwrap();
}
