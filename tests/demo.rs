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

/// The steps' titles, in order.
fn titles(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.strip_prefix("== "))
        .map(|l| l.trim_end_matches(" ==").to_string())
        .collect()
}

#[test]
fn demo_shows_a_confirmation_a_rule_raw_pii_and_the_audit_log_in_order() {
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .arg("demo")
        .env_remove("MCP_VEIL_LOG")
        .env_remove("MCP_VEIL_AUDIT_KEY")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let out = String::from_utf8(output.stdout).unwrap();
    // Nothing on stderr: no warning before (or among) the transcript.
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.starts_with("mcp-veil demo: "), "{out}");
    let titles = titles(&out);
    assert_eq!(titles.len(), 7, "{titles:?}");
    for (i, t) in titles.iter().enumerate() {
        assert!(t.starts_with(&format!("{}. ", i + 1)), "{titles:?}");
    }
    let blocks = blocks(&out);
    let model = side(&blocks, "model");
    // The confirmation, asked of the scripted user, who approves.
    assert!(out.contains("[layer] the layer asked the user"), "{out}");
    assert!(out.contains("rule `ask-before-emailing`"), "{out}");
    // The deny rule.
    assert!(
        model.contains("denied: [PHONE_1] (PHONE) from crm/list_contacts in argument `body` (rule `no-phones-by-email`)"),
        "{out}"
    );
    // Raw PII the model typed reaches the server, and is in the audit log.
    assert!(out.contains("raw_pii (out) crm/send_email"), "{out}");
    // The audit log verifies and the first contact's events are found, without values.
    assert!(out.contains("[layer] audit verify"), "{out}");
    assert!(
        out.contains("restored (out) crm/send_email, rule `ask-before-emailing`"),
        "{out}"
    );
    let audit_part = &out[out.find("== 7.").unwrap()..];
    for c in CONTACTS {
        assert!(!audit_part.contains(c.email), "{audit_part}");
        assert!(!audit_part.contains(c.name), "{audit_part}");
    }
}

#[test]
fn demo_honours_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("deny.yaml");
    std::fs::write(
        &f,
        "flows:\n  rules:\n    - name: no-email-at-all\n      to: crm/send_email\n      action: deny\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .arg("demo")
        .arg("--config")
        .arg(&f)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let out = String::from_utf8(output.stdout).unwrap();
    let blocks = blocks(&out);
    let server = side(&blocks, "server");
    // The file's rule refuses the email the demo's own rules would confirm and send.
    assert!(out.contains("rule `no-email-at-all`"), "{out}");
    assert!(!out.contains("ask-before-emailing"), "{out}");
    assert!(!server.contains("Hi Ada Whitfield"), "{out}");
    // A file the commands refuse is refused here too.
    std::fs::write(&f, "detect:\n  phone_regions: [XX]\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .arg("demo")
        .arg("--config")
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
