//! Throughput of the email, phone, card/IBAN/SSN and IP recognizers, alone and together.
//!
//! ```text
//! cargo bench --bench detect
//! ```
//!
//! Two deterministic 1 MiB corpora, generated here so that the bench needs nothing outside the
//! repository: English-like prose with one PII item per ~200 bytes (emails, phones in several
//! national and international formats, cards, IBANs, SSNs, IPs) and distractors (order numbers,
//! dates, times, versions, prices, UUIDs); and clean code/log text (timestamps, ids, durations,
//! paths, hex, source lines) with no PII. Figures are MB/s of input, one thread.
//!
//! `DETECT_BENCH_CORPUS=DIR cargo bench --bench detect` measures the reference corpus written
//! by `../shared/bench/gen_corpus.py --out DIR` (`prose.txt`, `clean.txt`) instead.
//!
//! The text is fed one line (a prose paragraph, a log line) at a time, as the engine feeds one
//! JSON string at a time. `baseline` is the detector with all four kinds off (what remains is
//! the always-on token-literal scan and the overlap resolver).

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_veil::detect::{DetectConfig, Detector, FindContext};

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
    fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }
}

const WORDS: &[&str] = &[
    "the",
    "report",
    "quarterly",
    "meeting",
    "was",
    "moved",
    "to",
    "next",
    "week",
    "because",
    "several",
    "people",
    "could",
    "not",
    "attend",
    "and",
    "budget",
    "review",
    "needs",
    "more",
    "time",
    "please",
    "check",
    "shared",
    "folder",
    "for",
    "updated",
    "numbers",
    "before",
    "we",
    "send",
    "final",
    "version",
    "customer",
    "asked",
    "about",
    "delivery",
    "schedule",
    "team",
];
const FIRST: &[&str] = &[
    "Alice", "Bob", "Maria", "Jürgen", "Priya", "Chen", "Olivia", "Noah",
];
const LAST: &[&str] = &[
    "Smith", "Müller", "Garcia", "Patel", "Wang", "Johnson", "Brown",
];
const DOMAINS: &[&str] = &[
    "example.com",
    "mail.example.org",
    "corp.example.co.uk",
    "x.io",
];

fn phone(r: &mut Rng) -> String {
    match r.below(6) {
        0 => format!("+1 415-555-{}", r.digits(4)),
        1 => format!("(212) 555-{}", r.digits(4)),
        2 => format!("+44 20 7946 {}", r.digits(4)),
        3 => format!("030 {}", r.digits(7)),
        4 => format!("+33 1 23 45 {} {}", r.digits(2), r.digits(2)),
        _ => format!("+4930{}", r.digits(6)),
    }
}

fn pii(r: &mut Rng) -> String {
    let (f, l) = (r.pick(FIRST), r.pick(LAST));
    match r.below(10) {
        0..=3 => format!(
            "Contact {f} {l} at {}.{}@{} for details.",
            f.to_lowercase(),
            l.to_lowercase(),
            r.pick(DOMAINS)
        ),
        4..=6 => format!("{f} can be reached at {}.", phone(r)),
        7 => "Card on file: 4111 1111 1111 1111.".to_string(),
        8 => "Wire to GB29 NWBK 6016 1331 9268 19 and SSN 536-32-3065.".to_string(),
        _ => format!(
            "Login from 86.{}.{}.{} blocked.",
            r.below(256),
            r.below(256),
            r.below(256)
        ),
    }
}

fn distractor(r: &mut Rng) -> String {
    match r.below(6) {
        0 => format!(
            "Order #{} shipped on 2024-0{}-1{}.",
            r.digits(8),
            1 + r.below(9),
            r.below(10)
        ),
        1 => format!(
            "Invoice total was ${},{}.{}.",
            r.below(99),
            r.digits(3),
            r.digits(2)
        ),
        2 => format!(
            "Upgrade to version {}.{}.{} before 1{}:3{}:00.",
            r.below(9),
            r.below(30),
            r.below(99),
            r.below(10),
            r.below(10)
        ),
        3 => format!(
            "The ticket id is 550e8400-e29b-41d4-a716-{} now.",
            r.digits(12)
        ),
        4 => format!("Budget is {}k for Q{} 2025.", r.below(999), 1 + r.below(4)),
        _ => format!(
            "ISBN 978-0-{}-{}-7 is out of stock.",
            r.digits(3),
            r.digits(5)
        ),
    }
}

fn prose(size: usize) -> String {
    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = String::with_capacity(size + 256);
    let mut items = 0usize;
    while out.len() < size {
        if out.len() / 200 > items {
            out.push_str(&pii(&mut r));
            items += 1;
        } else if r.below(5) == 0 {
            out.push_str(&distractor(&mut r));
        } else {
            let n = 6 + r.below(10);
            let mut s: Vec<&str> = (0..n).map(|_| r.pick(WORDS)).collect();
            let first = s[0].to_string();
            let cap = first[..1].to_uppercase() + &first[1..];
            s[0] = &cap;
            out.push_str(&s.join(" "));
            out.push('.');
        }
        out.push(if r.below(8) == 0 { '\n' } else { ' ' });
    }
    out
}

fn clean(size: usize) -> String {
    let mut r = Rng(0x0123_4567_89ab_cdef);
    let mut out = String::with_capacity(size + 256);
    while out.len() < size {
        let line = match r.below(5) {
            0 => format!(
                "2025-03-{:02}T{:02}:{:02}:{:02}.{}Z INFO [worker-{}] GET /api/v1/items/{} status=200 took={}ms req={:016x}\n",
                1 + r.below(28),
                r.below(24),
                r.below(60),
                r.below(60),
                r.digits(3),
                r.below(16),
                r.digits(6),
                r.below(900),
                r.next()
            ),
            1 => format!(
                "    let buf = Vec::with_capacity({});  // see issue #{} and std::io::Read\n",
                r.below(65536),
                r.digits(4)
            ),
            2 => format!(
                "{:02}:{:02}:{:02} WARN retry {} of {} after {}.{}s (pid {}, port {})\n",
                r.below(24),
                r.below(60),
                r.below(60),
                r.below(5),
                5,
                r.below(10),
                r.digits(3),
                r.digits(5),
                1024 + r.below(60000)
            ),
            3 => format!(
                "commit {:016x}{:016x} version 1.{}.{} size {} bytes, crc 0x{:08x}\n",
                r.next(),
                r.next(),
                r.below(90),
                r.below(20),
                r.digits(7),
                r.next() as u32
            ),
            _ => format!(
                "    if (x[{}] > {} && y != null) {{ return compute({}, {}); }}\n",
                r.below(64),
                r.digits(4),
                r.digits(2),
                r.digits(3)
            ),
        };
        out.push_str(&line);
    }
    out
}

fn only(email: bool, phone: bool, numbers: bool, ip: bool) -> Detector {
    let config = DetectConfig {
        email,
        phone,
        credit_card: numbers,
        iban: numbers,
        us_ssn: numbers,
        ip_address: ip,
        name: false,
        names_in_text: false,
        ..DetectConfig::default()
    };
    Detector::new(&config).expect("valid configuration")
}

fn bench(c: &mut Criterion) {
    const SIZE: usize = 1 << 20;
    // `DETECT_BENCH_CORPUS=DIR` measures `DIR/prose.txt` and `DIR/clean.txt` instead (the
    // reference corpus of `../shared/bench/gen_corpus.py`).
    let corpora = match std::env::var_os("DETECT_BENCH_CORPUS") {
        Some(dir) => {
            let dir = std::path::PathBuf::from(dir);
            let read = |name: &str| {
                std::fs::read_to_string(dir.join(name))
                    .unwrap_or_else(|e| panic!("{}: {e}", dir.join(name).display()))
            };
            [
                ("ref_prose", read("prose.txt")),
                ("ref_clean", read("clean.txt")),
            ]
        }
        None => [("prose", prose(SIZE)), ("clean", clean(SIZE))],
    };
    let detectors = [
        ("email", only(true, false, false, false)),
        ("phone", only(false, true, false, false)),
        ("numbers", only(false, false, true, false)),
        ("ip", only(false, false, false, true)),
        ("all_four", only(true, true, true, true)),
        ("baseline", only(false, false, false, false)),
    ];
    for (corpus, text) in &corpora {
        let mut group = c.benchmark_group(format!("detect/{corpus}"));
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.sample_size(20);
        for (name, detector) in &detectors {
            let mut out = Vec::new();
            group.bench_function(*name, |b| {
                b.iter(|| {
                    let mut found = 0;
                    for line in text.split_inclusive('\n') {
                        detector.detect_into(black_box(line), &FindContext::default(), &mut out);
                        found += out.len();
                    }
                    black_box(found)
                })
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
