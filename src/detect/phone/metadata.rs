//! libphonenumber's metadata as plain statics, written by `build.rs` from the `phonenumber`
//! crate's database at compile time.
//!
//! The crate's own database compiles every pattern of every region when first touched (~3,000
//! regexes, a tenth of a second), and its parser compiles lazily into a small cache behind a
//! global mutex. The recognizer compiles its own anchored regexes instead (see the parent
//! module), only for the configured regions at start and for each other calling code the first
//! time a number in international form names it; for that it needs only these strings.

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
}

/// One number type: its national-number pattern and possible lengths.
#[derive(Debug)]
pub(super) struct NumberType {
    /// The national-number pattern, unanchored.
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
