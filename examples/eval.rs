//! Scores the detector on the labelled development data and prints Markdown tables.
//!
//! ```text
//! cargo run --release --example eval                      # all of ../shared/eval
//! cargo run --release --example eval -- --shared DIR      # another copy of shared/
//! cargo run --release --example eval -- --config F        # a configuration file
//! cargo run --release --example eval -- --source wnut     # only records whose source matches
//! ```
//!
//! Tables: per source and kind, precision/recall/F1 for exact spans and for overlap; the share of
//! records without a PERSON where a NAME was predicted; email validity cases; phone cases by
//! format; fields of the real-shaped tool results (`tool_outputs/`, see `mcp_veil::eval::payloads`).

#![allow(clippy::print_stdout)] // An example reports on stdout.

use std::path::PathBuf;

use mcp_veil::config::Config;
use mcp_veil::detect::Detector;
use std::sync::Arc;

use mcp_veil::eval::payloads::score_payloads;
use mcp_veil::eval::{Selection, score_emails, score_phones, score_spans};

fn main() -> anyhow::Result<()> {
    let mut shared = PathBuf::from("../shared");
    let mut config = Config::embedded_default();
    let mut sel = Selection::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| anyhow::anyhow!("{arg} needs a value"))
        };
        match arg.as_str() {
            "--shared" => shared = PathBuf::from(value()?),
            "--config" => config = Config::load(&PathBuf::from(value()?))?,
            "--source" => sel.source_contains = Some(value()?),
            "--every" => sel.every = value()?.parse()?,
            "--limit" => sel.limit = Some(value()?.parse()?),
            other => {
                anyhow::bail!("unknown argument {other}; see the doc comment of examples/eval.rs")
            }
        }
    }
    let detector = Detector::new(&config.detect)?;
    let eval = shared.join("eval");

    let spans = score_spans(&detector, &eval.join("spans_dev.jsonl"), &sel)?;
    eprintln!("scored {} span records", spans.records);
    println!("## spans_dev.jsonl\n");
    println!(
        "| source | kind | exact P | exact R | exact F1 | overlap P | overlap R | overlap F1 | gold | predicted |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for ((source, kind), s) in &spans.by_source_kind {
        let e = s.exact;
        let o = s.overlap;
        println!(
            "| {source} | {kind} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} |",
            e.precision(),
            e.recall(),
            e.f1(),
            o.precision(),
            o.recall(),
            o.f1(),
            e.tp + e.fn_,
            e.tp + e.fp
        );
    }
    println!("\n| source | records without PERSON | with a predicted NAME | rate |");
    println!("|---|---|---|---|");
    for (source, (n, fp)) in &spans.name_fp_records {
        println!(
            "| {source} | {n} | {fp} | {:.3} |",
            *fp as f64 / (*n).max(1) as f64
        );
    }

    if sel.source_contains.is_none() {
        let emails = score_emails(&detector, &eval.join("emails_dev.jsonl"))?;
        let phones = score_phones(
            &detector,
            &eval.join("phones_dev.jsonl"),
            &config.detect.phone_regions,
        )?;
        for (title, scores) in [("emails_dev.jsonl", emails), ("phones_dev.jsonl", phones)] {
            println!("\n## {title}\n");
            println!("| cases | category | n | found as one span / flagged | rate |");
            println!("|---|---|---|---|---|");
            for (cat, (n, k)) in &scores.valid_found {
                println!(
                    "| valid | {cat} | {n} | {k} | {:.3} |",
                    *k as f64 / (*n).max(1) as f64
                );
            }
            for (cat, (n, k)) in &scores.conditional_found {
                println!(
                    "| valid only with an option | {cat} | {n} | {k} | {:.3} |",
                    *k as f64 / (*n).max(1) as f64
                );
            }
            for (cat, (n, k)) in &scores.invalid_flagged {
                println!(
                    "| invalid | {cat} | {n} | {k} | {:.3} |",
                    *k as f64 / (*n).max(1) as f64
                );
            }
        }
        let payloads = score_payloads(Arc::new(detector), &eval.join("tool_outputs"))?;
        println!(
            "\n## tool_outputs ({} files, field level)\n",
            payloads.files
        );
        println!(
            "| kind | fields | whole | partial | wrong kind | recall | clean fields tokenized as it |"
        );
        println!("|---|---|---|---|---|---|---|");
        for (kind, k) in &payloads.by_kind {
            println!(
                "| {kind} | {} | {} | {} | {} | {:.3} | {} |",
                k.fields,
                k.whole,
                k.partial,
                k.wrong_kind,
                k.recall(),
                k.false_positives
            );
        }
        println!(
            "\nClean fields: {}, of which tokenized: {}.",
            payloads.clean_fields, payloads.clean_changed
        );
        let mut errors: std::collections::BTreeMap<(String, String, String), usize> =
            Default::default();
        for e in payloads.errors {
            *errors.entry(e).or_default() += 1;
        }
        for ((file, field, what), n) in errors {
            eprintln!("  {file} {field}: {what} (x{n})");
        }
    }
    Ok(())
}
