//! The decorator driven directly through the `Transport` trait, against a scripted fake
//! transport: both directions, server requests, EOF, close, fail closed.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::*;

/// A transport whose far end is the test: it reads what the client sent and scripts what the
/// server says.
struct Fake {
    from_server: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    to_server: mpsc::UnboundedSender<ClientJsonRpcMessage>,
    closed: Arc<AtomicBool>,
}

struct FarEnd {
    say: mpsc::UnboundedSender<ServerJsonRpcMessage>,
    heard: mpsc::UnboundedReceiver<ClientJsonRpcMessage>,
    closed: Arc<AtomicBool>,
}

fn fake() -> (Fake, FarEnd) {
    let (say, from_server) = mpsc::unbounded_channel();
    let (to_server, heard) = mpsc::unbounded_channel();
    let closed = Arc::new(AtomicBool::new(false));
    (
        Fake {
            from_server,
            to_server,
            closed: closed.clone(),
        },
        FarEnd { say, heard, closed },
    )
}

impl Transport<RoleClient> for Fake {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), std::io::Error>> + Send + 'static {
        let sent = self
            .to_server
            .send(item)
            .map_err(|_| std::io::Error::other("far end gone"));
        std::future::ready(sent)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        self.from_server.recv().await
    }

    async fn close(&mut self) -> Result<(), std::io::Error> {
        self.closed.store(true, Ordering::SeqCst);
        Ok(())
    }
}

fn server_msg(value: Value) -> ServerJsonRpcMessage {
    serde_json::from_value(value).unwrap()
}

fn client_msg(value: Value) -> ClientJsonRpcMessage {
    serde_json::from_value(value).unwrap()
}

fn as_json<T: serde::Serialize>(message: &T) -> Value {
    serde_json::to_value(message).unwrap()
}

fn veil() -> Veil {
    Veil::builder().server_name("crm").build().unwrap()
}

#[tokio::test]
async fn a_call_result_is_tokenized_and_the_next_call_rehydrated() {
    let (inner, mut far) = fake();
    let mut t = veil().wrap(inner);
    t.send(client_msg(json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "list_contacts", "arguments": {}}
    })))
    .await
    .unwrap();
    far.heard.recv().await.unwrap();
    far.say
        .send(server_msg(json!({
            "jsonrpc": "2.0", "id": 1,
            "result": {
                "content": [{"type": "text", "text": "ok"}],
                "structuredContent": {"contacts": [{"name": "Ada Whitfield"}]}
            }
        })))
        .unwrap();
    let seen = as_json(&t.receive().await.unwrap());
    assert_eq!(
        seen["result"]["structuredContent"]["contacts"][0]["name"],
        "[NAME_1]"
    );

    t.send(client_msg(json!({
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "send_email", "arguments": {"body": "Hi [NAME_1]"}}
    })))
    .await
    .unwrap();
    let heard = as_json(&far.heard.recv().await.unwrap());
    assert_eq!(heard["params"]["arguments"]["body"], "Hi Ada Whitfield");
}

#[tokio::test]
async fn a_refused_call_is_answered_locally() {
    let (inner, mut far) = fake();
    let mut t = veil().wrap(inner);
    t.send(client_msg(json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "send_email", "arguments": {"to": "[EMAIL_3]"}}
    })))
    .await
    .unwrap();
    let answer = as_json(&t.receive().await.unwrap());
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["result"]["isError"], true);
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.contains("[EMAIL_3] is not a token of this session"),
        "{text}"
    );
    assert!(
        far.heard.try_recv().is_err(),
        "the server heard the refused call"
    );
}

#[tokio::test]
async fn sampling_requests_are_tokenized_and_the_reply_rehydrated() {
    let (inner, mut far) = fake();
    let mut t = veil().wrap(inner);
    far.say
        .send(server_msg(json!({
            "jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {
                    "type": "text", "text": "{\"full_name\": \"Bruno Castellanos\"}"
                }}],
                "maxTokens": 10
            }
        })))
        .unwrap();
    let request = as_json(&t.receive().await.unwrap());
    let text = request["params"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap();
    assert_eq!(text, "{\"full_name\": \"[NAME_1]\"}");

    t.send(client_msg(json!({
        "jsonrpc": "2.0", "id": "s1",
        "result": {"role": "assistant", "model": "m",
                   "content": {"type": "text", "text": "Dear [NAME_1]"}}
    })))
    .await
    .unwrap();
    let reply = as_json(&far.heard.recv().await.unwrap());
    assert_eq!(reply["result"]["content"]["text"], "Dear Bruno Castellanos");
}

#[tokio::test]
async fn untouched_messages_pass_and_eof_ends_receive() {
    let (inner, mut far) = fake();
    let mut t = veil().wrap(inner);
    let ping = client_msg(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    t.send(ping.clone()).await.unwrap();
    assert_eq!(as_json(&far.heard.recv().await.unwrap()), as_json(&ping));
    let pong = server_msg(json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    far.say.send(pong.clone()).unwrap();
    assert_eq!(as_json(&t.receive().await.unwrap()), as_json(&pong));
    drop(far.say);
    assert!(t.receive().await.is_none());
    assert!(t.receive().await.is_none(), "EOF is sticky");
    t.close().await.unwrap();
    assert!(far.closed.load(Ordering::SeqCst));
    assert!(matches!(t.send(ping).await, Err(TransportError::Closed)));
}

#[tokio::test]
async fn close_before_use_closes_the_inner_transport() {
    let (inner, far) = fake();
    let mut t = veil().wrap(inner);
    t.close().await.unwrap();
    assert!(far.closed.load(Ordering::SeqCst));
    assert!(t.get_ref().is_none());
}

#[test]
fn withheld_messages_fail_closed() {
    let response = server_msg(json!({"jsonrpc": "2.0", "id": 4, "result": {}}));
    let out = withheld(&response);
    let error = as_json(&out.deliver.unwrap());
    assert_eq!(error["id"], 4);
    assert_eq!(
        error["error"]["message"],
        "mcp-veil: the message was withheld"
    );
    assert!(out.answer.is_none());

    let request = server_msg(json!({
        "jsonrpc": "2.0", "id": 5, "method": "sampling/createMessage",
        "params": {"messages": [], "maxTokens": 1}
    }));
    let out = withheld(&request);
    assert!(out.deliver.is_none());
    assert_eq!(as_json(&out.answer.unwrap())["id"], 5);

    let note = server_msg(json!({
        "jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": "info", "data": "x"}
    }));
    let out = withheld(&note);
    assert!(out.deliver.is_none() && out.answer.is_none());
}

/// A transport whose receive panics (a bug in the wrapped transport).
struct Panicky;

impl Transport<RoleClient> for Panicky {
    type Error = std::io::Error;

    fn send(
        &mut self,
        _item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), std::io::Error>> + Send + 'static {
        std::future::ready(Ok(()))
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        panic!("the wrapped transport broke");
    }

    async fn close(&mut self) -> Result<(), std::io::Error> {
        Ok(())
    }
}

#[tokio::test]
async fn a_dead_task_ends_receive_instead_of_hanging() {
    let mut t = veil().wrap(Panicky);
    let received = tokio::time::timeout(std::time::Duration::from_secs(5), t.receive())
        .await
        .expect("receive must not hang when the task is gone");
    assert!(received.is_none());
    let ping = client_msg(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}));
    assert!(matches!(t.send(ping).await, Err(TransportError::Closed)));
}
