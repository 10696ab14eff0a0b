//! libphonenumber's metadata as plain statics, written by `build.rs` from the `phonenumber`
//! crate's database at compile time.
//!
//! The crate's own database compiles every pattern of every region when first touched (~3,000
//! regexes, a tenth of a second), and its parser compiles lazily into a small cache behind a
//! global mutex. The recognizer compiles its own anchored regexes instead (see the parent
//! module), only for the configured regions at start and for each other calling code the first
//! time a number in international form names it; for that it needs only these strings.
//!
//! The number-type patterns and national-form shapes are compiled by `build.rs` too, into
//! sparse DFAs, and those into tables of their transitions on digits ([`Automaton`]): what the
//! recognizer runs to check a number, so no metadata regex is parsed or compiled, and no table
//! built, at start or on a first input.

#[cfg(test)]
use regex_automata::dfa::sparse;

/// One region's entry (or, under id `001`, one non-geographic calling code's).
#[derive(Debug)]
pub(super) struct MetaEntry {
    /// ISO 3166 alpha-2 region id, or `001`.
    pub(super) id: &'static str,
    /// The country calling code.
    pub(super) code: u16,
    /// The subscriber number types the region defines (fixed line, mobile, toll free ...).
    pub(super) types: &'static [NumberType],
    /// The possible lengths of any number of the region.
    pub(super) general_lengths: &'static [u16],
    /// The national prefix (`0`), if the region has one.
    pub(super) national_prefix: Option<&'static str>,
    /// The pattern that strips the national prefix (and carrier codes) for parsing.
    pub(super) prefix_for_parsing: Option<&'static str>,
    /// How the digits captured by `prefix_for_parsing` are rewritten (`$1...`).
    pub(super) transform: Option<&'static str>,
    /// The national formats, in metadata order.
    pub(super) formats: &'static [FormatEntry],
    /// The byte range in `DFAS` of the DFA of `types` (pattern `i` is `types[i]`, anchored);
    /// read by the tests only.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) validity_dfa: (u32, u32),
    /// The byte range in `DFAS` of the DFA of the national-form shape (`patterns::shape`).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) shape_dfa: (u32, u32),
    /// The byte range in [`TABLES`] of the digit table of `validity_dfa`.
    pub(super) validity_digits: (u32, u32),
    /// The byte range in [`TABLES`] of the digit table of `shape_dfa`.
    pub(super) shape_digits: (u32, u32),
}

/// One number type: its national-number pattern and possible lengths.
#[derive(Debug)]
pub(super) struct NumberType {
    /// The national-number pattern, unanchored (compiled into `MetaEntry::validity_dfa`;
    /// read by the tests' oracle).
    #[cfg_attr(not(test), allow(dead_code))]
    pub(super) pattern: &'static str,
    /// The type's possible lengths (empty: the region's general lengths apply).
    pub(super) lengths: &'static [u16],
}

/// One national format.
#[derive(Debug)]
pub(super) struct FormatEntry {
    /// The last leading-digits pattern, if the format has any.
    pub(super) leading: Option<&'static str>,
    /// The pattern the whole national number matches.
    pub(super) pattern: &'static str,
    /// Whether numbers of this format are written with the national prefix (`030 1234567`).
    pub(super) needs_prefix: bool,
}

include!(concat!(env!("OUT_DIR"), "/phone_metadata.rs"));

/// Every entry's automata, serialized little-endian (a sparse DFA needs no alignment): the
/// source of the digit tables, kept for the tests that check the tables against them.
#[cfg(test)]
static DFAS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/phone_dfa.bin"));

/// Every entry's digit tables ([`Automaton`]), written by `build.rs` from those automata.
static TABLES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/phone_digits.bin"));

/// The table's mark for a transition into the dead state (`build.rs` writes the same value).
const DEAD: u16 = u16::MAX;

/// A compiled set of anchored digit patterns: it says which of them match a whole input.
///
/// The patterns match ASCII digits only (the test `digit_tables_match_what_the_sparse_dfas_match`
/// checks it on every automaton), so `build.rs` walks each sparse DFA on the ten digits from its
/// anchored start and writes every state the digits reach as a row of ten next states: a check
/// is a two-byte load per digit, with no lock, nothing deserialized and nothing built on a
/// first input (a sparse DFA finds each transition by a search through the state's byte
/// ranges, some forty instructions a byte, and validating one on load cost a first input about
/// 4.4 M instructions). The tables of all 508 automata take 0.58 MB (the sparse DFAs took 0.92 MB).
///
/// A table is `n` (little-endian `u16`, the number of states; state 0 is the start), then per
/// state ten `u16` next states ([`DEAD`] for the dead state), then per state the `u16` end of its
/// run of patterns, then the runs: one byte a pattern, those that match when the input ends in
/// that state.
#[derive(Debug, Clone, Copy)]
pub(super) struct Automaton {
    table: &'static [u8],
    states: usize,
}

/// The little-endian `u16` at `at` of `table` (zero past its end, which a table from
/// `build.rs` never reaches).
fn u16_at(table: &[u8], at: usize) -> u16 {
    table
        .get(at..at + 2)
        .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]))
}

impl Automaton {
    /// The automaton whose digit table is at `range` of [`TABLES`]; `None` for an entry with
    /// no patterns.
    pub(super) fn load(range: (u32, u32)) -> Option<Automaton> {
        let table = TABLES
            .get(range.0 as usize..range.1 as usize)
            .filter(|t| t.len() >= 2)?;
        Some(Automaton {
            table,
            states: usize::from(u16_at(table, 0)),
        })
    }

    /// Whether some pattern matches all of `input`.
    pub(super) fn is_match(&self, input: &str) -> bool {
        self.whole_matches(input, |_| true)
    }

    /// Whether a pattern `i` for which `accept(i)` holds matches all of `input`.
    pub(super) fn whole_matches(&self, input: &str, mut accept: impl FnMut(usize) -> bool) -> bool {
        let mut state = 0usize;
        for &b in input.as_bytes() {
            let digit = usize::from(b.wrapping_sub(b'0'));
            if digit > 9 {
                return false;
            }
            match u16_at(self.table, 2 + 2 * (10 * state + digit)) {
                DEAD => return false,
                to => state = usize::from(to),
            }
        }
        let ends = 2 + 20 * self.states;
        let from = match state {
            0 => 0,
            s => usize::from(u16_at(self.table, ends + 2 * (s - 1))),
        };
        let to = usize::from(u16_at(self.table, ends + 2 * state));
        let runs = ends + 2 * self.states;
        self.table
            .get(runs + from..runs + to)
            .unwrap_or_default()
            .iter()
            .any(|&p| accept(usize::from(p)))
    }
}

/// The sparse DFA at `range` of [`DFAS`], which the digit tables were written from.
#[cfg(test)]
pub(super) fn sparse_dfa(range: (u32, u32)) -> Option<sparse::DFA<&'static [u8]>> {
    let bytes = DFAS
        .get(range.0 as usize..range.1 as usize)
        .filter(|b| !b.is_empty())?;
    sparse::DFA::from_bytes(bytes).ok().map(|(dfa, _)| dfa)
}

/// Whether a pattern `i` of `dfa` for which `accept(i)` holds matches all of `input`, by the
/// sparse DFA itself: the oracle of [`Automaton::whole_matches`].
#[cfg(test)]
pub(super) fn whole_matches_sparse(
    dfa: &sparse::DFA<&'static [u8]>,
    input: &str,
    mut accept: impl FnMut(usize) -> bool,
) -> bool {
    use regex_automata::dfa::Automaton as _;
    use regex_automata::{Anchored, Input};
    let Ok(mut sid) = dfa.start_state_forward(&Input::new(input).anchored(Anchored::Yes)) else {
        return false;
    };
    for &b in input.as_bytes() {
        sid = dfa.next_state(sid, b);
        if dfa.is_dead_state(sid) {
            return false;
        }
    }
    // Matches are reported one transition late: the end of input settles them.
    sid = dfa.next_eoi_state(sid);
    dfa.is_match_state(sid)
        && (0..dfa.match_len(sid)).any(|i| accept(dfa.match_pattern(sid, i).as_usize()))
}

/// The entries of calling code `code`, sorted by region id.
pub(super) fn by_code(code: u16) -> &'static [MetaEntry] {
    let start = ENTRIES.partition_point(|e| e.code < code);
    let end = ENTRIES.partition_point(|e| e.code <= code);
    &ENTRIES[start..end]
}

/// The entry of region `id` (upper case), if libphonenumber knows the region.
pub(super) fn by_region(id: &str) -> Option<&'static MetaEntry> {
    ENTRIES.iter().find(|e| e.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_sorted_by_code_and_hold_the_regions() {
        assert!(
            ENTRIES
                .windows(2)
                .all(|w| (w[0].code, w[0].id) <= (w[1].code, w[1].id))
        );
        assert!(ENTRIES.len() > 200);
        let us = by_region("US").expect("US is in the metadata");
        assert_eq!(us.code, 1);
        assert_eq!(us.national_prefix, Some("1"));
        assert!(by_code(1).iter().any(|e| e.id == "CA"));
        assert!(by_code(44).iter().any(|e| e.id == "GB"));
        assert!(by_code(999).is_empty());
        // Non-geographic codes share the id `001`; each keeps its own entry.
        assert!(by_code(800).iter().any(|e| e.id == "001"));
        assert!(by_code(882).iter().any(|e| e.id == "001"));
        assert!(by_region("XX").is_none());
    }
}
