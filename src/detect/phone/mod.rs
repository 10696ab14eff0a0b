//! Phone numbers, confirmed against libphonenumber metadata.
//!
//! Two stages, so that text full of digits (logs, code) stays cheap:
//!
//! 1. **Scan** ([`scan`]): a SWAR skip to the next ASCII digit, then one pass over a run of
//!    digits and phone separators (space or a no-break, narrow, thin or figure space, `-`, `.`,
//!    `/`, parentheses; at most three separators between groups) that counts digits as it goes. Runs with fewer than 7 or more than
//!    17 digits are dropped right there, as are runs glued to letters (hex, UUIDs, identifiers),
//!    dates (`2024-01-15`, `15.01.2024`), IPv4-shaped and decimal numbers, times (`10:30`),
//!    prices (`$`, `€`, `£`) and numbers named by a preceding `order`, `invoice`, `ISBN` ...
//! 2. **Confirm** the few survivors with the metadata of the `phonenumber` crate (written out at
//!    compile time, [`metadata`]), compiled into our own anchored [`RegexSet`]s once: the
//!    configured regions' when the detector is built, each other calling code's the first time
//!    a number names it (the crate's own parser compiles regexes lazily into a 100-entry cache
//!    behind a global mutex, which would thrash on the hot path):
//!    - international form (`+44 20 7946 0958`, `00 49 30 1234567`, `011 ...`, `tel:+1-...`):
//!      the country code picks the metadata, the rest must be a valid number of one of its
//!      regions (any region in the world, not only the configured ones);
//!    - national form (`020 7946 0958`, `(415) 555-0100`): valid for one of the configured
//!      regions after stripping that region's national prefix (`national_prefix_for_parsing`
//!      and its transform rule, as libphonenumber does).
//!
//! A confirmed span carries `canonical: Some(E.164)`, so `+1 415-555-0100` and `(415) 555-0100`
//! become one token. A number written without any separator (`4155550100`) is confirmed only
//! with phone context (a cue word such as `phone`, `call`, `fax` nearby, or a JSON key/CSV column
//! like `phone`): bare digit runs are mostly IDs and timestamps.
//!
//! With the same context, a phone-shaped number that the metadata rejects is still taken
//! (`Call (311) 905-4466`): fake and test numbers fill real data, and a number someone calls a
//! phone number is personal data whether or not its area code exists. Such spans carry a
//! canonical form only when written in international form.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use aho_corasick::AhoCorasick;
use regex::Regex;

use super::{DetectError, FindContext, KeyHint, Kind, Recognizer, Span, key_hint};
use metadata::{Automaton, FormatEntry, MetaEntry};

mod metadata;
mod patterns;
mod shortcut;

/// Fewest digits in a number confirmed by metadata (international `+47 02000` has 7).
const MIN_DIGITS: usize = 7;
/// Fewest digits in a grouped number taken on context alone (`call 33 93 31`).
pub(super) const MIN_CONTEXT_DIGITS: usize = 6;
/// Most digits in a candidate, an international prefix (`00`, `011`) included.
const MAX_DIGITS: usize = 17;
/// Most digits the scan keeps; longer runs are dropped.
const BUF: usize = 24;
/// How far before a candidate a cue word may stand, in bytes.
const CUE_WINDOW: usize = 40;
/// How far after a candidate a cue word may stand, in bytes.
const CUE_AFTER: usize = 12;

/// Words that say a number is a phone number.
const CUES: &[&str] = &[
    "phone",
    "tel",
    "mobile",
    "mob.",
    "cell",
    "fax",
    "call",
    "dial",
    "reach",
    "contact",
    "whatsapp",
    "sms",
    "text me",
    "ring",
    "desk",
    "office",
    "hotline",
    "answering",
    "landline",
    "handy",
    "téléphone",
    "teléfono",
    "telefon",
];

/// `+`, the calling code (in decimal, when given) and `rest`: what `format!("+{code}{rest}")`
/// writes, as the span's canonical form. Written on the stack and copied once into the `Arc`
/// (each phone found gets one): through a `String`, it cost two allocations and a copy.
fn e164(code: Option<u16>, rest: &str) -> Arc<str> {
    let mut decimal = itoa::Buffer::new();
    let code = code.map_or("", |n| decimal.format(n));
    let mut buf = [0u8; 32];
    let (code_end, len) = (1 + code.len(), 1 + code.len() + rest.len());
    if let Some(out) = buf.get_mut(..len) {
        out[0] = b'+';
        out[1..code_end].copy_from_slice(code.as_bytes());
        out[code_end..].copy_from_slice(rest.as_bytes());
        // Always `Ok`: ASCII and the whole of `rest`.
        if let Ok(s) = std::str::from_utf8(out) {
            return Arc::from(s);
        }
    }
    // Longer than any number the metadata takes (at most 17 digits and a 3-digit code).
    Arc::from(format!("+{code}{rest}"))
}

/// Bit `n` of entry `b`: some word of [`CUES`] or [`ANTI_CUES`] starts with byte `b` and is
/// `n` bytes long (longer words set bit 15; the words compared are at most 12 letters).
const CUE_LENGTHS: [u16; 256] = {
    let mut table = [0u16; 256];
    let lists = [CUES, ANTI_CUES];
    let mut l = 0;
    while l < lists.len() {
        let mut i = 0;
        while i < lists[l].len() {
            let w = lists[l][i].as_bytes();
            let len = if w.len() < 15 { w.len() } else { 15 };
            table[w[0] as usize] |= 1 << len;
            i += 1;
        }
        l += 1;
    }
    table
};

/// Up to eight bytes, little-endian, in a `u64` (zero-padded); longer words give 0, which no
/// word of one to eight letters packs to.
const fn pack(w: &[u8]) -> u64 {
    if w.len() > 8 {
        return 0;
    }
    let mut v = 0u64;
    let mut i = 0;
    while i < w.len() {
        v |= (w[i] as u64) << (8 * i);
        i += 1;
    }
    v
}

/// Each word of `list` [`pack`]ed.
const fn pack_list<const N: usize>(list: &[&str]) -> [u64; N] {
    let mut out = [0u64; N];
    let mut i = 0;
    while i < N {
        out[i] = pack(list[i].as_bytes());
        i += 1;
    }
    out
}

/// [`CUES`] packed, so that a word before a number is looked up with one comparison per
/// entry (numbers after `card` or `order` are checked against both lists).
static CUES_PACKED: [u64; CUES.len()] = pack_list(CUES);
/// [`ANTI_CUES`] packed.
static ANTI_CUES_PACKED: [u64; ANTI_CUES.len()] = pack_list(ANTI_CUES);

/// Whether `word` (one to twelve ASCII letters, [`pack`]ed in `word_packed` when eight or
/// fewer) is in `list`, whose words are `packed`.
fn is_listed(word: &[u8], word_packed: u64, list: &[&str], packed: &[u64]) -> bool {
    if word.len() <= 8 {
        packed.contains(&word_packed)
    } else {
        list.iter().any(|l| l.as_bytes() == word)
    }
}

/// Words right before a number that say it is something else.
const ANTI_CUES: &[&str] = &[
    "order",
    "invoice",
    "isbn",
    "issn",
    "ref",
    "reference",
    "account",
    "acct",
    "iban",
    "ticket",
    "case",
    "tracking",
    "serial",
    "sku",
    "transaction",
    "txn",
    "id",
    "no",
    "nr",
    "pid",
    "port",
    "version",
    "build",
    "po",
    "zip",
    "postcode",
    "routing",
    "card",
    "ssn",
    "amount",
    "total",
    "price",
    "balance",
    "usd",
    "eur",
    "gbp",
    "inr",
    "jpy",
    "apt",
    "suite",
    "unit",
    "room",
    "floor",
    "tin",
    "ein",
    "tax",
    "license",
    "licence",
    "passport",
    "pin",
    "code",
    "otp",
];

/// The validity rules of one set of entries (a region, or every region of a calling code):
/// per entry, the DFA of its number types (compiled by `build.rs`) and each type's possible
/// lengths. A number is valid when one type's pattern matches all of it and allows its length.
#[derive(Debug)]
struct Validity {
    entries: Vec<(Automaton, &'static MetaEntry)>,
    min_len: usize,
    max_len: usize,
}

impl Validity {
    fn new(metas: impl Iterator<Item = &'static MetaEntry>) -> Validity {
        let mut entries = Vec::new();
        let (mut min_len, mut max_len) = (usize::MAX, 0);
        for meta in metas {
            for t in meta.types {
                for &l in t.lengths.iter().chain(meta.general_lengths) {
                    min_len = min_len.min(usize::from(l));
                    max_len = max_len.max(usize::from(l));
                }
            }
            if let Some(dfa) = Automaton::load(meta.validity_digits) {
                entries.push((dfa, meta));
            }
        }
        // Largest rules first: a shared calling code's main region (the US of +1, GB of +44)
        // has the most, and most of its numbers are that region's. `valid` asks whether any
        // entry takes a number, which the order does not change.
        entries.sort_by_key(|(_, meta)| {
            std::cmp::Reverse(meta.validity_digits.1 - meta.validity_digits.0)
        });
        Validity {
            entries,
            min_len,
            max_len,
        }
    }

    /// Whether `nsn` (a national significant number, digits only) is a valid number.
    fn valid(&self, nsn: &str) -> bool {
        let len = nsn.len();
        if len < self.min_len || len > self.max_len {
            return false;
        }
        self.entries.iter().any(|(dfa, meta)| {
            dfa.whole_matches(nsn, |i| {
                meta.types
                    .get(i)
                    .is_some_and(|t| t.lengths.is_empty() || t.lengths.contains(&(len as u16)))
            })
        })
    }
}

/// `^(?:prefix)` for a national prefix rule.
fn prefix_regex(source: &str) -> Option<Regex> {
    Regex::new(&format!("^(?:{source})")).ok()
}

/// The validity rules of calling code `code` (all its regions), loaded the first time they
/// are asked for and kept for the process; `None` for codes with no metadata.
///
/// By code, not by id: the non-geographic entities (+800, +870, +882 ...) share the id `001`.
fn international(code: u16) -> Option<&'static Validity> {
    static TABLE: [OnceLock<Validity>; 1000] = [const { OnceLock::new() }; 1000];
    // A slot is filled only for a code with entries: a filled one is the answer, without
    // looking the entries up again (most numbers name a code seen before).
    if let Some(validity) = TABLE.get(usize::from(code)).and_then(OnceLock::get) {
        return Some(validity);
    }
    let entries = metadata::by_code(code);
    let slot = TABLE
        .get(usize::from(code))
        .filter(|_| !entries.is_empty())?;
    Some(slot.get_or_init(|| Validity::new(entries.iter())))
}

/// One configured region's national-format rules.
#[derive(Debug)]
struct Region {
    code: u16,
    /// A superset of this region's valid national-form digit strings (`patterns::shape`).
    shape: Option<Automaton>,
    /// `^(?:national_prefix_for_parsing)`, when the prefix is no literal.
    prefix: Option<Regex>,
    /// The prefix when its pattern is a literal run of digits (`0`, `1`): `prefix` then
    /// matches exactly where the digits start with it ([`shortcut::literal_prefix`]).
    prefix_literal: Option<Box<str>>,
    /// The transform rule, with `$N` rewritten as `${N}`.
    transform: Option<String>,
    validity: Validity,
    /// The region's formats, in metadata order, when it has a national prefix: which numbers
    /// are written with it in national form.
    formats: Vec<NationalFormat>,
}

/// One metadata format: the numbers it applies to, and whether their national form carries
/// the national prefix (`030 1234567` in Germany; never `30 1234567`). Both its patterns are
/// read at start into forms tested without a regex (`shortcut.rs`), so the first numbers a
/// process sees cost what the tenth do; its regexes are compiled only for a number with other
/// characters than ASCII digits, which the recognizer never asks about.
#[derive(Debug)]
struct NationalFormat {
    entry: &'static FormatEntry,
    /// The lengths `pattern` allows when it is a run of digit groups (all of the metadata's
    /// are): an all-digit number then matches it exactly when its length is in the range
    /// ([`shortcut::digit_group_lengths`]).
    lengths: Option<(usize, usize)>,
    /// The leading-digits pattern as a tree of digit sets, read at start
    /// ([`shortcut::Leading`]; every pattern of the metadata reads).
    leading: Option<shortcut::Leading>,
    /// `^(?:last leading-digits pattern)` (if the format has one) and `^(?:pattern)$`; `None`
    /// if either does not compile (the format is then skipped). Compiled only when a number
    /// is checked against a pattern the shortcuts above do not read.
    compiled: OnceLock<Option<(Option<Regex>, Regex)>>,
}

impl NationalFormat {
    fn new(entry: &'static FormatEntry) -> NationalFormat {
        NationalFormat {
            entry,
            lengths: shortcut::digit_group_lengths(entry.pattern),
            leading: entry.leading.and_then(shortcut::Leading::parse),
            compiled: OnceLock::new(),
        }
    }

    /// Whether the format applies to `nsn`: its leading digits and its pattern match. Where
    /// the shortcuts read both, no regex is compiled or run (both would compile: each is a
    /// plain sequence of digits, classes and digit groups).
    fn applies(&self, nsn: &str) -> bool {
        let digits = nsn.bytes().all(|b| b.is_ascii_digit());
        let pattern_by_length = match self.lengths {
            Some((lo, hi)) if digits => Some((lo..=hi).contains(&nsn.len())),
            _ => None,
        };
        if pattern_by_length == Some(false) {
            return false;
        }
        let leading_by_sets = match (&self.leading, self.entry.leading) {
            (Some(tree), _) => tree.matches(nsn),
            (None, None) => Some(true),
            (None, Some(_)) => None,
        };
        if let (Some(pattern), Some(leading)) = (pattern_by_length, leading_by_sets) {
            return pattern && leading;
        }
        let compiled = self.compiled.get_or_init(|| {
            let leading = match self.entry.leading {
                Some(re) => Some(Regex::new(&format!("^(?:{re})")).ok()?),
                None => None,
            };
            Some((
                leading,
                Regex::new(&patterns::anchored(self.entry.pattern)).ok()?,
            ))
        });
        compiled.as_ref().is_some_and(|(leading, pattern)| {
            leading_by_sets.unwrap_or_else(|| leading.as_ref().is_none_or(|re| re.is_match(nsn)))
                && pattern_by_length.unwrap_or_else(|| pattern.is_match(nsn))
        })
    }
}

impl Region {
    fn new(meta: &'static MetaEntry) -> Region {
        let prefix_source = patterns::prefix_source(meta.prefix_for_parsing, meta.national_prefix);
        // A literal prefix (`0`, `1`) is matched as bytes; only a real pattern is compiled.
        let prefix_literal = prefix_source.as_deref().and_then(shortcut::literal_prefix);
        let prefix = match (&prefix_literal, &prefix_source) {
            (None, Some(source)) => prefix_regex(source),
            _ => None,
        };
        let transform = meta.transform.map(|rule| {
            let mut out = String::new();
            let mut chars = rule.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '$'
                    && let Some(d) = chars.next_if(char::is_ascii_digit)
                {
                    out.push_str(&format!("${{{d}}}"));
                } else {
                    out.push(c);
                }
            }
            out
        });
        let formats = if meta.national_prefix.is_some() {
            meta.formats.iter().map(NationalFormat::new).collect()
        } else {
            Vec::new()
        };
        Region {
            code: meta.code,
            shape: Automaton::load(meta.shape_digits),
            prefix,
            prefix_literal,
            transform,
            validity: Validity::new(std::iter::once(meta)),
            formats,
        }
    }

    /// Whether `nsn`, written in national form, carries the national prefix: the first format
    /// that applies to it says so. A number no format covers (a German pager `164 2990`) is
    /// taken to need it too: written without, such digits are far more often something else.
    fn needs_prefix(&self, nsn: &str) -> bool {
        !self.formats.is_empty()
            && self
                .formats
                .iter()
                .find(|f| f.applies(nsn))
                .is_none_or(|f| f.entry.needs_prefix)
    }

    /// The national significant number of `digits` written in national form, if valid:
    /// borrowed from `digits` but where a transform rule rewrites the prefix (a few regions).
    fn national<'d>(&self, digits: &'d str) -> Option<Cow<'d, str>> {
        if let Some(literal) = &self.prefix_literal {
            // What `prefix` would capture: the literal and no group.
            if let Some(stripped) = digits.strip_prefix(&**literal)
                && self.validity.valid(stripped)
            {
                return Some(Cow::Borrowed(stripped));
            }
        } else if let Some(re) = &self.prefix
            // `is_match` first: a lazy-DFA test, where `captures` costs about ten times as
            // much and most numbers do not start with the prefix.
            && re.is_match(digits)
            && let Some(caps) = re.captures(digits)
        {
            let whole = caps.get(0).map_or(0, |m| m.end());
            let last_group = caps.len() > 1 && caps.get(caps.len() - 1).is_some();
            let stripped = match (&self.transform, last_group) {
                (Some(rule), true) => {
                    let mut out = String::new();
                    caps.expand(rule, &mut out);
                    out.push_str(&digits[whole..]);
                    Cow::Owned(out)
                }
                _ => Cow::Borrowed(&digits[whole..]),
            };
            if whole > 0 && self.validity.valid(&stripped) {
                return Some(stripped);
            }
        }
        // Without the prefix: only numbers whose national form is written without one
        // (`92998-3874` is no German number: Germans write `0` before the area code).
        (self.validity.valid(digits) && !self.needs_prefix(digits)).then_some(Cow::Borrowed(digits))
    }
}

/// Finds phone numbers. Built once; see the module doc.
#[derive(Debug)]
pub(super) struct PhoneRecognizer {
    regions: Vec<Region>,
    /// The cue words, ASCII case-insensitive.
    cues: AhoCorasick,
}

/// Every region of the metadata that can be configured (tests of what the widest detector
/// finds): not the non-geographic entities (`001`).
#[cfg(test)]
pub(crate) fn every_region() -> Vec<String> {
    metadata::ENTRIES
        .iter()
        .filter(|e| e.id.bytes().all(|b| b.is_ascii_uppercase()))
        .map(|e| e.id.to_string())
        .collect()
}

impl PhoneRecognizer {
    /// Compiles the metadata of the configured national regions (other calling codes are
    /// compiled when a number first names them).
    pub(super) fn new(regions: &[String]) -> Result<Self, DetectError> {
        let mut compiled = Vec::new();
        for region in regions {
            let id = region.to_ascii_uppercase();
            let meta = (id.len() == 2 && id.bytes().all(|b| b.is_ascii_uppercase()))
                .then(|| metadata::by_region(&id))
                .flatten()
                .ok_or_else(|| DetectError::UnknownRegion(region.clone()))?;
            compiled.push(Region::new(meta));
        }
        // Regions that share a calling code are tried together, in the place of the first
        // listed: a Canadian "(807) 594-5337", which the US rejects, is Canada's before it
        // could be read as India's `+91 80759 45337` when IN is listed before CA.
        let codes: Vec<u16> = compiled.iter().map(|r| r.code).collect();
        compiled.sort_by_key(|r| codes.iter().position(|&c| c == r.code));
        let cues = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(CUES)
            .expect("the cue words form a valid automaton");
        Ok(PhoneRecognizer {
            cues,
            regions: compiled,
        })
    }

    /// E.164 of an international-form number (`digits` without `+` or the exit code).
    fn international_e164(&self, digits: &str) -> Option<Arc<str>> {
        for cc_len in 1..=3 {
            if digits.len() <= cc_len {
                return None;
            }
            let Ok(code) = digits[..cc_len].parse::<u16>() else {
                return None;
            };
            if let Some(validity) = international(code) {
                let nsn = &digits[cc_len..];
                if validity.valid(nsn) {
                    return Some(e164(None, digits));
                }
                // `+44 (0)20 ...`, `+49 030 ...`: a national prefix kept by mistake.
                if let Some(rest) = nsn.strip_prefix('0')
                    && validity.valid(rest)
                {
                    return Some(e164(Some(code), rest));
                }
                return None;
            }
        }
        None
    }

    /// E.164 of a national-form number valid in one of the configured regions.
    ///
    /// Digits a region's rules take match that region's `shape` (the test
    /// `national_numbers_match_their_region_shape` checks it), so a region whose shape the
    /// digits miss is passed over without its exact checks. The first region is asked before
    /// its shape: most numbers are of the region listed first.
    fn national_e164(&self, digits: &str) -> Option<Arc<str>> {
        let mut regions = self.regions.iter();
        let first = regions.next()?;
        if let Some(nsn) = first.national(digits) {
            return Some(e164(Some(first.code), &nsn));
        }
        regions
            .filter(|r| r.shape.as_ref().is_none_or(|shape| shape.is_match(digits)))
            .find_map(|r| r.national(digits).map(|nsn| e164(Some(r.code), &nsn)))
    }

    /// [`PhoneRecognizer::national_e164`] as it was, with the union of the shapes tested
    /// before the other regions are asked in turn: the test oracle for its per-region filter.
    #[cfg(test)]
    fn national_e164_reference(&self, digits: &str) -> Option<Arc<str>> {
        let mut regions = self.regions.iter();
        let first = regions.next()?;
        if let Some(nsn) = first.national(digits) {
            return Some(e164(Some(first.code), &nsn));
        }
        let shapes: Option<Vec<&Automaton>> =
            self.regions.iter().map(|r| r.shape.as_ref()).collect();
        if shapes.is_some_and(|shapes| !shapes.iter().any(|shape| shape.is_match(digits))) {
            return None;
        }
        regions.find_map(|r| r.national(digits).map(|nsn| e164(Some(r.code), &nsn)))
    }

    fn check(&self, text: &str, c: &Candidate, keyed: bool, out: &mut Vec<Span>) {
        let bytes = text.as_bytes();
        // Where the span starts: `tel:+`, `+`, `(`.
        let mut start = c.start;
        let mut plus = false;
        if start > 0 && bytes[start - 1] == b'(' {
            start -= 1;
        }
        if start > 0 && bytes[start - 1] == b'+' {
            start -= 1;
            plus = true;
        }
        if plus && start >= 4 && bytes[start - 4..start].eq_ignore_ascii_case(b"tel:") {
            start -= 4;
        }
        if !left_boundary_ok(bytes, start) || !right_boundary_ok(bytes, c.end) {
            return;
        }
        if !c.shape_ok(plus) || anti_cue_before(text, start) {
            return;
        }
        let end = extension_end(bytes, c.end);
        let bare = !plus && c.ngroups == 1 && start == c.start;
        let mut context = None;
        let mut context = |this: &Self| {
            *context.get_or_insert_with(|| keyed || has_cue(&this.cues, text, start, end))
        };
        if bare && !context(self) {
            // Bare digit runs are taken only with context, confirmed or not.
            return;
        }
        // Read only now: most candidates fail the tests above (in logs, bare numbers with no
        // cue near them: `bytes=4832592`).
        let digits = std::str::from_utf8(&c.digits[..c.ndigits]).unwrap_or("");
        let (intl, intl_digits) = if plus {
            (true, digits)
        } else if let Some(rest) = digits.strip_prefix("00").filter(|r| !r.starts_with('0')) {
            (true, rest)
        } else if let Some(rest) = digits.strip_prefix("011") {
            (true, rest)
        } else {
            (false, digits)
        };
        let canonical = if c.ndigits < MIN_DIGITS {
            None
        } else if intl {
            self.international_e164(intl_digits)
        } else {
            None
        };
        let canonical = canonical.or_else(|| {
            (!plus && c.ndigits >= MIN_DIGITS)
                .then(|| self.national_e164(digits))
                .flatten()
        });
        let idd = digits.len() - intl_digits.len();
        // Confirmed by metadata (a bare run got here only with context), or taken on context.
        let confirmed = canonical.is_some() && c.ndigits >= MIN_DIGITS;
        let accept = confirmed
            || (c.ndigits - idd <= 15
                && (c.ndigits >= MIN_DIGITS || c.ngroups >= 3)
                && context(self));
        if accept {
            out.push(Span {
                start,
                end,
                kind: Kind::Phone,
                canonical,
            });
        }
    }
}

impl PhoneRecognizer {
    /// Whether the context says the values are phone numbers (computed once per string).
    pub(super) fn keyed(cx: &FindContext<'_>) -> bool {
        cx.key.is_some_and(|k| key_hint(k) == Some(KeyHint::Phone))
    }

    /// Looks at the digit run `run` (its first digit is the first at or after the last resume
    /// point) and returns where to resume, always past its start. Shared with the digit-run
    /// group (`detect/digits.rs`), which works `run` out once for all its members.
    #[inline(always)]
    pub(super) fn step(
        &self,
        text: &str,
        run: &DigitRun,
        keyed: bool,
        out: &mut Vec<Span>,
    ) -> usize {
        let bytes = text.as_bytes();
        // Digits glued to a word (hex ids, hashes, `v2`, `user_42`) never start a phone
        // number: skip the whole token without scanning it.
        if let Some(end) = run.glued_end(bytes) {
            return end;
        }
        // Too few digits for a candidate and no group after them: what `scan` would say (no
        // candidate, resume at the run's end) without scanning the run again. Most digit runs
        // in prose (`room 646,`, `4 people`) end here.
        if run.len() < MIN_CONTEXT_DIGITS && separator_run(bytes, run.end).is_none() {
            return run.end;
        }
        self.scan_and_check(text, run.start, run.end, keyed, out)
    }

    /// [`PhoneRecognizer::step`] past its shortcuts: scans the run at the digit `first` (not
    /// glued to a word; its digits end at `first_end`) and checks the candidate.
    #[inline(never)]
    fn scan_and_check(
        &self,
        text: &str,
        first: usize,
        first_end: usize,
        keyed: bool,
        out: &mut Vec<Span>,
    ) -> usize {
        let (candidate, resume) = scan(text.as_bytes(), first, first_end);
        if let Some(c) = candidate {
            self.check(text, &c, keyed, out);
        }
        resume.max(first + 1)
    }

    /// The step as it was before [`DigitRun`] and its shortcuts: the test oracle for them.
    #[cfg(test)]
    pub(super) fn step_reference(
        &self,
        text: &str,
        first: usize,
        keyed: bool,
        out: &mut Vec<Span>,
    ) -> usize {
        if let Some(end) = glued_token_end(text.as_bytes(), first) {
            return end;
        }
        let first_end = DigitRun::at(text.as_bytes(), first).end;
        self.scan_and_check(text, first, first_end, keyed, out)
    }
}

impl Recognizer for PhoneRecognizer {
    fn find(&self, text: &str, cx: &FindContext<'_>, out: &mut Vec<Span>) {
        let keyed = Self::keyed(cx);
        let mut i = 0;
        while let Some(first) = next_digit(text.as_bytes(), i) {
            i = self.step(text, &DigitRun::at(text.as_bytes(), first), keyed, out);
        }
    }
}

/// The run of ASCII digits starting at a digit, as the digit-run recognizers (phone numbers,
/// checksummed numbers, IP addresses) first look at it: worked out once per run and shared by
/// all three, so that none of them finds the run's end (and whether a word glues it) again.
#[derive(Debug, Clone, Copy)]
pub(super) struct DigitRun {
    /// The first digit.
    pub(super) start: usize,
    /// One past the last digit of the run (digits only).
    pub(super) end: usize,
    /// Whether a word byte (ASCII letter, digit or `_`) stands right before `start`.
    glued: bool,
}

impl DigitRun {
    /// The run starting at the digit `d` of `b`.
    #[inline]
    pub(super) fn at(b: &[u8], d: usize) -> DigitRun {
        let mut end = d + 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        let glued = d > 0 && is_word(b[d - 1]);
        DigitRun {
            start: d,
            end,
            glued,
        }
    }

    /// The run starting at the digit `d` of `b` and ending at `end`, which the caller found
    /// (the digit-run pass reads it off its digit mask).
    #[inline(always)]
    pub(super) fn ending(b: &[u8], d: usize, end: usize) -> DigitRun {
        debug_assert_eq!(end, DigitRun::at(b, d).end);
        DigitRun {
            start: d,
            end,
            glued: d > 0 && is_word(b[d - 1]),
        }
    }

    /// How many digits the run has.
    pub(super) fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether a word byte (ASCII letter, digit or `_`) stands right before the run.
    pub(super) fn is_glued(&self) -> bool {
        self.glued
    }

    /// The end of the word (ASCII letters, digits, `_`) the run's last digit is in: for a
    /// glued run, what [`DigitRun::glued_end`] gives.
    #[inline]
    pub(super) fn token_end(&self, b: &[u8]) -> usize {
        // Two bytes a turn: the loop's own count and test cost as much as a byte's.
        let mut i = self.end;
        while let Some(&[x, y]) = b.get(i..i + 2) {
            if !is_word(x) {
                return i;
            }
            if !is_word(y) {
                return i + 1;
            }
            i += 2;
        }
        if b.get(i).is_some_and(|&x| is_word(x)) {
            i += 1;
        }
        i
    }

    /// [`glued_token_end`] of the run's first digit, from the run's end on (the digits
    /// before it are word bytes already).
    #[inline]
    pub(super) fn glued_end(&self, b: &[u8]) -> Option<usize> {
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        self.glued
            .then(|| self.end + b[self.end..].iter().take_while(|&&c| word(c)).count())
    }
}

/// The word bytes (ASCII letters, digits and `_`), as [`DigitRun`] and the recognizers that
/// skip glued tokens count them.
const WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_alphanumeric() || b == b'_';
        c += 1;
    }
    table
};

/// Whether `c` is an ASCII letter, digit or `_`.
#[inline(always)]
pub(super) fn is_word(c: u8) -> bool {
    WORD_BYTES[usize::from(c)]
}

/// When the digit at `d` is glued to a word before it (hex ids, hashes, `v2`, `user_42`), the
/// end of that token: no number or address starts inside one, so recognizers skip it whole.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) fn glued_token_end(b: &[u8], d: usize) -> Option<usize> {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    if d == 0 || !word(b[d - 1]) {
        return None;
    }
    Some(d + 1 + b[d + 1..].iter().take_while(|&&c| word(c)).count())
}

/// The country calling code of an E.164 number (`+442079460958` -> 44), from the metadata
/// (calling codes are prefix-free: the first of 1, 2 or 3 digits that names one is it).
pub(crate) fn calling_code(e164: &str) -> Option<u16> {
    let digits = e164.strip_prefix('+')?.as_bytes();
    let mut code = 0u16;
    for &d in digits.iter().take(3) {
        if !d.is_ascii_digit() {
            return None;
        }
        code = code * 10 + u16::from(d - b'0');
        if !metadata::by_code(code).is_empty() {
            return Some(code);
        }
    }
    None
}

/// The index of the first ASCII digit at or after `i`: the next eight bytes first (the digit
/// runs of dates, phone numbers and versions stand a separator or two apart), then 32 bytes per
/// step while there is none, then eight at a time.
pub(super) fn next_digit(b: &[u8], mut i: usize) -> Option<usize> {
    #[inline(always)]
    fn digit_mask(chunk: &[u8]) -> u64 {
        const LO: u64 = 0x3030_3030_3030_3030;
        const TEN: u64 = 0x0a0a_0a0a_0a0a_0a0a;
        const HI: u64 = 0x8080_8080_8080_8080;
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        // Bytes '0'..='9' become 0..=9; "some byte < 10" is the classic has-less test, and
        // its lowest flagged byte is exact.
        let x = u64::from_le_bytes(word) ^ LO;
        x.wrapping_sub(TEN) & !x & HI
    }
    if i + 8 <= b.len() {
        let t = digit_mask(&b[i..i + 8]);
        if t != 0 {
            return Some(i + (t.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while i + 32 <= b.len() {
        let c = &b[i..i + 32];
        let any = digit_mask(&c[..8])
            | digit_mask(&c[8..16])
            | digit_mask(&c[16..24])
            | digit_mask(&c[24..]);
        if any != 0 {
            break;
        }
        i += 32;
    }
    while i + 8 <= b.len() {
        let t = digit_mask(&b[i..i + 8]);
        if t != 0 {
            return Some(i + (t.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    (i..b.len()).find(|&j| b[j].is_ascii_digit())
}

/// What [`next_digit`] computes, a byte at a time: the test oracle for its word-wide steps.
#[cfg(test)]
fn next_digit_reference(b: &[u8], i: usize) -> Option<usize> {
    (i..b.len()).find(|&j| b[j].is_ascii_digit())
}

/// A run of digits and separators that may be a phone number.
#[derive(Debug)]
struct Candidate {
    /// First digit.
    start: usize,
    /// One past the last digit.
    end: usize,
    /// The first `ndigits` (up to [`BUF`]) are the digits; the bytes after them are anything
    /// (the first group is copied sixteen bytes at once).
    digits: [u8; BUF],
    ndigits: usize,
    /// Digit count of each group (up to 12 groups).
    groups: [u8; 12],
    /// The separator byte before each group (0 for the first; `' '` for runs of spaces and
    /// brackets, `-`, `.` or `/` otherwise).
    seps: [u8; 12],
    ngroups: usize,
}

impl Candidate {
    /// A candidate starting at the digit `first`, with nothing read yet.
    fn at(first: usize) -> Candidate {
        Candidate {
            start: first,
            end: first,
            digits: [0; BUF],
            ndigits: 0,
            groups: [0; 12],
            seps: [0; 12],
            ngroups: 0,
        }
    }

    /// Structural checks: not a date, an SSN, an IPv4 address or a decimal number. After a `+`
    /// only the last two apply (`+509-22-45-3300` is not a date).
    fn shape_ok(&self, plus: bool) -> bool {
        let n = self.ngroups;
        let g = &self.groups[..n];
        let s = &self.seps[..n];
        // Dates anywhere in the run: 2024-01-15, 15/01/2024, 15.01.2024.
        for k in 0..if plus { 0 } else { n.saturating_sub(2) } {
            let (a, b2, c) = (g[k], g[k + 1], g[k + 2]);
            let (s1, s2) = (s[k + 1], s[k + 2]);
            if s1 == s2 && matches!(s1, b'-' | b'/' | b'.') {
                let ymd = a == 4 && b2 <= 2 && c <= 2;
                let dmy = a <= 2 && b2 <= 2 && c == 4;
                let continues = k + 3 < n && s[k + 3] == s1;
                if (ymd || dmy) && !continues {
                    return false;
                }
            }
        }
        // `123-45-6789` is the US SSN shape; the SSN recognizer decides about it.
        if !plus && g == [3, 2, 4] && s[1] == b'-' && s[2] == b'-' {
            return false;
        }
        if s[1..].contains(&b'.') {
            // IPv4 and decimals: dotted groups must all be 2-4 digits and evenly dotted.
            if s[1..].iter().any(|&x| x != b'.')
                && s[1..].iter().filter(|&&x| x == b'.').count() < 2
            {
                return false;
            }
            if g.iter().any(|&l| l > 4 || l == 1) {
                return false;
            }
            if !plus && n == 4 && s[1..].iter().all(|&x| x == b'.') && g.iter().all(|&l| l <= 3) {
                return false;
            }
        }
        true
    }
}

/// Scans the run starting at the digit `first`, whose digits end at `first_end` (the caller
/// knows: [`DigitRun::end`]). Returns the candidate (if its digit count fits) and where to
/// resume.
fn scan(b: &[u8], first: usize, first_end: usize) -> (Option<Candidate>, usize) {
    debug_assert_eq!(first_end, DigitRun::at(b, first).end);
    let mut c = Candidate::at(first);
    let mut i = first;
    // The first group, whose end is known, in one copy of sixteen bytes when it fits and the
    // text holds them (most runs scanned are one group: `bytes=4832592`); the copy's bytes
    // past the group are overwritten by the next group's digits, or never read. The walk then
    // finds no digit at `first_end` and closes the group there.
    if first_end - first <= 16
        && let Some(block) = b.get(first..first + 16)
    {
        c.digits[..16].copy_from_slice(block);
        c.ndigits = first_end - first;
        i = first_end;
    }
    walk_groups(b, first, c, i)
}

/// [`scan`] copying each digit of the first group too as it walks it: the test oracle for the
/// first group read at once.
#[cfg(test)]
fn scan_reference(b: &[u8], first: usize) -> (Option<Candidate>, usize) {
    walk_groups(b, first, Candidate::at(first), first)
}

/// The rest of [`scan`] from `i`, in the first group (`c` holds its digits before `i`): the
/// group's remaining digits, then each separator run and the group after it.
#[inline(always)]
fn walk_groups(
    b: &[u8],
    first: usize,
    mut c: Candidate,
    mut i: usize,
) -> (Option<Candidate>, usize) {
    let mut group_start = first;
    let mut sep = 0u8;
    let mut too_long = false;
    loop {
        let mut nd = c.ndigits;
        while i < b.len() && b[i].is_ascii_digit() {
            if nd < BUF {
                c.digits[nd] = b[i];
            }
            nd += 1;
            i += 1;
        }
        c.ndigits = nd;
        c.end = i;
        if c.ngroups < c.groups.len() {
            c.groups[c.ngroups] = (i - group_start).min(255) as u8;
            c.seps[c.ngroups] = sep;
            c.ngroups += 1;
        } else {
            too_long = true;
        }
        if c.ndigits > MAX_DIGITS {
            too_long = true;
        }
        match separator_run(b, i) {
            Some((next, kind)) => {
                i = next;
                group_start = next;
                sep = kind;
            }
            None => break,
        }
    }
    if too_long {
        // Skip the rest of a long digit run so that it is not rescanned from its middle.
        let mut j = c.end;
        while j < b.len() && (b[j].is_ascii_digit() || matches!(b[j], b' ' | b'-' | b'.')) {
            j += 1;
        }
        return (None, j.max(c.end));
    }
    let resume = c.end.max(first + 1);
    (Some(c).filter(|c| c.ndigits >= MIN_CONTEXT_DIGITS), resume)
}

/// The separator run at `s`, right after a group of digits, when another group follows it: at
/// most 3 separators, one space (or " - "), brackets anywhere. A no-break, narrow no-break, thin
/// or figure space (U+00A0, U+202F, U+2009, U+2007: typeset numbers group digits with them) is
/// a space. Returns where that group starts and the separator (`' '` for spaces and brackets,
/// `-`, `.` or `/` otherwise).
///
/// Most runs the pass asks about are settled by their first two bytes: one separator and a
/// digit (`2024-01-15`, `555 0100`), one separator and a byte that is neither (`12 people`),
/// or a first byte no separator run starts with (`42,`, `7x`); only the others are walked.
#[inline(always)]
fn separator_run(b: &[u8], s: usize) -> Option<(usize, u8)> {
    match b.get(s..s.saturating_add(2)) {
        Some(&[b' ' | b'(' | b')', d]) if d.is_ascii_digit() => return Some((s + 1, b' ')),
        Some(&[x @ (b'-' | b'.' | b'/'), d]) if d.is_ascii_digit() => return Some((s + 1, x)),
        // One separator, then neither a digit nor another separator (`1417 bytes`, `12) `).
        Some(&[b' ' | b'(' | b')' | b'-' | b'.' | b'/', y]) if !may_separate(y) => return None,
        Some(&[x, _]) if !may_separate(x) => return None,
        _ => {}
    }
    separator_run_walked(b, s)
}

/// [`separator_run`] byte by byte: its definition, and its path past the first two bytes.
#[inline(never)]
fn separator_run_walked(b: &[u8], s: usize) -> Option<(usize, u8)> {
    let mut i = s;
    let mut units = 0;
    let mut spaces = 0;
    let mut kind = 0u8;
    while i < b.len() && units < 4 {
        match b[i] {
            b' ' => spaces += 1,
            b'(' | b')' => {}
            x @ (b'-' | b'.' | b'/') => {
                if kind != 0 {
                    break;
                }
                kind = x;
            }
            0xC2 | 0xE2 => match unicode_space_len(b, i) {
                Some(len) => {
                    spaces += 1;
                    units += 1;
                    i += len;
                    continue;
                }
                None => break,
            },
            _ => break,
        }
        units += 1;
        i += 1;
    }
    let ok_run = i > s
        && units <= 3
        && (spaces <= 1 || (spaces == 2 && kind == b'-'))
        && i < b.len()
        && b[i].is_ascii_digit();
    ok_run.then_some((i, if kind == 0 { b' ' } else { kind }))
}

/// Whether a separator run ([`separator_run`]) may start with the byte `x`: `separator_run`
/// at a byte for which this is false (or at the end) finds nothing, as its first byte then
/// ends the run with no separator taken.
#[inline]
pub(super) fn may_separate(x: u8) -> bool {
    matches!(x, b' ' | b'(' | b')' | b'-' | b'.' | b'/' | 0xC2 | 0xE2)
}

/// Whether a separator run at `s` leads to another group of digits (what the phone step's
/// shortcut asks of the byte after a short run).
pub(super) fn separates_group(b: &[u8], s: usize) -> bool {
    separator_run(b, s).is_some()
}

/// The byte length of the Unicode space that groups digits at `i` (U+00A0 no-break, U+202F
/// narrow no-break, U+2009 thin, U+2007 figure space), if one is there.
#[inline]
fn unicode_space_len(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i..)? {
        [0xC2, 0xA0, ..] => Some(2),
        [0xE2, 0x80, 0xAF | 0x89 | 0x87, ..] => Some(3),
        _ => None,
    }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The byte before a candidate must not glue it to a word, a number, a price or a time.
fn left_boundary_ok(b: &[u8], start: usize) -> bool {
    if start == 0 {
        return true;
    }
    let p = b[start - 1];
    if is_word_byte(p) && (p < 0x80 || is_letter_lead(b, start)) {
        return false;
    }
    if matches!(p, b'$' | b'#' | b'%' | b'+' | b'=' | b'@' | b'\\' | b'&') {
        // `key=4155550100` is fine in logs; the others are prices, ids, math.
        return p == b'=';
    }
    if matches!(p, b'-' | b'.' | b'/' | b':' | b',') && start >= 2 {
        let pp = b[start - 2];
        if pp.is_ascii_digit() || (pp.is_ascii_alphanumeric() && p != b':' && p != b',') {
            return false;
        }
    }
    // Currency symbols: € £ ¥ ₹ (multi-byte) right before.
    for sym in ["€", "£", "¥", "₹"] {
        if b[..start].ends_with(sym.as_bytes()) {
            return false;
        }
    }
    true
}

/// Whether the non-ASCII character ending at `at` is a letter-like character (not punctuation
/// such as a non-breaking space or a typographic quote).
fn is_letter_lead(b: &[u8], at: usize) -> bool {
    let start = b[..at]
        .iter()
        .rposition(|&x| !(0x80..0xC0).contains(&x))
        .unwrap_or(0);
    std::str::from_utf8(&b[start..at])
        .ok()
        .and_then(|s| s.chars().next())
        .is_some_and(char::is_alphanumeric)
}

/// The byte after a candidate must not glue it to a word or continue it as another number.
fn right_boundary_ok(b: &[u8], end: usize) -> bool {
    let Some(&n) = b.get(end) else {
        return true;
    };
    if n.is_ascii_alphanumeric() && !matches!(n, b'x' | b'X' | b'e') || n == b'_' || n == b'%' {
        return false;
    }
    if n >= 0x80 && !matches!(b.get(end..end + 2), Some([0xC2, 0xA0])) {
        let s = std::str::from_utf8(&b[end..(end + 4).min(b.len())])
            .or_else(|e| std::str::from_utf8(&b[end..end + e.valid_up_to()]))
            .unwrap_or("");
        if s.chars().next().is_some_and(char::is_alphanumeric) {
            return false;
        }
    }
    if matches!(n, b'.' | b'-' | b'/' | b':' | b',')
        && b.get(end + 1).is_some_and(u8::is_ascii_digit)
    {
        return false;
    }
    if matches!(n, b'x' | b'X' | b'e') {
        return extension_end(b, end) > end;
    }
    true
}

/// The end of an extension written right after the number (`x818`, ` ext. 12`, ` #3`), or `end`.
fn extension_end(b: &[u8], end: usize) -> usize {
    let mut i = end;
    if b.get(i) == Some(&b' ') {
        i += 1;
    }
    let rest = &b[i.min(b.len())..];
    let marker = if rest.first().is_some_and(|&c| c == b'x' || c == b'X') {
        1
    } else if rest.len() >= 3 && rest[..3].eq_ignore_ascii_case(b"ext") {
        if rest.get(3) == Some(&b'.') { 4 } else { 3 }
    } else {
        return end;
    };
    let mut j = i + marker;
    if marker > 1 && b.get(j) == Some(&b' ') {
        j += 1;
    }
    let digits_start = j;
    while j < b.len() && b[j].is_ascii_digit() && j - digits_start < 6 {
        j += 1;
    }
    let boundary = b.get(j).is_none_or(|&c| !c.is_ascii_alphanumeric());
    if j > digits_start && boundary { j } else { end }
}

/// Whether a phone cue word stands shortly before `start` or right after `end`.
fn has_cue(cues: &AhoCorasick, text: &str, start: usize, end: usize) -> bool {
    let b = text.as_bytes();
    let from = start.saturating_sub(CUE_WINDOW);
    let to = (end + CUE_AFTER).min(b.len());
    let (before, after) = (&b[from..start], &b[end..to]);
    // A cue found in a window starts at or after the window's first cue trigram.
    let found = |w: &[u8]| first_cue_trigram(w).is_some_and(|at| cues.is_match(&w[at..]));
    found(before) || found(after)
}

/// [`has_cue`] without [`first_cue_trigram`]: its test oracle.
#[cfg(test)]
fn has_cue_reference(cues: &AhoCorasick, text: &str, start: usize, end: usize) -> bool {
    let b = text.as_bytes();
    let from = start.saturating_sub(CUE_WINDOW);
    let to = (end + CUE_AFTER).min(b.len());
    cues.is_match(&b[from..start]) || cues.is_match(&b[end..to])
}

/// The low five bits of three bytes, as one 15-bit number: equal for the ASCII upper and
/// lower case of a letter, so a word's first three bytes and any case of them give one value.
const fn trigram(a: u8, b: u8, c: u8) -> usize {
    (((a & 31) as usize) << 10) | (((b & 31) as usize) << 5) | ((c & 31) as usize)
}

/// Bit [`trigram`] of the first three bytes of each word of [`CUES`] (every cue has three
/// bytes or more).
static CUE_TRIGRAMS: [u64; 512] = {
    let mut set = [0u64; 512];
    let mut i = 0;
    while i < CUES.len() {
        let w = CUES[i].as_bytes();
        assert!(w.len() >= 3);
        let t = trigram(w[0], w[1], w[2]);
        set[t / 64] |= 1 << (t % 64);
        i += 1;
    }
    set
};

/// Where in `w` a cue word may first start: the first three bytes of it with the [`trigram`]
/// of a cue's first three. A cue the cue automaton finds (ASCII case-insensitively) starts
/// with three bytes of that trigram, so it starts there or later, and where there is none the
/// automaton finds nothing and need not run (most windows in logs and code hold none).
fn first_cue_trigram(w: &[u8]) -> Option<usize> {
    // The first two bytes open the first trigram, so the loop tests one at every byte after,
    // two bytes a turn (the loop's own count and test are half the cost of a byte's).
    let [a, b, rest @ ..] = w else {
        return None;
    };
    let hit = |t: usize| CUE_TRIGRAMS[t / 64] & (1 << (t % 64)) != 0;
    let mut t = (usize::from(a & 31) << 5) | usize::from(b & 31);
    let mut pairs = rest.chunks_exact(2);
    let mut i = 0;
    for pair in &mut pairs {
        t = ((t << 5) | usize::from(pair[0] & 31)) & 0x7fff;
        if hit(t) {
            return Some(i);
        }
        t = ((t << 5) | usize::from(pair[1] & 31)) & 0x7fff;
        if hit(t) {
            return Some(i + 1);
        }
        i += 2;
    }
    if let [c] = pairs.remainder() {
        t = ((t << 5) | usize::from(c & 31)) & 0x7fff;
        if hit(t) {
            return Some(i);
        }
    }
    None
}

/// Whether one of the two words right before `start` names something else (`order`,
/// `tax ID number`, `Apt.`), and neither is a phone cue (`phone number` stays a phone).
fn anti_cue_before(text: &str, start: usize) -> bool {
    let b = text.as_bytes();
    let mut i = start;
    let mut anti = false;
    for _ in 0..2 {
        let mut skipped = 0;
        while i > 0
            && matches!(b[i - 1], b' ' | b':' | b'#' | b'.' | b'(' | b'\t' | b'\'')
            && skipped < 4
        {
            i -= 1;
            skipped += 1;
        }
        let end = i;
        while i > 0 && b[i - 1].is_ascii_alphabetic() && end - i < 12 {
            i -= 1;
        }
        if i == end || (i > 0 && b[i - 1].is_ascii_alphabetic()) {
            break;
        }
        // Words are at most 12 letters: fold into a stack buffer, compare whole.
        let len = end - i;
        let mut folded = [0u8; 12];
        folded[..len].copy_from_slice(&b[i..end]);
        folded[..len].make_ascii_lowercase();
        let word = &folded[..len];
        let first = word[0];
        if CUE_LENGTHS[usize::from(first)] & (1 << word.len()) == 0 {
            // In neither list.
            continue;
        }
        // The buffer is zero past the word: its first eight bytes are the word packed.
        let mut head = [0u8; 8];
        head.copy_from_slice(&folded[..8]);
        let packed = u64::from_le_bytes(head);
        if is_listed(word, packed, CUES, &CUES_PACKED) {
            return false;
        }
        anti |= is_listed(word, packed, ANTI_CUES, &ANTI_CUES_PACKED);
    }
    anti
}

#[cfg(test)]
mod tests;
