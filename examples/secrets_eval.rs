//! Credentials: recall on the generated corpus, false credentials (and identifiers) on clean text.
//!
//! ```text
//! cargo run --release --example secrets_eval                      # the generated corpus only
//! cargo run --release --example secrets_eval -- /tmp/corpus/clean.txt Cargo.lock package-lock.json src
//! cargo run --release --example secrets_eval -- --show FILE      # print each false credential
//! ```
//!
//! The corpus (`mcp_veil::testdata::secrets`) plants every supported format in `.env`, YAML,
//! JSON, log, shell and prose contexts; a plant counts as found when one `SECRET` span covers
//! it exactly. Each clean path (a file, or a directory walked for `.rs`, `.toml`, `.json`,
//! `.yaml`, `.md`, `.lock`, `.txt`, `.py`, `.ts`, `.js`, `.sh` files) is detected line by line, as
//! tool results' lines are, and every `SECRET` span in it is a false credential.

// This example is a report printer: its output is the table on stdout.
#![allow(clippy::print_stdout)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcp_veil::detect::{Detector, FindContext, Kind};
use mcp_veil::testdata::secrets::corpus;

fn main() {
    let mut show = false;
    let mut paths = Vec::new();
    for arg in std::env::args().skip(1) {
        if arg == "--show" {
            show = true;
        } else {
            paths.push(PathBuf::from(arg));
        }
    }
    let detector = Detector::with_defaults();
    let planted = corpus(7, 4);
    let mut by_format: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut by_context: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for p in &planted {
        let spans = detector.detect(&p.text, &FindContext::default());
        let hit = spans
            .iter()
            .any(|s| s.kind == Kind::Secret && s.start == p.start && s.end == p.end);
        for e in [
            by_format.entry(p.format).or_default(),
            by_context.entry(p.context).or_default(),
        ] {
            e.0 += usize::from(hit);
            e.1 += 1;
        }
        if !hit {
            if show {
                println!("  miss {}/{}: {:?}", p.format, p.context, p.text);
            }
            misses.push(format!("{}/{}", p.format, p.context));
        }
    }
    let found: usize = by_format.values().map(|v| v.0).sum();
    println!(
        "credentials corpus: {found}/{} found exactly ({:.1}% recall)",
        planted.len(),
        100.0 * found as f64 / planted.len() as f64
    );
    for (name, table) in [("format", &by_format), ("context", &by_context)] {
        println!("  by {name}:");
        for (k, (f, n)) in table {
            if f != n {
                println!("    {k:<24} {f}/{n}");
            }
        }
    }
    misses.sort();
    misses.dedup();
    if !misses.is_empty() {
        println!("  missed: {}", misses.join(", "));
    }
    let mut files = Vec::new();
    for p in &paths {
        collect(p, &mut files);
    }
    let (mut bytes, mut false_creds) = (0usize, 0usize);
    let mut false_ids: BTreeMap<String, usize> = BTreeMap::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        bytes += text.len();
        for (n, line) in text.lines().enumerate() {
            for s in detector.detect(line, &FindContext::default()) {
                if let Kind::Id(id) = &s.kind {
                    *false_ids.entry(id.name().to_string()).or_default() += 1;
                    if show {
                        println!(
                            "  {}:{}: {} {}",
                            f.display(),
                            n + 1,
                            id.name(),
                            &line[s.start..s.end]
                        );
                    }
                }
                if s.kind == Kind::Secret {
                    false_creds += 1;
                    if show {
                        println!("  {}:{}: {}", f.display(), n + 1, &line[s.start..s.end]);
                    }
                }
            }
        }
    }
    if !files.is_empty() {
        println!(
            "clean text: {} files, {:.1} MB, {false_creds} false credentials",
            files.len(),
            bytes as f64 / 1e6
        );
        println!("  identifier kinds found in clean text: {false_ids:?}");
    }
}

fn collect(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_dir() {
        let Ok(rd) = std::fs::read_dir(p) else {
            return;
        };
        for e in rd.flatten() {
            let path = e.path();
            let name = e.file_name();
            if name == "target" || name == "node_modules" || name == ".git" {
                continue;
            }
            collect(&path, out);
        }
    } else {
        let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
        if p.is_file()
            && matches!(
                ext,
                "rs" | "toml"
                    | "json"
                    | "yaml"
                    | "yml"
                    | "md"
                    | "lock"
                    | "txt"
                    | "py"
                    | "ts"
                    | "js"
                    | "sh"
            )
        {
            out.push(p.to_path_buf());
        }
    }
}
