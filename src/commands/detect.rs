//! `mcp-veil detect`: print what the detector finds, with character offsets (a developer tool:
//! it prints raw values by design, see `--help`).
//!
//! JSON Lines in (`{"text": ...}` per line, other fields ignored) gives one `{"spans": [...]}`
//! line out per line in (`{"error": ...}` for a line that is not one; exit 1); any other input is one text, reported as one line. The
//! recognizers run over the text as text: structure inside it (JSON keys, CSV columns) is what
//! `redact` follows, not this command.

use anyhow::anyhow;
use mcp_veil::Detector;
use mcp_veil::detect::FindContext;
use serde::{Deserialize, Serialize};

use super::io::{read_input, write_output};
use crate::cli::{DetectArgs, Settings, input_path};
use crate::exit::Failure;

#[derive(Deserialize)]
struct Line {
    text: String,
}

#[derive(Serialize)]
struct Out<'a> {
    spans: Vec<OutSpan<'a>>,
}

#[derive(Serialize)]
struct OutSpan<'a> {
    start: usize,
    end: usize,
    kind: &'a str,
    text: &'a str,
}

pub(super) fn run(settings: &Settings, args: &DetectArgs) -> Result<(), Failure> {
    let detector = super::detector(settings)?;
    let input = read_input(input_path(&args.input))?;
    let mut out = String::new();
    let first = input.lines().find(|l| !l.trim_ascii().is_empty());
    let json_lines = first.is_some_and(|l| {
        l.trim_ascii_start().starts_with('{') && serde_json::from_str::<Line>(l).is_ok()
    });
    let mut inputs = 0;
    let mut bad = Vec::new();
    if json_lines {
        // One output line per input line, so line N out answers line N in: a blank line gets
        // no spans, a line that is not `{"text": ...}` an `{"error": ...}` line (and the exit
        // code says so); the other lines' output is kept.
        for (i, line) in input.lines().enumerate() {
            if line.trim_ascii().is_empty() {
                out.push_str("{\"spans\":[]}\n");
                continue;
            }
            match serde_json::from_str::<Line>(line) {
                Ok(parsed) => {
                    spans_line(&detector, &parsed.text, &mut out);
                    inputs += 1;
                }
                Err(e) => {
                    // serde's messages can quote the input; report only where it failed.
                    let why = format!(
                        "input line {}: expected a JSON object with a string field \"text\" ({:?} error at column {})",
                        i + 1,
                        e.classify(),
                        e.column()
                    );
                    out.push_str(&serde_json::json!({ "error": why }).to_string());
                    out.push('\n');
                    bad.push(why);
                }
            }
        }
    } else {
        spans_line(&detector, &input, &mut out);
        inputs = 1;
    }
    tracing::info!(inputs, json_lines, "detected");
    write_output(&out)?;
    if let Some(first) = bad.first() {
        return Err(Failure::Runtime(anyhow!(
            "{} of the input lines are not JSON Lines {{\"text\": ...}} (first: {first})",
            bad.len()
        )));
    }
    Ok(())
}

/// Appends one `{"spans":[...]}` line for `text`.
fn spans_line(detector: &Detector, text: &str, out: &mut String) {
    let spans = detector.detect(text, &FindContext::default());
    // Spans are sorted and disjoint: convert byte offsets to characters in one pass.
    let (mut byte, mut chars) = (0, 0);
    let mut to_chars = |at: usize| {
        chars += text[byte..at].chars().count();
        byte = at;
        chars
    };
    let mut list = Vec::with_capacity(spans.len());
    for s in &spans {
        let start = to_chars(s.start);
        let end = to_chars(s.end);
        list.push(OutSpan {
            start,
            end,
            kind: s.kind.as_str(),
            text: &text[s.start..s.end],
        });
    }
    out.push_str(&serde_json::to_string(&Out { spans: list }).expect("spans serialize"));
    out.push('\n');
}
