//! Stable-toolchain runner for the fuzz checks: replays the committed corpus, then runs a
//! bounded, deterministic mutation loop over it (byte flips, inserts, deletes, splices and
//! JSON/token fragments). A panicking input is written to `artifacts/<target>/` and the run
//! exits 1.
//!
//! ```text
//! cargo run --release --bin replay -- [--mutations N] [--seed S] [detect|walk|interceptor ...]
//! ```

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

type Check = fn(&[u8]);

const TARGETS: &[(&str, Check)] = &[
    ("detect", mcp_veil_fuzz::check_detect),
    ("walk", mcp_veil_fuzz::check_walk),
    ("interceptor", mcp_veil_fuzz::check_interceptor),
];

const FRAGMENTS: &[&[u8]] = &[
    b"[EMAIL_1]",
    b"[LITERAL_2]",
    b"[NAME_1]]",
    b"\\u00e9",
    b"\\ud83d\\ude00",
    b"\\\"",
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\"full_name\":\"Ann Lee\"",
    b"EMP-123456",
    b"badge ",
    b"ann@example.com",
    b"+44 20 7946 0958",
    b"4111 1111 1111 1111",
    b"\n",
    b"\r\n",
    b"name,email\n",
    b"\"{\\\"a\\\":\\\"[EMAIL_1]\\\"}\"",
    "é😀".as_bytes(),
    b"\\n",
    b"1e5",
    b"\"result\":{}",
    b"\"error\":{\"code\":1,\"message\":\"x\"}",
    b"\"method\":\"x\",",
    b"\"id\":null,",
    b"\"id\":1,",
    b"\"text\":\"maria.garcia@example.com\",",
    b"\xff",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn mutate(rng: &mut Rng, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(6) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] ^= 1 << rng.below(8);
            }
            1 => v.insert(at, rng.next() as u8),
            2 if !v.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(v.len());
                v.drain(at.min(end)..end);
            }
            3 if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = (from + 1 + rng.below(64)).min(other.len());
                v.splice(at..at, other[from..end].iter().copied());
            }
            4 if !v.is_empty() => {
                let from = rng.below(v.len());
                let end = (from + 1 + rng.below(32)).min(v.len());
                let piece = v[from..end].to_vec();
                v.splice(at..at, piece);
            }
            _ => {
                let f = FRAGMENTS[rng.below(FRAGMENTS.len())];
                v.splice(at..at, f.iter().copied());
            }
        }
    }
    v.truncate(1 << 16);
    v
}

fn corpus(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| std::fs::read(&p).ok().map(|b| (p, b)))
        .collect()
}

fn run_one(check: Check, input: &[u8]) -> bool {
    catch_unwind(AssertUnwindSafe(|| check(input))).is_ok()
}

fn save_crash(root: &Path, target: &str, input: &[u8]) -> PathBuf {
    let dir = root.join("artifacts").join(target);
    let _ = std::fs::create_dir_all(&dir);
    let hash = input.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let path = dir.join(format!("crash-{hash:016x}"));
    let _ = std::fs::write(&path, input);
    path
}

fn main() -> ExitCode {
    if let Some(file) = std::env::var_os("REPLAY_FILE") {
        // Reproduce one input: REPLAY_FILE=artifacts/walk/crash-... cargo run --bin replay walk
        let input = std::fs::read(&file).expect("REPLAY_FILE is readable");
        let target = std::env::args().nth(1).unwrap_or_else(|| "walk".into());
        let (_, check) = TARGETS
            .iter()
            .find(|(n, _)| *n == target)
            .expect("a known target");
        check(&input);
        eprintln!("ok");
        return ExitCode::SUCCESS;
    }
    let mut mutations = 0usize;
    let mut seed = 1u64;
    let mut wanted: Vec<String> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--mutations" => mutations = args.next().and_then(|n| n.parse().ok()).unwrap_or(0),
            "--seed" => seed = args.next().and_then(|n| n.parse().ok()).unwrap_or(1),
            name => wanted.push(name.to_string()),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Panics are expected to be caught and reported once, by us.
    std::panic::set_hook(Box::new(|info| {
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        // The message may quote fuzz input (never real data); keep it short.
        let msg: String = msg.chars().take(300).collect();
        eprintln!("panic at {at}: {msg}");
    }));
    let mut failed = false;
    for (name, check) in TARGETS {
        if !wanted.is_empty() && !wanted.iter().any(|w| w == name) {
            continue;
        }
        let seeds = corpus(&root.join("corpus").join(name));
        if seeds.is_empty() {
            eprintln!("{name}: no corpus in corpus/{name}/: nothing to replay or mutate");
            failed = true;
            continue;
        }
        let mut crashes = 0;
        for (path, input) in &seeds {
            if !run_one(*check, input) {
                eprintln!("{name}: corpus file {} fails", path.display());
                crashes += 1;
            }
        }
        let mut rng = Rng(seed ^ name.len() as u64);
        for _ in 0..mutations {
            if seeds.is_empty() {
                break;
            }
            let a = &seeds[rng.below(seeds.len())].1;
            let b = &seeds[rng.below(seeds.len())].1;
            let input = mutate(&mut rng, a, b);
            if !run_one(*check, &input) {
                let path = save_crash(root, name, &input);
                eprintln!("{name}: crash saved to {}", path.display());
                crashes += 1;
                if crashes >= 5 {
                    break;
                }
            }
        }
        eprintln!(
            "{name}: {} corpus inputs, {mutations} mutations, {crashes} failures",
            seeds.len()
        );
        failed |= crashes > 0;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
