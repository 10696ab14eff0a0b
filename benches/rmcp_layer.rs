//! What the rmcp layer costs per tool call: the demo CRM in process over an in-memory pipe,
//! with and without `Veil::wrap` on the client's transport.
//!
//! Run: `cargo bench --bench rmcp_layer`
//!
//! - `list_contacts`: a result of three contacts, tokenized on the way in.
//! - `send_email`: arguments with two tokens, rehydrated on the way out.

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_veil::demo::server::CrmServer;
use mcp_veil::mcp::transport::Veil;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

async fn connect(veil: Option<&Veil>) -> RunningService<RoleClient, ()> {
    let (client_io, server_io) = tokio::io::duplex(256 * 1024);
    tokio::spawn(async move {
        let (r, w) = tokio::io::split(server_io);
        if let Ok(running) = CrmServer::new().serve((r, w)).await {
            let _ = running.waiting().await;
        }
    });
    let (r, w) = tokio::io::split(client_io);
    let transport = AsyncRwTransport::new_client(r, w);
    match veil {
        Some(veil) => ().serve(veil.wrap(transport)).await.unwrap(),
        None => ().serve(transport).await.unwrap(),
    }
}

fn send_args() -> JsonObject {
    let value = json!({"to": "[NAME_1]", "subject": "Hello", "body": "Hi [NAME_2], how are you?"});
    match value {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let veil = Veil::builder().server_name("crm").build().unwrap();
    let plain = rt.block_on(connect(None));
    let veiled = rt.block_on(connect(Some(&veil)));
    // Mint [NAME_1..3] in the veiled session so `send_email` has tokens to restore.
    rt.block_on(veiled.call_tool(CallToolRequestParams::new("list_contacts")))
        .unwrap();

    let mut group = c.benchmark_group("rmcp_layer");
    for (label, client) in [("plain", &plain), ("veil", &veiled)] {
        group.bench_function(format!("list_contacts/{label}"), |b| {
            b.iter(|| {
                rt.block_on(client.call_tool(CallToolRequestParams::new("list_contacts")))
                    .unwrap()
            })
        });
        group.bench_function(format!("send_email/{label}"), |b| {
            b.iter(|| {
                rt.block_on(client.call_tool(
                    CallToolRequestParams::new("send_email").with_arguments(send_args()),
                ))
                .unwrap()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
