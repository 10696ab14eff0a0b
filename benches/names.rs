//! Throughput of the detector on generated prose full of names, and on clean code/log text.
//!
//! ```text
//! cargo bench --bench names
//! ```
//!
//! The text is generated here, deterministically (a fixed-seed generator over fixed word
//! lists), so the bench needs nothing outside the repository. Each line is detected on its own,
//! as a tool result's lines would be.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_veil::detect::{DetectConfig, Detector, FindContext};

const FIRST: &[&str] = &[
    "Maria", "James", "Aisha", "Wei", "Olga", "Carlos", "Megan", "Omar", "Priya", "Jean-Luc",
    "Sofia", "Liam", "Fatima", "Hiroshi", "Ana", "Kevin", "Zoë", "Dmitri", "Grace", "Mateo",
];
const LAST: &[&str] = &[
    "Ortiz", "Smith", "Nguyen", "Patel", "O'Neil", "McDonald", "Kowalski", "García", "Chen",
    "Müller", "Johnson", "Haas", "Okafor", "Rossi", "Tanaka", "Small", "Rice", "Dubois",
];
const WORDS: &[&str] = &[
    "the",
    "report",
    "was",
    "sent",
    "to",
    "our",
    "team",
    "before",
    "noon",
    "and",
    "it",
    "covers",
    "budget",
    "review",
    "for",
    "next",
    "quarter",
    "with",
    "several",
    "open",
    "questions",
    "about",
    "shipping",
    "invoices",
    "customer",
    "feedback",
    "release",
    "notes",
    "may",
    "will",
    "grant",
    "access",
    "after",
    "meeting",
];
const TEMPLATES: &[&str] = &[
    "Hi {F}, {S}.",
    "Please loop in {F} {L} about {S}.",
    "{F} {L} said that {S}.",
    "Contact Dr. {L} at the office; {S}.",
    "-- {F} {L} | support desk",
    "Thanks, {F}. {S}.",
    "{S}. {S}.",
    "The ticket is assigned to {L}; {S}.",
];

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize
    }
    fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.next() % list.len()]
    }
}

fn sentence(rng: &mut Rng) -> String {
    let n = 6 + rng.next() % 8;
    let mut s: Vec<String> = (0..n).map(|_| rng.pick(WORDS).to_string()).collect();
    let first = s[0].remove(0).to_ascii_uppercase();
    s[0].insert(0, first);
    s.join(" ")
}

fn prose(bytes: usize) -> Vec<String> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut lines = Vec::new();
    let mut total = 0;
    while total < bytes {
        let mut line = String::new();
        for _ in 0..4 {
            let mut t = rng.pick(TEMPLATES).to_string();
            while let Some(i) = t.find("{S}") {
                t.replace_range(i..i + 3, &sentence(&mut rng).to_lowercase());
            }
            t = t
                .replace("{F}", rng.pick(FIRST))
                .replace("{L}", rng.pick(LAST));
            line.push_str(&t);
            line.push(' ');
        }
        line.push('\n');
        total += line.len();
        lines.push(line);
    }
    lines
}

fn clean(bytes: usize) -> Vec<String> {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut lines = Vec::new();
    let mut total = 0;
    while total < bytes {
        let line = match rng.next() % 3 {
            0 => format!(
                "2026-01-13T19:43:{:02}.989Z ERROR cpu::super: copy request heap section request_id={:x} retry={}\n",
                rng.next() % 60,
                rng.next(),
                rng.next() % 9
            ),
            1 => format!(
                "    let {} = transform.bandwidth({})?; // Ok(Capacity::new(trace))\n",
                rng.pick(WORDS),
                rng.next() % 5000
            ),
            _ => {
                "pub fn string(link: &Inode, drop_config_batch: usize) -> Result<Batch, Error> {\n"
                    .to_string()
            }
        };
        total += line.len();
        lines.push(line);
    }
    lines
}

fn bench(c: &mut Criterion) {
    let detector = Detector::new(&DetectConfig::default()).expect("default config");
    let mut group = c.benchmark_group("detect");
    for (name, lines) in [
        ("prose_names", prose(1 << 20)),
        ("clean_code_logs", clean(1 << 20)),
    ] {
        let bytes: usize = lines.iter().map(String::len).sum();
        group.throughput(Throughput::Bytes(bytes as u64));
        let mut out = Vec::new();
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut found = 0;
                for line in &lines {
                    detector.detect_into(line, &FindContext::default(), &mut out);
                    found += out.len();
                }
                found
            })
        });
    }
    group.finish();
    c.bench_function("detector_new", |b| {
        b.iter(|| Detector::new(&DetectConfig::default()).expect("default config"))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
