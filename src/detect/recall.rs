//! Session recall: names a session has already tokenized are found again wherever they recur.
//!
//! The name finder judges each string on its own evidence, so a name it accepts under a strong
//! cue ("Thanks, Maria Ortiz") can be missed in the next message ("maria ortiz called back"), and
//! a value found under a JSON key (`{"full_name": "maria ortiz"}`) is missed in the free text of
//! the same tool result. Either miss hands the model a raw name next to its token. Recall closes
//! that gap: once a session has minted a NAME, the exact name (in lower case, upper case or
//! title case, whole words) is a NAME in everything the session scans afterwards.
//!
//! Only distinctive values are recalled: a name of two or more words, or a single word the
//! gazetteer does not know as an ordinary English word or a place ([`Detector::is_distinctive_name`]).
//! A single "Will" accepted after "Hi" must not turn every later "will" into a token.
//!
//! [`RecallBook`] keeps one [`Recall`] per session, in process, bounded by a per-session cap and
//! an idle TTL. Names are matched through a hash table keyed by each name's first word (folded
//! to lower case) and, for a name with two bytes or more after it, those two bytes too, whose
//! entry chains the names that begin so, longest first; a name the
//! session learns is added to that table in place (a few inserts). Nothing is compiled on the
//! per-message path: an Aho-Corasick automaton over the session's names has to be rebuilt
//! whenever a message brings a new one, about 8.8 M instructions per rebuild for the thousands
//! of names of the `throughput` prose (and about 470 per anchored attempt, against about 290
//! for a lookup and a walk down a chain; 2026-11-30, `benches/README.md`). The engine lets go
//! of its snapshot before it learns, so the tables are updated in place rather than copied
//! (a copy is made only when a scan of the same session holds them at that moment); a session
//! that recalls nothing yet adopts the table the engine's rescan check built of the message's new
//! names, which is what learning them would build ([`RecallBook::adopt`]): before the rescan
//! when there is one, else in place of learning them (unless a full name is learned as its
//! words). With a vault shared by replicas (Redis), the engine
//! also reads, at most once a second per session, the NAME entries other replicas minted since
//! it last looked ([`RecallBook::sync_due`], `VaultBackend::entries_after`), so a name tokenized
//! on one replica is recalled on all of them.
//!
//! [`Detector::is_distinctive_name`]: super::Detector::is_distinctive_name

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dashmap::DashMap;

use super::lanes::{self, alnum_lanes};
use super::{Kind, Span};
use crate::session::{SessionId, SweepClock, sweep_idle};

/// The most names one session recalls; later names are still tokenized where found, just not
/// recalled.
pub const MAX_RECALLED_NAMES: usize = 4096;

/// One session's recalled names: tables updated in place as names are learned (nothing is
/// compiled), shared by `Arc` with the scans that read them.
///
/// A scan with thousands of names over every byte would cost as much as the rest of the
/// detector, so the text is walked 64 bytes a step (their classes with SSE2, `lanes`), and
/// names are compared only where one may begin. Each step gives the word starts in it; a word
/// start's first eight bytes (folded to upper case, zero from the end of its word) are tested
/// against a table of the names' own (so "the" and "and" are not taken for the start of "theo"
/// or "andrew", nor "michael" for "michaela"), and only then is the word hashed and looked up
/// in a hash table of the names' first ASCII words (with the two bytes after the word, then
/// without), whose entries list the names that begin so, longest first. Names that
/// begin with another character are tried at each non-ASCII character start whose first two
/// bytes begin one (a 64 Kibit table, then a hash table of such pairs).
#[derive(Debug, Clone)]
pub struct Recall {
    /// The names and the extra case forms of names with other cased letters, one after
    /// another.
    bytes: String,
    /// One per pattern in `bytes`, chained per first word (or pair) longest first.
    patterns: Vec<Pattern>,
    /// The first pattern of each first ASCII word, by its hash ([`ascii_word`]), or of each
    /// first word and the two bytes after it ([`next_two_key`]).
    words: Heads,
    /// The first pattern of each pair of leading bytes of a name that does not start with an
    /// ASCII letter or digit, by [`pair_key`].
    pairs: Heads,
    /// How many names (not counting their extra case forms).
    names: usize,
    /// Bit `pair_key(a, b)` is set when some name that starts with a non-ASCII character
    /// starts with the bytes `a b`; `None` until the session learns such a name (8 KiB that
    /// most sessions never need).
    starts: Option<Box<[u64; PAIR_WORDS]>>,
    /// Both bits [`prefix_bits`] of [`prefix_key`] are set for each name that starts with an ASCII
    /// letter or digit. (Both tables have a fixed size, so that the scan's lookups need no
    /// bounds check.)
    prefixes: Box<[u64; PREFIX_WORDS]>,
}

/// A recalled name (or a case form of one) in [`Recall::bytes`].
#[derive(Debug, Clone, Copy)]
struct Pattern {
    start: u32,
    len: u32,
    /// The next pattern with the same first word, no longer than this one ([`NONE`] at the
    /// end).
    next: u32,
    /// Whether this is a name as learned (lower case), not an extra case form of one.
    name: bool,
    /// Up to eight bytes of the pattern after its first ASCII word (from its start when it
    /// starts with another character), each or-ed with `0x20`, and the mask of those bytes:
    /// a text holds the pattern only where its bytes after the same word, so or-ed, match
    /// these (compared before the whole pattern is).
    tail: u64,
    tail_mask: u64,
}

/// Eight bytes of `b` from `i` ([`load`]), each or-ed with `0x20` (so ASCII letters compare
/// in either case).
#[inline(always)]
fn folded_at(b: &[u8], i: usize) -> u64 {
    load(b, i) | FOLD
}

/// A pattern's [`Pattern::tail`] and [`Pattern::tail_mask`]: up to eight bytes of `b` from
/// `skip` (where its first word ends), folded as [`folded_at`] folds them, and the mask of
/// those that are the pattern's.
fn tail_at(b: &[u8], skip: usize) -> (u64, u64) {
    let tail_len = (b.len() - skip).min(8);
    let tail_mask = if tail_len == 8 {
        u64::MAX
    } else {
        (1u64 << (tail_len * 8)) - 1
    };
    (folded_at(b, skip) & tail_mask, tail_mask)
}

/// The end of a chain of patterns.
const NONE: u32 = u32::MAX;

/// An open-addressing hash table from a 64-bit key to the first pattern of its chain. Keys are
/// hashes already; two words with one key share a chain (every candidate is compared byte by
/// byte), so a collision costs a comparison, never a wrong answer.
#[derive(Debug, Clone)]
struct Heads {
    /// Key (zero: empty) and chain head; the length is a power of two.
    slots: Box<[(u64, u32)]>,
    len: usize,
}

impl Heads {
    fn new() -> Heads {
        Heads {
            slots: vec![(0, NONE); 16].into_boxed_slice(),
            len: 0,
        }
    }

    /// Zero marks an empty slot; key 0 shares key 1's chain.
    fn key(h: u64) -> u64 {
        h.max(1)
    }

    /// The slot holding `key`, or the empty slot where it goes.
    #[inline(always)]
    fn slot(&self, key: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = (key.wrapping_mul(0xd6e8_feb8_6659_fd93) >> 32) as usize & mask;
        loop {
            match self.slots[i].0 {
                k if k == key || k == 0 => return i,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The first pattern whose first word (or pair) has hash `h`.
    #[inline(always)]
    fn get(&self, h: u64) -> Option<u32> {
        let key = Heads::key(h);
        let (k, head) = self.slots[self.slot(key)];
        (k == key).then_some(head)
    }

    /// Sets the chain head of hash `h`, growing the table (at half full) as needed.
    fn set(&mut self, h: u64, head: u32) {
        let key = Heads::key(h);
        let i = self.slot(key);
        if self.slots[i].0 == key {
            self.slots[i].1 = head;
            return;
        }
        self.slots[i] = (key, head);
        self.len += 1;
        if self.len * 2 > self.slots.len() {
            let grown = vec![(0, NONE); self.slots.len() * 2].into_boxed_slice();
            let old = std::mem::replace(&mut self.slots, grown);
            for (k, head) in old.into_iter().filter(|&(k, _)| k != 0) {
                let i = self.slot(k);
                self.slots[i] = (k, head);
            }
        }
    }
}

/// The table index of a pair of leading bytes, ASCII letters folded to lower case.
fn pair_key(a: u8, b: u8) -> usize {
    usize::from(a.to_ascii_lowercase()) << 8 | usize::from(b.to_ascii_lowercase())
}

/// The hash of a pair of leading bytes ([`pair_key`]) in [`Recall::pairs`].
fn pair_hash(a: u8, b: u8) -> u64 {
    (pair_key(a, b) as u64 + 1).wrapping_mul(CHUNK_MUL)
}

/// Which table chains a pattern, and its key there: the hash of its first ASCII word when it
/// starts with an ASCII letter or digit, else of its first two bytes. Also the length of that
/// first word (zero for a pair), where the pattern's [`Pattern::tail`] begins.
fn chain_key(b: &[u8]) -> Option<ChainKey> {
    match b {
        [a, ..] if a.is_ascii_alphanumeric() => {
            let (end, h) = ascii_word(b, 0);
            // A name with two bytes or more after its first word is chained by those two
            // bytes too ([`next_two_key`]).
            let key = if b.len() - end >= 2 {
                next_two_key(h, folded_at(b, end))
            } else {
                h
            };
            Some((true, key, end))
        }
        [a, c, ..] => Some((false, pair_hash(*a, *c), 0)),
        _ => None,
    }
}

/// A pattern's table (true: the words), its key there and the length of its first word
/// ([`chain_key`]).
type ChainKey = (bool, u64, usize);

/// The key in [`Recall::words`] of the names whose first word has hash `h` and whose two bytes
/// after it are the first two of `tail` (eight bytes or-ed with `0x20`, [`folded_at`]). A
/// first name is the first word of many names ("maria ortiz", "maria lopez", ...) and of
/// many words of the text that begin none ("Maria said"); chained by their first word alone,
/// each such word walked all of them. A text that holds a name holds its two bytes after the
/// first word, or-ed alike, so the name is on the chain of the text's own two bytes there; a
/// name with fewer after its first word (a single word, most often) is on its first word's
/// chain and shorter than any on the other.
#[inline(always)]
fn next_two_key(h: u64, tail: u64) -> u64 {
    (h.rotate_left(17) ^ (tail & 0xFFFF | 0x1_0000)).wrapping_mul(0xd6e8_feb8_6659_fd93)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = ONES * 0x80;
/// Or-ed into ASCII letters, folds them to lower case (digits already have the bit).
const FOLD: u64 = ONES * 0x20;
/// The multiplier of each eight-byte chunk of a word's hash.
const CHUNK_MUL: u64 = 0x9e37_79b9_7f4a_7c15;

/// Eight bytes of `b` from `i`, little-endian, zero past the end (a zero byte is neither a word
/// byte nor a lead byte, so the scans below stop at the end of the text).
#[inline(always)]
fn load(b: &[u8], i: usize) -> u64 {
    match b.get(i..i + 8) {
        Some(w) => u64::from_le_bytes(w.try_into().unwrap_or([0; 8])),
        None => load_tail(b, i),
    }
}

/// [`load`] within the last eight bytes of the text.
#[cold]
#[inline(never)]
fn load_tail(b: &[u8], i: usize) -> u64 {
    let mut w = [0u8; 8];
    let rest = b.get(i..).unwrap_or_default();
    w[..rest.len()].copy_from_slice(rest);
    u64::from_le_bytes(w)
}

/// The key of the prefix table for the word bytes `v` (each folded to upper case where its
/// lane is set in `word`, zero otherwise; see [`word_bytes`]): the first eight bytes of the
/// first ASCII word, zero from its end ([`first_word_key`]). A text that matches a name (ASCII
/// case folded) has the name's key where the match starts: the text's first word there is the
/// name's first word, as long, since the byte after it is no word byte in the name (or the name
/// ends there and, standing as whole words, the text has no word byte there either).
#[inline(always)]
fn prefix_key(v: u64, word: u64) -> u64 {
    first_word_key(word_bytes(v, word))
}

/// The bytes of `k` (word bytes, each non-zero; zero where no word byte is) before its first
/// zero byte: "the" keeps its length ("the\0" is not "theo"), "al smith" keeps "al" alone.
#[inline(always)]
fn first_word_key(k: u64) -> u64 {
    // The high bit of each zero byte of `k`, exact (no carry between bytes).
    let zero = !(((k & !HIGH).wrapping_add(ONES * 0x7f)) | k) & HIGH;
    // The bytes below the lowest zero byte (all eight when none is).
    let keep = ((zero & zero.wrapping_neg()) >> 7).wrapping_sub(1);
    k & keep
}

/// The bytes of `v`, each folded to upper case (bit 5 cleared) when its lane is set in `word`
/// and zero otherwise ([`prefix_key`] of every lane at once). Clearing the bit rather than
/// setting it, as the other keys here do, lets the scan fold and cut a word with one `and`
/// ([`KEEP`]); a digit becomes `0x10..=0x19`, still no zero byte and no letter.
#[inline(always)]
fn word_bytes(v: u64, word: u64) -> u64 {
    v & !FOLD & ((word >> 7) * 0xFF)
}

/// The two bits of the prefix table for a [`prefix_key`], from one product: its top sixteen
/// bits and the sixteen below its top half. A word that passes the table costs a
/// [`Recall::match_at`] of a couple of hundred instructions, and with one bit too many words
/// passed: on the reference prose (781 K word starts, 12.4 K names found) one bit let 35.0 K
/// through, two let 22.7 K (most of the rest begin with a name's first word). The second bit
/// is read only for the words that pass the first (52.7 K), seven instructions each.
#[inline(always)]
fn prefix_bits(key: u64) -> (usize, usize) {
    let h = key.wrapping_mul(0xd6e8_feb8_6659_fd93);
    let mask = (1 << PREFIX_TABLE_BITS) - 1;
    (
        (h >> (64 - PREFIX_TABLE_BITS)) as usize,
        (h >> 32) as usize & mask,
    )
}

/// Whether both bits of `key` ([`prefix_bits`]) are set in `prefixes`: whether a name may
/// begin with the word whose [`prefix_key`] it is.
#[inline(always)]
fn may_begin(prefixes: &[u64; PREFIX_WORDS], key: u64) -> bool {
    let (a, b) = prefix_bits(key);
    prefixes[a >> 6] & (1 << (a & 63)) != 0 && prefixes[b >> 6] & (1 << (b & 63)) != 0
}

/// Sets both bits of `key` ([`prefix_bits`]) in `prefixes`.
fn mark_prefix(prefixes: &mut [u64; PREFIX_WORDS], key: u64) {
    let (a, b) = prefix_bits(key);
    prefixes[a >> 6] |= 1 << (a & 63);
    prefixes[b >> 6] |= 1 << (b & 63);
}

/// The prefix table's key ([`prefix_key`]) of the word starting at `start`, whose word bytes
/// from `start` on are the bits of `words` from bit 0 (at least eight of them): the bytes
/// of the first word, up to eight, folded to upper case.
#[inline(always)]
fn key_at(b: &[u8], start: usize, words: u64) -> u64 {
    load(b, start) & KEEP[usize::from(words as u8)]
}

/// For each eight bits of word bytes (bit `k` for byte `k`), the mask of the bytes before the
/// first that is no word byte, without bit 5 of each ([`key_at`]): a load and an and per word
/// start both cut the word and fold its case, where the word's length and a shift by it took a
/// dozen instructions (and folding by setting the bit, another constant and an `or`).
static KEEP: [u64; 256] = keep_masks();

const fn keep_masks() -> [u64; 256] {
    let mut masks = [0u64; 256];
    let mut bits = 0;
    while bits < 256 {
        let len = (!bits as u32).trailing_zeros();
        let keep = if len >= 8 {
            u64::MAX
        } else {
            (1u64 << (len * 8)) - 1
        };
        masks[bits] = keep & !FOLD;
        bits += 1;
    }
    masks
}

/// log2 of the prefix table's size in bits.
const PREFIX_TABLE_BITS: u32 = 16;
/// The prefix table's size in 64-bit words.
const PREFIX_WORDS: usize = (1 << PREFIX_TABLE_BITS) / 64;
/// The size in 64-bit words of the table of leading byte pairs (one bit per [`pair_key`]).
const PAIR_WORDS: usize = (1 << 16) / 64;

/// The end and hash ([`ascii_word`]) of the ASCII word starting at `i`.
#[inline(always)]
fn word_at(b: &[u8], i: usize) -> (usize, u64) {
    let v = load(b, i);
    match !alnum_lanes(v) & HIGH {
        0 => ascii_word(b, i),
        after => {
            let n = after.trailing_zeros() / 8;
            let bytes = (v | FOLD) & ((1 << (n * 8)) - 1);
            (i + n as usize, bytes.wrapping_mul(CHUNK_MUL))
        }
    }
}

/// The ASCII word (letters and digits) starting at `i`: its end and its hash, folded to lower
/// case. Eight bytes at a time: each load gives the word's bytes and, usually, its end.
#[inline(never)]
fn ascii_word(b: &[u8], mut i: usize) -> (usize, u64) {
    let mut h = 0u64;
    loop {
        let v = load(b, i);
        let stop = !alnum_lanes(v) & HIGH;
        // Bytes of the word in this load (all eight when it goes on).
        let n = stop.trailing_zeros() as usize / 8;
        let keep = if n == 8 {
            u64::MAX
        } else {
            (1u64 << (n * 8)) - 1
        };
        h = (h.rotate_left(29) ^ ((v | FOLD) & keep)).wrapping_mul(CHUNK_MUL);
        i += n;
        if n < 8 {
            return (i, h);
        }
    }
}

impl Recall {
    fn new() -> Recall {
        Recall {
            bytes: String::new(),
            patterns: Vec::new(),
            words: Heads::new(),
            pairs: Heads::new(),
            names: 0,
            starts: None,
            prefixes: Box::new([0u64; PREFIX_WORDS]),
        }
    }

    /// Whether some recalled name (or case form of one) holds `byte`.
    pub(crate) fn holds_byte(&self, byte: u8) -> bool {
        memchr::memchr(byte, self.bytes.as_bytes()).is_some()
    }

    /// The bytes of pattern `i`.
    fn pattern(&self, i: u32) -> &[u8] {
        let p = self.patterns[i as usize];
        &self.bytes.as_bytes()[p.start as usize..(p.start + p.len) as usize]
    }

    /// Learns `name` (a recall form: lower case, single spaces, two characters or more), in
    /// place; false when it is known already.
    fn insert(&mut self, name: &str) -> bool {
        let Some(key) = chain_key(name.as_bytes()) else {
            return false;
        };
        // One walk down the chain (longest first) both looks for the name among the patterns
        // as long as it and finds where it goes: after the last of them.
        let Some(after) = self.place(key, name.as_bytes(), true) else {
            return false;
        };
        self.names += 1;
        self.add(name, true, key, after);
        // Matching folds ASCII case only; a name with other cased letters ("józef wąs") gets
        // its upper-case and title-case forms as patterns of their own.
        if !name.is_ascii() {
            let upper = name.to_uppercase();
            let title = title_case(name);
            if upper != name {
                self.add_form(&upper);
            }
            if title != name && title != upper {
                self.add_form(&title);
            }
        }
        true
    }

    /// Where a pattern of `b` goes in the chain of `key` ([`chain_key`]): after the last
    /// pattern at least as long ([`NONE`]: at the head). `None` when `name` is set and a name
    /// (not a case form) with the same bytes is on the chain; the chain is longest first, so
    /// such a name lies among the patterns the walk passes.
    fn place(&self, (word, h, _): ChainKey, b: &[u8], name: bool) -> Option<u32> {
        let table = if word { &self.words } else { &self.pairs };
        let mut at = table.get(h).unwrap_or(NONE);
        let mut after = NONE;
        while let Some(p) = self.patterns.get(at as usize)
            && p.len as usize >= b.len()
        {
            if name && p.name && p.len as usize == b.len() && self.pattern(at) == b {
                return None;
            }
            after = at;
            at = p.next;
        }
        Some(after)
    }

    /// Adds an extra case form of a name ([`Recall::insert`]).
    fn add_form(&mut self, form: &str) {
        let Some(key) = chain_key(form.as_bytes()) else {
            return;
        };
        if let Some(after) = self.place(key, form.as_bytes(), false) {
            self.add(form, false, key, after);
        }
    }

    /// Adds one pattern to the chain of `key` after pattern `after` ([`Recall::place`]), and
    /// to the filters.
    fn add(&mut self, form: &str, name: bool, (word, h, skip): ChainKey, after: u32) {
        let b = form.as_bytes();
        let (Ok(start), Ok(len), Ok(index)) = (
            u32::try_from(self.bytes.len()),
            u32::try_from(b.len()),
            u32::try_from(self.patterns.len()),
        ) else {
            return;
        };
        let (tail, tail_mask) = tail_at(b, skip);
        let mut pattern = Pattern {
            start,
            len,
            next: NONE,
            name,
            tail,
            tail_mask,
        };
        if let Some(prev) = self.patterns.get_mut(after as usize) {
            pattern.next = prev.next;
            prev.next = index;
        } else {
            let table = if word {
                &mut self.words
            } else {
                &mut self.pairs
            };
            pattern.next = table.get(h).unwrap_or(NONE);
            table.set(h, index);
        }
        self.patterns.push(pattern);
        self.bytes.push_str(form);
        if word {
            let v = load(b, 0);
            mark_prefix(&mut self.prefixes, prefix_key(v, alnum_lanes(v)));
        } else {
            let k = pair_key(b[0], b[1]);
            let starts = self
                .starts
                .get_or_insert_with(|| Box::new([0u64; PAIR_WORDS]));
            starts[k >> 6] |= 1 << (k & 63);
        }
    }

    /// A table of just `names` (any case and spacing), for a one-off count of where they occur
    /// ([`Recall::count`]); names shorter than two characters are left out, as in
    /// [`RecallBook::learn`].
    pub(crate) fn of_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Recall {
        Recall::of_names_upto(names, usize::MAX)
    }

    /// [`Recall::of_names`] of the names a session with room for `room` more would learn from
    /// `names` ([`RecallBook::learn`]): the same forms, inserted in the same order, up to
    /// `room` names. Given all of a session's room, it is the table learning `names` into an
    /// empty session builds ([`RecallBook::adopt`]).
    pub(crate) fn of_names_upto<'a>(
        names: impl IntoIterator<Item = &'a str>,
        room: usize,
    ) -> Recall {
        let mut recall = Recall::new();
        let mut form = String::new();
        for name in names {
            if recall.names >= room {
                break;
            }
            form.clear();
            push_recall_form(name, &mut form);
            if form.chars().count() >= 2 {
                recall.insert(&form);
            }
        }
        recall
    }

    /// How many names are recalled (not counting their extra case forms).
    pub(crate) fn names(&self) -> usize {
        self.names
    }

    /// Whether `name` (any case and spacing) is one of the recalled names.
    pub(crate) fn contains(&self, name: &str) -> bool {
        let mut form = String::new();
        push_recall_form(name, &mut form);
        !form.is_empty() && self.match_at(&form, 0) == Some(form.len())
    }

    /// How many whole-word occurrences of the recalled names `text` holds.
    pub(crate) fn count(&self, text: &str) -> usize {
        let mut n = 0;
        self.each(text, 0, |_| {
            n += 1;
            true
        });
        n
    }

    /// The sum over `texts` of [`Recall::count`] of each text times its weight, in one search
    /// of the texts laid end to end with a quote between two, each occurrence counted for the
    /// text it starts in. A quote joins no word, as the ends of a text join none, and no
    /// occurrence runs over a quote when no name holds one: the search reads each text as a
    /// count of it alone does (word starts in text order, from the text's start, each
    /// occurrence taken and the search going on after it). Where a name holds a quote, each
    /// text is counted alone. (A message's names, thousands of short texts, each paid a
    /// search's set-up when counted one by one.)
    pub(crate) fn count_weighted<'t>(
        &self,
        texts: impl Iterator<Item = (&'t str, usize)>,
    ) -> usize {
        if self.holds_byte(b'"') {
            return texts.map(|(text, weight)| self.count(text) * weight).sum();
        }
        let (mut joined, mut ends) = (String::new(), Vec::new());
        for (text, weight) in texts {
            if !ends.is_empty() {
                joined.push('"');
            }
            joined.push_str(text);
            ends.push((joined.len(), weight));
        }
        let (mut total, mut k) = (0, 0);
        self.each(&joined, 0, |span| {
            // The text the occurrence starts in: the first whose end is past its start.
            while ends.get(k).is_some_and(|&(end, _)| end <= span.start) {
                k += 1;
            }
            total += ends.get(k).map_or(0, |&(_, weight)| weight);
            true
        });
        total
    }

    /// Whether `text` holds more than `limit` whole-word occurrences of the recalled names
    /// ([`Recall::count`] `> limit`): the scan stops at the occurrence past `limit`. The
    /// occurrences are read left to right, each after the one before, so the first `limit + 1`
    /// of them are those a whole count reads first.
    pub(crate) fn count_exceeds(&self, text: &str, limit: usize) -> bool {
        let mut n = 0;
        self.each(text, 0, |_| {
            n += 1;
            n <= limit
        });
        n > limit
    }

    /// [`Recall::count_exceeds`], appending a NAME span for each occurrence read: all of them
    /// when it returns false, else the first `limit + 1` (every occurrence that starts before
    /// the last one's end).
    pub(crate) fn find_exceeding(&self, text: &str, limit: usize, out: &mut Vec<Span>) -> bool {
        let mut n = 0;
        self.each(text, 0, |span| {
            out.push(span);
            n += 1;
            n <= limit
        });
        n > limit
    }

    /// Appends a NAME span for each whole-word occurrence of a recalled name in `text`.
    pub(crate) fn find(&self, text: &str, out: &mut Vec<Span>) {
        self.find_from(text, 0, out);
    }

    /// [`Recall::find`] going on from `from`, the end of an occurrence it found in `text` (or
    /// 0): it appends the occurrences the whole search finds after that one, as the whole
    /// search goes on from there in the same state.
    pub(crate) fn find_from(&self, text: &str, from: usize, out: &mut Vec<Span>) {
        self.each(text, from, |span| {
            out.push(span);
            true
        });
    }

    /// Hands `found` each whole-word occurrence of a recalled name in `text` from `from` (0,
    /// or where an occurrence ends), in text order, while it returns true.
    #[inline(always)]
    fn each(&self, text: &str, from: usize, mut found: impl FnMut(Span) -> bool) {
        let b = text.as_bytes();
        let prefixes = &*self.prefixes;
        // Sixty-four bytes from `i` at a time: the classes of their first sixteen (`c`), and
        // whether the byte before `i` is a word byte (`before`, one bit). Each step classifies
        // its other 48 and the sixteen after its own too, for the words that start late in its
        // own and go on (and the next step's first sixteen). After an occurrence the search
        // goes on from its end in this same state. (At 32 bytes a step, a step's own work, its
        // bounds and masks and what the calls below make it reload, was about 40 instructions
        // of the 95 a step took on prose; at 64 it is paid half as often.)
        let mut i = from;
        let mut c = lanes::classes(b, i);
        let mut before = u64::from(i > 0 && b.get(i - 1).is_some_and(u8::is_ascii_alphanumeric));
        while i < b.len() {
            // The 80 bytes from `i` (zeros past the end of the text): the 64 of this step, the
            // sixteen classified for the next, and the eight bytes from each word start, read
            // without a bounds check (a word start is at most bit 63 of a `u64`).
            let padded;
            let block: &[u8; 80] = match b.get(i..).and_then(<[u8]>::first_chunk) {
                Some(block) => block,
                None => {
                    padded = lanes::padded::<80>(b, i);
                    &padded
                }
            };
            let (c1, c2) = (lanes::classes(block, 16), lanes::classes(block, 32));
            let (c3, c4) = (lanes::classes(block, 48), lanes::classes(block, 64));
            let alnum = u64::from(c.alnum)
                | u64::from(c1.alnum) << 16
                | u64::from(c2.alnum) << 32
                | u64::from(c3.alnum) << 48;
            let words = u128::from(alnum) | u128::from(c4.alnum) << 64;
            let starts = alnum & !((alnum << 1) | before);
            // The non-ASCII character starts, read only in a step with a byte from 0x80 (a
            // move of the high bits, where the starts take three instructions a sixteen bytes).
            let leads = if c.high | c1.high | c2.high | c3.high == 0 {
                0
            } else {
                u64::from(lanes::classes(block, 0).lead)
                    | u64::from(c1.lead) << 16
                    | u64::from(c2.lead) << 32
                    | u64::from(c3.lead) << 48
            };
            let resume = if leads == 0 {
                // Word starts only (most of the text): the first eight bytes of each, then
                // its first word's entry in the table, say whether a name may begin there.
                // Half a step at a time, so that the word bytes from a start are a shift of a
                // `u64` (a shift of the `u128` took five instructions a word start).
                let mut resume = None;
                let ahead = u64::from(c4.alnum);
                'halves: for (half, words) in [(0, alnum), (32, alnum >> 32 | ahead << 32)] {
                    let mut next = (starts >> half) as u32;
                    while next != 0 {
                        let at = half + next.trailing_zeros() as usize;
                        next &= next - 1;
                        let start = i + at;
                        if may_begin(prefixes, key_at(block, at, words >> (at - half)))
                            && let Some(end) = self.match_at(text, start)
                        {
                            if !found(Span::new(start, end, Kind::Name)) {
                                return;
                            }
                            resume = Some(end);
                            break 'halves;
                        }
                    }
                }
                resume
            } else {
                match self.find_in_mixed(text, i, starts, leads, words) {
                    Some((start, end)) => {
                        if !found(Span::new(start, end, Kind::Name)) {
                            return;
                        }
                        Some(end)
                    }
                    None => None,
                }
            };
            match resume {
                // A name that ends the text ends the search (a found value counted is most
                // often one name, to its end): no step is classified after it.
                Some(end) if end >= b.len() => return,
                // Go on after the name (no word byte follows it).
                Some(end) => {
                    i = end;
                    c = lanes::classes(b, i);
                    before = u64::from(b[i - 1].is_ascii_alphanumeric());
                }
                None => {
                    i += 64;
                    before = alnum >> 63;
                    c = c4;
                }
            }
        }
    }

    /// The step of [`Recall::find`] for 64 bytes from `i` that hold non-ASCII character
    /// starts (`leads`) besides the word starts (`starts`): both are candidates, in text order.
    /// `words` are the word bytes of the 80 bytes from `i`. Returns the start and end of the
    /// name found first.
    #[inline(never)]
    fn find_in_mixed(
        &self,
        text: &str,
        i: usize,
        starts: u64,
        leads: u64,
        words: u128,
    ) -> Option<(usize, usize)> {
        let b = text.as_bytes();
        let mut next = starts | leads;
        while next != 0 {
            let bit = next.trailing_zeros();
            next &= next - 1;
            let start = i + bit as usize;
            let found = if starts & (1 << bit) != 0 {
                may_begin(
                    &self.prefixes,
                    key_at(b, start, (words >> (bit & 63)) as u64),
                )
            } else {
                // Every non-ASCII character start is a candidate (CJK names stand between
                // other characters; the boundary check sorts the rest out).
                let starts = self.starts.as_deref();
                b.get(start + 1)
                    .zip(starts)
                    .is_some_and(|(&second, starts)| {
                        let k = pair_key(b[start], second);
                        starts[k >> 6] & (1 << (k & 63)) != 0
                    })
            };
            if found && let Some(end) = self.match_at(text, start) {
                return Some((start, end));
            }
        }
        None
    }

    /// The end of a recalled name starting at `start`, standing as whole words: the names
    /// that begin with the word (and the two bytes after it, [`next_two_key`]) or the two bytes
    /// there, longest first. Kept out of the scan's loop, which calls it at a few word starts
    /// in a thousand.
    #[inline(never)]
    fn match_at(&self, text: &str, start: usize) -> Option<usize> {
        let b = text.as_bytes();
        let rest = b.get(start..)?;
        match rest {
            [a, ..] if a.is_ascii_alphanumeric() => {
                let (end, h) = word_at(b, start);
                let skip = end - start;
                let tail = folded_at(rest, skip);
                // The names with two bytes or more after the first word first: any of them
                // that matches is longer than all the others.
                if let Some(head) = self.words.get(next_two_key(h, tail))
                    && let Some(longest) = self.match_chain(text, start, head, tail)
                {
                    return longest;
                }
                let head = self.words.get(h)?;
                self.match_chain(text, start, head, tail)?
            }
            [a, c, ..] => {
                let head = self.pairs.get(pair_hash(*a, *c))?;
                self.match_chain(text, start, head, folded_at(rest, 0))?
            }
            _ => None,
        }
    }

    /// The longest pattern of the chain from `head` that `text` holds at `start` (ASCII case
    /// folded), if any: `Some` of its end if it stands there as whole words, else `Some(None)`.
    /// Only the longest is tried for standing: a name that ends inside a word is no match, even
    /// when a shorter one stands. Every pattern that can match at `start` is on the chains
    /// [`Recall::match_at`] walks but those that end inside the first word, which cannot stand.
    /// `tail` is the eight bytes of the text after its first ASCII word at `start` (from
    /// `start` at another character), or-ed with `0x20`, as the patterns' [`Pattern::tail`].
    fn match_chain(&self, text: &str, start: usize, head: u32, tail: u64) -> Option<Option<usize>> {
        let rest = text.as_bytes().get(start..)?;
        let mut at = head;
        while let Some(p) = self.patterns.get(at as usize) {
            if tail & p.tail_mask == p.tail
                && let n = p.len as usize
                && let Some(pattern) = self.bytes.as_bytes().get(p.start as usize..)
                && same_ignoring_ascii_case(rest, pattern, n)
            {
                return Some(stands(text, start, start + n));
            }
            at = p.next;
        }
        None
    }
}

/// `end` when `text[start..end]` stands as whole words (no word character joins it on either
/// side). An ASCII neighbour (or none) is read as a byte: it joins when it is a letter or a
/// digit (no ASCII character is CJK); only a non-ASCII one is decoded ([`stands_by_chars`]).
#[inline(always)]
fn stands(text: &str, start: usize, end: usize) -> Option<usize> {
    let b = text.as_bytes();
    let before = start.checked_sub(1).and_then(|k| b.get(k)).copied();
    let after = b.get(end).copied();
    if before.is_none_or(|c| c.is_ascii()) && after.is_none_or(|c| c.is_ascii()) {
        let joined = before.is_some_and(|c| c.is_ascii_alphanumeric())
            || after.is_some_and(|c| c.is_ascii_alphanumeric());
        return (!joined).then_some(end);
    }
    stands_by_chars(text, start, end)
}

/// [`stands`], decoding the characters on either side.
#[inline(never)]
fn stands_by_chars(text: &str, start: usize, end: usize) -> Option<usize> {
    let joined_before = text[..start]
        .chars()
        .next_back()
        .is_some_and(|c| joins(c, text[start..].chars().next()));
    let joined_after = text[end..]
        .chars()
        .next()
        .is_some_and(|c| joins(c, text[..end].chars().next_back()));
    (!joined_before && !joined_after).then_some(end)
}

/// Whether the first `n` bytes of `a` and `b` are equal but for ASCII case
/// ([`<[u8]>::eq_ignore_ascii_case`]; false when either is shorter), eight bytes at a time (the
/// last eight overlapping the ones before): a name's comparison, where the standard library's
/// went byte by byte (it takes sixteen at a time only from sixteen bytes, and most names are
/// shorter). Under eight, the eight bytes from the start are read (zero past the end of either,
/// [`load`]) and the first `n` compared.
#[inline(always)]
fn same_ignoring_ascii_case(a: &[u8], b: &[u8], n: usize) -> bool {
    if a.len() < n || b.len() < n {
        return false;
    }
    if n < 8 {
        let keep = (1u64 << (n * 8)) - 1;
        return lower_lanes(load(a, 0)) & keep == lower_lanes(load(b, 0)) & keep;
    }
    let mut k = 0;
    while k + 8 < n {
        if lower_lanes(load(a, k)) != lower_lanes(load(b, k)) {
            return false;
        }
        k += 8;
    }
    lower_lanes(load(a, n - 8)) == lower_lanes(load(b, n - 8))
}

/// The bytes of `v`, ASCII upper-case letters in lower case (each byte's
/// [`u8::to_ascii_lowercase`]).
#[inline(always)]
fn lower_lanes(v: u64) -> u64 {
    // Per byte, on its low seven bits (no carry leaves a byte): the high bit of `at_a` is set
    // from `A` on, of `past_z` from the byte after `Z` on; bytes from 0x80 are no letters.
    let low = v & !HIGH;
    let at_a = low.wrapping_add(ONES * (0x80 - 0x41));
    let past_z = low.wrapping_add(ONES * (0x80 - 0x5B));
    let upper = at_a & !past_z & !v & HIGH;
    v | (upper >> 2)
}

/// Whether `neighbour` continues the word whose edge character is `edge`: letters and digits do,
/// except between characters of scripts written without spaces (CJK), where any boundary is one.
fn joins(neighbour: char, edge: Option<char>) -> bool {
    neighbour.is_alphanumeric()
        && !(super::names::is_cjk(neighbour) && edge.is_some_and(super::names::is_cjk))
}

/// Appends `value` normalised for recall to `out`: trimmed, inner whitespace runs made one
/// space, lower case. Most values are already so but for case ([`is_plain_ascii`]): they are
/// copied whole and folded in place, where splitting and joining their words took a pass a
/// word and pushing them byte by byte about 26 instructions a byte. Any other text goes the
/// general way ([`push_recall_form_by_words`]).
fn push_recall_form(value: &str, out: &mut String) {
    if is_plain_ascii(value.as_bytes()) {
        let start = out.len();
        out.push_str(value);
        out[start..].make_ascii_lowercase();
    } else {
        push_recall_form_by_words(value, out);
    }
}

/// Whether `v` is ASCII with no whitespace but single spaces between words (none at either
/// end), eight bytes at a time: what [`push_recall_form_by_words`] leaves as it is but for
/// case.
fn is_plain_ascii(v: &[u8]) -> bool {
    if v.first() == Some(&b' ') || v.last() == Some(&b' ') {
        return false;
    }
    // The high bit of each lane holding a space, of the last lane of the eight before.
    let mut space_before = 0;
    let mut k = 0;
    while k < v.len() {
        // Zero past the end, which is ASCII and no whitespace.
        let w = load(v, k);
        let x = w ^ (ONES * u64::from(b' '));
        let spaces = !(((x & !HIGH).wrapping_add(ONES * 0x7f)) | x) & HIGH;
        // Tab, line feed, vertical tab, form feed, carriage return: 0x09..=0x0D.
        let low = w & !HIGH;
        let from_tab = low.wrapping_add(ONES * (0x80 - 0x09));
        let past_return = low.wrapping_add(ONES * (0x80 - 0x0e));
        let controls = from_tab & !past_return & HIGH;
        if (w & HIGH) | controls | (spaces & ((spaces << 8) | space_before)) != 0 {
            return false;
        }
        space_before = spaces >> 56;
        k += 8;
    }
    true
}

/// [`push_recall_form`] of any text: its words ([`super::words`]) joined by single spaces, then
/// in lower case.
fn push_recall_form_by_words(value: &str, out: &mut String) {
    let start = out.len();
    for word in super::words(value) {
        if out.len() > start {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out[start..].is_ascii() {
        out[start..].make_ascii_lowercase();
    } else {
        let lower = out[start..].to_lowercase();
        out.truncate(start);
        out.push_str(&lower);
    }
}

/// `name` (lower case) with each word's first letter in upper case, also after `-` and `'`
/// ("józef wąs-ćwik" → "Józef Wąs-Ćwik").
fn title_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut at_start = true;
    for c in name.chars() {
        if at_start {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        at_start = matches!(c, ' ' | '-' | '\'');
    }
    out
}

#[derive(Debug)]
struct SessionNames {
    /// The session's names; `None` until it learns one. Learning copies them only when a scan
    /// of the session holds them at that moment ([`Arc::make_mut`]).
    snapshot: Option<Arc<Recall>>,
    last_used: Instant,
    /// The highest NAME number read from a shared vault, and when it was last read
    /// ([`RecallBook::sync_due`]).
    synced_upto: u32,
    synced_at: Option<Instant>,
    /// Every NAME value the session minted (distinctive or not), in the vault's normal form,
    /// up to [`MAX_KNOWN_NAMES`]: whether a full name's words are all names of the session
    /// (`engine`, which then writes the full name as their tokens). hashbrown's set for
    /// `get_or_insert_with` (one hash per form learned, not one to look and one to insert),
    /// with the standard library's SipHash: the names are the servers' to choose.
    known: hashbrown::HashSet<Box<str>, std::hash::RandomState>,
}

/// The most NAME values one session remembers as known ([`RecallBook::learn_known`]); past it,
/// a full name made of known words gets a token of its own, as it did before.
pub const MAX_KNOWN_NAMES: usize = 4 * MAX_RECALLED_NAMES;

impl SessionNames {
    fn new() -> SessionNames {
        SessionNames {
            known: hashbrown::HashSet::with_hasher(std::hash::RandomState::new()),
            snapshot: None,
            last_used: Instant::now(),
            synced_upto: 0,
            synced_at: None,
        }
    }
}

/// Recalled names per session, in process; see the module documentation.
#[derive(Debug)]
pub struct RecallBook {
    sessions: DashMap<SessionId, Arc<Mutex<SessionNames>>>,
    ttl: Duration,
    sweeps: SweepClock,
}

impl Default for RecallBook {
    /// Sessions forgotten after a day idle, like the vault's default.
    fn default() -> Self {
        RecallBook::new(Duration::from_secs(24 * 3600))
    }
}

impl RecallBook {
    /// A book whose sessions are forgotten after `ttl` idle.
    pub fn new(ttl: Duration) -> RecallBook {
        RecallBook {
            sessions: DashMap::new(),
            ttl,
            sweeps: SweepClock::new(),
        }
    }

    /// The session's recalled names, if it has any. Cheap: one map lookup and an `Arc` clone.
    pub fn snapshot(&self, session: &SessionId) -> Option<Arc<Recall>> {
        let table = self.sessions.get(session)?.clone();
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        t.last_used = Instant::now();
        t.snapshot.clone()
    }

    /// Teaches the session `names` (values already judged distinctive), adding the new ones to
    /// its tables in place. Returns how many were new.
    pub fn learn<'a>(
        &self,
        session: &SessionId,
        names: impl IntoIterator<Item = &'a str>,
    ) -> usize {
        // Each name's form in one buffer, worked out as it is inserted: past the cap, the rest
        // are not read.
        let mut form = String::new();
        let mut names = names.into_iter();
        let mut next_form = |form: &mut String| {
            for name in names.by_ref() {
                form.clear();
                push_recall_form(name, form);
                if form.chars().count() >= 2 {
                    return true;
                }
            }
            false
        };
        if !next_form(&mut form) {
            return 0;
        }
        let table = self.table(session);
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        t.last_used = Instant::now();
        let recall = Arc::make_mut(t.snapshot.get_or_insert_with(|| Arc::new(Recall::new())));
        let mut added = 0;
        loop {
            if recall.names >= MAX_RECALLED_NAMES {
                tracing::debug!(cap = MAX_RECALLED_NAMES, "session recall is full");
                break;
            }
            if recall.insert(&form) {
                added += 1;
            }
            if !next_form(&mut form) {
                break;
            }
        }
        added
    }

    /// Teaches the session the names of `table`, made by [`Recall::of_names_upto`] of `names`
    /// with all the room of a session that recalls nothing yet, and returns the session's
    /// recall after it, and whether that recall is `table`. A session that indeed recalls
    /// nothing yet takes `table` itself: learning `names` one by one would build that very table
    /// (same forms, same order, the same cap), so the message's count table is not built a
    /// second time, and what the caller found with it is what the session's recall finds.
    /// Otherwise (another message of the session learned names meanwhile) `names` are learned
    /// as usual.
    pub(crate) fn adopt<'a>(
        &self,
        session: &SessionId,
        table: Recall,
        names: impl IntoIterator<Item = &'a str>,
    ) -> (Option<Arc<Recall>>, bool) {
        {
            let sessions = self.table(session);
            let mut t = sessions.lock().unwrap_or_else(|e| e.into_inner());
            t.last_used = Instant::now();
            if t.snapshot.is_none() {
                let table = Arc::new(table);
                t.snapshot = Some(Arc::clone(&table));
                return (Some(table), true);
            }
        }
        self.learn(session, names);
        (self.snapshot(session), false)
    }

    /// Remembers NAME values the session minted, each already in the vault's normal form
    /// (`vault::normalize`), whether or not they are distinctive.
    pub fn learn_known<'a>(&self, session: &SessionId, forms: impl IntoIterator<Item = &'a str>) {
        let forms: Vec<&str> = forms.into_iter().collect();
        if forms.is_empty() {
            return;
        }
        let table = self.table(session);
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        // Room for the forms up front, within the cap: the set would otherwise grow as it
        // fills, hashing every form it holds again each time it doubles.
        let room = MAX_KNOWN_NAMES.saturating_sub(t.known.len());
        t.known.reserve(forms.len().min(room));
        for form in forms {
            if t.known.len() >= MAX_KNOWN_NAMES {
                break;
            }
            t.known.get_or_insert_with(form, |f: &str| Box::from(f));
        }
    }

    /// For each of `forms` (normal forms), whether the session minted it as a NAME.
    pub fn known(&self, session: &SessionId, forms: &[&str]) -> Vec<bool> {
        let Some(table) = self.sessions.get(session).map(|t| t.clone()) else {
            return vec![false; forms.len()];
        };
        let t = table.lock().unwrap_or_else(|e| e.into_inner());
        forms.iter().map(|f| t.known.contains(*f)).collect()
    }

    /// The session's table, made if it has none (sweeping idle sessions when due).
    fn table(&self, session: &SessionId) -> Arc<Mutex<SessionNames>> {
        self.maybe_sweep();
        self.sessions
            .entry(session.clone())
            .or_insert_with(|| Arc::new(Mutex::new(SessionNames::new())))
            .clone()
    }

    /// Whether the session's names in a shared vault are due to be read again (never read, or
    /// last read more than `every` ago). When due, marks them read now and returns the highest
    /// NAME number read so far, to read only newer ones; `None` when not due.
    pub fn sync_due(&self, session: &SessionId, every: Duration) -> Option<u32> {
        let table = self.table(session);
        let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if t.synced_at.is_some_and(|at| now.duration_since(at) < every) {
            return None;
        }
        t.synced_at = Some(now);
        Some(t.synced_upto)
    }

    /// Records that the session's names up to NAME number `upto` have been read from a shared
    /// vault.
    pub fn synced(&self, session: &SessionId, upto: u32) {
        if let Some(table) = self.sessions.get(session) {
            let mut t = table.lock().unwrap_or_else(|e| e.into_inner());
            t.synced_upto = t.synced_upto.max(upto);
        }
    }

    /// Forgets a session's names (end of session); unknown sessions are fine.
    pub fn forget(&self, session: &SessionId) {
        self.sessions.remove(session);
    }

    /// The number of sessions with recalled names.
    pub fn session_count(&self) -> usize {
        self.sessions.len()
    }

    /// Forgets every session idle for longer than the TTL; returns how many were forgotten.
    pub fn sweep_expired(&self) -> usize {
        sweep_idle(&self.sessions, self.ttl, |t| t.last_used)
    }

    fn maybe_sweep(&self) {
        if self.sweeps.due(self.ttl) {
            self.sweep_expired();
        }
    }
}

#[cfg(test)]
mod tests;
