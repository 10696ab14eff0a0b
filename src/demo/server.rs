//! The demo's MCP server: a tiny CRM written with rmcp, holding clearly fake contacts.
//!
//! It offers three tools, `list_contacts`, `read_call_log` (free text that mentions a contact
//! in lower case) and `send_email(to, subject, body)`. `send_email` sends nothing: it records the arguments it received (see [`CrmServer::received`]) so the demo and
//! the tests can show what reached the server, and answers `sent to <to>`.
//!
//! Every value is fake: `example.com`/`.org`/`.net` addresses (reserved for documentation) and
//! 555-01xx phone numbers (reserved for fiction).

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

/// One fake contact.
#[derive(Clone, Copy, Debug)]
pub struct Contact {
    /// Full name.
    pub name: &'static str,
    /// Email address (documentation domains only).
    pub email: &'static str,
    /// Phone number (555-01xx).
    pub phone: &'static str,
    /// Employer (not personal data: it stays as it is).
    pub company: &'static str,
}

/// The CRM's contacts.
pub const CONTACTS: [Contact; 3] = [
    Contact {
        name: "Ada Whitfield",
        email: "ada.whitfield@example.com",
        phone: "+1 202-555-0143",
        company: "Example Freight",
    },
    Contact {
        name: "Bruno Castellanos",
        email: "bruno.castellanos@example.org",
        phone: "+1 312-555-0178",
        company: "Sample Labs",
    },
    Contact {
        name: "Mei Chen",
        email: "mei.chen@example.net",
        phone: "+1 415-555-0112",
        company: "Placeholder Foods",
    },
];

/// The `read_call_log` result: free text naming the first contact in lower case, with no cue,
/// so only the session's memory of the name finds it.
pub const CALL_LOG: &str =
    "Call log, Tuesday: ada whitfield rang back about order 4471 and wants the invoice re-sent.";

/// One `send_email` call as the server received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentEmail {
    /// The `to` argument.
    pub to: String,
    /// The `subject` argument.
    pub subject: String,
    /// The `body` argument.
    pub body: String,
}

/// The demo CRM server. Clones share the log of received calls.
#[derive(Clone, Debug, Default)]
pub struct CrmServer {
    received: Arc<Mutex<Vec<SentEmail>>>,
}

impl CrmServer {
    /// A server with an empty log.
    pub fn new() -> CrmServer {
        CrmServer::default()
    }

    /// Every `send_email` call received so far, in order.
    pub fn received(&self) -> Vec<SentEmail> {
        self.received
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The `list_contacts` result as the server sends it.
    pub fn contacts_json() -> Value {
        let contacts: Vec<Value> = CONTACTS
            .iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "email": c.email,
                    "phone": c.phone,
                    "company": c.company,
                })
            })
            .collect();
        json!({ "contacts": contacts })
    }

    fn tools() -> Vec<Tool> {
        let object = |value: Value| match value {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        vec![
            Tool::new(
                "list_contacts",
                "List the CRM's contacts with their email addresses and phone numbers.",
                object(json!({ "type": "object", "properties": {} })),
            ),
            Tool::new(
                "read_call_log",
                "Read the latest entry of the support call log.",
                object(json!({ "type": "object", "properties": {} })),
            ),
            Tool::new(
                "send_email",
                "Send an email.",
                object(json!({
                    "type": "object",
                    "properties": {
                        "to": { "type": "string", "description": "recipient address" },
                        "subject": { "type": "string" },
                        "body": { "type": "string" }
                    },
                    "required": ["to", "subject", "body"]
                })),
            ),
        ]
    }

    fn send_email(&self, arguments: Option<&serde_json::Map<String, Value>>) -> CallToolResult {
        let arg = |key: &str| {
            arguments
                .and_then(|a| a.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let (Some(to), Some(subject), Some(body)) = (arg("to"), arg("subject"), arg("body")) else {
            return CallToolResult::error(vec![ContentBlock::text(
                "send_email needs string arguments `to`, `subject` and `body`",
            )]);
        };
        let answer = format!("sent to {to}");
        self.received
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(SentEmail { to, subject, body });
        CallToolResult::success(vec![ContentBlock::text(answer)])
    }
}

impl ServerHandler for CrmServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions("A demo CRM with fake contacts.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(CrmServer::tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result = match &*request.name {
            "list_contacts" => {
                let contacts = CrmServer::contacts_json();
                let mut result =
                    CallToolResult::success(vec![ContentBlock::text(contacts.to_string())]);
                result.structured_content = Some(contacts);
                result
            }
            "read_call_log" => CallToolResult::success(vec![ContentBlock::text(CALL_LOG)]),
            "send_email" => self.send_email(request.arguments.as_ref()),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool `{other}`"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }
}
