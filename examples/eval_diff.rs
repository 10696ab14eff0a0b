//! Prints the disagreements behind the eval tables, for one kind: false positives and missed
//! gold spans on a span file, and misses/flags on the email or phone validity files.
//!
//! ```text
//! cargo run --release --example eval_diff -- PHONE                  # spans_dev.jsonl
//! cargo run --release --example eval_diff -- PHONE phones_dev.jsonl # validity cases
//! ```
//!
//! The output quotes the labelled data (fake PII from public test sets), never live data.

#![allow(clippy::print_stdout)] // An example reports on stdout.

use std::io::BufRead;

use mcp_veil::detect::{Detector, FindContext};
use mcp_veil::eval::{label_kind, to_char_spans};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "PHONE".into());
    let file = args.next().unwrap_or_else(|| "spans_dev.jsonl".into());
    let path = format!("../shared/eval/{file}");
    let detector = Detector::with_defaults();
    let reader = std::io::BufReader::new(std::fs::File::open(&path)?);
    for line in reader.lines() {
        let line = line?;
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        if let Some(text) = v["text"].as_str() {
            let spans = detector.detect(text, &FindContext::default());
            let chars: Vec<char> = text.chars().collect();
            let cut = |s: usize, e: usize| chars[s..e].iter().collect::<String>();
            let predicted: Vec<(usize, usize)> = to_char_spans(text, &spans)
                .into_iter()
                .filter(|p| p.2.as_str() == kind)
                .map(|p| (p.0, p.1))
                .collect();
            let gold: Vec<(usize, usize)> = v["spans"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|g| label_kind(g["label"].as_str().unwrap_or("")) == Some(kind.as_str()))
                .map(|g| {
                    (
                        g["start"].as_u64().unwrap_or(0) as usize,
                        g["end"].as_u64().unwrap_or(0) as usize,
                    )
                })
                .collect();
            for p in &predicted {
                if !gold.contains(p) {
                    let ctx = cut(p.0.saturating_sub(30), p.0);
                    eprintln!("FP {:?} [[{}]]", ctx, cut(p.0, p.1));
                }
            }
            for g in &gold {
                if !predicted.contains(g) {
                    let ctx = cut(g.0.saturating_sub(30), g.0);
                    eprintln!("FN {:?} [[{}]]", ctx, cut(g.0, g.1));
                }
            }
        } else if let Some(value) = v["value"].as_str() {
            let spans = detector.detect(value, &FindContext::default());
            let hits: Vec<&str> = spans
                .iter()
                .filter(|s| s.kind.as_str() == kind)
                .map(|s| &value[s.start..s.end])
                .collect();
            let valid = v["valid"] == serde_json::Value::Bool(true);
            let whole = hits.len() == 1 && hits[0] == value.trim();
            if valid && !whole || !valid && !hits.is_empty() && v["valid"] == false {
                eprintln!(
                    "{} {:?} {} {} -> {:?}",
                    if valid { "MISS" } else { "FLAG" },
                    value,
                    v["region"].as_str().unwrap_or(""),
                    v["format"].as_str().unwrap_or(""),
                    hits
                );
            }
        }
    }
    Ok(())
}
