//! The `mcp-veil` binary's contract: output formats, exit codes, broken pipes, help text.

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};

const KEY: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .args(args)
        .env_remove("MCP_VEIL_LOG")
        .env("MCP_VEIL_SESSION_KEY", KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn detect_reports_character_offsets_per_json_line() {
    let input = "{\"text\": \"é😀 [EMAIL_1] x\", \"label\": 3}\n\n{\"text\": \"none\"}\r\n";
    let o = run(&["detect"], input);
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        "{\"spans\":[{\"start\":3,\"end\":12,\"kind\":\"LITERAL\",\"text\":\"[EMAIL_1]\"}]}\n{\"spans\":[]}\n{\"spans\":[]}\n"
    );
}

#[test]
fn detect_on_plain_text_reports_the_whole_input() {
    let o = run(&["detect", "-"], "line one\nsee [NAME_2] é\n");
    assert!(o.status.success());
    assert_eq!(
        stdout(&o),
        "{\"spans\":[{\"start\":13,\"end\":21,\"kind\":\"LITERAL\",\"text\":\"[NAME_2]\"}]}\n"
    );
}

#[test]
fn detect_rejects_a_bad_json_line_without_quoting_it() {
    let o = run(
        &["detect"],
        "{\"text\": \"ok\"}\n{\"text\": [\"secret@example.com\"]}\n",
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("input line 2"), "{err}");
    assert!(!err.contains("secret"), "{err}");
    // The good line's output is kept, and line N out still answers line N in.
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(lines[0], "{\"spans\":[]}");
    assert!(lines[1].starts_with("{\"error\":\"input line 2"), "{out}");
    assert!(!out.contains("secret"), "{out}");
}

#[test]
fn redact_keeps_json_lines_and_line_ends() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.veil");
    let session = session.to_str().unwrap();
    let input = "{\"author\":\"Ann Lee\",\"n\":1.50}\r\n\n{\"author\":\"Bo Ek\"}\n";
    let o = run(&["redact", "--session", session], input);
    assert!(o.status.success());
    let out = stdout(&o);
    assert_eq!(
        out,
        "{\"author\":\"[NAME_1]\",\"n\":1.50}\r\n\n{\"author\":\"[NAME_2]\"}\n"
    );
    let back = run(&["restore", "--session", session], &out);
    assert_eq!(stdout(&back), input);
}

#[test]
fn input_that_opens_like_json_but_is_none_is_redacted_as_text_and_restored() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.veil");
    let session = session.to_str().unwrap();
    for input in [
        // Truncated: the walker refuses it, and its lines are no JSON either.
        "{\"author\": \"Ann Lee\",\n \"email\": \"ann.lee@example.com\"\n",
        // A log line in brackets.
        "[INFO] ann.lee@example.com signed in\n",
        // JSON Lines whose second line is not JSON.
        "{\"email\":\"ann.lee@example.com\"}\nann.lee@example.com\n",
    ] {
        let o = run(&["redact", "--session", session], input);
        assert!(o.status.success(), "{input:?}");
        let out = stdout(&o);
        assert!(!out.contains("ann.lee@example.com"), "{out}");
        assert!(out.contains("[EMAIL_1]"), "{out}");
        let back = run(&["restore", "--session", session], &out);
        assert_eq!(stdout(&back), input);
    }
    // One document across lines is JSON: its structure is kept (`\n` stays an escape).
    let input = "{\n  \"note\": \"call\\nAnn Lee\",\n  \"email\": \"ann.lee@example.com\"\n}\n";
    let out = stdout(&run(&["redact", "--session", session], input));
    assert!(out.contains("\"email\": \"[EMAIL_1]\""), "{out}");
    assert!(out.contains("\\n[NAME_"), "{out}");
    let back = run(&["restore", "--session", session], &out);
    assert_eq!(stdout(&back), input);
}

#[test]
fn a_saved_session_recalls_the_names_it_tokenized() {
    let dir = tempfile::tempdir().unwrap();
    let session = dir.path().join("s.veil");
    let session = session.to_str().unwrap();
    let o = run(
        &["redact", "--session", session],
        "{\"full_name\":\"Ysolde Brackwater\"}\n",
    );
    assert_eq!(stdout(&o), "{\"full_name\":\"[NAME_1]\"}\n");
    // A later run, lower case, no cue and not in the gazetteer: recalled from the saved
    // session.
    let o = run(
        &["redact", "--session", session],
        "OK, ysolde brackwater will call back\n",
    );
    assert_eq!(stdout(&o), "OK, [NAME_1] will call back\n");
    // Without the session nothing is known.
    let o = run(&["redact"], "OK, ysolde brackwater will call back\n");
    assert_eq!(stdout(&o), "OK, ysolde brackwater will call back\n");
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    assert_eq!(run(&["frobnicate"], "").status.code(), Some(2));
    assert_eq!(run(&["restore"], "").status.code(), Some(2));
    let help = run(&["detect", "--help"], "");
    assert!(help.status.success());
    assert!(stdout(&help).contains("raw values"));
    let bad_log = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .args(["detect"])
        .env("MCP_VEIL_LOG", "=[")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(bad_log.status.code(), Some(2));
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    // 4 MB of output; the reader takes one byte and goes away.
    let input = "x [NAME_1] y\n".repeat(300_000);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .args(["redact"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let mut out = child.stdout.take().unwrap();
    let mut one = [0u8; 1];
    out.read_exact(&mut one).unwrap();
    drop(out);
    let status = child.wait().unwrap();
    writer.join().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_wrong_session_key_and_a_modified_session_file_are_told_apart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.veil");
    let session = path.to_str().unwrap();
    let o = run(
        &["redact", "--session", session],
        "mail ann.lee@example.org\n",
    );
    assert!(o.status.success());
    let wrong = Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
        .args(["restore", "--session", session])
        .env("MCP_VEIL_SESSION_KEY", KEY.replace('0', "1"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let wrong_err = String::from_utf8_lossy(&wrong.stderr).into_owned();
    assert_eq!(wrong.status.code(), Some(1), "{wrong_err}");
    assert!(
        wrong_err.contains("wrong MCP_VEIL_SESSION_KEY"),
        "{wrong_err}"
    );
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let modified = run(&["restore", "--session", session], "[EMAIL_1]\n");
    let modified_err = String::from_utf8_lossy(&modified.stderr).into_owned();
    assert_eq!(modified.status.code(), Some(1), "{modified_err}");
    assert!(modified_err.contains("modified"), "{modified_err}");
    assert!(!modified_err.contains("wrong"), "{modified_err}");
}
