//! Data-driven cases for the credential and identifier kinds: `tests/data/kinds_cases.jsonl`.
//!
//! Each line is `{"text", "found": [[value, kind], ...], "key"?, "note"?}`: the values of the
//! new kinds (`SECRET`, the `detect.ids` kinds) found in `text`, in order, as substrings; `key`
//! is an optional JSON key passed as [`FindContext::key`]. Other kinds found in the same text
//! (a name, a phone) are other recognizers' business. `"found": []` asserts none of the new
//! kinds is found. The values are fake, computed to pass (or, for near misses, to fail) the
//! formats' checks as their specifications define them.

use mcp_veil::detect::{Detector, FindContext, Kind};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    text: String,
    found: Vec<(String, String)>,
    #[serde(default)]
    key: Option<String>,
}

fn is_new_kind(kind: &Kind) -> bool {
    matches!(kind, Kind::Secret | Kind::Id(_))
}

/// The failures of the cases of `file` (`data`, one JSON case a line) under `detector`.
fn failures(file: &str, data: &str, detector: &Detector) -> Vec<String> {
    let mut failures = Vec::new();
    for (i, line) in data
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let case: Case =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("{file}:{}: {e}", i + 1));
        let cx = FindContext {
            key: case.key.as_deref(),
            ..FindContext::default()
        };
        let got: Vec<(String, String)> = detector
            .detect(&case.text, &cx)
            .into_iter()
            .filter(|s| is_new_kind(&s.kind))
            .map(|s| (case.text[s.start..s.end].to_string(), s.kind.to_string()))
            .collect();
        if got != case.found {
            failures.push(format!(
                "line {}: {:?}\n  expected {:?}\n  got      {:?}",
                i + 1,
                case.text,
                case.found,
                got
            ));
        }
    }
    failures
}

#[test]
fn kinds_cases() {
    let data = include_str!("data/kinds_cases.jsonl");
    let failures = failures("kinds_cases.jsonl", data, &Detector::with_defaults());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The generated credentials corpus: every planted credential found exactly.
#[test]
fn credentials_corpus_recall() {
    let detector = Detector::with_defaults();
    let planted = mcp_veil::testdata::secrets::corpus(11, 2);
    let missed: Vec<String> = planted
        .iter()
        .filter(|p| {
            !detector
                .detect(&p.text, &FindContext::default())
                .iter()
                .any(|s| s.kind == Kind::Secret && s.start == p.start && s.end == p.end)
        })
        .map(|p| format!("{}/{}", p.format, p.context))
        .collect();
    assert!(missed.is_empty(), "missed: {missed:?}");
}

/// Clean code and logs hold no credential and no identifier.
#[test]
fn clean_text_has_none() {
    let detector = Detector::with_defaults();
    let clean = mcp_veil::testdata::clean_text(5, 200_000);
    let mut found = Vec::new();
    for line in clean.text.lines() {
        for s in detector.detect(line, &FindContext::default()) {
            if is_new_kind(&s.kind) {
                found.push(format!("{}: {}", s.kind, &line[s.start..s.end]));
            }
        }
    }
    assert!(found.is_empty(), "{found:?}");
}

/// A credential read from a file reaches the model as a token and restores exactly on the
/// way out (the agent hands it to a tool without seeing it).
#[test]
fn credentials_tokenize_and_restore() {
    use futures::executor::block_on;
    use mcp_veil::vault::{MemoryVault, SessionId};
    let engine = mcp_veil::Engine::new(
        std::sync::Arc::new(Detector::with_defaults()),
        std::sync::Arc::new(MemoryVault::default()),
    );
    let s = SessionId::new("s");
    for p in mcp_veil::testdata::secrets::corpus(3, 1) {
        let value = &p.text[p.start..p.end];
        let t = block_on(engine.tokenize_text(&s, "filesystem/read_file", &p.text)).unwrap();
        assert!(
            !t.text.contains(value),
            "{}/{}: the credential survived",
            p.format,
            p.context
        );
        assert!(t.text.contains("[SECRET_"), "{}/{}", p.format, p.context);
        let back = block_on(engine.rehydrate_text(&s, &t.text)).unwrap();
        assert_eq!(back.as_ref(), p.text.as_str());
    }
}

/// `rules/secrets.yaml`: a credential goes back to the server it came from, nowhere else.
#[test]
fn secrets_rule_file_keeps_credentials_home() {
    use mcp_veil::policy::{Action, Policy};
    let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/rules/secrets.yaml"));
    let config = mcp_veil::config::Config::load(path).expect("rules/secrets.yaml parses");
    let policy = Policy::from_config(&config).expect("rules/secrets.yaml compiles");
    let decide = |origin, destination| {
        policy
            .decide_token(&Kind::Secret, origin, destination, "token")
            .action
    };
    assert_eq!(
        decide("github/get_file", "github/create_pr"),
        Action::Restore
    );
    assert_eq!(
        decide("filesystem/read_file", "filesystem/write_file"),
        Action::Restore
    );
    assert_eq!(decide("filesystem/read_file", "web/search"), Action::Deny);
    assert_eq!(
        decide("github/get_file", "filesystem/write_file"),
        Action::Deny
    );
}

/// Postal addresses (`detect.ids.address`, off by default): `tests/data/address_cases.jsonl`,
/// same format, with addresses switched on.
#[test]
fn address_cases() {
    let data = include_str!("data/address_cases.jsonl");
    let mut config = mcp_veil::detect::DetectConfig::default();
    config.ids.address = true;
    let detector = Detector::new(&config).expect("valid configuration");
    let failures = failures("address_cases.jsonl", data, &detector);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Off by default: the same street line is left alone.
    let spans = Detector::with_defaults().detect("42 Oak Lane", &FindContext::default());
    assert!(spans.iter().all(|s| !is_new_kind(&s.kind)), "{spans:?}");
}
