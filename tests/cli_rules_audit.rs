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
    assert_eq!(code, 2, "{err}");
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
    assert_eq!(code, 2);
    assert!(err.contains(&format!("{shown}:2:")), "{err}");
    assert!(err.contains("defualt"), "{err}");
}

/// Each refusal a command makes at start-up from the configuration alone: `rules check` reports
/// it at its file:line:column and exits 2, and a command given the file refuses it the same way.
#[test]
fn rules_check_runs_the_start_up_validation() {
    let cases: [(&str, &str, &str); 10] = [
        (
            "detect:\n  phone_regions: [US, XX]\n",
            "2:23",
            "unknown phone region `XX`",
        ),
        (
            "detect:\n  custom:\n    - kind: email\n      pattern: 'E-[0-9]+'\n",
            "3:13",
            "invalid custom kind name `email`",
        ),
        (
            "detect:\n  custom:\n    - kind: EMP_ID\n      pattern: 'E-[0-9'\n",
            "4:16",
            "custom kind `EMP_ID`: invalid regex",
        ),
        (
            "servers:\n  fs:\n    command: node\n    url: https://x.example/mcp\n",
            "4:10",
            "server `fs` has both `command` and `url`",
        ),
        (
            "servers:\n  fs:\n    args: [a]\n",
            "2:3",
            "server `fs` needs one of `command` and `url`",
        ),
        (
            "servers:\n  my.crm:\n    command: a\n  my_crm:\n    command: b\n",
            "4:3",
            "servers `my.crm` and `my_crm` both normalise to `my_crm`",
        ),
        (
            "servers:\n  crm:\n    url: 'not a url'\n",
            "3:10",
            "server `crm`: bad url",
        ),
        (
            "vault:\n  backend: redis\n",
            "2:12",
            "vault.backend is redis but vault.url is not set",
        ),
        (
            "audit:\n  required: true\n",
            "2:13",
            "audit.required is true but audit.path is not set",
        ),
        (
            "serve:\n  listen: 0.0.0.0:8080\n",
            "2:11",
            "requires `serve.auth`",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (i, (yaml, at, message)) in cases.iter().enumerate() {
        let f = dir.path().join(format!("c{i}.yaml"));
        std::fs::write(&f, yaml).unwrap();
        let shown = f.display().to_string();
        let (code, out, err) = run(bin().args(["rules", "check"]).arg(&f));
        assert_eq!(code, 2, "{yaml}: {out}{err}");
        assert!(err.contains(&format!("{shown}:{at}")), "{yaml}: {err}");
        assert!(err.contains(message), "{yaml}: {err}");
        // The commands refuse it alike.
        let (code, _, err2) = run(bin()
            .arg("--config")
            .arg(&f)
            .arg("redact")
            .stdin(std::process::Stdio::null()));
        assert_eq!(code, 2, "{yaml}: {err2}");
        assert!(err2.contains(&format!("{shown}:{at}")), "{yaml}: {err2}");
    }
}

#[test]
fn configuration_and_file_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.txt");
    for args in [
        vec!["redact"],
        vec!["detect"],
        vec!["audit", "verify"],
        vec!["rules", "check"],
    ] {
        let (code, _, err) = run(bin()
            .env("MCP_VEIL_AUDIT_KEY", KEY)
            .args(&args)
            .arg(&missing));
        assert_eq!(code, 2, "{args:?}: {err}");
        // The OS error is printed once.
        assert_eq!(err.matches("os error 2").count(), 1, "{args:?}: {err}");
    }
    // `serve` on a non-loopback address without auth.
    let f = dir.path().join("serve.yaml");
    std::fs::write(&f, "servers:\n  a:\n    command: cat\n").unwrap();
    let (code, _, err) =
        run(bin()
            .arg("--config")
            .arg(&f)
            .args(["serve", "--listen", "0.0.0.0:0"]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("serve.auth"), "{err}");
    // `--name` names a single server; in gateway mode it is an error, not ignored.
    let (code, _, err) = run(bin()
        .arg("--config")
        .arg(&f)
        .args(["proxy", "--name", "x"])
        .stdin(std::process::Stdio::null()));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--name"), "{err}");
    // An unset `serve.auth` variable.
    std::fs::write(
        &f,
        "servers:\n  a:\n    command: cat\nserve:\n  listen: 127.0.0.1:0\n  auth:\n    token_env: MCP_VEIL_TEST_UNSET_TOKEN\n",
    )
    .unwrap();
    let (code, _, err) = run(bin()
        .env_remove("MCP_VEIL_TEST_UNSET_TOKEN")
        .arg("--config")
        .arg(&f)
        .arg("serve"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("MCP_VEIL_TEST_UNSET_TOKEN"), "{err}");
    // An unset vault key for the redis backend.
    std::fs::write(
        &f,
        "servers:\n  a:\n    command: cat\nvault:\n  backend: redis\n  url: redis://127.0.0.1:1/\nserve:\n  listen: 127.0.0.1:0\n",
    )
    .unwrap();
    let (code, _, err) = run(bin()
        .env_remove("MCP_VEIL_VAULT_KEY")
        .arg("--config")
        .arg(&f)
        .arg("serve"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("MCP_VEIL_VAULT_KEY"), "{err}");
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
            value: Some(Sensitive::new(
                if i % 2 == 0 { &value } else { &other }.expose().as_str(),
            )),
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

    // The configuration's `audit.key_file` is honoured by verify and find.
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!("audit:\n  key_file: {}\n", key_file.display()),
    )
    .unwrap();
    let (code, _, err) = run(bin()
        .arg("--config")
        .arg(&config)
        .args(["audit", "verify"])
        .args(&files));
    assert_eq!(code, 0, "{err}");
    // The value from stdin or a file, out of shell history.
    let (code, out, err) = run(bin()
        .arg("--config")
        .arg(&config)
        .args(["audit", "find", "--value", "-"])
        .args(&files)
        .stdin(
            std::fs::File::open({
                let v = dir.path().join("v");
                std::fs::write(&v, "carol.cli@example.org\n").unwrap();
                v
            })
            .unwrap(),
        ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 4, "{out}");
    let (code, out, err) = run(bin()
        .arg("--config")
        .arg(&config)
        .args(["audit", "find", "--value-file"])
        .arg(dir.path().join("v"))
        .args(&files));
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 4, "{out}");

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
