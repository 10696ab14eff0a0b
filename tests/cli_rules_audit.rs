//! The `rules check`, `audit verify` and `audit find` commands, through the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mcp_veil::Kind;
use mcp_veil::audit::{
    AuditConfig, AuditKey, AuditLog, Direction, Event, EventKind, FsyncPolicy, Item,
};
use mcp_veil::sensitive::Sensitive;
use mcp_veil::token::Token;

const KEY: &str = "cli-test-key-cli-test-key-cli-test-key";

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mcp-veil"));
    c.env_remove("MCP_VEIL_AUDIT_KEY");
    c
}

fn run(c: &mut Command) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = c.output().expect("the binary runs");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&stdout).into_owned(),
        String::from_utf8_lossy(&stderr).into_owned(),
    )
}

#[test]
fn every_shipped_rules_file_passes_rules_check() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for f in &files {
        let (code, out, err) = run(bin().arg("rules").arg("check").arg(f));
        assert_eq!(code, 0, "{}: {err}", f.display());
        assert!(out.contains(": ok"), "{out}");
    }
    let (_, out, _) = run(bin()
        .args(["rules", "check"])
        .arg(dir.join("crm-to-mail.yaml")));
    assert!(
        out.contains("rule crm-to-mail: kinds [EMAIL, NAME], from crm/*, to mail/send_email, args [to, cc], action allow, raw deny"),
        "{out}"
    );
}

#[test]
fn rules_check_reports_file_line_column() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.yaml");
    std::fs::write(
        &f,
        "flows:\n  rules:\n    - name: r\n      kinds: [EMAIL, PHONY]\n      to: web/*\n      action: deny\n    - name: r\n      to: x\n      action: keep\n",
    )
    .unwrap();
    let (code, _, err) = run(bin().args(["rules", "check"]).arg(&f));
    assert_eq!(code, 1, "{err}");
    let shown = f.display().to_string();
    assert!(
        err.contains(&format!("{shown}:4:22: unknown kind `PHONY`")),
        "{err}"
    );
    assert!(
        err.contains(&format!("{shown}:7:13: duplicate rule name `r`")),
        "{err}"
    );
    // Unknown keys are errors, not ignored.
    std::fs::write(&f, "flows:\n  defualt: deny\n").unwrap();
    let (code, _, err) = run(bin().args(["rules", "check"]).arg(&f));
    assert_eq!(code, 1);
    assert!(err.contains(&format!("{shown}:2:")), "{err}");
    assert!(err.contains("defualt"), "{err}");
}

fn write_log(path: &Path) {
    let config = AuditConfig {
        fsync: FsyncPolicy::Never,
        max_file_bytes: 1200,
        ..AuditConfig::default()
    };
    let log = AuditLog::open(
        path,
        AuditKey::from_material(KEY.as_bytes()).unwrap(),
        &config,
    )
    .unwrap();
    let value = Sensitive::new("carol.cli@example.org".to_string());
    let other = Sensitive::new("dave.cli@example.org".to_string());
    for i in 0..8u32 {
        let token = Token::new(Kind::Email, 1 + i % 2);
        let items = [Item {
            kind: &Kind::Email,
            token: Some(&token),
            value: Some(if i % 2 == 0 { &value } else { &other }),
            canonical: None,
        }];
        log.record(&Event {
            session: "cli",
            direction: Direction::Outbound,
            server: "mail",
            method: "tools/call",
            name: Some("send_email"),
            request_id: None,
            event: EventKind::Restored,
            rule: Some("crm-to-mail"),
            items: &items,
        })
        .unwrap();
    }
}

#[test]
fn audit_verify_and_find() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    write_log(&path);
    let files = mcp_veil::audit::log_files(&path).unwrap();
    assert!(files.len() > 1, "rotation expected: {files:?}");

    let (code, out, err) = run(bin()
        .env("MCP_VEIL_AUDIT_KEY", KEY)
        .args(["audit", "verify"])
        .args(&files));
    assert_eq!(code, 0, "{err}");
    // 8 events, a rotation seal at the end of each rotated file, the closing seal.
    let seals = files.len() as u64;
    assert!(
        out.starts_with(&format!("ok: {} lines", 8 + seals)),
        "{out}"
    );
    assert!(out.contains("sealed: closed cleanly"), "{out}");

    // A key file works as well.
    let key_file = dir.path().join("k");
    std::fs::write(&key_file, format!("{KEY}\n")).unwrap();
    let (code, _, err) = run(bin()
        .args(["audit", "verify", "--key-file"])
        .arg(&key_file)
        .args(&files));
    assert_eq!(code, 0, "{err}");

    // No key: a usage error.
    let (code, _, err) = run(bin().args(["audit", "verify"]).args(&files));
    assert_eq!(code, 2);
    assert!(err.contains("MCP_VEIL_AUDIT_KEY"), "{err}");

    let (code, out, err) = run(bin()
        .env("MCP_VEIL_AUDIT_KEY", KEY)
        .args(["audit", "find", "--value", "Carol.CLI@example.org"])
        .args(&files));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(out.lines().all(|l| l.contains("[EMAIL_1]")), "{out}");
    assert!(!out.contains("carol"), "{out}");

    let (code, out, _) = run(bin()
        .env("MCP_VEIL_AUDIT_KEY", KEY)
        .args([
            "audit",
            "find",
            "--kind",
            "NAME",
            "--value",
            "carol.cli@example.org",
        ])
        .args(&files));
    assert_eq!(code, 1);
    assert!(out.is_empty());

    // Cut the closing seal off the current file: an unsealed tail, an error with
    // --require-sealed.
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let seal = lines.pop().unwrap();
    assert!(seal.contains("\"seal\":\"close\""), "{seal}");
    std::fs::write(&path, lines.concat()).unwrap();
    let verify = |extra: &[&str]| {
        run(bin()
            .env("MCP_VEIL_AUDIT_KEY", KEY)
            .args(["audit", "verify"])
            .args(extra)
            .args(&files))
    };
    let (code, out, err) = verify(&[]);
    assert_eq!(code, 0, "{err}");
    let tail = format!("unsealed tail: {} line(s) after the last seal", lines.len());
    assert!(out.contains(&tail), "{out}");
    let (code, _, err) = verify(&["--require-sealed"]);
    assert_eq!(code, 1);
    assert!(err.contains("after the last seal"), "{err}");

    // Without the newest file, the chain ends on a rotation seal: the loss is found.
    let (code, _, err) = run(bin()
        .env("MCP_VEIL_AUDIT_KEY", KEY)
        .args(["audit", "verify"])
        .args(&files[..files.len() - 1]));
    assert_eq!(code, 1);
    assert!(err.contains("rotation seal"), "{err}");

    // Tamper with the current file's first line.
    let edited = lines[0].replace("crm-to-mail", "crm-to-mall");
    assert_ne!(edited, lines[0]);
    lines[0] = &edited;
    std::fs::write(&path, lines.concat()).unwrap();
    let (code, _, err) = verify(&[]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!("{}:1: MAC mismatch", path.display())),
        "{err}"
    );
}
