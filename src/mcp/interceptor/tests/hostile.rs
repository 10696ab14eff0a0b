//! Messages no JSON-RPC class fits, from a hostile server or host: never forwarded raw.
//!
//! One test per class of the strict envelope (see `crate::mcp::classify`); each plants an
//! employee id and checks that no outcome carries it, and that a later normal exchange works.

use super::*;

const RAW: &str = "EMP-424242";

/// Nothing in `o` carries the planted value.
fn clean(o: &Outcome<'_>) {
    for text in [o.forward.as_deref(), o.reply.as_deref()]
        .into_iter()
        .flatten()
    {
        assert!(!text.contains(RAW), "planted value passed: {text}");
    }
}

/// A later call on the same interceptor is still answered and tokenized.
fn still_works(i: &Interceptor) {
    call(i, "900", "lookup");
    let out = server(
        i,
        r#"{"jsonrpc":"2.0","id":900,"result":{"content":[{"type":"text","text":"EMP-999999"}]}}"#,
    );
    assert!(!out.forward.unwrap().contains("EMP-999999"));
}

fn error_for(o: &Outcome<'_>, id: Value) -> Value {
    let v = forwarded(o);
    assert_eq!(v["id"], id, "{v}");
    assert!(v["error"]["message"].is_string(), "{v}");
    v
}

#[test]
fn a_response_with_result_and_error_becomes_an_error_for_its_id() {
    let i = interceptor();
    call(&i, "1", "lookup");
    let msg = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{RAW}"}}]}},"error":{{"code":1,"message":"x"}}}}"#
    );
    let out = server(&i, &msg);
    clean(&out);
    error_for(&out, json!(1));
    // The pending request was consumed.
    assert!(i.take_host_request(SRV, "1").is_none());
    assert_eq!(i.refused(), 1);
    still_works(&i);
}

#[test]
fn a_response_with_a_method_or_a_duplicate_result_is_an_error() {
    let i = interceptor();
    for (id, msg) in [
        (
            "2",
            format!(r#"{{"jsonrpc":"2.0","id":2,"method":"x","result":{{"t":"{RAW}"}}}}"#),
        ),
        (
            "3",
            format!(r#"{{"jsonrpc":"2.0","id":3,"result":{{"t":"a"}},"result":{{"t":"{RAW}"}}}}"#),
        ),
        (
            "4",
            format!(r#"{{"jsonrpc":"2.0","id":4,"result":{{"t":"{RAW}","t":"b"}}}}"#),
        ),
        (
            "5",
            format!(r#"{{"jsonrpc":"2.0","id":5,"result":{{}},"note":"{RAW}"}}"#),
        ),
    ] {
        call(&i, id, "lookup");
        let out = server(&i, &msg);
        clean(&out);
        error_for(&out, json!(id.parse::<u64>().unwrap()));
    }
    still_works(&i);
}

#[test]
fn server_requests_and_notifications_that_fit_no_class_are_dropped() {
    let i = interceptor();
    let params =
        format!(r#"{{"messages":[{{"role":"user","content":{{"type":"text","text":"{RAW}"}}}}]}}"#);
    for msg in [
        format!(
            r#"{{"jsonrpc":"2.0","id":null,"method":"sampling/createMessage","params":{params}}}"#
        ),
        format!(r#"{{"jsonrpc":"2.0","method":"sampling/createMessage","params":{params}}}"#),
        format!(
            r#"{{"jsonrpc":"2.0","id":{{"a":1}},"method":"sampling/createMessage","params":{params}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","id":true,"params":{{"data":"{RAW}"}}}}"#
        ),
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{RAW}","data":"x"}}}}"#
        ),
        format!("not json {RAW}"),
    ] {
        let out = server(&i, &msg);
        assert_eq!(out, Outcome::default(), "{msg}");
    }
    // A notification carrying a usable id answers the server with an error.
    let msg = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/message","id":8,"params":{{"data":"{RAW}"}}}}"#
    );
    let out = server(&i, &msg);
    clean(&out);
    assert!(out.forward.is_none());
    assert!(out.reply.unwrap().contains(r#""id":8"#));
    assert_eq!(i.refused(), 7);
    still_works(&i);
}

#[test]
fn invalid_utf8_costs_one_message() {
    let i = interceptor();
    call(&i, "6", "lookup");
    let mut bytes = format!(r#"{{"jsonrpc":"2.0","id":6,"result":{{"t":"{RAW} "#).into_bytes();
    bytes.extend_from_slice(&[0xff, 0xfe]);
    bytes.extend_from_slice(br#""}}"#);
    let out = block_on(i.from_server_bytes(SRV, &bytes));
    clean(&out);
    error_for(&out, json!(6));
    let out = block_on(i.from_host_bytes(SRV, &bytes));
    clean(&out);
    assert!(out.forward.is_none());
    still_works(&i);
}

#[test]
fn host_calls_that_cannot_be_read_are_refused() {
    let i = interceptor();
    for msg in [
        // Duplicate name or arguments: which copy the server reads is not the layer's choice.
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"ok","name":"delete","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"ok","arguments":{"to":"[EMPLOYEE_ID_1]"},"arguments":{"to":"x"}}}"#,
        // No name, a name that is not a string.
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":7}}"#,
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call"}"#,
        r#"{"jsonrpc":"2.0","id":10,"method":"resources/read","params":{"uri":["[EMPLOYEE_ID_1]"]}}"#,
        r#"{"jsonrpc":"2.0","id":10,"method":"prompts/get","params":{}}"#,
        // A request method sent as a notification skips every check: refused.
        r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"delete","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":[1],"method":"tools/call","params":{"name":"ok","arguments":{}}}"#,
        r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"ok"},"result":{}}"#,
    ] {
        let out = host(&i, msg);
        assert!(out.forward.is_none(), "forwarded: {msg}");
        let reply: Value = serde_json::from_str(out.reply.as_deref().expect("refused")).unwrap();
        assert!(reply["error"]["code"].is_i64(), "{reply}");
        assert!(reply["id"] == json!(10) || reply["id"].is_null(), "{reply}");
    }
    // Batches: each item on its own; an empty or broken batch is refused whole.
    let out = host(&i, "[]");
    assert!(out.forward.is_none() && out.reply.is_some());
    let out = host(
        &i,
        r#"[{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
    );
    assert!(out.forward.is_none() && out.reply.is_some());
    let broken = format!(r#"[{{"id":1,"result":{{"a":"{RAW}"}}}}"#);
    assert_eq!(server(&i, &broken), Outcome::default());
    still_works(&i);
}
