//! Two tables are prepared at compile time, so that no process spends start-up time on them:
//!
//! - `data/names/gazetteer.tsv` and the word lists of `src/detect/names/lexicon.rs` are packed
//!   into the word table that `src/detect/names/gazetteer.rs` reads with `include_bytes!`, with
//!   the casual stage's filter of name words beside it (no hashing of 150,000 lines, and no
//!   2 MiB copy at start: the table is the binary's own read-only pages, shared by every
//!   process that runs it);
//! - the `phonenumber` crate's libphonenumber metadata is written out as Rust statics
//!   (`phone_metadata.rs`, included by `src/detect/phone/metadata.rs`): the patterns, lengths
//!   and national-prefix rules the phone recognizer compiles. Loading the crate's database at
//!   run time compiles every one of its ~3,000 regexes (0.6 G instructions, ~0.1 s), and the
//!   recognizer needs only a few of them at start;
//! - each entry's number-type patterns and national-form shape are compiled into sparse DFAs
//!   (`phone_dfa.bin`, read with `include_bytes!`): the recognizer deserializes an entry's
//!   automata the first time it needs them (a validation pass over a few kilobytes) and never
//!   parses or compiles a metadata regex on the hot path or at start (parsing a calling code's
//!   patterns took milliseconds: +1 alone, 25 regions, about 5 ms).
//!
//! The table is 2^18 little-endian `u64` slots of open addressing with linear probing; each
//! used slot holds a word's four scores, an in-gazetteer bit, a used bit and the top 36 bits
//! of the word's hash (the layout is documented in `gazetteer.rs`, whose test
//! `packed_table_matches_the_tsv` rebuilds the table and the filter at run time and compares).
//! The lexicon's lists stay in Rust: this script compiles `lexicon.rs` as a module of its own.

use std::path::PathBuf;

use regex_automata::dfa::{StartKind, dense, sparse};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input};

#[allow(dead_code)]
#[path = "src/detect/phone/patterns.rs"]
mod patterns;

#[allow(dead_code)]
#[path = "src/detect/names/lexicon.rs"]
mod lexicon;

const SLOT_BITS: u32 = 18;
const MASK: usize = (1 << SLOT_BITS) - 1;
const IN_GAZ: u64 = 1 << 26;
const USED: u64 = 1 << 27;
const FINGERPRINT: u64 = !((1 << 28) - 1);
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;
/// Bits 0..16 of a slot: the word's four scores; the lexicon flags from bit 16.
const FLAG_SHIFT: u32 = 16;
/// log2 of the bits of the casual stage's filter (`Gazetteer::may_be_casual_name`).
const CASUAL_FILTER_BITS: u32 = 20;

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
    pack_gazetteer();
    write_phone_metadata();
}

fn pack_gazetteer() {
    let src = "data/names/gazetteer.tsv";
    println!("cargo::rerun-if-changed={src}");
    println!("cargo::rerun-if-changed=src/detect/names/lexicon.rs");
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
        insert(&mut slots, word_hash(word), |_| packed | IN_GAZ);
    }
    // Then each list's flag, list by list, word by word: a word on no list of the gazetteer's
    // takes a slot of its own (flags only), as at run time before.
    for (flag, list) in lexicon::LISTS {
        let flag = u64::from(*flag) << FLAG_SHIFT;
        for w in *list {
            insert(&mut slots, word_hash(w.as_bytes()), |old| old | flag);
        }
    }
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let bytes: Vec<u8> = slots.iter().flat_map(|s| s.to_le_bytes()).collect();
    std::fs::write(out.join("gazetteer.bin"), bytes).expect("cannot write the packed table");
    let filter: Vec<u8> = casual_filter(&slots)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    std::fs::write(out.join("casual_names.bin"), filter).expect("cannot write the casual filter");
}

/// Sets the slot of the word with hash `h` to `f(its old value)` (0 for a new word), keeping
/// the fingerprint and the used bit, as `Gazetteer::insert` did at run time.
fn insert(slots: &mut [u64], h: u64, f: impl Fn(u64) -> u64) {
    let mut i = (h as usize) & MASK;
    loop {
        let s = slots[i];
        if s == 0 {
            slots[i] = (h & FINGERPRINT) | USED | f(0);
            return;
        }
        if s & FINGERPRINT == h & FINGERPRINT {
            slots[i] = (h & FINGERPRINT) | USED | f(s & !FINGERPRINT & !USED);
            return;
        }
        i = (i + 1) & MASK;
    }
}

/// The casual stage's filter: bit `fingerprint >> (64 - CASUAL_FILTER_BITS)` for every word of
/// the gazetteer that `casual::may_be_name_word` accepts (a name score of 3 or more, not among
/// the thousand commonest English words, no well-known place). The test
/// `packed_table_matches_the_tsv` compares it with `Gazetteer::entry_filter` of that function.
fn casual_filter(slots: &[u64]) -> Vec<u64> {
    let mut set = vec![0u64; 1 << (CASUAL_FILTER_BITS - 6)];
    for &s in slots {
        let score = |shift: u32| (s >> shift) & 0xf;
        let (first, last, common, place) = (score(0), score(4), score(8), score(12));
        if s & IN_GAZ != 0 && first.max(last) >= 3 && common != 1 && place < 3 {
            let k = (s >> (64 - CASUAL_FILTER_BITS)) as usize;
            set[k >> 6] |= 1 << (k & 63);
        }
    }
    set
}

/// The metadata pattern without the whitespace of its extended syntax (no pattern holds a
/// literal space).
fn plain(pattern: &str) -> String {
    pattern.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Writes every metadata entry (sorted by calling code, then region id) as a `MetaEntry`
/// literal; the types are declared in `src/detect/phone/metadata.rs`.
fn write_phone_metadata() {
    use std::fmt::Write;
    let db = &*phonenumber::metadata::DATABASE;
    // By code, not `iter()` (by id): the non-geographic entities (+800, +870, +882 ...) share
    // the id `001`.
    let mut metas: Vec<&phonenumber::Metadata> = (1..1000u16)
        .filter_map(|code| db.by_code(&code))
        .flatten()
        .collect();
    metas.sort_by(|a, b| (a.country_code(), a.id()).cmp(&(b.country_code(), b.id())));
    let mut out = String::from(
        "/// libphonenumber metadata, by calling code and region id (generated by build.rs).\n",
    );
    writeln!(out, "pub(super) static ENTRIES: &[MetaEntry] = &[").unwrap();
    let (mut dfas, mut tables) = (Vec::new(), Vec::new());
    for m in metas {
        let d = m.descriptors();
        let types = [
            d.fixed_line(),
            d.mobile(),
            d.toll_free(),
            d.premium_rate(),
            d.shared_cost(),
            d.personal_number(),
            d.voip(),
            d.pager(),
            d.uan(),
            d.voicemail(),
        ];
        let patterns: Vec<String> = types
            .iter()
            .flatten()
            .map(|t| plain(t.national_number().as_str()))
            .collect();
        let anchored: Vec<String> = patterns.iter().map(|p| patterns::anchored(p)).collect();
        let (validity, validity_digits) = append_dfa(&mut dfas, &mut tables, &anchored);
        let prefix = patterns::prefix_source(
            m.national_prefix_for_parsing()
                .map(|r| plain(r.as_str()))
                .as_deref(),
            m.national_prefix(),
        )
        .filter(|p| regex_syntax_ok(&format!("^(?:{p})")));
        let shape = patterns::shape(
            prefix.as_deref(),
            patterns.iter().map(String::as_str),
            m.national_prefix_transform_rule().is_some(),
        );
        let (shape, shape_digits) = append_dfa(&mut dfas, &mut tables, &[shape]);
        let mut types_src = String::new();
        for t in types.into_iter().flatten() {
            write!(
                types_src,
                "NumberType {{ pattern: {:?}, lengths: &{:?} }}, ",
                plain(t.national_number().as_str()),
                t.possible_length()
            )
            .unwrap();
        }
        let mut formats_src = String::new();
        for f in m.formats() {
            write!(
                formats_src,
                "FormatEntry {{ leading: {:?}, pattern: {:?}, needs_prefix: {} }}, ",
                f.leading_digits().last().map(|r| plain(r.as_str())),
                plain(f.pattern().as_str()),
                f.national_prefix().is_some_and(|rule| rule.contains("$NP"))
                    && !f.is_national_prefix_optional()
            )
            .unwrap();
        }
        writeln!(
            out,
            "    MetaEntry {{ id: {:?}, code: {}, types: &[{types_src}], general_lengths: &{:?}, \
             national_prefix: {:?}, prefix_for_parsing: {:?}, transform: {:?}, formats: &[{formats_src}], \
             validity_dfa: {validity:?}, shape_dfa: {shape:?}, validity_digits: {validity_digits:?}, \
             shape_digits: {shape_digits:?} }},",
            m.id(),
            m.country_code(),
            d.general().possible_length(),
            m.national_prefix(),
            m.national_prefix_for_parsing().map(|r| plain(r.as_str())),
            m.national_prefix_transform_rule(),
        )
        .unwrap();
    }
    writeln!(out, "];").unwrap();
    let path = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(path.join("phone_metadata.rs"), out).expect("cannot write the phone metadata");
    std::fs::write(path.join("phone_dfa.bin"), dfas).expect("cannot write the phone automata");
    std::fs::write(path.join("phone_digits.bin"), tables)
        .expect("cannot write the phone digit tables");
}

/// Whether `pattern` parses (the recognizer drops a prefix rule that does not).
fn regex_syntax_ok(pattern: &str) -> bool {
    regex_automata::util::syntax::parse(pattern).is_ok()
}

/// Compiles `patterns` (anchored, digits only) into one sparse DFA that reports every pattern
/// matching at the end of the input, appends it to `blob` and its digit table
/// ([`append_digit_table`]) to `tables`, and returns the two byte ranges; `(0, 0)` for no
/// patterns. A pattern that does not compile fails the build: the metadata is fixed at compile
/// time, so this is caught here or never.
fn append_dfa(
    blob: &mut Vec<u8>,
    tables: &mut Vec<u8>,
    patterns: &[String],
) -> ((u32, u32), (u32, u32)) {
    if patterns.is_empty() {
        return ((0, 0), (0, 0));
    }
    let dfa = dense::Builder::new()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .thompson(thompson::Config::new().which_captures(thompson::WhichCaptures::None))
        .configure(
            dense::Config::new()
                .match_kind(regex_automata::MatchKind::All)
                .start_kind(StartKind::Anchored)
                .minimize(true),
        )
        .build_many(patterns)
        .expect("libphonenumber patterns compile into a DFA")
        .to_sparse()
        .expect("a sparse DFA");
    let bytes = dfa.to_bytes_little_endian();
    let range = |blob: &Vec<u8>, start: usize| {
        let at = |n: usize| u32::try_from(n).expect("automata fit in 4 GiB");
        (at(start), at(blob.len()))
    };
    let start = blob.len();
    blob.extend_from_slice(&bytes);
    let start_table = tables.len();
    append_digit_table(tables, &dfa);
    (range(blob, start), range(tables, start_table))
}

/// The table's mark for a transition into the dead state (`metadata.rs` reads the same value).
const DEAD: u16 = u16::MAX;

/// Appends the transitions of `dfa` on the ten ASCII digits, over every state digits reach from
/// the anchored start, as the table `src/detect/phone/metadata.rs` walks (its `DigitTable`
/// documents the layout): state 0 is the start; per state ten little-endian `u16` next states
/// ([`DEAD`] for the dead state), then per state the end of its run of matching patterns, then
/// those runs (one byte a pattern: the patterns that match when the input ends in that state,
/// in the DFA's order).
fn append_digit_table(tables: &mut Vec<u8>, dfa: &sparse::DFA<Vec<u8>>) {
    use regex_automata::dfa::Automaton as _;
    use std::collections::HashMap;
    let start = dfa
        .start_state_forward(&Input::new("").anchored(Anchored::Yes))
        .expect("an anchored start state");
    let mut ids = HashMap::from([(start, 0u16)]);
    let mut states = vec![start];
    let mut next = Vec::new();
    let mut i = 0;
    while let Some(&sid) = states.get(i) {
        for d in b'0'..=b'9' {
            let to = dfa.next_state(sid, d);
            let k = if dfa.is_dead_state(to) {
                DEAD
            } else {
                *ids.entry(to).or_insert_with(|| {
                    states.push(to);
                    u16::try_from(states.len() - 1)
                        .ok()
                        .filter(|&k| k != DEAD)
                        .expect("a phone automaton has fewer than 65,535 digit states")
                })
            };
            next.push(k);
        }
        i += 1;
    }
    let mut ends = Vec::with_capacity(states.len());
    let mut patterns = Vec::new();
    for &sid in &states {
        let eoi = dfa.next_eoi_state(sid);
        if dfa.is_match_state(eoi) {
            for k in 0..dfa.match_len(eoi) {
                let p = dfa.match_pattern(eoi, k).as_usize();
                patterns.push(u8::try_from(p).expect("fewer than 256 patterns an automaton"));
            }
        }
        ends.push(u16::try_from(patterns.len()).expect("fewer than 65,536 pattern ends"));
    }
    let n = u16::try_from(states.len()).expect("fewer than 65,535 states");
    tables.extend_from_slice(&n.to_le_bytes());
    tables.extend(next.iter().flat_map(|k| k.to_le_bytes()));
    tables.extend(ends.iter().flat_map(|e| e.to_le_bytes()));
    tables.extend_from_slice(&patterns);
}
