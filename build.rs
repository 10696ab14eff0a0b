//! Packs `data/names/gazetteer.tsv` at compile time into the word table that
//! `src/detect/names/gazetteer.rs` reads with `include_bytes!`, so that no process spends
//! start-up time hashing 150,000 lines.
//!
//! The table is 2^18 little-endian `u64` slots of open addressing with linear probing; each
//! used slot holds a word's four scores, an in-gazetteer bit, a used bit and the top 36 bits
//! of the word's hash (the layout is documented in `gazetteer.rs`, whose test
//! `packed_table_matches_the_tsv` rebuilds the table at run time and compares). The lexicon
//! flags are added at start-up (a few hundred words), so the word lists stay in Rust.

use std::path::PathBuf;

const SLOT_BITS: u32 = 18;
const MASK: usize = (1 << SLOT_BITS) - 1;
const IN_GAZ: u64 = 1 << 26;
const USED: u64 = 1 << 27;
const FINGERPRINT: u64 = !((1 << 28) - 1);
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// The Fx-style hash of `gazetteer.rs` (`word_hash`), over lower-case bytes.
fn word_hash(bytes: &[u8]) -> u64 {
    let mut h = 0u64;
    let mut add = |w: u64| h = (h.rotate_left(5) ^ w).wrapping_mul(SEED);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        add(u64::from_le_bytes([
            c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
        ]));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        add(u64::from_le_bytes(buf));
    }
    let h = h ^ (h >> 29);
    h.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
}

fn main() {
    let src = "data/names/gazetteer.tsv";
    println!("cargo::rerun-if-changed={src}");
    println!("cargo::rerun-if-changed=build.rs");
    let data = std::fs::read(src).unwrap_or_else(|e| panic!("cannot read {src}: {e}"));
    let mut slots = vec![0u64; 1 << SLOT_BITS];
    let mut from = 0;
    // Lines are `word<TAB>FLCP`; as at run time before, only lines ending in `\n` count.
    for (nl, _) in data.iter().enumerate().filter(|(_, c)| **c == b'\n') {
        let line = &data[from..nl];
        from = nl + 1;
        let n = line.len();
        if n < 6 || line[n - 5] != b'\t' {
            continue;
        }
        let (word, d) = (&line[..n - 5], &line[n - 4..]);
        if !d.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let packed = u64::from(d[0] - b'0')
            | u64::from(d[1] - b'0') << 4
            | u64::from(d[2] - b'0') << 8
            | u64::from(d[3] - b'0') << 12;
        let h = word_hash(word);
        let mut i = (h as usize) & MASK;
        loop {
            let s = slots[i];
            if s == 0 || s & FINGERPRINT == h & FINGERPRINT {
                slots[i] = (h & FINGERPRINT) | USED | packed | IN_GAZ;
                break;
            }
            i = (i + 1) & MASK;
        }
    }
    let bytes: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("gazetteer.bin"), bytes).expect("cannot write the packed table");
}
