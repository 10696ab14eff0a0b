//! Hand-written JSON-RPC messages through the interceptor, one test per behaviour.
//!
//! Values are employee ids (a custom kind, `EMP-` and six digits) and names under name keys, so
//! the tests do not depend on which built-in recognizers are switched on.

use std::sync::Arc;
use std::time::Duration;

use futures::executor::block_on;
use serde_json::{Value, json};

use super::*;
use crate::detect::{CustomKind, DetectConfig, Detector};
use crate::token::Token;
use crate::vault::{MemoryVault, VaultBackend};

const SRV: &str = "crm";

fn detector() -> Arc<Detector> {
    let config = DetectConfig {
        custom: vec![CustomKind {
            kind: "EMPLOYEE_ID".into(),
            pattern: r"EMP-\d{6}".into(),
            validator: None,
            context: vec![],
            json_keys: vec![],
        }],
        ..DetectConfig::default()
    };
    Arc::new(Detector::new(&config).unwrap())
}

fn interceptor() -> Interceptor {
    interceptor_with(Arc::new(MemoryVault::default()))
}

fn interceptor_with(vault: Arc<dyn VaultBackend>) -> Interceptor {
    Interceptor::new(Engine::new(detector(), vault), SessionId::new("test"))
}

fn host<'a>(i: &Interceptor, msg: &'a str) -> Outcome<'a> {
    block_on(i.from_host(SRV, msg))
}

fn server<'a>(i: &Interceptor, msg: &'a str) -> Outcome<'a> {
    block_on(i.from_server(SRV, msg))
}

fn forwarded(o: &Outcome<'_>) -> Value {
    assert!(o.reply.is_none(), "unexpected reply {:?}", o.reply);
    serde_json::from_str(o.forward.as_deref().expect("forwarded")).unwrap()
}

fn emp(n: u32) -> String {
    Token::new(crate::Kind::from_name("EMPLOYEE_ID"), n).to_string()
}

fn origin_of(i: &Interceptor, token: &str) -> String {
    let found = crate::token::parse(token).expect("a token").to_token();
    let entries = block_on(i.engine().vault().resolve(i.session(), &[found])).unwrap();
    entries[0].as_ref().expect("minted").origin.to_string()
}

/// Sends a host tools/call with `id` so the response correlates.
fn call(i: &Interceptor, id: &str, tool: &str) {
    let msg = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
    );
    assert!(matches!(host(i, &msg).forward, Some(Cow::Borrowed(_))));
}

#[test]
fn tool_results_are_tokenized_with_their_origin() {
    let i = interceptor();
    call(&i, "0", "lookup");
    let result = json!({"jsonrpc": "2.0", "id": 0, "result": {
        "content": [
            {"type": "text", "text": "employee EMP-123456 joined"},
            {"type": "image", "data": "EMP-123456", "mimeType": "image/png"},
            {"type": "resource", "resource": {"uri": "file:///a", "text": "id EMP-654321"}},
            {"type": "resource", "resource": {"uri": "file:///b", "blob": "EMP-111111"}}
        ],
        "structuredContent": {"id": "EMP-123456", "full_name": "Maria Ortiz"},
        "isError": false
    }})
    .to_string();
    let out = server(&i, &result);
    let v = forwarded(&out);
    let text = out.forward.as_deref().unwrap();
    // The only raw copy left is inside the image data.
    assert_eq!(text.matches("EMP-123456").count(), 1);
    assert_eq!(
        v["result"]["content"][0]["text"],
        format!("employee {} joined", emp(1))
    );
    // Binary members are left exactly as they were.
    assert_eq!(v["result"]["content"][1]["data"], "EMP-123456");
    assert_eq!(
        v["result"]["content"][2]["resource"]["text"],
        format!("id {}", emp(2))
    );
    assert_eq!(v["result"]["content"][3]["resource"]["blob"], "EMP-111111");
    assert_eq!(v["result"]["structuredContent"]["id"], emp(1));
    assert_eq!(v["result"]["structuredContent"]["full_name"], "[NAME_1]");
    assert!(!text.contains("Maria"));
    assert_eq!(origin_of(&i, &emp(1)), "crm/lookup");
    assert_eq!(origin_of(&i, "[NAME_1]"), "crm/lookup");
}

#[test]
fn unchanged_messages_are_forwarded_byte_for_byte() {
    let i = interceptor();
    call(&i, "\"a\"", "lookup");
    let msg = "{ \"jsonrpc\" : \"2.0\", \"id\": \"a\", \"result\": {\"content\": [{\"type\":\"text\",\"text\":\"all clear\"}], \"n\": 1.50 } }";
    let out = server(&i, msg);
    assert!(matches!(out.forward, Some(Cow::Borrowed(s)) if s == msg));
}

#[test]
fn rewritten_results_keep_the_rest_of_the_message() {
    let i = interceptor();
    call(&i, "7", "lookup");
    let msg = r#"{"result":{"content":[{"type":"text","text":"EMP-123456"}],"n":1.50},  "jsonrpc":"2.0","id":7}"#;
    let out = server(&i, msg);
    assert_eq!(
        out.forward.as_deref().unwrap(),
        format!(
            r#"{{"result":{{"content":[{{"type":"text","text":"{}"}}],"n":1.50}},  "jsonrpc":"2.0","id":7}}"#,
            emp(1)
        )
    );
}

#[test]
fn arguments_are_rehydrated_outbound() {
    let i = interceptor();
    call(&i, "1", "lookup");
    server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"EMP-123456"}]}}"#,
    );
    let msg = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"notify","arguments":{{"who":"{}","note":"re {}"}},"_meta":{{"progressToken":5}}}}}}"#,
        emp(1),
        emp(1)
    );
    let v = forwarded(&host(&i, &msg));
    assert_eq!(v["params"]["arguments"]["who"], "EMP-123456");
    assert_eq!(v["params"]["arguments"]["note"], "re EMP-123456");
    assert_eq!(v["params"]["_meta"]["progressToken"], 5);
}

#[test]
fn unknown_tokens_stop_the_call_naming_the_token() {
    let i = interceptor();
    let msg = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"send","arguments":{"to":"[EMAIL_9]"}}}"#;
    let out = host(&i, msg);
    assert!(out.forward.is_none());
    let reply: Value = serde_json::from_str(out.reply.as_deref().unwrap()).unwrap();
    assert_eq!(reply["id"], 3);
    assert_eq!(reply["result"]["isError"], true);
    let text = reply["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("[EMAIL_9]"), "{text}");
}

#[test]
fn unknown_tokens_pass_when_configured() {
    let i = interceptor().with_policy(Arc::new(RestoreKnown { pass_unknown: true }));
    let msg = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"send","arguments":{"to":"[EMAIL_9]"}}}"#;
    let out = host(&i, msg);
    assert!(matches!(out.forward, Some(Cow::Borrowed(s)) if s == msg));
}

/// The policy seam sees token, origin, destination and path for every occurrence.
#[derive(Debug, Default)]
struct Recorder(Mutex<Vec<String>>);

impl FlowPolicy for Recorder {
    fn check(&self, call: &crate::mcp::Outbound<'_>) -> crate::mcp::Verdict {
        use crate::policy::{Action, CallVerdict, Cause, Concern, Decision, Denial, Subject};
        let destination = format!("{}/{}", call.server, call.name);
        let mut concerns = Vec::new();
        let tokens = call
            .tokens
            .iter()
            .map(|o| {
                let origin = o.entry.map_or("-".to_string(), |e| e.origin.to_string());
                self.0
                    .lock()
                    .unwrap()
                    .push(format!("{} {} {} {}", o.token, origin, destination, o.path));
                if destination.ends_with("/forbidden") {
                    concerns.push(Concern {
                        subject: Subject::Token(o.token.clone()),
                        origin: None,
                        arg_path: o.path.into(),
                        cause: Cause::Rule("no-forbidden".into()),
                    });
                    Decision {
                        action: Action::Deny,
                        rule: Some("no-forbidden".into()),
                    }
                } else {
                    Decision {
                        action: Action::Keep,
                        rule: None,
                    }
                }
            })
            .collect();
        let verdict = if concerns.is_empty() {
            CallVerdict::Proceed
        } else {
            CallVerdict::Deny(Denial {
                destination: destination.into(),
                concerns,
            })
        };
        crate::mcp::Verdict {
            call: verdict,
            tokens,
            raw: vec![],
        }
    }
}

#[test]
fn policy_sees_every_occurrence_with_origin_destination_and_path() {
    let recorder = Arc::new(Recorder::default());
    let i = interceptor().with_policy(recorder.clone());
    call(&i, "1", "lookup");
    server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"EMP-123456"}]}}"#,
    );
    let msg = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"notify","arguments":{{"to":["{}"],"x":"[NAME_4]"}}}}}}"#,
        emp(1)
    );
    let out = host(&i, &msg);
    // Keep leaves the text as it was.
    assert_eq!(out.forward.as_deref(), Some(msg.as_str()));
    assert_eq!(
        *recorder.0.lock().unwrap(),
        [
            format!("{} crm/lookup crm/notify to.0", emp(1)),
            "[NAME_4] - crm/notify x".to_string()
        ]
    );
    let denied = msg.replace("notify", "forbidden");
    let out = host(&i, &denied);
    assert!(out.forward.is_none());
    assert!(out.reply.unwrap().contains("call to crm/forbidden denied"));
}

#[test]
fn resources_and_prompts_are_tokenized() {
    let i = interceptor();
    host(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"file:///staff.txt"}}"#,
    );
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"file:///staff.txt","text":"EMP-123456"},{"uri":"file:///x.bin","blob":"EMP-222222"}]}}"#,
    ));
    assert_eq!(v["result"]["contents"][0]["text"], emp(1));
    assert_eq!(v["result"]["contents"][1]["blob"], "EMP-222222");
    assert_eq!(origin_of(&i, &emp(1)), "crm/file:///staff.txt");

    host(
        &i,
        r#"{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"review","arguments":{}}}"#,
    );
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":2,"result":{"description":"d","messages":[{"role":"user","content":{"type":"text","text":"check EMP-333333"}},{"role":"user","content":{"type":"image","data":"EMP-444444","mimeType":"image/png"}}]}}"#,
    ));
    assert_eq!(
        v["result"]["messages"][0]["content"]["text"],
        format!("check {}", emp(2))
    );
    assert_eq!(v["result"]["messages"][1]["content"]["data"], "EMP-444444");
    assert_eq!(origin_of(&i, &emp(2)), "crm/review");
}

#[test]
fn errors_are_tokenized() {
    let i = interceptor();
    call(&i, "4", "lookup");
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"no access for EMP-123456","data":{"who":"EMP-123456"}}}"#,
    ));
    assert_eq!(v["error"]["message"], format!("no access for {}", emp(1)));
    assert_eq!(v["error"]["data"]["who"], emp(1));
    assert_eq!(v["error"]["code"], -32000);
}

#[test]
fn log_notifications_are_tokenized() {
    let i = interceptor();
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db","data":"loaded EMP-123456"}}"#,
    ));
    assert_eq!(v["params"]["data"], format!("loaded {}", emp(1)));
    assert_eq!(origin_of(&i, &emp(1)), "crm/log");
}

#[test]
fn sampling_is_tokenized_toward_the_host_and_rehydrated_back() {
    let i = interceptor();
    // The host's id 0 and the server's id 0 are different requests.
    call(&i, "0", "lookup");
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"summarise EMP-123456"}}],"systemPrompt":"about EMP-123456","maxTokens":10}}"#,
    ));
    assert_eq!(
        v["params"]["messages"][0]["content"]["text"],
        format!("summarise {}", emp(1))
    );
    assert_eq!(v["params"]["systemPrompt"], format!("about {}", emp(1)));
    assert_eq!(origin_of(&i, &emp(1)), "crm/sampling");
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":0,"result":{{"role":"assistant","content":{{"type":"text","text":"{} is fine"}},"model":"m"}}}}"#,
        emp(1)
    );
    let v = forwarded(&host(&i, &reply));
    assert_eq!(v["result"]["content"]["text"], "EMP-123456 is fine");
    // The tools/call with id 0 is still pending and still tokenized.
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":"EMP-123456"}]}}"#,
    ));
    assert_eq!(v["result"]["content"][0]["text"], emp(1));
}

#[test]
fn elicitation_passes_and_its_reply_is_rehydrated() {
    let i = interceptor();
    let request = r#"{"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"message":"Which employee?","requestedSchema":{"type":"object","properties":{"id":{"type":"string"}}}}}"#;
    assert!(matches!(server(&i, request).forward, Some(Cow::Borrowed(s)) if s == request));
    call(&i, "1", "lookup");
    server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"EMP-123456"}]}}"#,
    );
    let reply = format!(
        r#"{{"jsonrpc":"2.0","id":5,"result":{{"action":"accept","content":{{"id":"{}"}}}}}}"#,
        emp(1)
    );
    let v = forwarded(&host(&i, &reply));
    assert_eq!(v["result"]["content"]["id"], "EMP-123456");
}

#[test]
fn tool_lists_get_relaxed_output_schemas() {
    let i = interceptor();
    host(&i, r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"get","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"email":{"type":"string","format":"email"}}}}],"nextCursor":"c2"}}"#,
    ));
    assert_eq!(
        v["result"]["tools"][0]["outputSchema"]["properties"]["email"],
        json!({"type": "string"})
    );
    assert_eq!(v["result"]["nextCursor"], "c2");
}

#[test]
fn everything_else_passes_untouched() {
    let i = interceptor();
    let from_host = [
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"EMP-123456","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/list","params":{"cursor":"abc"}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"file:///a"}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"x/unknown","params":{"who":"EMP-123456"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}"#,
    ];
    for msg in from_host {
        assert!(
            matches!(host(&i, msg).forward, Some(Cow::Borrowed(s)) if s == msg),
            "{msg}"
        );
    }
    let from_server = [
        r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28"],"capabilities":{}}}"#,
        r#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":3,"result":{"resources":[{"uri":"file:///a","name":"a"}],"nextCursor":"d"}}"#,
        r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
        r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found"}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5,"total":1}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":9,"method":"roots/list"}"#,
    ];
    for msg in from_server {
        assert!(
            matches!(server(&i, msg).forward, Some(Cow::Borrowed(s)) if s == msg),
            "{msg}"
        );
    }
}

#[test]
fn responses_to_unseen_requests_are_tokenized_whole() {
    let i = interceptor();
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":42,"result":{"anything":"EMP-123456"}}"#,
    ));
    assert_eq!(v["result"]["anything"], emp(1));
}

#[test]
fn cancelled_requests_forget_their_method() {
    let i = interceptor();
    host(&i, r#"{"jsonrpc":"2.0","id":1,"method":"x/unknown"}"#);
    host(
        &i,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    );
    // A late answer is no longer known to be harmless: it is scanned.
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"v":"EMP-123456"}}"#,
    ));
    assert_eq!(v["result"]["v"], emp(1));
}

#[test]
fn a_full_vault_withholds_the_result() {
    let i = interceptor_with(Arc::new(MemoryVault::new(Duration::from_secs(60), 1)));
    call(&i, "1", "lookup");
    let out = server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"EMP-123456 and EMP-654321"}]}}"#,
    );
    let text = out.forward.as_deref().unwrap();
    assert!(!text.contains("EMP-"), "{text}");
    let v: Value = serde_json::from_str(text).unwrap();
    assert_eq!(v["id"], 1);
    assert_eq!(v["error"]["code"], -32603);
    // A log line that cannot be tokenized is dropped.
    let out = server(
        &i,
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"EMP-777777 EMP-888888"}}"#,
    );
    assert_eq!(out, Outcome::default());
}

#[test]
fn batches_are_handled_item_by_item() {
    let i = interceptor();
    let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{}}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","arguments":{"x":"[NAME_7]"}}}]"#;
    let out = host(&i, batch);
    let fwd: Value = serde_json::from_str(out.forward.as_deref().unwrap()).unwrap();
    assert_eq!(fwd.as_array().unwrap().len(), 1);
    assert_eq!(fwd[0]["id"], 1);
    let reply: Value = serde_json::from_str(out.reply.as_deref().unwrap()).unwrap();
    assert_eq!(reply[0]["id"], 2);
    assert_eq!(reply[0]["result"]["isError"], true);

    let responses = r#"[{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"EMP-123456"}]}},{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}]"#;
    let v: Value = serde_json::from_str(server(&i, responses).forward.as_deref().unwrap()).unwrap();
    assert_eq!(v[0]["result"]["content"][0]["text"], emp(1));
    assert_eq!(v[1]["method"], "notifications/progress");

    let clean = r#"[{"jsonrpc":"2.0","id":3,"method":"ping"}]"#;
    assert!(matches!(host(&i, clean).forward, Some(Cow::Borrowed(s)) if s == clean));
}

#[test]
fn invalid_json_is_not_forwarded() {
    let i = interceptor();
    let out = server(&i, "{\"id\": 1, \"result\": EMP-123456");
    assert_eq!(out, Outcome::default());
    let out = host(&i, "nope");
    assert!(out.forward.is_none());
    assert!(out.reply.unwrap().contains("-32700"));
}

/// A vault whose backend is down.
#[derive(Debug)]
struct DownVault;

impl VaultBackend for DownVault {
    fn mint<'a>(
        &'a self,
        _: &'a SessionId,
        _: &'a str,
        _: &'a [crate::vault::MintRequest<'a>],
    ) -> futures::future::BoxFuture<'a, Result<Vec<Token>, crate::vault::VaultError>> {
        Box::pin(async {
            Err(crate::vault::VaultError::Unavailable(
                "connection refused".into(),
            ))
        })
    }

    fn resolve<'a>(
        &'a self,
        _: &'a SessionId,
        _: &'a [Token],
    ) -> futures::future::BoxFuture<
        'a,
        Result<Vec<Option<crate::vault::Entry>>, crate::vault::VaultError>,
    > {
        Box::pin(async {
            Err(crate::vault::VaultError::Unavailable(
                "connection refused".into(),
            ))
        })
    }

    fn end_session<'a>(
        &'a self,
        _: &'a SessionId,
    ) -> futures::future::BoxFuture<'a, Result<(), crate::vault::VaultError>> {
        Box::pin(async { Ok(()) })
    }
}

#[test]
fn a_vault_that_is_down_fails_closed_both_ways() {
    let i = interceptor_with(Arc::new(DownVault));
    // Inbound: the result is withheld.
    call(&i, "1", "lookup");
    let out = server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"EMP-123456"}]}}"#,
    );
    let v = forwarded(&out);
    assert_eq!(v["error"]["code"], -32603);
    assert!(!out.forward.as_deref().unwrap().contains("EMP-"));
    // A sampling request is answered to the server, never shown to the host.
    let out = server(
        &i,
        r#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"EMP-123456"}}],"maxTokens":5}}"#,
    );
    assert!(out.forward.is_none());
    assert!(out.reply.unwrap().contains("-32603"));
    // Outbound: a call with tokens is answered with an error, not forwarded.
    let out = host(
        &i,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x","arguments":{"a":"[NAME_1]"}}}"#,
    );
    assert!(out.forward.is_none());
    assert!(out.reply.unwrap().contains("connection refused"));
}

#[test]
fn the_stateless_lifecycle_needs_no_initialize() {
    // 2026-07-28: no initialize; every request carries its protocol version in `_meta`.
    let i = interceptor();
    let discover = r#"{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    assert!(matches!(host(&i, discover).forward, Some(Cow::Borrowed(s)) if s == discover));
    let call = r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"lookup","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
    assert!(matches!(host(&i, call).forward, Some(Cow::Borrowed(s)) if s == call));
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":"c","result":{"content":[{"type":"text","text":"EMP-123456"}]}}"#,
    ));
    assert_eq!(v["result"]["content"][0]["text"], emp(1));
}

#[test]
fn task_results_are_tokenized_like_tool_results() {
    let i = interceptor();
    host(
        &i,
        r#"{"jsonrpc":"2.0","id":8,"method":"tasks/result","params":{"taskId":"t1"}}"#,
    );
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"EMP-123456"},{"type":"image","data":"EMP-000001","mimeType":"image/png"}]}}"#,
    ));
    assert_eq!(v["result"]["content"][0]["text"], emp(1));
    assert_eq!(v["result"]["content"][1]["data"], "EMP-000001");
    assert_eq!(origin_of(&i, &emp(1)), "crm/tasks/result");
}

#[test]
fn values_restored_to_a_server_are_tokenized_when_echoed_back() {
    let i = interceptor();
    call(&i, "1", "lookup");
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"full_name":"Zebulon Quarrington"}}}"#,
    ));
    assert_eq!(v["result"]["structuredContent"]["full_name"], "[NAME_1]");
    let store = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"store","arguments":{"entity":"[NAME_1]"}}}"#;
    let v = forwarded(&host(&i, store));
    assert_eq!(v["params"]["arguments"]["entity"], "Zebulon Quarrington");
    // The server echoes it under a key and in a sentence the detector has no reason to read as
    // a name: it comes back as the same token all the same.
    let out = server(
        &i,
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"entity\":\"Zebulon Quarrington\",\"note\":\"saved Zebulon Quarrington.\"}"}]}}"#,
    );
    let text = out.forward.as_deref().unwrap();
    assert!(!text.contains("Zebulon"), "{text}");
    let v: Value = serde_json::from_str(text).unwrap();
    let inner: Value =
        serde_json::from_str(v["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(inner["entity"], "[NAME_1]");
    assert_eq!(inner["note"], "saved [NAME_1].");
}

#[test]
fn an_input_required_results_requests_are_tokenized() {
    let i = interceptor();
    call(&i, "1", "confirm");
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"e1":{"method":"elicitation/create","params":{"message":"Delete EMP-123456?","requestedSchema":{"type":"object","properties":{}}}},"s1":{"method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"Summarise EMP-654321"}}],"maxTokens":9}}},"requestState":"opaque-state"}}"#,
    ));
    let r = &v["result"];
    assert_eq!(
        r["inputRequests"]["e1"]["params"]["message"],
        format!("Delete {}?", emp(1))
    );
    assert_eq!(
        r["inputRequests"]["s1"]["params"]["messages"][0]["content"]["text"],
        format!("Summarise {}", emp(2))
    );
    assert_eq!(r["requestState"], "opaque-state");
    assert_eq!(r["resultType"], "input_required");
}

#[test]
fn a_retried_calls_input_responses_are_restored_with_its_arguments() {
    let i = interceptor();
    call(&i, "1", "lookup");
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":{"full_name":"Zebulon Quarrington","staff":"EMP-123456"}}}"#,
    ));
    assert_eq!(v["result"]["structuredContent"]["full_name"], "[NAME_1]");
    // A 2026-07-28 retry: the model's sampling answer and the user's elicitation content name
    // tokens the server must get as values, like the arguments.
    let retry = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"confirm","inputResponses":{{"s1":{{"role":"assistant","content":{{"type":"text","text":"write to [NAME_1]"}}}},"e1":{{"action":"accept","content":{{"who":"{}"}}}}}},"arguments":{{"who":"[NAME_1]"}},"requestState":"opaque"}}}}"#,
        emp(1)
    );
    let v = forwarded(&host(&i, &retry));
    let p = &v["params"];
    assert_eq!(
        p["inputResponses"]["s1"]["content"]["text"],
        "write to Zebulon Quarrington"
    );
    assert_eq!(p["inputResponses"]["e1"]["content"]["who"], "EMP-123456");
    assert_eq!(p["arguments"]["who"], "Zebulon Quarrington");
    assert_eq!(p["requestState"], "opaque");
    // A token this session never minted: the call is not forwarded, as for its arguments.
    let forged = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"confirm","inputResponses":{"s1":{"content":{"type":"text","text":"[NAME_9]"}}},"arguments":{}}}"#;
    let out = host(&i, forged);
    assert!(out.forward.is_none(), "{:?}", out.forward);
    assert!(out.reply.is_some());
    // The tasks extension's `tasks/update` carries them too.
    let update = r#"{"jsonrpc":"2.0","id":4,"method":"tasks/update","params":{"taskId":"t1","inputResponses":{"e1":{"action":"accept","content":{"who":"[NAME_1]"}}}}}"#;
    let v = forwarded(&host(&i, update));
    assert_eq!(
        v["params"]["inputResponses"]["e1"]["content"]["who"],
        "Zebulon Quarrington"
    );
    assert_eq!(v["params"]["taskId"], "t1");
}

#[test]
fn resource_uris_and_prompt_arguments_are_rehydrated() {
    let i = interceptor();
    call(&i, "1", "list");
    server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"resource_link","uri":"file:///staff/EMP-123456.txt","name":"EMP-123456.txt"}]}}"#,
    );
    let read = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{{"uri":"file:///staff/{}.txt"}}}}"#,
        emp(1)
    );
    let v = forwarded(&host(&i, &read));
    assert_eq!(v["params"]["uri"], "file:///staff/EMP-123456.txt");
    // The answer is tokenized, with the URI as the host wrote it as origin (no raw value).
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":2,"result":{"contents":[{"uri":"file:///staff/EMP-123456.txt","text":"EMP-654321"}]}}"#,
    ));
    assert_eq!(v["result"]["contents"][0]["text"], emp(2));
    assert_eq!(
        origin_of(&i, &emp(2)),
        format!("crm/file:///staff/{}.txt", emp(1))
    );

    let get = format!(
        r#"{{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{{"name":"review","arguments":{{"who":"{}"}}}}}}"#,
        emp(1)
    );
    let v = forwarded(&host(&i, &get));
    assert_eq!(v["params"]["arguments"]["who"], "EMP-123456");
    let forged = r#"{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"file:///[EMAIL_5]"}}"#;
    let out = host(&i, forged);
    assert!(out.forward.is_none());
    let reply: Value = serde_json::from_str(&out.reply.unwrap()).unwrap();
    assert_eq!(reply["error"]["code"], -32602);
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("[EMAIL_5]")
    );
}

/// An interceptor under `flows:`/`tools:` rules, with employee ids minted from `crm/lookup`.
fn with_rules(yaml: &str) -> Interceptor {
    let config = crate::config::Config::parse(
        &format!(
            "detect:\n  custom:\n    - kind: EMPLOYEE_ID\n      pattern: 'EMP-\\d{{6}}'\n{yaml}"
        ),
        std::path::Path::new("rules.yaml"),
    )
    .unwrap();
    let policy = crate::policy::Policy::from_config(&config).unwrap();
    let i = interceptor().with_policy(Arc::new(policy));
    call(&i, "1", "lookup");
    server(
        &i,
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"EMP-123456"}]}}"#,
    );
    i
}

fn send_call(id: u32, tool: &str, args: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{args}}}}}"#
    )
}

const CONFIRM: &str =
    "flows:\n  rules:\n    - name: ask\n      to: crm/notify\n      action: confirm\n";

#[test]
fn confirm_holds_the_call_asks_the_host_and_resumes_on_its_answer() {
    let i = with_rules(CONFIRM);
    host(
        &i,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    let msg = send_call(2, "notify", &format!(r#"{{"to":"{}"}}"#, emp(1)));
    let out = host(&i, &msg);
    assert!(out.forward.is_none(), "held, not forwarded");
    let ask: Value = serde_json::from_str(out.reply.as_deref().unwrap()).unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    assert_eq!(ask["params"]["mode"], "form");
    let question = ask["params"]["message"].as_str().unwrap();
    assert!(
        question.contains(&emp(1)) && question.contains("crm/lookup") && question.contains("`ask`"),
        "{question}"
    );
    assert!(!question.contains("EMP-123456"));
    let id = ask["id"].to_string();
    assert_eq!(i.confirmation_for(&id).as_deref(), Some(SRV));
    // Accepted: the held call goes on, restored.
    let answer = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"action":"accept","content":{{"approve":true}}}}}}"#
    );
    let v = forwarded(&host(&i, &answer));
    assert_eq!(v["id"], 2);
    assert_eq!(v["params"]["arguments"]["to"], "EMP-123456");
    assert_eq!(i.confirmation_for(&id), None);

    // Declined: the host gets an isError result for its call; nothing goes to the server.
    let m1 = send_call(3, "notify", &format!(r#"{{"to":"{}"}}"#, emp(1)));
    let out = host(&i, &m1);
    let ask: Value = serde_json::from_str(out.reply.as_deref().unwrap()).unwrap();
    let answer = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"action":"decline"}}}}"#,
        ask["id"]
    );
    let out = host(&i, &answer);
    assert!(out.forward.is_none());
    let reply: Value = serde_json::from_str(out.reply.as_deref().unwrap()).unwrap();
    assert_eq!(reply["id"], 3);
    assert_eq!(reply["result"]["isError"], true);
    assert!(
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("declined")
    );

    // Cancelled by the host: the held call is forgotten.
    let m2 = send_call(4, "notify", &format!(r#"{{"to":"{}"}}"#, emp(1)));
    let out = host(&i, &m2);
    let ask: Value = serde_json::from_str(out.reply.as_deref().unwrap()).unwrap();
    host(
        &i,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}"#,
    );
    assert_eq!(i.confirmation_for(&ask["id"].to_string()), None);
}

#[test]
fn confirm_without_elicitation_denies_saying_why() {
    let i = with_rules(CONFIRM);
    host(
        &i,
        r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
    );
    let m3 = send_call(2, "notify", &format!(r#"{{"to":"{}"}}"#, emp(1)));
    let out = host(&i, &m3);
    assert!(out.forward.is_none());
    let reply = out.reply.unwrap();
    assert!(reply.contains("does not support elicitation"), "{reply}");
    assert!(reply.contains("isError"));
}

#[test]
fn raw_values_are_tokenized_or_denied_and_tools_hidden_by_the_rules() {
    let i = with_rules(
        "flows:\n  rules:\n    - name: tok\n      to: crm/notify\n      action: allow\n      raw: tokenize\n    - name: no-raw\n      to: crm/post\n      action: allow\n      raw: deny\ntools:\n  - match: crm/drop\n    action: deny\n",
    );
    // The model typed a raw id next to a token: the id becomes a token minted for this
    // destination, the token is restored.
    let msg = send_call(
        2,
        "notify",
        &format!(r#"{{"to":"{}","cc":"EMP-999999"}}"#, emp(1)),
    );
    let v = forwarded(&host(&i, &msg));
    assert_eq!(v["params"]["arguments"]["to"], "EMP-123456");
    let cc = v["params"]["arguments"]["cc"].as_str().unwrap();
    assert_eq!(cc, emp(2));
    assert_eq!(origin_of(&i, cc), "host/crm/notify");
    // Raw under a deny rule: the call stops, the value is not quoted.
    let m4 = send_call(3, "post", r#"{"body":"EMP-999998"}"#);
    let out = host(&i, &m4);
    let reply = out.reply.unwrap();
    assert!(
        reply.contains("no-raw") && !reply.contains("EMP-999998"),
        "{reply}"
    );
    // Tool policy: refused even without arguments, hidden from tools/list.
    let m5 = send_call(4, "drop", "{}");
    let out = host(&i, &m5);
    assert!(out.reply.unwrap().contains("tool policy `crm/drop`"));
    host(&i, r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#);
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"drop","inputSchema":{"type":"object"}},{"name":"notify","inputSchema":{"type":"object"}}]}}"#,
    ));
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["notify"]);
}

#[test]
fn a_tool_under_confirm_asks_even_without_arguments() {
    let i = with_rules("tools:\n  - match: crm/wipe\n    action: confirm\n");
    i.host_initialize(r#"{"capabilities":{"elicitation":{"form":{}}}}"#);
    let msg = r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"wipe"}}"#;
    let out = host(&i, msg);
    let ask: Value = serde_json::from_str(out.reply.as_deref().unwrap()).unwrap();
    let question = ask["params"]["message"].as_str().unwrap();
    assert!(
        question.contains("crm/wipe") && question.contains("tool policy"),
        "{question}"
    );
    let answer = format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"action":"accept","content":{{"approve":true}}}}}}"#,
        ask["id"]
    );
    let out = host(&i, &answer);
    assert_eq!(out.forward.as_deref(), Some(msg));
    // Its response is correlated like any forwarded call.
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"EMP-555555"}]}}"#,
    ));
    assert_eq!(v["result"]["content"][0]["text"], emp(2));
}

#[test]
fn a_name_the_session_tokenized_is_recalled_inbound_and_caught_raw_outbound() {
    let i = with_rules(
        "flows:\n  rules:\n    - name: no-raw\n      to: crm/post\n      action: allow\n      raw: deny\n",
    );
    call(&i, "2", "contact");
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"full_name\":\"Maria Ortiz\"}"}]}}"#,
    ));
    assert_eq!(
        v["result"]["content"][0]["text"],
        r#"{"full_name":"[NAME_1]"}"#
    );
    // A later note in lower case, with no cue the name finder would take alone.
    call(&i, "3", "notes");
    let v = forwarded(&server(
        &i,
        r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"OK, maria ortiz will call back"}]}}"#,
    ));
    assert_eq!(
        v["result"]["content"][0]["text"],
        "OK, [NAME_1] will call back"
    );
    // The model types the name raw toward a raw-deny destination: the call stops.
    let msg = send_call(4, "post", r#"{"body":"tell maria ortiz"}"#);
    let out = host(&i, &msg);
    let reply = out.reply.expect("denied");
    assert!(
        reply.contains("no-raw") && !reply.to_lowercase().contains("ortiz"),
        "{reply}"
    );
}

mod hostile;
