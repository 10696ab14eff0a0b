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
//! to lower case), whose entry chains the names that begin with it, longest first; a name the
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
/// detector, so the text is walked 32 bytes a step (their classes with SSE2, `lanes`), and
/// names are compared only where one may begin. Each step gives the word starts in it; a word
/// start's first eight bytes (folded to lower case, zero from the end of its word) are tested
/// against a table of the names' own (so "the" and "and" are not taken for the start of "theo"
/// or "andrew", nor "michael" for "michaela"), and only then is the word hashed and looked up in a hash table of the names' first ASCII
/// words, whose entry lists the names that begin with that word, longest first. Names that
/// begin with another character are tried at each non-ASCII character start whose first two
/// bytes begin one (a 64 Kibit table, then a hash table of such pairs).
#[derive(Debug, Clone)]
pub struct Recall {
    /// The names and the extra case forms of names with other cased letters, one after
    /// another.
    bytes: String,
    /// One per pattern in `bytes`, chained per first word (or pair) longest first.
    patterns: Vec<Pattern>,
    /// The first pattern of each first ASCII word, by its hash ([`ascii_word`]).
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
    /// Bit [`prefix_bit`] of [`prefix_key`] is set for each name that starts with an ASCII
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

/// The key of the prefix table for the word bytes `v` (each folded to lower case where its
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

/// The bytes of `v`, each folded to lower case when its lane is set in `word` and zero
/// otherwise ([`prefix_key`] of every lane at once).
#[inline(always)]
fn word_bytes(v: u64, word: u64) -> u64 {
    (v | FOLD) & ((word >> 7) * 0xFF)
}

/// The bit of the prefix table for a [`prefix_key`].
#[inline(always)]
fn prefix_bit(key: u64) -> usize {
    (key.wrapping_mul(0xd6e8_feb8_6659_fd93) >> (64 - PREFIX_TABLE_BITS)) as usize
}

/// The prefix table's key ([`prefix_key`]) of the word starting at `start`, whose word bytes
/// from `start` on are the bits of `words` from bit 0 (at least eight of them): the bytes
/// of the first word, up to eight, folded to lower case.
#[inline(always)]
fn key_at(b: &[u8], start: usize, words: u64) -> u64 {
    folded_at(b, start) & KEEP[usize::from(words as u8)]
}

/// For each eight bits of word bytes (bit `k` for byte `k`), the mask of the bytes before the
/// first that is no word byte ([`key_at`]): a load and an and per word start, where the word's
/// length and a shift by it took a dozen instructions.
static KEEP: [u64; 256] = keep_masks();

const fn keep_masks() -> [u64; 256] {
    let mut masks = [0u64; 256];
    let mut bits = 0;
    while bits < 256 {
        let len = (!bits as u32).trailing_zeros();
        masks[bits] = if len >= 8 {
            u64::MAX
        } else {
            (1u64 << (len * 8)) - 1
        };
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
        let tail_len = (b.len() - skip).min(8);
        let tail_mask = if tail_len == 8 {
            u64::MAX
        } else {
            (1u64 << (tail_len * 8)) - 1
        };
        let mut pattern = Pattern {
            start,
            len,
            next: NONE,
            name,
            tail: folded_at(b, skip) & tail_mask,
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
            let bit = prefix_bit(prefix_key(v, alnum_lanes(v)));
            self.prefixes[bit >> 6] |= 1 << (bit & 63);
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
        // Thirty-two bytes from `i` at a time: the classes of their first sixteen (`c`), and
        // whether the byte before `i` is a word byte (`before`, one bit). Each step classifies
        // its second sixteen and the sixteen after its own too, for the words that start late
        // in its own and go on (and the next step's first sixteen). After an occurrence the
        // search goes on from its end in this same state.
        let mut i = from;
        let mut c = lanes::classes(b, i);
        let mut before = u32::from(i > 0 && b.get(i - 1).is_some_and(u8::is_ascii_alphanumeric));
        while i < b.len() {
            // The 48 bytes from `i` (zeros past the end of the text): the 32 of this step, the
            // sixteen classified for the next, and the eight bytes from each word start, read
            // without a bounds check (a word start is at most bit 32 of a `u32`).
            let padded;
            let block: &[u8; 48] = match b.get(i..).and_then(<[u8]>::first_chunk) {
                Some(block) => block,
                None => {
                    padded = lanes::padded::<48>(b, i);
                    &padded
                }
            };
            let (c1, c2) = (lanes::classes(block, 16), lanes::classes(block, 32));
            let alnum = c.alnum | c1.alnum << 16;
            let words = u64::from(alnum) | u64::from(c2.alnum) << 32;
            let starts = alnum & !((alnum << 1) | before);
            let leads = c.lead | c1.lead << 16;
            let resume = if leads == 0 {
                // Word starts only (most of the text): the first eight bytes of each, then
                // its first word's entry in the table, say whether a name may begin there.
                let mut next = starts;
                let mut resume = None;
                while next != 0 {
                    let bit = next.trailing_zeros();
                    next &= next - 1;
                    let start = i + bit as usize;
                    let k = prefix_bit(key_at(block, bit as usize, words >> bit));
                    if prefixes[k >> 6] & (1 << (k & 63)) != 0
                        && let Some(end) = self.match_at(text, start)
                    {
                        if !found(Span::new(start, end, Kind::Name)) {
                            return;
                        }
                        resume = Some(end);
                        break;
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
                    before = u32::from(b[i - 1].is_ascii_alphanumeric());
                }
                None => {
                    i += 32;
                    before = alnum >> 31;
                    c = c2;
                }
            }
        }
    }

    /// The step of [`Recall::find`] for 32 bytes from `i` that hold non-ASCII character
    /// starts (`leads`) besides the word starts (`starts`): both are candidates, in text order.
    /// `words` are the word bytes of the 48 bytes from `i`. Returns the start and end of the
    /// name found first.
    #[inline(never)]
    fn find_in_mixed(
        &self,
        text: &str,
        i: usize,
        starts: u32,
        leads: u32,
        words: u64,
    ) -> Option<(usize, usize)> {
        let b = text.as_bytes();
        let mut next = starts | leads;
        while next != 0 {
            let bit = next.trailing_zeros();
            next &= next - 1;
            let start = i + bit as usize;
            let found = if starts & (1 << bit) != 0 {
                let k = prefix_bit(key_at(b, start, words >> bit));
                self.prefixes[k >> 6] & (1 << (k & 63)) != 0
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
mod tests {
    use aho_corasick::{AhoCorasick, AhoCorasickBuilder, Anchored, Input, MatchKind, StartKind};

    use super::*;

    fn found<'t>(recall: &Recall, text: &'t str) -> Vec<&'t str> {
        let mut out = Vec::new();
        recall.find(text, &mut out);
        out.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn recalls_whole_words_in_any_ascii_case() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        assert_eq!(book.learn(&s, ["Maria  Ortiz", "Xochitl"]), 2);
        let r = book.snapshot(&s).expect("names learned");
        assert_eq!(
            found(&r, "ping MARIA ORTIZ and maria ortiz; xochitl too"),
            ["MARIA ORTIZ", "maria ortiz", "xochitl"]
        );
        // Not inside longer words.
        assert!(found(&r, "xochitls mariaortiz Maria Ortizes").is_empty());
    }

    #[test]
    fn recalls_names_with_other_cased_letters_in_upper_and_title_case() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        assert_eq!(book.learn(&s, ["ÁNGEL WĄS-ĆWIK", "Ørjan"]), 2);
        assert_eq!(book.learn(&s, ["ángel wąs-ćwik"]), 0, "same name, any case");
        let r = book.snapshot(&s).expect("names learned");
        assert_eq!(
            found(
                &r,
                "Ángel Wąs-Ćwik, ángel wąs-ćwik and ÁNGEL WĄS-ĆWIK; ØRJAN, ørjan"
            ),
            [
                "Ángel Wąs-Ćwik",
                "ángel wąs-ćwik",
                "ÁNGEL WĄS-ĆWIK",
                "ØRJAN",
                "ørjan"
            ]
        );
    }

    #[test]
    fn sessions_are_isolated_and_forgotten() {
        let book = RecallBook::default();
        let (a, b) = (SessionId::new("a"), SessionId::new("b"));
        book.learn(&a, ["Maria Ortiz"]);
        assert!(book.snapshot(&b).is_none());
        assert_eq!(book.learn(&a, ["maria ortiz"]), 0, "same name, any case");
        book.forget(&a);
        assert!(book.snapshot(&a).is_none());
    }

    #[test]
    fn idle_sessions_expire() {
        let book = RecallBook::new(Duration::ZERO);
        let s = SessionId::new("a");
        book.learn(&s, ["Maria Ortiz"]);
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(book.sweep_expired(), 1);
        assert_eq!(book.session_count(), 0);
    }

    #[test]
    fn cjk_names_need_no_spaces_around_them() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        book.learn(&s, ["王伟"]);
        let r = book.snapshot(&s).unwrap();
        assert_eq!(found(&r, "请联系王伟。"), ["王伟"]);
    }

    #[test]
    fn alnum_lanes_is_exact_for_every_byte_in_every_lane() {
        for b in 0..=255u8 {
            for lane in 0..8 {
                // The byte among neighbours of every kind (a letter, a non-ASCII byte, a
                // digit), so a carry between lanes would show.
                for fill in [b'z', 0xff, b'0', 0x7f, 0] {
                    let mut bytes = [fill; 8];
                    bytes[lane] = b;
                    let lanes = alnum_lanes(u64::from_le_bytes(bytes));
                    for (k, &c) in bytes.iter().enumerate() {
                        let set = lanes >> (8 * k + 7) & 1 == 1;
                        assert_eq!(set, c.is_ascii_alphanumeric(), "byte {c:#x} in lane {k}");
                    }
                    assert_eq!(lanes & !HIGH, 0);
                }
            }
        }
    }

    #[test]
    fn first_word_key_keeps_the_bytes_before_the_first_zero() {
        let mut rng = crate::testdata::Rng::new(3);
        for _ in 0..200_000 {
            // Bytes of a word (non-zero, below 0x80) or zero, with zeros common (each of the
            // eight lanes is the first zero often enough).
            let bytes: [u8; 8] = std::array::from_fn(|_| match rng.below(6) {
                0 => 0,
                _ => 1 + rng.below(127) as u8,
            });
            let len = bytes.iter().position(|&c| c == 0).unwrap_or(8);
            let mut kept = [0u8; 8];
            kept[..len].copy_from_slice(&bytes[..len]);
            assert_eq!(
                first_word_key(u64::from_le_bytes(bytes)),
                u64::from_le_bytes(kept),
                "{bytes:?}"
            );
        }
        // Every word length up to eight and beyond, from a real load.
        for len in 0..=12 {
            let text = format!("{} x", &"abcdefghijkl"[..len]);
            let v = load(text.as_bytes(), 0);
            let want = &"abcdefgh"[..len.min(8)];
            let mut kept = [0u8; 8];
            kept[..want.len()].copy_from_slice(want.as_bytes());
            assert_eq!(
                prefix_key(v, alnum_lanes(v)),
                u64::from_le_bytes(kept),
                "{len}"
            );
        }
    }

    #[test]
    fn the_word_filter_never_drops_a_recalled_name() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        let names: Vec<String> = (0..3000)
            .map(|i| format!("given{i} family{}", i * 7))
            .chain([
                "josé ruiz".into(),
                "o'neil".into(),
                "jean-luc picard".into(),
            ])
            .collect();
        book.learn(&s, names.iter().map(String::as_str));
        let r = book.snapshot(&s).unwrap();
        let text = names.join(", ").to_uppercase();
        assert_eq!(found(&r, &text).len(), names.len());
        assert_eq!(
            found(&r, "Josés, JOSÉ RUIZ and O'Neil met Jean-Luc Picard"),
            ["JOSÉ RUIZ", "O'Neil", "Jean-Luc Picard"]
        );
    }

    /// The scan without the word filter or the eight-byte loads: every ASCII word start and
    /// every non-ASCII character start outside a found name is tried.
    /// Up to `most` of `pieces` in random order, mostly with a separator after each.
    fn random_text(rng: &mut crate::testdata::Rng, pieces: &[&str], most: usize) -> String {
        let mut text = String::new();
        for _ in 0..rng.below(most) {
            text.push_str(rng.pick::<&str>(pieces));
            if rng.below(3) > 0 {
                text.push_str(rng.pick::<&str>(&[" ", ", ", "", "\t", "…"]));
            }
        }
        text
    }

    fn found_by_bytes<'t>(recall: &Recall, text: &'t str) -> Vec<&'t str> {
        found_at_word_starts(text, |i| recall.match_at(text, i))
    }

    /// The names `match_at` finds, tried at every ASCII word start and non-ASCII character
    /// start outside a found name (`match_at(i)` is the end of a name starting at `i`).
    fn found_at_word_starts(text: &str, match_at: impl Fn(usize) -> Option<usize>) -> Vec<&str> {
        let (b, mut out, mut i) = (text.as_bytes(), Vec::new(), 0);
        while i < b.len() {
            let word = b[i].is_ascii_alphanumeric();
            if (word || (b[i] >= 0xC0 && i + 1 < b.len()))
                && let Some(end) = match_at(i)
            {
                out.push(&text[i..end]);
                i = end;
            } else if word {
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        out
    }

    #[test]
    fn the_word_scan_tries_every_word_and_character_start() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        let names = [
            "maria ortiz",
            "xochitl",
            "abcdefgh",
            "abcdefghijklmnop q",
            "ab1234567 z",
            "josé ruiz",
            "o'neil",
            "ørjan",
            "王伟",
            "q",
            "zz top",
        ];
        book.learn(&s, names);
        let r = book.snapshot(&s).unwrap();
        let pieces = [
            "Maria Ortiz",
            "MARIA  ORTIZ",
            "xochitl",
            "Xochitls",
            "ABCDEFGH",
            "abcdefghi",
            "abcdefghijklmnop Q",
            "AB1234567 Z",
            "ab1234567z",
            "JOSÉ RUIZ",
            "josés",
            "O'Neil",
            "ØRJAN",
            "Ørjan",
            "王伟",
            "请联系王伟。",
            "é",
            "ZZ Top",
            "zz",
            "@",
            "[",
            "`",
            "{",
            "\u{10}",
            "\n",
            " ",
            "-",
            "9",
            "Zz TOP",
            "émaria ortiz",
            "maria ortizé",
        ];
        let mut rng = crate::testdata::Rng::new(7);
        for _ in 0..3000 {
            let text = random_text(&mut rng, &pieces, 12);
            assert_eq!(found(&r, &text), found_by_bytes(&r, &text), "{text:?}");
        }
        let all = pieces.join(" ");
        assert_eq!(found(&r, &all).len(), 13, "{:?}", found(&r, &all));
    }

    /// The scan of the automaton recall used before its tables were updated in place: an
    /// anchored leftmost-longest Aho-Corasick search (ASCII case folded) over the names and
    /// the upper-case and title-case forms of names with other cased letters, tried at every
    /// ASCII word start and non-ASCII character start outside a found name.
    fn found_by_automaton<'t>(matcher: &AhoCorasick, text: &'t str) -> Vec<&'t str> {
        found_at_word_starts(text, |i| {
            let input = Input::new(text).span(i..text.len()).anchored(Anchored::Yes);
            matcher
                .find(input)
                .and_then(|m| stands_by_chars(text, i, m.end()))
        })
    }

    /// The automaton of [`found_by_automaton`] for `names`.
    fn automaton(names: &[&str]) -> AhoCorasick {
        let mut patterns: Vec<String> = Vec::new();
        for name in names {
            let mut form = String::new();
            push_recall_form(name, &mut form);
            if !form.is_ascii() {
                patterns.extend([form.to_uppercase(), title_case(&form)]);
            }
            patterns.push(form);
        }
        AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .start_kind(StartKind::Anchored)
            .build(&patterns)
            .unwrap()
    }

    #[test]
    fn the_tables_find_what_the_automaton_found() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        // Names that begin others, share a first word, end inside another's word, and have
        // other cased letters, learned over several messages (the tables grow in place).
        let names = [
            "maria",
            "maria ortiz",
            "maria ortiz jr",
            "maria ortiza",
            "maria-luisa",
            "xochitl",
            "xochitls smith",
            "josé",
            "josé ruiz",
            "jos",
            "ørjan",
            "ørjan lie",
            "ßtraße",
            "王伟",
            "王伟明",
            "abcdefgh",
            "abcdefgh ij",
            "o'neil",
        ];
        for chunk in names.chunks(4) {
            book.learn(&s, chunk.iter().copied());
        }
        let r = book.snapshot(&s).unwrap();
        let matcher = automaton(&names);
        let pieces = [
            "Maria",
            "maria",
            "MARIA ORTIZ",
            "Maria Ortiz Jr",
            "maria ortiz jrx",
            "Maria Ortiza",
            "maria ortizé",
            "Maria-Luisa",
            "maria-",
            "Xochitl",
            "XOCHITLS SMITH",
            "xochitls",
            "José",
            "JOSÉ RUIZ",
            "Jos",
            "josé ruizx",
            "ØRJAN",
            "Ørjan Lie",
            "ørjan lie",
            "SSTRASSE",
            "SStraße",
            "王伟",
            "王伟明",
            "王伟明白",
            "ABCDEFGH",
            "abcdefgh IJ",
            "abcdefghij",
            "O'Neil",
            "o'neils",
            "é",
            " ",
            ", ",
            "-",
            "'",
            "…",
            "\n",
            "9",
        ];
        let mut rng = crate::testdata::Rng::new(11);
        for _ in 0..3000 {
            let text = random_text(&mut rng, &pieces, 10);
            assert_eq!(
                found(&r, &text),
                found_by_automaton(&matcher, &text),
                "{text:?}"
            );
            // Going on from the end of any occurrence finds the ones after it.
            let mut all = Vec::new();
            r.find(&text, &mut all);
            for (k, s) in all.iter().enumerate() {
                let mut rest = Vec::new();
                r.find_from(&text, s.end, &mut rest);
                assert_eq!(rest, all[k + 1..], "{text:?} from {}", s.end);
            }
        }
    }

    #[test]
    fn the_cap_bounds_a_session() {
        let book = RecallBook::default();
        let s = SessionId::new("a");
        let names: Vec<String> = (0..MAX_RECALLED_NAMES + 10)
            .map(|i| format!("name{i} surname"))
            .collect();
        assert_eq!(
            book.learn(&s, names.iter().map(String::as_str)),
            MAX_RECALLED_NAMES
        );
    }

    /// A fresh session that adopts a message's count table holds what learning the names
    /// would have built, up to the cap, whatever the names' case, spacing and script; a
    /// session that already recalls names learns them as before.
    #[test]
    fn adopting_the_count_table_is_learning_its_names() {
        let mut names: Vec<String> = vec![
            "Maria Ortiz".into(),
            "maria  ORTIZ".into(),
            "Józef Wąs".into(),
            "张伟".into(),
            "x".into(),
            "Ørsted".into(),
        ];
        names.extend((0..MAX_RECALLED_NAMES + 10).map(|i| format!("name{i} Surname")));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let learned = RecallBook::default();
        let s = SessionId::new("a");
        learned.learn(&s, names.iter().copied());
        let adopted = RecallBook::default();
        let table = Recall::of_names_upto(names.iter().copied(), MAX_RECALLED_NAMES);
        let (got, took) = adopted.adopt(&s, table, names.iter().copied());
        let got = got.unwrap();
        assert!(took);
        let want = learned.snapshot(&s).unwrap();
        assert_eq!(format!("{got:?}"), format!("{want:?}"));
        assert_eq!(got.names(), MAX_RECALLED_NAMES);
        assert!(Arc::ptr_eq(&got, &adopted.snapshot(&s).unwrap()));
        // Not fresh: learned into the session's own table, the count table left aside.
        let other = Recall::of_names_upto(["Ada Lovelace"], usize::MAX);
        let busy = RecallBook::default();
        busy.learn(&s, ["Grace Hopper"]);
        let (got, took) = busy.adopt(&s, other, ["Ada Lovelace"]);
        let got = got.unwrap();
        assert!(!took);
        assert_eq!(got.names(), 2);
        assert!(got.contains("ada lovelace") && got.contains("grace hopper"));
    }

    /// [`Recall::insert`] as it was before one walk found both a known name and the new
    /// pattern's place: a walk over the whole chain for the name, then, in `add`, the first
    /// word's hash and length again and a second walk for the place. (Keyed as the tables are
    /// now, [`chain_key`].)
    fn insert_by_two_walks(r: &mut Recall, name: &str) -> bool {
        let Some((word, h, _)) = chain_key(name.as_bytes()) else {
            return false;
        };
        let table = if word { &r.words } else { &r.pairs };
        let mut at = table.get(h).unwrap_or(NONE);
        while at != NONE {
            if r.patterns[at as usize].name && r.pattern(at) == name.as_bytes() {
                return false;
            }
            at = r.patterns[at as usize].next;
        }
        r.names += 1;
        add_by_walk(r, name, true);
        if !name.is_ascii() {
            let upper = name.to_uppercase();
            let title = title_case(name);
            if upper != name {
                add_by_walk(r, &upper, false);
            }
            if title != name && title != upper {
                add_by_walk(r, &title, false);
            }
        }
        true
    }

    /// The `add` of [`insert_by_two_walks`].
    fn add_by_walk(r: &mut Recall, form: &str, name: bool) {
        let b = form.as_bytes();
        let (word, h, _) = chain_key(b).unwrap();
        let (start, len, index) = (
            r.bytes.len() as u32,
            b.len() as u32,
            r.patterns.len() as u32,
        );
        let head = if word { &r.words } else { &r.pairs }
            .get(h)
            .unwrap_or(NONE);
        let skip = if word {
            b.iter()
                .position(|c| !c.is_ascii_alphanumeric())
                .unwrap_or(b.len())
        } else {
            0
        };
        let tail_len = (b.len() - skip).min(8);
        let tail_mask = if tail_len == 8 {
            u64::MAX
        } else {
            (1u64 << (tail_len * 8)) - 1
        };
        let mut pattern = Pattern {
            start,
            len,
            next: head,
            name,
            tail: folded_at(b, skip) & tail_mask,
            tail_mask,
        };
        if head != NONE && r.patterns[head as usize].len >= len {
            let mut at = head;
            loop {
                let next = r.patterns[at as usize].next;
                if next == NONE || r.patterns[next as usize].len < len {
                    break;
                }
                at = next;
            }
            pattern.next = r.patterns[at as usize].next;
            r.patterns[at as usize].next = index;
        } else if word {
            r.words.set(h, index);
        } else {
            r.pairs.set(h, index);
        }
        r.patterns.push(pattern);
        r.bytes.push_str(form);
        if word {
            let v = load(b, 0);
            let bit = prefix_bit(prefix_key(v, alnum_lanes(v)));
            r.prefixes[bit >> 6] |= 1 << (bit & 63);
        } else {
            let k = pair_key(b[0], b[1]);
            let starts = r.starts.get_or_insert_with(|| Box::new([0u64; PAIR_WORDS]));
            starts[k >> 6] |= 1 << (k & 63);
        }
    }

    /// Random names: words from a small set (so first words and whole names repeat, chains
    /// grow long and names begin others), in any case and spacing, some with other cased
    /// letters or starting with a non-ASCII character.
    fn random_names(rng: &mut crate::testdata::Rng, n: usize) -> Vec<String> {
        let words = [
            "maria",
            "Maria",
            "ORTIZ",
            "ortiza",
            "jo",
            "józef",
            "WĄS",
            "ørjan",
            "王伟",
            "ßtraße",
            "o'neil",
            "jean-luc",
            "x",
            "ab1234567",
            "abcdefghij",
            "q.",
            "al",
            "smith",
            "Ángel",
            "de",
            "la",
            "cruz",
        ];
        (0..n)
            .map(|_| {
                let mut name = String::new();
                for k in 0..1 + rng.below(4) {
                    if k > 0 || rng.below(8) == 0 {
                        name.push_str(rng.pick::<&str>(&[" ", "  ", "\t", "\u{a0}", "\u{b}"]));
                    }
                    name.push_str(rng.pick::<&str>(&words));
                }
                name
            })
            .collect()
    }

    #[test]
    fn one_walk_builds_the_table_two_walks_built() {
        let mut rng = crate::testdata::Rng::new(23);
        for round in 0..300 {
            let n = 1 + rng.below(if round % 10 == 0 { 2000 } else { 60 });
            let names = random_names(&mut rng, n);
            let room = rng.below(names.len() + 2);
            let new = Recall::of_names_upto(names.iter().map(String::as_str), room);
            let mut old = Recall::new();
            let mut form = String::new();
            for name in &names {
                if old.names >= room {
                    break;
                }
                form.clear();
                push_recall_form_by_words(name, &mut form);
                if form.chars().count() >= 2 {
                    insert_by_two_walks(&mut old, &form);
                }
            }
            assert_eq!(format!("{new:?}"), format!("{old:?}"), "{names:?}");
        }
    }

    #[test]
    fn the_recall_form_in_one_pass_is_the_form_by_words() {
        let mut rng = crate::testdata::Rng::new(29);
        let pieces = [
            "Maria", "ORTIZ", " ", "  ", "\t", "\n", "\r", "\u{c}", "\u{b}", "\u{a0}", "\u{85}",
            "józef", "ÅSA", "x", "-", "'", "7", "\u{0}", "\u{7f}", "İ",
        ];
        for _ in 0..20_000 {
            let value = random_text(&mut rng, &pieces, 8);
            let prefix: &str = rng.pick::<&str>(&["", "kept ", "Ø"]);
            let (mut new, mut old) = (String::from(prefix), String::from(prefix));
            push_recall_form(&value, &mut new);
            push_recall_form_by_words(&value, &mut old);
            assert_eq!(new, old, "{value:?}");
        }
    }

    /// The search as it was before a name that ends the text ended it (it classified a step
    /// from the text's end first).
    fn found_by_restarts<'t>(r: &Recall, text: &'t str, from: usize) -> Vec<&'t str> {
        let mut out = Vec::new();
        let b = text.as_bytes();
        let prefixes = &*r.prefixes;
        let mut i = from;
        let mut c = lanes::classes(b, i);
        let mut before = u32::from(i > 0 && b.get(i - 1).is_some_and(u8::is_ascii_alphanumeric));
        while i < b.len() {
            let block = lanes::padded::<48>(b, i);
            let (c1, c2) = (lanes::classes(&block, 16), lanes::classes(&block, 32));
            let alnum = c.alnum | c1.alnum << 16;
            let words = u64::from(alnum) | u64::from(c2.alnum) << 32;
            let starts = alnum & !((alnum << 1) | before);
            let leads = c.lead | c1.lead << 16;
            let resume = if leads == 0 {
                let mut next = starts;
                let mut resume = None;
                while next != 0 {
                    let bit = next.trailing_zeros();
                    next &= next - 1;
                    let start = i + bit as usize;
                    let k = prefix_bit(key_at(&block, bit as usize, words >> bit));
                    if prefixes[k >> 6] & (1 << (k & 63)) != 0
                        && let Some(end) = r.match_at(text, start)
                    {
                        out.push(&text[start..end]);
                        resume = Some(end);
                        break;
                    }
                }
                resume
            } else {
                r.find_in_mixed(text, i, starts, leads, words)
                    .map(|(start, end)| {
                        out.push(&text[start..end]);
                        end
                    })
            };
            match resume {
                Some(end) => {
                    i = end;
                    c = lanes::classes(b, i);
                    before = u32::from(b[i - 1].is_ascii_alphanumeric());
                }
                None => {
                    i += 32;
                    before = alnum >> 31;
                    c = c2;
                }
            }
        }
        out
    }

    #[test]
    fn the_search_finds_what_it_found_before_it_stopped_at_the_end() {
        let mut rng = crate::testdata::Rng::new(31);
        let names = random_names(&mut rng, 400);
        let r = Recall::of_names(names.iter().map(String::as_str));
        // The names themselves in other cases and spacing, pieces of them, and long fillers,
        // so names end at every offset of a step, inside it, at its end and past it.
        let mut pieces: Vec<String> = names.iter().take(60).cloned().collect();
        pieces.extend(names.iter().take(30).map(|n| n.to_uppercase()));
        pieces.extend(
            [
                "maria",
                "jo",
                "王伟明",
                "ørjanx",
                "x",
                "é",
                " ",
                ", ",
                "-",
                "'",
                "\n",
                "9",
                "a",
                "abcdefghijklmnopqrstuvwxyz0123",
                "the quick brown fox jumps over",
                "…",
            ]
            .map(String::from),
        );
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        for round in 0..6000 {
            let text = random_text(&mut rng, &pieces, if round % 50 == 0 { 120 } else { 14 });
            let mut spans = Vec::new();
            r.find(&text, &mut spans);
            let got: Vec<&str> = spans.iter().map(|s| &text[s.start..s.end]).collect();
            assert_eq!(got, found_by_restarts(&r, &text, 0), "{text:?}");
            assert_eq!(r.count(&text), got.len());
            // Going on from each end, and stopping after any number.
            for (k, s) in spans.iter().enumerate() {
                let mut rest = Vec::new();
                r.find_from(&text, s.end, &mut rest);
                assert_eq!(rest, spans[k + 1..], "{text:?} from {}", s.end);
                let mut first = Vec::new();
                assert!(r.find_exceeding(&text, k, &mut first));
                assert_eq!(first, spans[..=k]);
                assert!(r.count_exceeds(&text, k) && !r.count_exceeds(&text, spans.len()));
            }
        }
    }

    #[test]
    fn lower_lanes_is_to_ascii_lowercase_in_every_lane() {
        for b in 0..=255u8 {
            for lane in 0..8 {
                for fill in [b'Z', b'a', 0xff, b'@', b'[', 0x7f, 0] {
                    let mut bytes = [fill; 8];
                    bytes[lane] = b;
                    let want = bytes.map(|c| c.to_ascii_lowercase());
                    assert_eq!(
                        lower_lanes(u64::from_le_bytes(bytes)),
                        u64::from_le_bytes(want),
                        "byte {b:#x} in lane {lane}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_word_compare_and_the_byte_neighbours_agree_with_the_char_ones() {
        let mut rng = crate::testdata::Rng::new(37);
        let pieces = [
            "a", "A", "z", "Z", "@", "[", "`", "{", "0", "9", " ", "é", "É", "王", "伟", "ß",
            "\u{0}", "\u{7f}", "mArIa", "MARIA", "ortiz", "-", "'",
        ];
        for _ in 0..20_000 {
            let a = random_text(&mut rng, &pieces, 10);
            let b = if rng.below(2) == 0 {
                // The same text in some other case.
                a.chars()
                    .map(|c| match rng.below(3) {
                        0 => c.to_ascii_uppercase(),
                        1 => c.to_ascii_lowercase(),
                        _ => c,
                    })
                    .collect()
            } else {
                random_text(&mut rng, &pieces, 10)
            };
            // Every length, past the shorter too.
            let (x, y) = (a.as_bytes(), b.as_bytes());
            for n in 0..=x.len().max(y.len()) + 1 {
                let want = n <= x.len().min(y.len()) && x[..n].eq_ignore_ascii_case(&y[..n]);
                assert_eq!(same_ignoring_ascii_case(x, y, n), want, "{a:?} {b:?} {n}");
            }
            // Every pair of character boundaries of `a`.
            let bounds: Vec<usize> = a.char_indices().map(|(i, _)| i).chain([a.len()]).collect();
            for &s in &bounds {
                for &e in bounds.iter().filter(|&&e| e >= s) {
                    assert_eq!(
                        stands(&a, s, e),
                        stands_by_chars(&a, s, e),
                        "{a:?} {s}..{e}"
                    );
                }
            }
        }
    }

    #[test]
    fn names_chained_by_their_two_bytes_after_the_first_word_find_what_the_automaton_found() {
        let mut rng = crate::testdata::Rng::new(41);
        for round in 0..40 {
            let n = 5 + rng.below(if round % 4 == 0 { 300 } else { 30 });
            let names = random_names(&mut rng, n);
            // The automaton has no two-character floor of its own.
            let names: Vec<&str> = names
                .iter()
                .map(String::as_str)
                .filter(|n| {
                    let mut form = String::new();
                    push_recall_form(n, &mut form);
                    form.chars().count() >= 2
                })
                .collect();
            let r = Recall::of_names(names.iter().copied());
            let matcher = automaton(&names);
            let mut pieces: Vec<String> = names.iter().map(|n| n.to_string()).collect();
            pieces.extend(names.iter().map(|n| n.to_uppercase()));
            pieces.extend(names.iter().map(|n| format!("{n}s")));
            pieces.extend(
                [
                    "maria",
                    "Maria Ort",
                    "jo",
                    "JO S",
                    "x",
                    "é",
                    " ",
                    ", ",
                    "-",
                    "'",
                    "9",
                    "al s",
                    "smithy",
                    "王伟明",
                    "q",
                ]
                .map(String::from),
            );
            let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
            for _ in 0..400 {
                let text = random_text(&mut rng, &pieces, 10);
                assert_eq!(
                    found(&r, &text),
                    found_by_automaton(&matcher, &text),
                    "{text:?} {names:?}"
                );
            }
            for name in &names {
                assert!(r.contains(name), "{name:?}");
            }
        }
    }

    #[test]
    fn is_plain_ascii_is_what_the_word_split_leaves_but_for_case() {
        // Every byte in every position of short texts around spaces, and generated ones.
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for c in 0..=255u8 {
            for len in 1..=18 {
                for at in 0..len {
                    let mut t: Vec<u8> = (0..len)
                        .map(|k| if k % 5 == 2 { b' ' } else { b'a' })
                        .collect();
                    t[at] = c;
                    texts.push(t);
                }
            }
        }
        let mut rng = crate::testdata::Rng::new(43);
        for _ in 0..20_000 {
            let n = rng.below(20);
            texts.push(
                (0..n)
                    .map(|_| *rng.pick(b"ab  \t\x0b\x0c\r\nZ\x7f\x00"))
                    .collect(),
            );
        }
        for t in &texts {
            let want = std::str::from_utf8(t).is_ok_and(|s| {
                s.is_ascii() && {
                    let mut form = String::new();
                    push_recall_form_by_words(s, &mut form);
                    form.as_bytes().eq_ignore_ascii_case(t)
                }
            });
            assert_eq!(is_plain_ascii(t), want, "{t:?}");
        }
    }
}
