//! Accuracy floors on a fixed slice of the labelled development data in `../shared/eval`.
//!
//! The floors are what the recognizers reached when this test was written (measured with
//! `cargo run --release --example eval -- --every 3` for the span slice and the full email and
//! phone files) minus 0.02. A change that drops below them is a regression; a change that
//! improves them should raise them. The data live outside the repository (CI has `../shared`
//! beside it); without them this test fails and says so.

use std::path::PathBuf;

use mcp_veil::detect::{DetectConfig, Detector};
use mcp_veil::eval::{Selection, score_phones, score_spans};

/// Exact-span F1 reached on every third record of `spans_dev.jsonl`, per kind.
const SPAN_F1: &[(&str, f64)] = &[
    ("EMAIL", 0.933),
    ("PHONE", 0.926),
    ("CREDIT_CARD", 1.000),
    ("IBAN", 0.903),
    ("US_SSN", 0.889),
    ("IP_ADDRESS", 1.000),
];

/// Share of valid example numbers in `phones_dev.jsonl` found as one span, per format.
const PHONE_FOUND: &[(&str, f64)] = &[
    ("E164", 1.000),
    ("INTERNATIONAL", 1.000),
    ("RFC3966", 1.000),
    ("NATIONAL (configured regions)", 0.971),
];

/// Most of the invalid near-misses and short numbers that may be flagged (reached: none).
const PHONE_INVALID_FLAGGED_MAX: f64 = 0.02;

const SLACK: f64 = 0.02;

fn eval_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/eval");
    assert!(
        dir.join("spans_dev.jsonl").is_file(),
        "the labelled evaluation data are missing: expected {} (the shared material that sits \
         beside the repository as ../shared; see ../shared/eval/README.md)",
        dir.display()
    );
    dir
}

#[test]
fn span_f1_does_not_regress() {
    let dir = eval_dir();
    let detector = Detector::with_defaults();
    let sel = Selection {
        every: 3,
        ..Selection::default()
    };
    let scores = score_spans(&detector, &dir.join("spans_dev.jsonl"), &sel)
        .unwrap_or_else(|e| panic!("scoring spans_dev.jsonl: {e}"));
    let mut failures = Vec::new();
    for &(kind, reached) in SPAN_F1 {
        let f1 = scores
            .by_source_kind
            .get(&("ALL".to_string(), kind.to_string()))
            .map_or(0.0, |s| s.exact.f1());
        if f1 < reached - SLACK {
            failures.push(format!("{kind}: F1 {f1:.3} < floor {:.3}", reached - SLACK));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn phone_rates_do_not_regress() {
    let dir = eval_dir();
    let config = DetectConfig::default();
    let detector = Detector::new(&config).expect("default configuration");
    let scores = score_phones(
        &detector,
        &dir.join("phones_dev.jsonl"),
        &config.phone_regions,
    )
    .unwrap_or_else(|e| panic!("scoring phones_dev.jsonl: {e}"));
    let mut failures = Vec::new();
    for &(format, reached) in PHONE_FOUND {
        let (n, found) = scores.valid_found.get(format).copied().unwrap_or((0, 0));
        let rate = found as f64 / n.max(1) as f64;
        if n == 0 || rate < reached - SLACK {
            failures.push(format!(
                "{format}: {found}/{n} = {rate:.3} < floor {:.3}",
                reached - SLACK
            ));
        }
    }
    for (category, &(n, flagged)) in &scores.invalid_flagged {
        let rate = flagged as f64 / n.max(1) as f64;
        if rate > PHONE_INVALID_FLAGGED_MAX {
            failures.push(format!(
                "invalid {category}: {flagged}/{n} flagged = {rate:.3} > {PHONE_INVALID_FLAGGED_MAX}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Share of the fields of `tool_outputs/` expected to hold a kind that are tokenized whole as
/// that kind (`cargo run --release --example eval`, "tool_outputs" table).
const PAYLOAD_RECALL: &[(&str, f64)] = &[
    ("EMAIL", 1.000),
    ("PHONE", 1.000),
    ("NAME", 1.000),
    ("CREDIT_CARD", 1.000),
    ("IBAN", 1.000),
    ("US_SSN", 1.000),
    ("IP_ADDRESS", 0.995),
    ("SECRET", 1.000),
    ("DATE_OF_BIRTH", 1.000),
    ("CRYPTO_WALLET", 1.000),
];

/// Most clean fields of `tool_outputs/` that may come out changed (reached: 38 of 7,322).
const PAYLOAD_CLEAN_CHANGED_MAX: usize = 50;

#[test]
fn payload_fields_do_not_regress() {
    let dir = eval_dir();
    let scores = mcp_veil::eval::payloads::score_payloads(
        std::sync::Arc::new(Detector::with_defaults()),
        &dir.join("tool_outputs"),
    )
    .unwrap_or_else(|e| panic!("scoring tool_outputs: {e}"));
    assert_eq!(scores.files, 8);
    let mut failures = Vec::new();
    for &(kind, reached) in PAYLOAD_RECALL {
        let recall = scores.by_kind.get(kind).map_or(0.0, |k| k.recall());
        if recall < reached - SLACK {
            failures.push(format!(
                "{kind}: recall {recall:.3} < floor {:.3}",
                reached - SLACK
            ));
        }
    }
    if scores.clean_changed > PAYLOAD_CLEAN_CHANGED_MAX {
        failures.push(format!(
            "{} clean fields tokenized > {PAYLOAD_CLEAN_CHANGED_MAX}",
            scores.clean_changed
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
