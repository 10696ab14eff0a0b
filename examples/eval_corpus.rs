//! Scores NAME (and any other kind) on the reference benchmark corpus of `../shared/bench`.
//!
//! ```text
//! python3 ../shared/bench/gen_corpus.py --out /tmp/corpus --seed 1234   # needs faker, phonenumbers
//! cargo run --release --example eval_corpus -- /tmp/corpus/prose.txt
//! cargo run --release --example eval_corpus -- /tmp/corpus/prose.txt --truth F --kind PERSON
//! cargo run --release --example eval_corpus -- /tmp/corpus/prose.txt --misses 20
//! ```
//!
//! The truth file (default: the text's name with `.truth.jsonl`) holds one span a line with byte
//! offsets `start_b`/`end_b` and a `type`. The text is detected line by line, as a tool result's
//! lines would be. Prints exact and overlap precision/recall for the kind, the detector's time
//! on the file (MB/s), and optionally examples of misses and false positives.

// This example is a report printer: its output is the table on stdout.
#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::time::Instant;

use mcp_veil::detect::{DetectConfig, Detector, FindContext, Kind};
use mcp_veil::eval::Counts;
use serde::Deserialize;

#[derive(Deserialize)]
struct Truth {
    #[serde(rename = "type")]
    kind: String,
    start_b: usize,
    end_b: usize,
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let text_path = PathBuf::from(args.next().ok_or_else(|| {
        anyhow::anyhow!("usage: eval_corpus TEXT [--truth F] [--kind PERSON] [--misses N]")
    })?);
    let mut truth_path = text_path.with_extension("truth.jsonl");
    let mut kind_label = "PERSON".to_string();
    let mut misses = 0usize;
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| anyhow::anyhow!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--truth" => truth_path = PathBuf::from(value()?),
            "--kind" => kind_label = value()?,
            "--misses" => misses = value()?.parse()?,
            other => anyhow::bail!("unknown argument {other}"),
        }
    }
    let kind = match mcp_veil::eval::label_kind(&kind_label) {
        Some(k) => Kind::from_name(k),
        None => anyhow::bail!("unknown kind {kind_label}"),
    };
    let text = std::fs::read_to_string(&text_path)?;
    let mut gold: Vec<(usize, usize)> = Vec::new();
    for line in std::fs::read_to_string(&truth_path)?.lines() {
        let t: Truth = serde_json::from_str(line)?;
        if mcp_veil::eval::label_kind(&t.kind) == Some(kind.as_str()) {
            gold.push((t.start_b, t.end_b));
        }
    }
    gold.sort_unstable();
    let t0 = Instant::now();
    let detector = Detector::new(&DetectConfig::default())?;
    let build = t0.elapsed();
    let mut predicted: Vec<(usize, usize)> = Vec::new();
    let mut spans = Vec::new();
    // Three rounds; the fastest is reported (the machine may be shared).
    let mut took = std::time::Duration::MAX;
    for _ in 0..3 {
        predicted.clear();
        let t1 = Instant::now();
        let mut at = 0;
        for line in text.split_inclusive('\n') {
            detector.detect_into(line, &FindContext::default(), &mut spans);
            predicted.extend(
                spans
                    .iter()
                    .filter(|s| s.kind == kind)
                    .map(|s| (at + s.start, at + s.end)),
            );
            at += line.len();
        }
        took = took.min(t1.elapsed());
    }
    let exact = count(&gold, &predicted, |g, p| g == p);
    let overlap = count(&gold, &predicted, |g, p| g.0 < p.1 && p.0 < g.1);
    println!(
        "| file | kind | exact P | exact R | exact F1 | overlap P | overlap R | overlap F1 | gold | predicted | MB/s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    println!(
        "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} | {:.1} |",
        text_path
            .file_name()
            .and_then(|f| f.to_str())
            .unwrap_or("?"),
        kind,
        exact.precision(),
        exact.recall(),
        exact.f1(),
        overlap.precision(),
        overlap.recall(),
        overlap.f1(),
        gold.len(),
        predicted.len(),
        text.len() as f64 / 1e6 / took.as_secs_f64()
    );
    eprintln!("Detector::new: {:?}", build);
    let without_names = Detector::new(&DetectConfig {
        name: false,
        ..DetectConfig::default()
    })?;
    let mut best = std::time::Duration::MAX;
    for _ in 0..3 {
        let t2 = Instant::now();
        for line in text.split_inclusive('\n') {
            without_names.detect_into(line, &FindContext::default(), &mut spans);
        }
        best = best.min(t2.elapsed());
    }
    eprintln!(
        "detector without names: {:.1} MB/s",
        text.len() as f64 / 1e6 / best.as_secs_f64()
    );
    if misses > 0 {
        let show = |(s, e): (usize, usize)| {
            let a = text[..s].char_indices().rev().nth(30).map_or(0, |x| x.0);
            let b = text[e..]
                .char_indices()
                .nth(30)
                .map_or(text.len(), |x| e + x.0);
            format!("{}[[{}]]{}", &text[a..s], &text[s..e], &text[e..b]).replace('\n', " ")
        };
        eprintln!("-- missed (no exact prediction):");
        for g in gold.iter().filter(|g| !predicted.contains(g)).take(misses) {
            eprintln!("  {}", show(*g));
        }
        eprintln!("-- false positives (no exact gold):");
        for p in predicted
            .iter()
            .filter(|p| gold.binary_search(p).is_err())
            .take(misses)
        {
            eprintln!("  {}", show(*p));
        }
    }
    Ok(())
}

fn count(
    gold: &[(usize, usize)],
    predicted: &[(usize, usize)],
    hit: impl Fn((usize, usize), (usize, usize)) -> bool,
) -> Counts {
    // Both lists are sorted by start; match each prediction to the first unused gold near it.
    let mut used = vec![false; gold.len()];
    let mut tp = 0;
    for &p in predicted {
        let from = gold.partition_point(|g| g.1 <= p.0).saturating_sub(1);
        let mut i = from;
        while i < gold.len() && gold[i].0 < p.1 + 1 {
            if !used[i] && hit(gold[i], p) {
                used[i] = true;
                tp += 1;
                break;
            }
            i += 1;
        }
    }
    Counts {
        tp,
        fp: predicted.len() - tp,
        fn_: gold.len() - tp,
    }
}
