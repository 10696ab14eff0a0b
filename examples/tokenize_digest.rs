//! Prints a digest of the detector's spans and of `tokenize_text` / `tokenize_json` outputs
//! over the `throughput` example's generated texts, for checking that a speed change leaves
//! every output byte-identical: run it with the old and the new binary and compare.
//!
//! ```text
//! cargo run --release --example tokenize_digest
//! ```
//!
//! Each text is tokenized twice in one session (the second pass recalls the names the first
//! one tokenized), the prose texts also in a session without free-text names.

// The digest is this example's output; stdout is not an MCP wire here.
#![allow(clippy::print_stdout)]

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use futures::executor::block_on;
use mcp_veil::detect::{DetectConfig, FindContext};
use mcp_veil::testdata;
use mcp_veil::vault::{MemoryVault, SessionId};
use mcp_veil::{Detector, Engine};

const MB: usize = 1 << 20;

fn digest(parts: &[&str]) -> u64 {
    let mut h = DefaultHasher::new();
    parts.hash(&mut h);
    h.finish()
}

fn main() -> anyhow::Result<()> {
    let texts = [
        ("prose 1", testdata::prose(1, MB).text, false),
        ("prose 2", testdata::prose(2, MB / 4).text, false),
        ("prose 3", testdata::prose(3, MB / 4).text, false),
        ("clean", testdata::clean_text(3, MB).text, false),
        ("crm json", testdata::crm_json(2, MB).text, true),
        (
            "tool result",
            testdata::mcp_tool_result(4, 10 * 1024).text,
            true,
        ),
    ];
    let no_names = DetectConfig {
        names_in_text: false,
        ..DetectConfig::default()
    };
    for (label, detector) in [
        ("names", Detector::with_defaults()),
        ("no names", Detector::new(&no_names)?),
    ] {
        let engine = Engine::new(Arc::new(detector), Arc::new(MemoryVault::default()));
        let session = SessionId::new("digest");
        for (name, text, json) in &texts {
            let spans = engine.detector().detect(text, &FindContext::default());
            let spans: Vec<String> = spans
                .iter()
                .map(|s| format!("{}..{} {}", s.start, s.end, s.kind.as_str()))
                .collect();
            let mut outs = Vec::new();
            for _ in 0..2 {
                let out = if *json {
                    block_on(engine.tokenize_json(&session, "x", text))?
                } else {
                    block_on(engine.tokenize_text(&session, "x", text))?
                };
                outs.push(out.text.into_owned());
            }
            let spans: Vec<&str> = spans.iter().map(String::as_str).collect();
            println!(
                "{label:<8} {name:<12} spans {:>6} {:016x}  tokenized {:016x} {:016x}",
                spans.len(),
                digest(&spans),
                digest(&[&outs[0]]),
                digest(&[&outs[1]]),
            );
        }
    }
    Ok(())
}
