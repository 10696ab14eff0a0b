//! Person names in free text: prose, chat, email bodies, tickets, logs and JSON string values.
//!
//! # How it works
//! One pass over the bytes splits the text into words. Lower-case words are skipped at the cost
//! of finding their end (apart from name particles such as "van", greetings such as "hi", and
//! words seen in an e-mail address of the same text), so clean text costs little. Capitalised,
//! ALL-CAPS and caseless-script words, with the initials and particles between them, are grouped
//! into *runs* of words separated by single spaces ("Dr. Maria del Carmen Ortiz"). Each run is
//! judged once, on evidence:
//!
//! - the gazetteer (`gazetteer`): how common each word is as a given name, a surname and as an
//!   ordinary English word ("Will" is a given name but far more often a verb);
//! - shape: titles and greetings trimmed off the front ("Dr.", "Thanks"), ordinary words trimmed
//!   from the ends ("Yesterday Ronald Haas"), camel-case and `@`/`#`/`_`/`.`-joined words
//!   rejected as code, mentions and addresses;
//! - context: a title or greeting before the run ("Hi Megan"), a cue such as "by", "cc", "assigned
//!   to" before it or "said" after it, a place cue ("in Jordan"), an organisation word inside it
//!   ("Wells Fargo Bank") or an `&` beside it ("Johnson & Johnson");
//! - the same message: words of an e-mail address in the text (`maria.ortiz@...`) count as names.
//!
//! Chinese, Japanese and Korean text has no spaces between words; `cjk` handles it.
//!
//! # Cost
//! No allocation for text without candidates; a small vector per call otherwise. While no run is
//! open, gaps and lower-case words are crossed 64 bytes at a time (`skip_idle`). The
//! gazetteer is packed at compile time (`build.rs`) and copied, with the word lists' flags added,
//! once per process (see `gazetteer`); `README.md` beside this file has the map of the files
//! (one job each: the scan, the runs, the judge, lists, inverted names, cues, markup ...), the
//! way of one text through them, the measured figures and the known misses.

pub mod casual;
mod cjk;
pub(super) use cjk::is_cjk;

/// Reads the gazetteer's table once ([`gazetteer::Gazetteer::warm`]).
pub(super) fn warm_tables() {
    Gazetteer::get().warm();
}
mod gazetteer;
// `build.rs` packs most of the lists into the gazetteer's table (a word's flags), so the library
// reads them there, and these only in its tests.
#[cfg_attr(not(test), allow(dead_code))]
mod lexicon;
pub mod model;
mod romanized;

mod bytes;
mod cues;
mod evidence;
mod idle;
mod inverted;
mod judge;
mod lists;
mod markup;
mod places;
mod runs;
mod scan;
mod words;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::detect::{FindContext, Kind, Span, lanes};
use bytes::{HIGH, ascii_space_lanes, has_byte, is_code_byte_in_lower_text, is_escape_letter};
use evidence::Evidence;
use gazetteer::{Entry, Gazetteer, Lexicon};
use scan::{RUN_BUF, Scan};
use words::{char_at, char_before, is_word_char, word_end};

/// Finds person names in free text and judges whole field values.
#[derive(Debug)]
pub struct NameFinder {
    allow: Vec<String>,
    deny: Option<AhoCorasick>,
    gaz: &'static Gazetteer,
    lex: &'static Lexicon,
    /// The learned candidate judge ([`model`]), when switched on.
    judge: Option<model::Judge>,
    /// The model for lower-case names in casual text ([`casual`]), when switched on.
    casual: Option<model::Judge>,
}

impl NameFinder {
    /// Builds the finder with names never to tokenize (`allow`) and always to tokenize (`deny`).
    pub fn new(allow: &[String], deny: &[String]) -> NameFinder {
        let deny: Vec<&str> = deny
            .iter()
            .map(|d| d.trim())
            .filter(|d| !d.is_empty())
            .collect();
        let deny = if deny.is_empty() {
            None
        } else {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(&deny)
                .ok()
        };
        NameFinder {
            allow: allow
                .iter()
                .map(|a| normalize_spaces(&a.to_lowercase()))
                .collect(),
            deny,
            gaz: Gazetteer::get(),
            lex: Lexicon::get(),
            judge: model::shipped(),
            casual: casual::shipped(),
        }
    }

    /// The same finder with another casual-text model (`None`: no casual stage); for
    /// training and evaluation (`examples/names_train.rs`).
    #[doc(hidden)]
    pub fn with_casual(mut self, model: Option<model::Judge>) -> NameFinder {
        self.casual = model;
        self
    }

    /// Finds names like [`NameFinder::find`] and also records every candidate of the casual
    /// stage, with its features (for training its model).
    #[doc(hidden)]
    pub fn trace_casual(
        &self,
        text: &str,
        out: &mut Vec<Span>,
        seen: &mut Vec<casual::CasualCandidate>,
    ) {
        self.find_inner(text, &FindContext::default(), out, None, Some(seen));
    }

    /// The same finder with another candidate judge (`None`: the rules alone); for training
    /// and evaluation (`examples/names_train.rs`).
    #[doc(hidden)]
    pub fn with_judge(mut self, judge: Option<model::Judge>) -> NameFinder {
        self.judge = judge;
        self
    }

    /// Finds names like [`NameFinder::find`] and also records every candidate the judge saw,
    /// with its features (for training the judge).
    #[doc(hidden)]
    pub fn trace(&self, text: &str, out: &mut Vec<Span>, seen: &mut Vec<model::Candidate>) {
        let cell = std::cell::RefCell::new(std::mem::take(seen));
        self.find_inner(text, &FindContext::default(), out, Some(&cell), None);
        *seen = cell.into_inner();
    }

    /// Appends names found in `text`.
    pub fn find(&self, text: &str, cx: &FindContext<'_>, out: &mut Vec<Span>) {
        self.find_inner(text, cx, out, None, None);
    }

    fn find_inner(
        &self,
        text: &str,
        cx: &FindContext<'_>,
        out: &mut Vec<Span>,
        trace: Option<&std::cell::RefCell<Vec<model::Candidate>>>,
        casual_trace: Option<&mut Vec<casual::CasualCandidate>>,
    ) {
        if let Some(deny) = &self.deny {
            self.find_denied(deny, text, out);
        }
        if text.len() < 2 {
            return;
        }
        let evidence = if has_byte(text.as_bytes(), b'@') {
            Evidence::collect(text, self.gaz)
        } else {
            Evidence::default()
        };
        // A keyed value of a few words with capitals, mostly English words, is a sentence
        // ("The ticket is assigned to Nguyen today"), not a list of names; in lower case it
        // stays a field, where lower-case names count ("spoke with jane doe").
        let field = is_short_field(text)
            || (cx.key.is_some()
                && is_keyed_field(text)
                && !(text.bytes().any(|c| c.is_ascii_uppercase())
                    && mostly_english(self.gaz, text.split(|c: char| !c.is_alphabetic()), 8)));
        // All lower-case prose ("hello, this is mr. chad farmer"): short, no capitals, no code
        // (an escaped quote or line break, `\"` or `\n`, is no code).
        let bytes = text.as_bytes();
        let lower_text = text.len() <= 1024
            && !bytes.iter().enumerate().any(|(i, &c)| {
                c.is_ascii_uppercase()
                    || (is_code_byte_in_lower_text(c)
                        && !(c == b'\\' && is_escape_letter(bytes.get(i + 1).copied())))
            })
            && (text.is_ascii() || !text.chars().any(char::is_uppercase));
        let first = out.len();
        // The casing regime of a short text (chat, tweets): the judge's threshold and the
        // casual stage depend on it. Long texts are documents: no regime test.
        let signals = if !field && !lower_text && text.len() <= casual::MAX_LEN {
            casual::regime(text)
        } else {
            0
        };
        let mut scan = Scan::new(self, text, &evidence, field, lower_text, out, trace);
        scan.signals = signals;
        scan.run_all();
        // The run's buffer back for the next call on this thread (empty: `run_all` flushed).
        let mut run = std::mem::take(&mut scan.run);
        run.clear();
        RUN_BUF.set(run);
        // Lower-case names in casual text, when there is a model to ask or a trace to fill.
        if (self.casual.is_some() && casual::asks_model(signals))
            || (casual_trace.is_some() && casual::is_casual(signals))
        {
            self.casual_stage(text, signals, first, out, casual_trace);
        }
    }

    /// The casual stage ([`casual`]) over `text`, after the scan found `out[first..]`. Out of
    /// line, so that its cost shows apart from the scan's in a profile.
    #[inline(never)]
    fn casual_stage(
        &self,
        text: &str,
        signals: u8,
        first: usize,
        out: &mut Vec<Span>,
        casual_trace: Option<&mut Vec<casual::CasualCandidate>>,
    ) {
        let found: Vec<(usize, usize)> = out[first..].iter().map(|s| (s.start, s.end)).collect();
        casual::Casual {
            finder: self,
            text,
            signals,
        }
        .run(self.casual.as_ref(), &found, out, casual_trace);
    }

    /// Deny-list names, wherever they stand as whole words.
    fn find_denied(&self, deny: &AhoCorasick, text: &str, out: &mut Vec<Span>) {
        for m in deny.find_iter(text) {
            let before_ok = char_before(text, m.start()).is_none_or(|c| !c.is_alphanumeric());
            let after_ok = char_at(text, m.end()).is_none_or(|c| !c.is_alphanumeric());
            if before_ok && after_ok {
                out.push(Span::new(m.start(), m.end(), Kind::Name));
            }
        }
    }

    /// Whether `value` holds a word known as a given name or surname.
    pub fn has_known_name_word(&self, value: &str) -> bool {
        let mut i = 0;
        let b = value.as_bytes();
        while i < b.len() {
            let Some(c) = char_at(value, i) else { break };
            if !is_word_char(c) {
                i += c.len_utf8();
                continue;
            }
            if cjk::is_cjk(c) {
                let mut found = Vec::new();
                let end = value[i..]
                    .char_indices()
                    .find(|(_, c)| !cjk::is_cjk(*c))
                    .map_or(value.len(), |(j, _)| i + j);
                cjk::find(value, i, end, self.gaz, &mut found);
                if !found.is_empty() {
                    return true;
                }
                i = end;
                continue;
            }
            let end = word_end(value, i).max(i + c.len_utf8());
            let word = &value[i..end];
            if let Some(e) = self.gaz.lookup(word)
                && e.name() >= 1
                && (e.name() > e.wordiness() || e.wordiness() <= 3)
            {
                return true;
            }
            i = end;
        }
        false
    }

    /// Whether `value` is on the allow list (never tokenized).
    pub fn is_allowed(&self, value: &str) -> bool {
        if self.allow.is_empty() {
            return false;
        }
        let v = normalize_spaces(&value.to_lowercase());
        self.allow.contains(&v)
    }

    /// Whether a value tokenized as a NAME is distinctive enough to be recalled wherever it
    /// recurs in the session (see `detect/recall.rs`): two or more words, or one word of at least
    /// three letters that is neither an ordinary English word, a place, a month or weekday, nor
    /// on a list of well-known non-people. Allow-listed values never are.
    pub fn is_distinctive(&self, value: &str) -> bool {
        let mut words = crate::detect::words(value);
        let Some(first) = words.next() else {
            return false;
        };
        if self.is_allowed(value) {
            return false;
        }
        if words.next().is_some() {
            return true;
        }
        let word = first.trim_matches(|c: char| !c.is_alphanumeric());
        if word.chars().count() < 3 && !word.chars().any(cjk::is_cjk) {
            return false;
        }
        let (entry, flags) = self.gaz.lookup_with_flags(word);
        let listed =
            flags & (lexicon::CALENDAR_F | lexicon::NOT_PEOPLE_F | lexicon::ORG_PLACE) != 0;
        // Rare English words that are common names ("Peter", "June" the name) are fine.
        !listed
            && entry.is_none_or(|e| {
                e.place == 0 && (e.common == 0 || (e.name() >= 1 && e.wordiness() <= 1))
            })
    }

    /// Whether `word` is a known given name or surname and nothing else: no English word, no
    /// place, at least three letters, not an ALL-CAPS code ("Emily", not "Hazel", "Jordan",
    /// "AB").
    pub fn is_only_a_name(&self, word: &str) -> bool {
        let word = word.trim_matches(|c: char| !c.is_alphabetic());
        let letters = word.chars().count();
        let all_caps = word.chars().all(|c| !c.is_lowercase());
        if letters < 3 || (all_caps && letters <= 3) {
            return false;
        }
        self.gaz
            .lookup(word)
            .is_some_and(|e| e.common == 0 && e.place == 0 && e.name() >= 3)
    }

    /// The gazetteer scores of a word (given name, surname, English word, place), for error
    /// analysis in `examples/names_train.rs`.
    #[doc(hidden)]
    pub fn scores(&self, word: &str) -> Option<[u8; 4]> {
        self.gaz
            .lookup(word)
            .map(|e| [e.first, e.last, e.common, e.place])
    }

    /// The gazetteer entry of a word, with its possessive and initial's dot removed.
    fn entry(&self, word: &str) -> Option<Entry> {
        self.gaz.lookup(word)
    }
}

pub(super) fn normalize_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the value of a JSON key (or CSV column) reads as one data field, a few words on one
/// line ("Dr. Maria Ortiz", "maria ortiz, john smith, wei chen"), rather than free text (a
/// comment, a message body, a description) that only happens to sit under a key: free text is
/// read as prose, where a lower-case word is a name only with evidence, however it is stored.
pub(super) fn is_keyed_field(text: &str) -> bool {
    // The word count first: it stops at the ninth word of a long value (a message body).
    if has_more_words_than(text, 8) {
        return false;
    }
    let b = text.as_bytes();
    // A sentence break: `!`, `?` or `;`, or a full stop after a word of four letters or more
    // ("Dr." and "J." are abbreviations).
    !b.iter().enumerate().any(|(i, &c)| match c {
        b'\n' | b'!' | b'?' | b';' => true,
        b'.' => {
            let word = b[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_alphabetic())
                .count();
            word >= 4 && b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace())
        }
        _ => false,
    })
}

/// A text short enough to be one field value ("maria ortiz", "JOHN SMITH"): lower-case and
/// ALL-CAPS words count there.
pub(super) fn is_short_field(text: &str) -> bool {
    // The marks are ASCII, so a byte test finds exactly the chars `contains` would.
    if text.len() > 48
        || text
            .bytes()
            .any(|c| matches!(c, b'.' | b'!' | b'?' | b':' | b'\n'))
    {
        return false;
    }
    !has_more_words_than(text, 4)
}

/// Whether `text` has more than `n` words, as `split_whitespace` splits it. A text of 64 bytes or
/// more is read 64 bytes a step: the word starts of each 64 are counted from a mask of its white
/// space ([`lanes::spaces64`]), stopping at word `n + 1` (a keyed value's field test asks of
/// every value, and a message body has its ninth word within its first 64 bytes or so). Bytes
/// from `0x80` may be white space only as part of a character: at the first of them the count
/// is `split_whitespace`'s. Words counted before it stay right, for they start in ASCII text,
/// where ASCII white space alone divides words. The count eight bytes at a time that it
/// replaced, with a whole pass to tell ASCII text first, cost three times as much on a JSON
/// document's notes; it still counts shorter texts ([`has_more_words_by_eights`]).
fn has_more_words_than(text: &str, n: usize) -> bool {
    let b = text.as_bytes();
    if b.len() < 64 {
        return has_more_words_by_eights(text, n);
    }
    let mut words = 0;
    // Whether the byte before the next 64 is white space (the text's start counts as such).
    let mut space_before = 1u64;
    let mut at = 0;
    while at < b.len() {
        let (space, high) = lanes::spaces64(b, at);
        if high != 0 {
            return text.split_whitespace().nth(n).is_some();
        }
        let valid = match b.len() - at {
            k if k >= 64 => u64::MAX,
            k => (1u64 << k) - 1,
        };
        // A word starts at a byte that is no white space right after one that is.
        words += (!space & ((space << 1) | space_before) & valid).count_ones() as usize;
        if words > n {
            return true;
        }
        space_before = space >> 63;
        at += 64;
    }
    false
}

/// [`has_more_words_than`] for a text shorter than one step of 64 bytes, where copying it into a
/// padded block would cost more than the count: ASCII text is read eight bytes at a time (the
/// word starts of each eight counted from a mask of its white space), stopping at word `n + 1`
/// (a byte-by-byte loop was most of `find`'s own cost on a JSON document's short strings).
fn has_more_words_by_eights(text: &str, n: usize) -> bool {
    if !text.is_ascii() {
        return text.split_whitespace().nth(n).is_some();
    }
    let b = text.as_bytes();
    let mut words = 0;
    // Whether the byte before the next eight is white space (the text's start counts as such).
    let mut space_before = true;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let space = ascii_space_lanes(x);
        // A word starts at a byte that is no white space right after one that is.
        let after_space = (space << 8) | if space_before { 0x80 } else { 0 };
        words += (!space & after_space & HIGH).count_ones() as usize;
        if words > n {
            return true;
        }
        space_before = space >> 63 != 0;
    }
    // ASCII white space as `char::is_whitespace` has it (which includes the vertical tab).
    let mut in_word = !space_before;
    for &c in chunks.remainder() {
        let space = matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
        if !space && !in_word {
            words += 1;
            if words > n {
                return true;
            }
        }
        in_word = !space;
    }
    false
}

/// Whether at least half of the first `limit` of `words` of two letters or more are English
/// words (on the gazetteer's common-word list): text in another language is full of words on
/// some locale's name list ("das", "von").
pub(super) fn mostly_english<'t>(
    gaz: &Gazetteer,
    words: impl Iterator<Item = &'t str>,
    limit: usize,
) -> bool {
    let (mut seen, mut english) = (0usize, 0usize);
    for w in words.filter(|w| w.len() >= 2).take(limit) {
        seen += 1;
        english += usize::from(gaz.lookup(w).is_some_and(|e| e.common > 0));
    }
    english * 2 >= seen
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// The word count is `split_whitespace`'s, ASCII or not.
        #[test]
        fn words_are_counted_as_split_whitespace_counts_them(
            text in "[a-z .,\t\n\r\u{b}\u{c}\u{1c}\u{85}\u{a0}\u{3000}é]{0,40}",
            n in 0usize..10,
        ) {
            proptest::prop_assert_eq!(
                super::has_more_words_than(&text, n),
                text.split_whitespace().nth(n).is_some()
            );
        }

        /// The 64-byte count is the eight-byte count it replaced, on texts past a step or two
        /// of ASCII with white space, letters or none of them from `0x80` at their end.
        #[test]
        fn words_are_counted_as_eight_bytes_at_a_time_counted_them(
            head in "[a-z .,\t\n\r\u{b}\u{c}\u{1c}\u{1f}!]{0,200}",
            tail in "[a-z \u{85}\u{a0}\u{3000}\u{2028}\u{e9}]{0,6}",
            n in 0usize..40,
        ) {
            for text in [head.clone(), format!("{head}{tail}"), format!("{tail}{head}")] {
                let want = text.split_whitespace().nth(n).is_some();
                proptest::prop_assert_eq!(super::has_more_words_than(&text, n), want);
                proptest::prop_assert_eq!(super::has_more_words_by_eights(&text, n), want);
            }
        }

        /// The same for longer ASCII texts, read eight bytes at a time.
        #[test]
        fn ascii_words_are_counted_as_split_whitespace_counts_them(
            text in "[a-z .,\t\n\r\u{b}\u{c}\u{1c}\u{1f}!]{0,120}",
            n in 0usize..30,
        ) {
            proptest::prop_assert_eq!(
                super::has_more_words_than(&text, n),
                text.split_whitespace().nth(n).is_some()
            );
        }
    }

    use super::*;

    pub(super) fn names(text: &str) -> Vec<&str> {
        let f = NameFinder::new(&[], &[]);
        let mut out = Vec::new();
        f.find(text, &FindContext::default(), &mut out);
        out.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn full_names_and_titles() {
        assert_eq!(
            names("I spoke with Maria Ortiz today."),
            vec!["Maria Ortiz"]
        );
        assert_eq!(names("Please ask Dr. Ana Souza."), vec!["Ana Souza"]);
        assert_eq!(names("Yesterday Ronald Haas called."), vec!["Ronald Haas"]);
        assert_eq!(names("Signed: J. R. Tolkien"), vec!["J. R. Tolkien"]);
    }

    #[test]
    fn distinctive_names_for_recall() {
        let f = NameFinder::new(&["Claude".into()], &[]);
        for yes in ["Maria Ortiz", "will grant", "Xochitl", "Ortiz", "王伟"] {
            assert!(f.is_distinctive(yes), "{yes}");
        }
        for no in [
            "Will", "may", "Jordan", "Paris", "June", "Al", "", "  ", "claude",
        ] {
            assert!(!f.is_distinctive(no), "{no}");
        }
    }

    #[test]
    fn common_words_alone_are_not_names() {
        assert!(names("Will you come in May?").is_empty());
        assert!(names("Grant access to the repo.").is_empty());
    }

    #[test]
    fn caseless_runs_of_known_names_do_not_recurse_forever() {
        // Three or more known names in a caseless script overflowed the stack before.
        let found = names("محمد محمد محمد وصل");
        assert!(found.len() <= 1, "{found:?}");
        let found = names("محمد محمد محمد");
        assert!(found.len() <= 1, "{found:?}");
    }
}
