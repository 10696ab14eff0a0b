//! The official conformance runner's client mode driving an rmcp client wrapped in mcp-veil
//! (`veil.wrap(transport)`), so the layer is measured as a client too.
//!
//! ```text
//! cargo build --example conformance_client
//! node conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js client \
//!   --command target/debug/examples/conformance_client --scenario initialize
//! ```
//!
//! The runner starts it with the scenario's server URL as its argument and the scenario's name
//! in `MCP_CONFORMANCE_SCENARIO`. It initializes at 2025-11-25 (the newest version with
//! `initialize`: rmcp's default proposes 2026-07-28, which a session-era server refuses),
//! lists the tools and calls the first with `{a: 2, b: 3}` (`initialize`, `tools_call`), or the
//! elicitation tool, accepting its form with the schema's defaults
//! (`elicitation-sep1034-client-defaults`). Exits non-zero on any failure.

#![allow(
    clippy::print_stderr,
    reason = "an example reports failures on stderr; it speaks no MCP on stdout"
)]

use mcp_veil::mcp::transport::Veil;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData, Implementation, JsonObject, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// The client's side of the scenarios: its identity, and elicitation answered with defaults.
#[derive(Debug, Clone)]
struct Conformance;

impl ClientHandler for Conformance {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation = Some(Default::default());
        ClientConfig::new(
            capabilities,
            Implementation::new("mcp-veil-conformance-client", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        // Accept with every default the form declares.
        let schema = serde_json::to_value(&requested_schema).unwrap_or(Value::Null);
        let mut content = serde_json::Map::new();
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, prop) in props {
                if let Some(default) = prop.get("default") {
                    content.insert(name.clone(), default.clone());
                }
            }
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content)))
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let url = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: conformance_client SERVER_URL"))?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let veil = Veil::builder().server_name("conformance").build()?;
    let client = Conformance
        .serve(veil.wrap(StreamableHttpClientTransport::from_uri(url)))
        .await?;
    let tools = client.list_all_tools().await?;
    let wanted = if scenario.starts_with("elicitation") {
        tools
            .iter()
            .find(|t| t.name.contains("elicitation"))
            .map(|t| (t.name.to_string(), JsonObject::new()))
    } else {
        let args = json!({"a": 2, "b": 3});
        tools.first().map(|t| {
            (
                t.name.to_string(),
                args.as_object().cloned().unwrap_or_default(),
            )
        })
    };
    if let Some((name, args)) = wanted {
        client
            .call_tool(CallToolRequestParams::new(name).with_arguments(args))
            .await?;
    }
    client.cancel().await?;
    Ok(())
}
