//! Field-level scoring on real-shaped tool results (`../shared/eval/tool_outputs`).
//!
//! The span files measure free text; MCP tools mostly return JSON records and CSV. Here each
//! payload goes through the [`Engine`] whole, as a tool result would, and every string field of
//! the output is compared with its input. What a field *should* hold comes from a table of the
//! payloads' own field names ([`RULES`]: `email` holds an e-mail address, DummyJSON's `ssn` a
//! social security number, JSONPlaceholder's comment `name` is lorem ipsum, not a person); the
//! table is written from the generators' schemas, not from the detector's key hints.
//!
//! A field expected to hold a kind is *whole* when the output is one token of that kind,
//! *partial* when tokens of that kind cover only part of it, *wrong kind* when it became a token
//! of another kind, and *missed* otherwise. A field expected to be clean is a false positive when
//! anything in it was tokenized. Free-text columns, addresses, user names and passwords are not
//! scored (they hold values of kinds not tokenized by default, or mixed text no table can label).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use futures::executor::block_on;
use serde_json::Value;

use super::EvalError;
use crate::detect::Detector;
use crate::engine::Engine;
use crate::token;
use crate::vault::{MemoryVault, SessionId};

/// What a field should hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// A value of this kind, tokenized whole.
    Kind(&'static str),
    /// Nothing to tokenize.
    Clean,
    /// Not scored.
    Ignore,
}

/// `(file, field path suffix, expectation)`: the field path is the object keys (and CSV column)
/// from the document root, array indices left out, joined by `.`; the longest matching suffix
/// wins; string fields no rule names are expected clean.
pub const RULES: &[(&str, &str, Expect)] = &[
    ("dummyjson_users.json", "firstName", Expect::Kind("NAME")),
    ("dummyjson_users.json", "lastName", Expect::Kind("NAME")),
    ("dummyjson_users.json", "maidenName", Expect::Kind("NAME")),
    ("dummyjson_users.json", "email", Expect::Kind("EMAIL")),
    ("dummyjson_users.json", "phone", Expect::Kind("PHONE")),
    ("dummyjson_users.json", "ip", Expect::Kind("IP_ADDRESS")),
    (
        "dummyjson_users.json",
        "bank.cardNumber",
        Expect::Kind("CREDIT_CARD"),
    ),
    ("dummyjson_users.json", "bank.iban", Expect::Kind("IBAN")),
    ("dummyjson_users.json", "ssn", Expect::Kind("US_SSN")),
    ("dummyjson_users.json", "username", Expect::Ignore),
    ("dummyjson_users.json", "password", Expect::Kind("SECRET")),
    (
        "dummyjson_users.json",
        "birthDate",
        Expect::Kind("DATE_OF_BIRTH"),
    ),
    ("dummyjson_users.json", "image", Expect::Ignore),
    ("dummyjson_users.json", "address.address", Expect::Ignore),
    (
        "dummyjson_users.json",
        "macAddress",
        Expect::Kind("MAC_ADDRESS"),
    ),
    (
        "dummyjson_users.json",
        "crypto.wallet",
        Expect::Kind("CRYPTO_WALLET"),
    ),
    (
        "dummyjson_comments.json",
        "user.fullName",
        Expect::Kind("NAME"),
    ),
    ("dummyjson_comments.json", "user.username", Expect::Ignore),
    ("jsonplaceholder_users.json", "name", Expect::Kind("NAME")),
    ("jsonplaceholder_users.json", "company.name", Expect::Clean),
    ("jsonplaceholder_users.json", "email", Expect::Kind("EMAIL")),
    ("jsonplaceholder_users.json", "phone", Expect::Kind("PHONE")),
    ("jsonplaceholder_users.json", "username", Expect::Ignore),
    (
        "jsonplaceholder_users.json",
        "address.street",
        Expect::Ignore,
    ),
    (
        "jsonplaceholder_users.json",
        "address.suite",
        Expect::Ignore,
    ),
    (
        "jsonplaceholder_comments.json",
        "email",
        Expect::Kind("EMAIL"),
    ),
    (
        "presidio_test_structured.json",
        "name",
        Expect::Kind("NAME"),
    ),
    (
        "presidio_test_structured.json",
        "email",
        Expect::Kind("EMAIL"),
    ),
    (
        "presidio_test_structured.json",
        "address.street",
        Expect::Ignore,
    ),
    (
        "presidio_test_structured_complex.json",
        "users.name",
        Expect::Kind("NAME"),
    ),
    (
        "presidio_test_structured_complex.json",
        "users.email",
        Expect::Kind("EMAIL"),
    ),
    (
        "presidio_test_structured_complex.json",
        "users.address.street",
        Expect::Ignore,
    ),
    ("presidio_csv_sample_data.csv", "name", Expect::Kind("NAME")),
    ("presidio_csv_sample_data.csv", "comments", Expect::Ignore),
    (
        "presidio_fabric_sample_data.csv",
        "name",
        Expect::Kind("NAME"),
    ),
    (
        "presidio_fabric_sample_data.csv",
        "email",
        Expect::Kind("EMAIL"),
    ),
    ("presidio_fabric_sample_data.csv", "street", Expect::Ignore),
    (
        "presidio_fabric_sample_data.csv",
        "user_query",
        Expect::Ignore,
    ),
];

/// How the fields expected to hold one kind came out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KindFields {
    /// Fields expected to hold the kind.
    pub fields: usize,
    /// Tokenized whole, as the right kind.
    pub whole: usize,
    /// Partly covered by tokens of the right kind.
    pub partial: usize,
    /// Tokenized as another kind.
    pub wrong_kind: usize,
    /// Clean fields tokenized as this kind (false positives).
    pub false_positives: usize,
}

/// Scores over every payload.
#[derive(Debug, Default)]
pub struct PayloadScores {
    /// Per expected kind.
    pub by_kind: BTreeMap<String, KindFields>,
    /// Fields expected clean.
    pub clean_fields: usize,
    /// Clean fields in which something was tokenized.
    pub clean_changed: usize,
    /// Where fields came out wrong: `(file, path, what)` (paths and kinds only, no values).
    pub errors: Vec<(String, String, String)>,
    /// Files scored.
    pub files: usize,
}

impl KindFields {
    /// whole / fields.
    pub fn recall(&self) -> f64 {
        super::ratio(self.whole, self.fields)
    }
}

/// Scores every file of `dir` that [`RULES`] knows; files it does not know are skipped.
pub fn score_payloads(detector: Arc<Detector>, dir: &Path) -> Result<PayloadScores, EvalError> {
    let mut files: Vec<&str> = RULES.iter().map(|r| r.0).collect();
    files.dedup();
    let mut scores = PayloadScores::default();
    for file in files {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).map_err(|source| EvalError::Io {
            path: path.display().to_string(),
            source,
        })?;
        // A fresh session per file, as one tool result in a new conversation.
        let engine = Engine::new(detector.clone(), Arc::new(MemoryVault::default()));
        let session = SessionId::new(file);
        let record = |message: String| EvalError::Record {
            path: path.display().to_string(),
            line: 1,
            message,
        };
        let pairs = if file.ends_with(".json") {
            let out = block_on(engine.tokenize_json(&session, "eval/payload", &text))
                .map_err(|e| record(e.to_string()))?;
            let before: Value = serde_json::from_str(&text).map_err(|e| record(e.to_string()))?;
            let after: Value =
                serde_json::from_str(&out.text).map_err(|e| record(e.to_string()))?;
            let mut pairs = Vec::new();
            json_fields(&before, &after, &mut String::new(), &mut pairs);
            pairs
        } else {
            let out = block_on(engine.tokenize_text(&session, "eval/payload", &text))
                .map_err(|e| record(e.to_string()))?;
            csv_fields(&text, &out.text).ok_or_else(|| record("CSV rows changed shape".into()))?
        };
        scores.files += 1;
        for (field, before, after) in pairs {
            score_field(&mut scores, file, &field, &before, &after);
        }
    }
    Ok(scores)
}

fn expectation(file: &str, field: &str) -> Expect {
    RULES
        .iter()
        .filter(|(f, suffix, _)| {
            *f == file
                && (field == *suffix
                    || field
                        .strip_suffix(suffix)
                        .is_some_and(|head| head.ends_with('.')))
        })
        .max_by_key(|(_, suffix, _)| suffix.len())
        .map_or(Expect::Clean, |r| r.2)
}

fn score_field(scores: &mut PayloadScores, file: &str, field: &str, before: &str, after: &str) {
    if before.trim().is_empty() {
        return;
    }
    let tokens: Vec<String> = token::find_tokens(after)
        .map(|t| t.kind.to_string())
        .collect();
    let mut error = |what: String| {
        scores
            .errors
            .push((file.to_string(), field.to_string(), what))
    };
    match expectation(file, field) {
        Expect::Ignore => {}
        Expect::Clean => {
            scores.clean_fields += 1;
            if after != before {
                scores.clean_changed += 1;
                for kind in &tokens {
                    scores
                        .by_kind
                        .entry(kind.clone())
                        .or_default()
                        .false_positives += 1;
                }
                error(format!("clean field tokenized as {}", tokens.join("+")));
            }
        }
        Expect::Kind(kind) => {
            let k = scores.by_kind.entry(kind.to_string()).or_default();
            k.fields += 1;
            match token::parse(after) {
                Some(t) if t.kind == kind => k.whole += 1,
                Some(t) => {
                    k.wrong_kind += 1;
                    let other = t.kind.to_string();
                    error(format!("{kind} tokenized as {other}"));
                }
                None if tokens.iter().any(|t| t == kind) => {
                    k.partial += 1;
                    error(format!("{kind} tokenized in part"));
                }
                None => error(format!("{kind} missed")),
            }
        }
    }
}

/// Pairs of string leaves of two JSON trees of the same shape, with their field paths.
fn json_fields(
    before: &Value,
    after: &Value,
    path: &mut String,
    out: &mut Vec<(String, String, String)>,
) {
    match (before, after) {
        (Value::String(b), Value::String(a)) => out.push((path.clone(), b.clone(), a.clone())),
        (Value::Array(bs), Value::Array(as_)) => {
            for (b, a) in bs.iter().zip(as_) {
                json_fields(b, a, path, out);
            }
        }
        (Value::Object(bs), Value::Object(as_)) => {
            for (key, b) in bs {
                let Some(a) = as_.get(key) else { continue };
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                json_fields(b, a, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// Pairs of cells of two CSV texts with the same rows, named by their column header.
fn csv_fields(before: &str, after: &str) -> Option<Vec<(String, String, String)>> {
    let (b, a) = (csv_rows(before), csv_rows(after));
    let header = b.first()?.clone();
    if a.len() != b.len() {
        return None;
    }
    let mut out = Vec::new();
    for (br, ar) in b.iter().zip(&a).skip(1) {
        if br.len() != ar.len() {
            return None;
        }
        for ((name, bc), ac) in header.iter().zip(br).zip(ar) {
            out.push((name.clone(), bc.clone(), ac.clone()));
        }
    }
    Some(out)
}

/// Rows of a CSV text: comma-separated cells, `"`-quoted cells with `""` escapes.
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.is_empty()) {
        let mut row = Vec::new();
        let mut cell = String::new();
        let mut quoted = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '"' if quoted && chars.peek() == Some(&'"') => {
                    cell.push('"');
                    chars.next();
                }
                '"' => quoted = !quoted,
                ',' if !quoted => row.push(std::mem::take(&mut cell)),
                c => cell.push(c),
            }
        }
        row.push(cell);
        rows.push(row);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_suffix_wins_and_unnamed_fields_are_clean() {
        let f = "jsonplaceholder_users.json";
        assert_eq!(expectation(f, "name"), Expect::Kind("NAME"));
        assert_eq!(expectation(f, "company.name"), Expect::Clean);
        assert_eq!(expectation(f, "address.zipcode"), Expect::Clean);
        assert_eq!(expectation(f, "username"), Expect::Ignore);
        // A suffix matches whole keys only.
        assert_eq!(expectation(f, "nickname"), Expect::Clean);
    }

    #[test]
    fn csv_rows_split_quoted_cells() {
        assert_eq!(
            csv_rows("a,b\n1,\"x, \"\"y\"\"\"\n"),
            [vec!["a", "b"], vec!["1", "x, \"y\""]]
        );
    }
}
