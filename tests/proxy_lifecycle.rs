//! `mcp-veil proxy` process behaviour with shell children (no MCP peers needed): the command
//! with and without `--`, the child's stderr, shutdown when the host closes stdin, and a clear
//! error with a non-zero exit when the child dies.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn veil() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mcp-veil"))
}

#[test]
fn relays_with_and_without_double_dash() {
    for args in [
        vec!["proxy", "--name", "echo", "--", "cat"],
        vec!["proxy", "cat"],
    ] {
        let mut child = veil()
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // `cat` answers each request with itself: a request with no id-correlated method.
        writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"ping"}}"#).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
        );
    }
}

#[test]
fn child_stderr_passes_through_and_stdin_close_stops_the_child() {
    let started = Instant::now();
    let out = veil()
        .args([
            "proxy",
            "--",
            "sh",
            "-c",
            "echo from-child >&2; cat >/dev/null; echo bye >&2",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("from-child") && stderr.contains("bye"),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_child_that_ignores_stdin_close_is_killed_after_the_grace_period() {
    let started = Instant::now();
    let out = veil()
        .args(["proxy", "--", "sh", "-c", "trap '' TERM; exec sleep 30"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let took = started.elapsed();
    assert!(took < Duration::from_secs(15), "{took:?}");
}

#[test]
fn a_dying_child_is_reported_with_a_non_zero_exit() {
    let mut child = veil()
        .args(["proxy", "--name", "flaky", "sh", "-c", "read line; exit 3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":1,"method":"ping"}}"#).unwrap();
    // Keep stdin open: the child dies while the host is still connected.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let status = child.wait().unwrap();
    drop(stdin);
    assert!(!status.success());
    assert!(line.contains("server `flaky` exited"), "{line}");
    assert!(line.contains('3'), "{line}");
}

#[test]
fn a_missing_command_is_a_clear_error() {
    let out = veil()
        .args(["proxy", "--", "/nonexistent/mcp-server"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot start server `mcp-server`"),
        "{stderr}"
    );
}

#[test]
fn nothing_to_proxy_is_a_clear_error() {
    let out = veil()
        .args(["proxy"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to proxy"));
}

#[test]
fn sigterm_stops_the_proxy_and_its_server() {
    let mut child = veil()
        .args(["proxy", "--", "sh", "-c", "echo $$ >&2; exec sleep 30"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let server_pid = line.trim().to_string();
    assert!(server_pid.parse::<u32>().is_ok(), "{line}");
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    // The server is gone too (give the kernel a moment to reap it).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let alive = Command::new("kill")
            .args(["-0", &server_pid])
            .stderr(Stdio::null())
            .status()
            .unwrap()
            .success();
        if !alive {
            break;
        }
        assert!(Instant::now() < deadline, "the server outlived the proxy");
        std::thread::sleep(Duration::from_millis(50));
    }
}
