//! One text pipeline (issue 18): `mcp-veil redact` on a text and the engine on the same text
//! inside an MCP tool result (`{"content":[{"type":"text","text": TEXT}]}`, the shape every
//! tool result has) give the same tokens, over texts of many shapes; and the personal values
//! of those texts never come out in the clear. All data here is made up.

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

use futures::executor::block_on;
use mcp_veil::Engine;
use mcp_veil::detect::Detector;
use mcp_veil::vault::{MemoryVault, SessionId};

const KEY: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/// (what it is, the text, values that must not reach the output in the clear)
const TEXTS: &[(&str, &str, &[&str])] = &[
    (
        "git log",
        "commit 3f2a9c1d0e5b7a8c9d0e1f2a3b4c5d6e7f8a9b0c\nAuthor: jdoe <jdoe@example.com>\nDate:   Mon Jan 1 12:00:00 2024 +0000\n\n    Fix the parser\n\n    Signed-off-by: Søren Ødegård <soren@example.org>\n    Co-authored-by: dev42 <dev42@example.net>\n\ncommit 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567\nAuthor: Pieter van der Berg <pvdb@example.com>\nDate:   Sun Dec 31 09:00:00 2023 +0000\n\n    Initial commit\n",
        &["jdoe", "Søren Ødegård", "dev42", "Pieter van der Berg"],
    ),
    (
        "mbox",
        "From ayse@example.com Mon Jan  1 12:00:00 2024\nFrom: \"Yılmaz, Ayşe\" <ayse@example.com>\nTo: Bob Stone <bob@example.com>, cleo@example.com (Cleo Dunn)\nSubject: Lunch\n\nHi Bob, see you at noon.\nAyşe\n",
        &["Yılmaz, Ayşe", "Bob Stone", "Cleo Dunn", "bob@example.com"],
    ),
    (
        "labelled lines",
        "Ticket 4411\nReporter: jean-luc picard\nAssignee: NGUYEN VAN AN\nStatus: open\n",
        &["jean-luc picard", "NGUYEN VAN AN"],
    ),
    (
        "key=value log",
        "2024-01-01T10:00:00Z level=info assignee=maria.garcia action=close\nGET /users?email=maria.garcia%40example.com&name=Maria%20Garcia 200\n",
        &[
            "maria.garcia",
            "maria.garcia%40example.com",
            "Maria%20Garcia",
        ],
    ),
    (
        "csv with a header",
        "first_name,last_name,email,city\nAmber,Holt,amber.holt@example.com,Springfield\nKenji,Sato,kenji@example.com,Osaka\n",
        &["Amber", "Holt", "Kenji", "Sato"],
    ),
    (
        "markdown table",
        "Our team:\n\n| Name | Role | City |\n|---|---|---|\n| Amber Holt | Lead | Oslo |\n| Ingrid Dahl | Dev | Bergen |\n| Kenji Sato | QA | Osaka |\n",
        &["Amber Holt", "Ingrid Dahl", "Kenji Sato"],
    ),
    (
        "psql table",
        " id | first_name | last_name | company\n----+------------+-----------+---------\n  1 | Amber      | Holt      | Acme\n  2 | Kenji      | Sato      | Initech\n(2 rows)\n",
        &["Amber", "Holt", "Kenji", "Sato"],
    ),
    (
        "python repr",
        "[{'id': 1, 'first_name': 'Amber', 'last_name': 'Holt', 'email': 'amber@example.com', 'vip': True, 'note': None}, {'id': 2, 'first_name': 'Kenji', 'last_name': 'Sato', 'email': 'kenji@example.com', 'vip': False, 'note': None}]",
        &["Amber", "Holt", "Kenji", "Sato"],
    ),
    (
        "vcard and ldif",
        "BEGIN:VCARD\nVERSION:3.0\nFN:Ingrid Dahl\nN:Dahl;Ingrid;;;\nEND:VCARD\n\ndn: uid=idahl,ou=people,dc=example,dc=com\ncn: Ingrid Dahl\nuid: idahl\n",
        &["Ingrid Dahl", "idahl"],
    ),
    (
        "prose",
        "Yesterday Maria Garcia met Omar Haddad in Lisbon to discuss the renewal.",
        &["Maria Garcia", "Omar Haddad"],
    ),
    ("clean text", "The build is green; deploy at 10:00.", &[]),
];

fn redact(text: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .arg("redact")
        .env_remove("MCP_VEIL_LOG")
        .env("MCP_VEIL_SESSION_KEY", KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn through_a_tool_result(text: &str) -> String {
    let engine = Engine::new(
        Arc::new(Detector::with_defaults()),
        Arc::new(MemoryVault::default()),
    );
    let doc = serde_json::json!({"content": [{"type": "text", "text": text}], "isError": false})
        .to_string();
    let t = block_on(engine.tokenize_json(&SessionId::new("s"), "srv/tool", &doc)).unwrap();
    let v: serde_json::Value = serde_json::from_str(&t.text).unwrap();
    v["content"][0]["text"].as_str().unwrap().to_string()
}

#[test]
fn redact_and_a_tool_result_give_the_same_tokens() {
    let mut failures = Vec::new();
    for (what, text, secrets) in TEXTS {
        let cli = redact(text);
        let proxied = through_a_tool_result(text);
        if cli != proxied {
            failures.push(format!(
                "{what}: redact and tool result differ\n  redact: {cli:?}\n  result: {proxied:?}"
            ));
        }
        for secret in *secrets {
            if proxied.contains(secret) {
                failures.push(format!("{what}: {secret:?} leaked: {proxied:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[derive(serde::Deserialize)]
struct Case {
    note: String,
    text: String,
    /// Values that must not come out in the clear.
    hidden: Vec<String>,
    /// Text that must come out as it was (organisations, places, structure).
    kept: Vec<String>,
}

/// `tests/data/text_cases.jsonl`: structure inside text (reprs, CSV with and without a header,
/// tables, person slots), each read alone and inside a tool result, with the same output.
#[test]
fn structure_inside_text() {
    let data = include_str!("data/text_cases.jsonl");
    let mut failures = Vec::new();
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: Case = serde_json::from_str(line).expect("valid case line");
        let engine = Engine::new(
            Arc::new(Detector::with_defaults()),
            Arc::new(MemoryVault::default()),
        );
        let alone = block_on(engine.tokenize_text(&SessionId::new("a"), "t/t", &case.text))
            .unwrap()
            .text
            .into_owned();
        let proxied = through_a_tool_result(&case.text);
        if alone != proxied {
            failures.push(format!(
                "{}: alone and in a tool result differ\n  alone:  {alone:?}\n  result: {proxied:?}",
                case.note
            ));
        }
        for v in &case.hidden {
            if proxied.contains(v.as_str()) {
                failures.push(format!("{}: {v:?} leaked: {proxied:?}", case.note));
            }
        }
        for v in &case.kept {
            if !proxied.contains(v.as_str()) {
                failures.push(format!("{}: {v:?} was changed: {proxied:?}", case.note));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

mod shapes_never_break {
    use super::*;
    use proptest::prelude::*;

    /// Fragments of every shape the text pipeline reads: reprs, tables, CSV, slots, markup.
    fn shaped_text() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "[",
            "]",
            "{",
            "}",
            "(",
            ")",
            "'",
            "\"",
            "\\",
            "\\'",
            ":",
            ",",
            ";",
            "\t",
            "\n",
            "|",
            "---",
            "+--",
            " ",
            "Amber",
            "Holt",
            "美咲",
            "ø",
            "None",
            "True",
            "first_name",
            "name",
            "city",
            "Author: ",
            "From: ",
            "<",
            ">",
            "a@x.io",
            "<tr>",
            "<th>",
            "<td>",
            "</td>",
            "^3f2a9c1 ",
            "2024-01-01",
            ";CN=",
            "N:",
            "FN:",
            "cn: ",
            "=",
            "%40",
            "%20",
            "1",
            "42",
            "x",
        ]);
        prop::collection::vec(pieces, 0..40).prop_map(|v| v.concat())
    }

    fn engine() -> Engine {
        Engine::new(
            Arc::new(Detector::with_defaults()),
            Arc::new(MemoryVault::default()),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn tokenize_then_restore_is_exact(text in shaped_text()) {
            let e = engine();
            let s = SessionId::new("p");
            let t = block_on(e.tokenize_text(&s, "p/p", &text)).unwrap();
            let back = block_on(e.rehydrate_text(&s, &t.text)).unwrap();
            prop_assert_eq!(back.as_ref(), text.as_str());
            let doc = serde_json::json!({"content": [{"type": "text", "text": &text}]}).to_string();
            let t = block_on(e.tokenize_json(&s, "p/p", &doc)).unwrap();
            let v: serde_json::Value = serde_json::from_str(&t.text).unwrap();
            prop_assert!(v["content"][0]["text"].is_string());
            let back = block_on(e.rehydrate_json(&s, &t.text)).unwrap();
            prop_assert_eq!(back.as_ref(), doc.as_str());
        }
    }
}
