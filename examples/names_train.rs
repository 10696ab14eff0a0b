//! Trains the name finder's candidate judge (`src/detect/names/model.rs`), an averaged
//! perceptron, on a span file, and scores it against the rules.
//!
//! ```text
//! cargo run --release --example names_train -- ../shared/eval/spans_dev.jsonl \
//!     [--holdout even|odd] [--split record|template] [--epochs N] [--out data/names/judge.weights]
//! ```
//!
//! With `--holdout even` it trains on the odd records and scores the even ones (and the other
//! way round); `--split template` puts presidio-research records in halves by template id
//! rather than by line number, so no sentence template is on both sides. `--holdout-source
//! NAME` (a prefix of `presidio`, `emerging`, `PII`) trains on the other sources and scores that
//! one: generalisation across sources, which a split of one source overstates. Without `--holdout`
//! it trains and scores on all records. Scores are exact-span P/R/F1 of NAME against gold
//! PERSON for the name finder alone (rules, then rules plus judge), and how many records
//! without a gold PERSON got a name. Deterministic: records in file order, a fixed-seed shuffle
//! per epoch.
//!
//! Further options: `--margin X` (how far the judge must score to drop a rule's yes),
//! `--casual-margin X` and `--casual-out FILE` (the casual stage's model), `--rescue
//! PLAIN,CASUAL` (the scores above which a rule's no is overruled in well-cased and in casual
//! text; default `model::RESCUE`), `--drop-casual X` (the margin to drop a rule's yes in casual
//! text; default `model::CASUAL_MARGIN`), `--seed N` (the epoch shuffles' seed, 0 for the
//! shipped weights: held-out figures move by about ±0.01 with the seed, so compare changes by
//! the mean over several seeds), `--bags N` (each model the average of N perceptrons, each
//! with its own shuffle seed; default 4, as the shipped weights), `--drop T,T` (feature tags
//! left out of both models: ablation), `--show` (the spans the casual stage changes) and `--dump
//! FILE` (one JSON line per candidate of the scored records, with its score, and one per gold
//! span no candidate matched: where recall is lost).

// The scores are this example's output; stdout is not an MCP wire here.
#![allow(clippy::print_stdout)]

use std::collections::HashSet;
use std::io::BufRead;

use mcp_veil::detect::FindContext;
use mcp_veil::detect::names::NameFinder;
use mcp_veil::detect::names::model::{Features, Judge};

const BITS: u32 = 14;
const SOURCES: [&str; 3] = ["presidio-research", "emerging_entities_17", "PII-synthetic"];

struct Record {
    text: String,
    gold: HashSet<(usize, usize)>,
    source: usize,
    /// Which half the record is in (0 even, 1 odd).
    half: usize,
}

fn byte_offsets(text: &str) -> Vec<usize> {
    let mut v: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    v.push(text.len());
    v
}

fn load(path: &str, by_template: bool) -> anyhow::Result<Vec<Record>> {
    let file = std::io::BufReader::new(std::fs::File::open(path)?);
    let mut out = Vec::new();
    for (i, line) in file.lines().enumerate() {
        let line = line?;
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let text = v["text"].as_str().unwrap_or("").to_string();
        let src = v["source"].as_str().unwrap_or("");
        let Some(source) = SOURCES.iter().position(|s| src.contains(s)) else {
            continue;
        };
        let map = byte_offsets(&text);
        let gold = v["spans"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|s| s["label"] == "PERSON")
                    .filter_map(|s| {
                        let a = map.get(s["start"].as_u64()? as usize)?;
                        let b = map.get(s["end"].as_u64()? as usize)?;
                        Some((*a, *b))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let half = match v["template_id"].as_u64() {
            Some(t) if by_template => (t % 2) as usize,
            _ => i % 2,
        };
        out.push(Record {
            text,
            gold,
            source,
            half,
        });
    }
    Ok(out)
}

/// A small deterministic generator for the epoch shuffles.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn train(samples: &[(&Features, bool)], epochs: usize, seed: u64) -> Judge {
    let n = 1usize << BITS;
    let mask = (n - 1) as u32;
    let mut w = vec![0f32; n];
    // Averaging: `acc` holds the sum of c * update; the average is w - acc / c.
    let mut acc = vec![0f32; n];
    let mut c = 1f32;
    let mut order: Vec<usize> = (0..samples.len()).collect();
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_mul(0x2545_f491_4f6c_dd1d));
    for _ in 0..epochs {
        for i in (1..order.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            order.swap(i, j);
        }
        for &k in &order {
            let (cand, gold) = &samples[k];
            let y = if *gold { 1f32 } else { -1f32 };
            let score: f32 = cand.ids().iter().map(|&id| w[(id & mask) as usize]).sum();
            if y * score <= 0.0 {
                for &id in cand.ids() {
                    let s = (id & mask) as usize;
                    w[s] += y;
                    acc[s] += c * y;
                }
            }
            c += 1.0;
        }
    }
    let avg: Vec<f32> = w.iter().zip(&acc).map(|(w, a)| w - a / c).collect();
    Judge::from_weights(avg).expect("table size is a power of two")
}

/// [`train`] with `bags` shuffle seeds, the weights averaged: one linear model scoring the mean
/// of their scores, less dependent on one shuffle's luck. Seed `s` uses the shuffles `s * bags`
/// to `s * bags + bags - 1`, so runs with different seeds share none (seed 0: the shipped
/// weights).
fn train_bagged(samples: &[(&Features, bool)], epochs: usize, seed: u64, bags: u64) -> Judge {
    let bags = bags.max(1);
    let mut sum = vec![0f32; 1 << BITS];
    for b in 0..bags {
        let j = train(samples, epochs, seed * bags + b);
        for (i, s) in sum.iter_mut().enumerate() {
            *s += j.weight(i);
        }
    }
    let avg = sum.into_iter().map(|w| w / bags as f32).collect();
    Judge::from_weights(avg).expect("table size is a power of two")
}

#[derive(Default, Clone, Copy)]
struct Score {
    tp: usize,
    fp: usize,
    fn_: usize,
    empty: usize,
    empty_flagged: usize,
}

impl Score {
    fn prf(&self) -> (f64, f64, f64) {
        let p = self.tp as f64 / (self.tp + self.fp).max(1) as f64;
        let r = self.tp as f64 / (self.tp + self.fn_).max(1) as f64;
        let f = if p + r > 0.0 {
            2.0 * p * r / (p + r)
        } else {
            0.0
        };
        (p, r, f)
    }
}

fn score(finder: &NameFinder, recs: &[&Record]) -> [Score; 3] {
    let mut out = [Score::default(); 3];
    let mut spans = Vec::new();
    for r in recs {
        spans.clear();
        finder.find(&r.text, &FindContext::default(), &mut spans);
        let pred: HashSet<(usize, usize)> = spans.iter().map(|s| (s.start, s.end)).collect();
        let s = &mut out[r.source];
        s.tp += pred.intersection(&r.gold).count();
        s.fp += pred.difference(&r.gold).count();
        s.fn_ += r.gold.difference(&pred).count();
        if r.gold.is_empty() {
            s.empty += 1;
            s.empty_flagged += usize::from(!pred.is_empty());
        }
    }
    out
}

/// Prints the spans where the judge and the rules disagree, marked right (`+`) or wrong (`-`).
fn show_changes(rules: &NameFinder, model: &NameFinder, recs: &[&Record]) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for r in recs {
        a.clear();
        b.clear();
        rules.find(&r.text, &FindContext::default(), &mut a);
        model.find(&r.text, &FindContext::default(), &mut b);
        let a: HashSet<(usize, usize)> = a.iter().map(|s| (s.start, s.end)).collect();
        let b: HashSet<(usize, usize)> = b.iter().map(|s| (s.start, s.end)).collect();
        for (what, set, other) in [("added", &b, &a), ("dropped", &a, &b)] {
            for &(s, e) in set.difference(other) {
                let right = r.gold.contains(&(s, e)) == (what == "added");
                let mut lo = s.saturating_sub(40);
                while !r.text.is_char_boundary(lo) {
                    lo -= 1;
                }
                let mut hi = (e + 25).min(r.text.len());
                while !r.text.is_char_boundary(hi) {
                    hi += 1;
                }
                println!(
                    "{} {what:7} {:8} {:?} [[{}]] {:?}",
                    if right { '+' } else { '-' },
                    SOURCES[r.source].split('-').next().unwrap_or(""),
                    &r.text[lo..s],
                    &r.text[s..e],
                    &r.text[e..hi]
                );
            }
        }
    }
}

/// Writes, per scored record, each candidate the judge saw (one JSON line: source, record
/// index among the scored ones, span, text, gold, rule, score) and each gold span no
/// candidate matched (`"cand": false`): where recall is lost before and at the judge.
fn dump_candidates(
    path: &str,
    rules: &NameFinder,
    judge: &Judge,
    model: &NameFinder,
    casual: &Judge,
    recs: &[&Record],
) -> anyhow::Result<()> {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
    let (mut spans, mut seen) = (Vec::new(), Vec::new());
    for (i, r) in recs.iter().enumerate() {
        spans.clear();
        seen.clear();
        rules.trace(&r.text, &mut spans, &mut seen);
        let mut matched = HashSet::new();
        for c in &seen {
            let gold = r.gold.contains(&(c.start, c.end));
            if gold {
                matched.insert((c.start, c.end));
            }
            let row = serde_json::json!({
                "src": r.source, "i": i, "cand": true, "span": &r.text[c.start..c.end],
                "gold": gold, "rule": c.rule, "score": judge.score(&c.features),
                "scores": r.text[c.start..c.end].split(' ').map(|w| rules.scores(w)).collect::<Vec<_>>(),
                "regime": mcp_veil::detect::names::casual::regime_of(&r.text),
                "text": r.text,
            });
            writeln!(w, "{row}")?;
        }
        let mut cseen = Vec::new();
        model.trace_casual(&r.text, &mut spans, &mut cseen);
        for c in &cseen {
            let gold = r.gold.contains(&(c.start, c.end));
            if gold {
                matched.insert((c.start, c.end));
            }
            let row = serde_json::json!({
                "src": r.source, "i": i, "cand": true, "casual": true,
                "span": &r.text[c.start..c.end], "gold": gold, "rule": false,
                "score": casual.score(&c.features), "text": r.text,
            });
            writeln!(w, "{row}")?;
        }
        for &(s, e) in r.gold.difference(&matched) {
            let row = serde_json::json!({
                "src": r.source, "i": i, "cand": false, "span": &r.text[s..e], "gold": true,
                "regime": mcp_veil::detect::names::casual::regime_of(&r.text),
                "text": r.text,
            });
            writeln!(w, "{row}")?;
        }
    }
    Ok(())
}

/// The value of a numeric option (`usage` names the option and its value, for the error).
fn number<T: std::str::FromStr>(value: Option<&String>, usage: &str) -> anyhow::Result<T> {
    value
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("{usage}"))
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut path = None;
    let mut out_path = None;
    let mut holdout = None;
    let mut holdout_source: Option<usize> = None;
    let mut by_template = false;
    let mut epochs = 10;
    let mut drop: Vec<u8> = Vec::new();
    let mut margin = 0f32;
    let mut show = false;
    let mut casual_out = None;
    let mut casual_margin = 0f32;
    let mut dump = None;
    let mut rescue = mcp_veil::detect::names::model::RESCUE;
    let mut drop_casual = mcp_veil::detect::names::model::CASUAL_MARGIN;
    let mut seed = 0u64;
    let mut bags = 4u64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out_path = it.next().cloned(),
            "--casual-out" => casual_out = it.next().cloned(),
            "--casual-margin" => casual_margin = number(it.next(), "--casual-margin X")?,
            "--holdout" => {
                holdout = match it.next().map(String::as_str) {
                    Some("even") => Some(0),
                    Some("odd") => Some(1),
                    _ => anyhow::bail!("--holdout even|odd"),
                }
            }
            "--holdout-source" => {
                let name = it.next().map_or("", String::as_str);
                holdout_source = SOURCES
                    .iter()
                    .position(|s| !name.is_empty() && s.starts_with(name));
                if holdout_source.is_none() {
                    anyhow::bail!("--holdout-source presidio|emerging|PII");
                }
            }
            "--split" => {
                by_template = match it.next().map(String::as_str) {
                    Some("template") => true,
                    Some("record") => false,
                    _ => anyhow::bail!("--split record|template"),
                }
            }
            "--epochs" => epochs = number(it.next(), "--epochs N")?,
            "--margin" => margin = number(it.next(), "--margin X")?,
            "--show" => show = true,
            "--drop-casual" => drop_casual = number(it.next(), "--drop-casual X")?,
            "--bags" => bags = number(it.next(), "--bags N")?,
            "--seed" => seed = number(it.next(), "--seed N")?,
            "--rescue" => {
                let v: Vec<f32> = it
                    .next()
                    .map(|d| d.split(',').filter_map(|t| t.parse().ok()).collect())
                    .unwrap_or_default();
                anyhow::ensure!(v.len() == 2, "--rescue PLAIN,CASUAL");
                rescue = [v[0], v[1]];
            }
            "--dump" => dump = it.next().cloned(),
            "--drop" => {
                drop = it
                    .next()
                    .map(|d| d.split(',').filter_map(|t| t.parse().ok()).collect())
                    .unwrap_or_default()
            }
            p => path = Some(p.to_string()),
        }
    }
    let path = path.ok_or_else(|| anyhow::anyhow!("usage: names_train FILE.jsonl [options]"))?;
    let recs = load(&path, by_template)?;
    let rules = NameFinder::new(&[], &[]).with_judge(None);
    let (train_set, test_set): (Vec<&Record>, Vec<&Record>) = match (holdout_source, holdout) {
        (Some(s), _) => recs.iter().partition(|r| r.source != s),
        (None, Some(h)) => recs.iter().partition(|r| r.half != h),
        (None, None) => (recs.iter().collect(), recs.iter().collect()),
    };
    let mut samples = Vec::new();
    let mut seen = Vec::new();
    let mut spans = Vec::new();
    for r in &train_set {
        seen.clear();
        spans.clear();
        rules.trace(&r.text, &mut spans, &mut seen);
        for mut c in seen.drain(..) {
            c.features.retain(|t| !drop.contains(&t));
            let gold = r.gold.contains(&(c.start, c.end));
            samples.push((c, gold));
        }
    }
    let positives = samples.iter().filter(|s| s.1).count();
    let rule_right = samples.iter().filter(|s| s.0.rule == s.1).count();
    eprintln!(
        "training: {} records, {} candidates ({} gold, rules right on {})",
        train_set.len(),
        samples.len(),
        positives,
        rule_right
    );
    let refs: Vec<(&Features, bool)> = samples.iter().map(|(c, g)| (&c.features, *g)).collect();
    let judge = train_bagged(&refs, epochs, seed, bags)
        .skipping(&drop)
        .with_margin(margin)
        .with_casual_margin(drop_casual)
        .with_rescue(rescue[0], rescue[1]);
    let model = NameFinder::new(&[], &[])
        .with_judge(Some(judge.clone()))
        .with_casual(None);
    // The casual stage's model, trained on the candidates it sees after the judge.
    let mut casual_samples = Vec::new();
    let mut cseen = Vec::new();
    for r in &train_set {
        cseen.clear();
        spans.clear();
        model.trace_casual(&r.text, &mut spans, &mut cseen);
        for mut c in cseen.drain(..) {
            c.features.retain(|t| !drop.contains(&t));
            let gold = r.gold.contains(&(c.start, c.end));
            casual_samples.push((c, gold));
        }
    }
    eprintln!(
        "casual stage: {} candidates ({} gold)",
        casual_samples.len(),
        casual_samples.iter().filter(|s| s.1).count()
    );
    let crefs: Vec<(&Features, bool)> = casual_samples
        .iter()
        .map(|(c, g)| (&c.features, *g))
        .collect();
    let casual = train_bagged(&crefs, epochs, seed, bags)
        .skipping(&drop)
        .with_margin(casual_margin);
    let full = NameFinder::new(&[], &[])
        .with_judge(Some(judge.clone()))
        .with_casual(Some(casual.clone()));
    let rules = rules.with_casual(None);
    let before = score(&rules, &test_set);
    let mid = score(&model, &test_set);
    let after = score(&full, &test_set);
    let held_source =
        holdout_source.map(|s| format!("{} (held out, trained on the others)", SOURCES[s]));
    let half = match (&held_source, holdout) {
        (Some(s), _) => s.as_str(),
        (None, Some(0)) => "even (held out)",
        (None, Some(_)) => "odd (held out)",
        (None, None) => "all (trained on)",
    };
    println!(
        "scored on: {half}, split by {}",
        if by_template { "template" } else { "record" }
    );
    for (i, src) in SOURCES.iter().enumerate() {
        for (what, s) in [("rules", before[i]), ("judge", mid[i]), ("model", after[i])] {
            let (p, r, f) = s.prf();
            println!(
                "{src:22} {what}  exact P {p:.3} R {r:.3} F1 {f:.3}  no-PERSON records with a NAME {}/{}",
                s.empty_flagged, s.empty
            );
        }
    }
    if show {
        show_changes(&model, &full, &test_set);
    }
    if let Some(path) = dump {
        dump_candidates(&path, &rules, &judge, &model, &casual, &test_set)?;
    }
    if let Some(out) = out_path {
        std::fs::write(&out, judge.to_bytes())?;
        eprintln!("wrote {out}");
    }
    if let Some(out) = casual_out {
        std::fs::write(&out, casual.to_bytes())?;
        eprintln!("wrote {out}");
    }
    Ok(())
}
