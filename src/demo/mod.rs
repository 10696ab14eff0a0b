//! `mcp-veil demo`: an agent, a CRM MCP server and the layer between them, all in one process.
//!
//! [`run`] starts the embedded rmcp server ([`server::CrmServer`], fake contacts), connects an
//! rmcp client to it over an in-memory pipe through the rmcp layer
//! ([`crate::mcp::transport::Veil`]), and plays the agent: it lists the contacts, reads a call
//! log that names the first one in lower case (tokenized because the session already knows the
//! name), emails that contact using what the model saw (`[EMAIL_1]`, `[NAME_1]`), then tries a
//! token the session never minted. The [`Transcript`] records, step by step, what the model saw and what the
//! server sent or received; the binary prints it. No network, no child process.
//!
//! [`serve_stdio`] (`mcp-veil demo --server`) runs the same CRM server alone on stdio.

pub mod server;

use std::error::Error as StdError;
use std::fmt::Write as _;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::{Value, json};

use crate::config::Config;
use crate::mcp::transport::{BuildError, Veil};
use server::CrmServer;

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// The layer could not be built from the default configuration.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The MCP conversation between the demo client and server failed.
    #[error("the demo's MCP conversation failed: {0}")]
    Mcp(#[source] Box<dyn StdError + Send + Sync>),
}

fn mcp(e: impl StdError + Send + Sync + 'static) -> DemoError {
    DemoError::Mcp(Box::new(e))
}

/// Which side of the layer a block of the transcript shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// What the model saw or wrote (tokens).
    Model,
    /// What the server sent or received (real values).
    Server,
}

/// One labelled block of a step.
#[derive(Clone, Debug)]
pub struct Block {
    /// The side of the layer.
    pub side: Side,
    /// A short label (`model saw`, `server received` ...).
    pub label: &'static str,
    /// The text shown.
    pub text: String,
}

/// One step of the agent's work.
#[derive(Clone, Debug)]
pub struct Step {
    /// What the agent did.
    pub title: String,
    /// The blocks, in the order things happened.
    pub blocks: Vec<Block>,
}

/// What happened, for printing.
#[derive(Clone, Debug, Default)]
pub struct Transcript {
    /// The steps, in order.
    pub steps: Vec<Step>,
}

impl Transcript {
    /// The text of every block on one side.
    pub fn side(&self, side: Side) -> String {
        let mut out = String::new();
        for block in self.steps.iter().flat_map(|s| &s.blocks) {
            if block.side == side {
                out.push_str(&block.text);
                out.push('\n');
            }
        }
        out
    }

    /// The transcript as text for a terminal. Every block opens with a header line
    /// `[model] LABEL` or `[server] LABEL`; its lines are indented by four spaces.
    pub fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(
            "mcp-veil demo: an agent uses a CRM MCP server through mcp-veil (the rmcp layer),\n\
             all in this process. Every contact is fake.\n",
        );
        for (n, step) in self.steps.iter().enumerate() {
            let _ = writeln!(out, "\n== {}. {} ==", n + 1, step.title);
            for block in &step.blocks {
                let side = match block.side {
                    Side::Model => "[model]",
                    Side::Server => "[server]",
                };
                let _ = writeln!(out, "{side} {}", block.label);
                for line in block.text.lines() {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        out.push_str(
            "\nBlocks marked [model] are what the model held; blocks marked [server] are what the\n\
             server sent and received.\n",
        );
        out
    }
}

fn block(side: Side, label: &'static str, text: impl Into<String>) -> Block {
    Block {
        side,
        label,
        text: text.into(),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// The text a tool result shows the model (its text content blocks, JSON pretty-printed), and
/// whether it is an error.
fn shown(result: &CallToolResult) -> String {
    let mut out = String::new();
    if result.is_error == Some(true) {
        out.push_str("(error) ");
    }
    for content in &result.content {
        if let Some(text) = content.as_text() {
            match serde_json::from_str::<Value>(&text.text) {
                Ok(value @ (Value::Object(_) | Value::Array(_))) => out.push_str(&pretty(&value)),
                _ => out.push_str(&text.text),
            }
            out.push('\n');
        }
    }
    out.trim_end().to_string()
}

fn arguments(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// Serves the demo CRM on stdin/stdout until the client hangs up (`mcp-veil demo --server`),
/// for trying the layer's other forms (`mcp-veil proxy`, `TokioChildProcess`) on it.
pub async fn serve_stdio() -> Result<(), DemoError> {
    let running = CrmServer::new()
        .serve(rmcp::transport::stdio())
        .await
        .map_err(mcp)?;
    running.waiting().await.map_err(mcp)?;
    Ok(())
}

/// Runs the demo with the default detection settings.
pub async fn run() -> Result<Transcript, DemoError> {
    let veil = Veil::builder()
        .config(Config::default())
        .server_name("crm")
        .build()?;
    let crm = CrmServer::new();
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(server_io);
    let server = tokio::spawn({
        let crm = crm.clone();
        async move {
            let running = crm.serve((server_read, server_write)).await?;
            running.waiting().await?;
            Ok::<(), Box<dyn StdError + Send + Sync>>(())
        }
    });
    let (client_read, client_write) = tokio::io::split(client_io);
    let client =
        ().serve(veil.wrap(AsyncRwTransport::new_client(client_read, client_write)))
            .await
            .map_err(mcp)?;

    let mut transcript = Transcript::default();

    // 1. List the contacts.
    let listed = client
        .call_tool(CallToolRequestParams::new("list_contacts"))
        .await
        .map_err(mcp)?;
    transcript.steps.push(Step {
        title: "the agent calls list_contacts".into(),
        blocks: vec![
            block(
                Side::Server,
                "server sent",
                pretty(&CrmServer::contacts_json()),
            ),
            block(Side::Model, "model saw", shown(&listed)),
        ],
    });

    // 2. Free text naming a contact in lower case: recalled from step 1.
    let log = client
        .call_tool(CallToolRequestParams::new("read_call_log"))
        .await
        .map_err(mcp)?;
    transcript.steps.push(Step {
        title: "the agent reads the call log (a name in lower case, recalled from step 1)".into(),
        blocks: vec![
            block(Side::Server, "server sent", server::CALL_LOG),
            block(Side::Model, "model saw", shown(&log)),
        ],
    });

    // 3. Email the first contact, writing what the model saw.
    let seen: Value = listed
        .content
        .first()
        .and_then(|c| c.as_text())
        .and_then(|t| serde_json::from_str(&t.text).ok())
        .unwrap_or(Value::Null);
    let first = &seen["contacts"][0];
    let to = first["email"].as_str().unwrap_or_default().to_string();
    let name = first["name"].as_str().unwrap_or_default().to_string();
    let wrote = json!({
        "to": to,
        "subject": "Your order",
        "body": format!("Hi {name}, your order has shipped."),
    });
    let before = crm.received().len();
    let sent = client
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(arguments(wrote.clone())),
        )
        .await
        .map_err(mcp)?;
    let received = crm.received();
    let got = match received.get(before) {
        Some(email) => pretty(&json!({
            "to": email.to,
            "subject": email.subject,
            "body": email.body,
        })),
        None => "nothing".to_string(),
    };
    transcript.steps.push(Step {
        title: "the agent emails the first contact with send_email".into(),
        blocks: vec![
            block(Side::Model, "model wrote", pretty(&wrote)),
            block(Side::Server, "server received", got),
            block(Side::Model, "model saw", shown(&sent)),
        ],
    });

    // 4. A token this session never minted (a hallucination, or a prompt injection).
    let forged = json!({
        "to": "[EMAIL_99]",
        "subject": "Hello",
        "body": "Hi [NAME_99].",
    });
    let before = crm.received().len();
    let refused = client
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(arguments(forged.clone())),
        )
        .await
        .map_err(mcp)?;
    let got = if crm.received().len() == before {
        "nothing: the layer refused the call and answered it itself".to_string()
    } else {
        "the call went through".to_string()
    };
    transcript.steps.push(Step {
        title: "the agent writes a token this session never minted".into(),
        blocks: vec![
            block(Side::Model, "model wrote", pretty(&forged)),
            block(Side::Server, "server received", got),
            block(Side::Model, "model saw", shown(&refused)),
        ],
    });

    client.cancel().await.map_err(mcp)?;
    // The server stops when the pipe closes; don't wait on it for long.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), server).await;
    Ok(transcript)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn model_sees_tokens_server_gets_names() {
        let t = run().await.unwrap();
        let model = t.side(Side::Model);
        let server = t.side(Side::Server);
        for c in server::CONTACTS {
            assert!(!model.contains(c.name), "raw name on the model side");
            assert!(server.contains(c.name));
        }
        assert!(model.contains("[NAME_1]"), "{model}");
        // The call log's lower-case name is the token of step 1.
        assert!(
            model.contains("Call log, Tuesday: [NAME_1] rang back"),
            "{model}"
        );
        assert!(!model.to_lowercase().contains("whitfield"), "{model}");
        // The email went out with the real name in its body.
        assert!(server.contains("Hi Ada Whitfield, your order has shipped."));
        assert!(
            model.contains("[EMAIL_99] is not a token of this session"),
            "{model}"
        );
        assert!(server.contains("nothing: the layer refused the call"));
    }
}
