//! `mcp-veil demo` through the binary: it exits 0 quickly, and its transcript shows tokens on
//! the model side and real values on the server side, with no raw value on the model side.

use std::process::Command;
use std::time::{Duration, Instant};

use mcp_veil::demo::server::CONTACTS;
use mcp_veil::{Detector, detect::FindContext};

/// The transcript's blocks, as (side, label, text): every block opens with `[model] LABEL` or
/// `[server] LABEL` and its lines are indented by four spaces.
fn blocks(out: &str) -> Vec<(String, String, String)> {
    let mut blocks: Vec<(String, String, String)> = Vec::new();
    for line in out.lines() {
        if let Some(body) = line.strip_prefix("    ") {
            if let Some(last) = blocks.last_mut() {
                last.2.push_str(body);
                last.2.push('\n');
            }
        } else if let Some(rest) = line.strip_prefix('[')
            && let Some((side, label)) = rest.split_once("] ")
            && (side == "model" || side == "server")
        {
            blocks.push((side.to_string(), label.to_string(), String::new()));
        } else if !line.starts_with("==") && !line.is_empty() {
            // Prose between blocks ends the block before it.
            blocks.push(("prose".into(), String::new(), String::new()));
        }
    }
    blocks
}

fn side(blocks: &[(String, String, String)], name: &str) -> String {
    blocks
        .iter()
        .filter(|b| b.0 == name)
        .map(|b| b.2.as_str())
        .collect()
}

#[test]
fn demo_shows_tokens_to_the_model_and_values_to_the_server() {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .arg("demo")
        .output()
        .unwrap();
    let elapsed = started.elapsed();
    assert!(output.status.success(), "{output:?}");
    assert!(
        elapsed < Duration::from_secs(10),
        "the demo took {elapsed:?}"
    );
    let out = String::from_utf8(output.stdout).unwrap();
    let blocks = blocks(&out);
    let model = side(&blocks, "model");
    let server = side(&blocks, "server");
    assert!(
        blocks.iter().any(|b| b.0 == "model" && b.1 == "model saw"),
        "{out}"
    );
    assert!(
        blocks
            .iter()
            .any(|b| b.0 == "server" && b.1 == "server received"),
        "{out}"
    );

    // Names: tokens to the model, real values to the server.
    for c in CONTACTS {
        assert!(
            !model.contains(c.name),
            "raw name on the model side:\n{out}"
        );
        assert!(server.contains(c.name), "{out}");
    }
    for token in ["[NAME_1]", "[NAME_2]", "[NAME_3]"] {
        assert!(model.contains(token), "{out}");
    }
    // The email the agent wrote with [NAME_1] reached the server with the real name.
    assert!(
        model.contains("Hi [NAME_1], your order has shipped."),
        "{out}"
    );
    assert!(
        server.contains("Hi Ada Whitfield, your order has shipped."),
        "{out}"
    );
    // The forged token was refused locally.
    assert!(
        model.contains("[EMAIL_99] is not a token of this session"),
        "{out}"
    );
    assert!(
        server.contains("nothing: the layer refused the call"),
        "{out}"
    );

    // Emails: once the email recognizer is in (a placeholder on some branches).
    let emails = !Detector::with_defaults()
        .detect("a@example.com", &FindContext::default())
        .is_empty();
    if emails {
        for c in CONTACTS {
            assert!(
                !model.contains(c.email),
                "raw email on the model side:\n{out}"
            );
            assert!(server.contains(c.email), "{out}");
        }
        assert!(model.contains("\"to\": \"[EMAIL_1]\""), "{out}");
        assert!(
            server.contains("\"to\": \"ada.whitfield@example.com\""),
            "{out}"
        );
        assert!(model.contains("sent to [EMAIL_1]"), "{out}");
    }
    // Phones: likewise, once the phone recognizer is in.
    let phones = CONTACTS.iter().all(|c| {
        !Detector::with_defaults()
            .detect(c.phone, &FindContext::with_key("phone"))
            .is_empty()
    });
    if phones {
        for c in CONTACTS {
            assert!(
                !model.contains(c.phone),
                "raw phone on the model side:\n{out}"
            );
            assert!(server.contains(c.phone), "{out}");
        }
        assert!(model.contains("[PHONE_1]"), "{out}");
    }
}
