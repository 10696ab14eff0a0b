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
#[derive(Clone, Debug)]
pub(super) struct Automaton(sparse::DFA<&'static [u8]>);

impl Automaton {
    /// The automaton at `range` of [`DFAS`]; `None` for an entry with no patterns (or bytes
    /// that do not validate, which the build rules out: nothing then matches).
    pub(super) fn load(range: (u32, u32)) -> Option<Automaton> {
        let (start, end) = (range.0 as usize, range.1 as usize);
        let bytes = DFAS.get(start..end).filter(|b| !b.is_empty())?;
        sparse::DFA::from_bytes(bytes)
            .ok()
            .map(|(dfa, _)| Automaton(dfa))
    }

    /// Whether some pattern matches all of `input`.
    pub(super) fn is_match(&self, input: &str) -> bool {
        self.whole_matches(input, |_| true)
    }

    /// Whether a pattern `i` for which `accept(i)` holds matches all of `input`.
    pub(super) fn whole_matches(&self, input: &str, mut accept: impl FnMut(usize) -> bool) -> bool {
        let dfa = &self.0;
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
