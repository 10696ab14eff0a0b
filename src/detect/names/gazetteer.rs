//! The name gazetteer: how common a word is as a given name, a surname and an English word.
//!
//! The table is `data/names/gazetteer.tsv` (built by `tools/build_gazetteer.py` from public-domain
//! SSA/Census name lists, Faker's MIT locale lists and the SCOWL word lists; provenance in
//! `data/names/README.md`), packed by `build.rs` at compile time, with the
//! [`lexicon`](super::lexicon) flags of a few hundred words, into one open-addressing table of
//! 2^18 `u64` slots (2 MiB; no strings kept), and compiled into the binary with
//! `include_bytes!`. Lookups read the binary's own read-only pages: nothing is copied or built
//! at start (copying the table out and adding the flags took a fifth of an empty run's time, and
//! each process kept a private 2 MiB copy), and the processes running the binary share the
//! pages. Every [`crate::detect::Detector`] uses it.
//!
//! Lookups fold case: ASCII words in registers, eight bytes at a time (no buffer, no allocation),
//! other scripts through `str::to_lowercase`.

use std::hash::Hasher;

/// The gazetteer's table as `build.rs` packed it from `data/names/gazetteer.tsv` and the
/// lexicon's lists: 2^[`SLOT_BITS`] little-endian `u64` slots.
static PACKED: &[u8; 8 << SLOT_BITS] = include_bytes!(concat!(env!("OUT_DIR"), "/gazetteer.bin"));

/// The casual stage's filter ([`Gazetteer::may_be_casual_name`]) as `build.rs` built it from
/// the table: 2^[`CASUAL_FILTER_BITS`] bits, eight to a byte, bit `k` at bit `k & 7` of byte
/// `k >> 3`.
static CASUAL_NAMES: &[u8; 1 << (CASUAL_FILTER_BITS - 3)] =
    include_bytes!(concat!(env!("OUT_DIR"), "/casual_names.bin"));

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

/// The high bit of every byte of a `u64`.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// `x` with its ASCII capitals lower-cased, eight bytes at a time; `None` when a byte is not
/// ASCII. Bytes compare as `b + (0x80 - bound)`, which sets a byte's high bit when `b >= bound`
/// without carrying into the next byte (every byte is below 0x80 by then).
fn fold_ascii(x: u64) -> Option<u64> {
    if x & HIGH != 0 {
        return None;
    }
    let at_least_a = x.wrapping_add(0x3f3f_3f3f_3f3f_3f3f); // >= b'A'
    let past_z = x.wrapping_add(0x2525_2525_2525_2525); // >= b'['
    let upper = at_least_a & !past_z & HIGH;
    Some(x | (upper >> 2))
}

/// [`word_hash`] of the ASCII lower case of `b`, without a buffer; `None` when `b` is not ASCII.
fn ascii_fold_hash(b: &[u8]) -> Option<u64> {
    let mut h = FxHasher::default();
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h.add(fold_ascii(x)?);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        // Zero-padded like `word_hash`, built in a register (no `memcpy` call).
        let mut x = 0u64;
        for (k, &c) in rest.iter().enumerate() {
            x |= u64::from(c) << (8 * k);
        }
        h.add(fold_ascii(x)?);
    }
    Some(h.finish())
}

/// The hash under which the table keeps the word `b[start..end]` if it is ASCII (in any case,
/// 1 to 48 bytes; `None` otherwise), as [`Gazetteer::lookup_with_flags_at`] computes it: for a
/// filter over the table's words ([`Gazetteer::entry_filter`]). A word of up to eight bytes
/// with eight bytes of text from its start is read with one load.
pub(crate) fn ascii_word_hash_at(b: &[u8], start: usize, end: usize) -> Option<u64> {
    let len = end.checked_sub(start)?;
    if len == 0 || len > 48 {
        return None;
    }
    if len <= 8 {
        let x = match b.get(start..start + 8) {
            Some(&[c0, c1, c2, c3, c4, c5, c6, c7]) => {
                u64::from_le_bytes([c0, c1, c2, c3, c4, c5, c6, c7]) & (u64::MAX >> (64 - 8 * len))
            }
            _ => {
                let mut x = 0u64;
                for (k, &c) in b.get(start..end)?.iter().enumerate() {
                    x |= u64::from(c) << (8 * k);
                }
                x
            }
        };
        let mut h = FxHasher::default();
        h.add(fold_ascii(x)?);
        return Some(h.finish());
    }
    ascii_fold_hash(b.get(start..end)?)
}

pub(crate) fn word_hash(lower: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(lower);
    h.finish()
}

/// log2 of the number of slots: 2^18 slots of 8 bytes (2 MiB) for ≈ 154,000 words.
const SLOT_BITS: u32 = 18;
/// Bits 0..16 of a slot: the gazetteer entry (four 4-bit scores); then the lexicon flags.
const FLAG_SHIFT: u32 = 16;
/// log2 of the bits of the casual stage's filter ([`Gazetteer::may_be_casual_name`]): 2^20 bits
/// (128 KiB) for about 45,000 words, so about one word in 25 that has no such entry gets
/// through it.
const CASUAL_FILTER_BITS: u32 = 20;
/// Set when the word is in the gazetteer (not only on a lexicon list).
const IN_GAZ: u64 = 1 << 26;
/// Set in every used slot (an empty slot is 0; `build.rs` sets it).
#[cfg_attr(not(test), allow(dead_code))]
const USED: u64 = 1 << 27;
/// The high bits of a slot hold the high bits of the word's hash.
const FINGERPRINT: u64 = !((1 << 28) - 1);

/// The shared word table: the gazetteer entry and the [`lexicon`](super::lexicon) flags of
/// every known word, so one lookup answers both.
///
/// Open addressing with linear probing over `u64` slots; a slot packs the word's entry, its
/// flags and the top 36 bits of its 64-bit hash; the words themselves are not kept. A word
/// not in the table matches a slot only if those 36 bits collide (about one unknown word in
/// 10^10), so a lookup costs one hash and usually one cache line, with no string comparison.
pub(crate) struct Gazetteer {
    /// [`PACKED`].
    slots: &'static [u8; 8 << SLOT_BITS],
    /// [`Self::entry_filter`] of the entries the casual stage may take for a name word
    /// ([`super::casual::may_be_name_word`]): [`CASUAL_NAMES`].
    casual_names: &'static [u8; 1 << (CASUAL_FILTER_BITS - 3)],
}

impl std::fmt::Debug for Gazetteer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gazetteer").finish_non_exhaustive()
    }
}

/// What a lookup reports for an ASCII word that is in the table but is no name: only its being
/// a word matters to the finder then, not how common it is.
const PLAIN_WORD: Entry = Entry {
    first: 0,
    last: 0,
    common: 1,
    place: 0,
};

static SHARED: Gazetteer = Gazetteer {
    slots: PACKED,
    casual_names: CASUAL_NAMES,
};

#[cfg(test)]
fn pack(e: Entry) -> u64 {
    u64::from(e.first)
        | u64::from(e.last) << 4
        | u64::from(e.common) << 8
        | u64::from(e.place) << 12
}

fn unpack(slot: u64) -> Entry {
    let n = |s: u32| ((slot >> s) & 0xf) as u8;
    Entry {
        first: n(0),
        last: n(4),
        common: n(8),
        place: n(12),
    }
}

const MASK: usize = (1 << SLOT_BITS) - 1;

impl Gazetteer {
    /// The process-wide gazetteer.
    pub(crate) fn get() -> &'static Gazetteer {
        &SHARED
    }

    /// Reads the table and the casual filter once, a byte of each 64-byte line in order, so
    /// that their pages are mapped and their lines in the processor's caches before a first
    /// text ([`crate::walk::warm_up`]). Lookups go anywhere in the 2 MiB: unread, each line a
    /// text first asks for waits on memory, where one read in order, which the hardware
    /// prefetches, takes a fraction of a millisecond.
    pub(crate) fn warm(&self) {
        let lines = self.slots.chunks(64).chain(self.casual_names.chunks(64));
        let x = lines.fold(0u8, |x, line| x ^ line.first().copied().unwrap_or(0));
        std::hint::black_box(x);
    }

    /// Slot `i` (taken modulo the table's size) of the table.
    #[inline(always)]
    fn slot_at(&self, i: usize) -> u64 {
        let at = (i & MASK) << 3;
        // Always eight bytes: `at` is at most the table's size less eight.
        self.slots
            .get(at..at + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, u64::from_le_bytes)
    }

    /// The slot of the word with hash `h`, if the word is known.
    fn slot(&self, h: u64) -> Option<u64> {
        let mut i = (h as usize) & MASK;
        loop {
            let s = self.slot_at(i);
            if s == 0 {
                return None;
            }
            if s & FINGERPRINT == h & FINGERPRINT {
                return Some(s);
            }
            i = (i + 1) & MASK;
        }
    }

    /// Whether the ASCII word with hash `h` ([`ascii_word_hash_at`]) may have an entry that
    /// [`super::casual::may_be_name_word`] accepts: `false` only when it has none. One load of
    /// a 128 KiB bit set, where a lookup probes the 2 MiB table.
    pub(crate) fn may_be_casual_name(&self, h: u64) -> bool {
        let k = (h >> (64 - CASUAL_FILTER_BITS)) as usize;
        self.casual_names
            .get(k >> 3)
            .is_some_and(|b| b & (1 << (k & 7)) != 0)
    }

    /// A set of 2^`bits` bits (`bits` at most 36) holding bit `h >> (64 - bits)` for the hash
    /// `h` of every word whose entry (as an ASCII word's lookup reports it) passes `keep`: a
    /// word whose bit is clear has no such entry, so a caller that wants only such words may
    /// skip its lookup. Built from the slots' fingerprints (the table keeps no words).
    #[cfg(test)]
    pub(crate) fn entry_filter(&self, bits: u32, keep: impl Fn(Entry) -> bool) -> Vec<u64> {
        assert!((6..=36).contains(&bits));
        let mut set = vec![0u64; 1 << (bits - 6)];
        // An entry is a slot's low 16 bits: `keep` is asked once for each of the few hundred
        // entries that occur (0: not asked yet, 1: no, 2: yes), not for each of 150,000 words.
        let mut kept = vec![0u8; 1 << FLAG_SHIFT];
        for s in (0..1 << SLOT_BITS).map(|i| self.slot_at(i)) {
            if s & IN_GAZ == 0 {
                continue;
            }
            let answer = &mut kept[(s & ((1 << FLAG_SHIFT) - 1)) as usize];
            if *answer == 0 {
                *answer = 1 + u8::from(keep(Self::entry_of((Some(s), true)).unwrap_or_default()));
            }
            if *answer == 2 {
                let k = (s >> (64 - bits)) as usize;
                set[k >> 6] |= 1 << (k & 63);
            }
        }
        set
    }

    /// Number of words in the table.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        (0..1 << SLOT_BITS)
            .filter(|&i| self.slot_at(i) != 0)
            .count()
    }

    /// The slot of `word` in any case, and whether the word is ASCII. ASCII words are folded
    /// and hashed eight bytes at a time in registers; other scripts go through
    /// `str::to_lowercase` (final sigma).
    fn find(&self, word: &str) -> (Option<u64>, bool) {
        let b = word.as_bytes();
        if b.len() <= 8 {
            // Most words: one register, one round of the hash.
            let mut x = 0u64;
            for (k, &c) in b.iter().enumerate() {
                x |= u64::from(c) << (8 * k);
            }
            if let Some(folded) = fold_ascii(x) {
                let mut h = FxHasher::default();
                if !b.is_empty() {
                    h.add(folded);
                }
                return (self.slot(h.finish()), true);
            }
        } else if b.len() <= 48 {
            if let Some(h) = ascii_fold_hash(b) {
                return (self.slot(h), true);
            }
        } else if b.is_ascii() {
            return (None, true);
        }
        (self.find_unicode(word), false)
    }

    /// [`Self::find`] for a word with non-ASCII letters (rare in most text: kept out of line).
    #[cold]
    #[inline(never)]
    fn find_unicode(&self, word: &str) -> Option<u64> {
        if word.len() > 96 {
            return None;
        }
        if word.chars().any(char::is_uppercase) {
            self.slot(word_hash(word.to_lowercase().as_bytes()))
        } else {
            self.slot(word_hash(word.as_bytes()))
        }
    }

    fn entry_of((slot, ascii): (Option<u64>, bool)) -> Option<Entry> {
        let s = slot.filter(|s| s & IN_GAZ != 0)?;
        let e = unpack(s);
        Some(if ascii && e.name() == 0 {
            PLAIN_WORD
        } else {
            e
        })
    }

    fn flags_of(word: &str, slot: Option<u64>) -> u16 {
        if word.is_empty() || word.len() > 24 {
            return 0;
        }
        slot.map_or(0, |s| ((s >> FLAG_SHIFT) & 0x3ff) as u16)
    }

    /// The entry for `word` in any case, if the gazetteer has it. ASCII words that are no name
    /// report [`PLAIN_WORD`].
    pub(crate) fn lookup(&self, word: &str) -> Option<Entry> {
        Self::entry_of(self.find(word))
    }

    /// The entry of a Cyrillic name in an inflected case, by its nominative form: Russian,
    /// Ukrainian and Bulgarian decline names ("с Иваном Петровым", "позвоните Анне
    /// Смирновой", "Марией"), while the gazetteer lists them as Faker does, in the nominative.
    /// Tries the word without each case ending, then with `а`, `я` or `й` in its place. `None`
    /// for words that are not Cyrillic or whose base is no name.
    pub(crate) fn lookup_declined_cyrillic(&self, word: &str) -> Option<Entry> {
        /// Case endings, longest first (two-letter endings before their one-letter tails).
        const ENDINGS: [&str; 13] = [
            "ом", "ым", "ем", "ой", "ей", "ою", "им", "у", "ю", "е", "а", "ы", "и",
        ];
        const NOMINATIVE: [&str; 4] = ["", "а", "я", "й"];
        if !word
            .chars()
            .next()
            .is_some_and(|c| ('\u{400}'..='\u{4ff}').contains(&c))
        {
            return None;
        }
        let mut buf = [0u8; 64];
        for ending in ENDINGS {
            let Some(base) = word.strip_suffix(ending) else {
                continue;
            };
            // A base of one or two letters ("Ива") is too short to tell a name from a word.
            if base.chars().count() < 3 {
                continue;
            }
            for tail in NOMINATIVE {
                let n = base.len() + tail.len();
                if n > buf.len() {
                    return None;
                }
                buf[..base.len()].copy_from_slice(base.as_bytes());
                buf[base.len()..n].copy_from_slice(tail.as_bytes());
                let guess = std::str::from_utf8(&buf[..n]).ok()?;
                if guess != word
                    && let Some(e) = self.lookup(guess).filter(|e| e.name() > 0)
                {
                    return Some(e);
                }
            }
        }
        None
    }

    /// The [`lexicon`](super::lexicon) flags of `word` (any case, a trailing `.` ignored).
    pub(crate) fn flags(&self, word: &str) -> u16 {
        let word = word.strip_suffix('.').unwrap_or(word);
        Self::flags_of(word, self.find(word).0)
    }

    /// [`Self::lookup_with_flags`] of `text[start..end]`: a word of up to eight bytes with
    /// eight bytes of text from its start is read with one load (the rest masked off), not
    /// byte by byte; the hash and the answer are the same.
    pub(crate) fn lookup_with_flags_at(
        &self,
        text: &str,
        start: usize,
        end: usize,
    ) -> (Option<Entry>, u16) {
        let len = end.saturating_sub(start);
        if (1..=8).contains(&len)
            && let Some(&[a, b, c, d, e, f, g, h]) = text.as_bytes().get(start..start + 8)
        {
            let x = u64::from_le_bytes([a, b, c, d, e, f, g, h]) & (u64::MAX >> (64 - 8 * len));
            if let Some(folded) = fold_ascii(x) {
                let mut hasher = FxHasher::default();
                hasher.add(folded);
                let slot = self.slot(hasher.finish());
                // `flags_of` for a word of 1 to 24 bytes: the slot's flags.
                let flags = slot.map_or(0, |s| ((s >> FLAG_SHIFT) & 0x3ff) as u16);
                return (Self::entry_of((slot, true)), flags);
            }
        }
        self.lookup_with_flags(text.get(start..end).unwrap_or(""))
    }

    /// [`Self::lookup`] and [`Self::flags`] of `word` (without a trailing `.`) in one lookup.
    pub(crate) fn lookup_with_flags(&self, word: &str) -> (Option<Entry>, u16) {
        let found = self.find(word);
        (Self::entry_of(found), Self::flags_of(word, found.0))
    }
}

/// The word lists, looked up through the shared gazetteer table (`build.rs` packed their flags
/// into it).
#[derive(Debug)]
pub(crate) struct Lexicon {
    gaz: &'static Gazetteer,
}

static LEXICON: Lexicon = Lexicon { gaz: &SHARED };

impl Lexicon {
    /// The process-wide lexicon.
    pub(crate) fn get() -> &'static Lexicon {
        &LEXICON
    }

    /// The flags of `word` (any case; a trailing `.` ignored); 0 for words on no list.
    pub(crate) fn flags(&self, word: &str) -> u16 {
        self.gaz.flags(word)
    }

    /// Whether `word` is on the list `flag`.
    pub(crate) fn is(&self, word: &str, flag: u16) -> bool {
        self.flags(word) & flag != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sets the slot of the word with hash `h` to `f(its old value)` (0 for a new word).
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

    /// The table built at run time from the TSV text and the lexicon's lists, as before
    /// `build.rs` did it: the oracle of the packed table.
    fn from_tsv(data: &str) -> Vec<u64> {
        let mut slots = vec![0; 1 << SLOT_BITS];
        let bytes = data.as_bytes();
        let mut from = 0;
        for nl in memchr::memchr_iter(b'\n', bytes) {
            let line = &bytes[from..nl];
            from = nl + 1;
            let n = line.len();
            if n < 6 || line[n - 5] != b'\t' {
                continue;
            }
            let (word, d) = (&line[..n - 5], &line[n - 4..]);
            if !d.iter().all(u8::is_ascii_digit) {
                continue;
            }
            let e = Entry {
                first: d[0] - b'0',
                last: d[1] - b'0',
                common: d[2] - b'0',
                place: d[3] - b'0',
            };
            insert(&mut slots, word_hash(word), |_| pack(e) | IN_GAZ);
        }
        for (flag, list) in super::super::lexicon::LISTS {
            let flag = u64::from(*flag) << FLAG_SHIFT;
            for w in *list {
                insert(&mut slots, word_hash(w.as_bytes()), |old| old | flag);
            }
        }
        slots
    }

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

    #[test]
    fn lookup_at_matches_lookup() {
        let g = Gazetteer::get();
        let text = "Maria said: the SMITH and O'Neil, Иван, a Jean-Luc b yesterday Wells zzqxw J.";
        let mut starts = vec![0];
        starts.extend(
            text.char_indices()
                .filter(|(_, c)| *c == ' ')
                .map(|(i, _)| i + 1),
        );
        for &start in &starts {
            for end in start..=text.len() {
                if let Some(word) = text.get(start..end) {
                    assert_eq!(
                        g.lookup_with_flags_at(text, start, end),
                        g.lookup_with_flags(word),
                        "{word}"
                    );
                }
            }
        }
    }

    #[test]
    fn packed_table_matches_the_tsv() {
        let tsv = from_tsv(include_str!("../../../data/names/gazetteer.tsv"));
        let g = Gazetteer::get();
        let packed: Vec<u64> = (0..1 << SLOT_BITS).map(|i| g.slot_at(i)).collect();
        assert!(tsv.iter().filter(|&&s| s != 0).count() > 100_000);
        assert!(tsv == packed, "build.rs packed a different table");
        // And the casual stage's filter is the one its test of an entry gives.
        let filter: Vec<u8> = g
            .entry_filter(CASUAL_FILTER_BITS, super::super::casual::may_be_name_word)
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        assert!(
            filter == CASUAL_NAMES[..],
            "build.rs built a different casual filter"
        );
        for k in [0usize, 1, 7, 8, 63, 64, 1000, (1 << CASUAL_FILTER_BITS) - 1] {
            let h = (k as u64) << (64 - CASUAL_FILTER_BITS);
            let word = filter[k >> 3] & (1 << (k & 7)) != 0;
            assert_eq!(g.may_be_casual_name(h), word);
        }
    }

    #[test]
    fn folded_hash_matches_lower_case_hash() {
        for w in [
            "",
            "a",
            "Maria",
            "SMITH",
            "O'Neil",
            "Jean-Luc",
            "J.",
            "@[`{",
            "Zz",
            "AZaz09_-.",
            "VeryLongWordThatSpansSeveralChunksOfEightBytes",
        ] {
            let lower = w.to_ascii_lowercase();
            assert_eq!(
                ascii_fold_hash(w.as_bytes()),
                Some(word_hash(lower.as_bytes())),
                "{w}"
            );
        }
        assert_eq!(ascii_fold_hash("Иван".as_bytes()), None);
        for c in 0u8..0x80 {
            let x = u64::from_le_bytes([c, b'A', c, b'z', c, b'[', c, b'@']);
            let want: Vec<u8> = x.to_le_bytes().iter().map(u8::to_ascii_lowercase).collect();
            assert_eq!(fold_ascii(x).map(u64::to_le_bytes).unwrap().to_vec(), want);
        }
    }
}
