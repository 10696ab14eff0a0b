//! Prints the NAME spans the detector finds in each record of a span file, for error analysis.
//!
//! ```text
//! cargo run --release --example names_dump -- ../shared/eval/spans_dev.jsonl > /tmp/pred.jsonl
//! ```
//!
//! Output: one JSON line per record, `{"i": line, "names": [[start, end], ...]}` with character
//! offsets, in input order.

use std::io::{BufRead, Write};

use mcp_veil::detect::{Detector, FindContext, Kind};
use mcp_veil::eval::to_char_spans;

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: names_dump FILE.jsonl"))?;
    let detector = Detector::with_defaults();
    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let mut spans = Vec::new();
    for (i, line) in file.lines().enumerate() {
        let line = line?;
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let text = v["text"].as_str().unwrap_or("");
        detector.detect_into(text, &FindContext::default(), &mut spans);
        let names: Vec<(usize, usize)> = to_char_spans(text, &spans)
            .into_iter()
            .filter(|s| s.2 == Kind::Name)
            .map(|s| (s.0, s.1))
            .collect();
        writeln!(w, "{}", serde_json::json!({"i": i, "names": names}))?;
    }
    Ok(())
}
