//! Data-driven detection cases: `tests/data/detect_cases.jsonl`.
//!
//! Each line is `{"text", "spans":[{"start","end","kind"}], "key"?}`. Offsets are **Unicode
//! character** offsets into `text` (as in `../shared/eval`), `end` exclusive; `key` is an optional
//! JSON key passed as [`FindContext::key`]. Only the kinds this file covers are compared (EMAIL,
//! PHONE, CREDIT_CARD, IBAN, US_SSN, IP_ADDRESS): names found in the same text are another
//! recognizer's business. A case with `"spans": []` asserts that none of these kinds is found.

use mcp_veil::detect::{Detector, FindContext};
use mcp_veil::eval::to_char_spans;
use serde::Deserialize;

const KINDS: [&str; 6] = [
    "EMAIL",
    "PHONE",
    "CREDIT_CARD",
    "IBAN",
    "US_SSN",
    "IP_ADDRESS",
];

#[derive(Deserialize)]
struct Case {
    text: String,
    spans: Vec<Expected>,
    #[serde(default)]
    key: Option<String>,
}

#[derive(Deserialize, Debug, PartialEq)]
struct Expected {
    start: usize,
    end: usize,
    kind: String,
}

#[test]
fn detect_cases() {
    let data = include_str!("data/detect_cases.jsonl");
    let detector = Detector::with_defaults();
    let mut failures = Vec::new();
    for (i, line) in data
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let case: Case = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("detect_cases.jsonl:{}: {e}", i + 1));
        let cx = FindContext {
            key: case.key.as_deref(),
            ..FindContext::default()
        };
        let spans = detector.detect(&case.text, &cx);
        let got: Vec<Expected> = to_char_spans(&case.text, &spans)
            .into_iter()
            .filter(|(_, _, k)| KINDS.contains(&k.as_str()))
            .map(|(start, end, kind)| Expected {
                start,
                end,
                kind: kind.as_str().to_string(),
            })
            .collect();
        if got != case.spans {
            failures.push(format!(
                "line {}: {:?}\n  expected {:?}\n  got      {:?}",
                i + 1,
                case.text,
                case.spans,
                got
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
