//! What the gateway passes on unchanged, through `mcp-veil serve` with a `url:` upstream:
//! - the host's protocol version is the one proposed upstream, with its `roots` capability;
//! - the upstream hears `notifications/initialized` before any other request;
//! - list-level fields (`_meta`, `ttlMs`, `cacheScope`) of the upstream's lists reach the host.

mod common;
mod support;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use common::*;
use serde_json::json;
use support::http_echo::{self, Echo};
use support::load::Client;
use support::serve::Replica;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_lifecycle_order_and_list_fields_pass_through() {
    let echo = Arc::new(Echo::default());
    let upstream = http_echo::start(echo.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &format!("servers:\n  up:\n    url: {upstream}\n"),
    );
    let replica = Replica::start(&veil(), &config, &[]);
    let mut client = Client::new(reqwest::Client::new());
    let init = client
        .request(
            &replica.url,
            "initialize",
            json!({"protocolVersion": "2025-03-26", "capabilities": {"roots": {"listChanged": true}},
                   "clientInfo": {"name": "fidelity", "version": "1"}}),
        )
        .await
        .unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2025-03-26", "{init}");
    assert_eq!(
        *echo.versions.lock().unwrap(),
        vec!["2025-03-26".to_string()]
    );
    let list = client
        .request(&replica.url, "tools/list", json!({}))
        .await
        .unwrap();
    let result = &list["result"];
    assert!(
        result["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["name"] == "up__echo")),
        "{list}"
    );
    assert_eq!(
        result["_meta"],
        json!({"example.com/list": "tools"}),
        "{list}"
    );
    assert_eq!(result["ttlMs"], 30000, "{list}");
    assert_eq!(result["cacheScope"], "public", "{list}");
    assert!(echo.initialized.load(Ordering::Relaxed));
    assert_eq!(
        echo.early.load(Ordering::Relaxed),
        0,
        "a request reached the upstream before notifications/initialized"
    );
}
