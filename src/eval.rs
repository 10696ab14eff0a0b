//! Scoring the detector on labelled data.
//!
//! The data are JSON Lines files in the formats of `../shared/eval` (see its README): span files
//! (`{"text", "spans":[{"start","end","label"}], "source"}`, offsets in characters), email validity
//! cases (`{"value","valid"}`) and phone cases (`{"value","valid","region","format","kind"}`).
//! `examples/eval.rs` prints the tables; regression tests call the same functions, so the figures
//! in the README and the tests' floors come from one scorer.
//!
//! Matching: a prediction is an *exact* hit when kind, start and end equal a gold span's, an
//! *overlap* hit when its kind matches and the ranges intersect. Each gold span is matched at most
//! once. Gold labels map to kinds (`PERSON` → NAME, `SSN` → US_SSN, `PHONE_NUMBER` → PHONE ...);
//! gold spans of other labels (LOCATION, ORGANIZATION ...) are not targets, so a prediction on them
//! is a false positive.

pub mod payloads;

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

use serde::Deserialize;

use crate::detect::{Detector, FindContext, Kind, Span};

/// Precision/recall counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// True positives.
    pub tp: usize,
    /// False positives.
    pub fp: usize,
    /// False negatives.
    pub fn_: usize,
}

impl Counts {
    /// tp / (tp + fp), 1.0 when nothing was predicted.
    pub fn precision(&self) -> f64 {
        ratio(self.tp, self.tp + self.fp)
    }
    /// tp / (tp + fn), 1.0 when there was nothing to find.
    pub fn recall(&self) -> f64 {
        ratio(self.tp, self.tp + self.fn_)
    }
    /// Harmonic mean of precision and recall.
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
    fn add(&mut self, other: Counts) {
        self.tp += other.tp;
        self.fp += other.fp;
        self.fn_ += other.fn_;
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

/// Scores for one kind in one group of records.
#[derive(Clone, Copy, Debug, Default)]
pub struct KindScore {
    /// Exact-span counts.
    pub exact: Counts,
    /// Overlap counts.
    pub overlap: Counts,
}

/// Scores of a span file, grouped by source (the part of `source` before `@`) and kind.
#[derive(Debug, Default)]
pub struct SpanScores {
    /// (source, kind) → scores. The source `ALL` sums every source.
    pub by_source_kind: BTreeMap<(String, String), KindScore>,
    /// source → (records with no gold PERSON, of which with a predicted NAME).
    pub name_fp_records: BTreeMap<String, (usize, usize)>,
    /// Records scored.
    pub records: usize,
}

#[derive(Deserialize)]
struct SpanRecord {
    text: String,
    #[serde(default)]
    spans: Vec<GoldSpan>,
    #[serde(default)]
    source: String,
}

#[derive(Deserialize)]
struct GoldSpan {
    start: usize,
    end: usize,
    label: String,
}

/// The kind a gold label stands for, if it is one we detect.
pub fn label_kind(label: &str) -> Option<&'static str> {
    Some(match label {
        "EMAIL" | "EMAIL_ADDRESS" => "EMAIL",
        "PHONE" | "PHONE_NUMBER" => "PHONE",
        "PERSON" | "NAME" => "NAME",
        "CREDIT_CARD" => "CREDIT_CARD",
        "IBAN" | "IBAN_CODE" => "IBAN",
        "SSN" | "US_SSN" => "US_SSN",
        "IP_ADDRESS" => "IP_ADDRESS",
        _ => return None,
    })
}

/// Which records of a file to score.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Keep only records whose `source` contains this.
    pub source_contains: Option<String>,
    /// Keep every n-th record (1 or 0: all).
    pub every: usize,
    /// Stop after this many kept records.
    pub limit: Option<usize>,
}

/// Why a data file could not be scored.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line is not a record of the expected shape.
    #[error("{path}:{line}: not a valid record: {message}")]
    Record {
        /// The file.
        path: String,
        /// 1-based line.
        line: usize,
        /// What serde said.
        message: String,
    },
}

fn read_lines<T: for<'de> Deserialize<'de>>(
    path: &Path,
    sel: &Selection,
    source_of: impl Fn(&T) -> &str,
) -> Result<Vec<T>, EvalError> {
    let shown = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| EvalError::Io {
        path: shown.clone(),
        source,
    })?;
    let mut out = Vec::new();
    let mut kept = 0usize;
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|source| EvalError::Io {
            path: shown.clone(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let record: T = match serde_json::from_str(&line) {
            Ok(r) => r,
            // A Rust string cannot hold a lone UTF-16 surrogate (`"\ud800"`); such test
            // cases cannot reach the detector through any `&str` API, so they are skipped.
            Err(e) if e.to_string().contains("hex escape") || line.contains("\\ud8") => continue,
            Err(e) => {
                return Err(EvalError::Record {
                    path: shown.clone(),
                    line: i + 1,
                    message: e.to_string(),
                });
            }
        };
        if sel
            .source_contains
            .as_ref()
            .is_some_and(|want| !source_of(&record).contains(want.as_str()))
        {
            continue;
        }
        kept += 1;
        if sel.every > 1 && !(kept - 1).is_multiple_of(sel.every) {
            continue;
        }
        out.push(record);
        if sel.limit.is_some_and(|l| out.len() >= l) {
            break;
        }
    }
    Ok(out)
}

/// Character offsets of byte-offset spans.
pub fn to_char_spans(text: &str, spans: &[Span]) -> Vec<(usize, usize, Kind)> {
    let mut out = Vec::with_capacity(spans.len());
    let mut chars_before = 0;
    let mut byte_at = 0;
    for s in spans {
        chars_before += text[byte_at..s.start].chars().count();
        let len = text[s.start..s.end].chars().count();
        out.push((chars_before, chars_before + len, s.kind.clone()));
        chars_before += len;
        byte_at = s.end;
    }
    out
}

/// Scores the detector on a span file.
pub fn score_spans(
    detector: &Detector,
    path: &Path,
    sel: &Selection,
) -> Result<SpanScores, EvalError> {
    let records: Vec<SpanRecord> = read_lines(path, sel, |r: &SpanRecord| r.source.as_str())?;
    let mut scores = SpanScores::default();
    let mut spans = Vec::new();
    for record in &records {
        scores.records += 1;
        let source = record
            .source
            .split('@')
            .next()
            .unwrap_or("")
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_string();
        detector.detect_into(&record.text, &FindContext::default(), &mut spans);
        let predicted = to_char_spans(&record.text, &spans);
        let gold: Vec<(usize, usize, &str)> = record
            .spans
            .iter()
            .filter_map(|g| Some((g.start, g.end, label_kind(&g.label)?)))
            .collect();
        let mut kinds: Vec<&str> = gold.iter().map(|g| g.2).collect();
        kinds.extend(predicted.iter().map(|p| kind_name(&p.2)));
        kinds.sort_unstable();
        kinds.dedup();
        for kind in kinds {
            let g: Vec<(usize, usize)> = gold
                .iter()
                .filter(|x| x.2 == kind)
                .map(|x| (x.0, x.1))
                .collect();
            let p: Vec<(usize, usize)> = predicted
                .iter()
                .filter(|x| kind_name(&x.2) == kind)
                .map(|x| (x.0, x.1))
                .collect();
            let score = KindScore {
                exact: match_counts(&g, &p, |a, b| a == b),
                overlap: match_counts(&g, &p, |a, b| a.0 < b.1 && b.0 < a.1),
            };
            for src in [source.as_str(), "ALL"] {
                let entry = scores
                    .by_source_kind
                    .entry((src.to_string(), kind.to_string()))
                    .or_default();
                entry.exact.add(score.exact);
                entry.overlap.add(score.overlap);
            }
        }
        if !gold.iter().any(|g| g.2 == "NAME") {
            let predicted_name = predicted.iter().any(|p| p.2 == Kind::Name);
            for src in [source.as_str(), "ALL"] {
                let e = scores.name_fp_records.entry(src.to_string()).or_default();
                e.0 += 1;
                e.1 += usize::from(predicted_name);
            }
        }
    }
    Ok(scores)
}

/// The kind's name, with every custom kind scored together as `CUSTOM`.
fn kind_name(kind: &Kind) -> &str {
    match kind {
        Kind::Custom(_) => "CUSTOM",
        builtin => builtin.as_str(),
    }
}

/// Greedy one-to-one matching of gold and predicted ranges.
fn match_counts(
    gold: &[(usize, usize)],
    predicted: &[(usize, usize)],
    hit: impl Fn((usize, usize), (usize, usize)) -> bool,
) -> Counts {
    let mut used = vec![false; gold.len()];
    let mut tp = 0;
    for &p in predicted {
        if let Some(i) = (0..gold.len()).find(|&i| !used[i] && hit(gold[i], p)) {
            used[i] = true;
            tp += 1;
        }
    }
    Counts {
        tp,
        fp: predicted.len() - tp,
        fn_: gold.len() - tp,
    }
}

/// Results on a validity file (emails or phones), grouped by a category.
#[derive(Debug, Default)]
pub struct ValidityScores {
    /// category → (cases, found as one whole-value span of the kind).
    pub valid_found: BTreeMap<String, (usize, usize)>,
    /// category → (cases, with any span of the kind).
    pub invalid_flagged: BTreeMap<String, (usize, usize)>,
    /// Cases valid only under an option (`valid` is a string such as
    /// `only_with_allow_quoted_local`): category → (cases, found as one whole-value span).
    pub conditional_found: BTreeMap<String, (usize, usize)>,
}

#[derive(Deserialize)]
struct ValidityRecord {
    value: String,
    valid: serde_json::Value,
    #[serde(default)]
    test: Option<String>,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    region: Option<String>,
}

/// Scores email validity cases: valid addresses must be found whole, invalid ones not at all.
pub fn score_emails(detector: &Detector, path: &Path) -> Result<ValidityScores, EvalError> {
    score_validity(detector, path, Kind::Email, |r| {
        r.test
            .as_deref()
            .unwrap_or("email")
            .trim_start_matches("test_")
            .to_string()
    })
}

/// Scores phone cases, grouped by format; national numbers are split by whether their region
/// is one of `regions` (the configured default regions).
pub fn score_phones(
    detector: &Detector,
    path: &Path,
    regions: &[String],
) -> Result<ValidityScores, EvalError> {
    score_validity(detector, path, Kind::Phone, |r| {
        let format = r.format.clone().unwrap_or_default();
        if r.valid != serde_json::Value::Bool(true) {
            return r.kind.clone().unwrap_or(format);
        }
        if format == "NATIONAL" {
            let configured = r
                .region
                .as_ref()
                .is_some_and(|reg| regions.iter().any(|x| x.eq_ignore_ascii_case(reg)));
            return if configured {
                "NATIONAL (configured regions)".into()
            } else {
                "NATIONAL (other regions)".into()
            };
        }
        format
    })
}

fn score_validity(
    detector: &Detector,
    path: &Path,
    kind: Kind,
    category: impl Fn(&ValidityRecord) -> String,
) -> Result<ValidityScores, EvalError> {
    let records: Vec<ValidityRecord> = read_lines(path, &Selection::default(), |_| "")?;
    let mut scores = ValidityScores::default();
    for r in &records {
        let spans = detector.detect(&r.value, &FindContext::default());
        let of_kind: Vec<&Span> = spans.iter().filter(|s| s.kind == kind).collect();
        let trimmed = r.value.trim();
        let lead = r.value.len() - r.value.trim_start().len();
        let whole = of_kind.len() == 1
            && of_kind[0].start == lead
            && of_kind[0].end == lead + trimmed.len();
        let cat = category(r);
        let bucket = match &r.valid {
            serde_json::Value::Bool(true) => Some(&mut scores.valid_found),
            serde_json::Value::String(condition) => {
                let e = scores
                    .conditional_found
                    .entry(format!("{cat} ({condition})"))
                    .or_default();
                e.0 += 1;
                e.1 += usize::from(whole);
                None
            }
            _ => None,
        };
        if let Some(found) = bucket {
            let e = found.entry(cat).or_default();
            e.0 += 1;
            e.1 += usize::from(whole);
        } else if r.valid == serde_json::Value::Bool(false) {
            let e = scores.invalid_flagged.entry(cat).or_default();
            e.0 += 1;
            e.1 += usize::from(!of_kind.is_empty());
        }
    }
    Ok(scores)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        let c = match_counts(
            &[(0, 5), (10, 15)],
            &[(0, 5), (11, 15), (20, 22)],
            |a, b| a == b,
        );
        assert_eq!(
            c,
            Counts {
                tp: 1,
                fp: 2,
                fn_: 1
            }
        );
        let c = match_counts(&[(0, 5), (10, 15)], &[(0, 5), (11, 15)], |a, b| {
            a.0 < b.1 && b.0 < a.1
        });
        assert_eq!(c.f1(), 1.0);
    }

    #[test]
    fn char_offsets() {
        let text = "é a@b.io";
        let spans = [Span::new(3, 9, Kind::Email)];
        assert_eq!(to_char_spans(text, &spans), vec![(2, 8, Kind::Email)]);
    }
}
