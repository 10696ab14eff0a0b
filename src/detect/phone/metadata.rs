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

use std::sync::Mutex;

use regex_automata::dfa::{Automaton as _, sparse};
use regex_automata::util::primitives::StateID;
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
/// the state's byte ranges (some forty instructions a byte). Each transition on a digit is
/// looked up there once and kept in a [`DigitTable`]; later checks walk the table, a load a
/// digit. The table grows with the transitions checks take, so a pattern set most numbers
/// leave after three digits (a small region of a shared calling code) costs no more to
/// prepare than those three digits.
#[derive(Debug)]
pub(super) struct Automaton {
    dfa: sparse::DFA<&'static [u8]>,
    digits: Mutex<DigitTable>,
}

impl Clone for Automaton {
    fn clone(&self) -> Automaton {
        Automaton {
            dfa: self.dfa.clone(),
            digits: Mutex::default(),
        }
    }
}

/// A transition or state not looked up yet.
const UNKNOWN: u16 = u16::MAX;
/// The DFA's dead state (it matches nothing from there on).
const DEAD: u16 = u16::MAX - 1;

/// The transitions of an [`Automaton`] on the ten ASCII digits that checks have taken, over
/// the states they reached from the anchored start state (state 0), each looked up in the
/// sparse DFA with the calls [`Automaton::whole_matches_sparse`] makes.
#[derive(Debug, Default)]
struct DigitTable {
    /// Whether the start state is known (`sids[0]`) or an error (`failed`).
    started: bool,
    /// `start_state_forward` failed: no input matches.
    failed: bool,
    /// The table's index of each sparse state id (an offset into the DFA's bytes), or
    /// [`UNKNOWN`].
    index: Vec<u16>,
    /// The sparse state id of each state of the table.
    sids: Vec<StateID>,
    /// `next[10 * s + d]`: the state after state `s` reads digit `d`, [`DEAD`] or [`UNKNOWN`].
    next: Vec<u16>,
    /// Per state, the range of `patterns` that match when the input ends there, once known.
    ends: Vec<Option<(u32, u32)>>,
    patterns: Vec<u32>,
}

/// Most states a table holds; a DFA with more is walked sparse past them.
const MAX_STATES: usize = 60_000;

impl DigitTable {
    /// Looks up the start state: the same for every input, as it depends only on the input
    /// starting at 0 and being anchored. `false` when it is an error.
    fn start(&mut self, dfa: &sparse::DFA<&'static [u8]>) -> bool {
        if !self.started {
            self.started = true;
            match dfa.start_state_forward(&Input::new("").anchored(Anchored::Yes)) {
                Ok(sid) => {
                    // State ids are offsets into the DFA's bytes, which its memory usage counts.
                    self.index = vec![UNKNOWN; dfa.memory_usage() + 1];
                    self.failed = self.add(sid).is_none();
                }
                Err(_) => self.failed = true,
            }
        }
        !self.failed
    }

    /// The table's index of the sparse state `sid`, added if new; `None` when it does not
    /// fit (the caller then walks the sparse DFA).
    fn add(&mut self, sid: StateID) -> Option<u16> {
        let known = *self.index.get(sid.as_usize())?;
        if known != UNKNOWN {
            return Some(known);
        }
        if self.sids.len() >= MAX_STATES {
            return None;
        }
        let k = self.sids.len() as u16;
        self.sids.push(sid);
        self.next.extend([UNKNOWN; 10]);
        self.ends.push(None);
        *self.index.get_mut(sid.as_usize())? = k;
        Some(k)
    }

    /// The state after state `s` reads `digit` (an ASCII digit): [`DEAD`], a state, or `None`
    /// when the table is full.
    fn step(&mut self, dfa: &sparse::DFA<&'static [u8]>, s: usize, digit: u8) -> Option<u16> {
        let slot = 10 * s + usize::from(digit - b'0');
        let known = *self.next.get(slot)?;
        if known != UNKNOWN {
            return Some(known);
        }
        let to = dfa.next_state(*self.sids.get(s)?, digit);
        let to = if dfa.is_dead_state(to) {
            DEAD
        } else {
            self.add(to)?
        };
        *self.next.get_mut(slot)? = to;
        Some(to)
    }

    /// The patterns that match when the input ends in state `s`.
    fn ends(&mut self, dfa: &sparse::DFA<&'static [u8]>, s: usize) -> &[u32] {
        let (from, to) = match self.ends.get(s).copied().flatten() {
            Some(range) => range,
            None => {
                let from = self.patterns.len() as u32;
                if let Some(&sid) = self.sids.get(s) {
                    let eoi = dfa.next_eoi_state(sid);
                    if dfa.is_match_state(eoi) {
                        for k in 0..dfa.match_len(eoi) {
                            self.patterns.push(dfa.match_pattern(eoi, k).as_u32());
                        }
                    }
                }
                let range = (from, self.patterns.len() as u32);
                if let Some(slot) = self.ends.get_mut(s) {
                    *slot = Some(range);
                }
                range
            }
        };
        self.patterns
            .get(from as usize..to as usize)
            .unwrap_or_default()
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
                digits: Mutex::default(),
            })
    }

    /// Whether some pattern matches all of `input`.
    pub(super) fn is_match(&self, input: &str) -> bool {
        self.whole_matches(input, |_| true)
    }

    /// Whether a pattern `i` for which `accept(i)` holds matches all of `input`: through the
    /// [`DigitTable`] for a digit string, else [`Automaton::whole_matches_sparse`].
    pub(super) fn whole_matches(&self, input: &str, mut accept: impl FnMut(usize) -> bool) -> bool {
        let bytes = input.as_bytes();
        if !bytes.iter().all(u8::is_ascii_digit) {
            return self.whole_matches_sparse(input, accept);
        }
        // Nothing below panics while the lock is held, bar `accept`; a table a panic left
        // behind holds only finished entries, so it is taken as it is.
        let mut table = self
            .digits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !table.start(&self.dfa) {
            return false;
        }
        let mut state = 0usize;
        for &b in bytes {
            match table.step(&self.dfa, state, b) {
                Some(DEAD) => return false,
                Some(to) => state = usize::from(to),
                None => {
                    drop(table);
                    return self.whole_matches_sparse(input, accept);
                }
            }
        }
        table
            .ends(&self.dfa, state)
            .iter()
            .any(|&p| accept(p as usize))
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
