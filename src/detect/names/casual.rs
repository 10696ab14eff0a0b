//! Lower-case names in casual text: chat, tweets, quick tickets ("wait simon wears glasses",
//! "hi all, can you call omar", "i swear freddie laughs").
//!
//! The main scan looks only at capitalised words in mixed-case text (and at every word in text
//! with no capital at all). Casual writing drops capitals from names as often as from sentence
//! starts, so in such text a lower-case word that is a given name or surname in the gazetteer
//! becomes a candidate here, after the main scan, and a small learned model (an averaged
//! perceptron over hashed features, like the candidate judge in [`super::model`]) decides.
//!
//! Two steps keep it cheap and safe:
//! - `regime`, a per-text test of the casing regime, runs only on short texts (at most
//!   `MAX_LEN` bytes) and looks for signs of casual writing: a lower-case start of the text
//!   or of a sentence, a lower-case "i", a chat word ("lol", "u", "gonna"), an `@`-mention or
//!   `#`-tag, an emoji, doubled `!`/`?`. Long and well-cased text never gets here.
//! - Candidates are lower-case words with a name score of 3 or more that are not among the
//!   thousand commonest English words and not on the title, month, place or never-a-person
//!   lists; a second lower-case name word right after one makes a two-word candidate too
//!   ("justin bieber"). The model scores both; the better one wins if its score is positive.
//!
//! Features are never the candidate's own words: gazetteer score buckets, word length, the
//! lower-cased words on each side, their shapes, the punctuation beside the candidate, a
//! possessive after it, sentence start, which regime signals fired and how capitalised the
//! text is. Weights: `data/names/casual.weights` (see `data/names/README.md`), trained by
//! `examples/names_train.rs` with the judge.

use super::NameFinder;
use super::gazetteer::{Entry, Gazetteer, ascii_word_hash_at};
use super::lexicon::{CALENDAR_F, NOT_PEOPLE_F, ORG_PLACE, TITLE};
use super::model::{Features, Judge, shipped_weights};
use super::words::{is_word_char, is_wordish};
use crate::detect::{Kind, Span};

/// Texts longer than this are documents, not chat: no casual stage.
pub(super) const MAX_LEN: usize = 2048;

/// Texts up to this long are short messages: the casual stage looks at them without other
/// signs (the model weighs the signs).
pub(super) const SHORT: usize = 280;

/// Chat words: a sign of casual writing, and never part of a name.
const CHAT_WORDS: &[&str] = &[
    "lol", "lmao", "lmfao", "omg", "u", "ur", "im", "ima", "gonna", "wanna", "gotta", "idk", "tbh",
    "smh", "pls", "plz", "thx", "haha", "hahaha", "btw", "rt", "ya", "yall", "bc", "cuz", "dont",
    "cant", "wont", "aint", "ive", "ill", "whats", "thats", "lemme", "kinda", "tho", "rn", "ngl",
    "omw", "nvm", "ok", "okay", "yeah", "yep", "nope", "hey", "hi", "isnt", "wat", "yea", "bro",
    "dude", "gon", "luv", "da", "dat", "wit", "r", "n", "b4", "cause",
];

/// One bit per signal of casual writing (a feature of the model too).
pub(super) mod sig {
    /// The text starts with a lower-case letter.
    pub(crate) const LOWER_START: u8 = 1;
    /// A sentence starts with a lower-case letter.
    pub(crate) const LOWER_SENTENCE: u8 = 1 << 1;
    /// The pronoun "i" in lower case.
    pub(crate) const LOWER_I: u8 = 1 << 2;
    /// A chat word ("lol", "u", "gonna").
    pub(crate) const CHAT: u8 = 1 << 3;
    /// An `@`-mention or `#`-tag.
    pub(crate) const TAG: u8 = 1 << 4;
    /// An emoji or doubled `!`/`?`.
    pub(crate) const EMPHASIS: u8 = 1 << 5;
    /// A short message (at most [`super::SHORT`] bytes: a chat line, a tweet, a title) not
    /// closed by a full stop.
    pub(crate) const SHORT: u8 = 1 << 6;
}

/// A word of up to seven bytes as one number, ASCII letters folded to lower case (the bytes
/// little-endian; the eighth is zero, so words of different lengths differ).
const fn word_key(w: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < w.len() {
        key |= (w[i].to_ascii_lowercase() as u64) << (8 * i);
        i += 1;
    }
    key
}

/// [`CHAT_WORDS`] as [`word_key`]s, sorted: the regime test asks about every word of a text,
/// and a binary search over these beats comparing each word with sixty strings.
const CHAT_KEYS: [u64; CHAT_WORDS.len()] = sorted_keys(CHAT_WORDS);

/// The [`word_key`]s of `words` (each of seven bytes or fewer), sorted.
const fn sorted_keys<const N: usize>(words: &[&str]) -> [u64; N] {
    assert!(words.len() == N);
    let mut keys = [0u64; N];
    let mut i = 0;
    while i < N {
        assert!(words[i].len() <= 7);
        keys[i] = word_key(words[i].as_bytes());
        // Insertion sort: move the new key down to its place.
        let mut j = i;
        while j > 0 && keys[j - 1] > keys[j] {
            let t = keys[j - 1];
            keys[j - 1] = keys[j];
            keys[j] = t;
            j -= 1;
        }
        i += 1;
    }
    keys
}

/// Bit `z & 31` of entry `[n][a & 31]` is set when a chat word of `n` bytes starts with the
/// byte `a` and ends with the byte `z`: one load turns almost every word away before the
/// search ("the" has the length and first letter of "tho" and "thx", not their last letter).
const CHAT_EDGES: [[u32; 32]; 8] = {
    let mut t = [[0u32; 32]; 8];
    let mut i = 0;
    while i < CHAT_WORDS.len() {
        let w = CHAT_WORDS[i].as_bytes();
        t[w.len()][(w[0] & 31) as usize] |= 1 << (w[w.len() - 1] & 31);
        i += 1;
    }
    t
};

fn is_chat_word(w: &[u8]) -> bool {
    match (CHAT_EDGES.get(w.len()), w.first(), w.last()) {
        (Some(edges), Some(&a), Some(&z)) if edges[usize::from(a & 31)] & (1 << (z & 31)) != 0 => {
            CHAT_KEYS.binary_search(&word_key(w)).is_ok()
        }
        _ => false,
    }
}

/// The signals of casual writing in `text` (0: well cased, code or markup, or too long to
/// tell). One pass over the bytes of a short text.
pub(super) fn regime(text: &str) -> u8 {
    let b = text.as_bytes();
    if b.len() > MAX_LEN || b.len() < 4 {
        return 0;
    }
    // A short message not closed by a full stop: chat lines and tweets are; sentences of
    // well-cased prose are ("He said this: maria garcia will call back tomorrow." is not
    // casual by length alone).
    let closed = text.trim_end().ends_with('.');
    let mut s = if b.len() <= SHORT && !closed {
        sig::SHORT
    } else {
        0
    };
    // Whether the next letter starts a sentence (the text's start, or after `.`, `!`, `?`
    // and a space).
    let mut sentence = true;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // Most bytes between words are spaces, digits and commas, which change nothing.
        if QUIET[usize::from(c)] {
            i += 1;
            continue;
        }
        if c.is_ascii_alphabetic() {
            let start = i;
            i = wordish_end(b, i + 1);
            let w = &b[start..i];
            if sentence && c.is_ascii_lowercase() {
                s |= if start == first_letter(b) {
                    sig::LOWER_START
                } else {
                    sig::LOWER_SENTENCE
                };
            }
            sentence = false;
            let before = if start > 0 { b[start - 1] } else { b' ' };
            if (before == b'@' || before == b'#') && (start < 2 || !is_wordish(b[start - 2])) {
                s |= sig::TAG;
            } else if w == b"i" && b.get(i).is_none_or(|&c| matches!(c, b' ' | b'\'' | b',')) {
                s |= sig::LOWER_I;
            } else if s & sig::CHAT == 0
                && is_chat_word(w)
                && b.get(i).is_none_or(|&c| !c.is_ascii_alphanumeric())
            {
                s |= sig::CHAT;
            }
            continue;
        }
        match c {
            // Code, logs and markup, not chat: braces, assignments, paths, comments.
            b'{' | b'}' | b'=' | b'\\' | b'[' | b']' | b'|' | b'$' | b'`' => return 0,
            b'/' if b.get(i + 1) == Some(&b'/') && (i == 0 || b[i - 1] != b':') => return 0,
            b'.' | b'!' | b'?' => {
                if b.get(i + 1).is_some_and(|&n| n == b' ' || n == b'\n') {
                    sentence = true;
                }
                if c != b'.' && b.get(i + 1) == Some(&c) {
                    s |= sig::EMPHASIS;
                }
            }
            b'\n' => sentence = true,
            0xF0 if b.get(i + 1) == Some(&0x9F) => s |= sig::EMPHASIS,
            b' ' | b'"' | b'\'' | b'(' | b'*' | b'-' => {}
            _ if c >= 0x80 => sentence = false,
            _ => {}
        }
        i += 1;
    }
    s
}

/// The bytes [`regime`] passes over without a change: ASCII that is no letter and none of
/// the bytes its `match` acts on (code and markup, sentence ends, `/`, line breaks).
const QUIET: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x80 {
        t[c] = !(c as u8).is_ascii_alphabetic();
        c += 1;
    }
    let acts = b"{}=\\[]|$`/.!?\n";
    let mut k = 0;
    while k < acts.len() {
        t[acts[k] as usize] = false;
        k += 1;
    }
    t
};

fn first_letter(b: &[u8]) -> usize {
    b.iter()
        .position(u8::is_ascii_alphabetic)
        .unwrap_or(usize::MAX)
}

/// The casual-writing signals of `text` ([`sig`] bits; 0: well cased, code, or too long):
/// for error analysis in `examples/names_train.rs`.
#[doc(hidden)]
pub fn regime_of(text: &str) -> u8 {
    regime(text)
}

/// Whether the casual stage may look at a text with these signals: a short message, or some
/// sign of casual writing.
pub(super) fn is_casual(signals: u8) -> bool {
    signals != 0
}

/// Whether the signals hold a sign of casual writing besides shortness (a chat word, a
/// lower-case start, a tag, emphasis): where the judge keeps its casual margin and rescue
/// threshold (`model::CASUAL_MARGIN`, `model::RESCUE`).
pub(super) fn has_chat_sign(signals: u8) -> bool {
    signals & !sig::SHORT != 0
}

/// Whether the shipped model is asked about a text with these signals: [`is_casual`], unless a
/// lower-case sentence start is the only sign. Abbreviations make that sign in well-cased prose
/// ("approx. ten", "e.g. the", "vs. them"), and such a text is long or closed by a full stop
/// (else it would be a short message): the model found no name in the 41 such texts of the
/// development data, and the walk over their lower-case words was more than a quarter of a
/// short text's instructions. Training still sees them (`trace_casual`), so the weights do not
/// depend on this shortcut.
pub(super) fn asks_model(signals: u8) -> bool {
    is_casual(signals) && signals != sig::LOWER_SENTENCE
}

/// Whether the model is switched on.
const SHIPPED_ON: bool = true;

/// The shipped casual model, when switched on.
pub(super) fn shipped() -> Option<Judge> {
    static SHIPPED: std::sync::OnceLock<Option<Judge>> = std::sync::OnceLock::new();
    shipped_weights(
        SHIPPED_ON,
        &SHIPPED,
        include_bytes!("../../../data/names/casual.weights"),
    )
}

/// One casual candidate with its features (for training).
#[derive(Clone, Debug)]
pub struct CasualCandidate {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// The candidate's features.
    pub features: Features,
}

/// A lower-case word of the text.
#[derive(Clone, Copy)]
struct Word {
    start: usize,
    end: usize,
}

/// Whether a word may be a name word here: a name score of 3 or more, not among the thousand
/// commonest English words, on no list of titles, months, places or things never people.
fn eligible(e: Option<Entry>, flags: u16, w: &[u8]) -> bool {
    w.len() >= 3
        && !is_chat_word(w)
        && flags & (TITLE | NOT_PEOPLE_F | CALENDAR_F | ORG_PLACE) == 0
        && e.is_some_and(may_be_name_word)
}

/// Whether a gazetteer entry may make a name word here: a name score of 3 or more, not among
/// the thousand commonest English words, no well-known place ([`eligible`] without the word's
/// own tests; the gazetteer keeps a filter of the words it accepts).
pub(super) fn may_be_name_word(e: Entry) -> bool {
    e.name() >= 3 && e.common != 1 && e.place < 3
}

/// Whether the word `b[start..end]` may pass [`eligible`] if it is all lower case: `false`
/// only when its entry could not ([`Gazetteer::may_be_casual_name`]). One hash and one load
/// instead of a lookup: most lower-case words of prose are ordinary English words, no
/// candidates.
fn may_be_eligible(gaz: &Gazetteer, b: &[u8], start: usize, end: usize) -> bool {
    ascii_word_hash_at(b, start, end).is_some_and(|h| gaz.may_be_casual_name(h))
}

/// Whether a word may follow a name word as its second word: a surname, or a word the
/// gazetteer lacks that is no chat word ("bieber", "songz").
fn eligible_second(e: Option<Entry>, flags: u16, w: &[u8]) -> bool {
    w.len() >= 3
        && flags & (TITLE | NOT_PEOPLE_F | CALENDAR_F | ORG_PLACE) == 0
        && !is_chat_word(w)
        && match e {
            Some(e) => {
                (e.last >= 2 || (e.last >= 1 && e.common == 0)) && e.common != 1 && e.place < 3
            }
            None => !has_triple_letter(w),
        }
}

/// Chat words that are never names, in any case ("Lol", "OMG", "Ur").
const NOISE_WORDS: &[&str] = &[
    "lol", "lmao", "lmfao", "rofl", "omg", "ur", "idk", "tbh", "smh", "btw", "lmk", "wtf", "ily",
];

/// Whether a word is chat noise, never a name: elongated ("Timeeeee", "ITTTTTTT"), laughter
/// ("HAHAHAHA", "hehe") or a chat word ("Lol", "Ur").
pub(super) fn is_chat_noise(w: &[u8]) -> bool {
    if w.len() >= 3 && has_triple_letter(w) {
        return true;
    }
    if w.len() >= 4
        && w.len().is_multiple_of(2)
        && w.chunks_exact(2)
            .all(|p| matches!(p[0] | 0x20, b'h') && matches!(p[1] | 0x20, b'a' | b'e'))
    {
        return true;
    }
    (2..=5).contains(&w.len()) && NOISE_KEYS.binary_search(&word_key(w)).is_ok()
}

/// [`NOISE_WORDS`] as sorted [`word_key`]s: every name found in a short text is asked about.
const NOISE_KEYS: [u64; NOISE_WORDS.len()] = sorted_keys(NOISE_WORDS);

/// Whether a found span holds chat noise: a word [`is_chat_noise`] calls noise, or a pronoun
/// contraction ("I'ma", "J'ai"; names take `O'`, `D'`, `L'` in front). Checked when a span is
/// emitted, after the judge, so the judge's training candidates do not depend on it. One pass
/// over the bytes: the word tests run only on words short enough to be chat words or shaped
/// like laughter.
pub(super) fn has_chat_noise(span: &str) -> bool {
    let b = span.as_bytes();
    if b.len() > 2
        && matches!(b[0], b'I' | b'i' | b'J' | b'j')
        && (b[1] == b'\'' || b[1..].starts_with("’".as_bytes()))
    {
        return true;
    }
    let mut start = 0;
    for i in 0..=b.len() {
        let c = b.get(i).copied().unwrap_or(b' ');
        if c.is_ascii_alphabetic() {
            if i >= start + 2 && (c | 0x20) == (b[i - 1] | 0x20) && (c | 0x20) == (b[i - 2] | 0x20)
            {
                return true;
            }
            continue;
        }
        if c.is_ascii_alphanumeric() || c >= 0x80 {
            continue;
        }
        let w = &b[start..i];
        if ((2..=5).contains(&w.len()) || (w.len() >= 4 && w[0] | 0x20 == b'h')) && is_chat_noise(w)
        {
            return true;
        }
        start = i + 1;
    }
    false
}

/// "alllll", "sooo": an elongated word, not a name.
pub(super) fn has_triple_letter(w: &[u8]) -> bool {
    w.windows(3)
        .any(|p| p[0].eq_ignore_ascii_case(&p[1]) && p[1].eq_ignore_ascii_case(&p[2]))
}

fn bucket(v: u8) -> u8 {
    match v {
        0 => 0,
        1..=2 => 1,
        3..=5 => 2,
        _ => 3,
    }
}

/// The shape of a neighbouring word: 0 none, 1 lower, 2 capitalised, 3 ALL CAPS, 4 other.
fn shape(w: &[u8]) -> u8 {
    match w {
        [] => 0,
        [c, ..] if c.is_ascii_lowercase() => 1,
        [c, rest @ ..] if c.is_ascii_uppercase() => {
            if !rest.is_empty() && rest.iter().all(|c| !c.is_ascii_lowercase()) {
                3
            } else {
                2
            }
        }
        _ => 4,
    }
}

fn punct(c: Option<u8>) -> u8 {
    match c {
        None => 0,
        Some(b' ') => 1,
        Some(b'\n' | b'\r') => 2,
        Some(b',') => 3,
        Some(b'.') => 4,
        Some(b'?' | b'!') => 5,
        Some(b':') => 6,
        Some(b'\'' | b'"') => 7,
        Some(b'@' | b'#') => 8,
        Some(b'&' | b'+') => 9,
        Some(c) if c >= 0x80 => 10,
        Some(_) => 11,
    }
}

/// The word (letters, digits, apostrophes inside) ending at or before `at`, and its start.
fn word_before(b: &[u8], at: usize) -> &[u8] {
    let mut end = at;
    while end > 0 && !is_wordish(b[end - 1]) {
        end -= 1;
        if at - end > 4 {
            return &[];
        }
    }
    let mut start = end;
    while start > 0 && is_wordish(b[start - 1]) {
        start -= 1;
    }
    &b[start..end]
}

/// The word starting at or after `at`.
fn word_after(b: &[u8], at: usize) -> &[u8] {
    let mut start = at;
    while start < b.len() && !is_wordish(b[start]) {
        start += 1;
        if start - at > 4 {
            return &[];
        }
    }
    let mut end = start;
    while end < b.len() && is_wordish(b[end]) {
        end += 1;
    }
    &b[start..end]
}

/// The high bit of each byte of `x` that is [`is_wordish`].
fn wordish_lanes(x: u64) -> u64 {
    // ASCII digits: at least `0` and below `:`, in bytes below 0x80 (no carries).
    let y = x & !super::bytes::HIGH;
    let digits = y.wrapping_add(0x5050_5050_5050_5050)
        & !y.wrapping_add(0x4646_4646_4646_4646)
        & !x
        & super::bytes::HIGH;
    super::bytes::ascii_letters(x) | digits | (x & super::bytes::HIGH)
}

/// How many words start with an ASCII letter (after a byte that is not [`is_wordish`], or at
/// the start), and how many of those with a capital: eight bytes at a time.
fn capitals(b: &[u8]) -> (usize, usize) {
    let (mut words, mut caps) = (0usize, 0usize);
    // The high bit of the last lane of the previous eight bytes, as lane 0's "before".
    let mut carry = 0u64;
    for chunk in b.chunks(8) {
        let mut bytes = [0u8; 8];
        bytes[..chunk.len()].copy_from_slice(chunk);
        let x = u64::from_le_bytes(bytes);
        let wordish = wordish_lanes(x);
        let starts = super::bytes::ascii_letters(x) & !((wordish << 8) | carry);
        // Upper case: a letter whose 0x20 bit is clear.
        let upper = starts & !(x << 2);
        words += starts.count_ones() as usize;
        caps += upper.count_ones() as usize;
        carry = (wordish >> 56) & 0x80;
    }
    (words, caps)
}

/// The end of the run of [`is_wordish`] bytes from `i`, eight bytes at a time (the regime test
/// walks every word of every short text).
fn wordish_end(b: &[u8], mut i: usize) -> usize {
    while let Some(x) = super::bytes::load8(b, i) {
        let stop = !wordish_lanes(x) & super::bytes::HIGH;
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && is_wordish(b[i]) {
        i += 1;
    }
    i
}

/// The state of the casual stage over one text.
pub(super) struct Casual<'a> {
    pub(super) finder: &'a NameFinder,
    pub(super) text: &'a str,
    pub(super) signals: u8,
}

impl Casual<'_> {
    /// Finds lower-case names, skipping words inside `found` (spans the main scan emitted),
    /// appending to `out`; records candidates in `trace` when training.
    pub(super) fn run(
        &self,
        model: Option<&Judge>,
        found: &[(usize, usize)],
        out: &mut Vec<Span>,
        mut trace: Option<&mut Vec<CasualCandidate>>,
    ) {
        let text = self.text;
        let b = text.as_bytes();
        // Worked out at the first candidate: most texts that reach here have none.
        let mut caps = None;
        let mut i = 0;
        while i < b.len() {
            let Some(w) = self.next_lower_word(&mut i) else {
                break;
            };
            if found.iter().any(|&(s, e)| s < w.end && w.start < e) {
                continue;
            }
            let word = &text[w.start..w.end];
            // `eligible`'s test that needs no lookup first.
            if is_chat_word(word.as_bytes()) {
                continue;
            }
            let (e, flags) = self.finder.gaz.lookup_with_flags_at(text, w.start, w.end);
            if !eligible(e, flags, word.as_bytes()) {
                continue;
            }
            let caps = match caps {
                Some(caps) => caps,
                // Text mostly in another language is full of words on some locale's name
                // list ("das", "von", "nur"): leave it.
                None if !self.mostly_english() => return,
                None => *caps.insert(self.capital_share()),
            };
            // A second name word right after one space ("justin bieber").
            let second = if b.get(w.end) == Some(&b' ') {
                let mut j = w.end + 1;
                self.next_lower_word_at(&mut j, w.end + 1).filter(|n| {
                    let (e2, fl2) = self.finder.gaz.lookup_with_flags(&text[n.start..n.end]);
                    eligible_second(e2, fl2, &b[n.start..n.end])
                        && !found.iter().any(|&(s, e)| s < n.end && n.start < e)
                })
            } else {
                None
            };
            let mut f1 = Features::default();
            self.features(w, None, caps, &mut f1);
            let mut best = (w.end, model.map(|m| m.score(&f1)));
            if let Some(t) = trace.as_deref_mut() {
                t.push(CasualCandidate {
                    start: w.start,
                    end: w.end,
                    features: f1.clone(),
                });
            }
            if let Some(n) = second {
                let mut f2 = Features::default();
                self.features(w, Some(n), caps, &mut f2);
                let s2 = model.map(|m| m.score(&f2));
                if let Some(t) = trace.as_deref_mut() {
                    t.push(CasualCandidate {
                        start: w.start,
                        end: n.end,
                        features: f2.clone(),
                    });
                }
                if s2 > best.1 {
                    best = (n.end, s2);
                }
            }
            if let Some(score) = best.1
                && score > model.map_or(0.0, |m| m.margin())
            {
                let span = Span::new(w.start, best.0, Kind::Name);
                if !self.finder.is_allowed(&text[span.start..span.end]) {
                    out.push(span);
                }
                i = best.0;
            }
        }
    }

    /// Whether at least half of the text's words of two letters or more are English words.
    fn mostly_english(&self) -> bool {
        super::mostly_english(
            self.finder.gaz,
            self.text.split(|c: char| !c.is_ascii_alphabetic()),
            60,
        )
    }

    /// The share of words starting with a capital, in four buckets.
    fn capital_share(&self) -> u8 {
        let (words, caps) = capitals(self.text.as_bytes());
        match caps * 10 / words.max(1) {
            0 => 0,
            1..=2 => 1,
            3..=5 => 2,
            _ => 3,
        }
    }

    /// The next all-lower-case word of three letters or more from `*i` on (ASCII letters, not
    /// joined to a mention, tag, path, address or number), moving `*i` past it.
    fn next_lower_word(&self, i: &mut usize) -> Option<Word> {
        let b = self.text.as_bytes();
        loop {
            while *i < b.len() && !b[*i].is_ascii_alphabetic() {
                *i += 1;
            }
            if *i >= b.len() {
                return None;
            }
            let start = *i;
            *i = wordish_end(b, start + 1);
            while *i < b.len() && (is_wordish(b[*i]) || b[*i] == b'_') {
                *i += 1;
            }
            // No candidate has fewer than three bytes (see `eligible`) or a capital (see
            // `lower_word`), and almost no lower-case word of prose is a name word: the
            // filter turns those away before a closer look.
            if *i - start >= 3
                && b[start].is_ascii_lowercase()
                && may_be_eligible(self.finder.gaz, b, start, *i)
                && let Some(w) = self.lower_word(start, *i)
            {
                return Some(w);
            }
        }
    }

    /// The word starting exactly at `at`, if it is a plain lower-case word.
    fn next_lower_word_at(&self, i: &mut usize, at: usize) -> Option<Word> {
        let b = self.text.as_bytes();
        if !b.get(at).is_some_and(u8::is_ascii_lowercase) {
            return None;
        }
        *i = at;
        while *i < b.len() && (is_wordish(b[*i]) || b[*i] == b'_') {
            *i += 1;
        }
        self.lower_word(at, *i)
    }

    /// `start..end` as a plain lower-case word, if it is one.
    fn lower_word(&self, start: usize, end: usize) -> Option<Word> {
        let b = self.text.as_bytes();
        let w = &b[start..end];
        if !w.iter().all(u8::is_ascii_lowercase) {
            return None;
        }
        let joined = match start.checked_sub(1).map(|p| b[p]) {
            None => false,
            Some(c) if c < 0x80 => c.is_ascii_alphanumeric(),
            Some(_) => self.text[..start]
                .chars()
                .next_back()
                .is_some_and(is_word_char),
        };
        if joined {
            return None;
        }
        let before = if start > 0 { b[start - 1] } else { b' ' };
        let after = b.get(end).copied().unwrap_or(b' ');
        let after2 = b.get(end + 1).copied().unwrap_or(b' ');
        if matches!(
            before,
            b'@' | b'#' | b'_' | b'/' | b'\\' | b'.' | b'=' | b'$' | b'%' | b'&' | b'<' | b'-'
        ) || matches!(after, b'@' | b'/' | b'=' | b'(' | b'<' | b'>' | b':' | b'-')
            || (after == b'.' && after2.is_ascii_alphanumeric())
            // "haven't", "isn't" (a possessive `'s` is fine)
            || (matches!(after, b'\'') && after2.is_ascii_alphabetic() && after2 != b's')
        {
            return None;
        }
        Some(Word { start, end })
    }

    /// The features of the candidate `w` (with `second`: the pair).
    fn features(&self, w: Word, second: Option<Word>, caps: u8, f: &mut Features) {
        let text = self.text;
        let b = text.as_bytes();
        let end = second.map_or(w.end, |n| n.end);
        let n = u8::from(second.is_some()) + 1;
        let e = self
            .finder
            .gaz
            .lookup(&text[w.start..w.end])
            .unwrap_or_default();
        f.add(40, &[]);
        f.add(41, &[n]);
        f.add(42, &[e.first.min(9), n]);
        f.add(43, &[e.last.min(9), n]);
        f.add(44, &[e.common.min(9), e.place.min(3)]);
        f.add(45, &[bucket(e.first), bucket(e.last), bucket(e.common)]);
        let len = (w.end - w.start).min(9) as u8;
        f.add(46, &[len, n]);
        if let Some(s) = second {
            let e2 = self.finder.gaz.lookup(&text[s.start..s.end]);
            let k2 = u8::from(e2.is_some());
            let e2 = e2.unwrap_or_default();
            f.add(
                47,
                &[bucket(e2.first), bucket(e2.last), bucket(e2.common), k2],
            );
            f.add(48, &[bucket(e.first), bucket(e2.last), k2]);
        }
        let prev = word_before(b, w.start);
        let next = word_after(b, end);
        f.add_word(49, std::str::from_utf8(prev).ok());
        f.add_word(50, std::str::from_utf8(next).ok());
        f.add(51, &[shape(prev), shape(next), n]);
        let before = text[..w.start]
            .trim_end_matches(' ')
            .as_bytes()
            .last()
            .copied();
        let after = text[end..]
            .trim_start_matches(' ')
            .as_bytes()
            .first()
            .copied();
        f.add(52, &[punct(before), punct(b.get(end).copied())]);
        f.add(53, &[punct(after), n]);
        let rest = text[end..].trim_start_matches(' ');
        let possessive =
            rest.starts_with("'s") || rest.starts_with("' s") || rest.starts_with("’s");
        f.add(54, &[u8::from(possessive)]);
        let sentence = before.is_none_or(|c| matches!(c, b'.' | b'!' | b'?' | b'\n' | b':'));
        f.add(55, &[u8::from(sentence), shape(next)]);
        f.add(56, &[self.signals & 0x3f]);
        f.add(61, &[self.signals & 0x3f & !sig::TAG, caps]);
        f.add(57, &[caps, bucket(e.name())]);
        let margin = (i32::from(e.name()) - i32::from(e.wordiness())).clamp(-7, 9) + 8;
        f.add(58, &[margin as u8, n]);
        f.add_word(
            59,
            std::str::from_utf8(prev)
                .ok()
                .map(|p| if p.len() > 3 { "long" } else { p }),
        );
        f.add(60, &[bucket(e.common), shape(prev), shape(next)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_model_loads() {
        assert!(shipped().is_some());
    }

    #[test]
    fn the_name_filter_keeps_every_eligible_word() {
        let g = Gazetteer::get();
        let (mut kept, mut common, mut common_out) = (0, 0, 0);
        for line in include_str!("../../../data/names/gazetteer.tsv").lines() {
            let Some((word, _)) = line.split_once('\t') else {
                continue;
            };
            if word.is_empty() || !word.bytes().all(|c| c.is_ascii_lowercase()) {
                continue;
            }
            let (e, flags) = g.lookup_with_flags(word);
            let padded = format!("{word} and more");
            if eligible(e, flags, word.as_bytes()) {
                kept += 1;
                // At the end of a text (bytes one at a time) and inside one (one load).
                assert!(may_be_eligible(g, word.as_bytes(), 0, word.len()), "{word}");
                assert!(
                    may_be_eligible(g, padded.as_bytes(), 0, word.len()),
                    "{word}"
                );
            } else if e.is_some_and(|e| e.common == 1) {
                common += 1;
                common_out += usize::from(!may_be_eligible(g, padded.as_bytes(), 0, word.len()));
            }
        }
        assert!(kept > 30_000, "{kept}");
        // The commonest English words, the bulk of prose, do not get through.
        assert!(common_out * 10 > common * 9, "{common_out} of {common}");
        for w in ["", "x", "caf\u{e9}", &"a".repeat(49)] {
            assert!(!may_be_eligible(g, w.as_bytes(), 0, w.len()), "{w}");
        }
    }

    /// [`regime`] as first written, a byte at a time: the oracle of the test below.
    fn regime_bytewise(text: &str) -> u8 {
        let b = text.as_bytes();
        if b.len() > MAX_LEN || b.len() < 4 {
            return 0;
        }
        // A short message not closed by a full stop: chat lines and tweets are; sentences of
        // well-cased prose are ("He said this: maria garcia will call back tomorrow." is not
        // casual by length alone).
        let closed = text.trim_end().ends_with('.');
        let mut s = if b.len() <= SHORT && !closed {
            sig::SHORT
        } else {
            0
        };
        // Whether the next letter starts a sentence (the text's start, or after `.`, `!`, `?`
        // and a space).
        let mut sentence = true;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_alphabetic() {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] >= 0x80) {
                    i += 1;
                }
                let w = &b[start..i];
                if sentence && c.is_ascii_lowercase() {
                    s |= if start == first_letter(b) {
                        sig::LOWER_START
                    } else {
                        sig::LOWER_SENTENCE
                    };
                }
                sentence = false;
                let before = if start > 0 { b[start - 1] } else { b' ' };
                let mention = start >= 2 && !is_wordish(b[start - 2]);
                if (before == b'@' || before == b'#') && (start < 2 || mention) {
                    s |= sig::TAG;
                } else if w == b"i" && b.get(i).is_none_or(|&c| matches!(c, b' ' | b'\'' | b',')) {
                    s |= sig::LOWER_I;
                } else if is_chat_word(w) && b.get(i).is_none_or(|&c| !c.is_ascii_alphanumeric()) {
                    s |= sig::CHAT;
                }
                continue;
            }
            match c {
                // Code, logs and markup, not chat: braces, assignments, paths, comments.
                b'{' | b'}' | b'=' | b'\\' | b'[' | b']' | b'|' | b'$' | b'`' => return 0,
                b'/' if b.get(i + 1) == Some(&b'/') && (i == 0 || b[i - 1] != b':') => return 0,
                b'.' | b'!' | b'?' => {
                    if b.get(i + 1).is_some_and(|&n| n == b' ' || n == b'\n') {
                        sentence = true;
                    }
                    if c != b'.' && b.get(i + 1) == Some(&c) {
                        s |= sig::EMPHASIS;
                    }
                }
                b'\n' => sentence = true,
                0xF0 if b.get(i + 1) == Some(&0x9F) => s |= sig::EMPHASIS,
                b' ' | b'"' | b'\'' | b'(' | b'*' | b'-' => {}
                _ if c >= 0x80 => sentence = false,
                _ => {}
            }
            i += 1;
        }
        s
    }

    #[test]
    fn regime_matches_a_byte_scan() {
        let pieces: [&str; 40] = [
            "u",
            "n",
            "hahaha",
            "Ok",
            "lemme",
            "i,",
            "i'",
            ":",
            "_",
            "3",
            "?!",
            "#lol",
            "x@",
            "\u{430}",
            " ",
            "  ",
            "the",
            "i",
            "I",
            "lol",
            "LOL",
            "b4",
            "x9",
            "@",
            "#",
            ". ",
            "!",
            "!!",
            "??",
            "\n",
            "{",
            "//",
            "://",
            "\u{e9}",
            "\u{1f600}",
            "megan",
            "Omar",
            "42",
            ".",
            "abcdefghijk",
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..50_000 {
            let mut text = String::new();
            for _ in 0..1 + next() % 40 {
                text.push_str(pieces[(next() >> 40) as usize % pieces.len()]);
            }
            assert_eq!(regime(&text), regime_bytewise(&text), "{text:?}");
        }
    }

    #[test]
    fn capitals_match_a_byte_scan() {
        let bytewise = |b: &[u8]| {
            let (mut words, mut caps) = (0, 0);
            let mut prev = b' ';
            for &c in b {
                if c.is_ascii_alphabetic() && !is_wordish(prev) {
                    words += 1;
                    caps += usize::from(c.is_ascii_uppercase());
                }
                prev = c;
            }
            (words, caps)
        };
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = (x % 40) as usize;
            // Bytes from a small alphabet of letters, digits, spaces, punctuation and UTF-8.
            let alphabet = b"aZ z9 ._@\xc3\xa9Qq-\n";
            let text: Vec<u8> = (0..len)
                .map(|k| alphabet[((x >> (k % 60)) as usize + k * 7) % alphabet.len()])
                .collect();
            assert_eq!(capitals(&text), bytewise(&text), "{text:?}");
        }
    }

    #[test]
    fn chat_words_are_found_in_any_case_and_only_whole() {
        for w in CHAT_WORDS {
            assert!(is_chat_word(w.as_bytes()), "{w}");
            assert!(is_chat_word(w.to_ascii_uppercase().as_bytes()), "{w}");
        }
        for w in [
            "", "the", "lolz", "b", "gonnaa", "hi\u{e9}", "tomorrow", "o",
        ] {
            assert!(!is_chat_word(w.as_bytes()), "{w}");
        }
        assert!(CHAT_KEYS.windows(2).all(|k| k[0] < k[1]));
    }

    #[test]
    fn regime_signals() {
        assert_eq!(
            regime("The meeting is at noon. Please bring the report."),
            0
        );
        assert_ne!(regime("hi megan, can you call omar") & sig::LOWER_START, 0);
        assert_ne!(regime("Wait. simon wears glasses") & sig::LOWER_SENTENCE, 0);
        assert_ne!(regime("So i told Sam about it") & sig::LOWER_I, 0);
        assert_ne!(regime("That was great lol") & sig::CHAT, 0);
        assert_ne!(regime("Great game!! Loved it") & sig::EMPHASIS, 0);
        // A mention is a chat sign; an e-mail address and an issue number are not.
        assert_eq!(regime("Mail @support about it today."), sig::TAG);
        assert_eq!(regime("Mail help@example.com about #42 today."), 0);
        assert_eq!(regime(&"Long well cased text. ".repeat(200)), 0);
        assert_eq!(regime("/// worker register gauge mount."), 0);
        assert_eq!(regime("let x = grant;"), 0);
        assert_ne!(regime("see http://t.co/x lol"), 0);
    }

    #[test]
    fn elongated_words() {
        assert!(has_triple_letter(b"alllll"));
        assert!(has_triple_letter(b"TIMEEEE"));
        assert!(!has_triple_letter(b"william"));
        for noise in [
            "Timeeeee", "ITTTTTTT", "HAHAHAHA", "Lol", "I'ma", "J'ai", "Ur",
        ] {
            assert!(has_chat_noise(noise), "{noise}");
        }
        for name in [
            "William",
            "O'Neil",
            "D'Angelo",
            "Ursula",
            "Jeanne d'Arc",
            "Árias",
        ] {
            assert!(!has_chat_noise(name), "{name}");
        }
    }
}
