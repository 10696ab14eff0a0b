//! `mcp-veil demo`: an agent, a CRM MCP server and the layer between them, all in one process.
//!
//! [`run_with`] starts the embedded rmcp server ([`server::CrmServer`], fake contacts), connects
//! an rmcp client to it over an in-memory pipe through the rmcp layer
//! ([`crate::mcp::transport::Veil`]) built from the given configuration, and plays the agent and
//! its user: it lists the contacts, reads a call log that names the first one in lower case
//! (tokenized because the session already knows the name), emails that contact using what the
//! model saw (`[EMAIL_1]`, `[NAME_1]`; a `confirm` rule asks the scripted user, who approves),
//! puts a phone token in an email (a `deny` rule refuses it), types an address it did not get
//! from a tool (raw PII: sent, and audited), and tries a token the session never minted. The
//! layer writes an audit log to a temporary directory with a key made for the run; the last
//! step verifies its chain and finds the first contact's events in it. [`run`] uses the demo's
//! own rules ([`DEMO_YAML`]). The [`Transcript`] records, step by step, what the model saw and
//! what the server sent or received; the binary prints it. No network, no child process.
//!
//! [`serve_stdio`] (`mcp-veil demo --server`) runs the same CRM server alone on stdio.

pub mod server;

use std::error::Error as StdError;
use std::fmt::Write as _;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::{Value, json};

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability,
};
use rmcp::service::RequestContext;
use rmcp::{ClientHandler, ErrorData, RoleClient};

use crate::audit::{self, AuditConfig, AuditKey, AuditLog, FsyncPolicy, VerifyOptions};
use crate::config::Config;
use crate::mcp::transport::{BuildError, Veil};
use server::CrmServer;

/// The configuration of `mcp-veil demo` without `--config`: a `confirm` rule before emailing a
/// contact and a `deny` rule for phone numbers by email.
pub const DEMO_YAML: &str = include_str!("demo.yaml");

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// The layer could not be built from the configuration.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// The MCP conversation between the demo client and server failed.
    #[error("the demo's MCP conversation failed: {0}")]
    Mcp(#[source] Box<dyn StdError + Send + Sync>),
    /// The demo's audit log (in a temporary directory) could not be written or read.
    #[error("the demo's audit log: {0}")]
    Audit(String),
}

/// The user, scripted: approves every confirmation the layer asks for (MCP elicitation) and
/// remembers the questions.
#[derive(Clone, Debug, Default)]
struct ScriptedUser {
    asked: Arc<Mutex<Vec<String>>>,
}

impl ScriptedUser {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.asked.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl ClientHandler for ScriptedUser {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        let mut info = ClientConfig::default();
        info.capabilities = capabilities;
        info
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let message = match request {
            ElicitRequestParams::FormElicitationParams { message, .. }
            | ElicitRequestParams::UrlElicitationParams { message, .. } => message,
            _ => String::new(),
        };
        self.asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(message);
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"approve": true})))
    }
}

/// A directory under the system's temporary directory, removed when dropped.
#[derive(Debug)]
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let mut bytes = [0u8; 8];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
            .map_err(|_| std::io::Error::other("no randomness"))?;
        let name: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let dir = std::env::temp_dir().join(format!("mcp-veil-demo-{name}"));
        std::fs::create_dir(&dir)?;
        Ok(TempDir(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
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
    /// What the layer did on its own: asked the user, checked its audit log (no values).
    Layer,
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
    /// `[model] LABEL`, `[server] LABEL` or `[layer] LABEL`; its lines are indented by four
    /// spaces.
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
                    Side::Layer => "[layer]",
                };
                let _ = writeln!(out, "{side} {}", block.label);
                for line in block.text.lines() {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
        out.push_str(
            "\nBlocks marked [model] are what the model held; blocks marked [server] are what the\n\
             server sent and received; blocks marked [layer] are what the layer did on its own.\n",
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

/// The demo's own configuration ([`DEMO_YAML`]).
pub fn demo_config() -> Config {
    Config::parse(DEMO_YAML, Path::new("<demo>")).expect("the demo configuration is valid")
}

/// Runs the demo with its own rules ([`demo_config`]).
pub async fn run() -> Result<Transcript, DemoError> {
    run_with(demo_config()).await
}

/// Runs the demo with `config` (detection, vault, `flows:` and `tools:`; the audit log always
/// goes to a temporary directory, with a key made for the run).
pub async fn run_with(config: Config) -> Result<Transcript, DemoError> {
    let audit_err = |e: &dyn std::fmt::Display| DemoError::Audit(e.to_string());
    let dir = TempDir::new().map_err(|e| audit_err(&e))?;
    let log_path = dir.path().join("audit.jsonl");
    // A key made for this run: 32 random bytes, written as the 64 hex digits a key file holds.
    let mut random = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut random)
        .map_err(|_| audit_err(&"no randomness"))?;
    let material: String = random.iter().map(|b| format!("{b:02x}")).collect();
    let key = || AuditKey::from_material(material.as_bytes()).map_err(|e| audit_err(&e));
    let audit_config = AuditConfig {
        fsync: FsyncPolicy::Never,
        ..AuditConfig::default()
    };
    let log = AuditLog::open(&log_path, key()?, &audit_config)
        .map_err(|e| audit_err(&e))?
        .with_phone_regions(&config.detect.phone_regions);
    let veil = Veil::builder()
        .config(config.clone())
        .server_name("crm")
        .audit(Arc::new(log))
        .build()?;
    let user = ScriptedUser::default();
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
    let client = user
        .clone()
        .serve(veil.wrap(AsyncRwTransport::new_client(client_read, client_write)))
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
    let mut blocks = vec![block(Side::Model, "model wrote", pretty(&wrote))];
    for question in user.take() {
        blocks.push(block(Side::Layer, "the layer asked the user", question));
        blocks.push(block(
            Side::Layer,
            "the user answered (scripted)",
            "approve",
        ));
    }
    blocks.push(block(Side::Server, "server received", got));
    blocks.push(block(Side::Model, "model saw", shown(&sent)));
    transcript.steps.push(Step {
        title: "the agent emails the first contact with send_email".into(),
        blocks,
    });

    // 4. A phone token in an email: a flow rule at work.
    let phone = first["phone"].as_str().unwrap_or_default().to_string();
    let with_phone = json!({
        "to": to,
        "subject": "Call me",
        "body": format!("Hi {name}, please call me back on {phone}."),
    });
    let before = crm.received().len();
    let ruled = client
        .call_tool(
            CallToolRequestParams::new("send_email").with_arguments(arguments(with_phone.clone())),
        )
        .await
        .map_err(mcp)?;
    let mut blocks = vec![block(Side::Model, "model wrote", pretty(&with_phone))];
    for question in user.take() {
        blocks.push(block(Side::Layer, "the layer asked the user", question));
        blocks.push(block(
            Side::Layer,
            "the user answered (scripted)",
            "approve",
        ));
    }
    blocks.push(received_since(&crm, before));
    blocks.push(block(Side::Model, "model saw", shown(&ruled)));
    transcript.steps.push(Step {
        title: "the agent puts a phone number token in an email (the flow rules decide)".into(),
        blocks,
    });

    // 5. Raw PII the model typed itself: no token to restore; the layer sees it and audits it.
    let raw = json!({
        "to": "grace.ng@example.com",
        "subject": "Introduction",
        "body": "Hi Grace, meet [NAME_2].",
    });
    let before = crm.received().len();
    let typed = client
        .call_tool(CallToolRequestParams::new("send_email").with_arguments(arguments(raw.clone())))
        .await
        .map_err(mcp)?;
    let mut blocks = vec![block(Side::Model, "model wrote", pretty(&raw))];
    for question in user.take() {
        blocks.push(block(Side::Layer, "the layer asked the user", question));
        blocks.push(block(
            Side::Layer,
            "the user answered (scripted)",
            "approve",
        ));
    }
    blocks.push(received_since(&crm, before));
    blocks.push(block(Side::Model, "model saw", shown(&typed)));
    transcript.steps.push(Step {
        title: "the model types an email address itself (raw PII: the layer finds and audits it)"
            .into(),
        blocks,
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
        title: "the agent writes a token this session never minted (forged)".into(),
        blocks: vec![
            block(Side::Model, "model wrote", pretty(&forged)),
            block(Side::Server, "server received", got),
            block(Side::Model, "model saw", shown(&refused)),
        ],
    });

    client.cancel().await.map_err(mcp)?;
    // The server stops when the pipe closes; don't wait on it for long.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), server).await;
    drop(veil);

    // 7. The audit log the layer wrote: verify its chain, find the first contact's events.
    let files = audit::log_files(&log_path).map_err(|e| audit_err(&e))?;
    let verified = audit::verify_files(&key()?, &files, VerifyOptions::default())
        .map_err(|e| audit_err(&e))?;
    let email = CrmServer::contacts_json()["contacts"][0]["email"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let regions: Vec<&str> = config
        .detect
        .phone_regions
        .iter()
        .map(String::as_str)
        .collect();
    let find = |value: &str| -> Result<String, DemoError> {
        let hits =
            audit::find_value(&key()?, &files, value, None, &regions).map_err(|e| audit_err(&e))?;
        if hits.is_empty() {
            return Ok("no event involves this value".to_string());
        }
        Ok(hits.iter().map(summary).collect::<Vec<_>>().join("\n"))
    };
    let first_found = find(&email)?;
    let raw_found = find("grace.ng@example.com")?;
    transcript.steps.push(Step {
        title: "the audit log: `mcp-veil audit verify` and `mcp-veil audit find`".into(),
        blocks: vec![
            block(
                Side::Layer,
                "audit verify (the HMAC chain of the log the layer wrote)",
                format!(
                    "ok: {} lines, seq {}..{}, head {}",
                    verified.lines, verified.first_seq, verified.last_seq, verified.last_mac
                ),
            ),
            block(
                Side::Layer,
                "audit find --value <the first contact's email> (matched by keyed fingerprint)",
                first_found,
            ),
            block(
                Side::Layer,
                "audit find --value <the address the model typed>",
                raw_found,
            ),
        ],
    });
    Ok(transcript)
}

/// One audit line, short: its number, event, direction, tool and rule (the line itself holds
/// tokens and fingerprints, never values).
fn summary(hit: &audit::Hit) -> String {
    let v: Value = serde_json::from_str(&hit.text).unwrap_or(Value::Null);
    let field = |k: &str| v[k].as_str().unwrap_or("-").to_string();
    let rule = v["rule"]
        .as_str()
        .map_or(String::new(), |r| format!(", rule `{r}`"));
    format!(
        "line {}: {} ({}) {}/{}{rule}",
        hit.line,
        field("event"),
        field("dir"),
        field("server"),
        field("name"),
    )
}

/// What the server received since `before` calls, as a block.
fn received_since(crm: &CrmServer, before: usize) -> Block {
    let text = match crm.received().get(before) {
        Some(email) => pretty(&json!({
            "to": email.to,
            "subject": email.subject,
            "body": email.body,
        })),
        None => "nothing: the layer refused the call and answered it itself".to_string(),
    };
    block(Side::Server, "server received", text)
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
