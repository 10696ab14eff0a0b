//! A bare newline-delimited relay between a host and one stdio server: the two pipe hops any
//! stdio proxy adds, with no parsing and no scanning. `examples/proxy_latency.rs` runs the echo
//! server behind it to measure the floor that `mcp-veil proxy`'s added latency stands on.
//!
//! Blocking reads and writes on two threads, each line written and flushed as it arrives: the
//! least work a relay can do per message.
//!
//! ```text
//! cargo build --release --example line_relay --example echo_server
//! target/release/examples/line_relay target/release/examples/echo_server
//! ```

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// Copies `from` to `to` line by line, flushing each line, until `from` ends or `to` closes.
fn pump(from: impl BufRead, mut to: impl Write) {
    let mut line = Vec::new();
    let mut from = from;
    loop {
        line.clear();
        match from.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if to.write_all(&line).and_then(|()| to.flush()).is_err() {
            return;
        }
    }
}

fn main() {
    let mut args = std::env::args_os().skip(1);
    let Some(program) = args.next() else {
        eprintln!("usage: line_relay SERVER [ARGS...]");
        std::process::exit(2);
    };
    let mut child = Command::new(&program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            eprintln!("line_relay: cannot start the server: {e}");
            std::process::exit(1);
        });
    let (Some(to_server), Some(from_server)) = (child.stdin.take(), child.stdout.take()) else {
        eprintln!("line_relay: the server's pipes are missing");
        std::process::exit(1);
    };
    let back = std::thread::spawn(move || pump(BufReader::new(from_server), std::io::stdout()));
    pump(std::io::stdin().lock(), to_server);
    let _ = back.join();
    let _ = child.wait();
}
