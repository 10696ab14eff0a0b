//! The name gazetteer: how common a word is as a given name, a surname and an English word.
//!
//! The table is `data/names/gazetteer.tsv` (built by `tools/build_gazetteer.py` from public-domain
//! SSA/Census name lists, Faker's MIT locale lists and the SCOWL word lists; provenance in
//! `data/names/README.md`), compiled into the binary with `include_str!`. It is parsed once per
//! process into a hash map whose keys borrow from the embedded text, so start-up allocates one
//! table and no strings, and every [`crate::detect::Detector`] shares it.
//!
//! Lookups fold case: ASCII words through a stack buffer (no allocation), other scripts through
//! `str::to_lowercase`.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

static DATA: &str = include_str!("../../../data/names/gazetteer.tsv");

/// What the gazetteer knows of one lower-cased word. Scores are 0 (not at all) to 9 (very).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    /// How common the word is as a given name.
    pub(crate) first: u8,
    /// How common the word is as a surname.
    pub(crate) last: u8,
    /// How common the word is in lower-case English: 1 (the thousand most common) to 9 (rare);
    /// 0 when it is not an English word.
    pub(crate) common: u8,
    /// How well known the word is as a place: 3 country, capital or US state, 2 large city,
    /// 1 city; 0 when it is not a place name.
    pub(crate) place: u8,
}

impl Entry {
    /// The stronger of the two name scores.
    pub(crate) fn name(self) -> u8 {
        self.first.max(self.last)
    }

    /// How strongly the word reads as an ordinary English word: 7 for the most common words,
    /// 1 for rare ones, 0 for none.
    pub(crate) fn wordiness(self) -> u8 {
        // SCOWL sizes 10, 20, 35, 40, 50, 55, 60, 70, 80: size 35 and up already hold many
        // words few people use ("peter", "june"), so wordiness falls off quickly.
        const BY_TIER: [u8; 10] = [0, 7, 6, 4, 3, 2, 1, 1, 1, 1];
        BY_TIER[usize::from(self.common.min(9))]
    }
}

/// A small, fast, non-cryptographic hasher (the Fx hash used by rustc); keys are public words.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([
                c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7],
            ]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(buf));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn finish(&self) -> u64 {
        // The multiply leaves the low bits weak, and hashbrown picks buckets with them: mix the
        // high bits down.
        let h = self.0 ^ (self.0 >> 29);
        h.wrapping_mul(0xbf58_476d_1ce4_e5b9) ^ (h >> 32)
    }
}

type Table = HashMap<&'static str, Entry, BuildHasherDefault<FxHasher>>;

/// A two-probe bit filter over word hashes: "certainly not in the set" for most words, from
/// one cache line of a table small enough to stay in cache.
pub(crate) struct Filter {
    bits: Vec<u64>,
}

const FILTER_BITS: u32 = 21;

impl Filter {
    pub(crate) fn new() -> Filter {
        Filter {
            bits: vec![0; 1 << (FILTER_BITS - 6)],
        }
    }

    fn probes(h: u64) -> [usize; 2] {
        [
            (h >> (64 - FILTER_BITS)) as usize,
            ((h >> 8) & ((1 << FILTER_BITS) - 1)) as usize,
        ]
    }

    pub(crate) fn insert(&mut self, h: u64) {
        for p in Self::probes(h) {
            self.bits[p >> 6] |= 1 << (p & 63);
        }
    }

    pub(crate) fn may_have(&self, h: u64) -> bool {
        Self::probes(h)
            .iter()
            .all(|p| self.bits[p >> 6] & (1 << (p & 63)) != 0)
    }
}

impl std::fmt::Debug for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Filter")
    }
}

pub(crate) fn word_hash(lower: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(lower);
    h.finish()
}

/// The shared, parsed gazetteer.
#[derive(Debug)]
pub(crate) struct Gazetteer {
    table: Table,
    /// Words that are given names or surnames.
    names: Filter,
    /// Every word in the table.
    any: Filter,
}

/// What a lookup reports for a word that is in the table but is no name: only its being a word
/// matters to the finder then, not how common it is.
const PLAIN_WORD: Entry = Entry {
    first: 0,
    last: 0,
    common: 1,
    place: 0,
};

static SHARED: OnceLock<Gazetteer> = OnceLock::new();

impl Gazetteer {
    /// The process-wide gazetteer, parsed on first use.
    pub(crate) fn get() -> &'static Gazetteer {
        SHARED.get_or_init(Gazetteer::parse)
    }

    fn parse() -> Gazetteer {
        let mut table = Table::with_capacity_and_hasher(150_000, Default::default());
        let bytes = DATA.as_bytes();
        let mut from = 0;
        // Lines are `word<TAB>FLCP`: the last five bytes of a line are fixed, so no search.
        for nl in memchr::memchr_iter(b'\n', bytes) {
            let line = &DATA[from..nl];
            from = nl + 1;
            let n = line.len();
            if n < 6 || line.as_bytes()[n - 5] != b'\t' {
                continue;
            }
            let (word, d) = (&line[..n - 5], &line.as_bytes()[n - 4..]);
            if !d.iter().all(u8::is_ascii_digit) {
                continue;
            }
            table.insert(
                word,
                Entry {
                    first: d[0] - b'0',
                    last: d[1] - b'0',
                    common: d[2] - b'0',
                    place: d[3] - b'0',
                },
            );
        }
        let mut names = Filter::new();
        let mut any = Filter::new();
        for (word, e) in &table {
            let h = word_hash(word.as_bytes());
            any.insert(h);
            if e.name() > 0 {
                names.insert(h);
            }
        }
        Gazetteer { table, names, any }
    }

    /// Number of words in the table.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    /// The entry for `word` in any case, if the gazetteer has it.
    pub(crate) fn lookup(&self, word: &str) -> Option<Entry> {
        let b = word.as_bytes();
        if b.len() <= 32 && b.is_ascii() {
            let mut buf = [0u8; 32];
            for (d, s) in buf.iter_mut().zip(b) {
                *d = s.to_ascii_lowercase();
            }
            let lower = &buf[..b.len()];
            let h = word_hash(lower);
            if !self.names.may_have(h) {
                return self.any.may_have(h).then_some(PLAIN_WORD);
            }
            let lower = std::str::from_utf8(lower).ok()?;
            return self
                .table
                .get(lower)
                .copied()
                .filter(|e| e.name() > 0)
                .or_else(|| {
                    // A word that only shares a filter bit with a name.
                    self.any.may_have(h).then_some(PLAIN_WORD)
                });
        }
        if b.len() > 96 {
            return None;
        }
        if word.chars().any(char::is_uppercase) {
            self.table.get(word.to_lowercase().as_str()).copied()
        } else {
            self.table.get(word).copied()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knows_names_and_words() {
        let g = Gazetteer::get();
        assert!(g.len() > 100_000);
        let maria = g.lookup("Maria").unwrap();
        assert!(maria.first >= 5);
        let smith = g.lookup("SMITH").unwrap();
        assert!(smith.last >= 8);
        let will = g.lookup("will").unwrap();
        assert!(will.first > 0 && will.wordiness() >= 6);
        assert!(g.lookup("yesterday").unwrap().name() == 0);
        assert!(g.lookup("Yesterday").unwrap().wordiness() > 0);
        assert!(g.lookup("Иван").unwrap().first > 0);
        assert!(g.lookup("李").unwrap().last > 0);
        assert!(g.lookup("zzqxw").is_none());
    }
}
