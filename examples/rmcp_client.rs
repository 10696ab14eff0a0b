//! Wrapping an rmcp client transport in mcp-veil: one line, `veil.wrap(transport)`.
//!
//! Run it:
//!
//! ```text
//! cargo run --example rmcp_client                    # the demo CRM over streamable HTTP on 127.0.0.1
//! cargo build && cargo run --example rmcp_client -- target/debug/mcp-veil demo --server
//!                                                    # any stdio MCP server, as a child process
//! ```
//!
//! With no arguments the example serves the demo CRM (fake contacts) over streamable HTTP on a
//! loopback port, in this process. With a command it spawns that command as a stdio MCP server.
//! Either way the client lists the tools, calls `list_contacts` if the server has it, and
//! prints what the client (the model) sees: tokens such as `[NAME_1]` where the server sent
//! names. Against the demo CRM it then calls `send_email` with tokens and shows the real values
//! the server received.

#![allow(
    clippy::print_stdout,
    reason = "an example prints its results for a person; it speaks no MCP on stdout"
)]

use std::sync::Arc;

use mcp_veil::demo::server::CrmServer;
use mcp_veil::mcp::transport::Veil;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{
    StreamableHttpClientTransport, StreamableHttpServerConfig, StreamableHttpService,
    TokioChildProcess,
};
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // One session per handle; "crm" is the server name recorded as each token's origin.
    let veil = Veil::builder().server_name("crm").build()?;
    let command: Vec<String> = std::env::args().skip(1).collect();

    if let Some((program, args)) = command.split_first() {
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args);
        // The one line: wrap the transport you already have.
        let client = ().serve(veil.wrap(TokioChildProcess::new(cmd)?)).await?;
        run(&client).await?;
        client.cancel().await?;
        return Ok(());
    }

    let crm = CrmServer::new();
    let service = StreamableHttpService::new(
        {
            let crm = crm.clone();
            move || Ok(crm.clone())
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/mcp", listener.local_addr()?);
    let server = tokio::spawn(async move {
        let router = axum::Router::new().nest_service("/mcp", service);
        axum::serve(listener, router).await
    });
    println!("demo CRM served at {url}");

    // The one line, over streamable HTTP.
    let client = ().serve(veil.wrap(StreamableHttpClientTransport::from_uri(url))).await?;
    run(&client).await?;
    for email in crm.received() {
        println!(
            "the server received: to={:?} subject={:?} body={:?}",
            email.to, email.subject, email.body
        );
    }
    client.cancel().await?;
    server.abort();
    Ok(())
}

/// What the model would do: list the tools, read the contacts, write to the first one.
async fn run(client: &RunningService<RoleClient, ()>) -> anyhow::Result<()> {
    let tools = client.list_all_tools().await?;
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    println!("tools: {}", names.join(", "));
    if !names.contains(&"list_contacts") {
        return Ok(());
    }
    let listed = client
        .call_tool(CallToolRequestParams::new("list_contacts"))
        .await?;
    let seen = text(&listed);
    println!("the model sees:\n{seen}");
    if !names.contains(&"send_email") {
        return Ok(());
    }
    let contacts: Value = serde_json::from_str(&seen)?;
    let first = &contacts["contacts"][0];
    let mut arguments = JsonObject::new();
    arguments.insert("to".into(), first["email"].clone());
    arguments.insert("subject".into(), json!("Hello"));
    arguments.insert(
        "body".into(),
        json!(format!("Hi {}!", first["name"].as_str().unwrap_or("there"))),
    );
    println!("the model writes: {}", Value::Object(arguments.clone()));
    let sent = client
        .call_tool(CallToolRequestParams::new("send_email").with_arguments(arguments))
        .await?;
    println!("the model sees: {}", text(&sent));
    Ok(())
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}
