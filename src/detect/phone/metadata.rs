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
//! sparse DFAs ([`Automaton`]): what the recognizer runs to check a number, so no metadata
//! regex is parsed or compiled at start or on a first input.

use std::sync::OnceLock;

use regex_automata::dfa::{Automaton as _, sparse};
use regex_automata::{Anchored, Input};

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
    /// The byte range in [`DFAS`] of the DFA of `types` (pattern `i` is `types[i]`, anchored).
    pub(super) validity_dfa: (u32, u32),
    /// The byte range in [`DFAS`] of the DFA of the national-form shape
    /// (`patterns::shape`).
    pub(super) shape_dfa: (u32, u32),
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

/// Every entry's automata, serialized little-endian (a sparse DFA needs no alignment).
static DFAS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/phone_dfa.bin"));

/// A compiled set of anchored digit patterns: it says which of them match a whole input.
///
/// The inputs are digit strings, and a sparse DFA finds each transition by a search through
/// the state's byte ranges (some thirty instructions a byte). The first check builds a table
/// of the states the start state reaches on digits, ten entries each ([`DigitTable`]), from the
/// DFA's own transitions; every later check of a digit string walks the table, a load a digit.
#[derive(Debug)]
pub(super) struct Automaton {
    dfa: sparse::DFA<&'static [u8]>,
    /// Built on the first check: a pattern set that is never run costs nothing more.
    digits: OnceLock<Option<DigitTable>>,
}

impl Clone for Automaton {
    fn clone(&self) -> Automaton {
        Automaton {
            dfa: self.dfa.clone(),
            digits: OnceLock::new(),
        }
    }
}

/// No state: the DFA's dead state (it matches nothing from there on).
const DEAD: u16 = u16::MAX;

/// An [`Automaton`]'s transitions on the ten ASCII digits, over the states reachable from its
/// anchored start state on digits (state 0 is the start state).
#[derive(Debug)]
struct DigitTable {
    /// `next[10 * s + d]`: the state after state `s` reads digit `d`, or [`DEAD`].
    next: Vec<u16>,
    /// Per state, the range of `patterns` that match when the input ends there.
    ends: Vec<(u32, u32)>,
    patterns: Vec<u32>,
}

impl DigitTable {
    /// The table of `dfa`, built with the calls [`Automaton::whole_matches_sparse`] makes:
    /// `start_state_forward` (the same for every input: it depends only on the input starting
    /// at 0 and being anchored), `next_state` on digits, `is_dead_state`, `next_eoi_state` and
    /// its match patterns. `None` when the start state is an error (no input matches then) or
    /// the states do not fit the table; the sparse search is used then.
    fn build(dfa: &sparse::DFA<&'static [u8]>) -> Option<DigitTable> {
        let start = dfa
            .start_state_forward(&Input::new("").anchored(Anchored::Yes))
            .ok()?;
        // State ids are offsets into the DFA's bytes, which its memory usage counts.
        let mut index = vec![DEAD; dfa.memory_usage() + 1];
        let mut states = vec![start];
        *index.get_mut(start.as_usize())? = 0;
        let mut next = Vec::new();
        let mut i = 0;
        while let Some(&sid) = states.get(i) {
            for digit in b'0'..=b'9' {
                let to = dfa.next_state(sid, digit);
                if dfa.is_dead_state(to) {
                    next.push(DEAD);
                    continue;
                }
                let slot = index.get_mut(to.as_usize())?;
                if *slot == DEAD {
                    *slot = u16::try_from(states.len()).ok().filter(|&k| k != DEAD)?;
                    states.push(to);
                }
                next.push(*slot);
            }
            i += 1;
        }
        let mut ends = Vec::with_capacity(states.len());
        let mut patterns = Vec::new();
        for &sid in &states {
            let from = patterns.len() as u32;
            let eoi = dfa.next_eoi_state(sid);
            if dfa.is_match_state(eoi) {
                for k in 0..dfa.match_len(eoi) {
                    patterns.push(dfa.match_pattern(eoi, k).as_u32());
                }
            }
            ends.push((from, patterns.len() as u32));
        }
        Some(DigitTable {
            next,
            ends,
            patterns,
        })
    }
}

impl Automaton {
    /// The automaton at `range` of [`DFAS`]; `None` for an entry with no patterns (or bytes
    /// that do not validate, which the build rules out: nothing then matches).
    pub(super) fn load(range: (u32, u32)) -> Option<Automaton> {
        let (start, end) = (range.0 as usize, range.1 as usize);
        let bytes = DFAS.get(start..end).filter(|b| !b.is_empty())?;
        sparse::DFA::from_bytes(bytes)
            .ok()
            .map(|(dfa, _)| Automaton {
                dfa,
                digits: OnceLock::new(),
            })
    }

    /// Whether some pattern matches all of `input`.
    pub(super) fn is_match(&self, input: &str) -> bool {
        self.whole_matches(input, |_| true)
    }

    /// Whether a pattern `i` for which `accept(i)` holds matches all of `input`: through the
    /// [`DigitTable`] for a digit string, else [`Automaton::whole_matches_sparse`].
    pub(super) fn whole_matches(&self, input: &str, mut accept: impl FnMut(usize) -> bool) -> bool {
        let Some(table) = self.digits.get_or_init(|| DigitTable::build(&self.dfa)) else {
            return self.whole_matches_sparse(input, accept);
        };
        let mut state = 0usize;
        for &b in input.as_bytes() {
            let digit = b.wrapping_sub(b'0');
            if digit > 9 {
                return self.whole_matches_sparse(input, accept);
            }
            match table.next.get(10 * state + usize::from(digit)) {
                Some(&to) if to != DEAD => state = usize::from(to),
                _ => return false,
            }
        }
        let Some(&(from, to)) = table.ends.get(state) else {
            return false;
        };
        table
            .patterns
            .get(from as usize..to as usize)
            .is_some_and(|ps| ps.iter().any(|&p| accept(p as usize)))
    }

    /// [`Automaton::whole_matches`] by the sparse DFA itself, for any input.
    pub(super) fn whole_matches_sparse(
        &self,
        input: &str,
        mut accept: impl FnMut(usize) -> bool,
    ) -> bool {
        let dfa = &self.dfa;
        let Ok(mut sid) = dfa.start_state_forward(&Input::new(input).anchored(Anchored::Yes))
        else {
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
