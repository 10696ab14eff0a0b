//! The scan over one text: the state of a `find` call (`Scan`) and the loop that walks its
//! words (`run_all`), deciding which lower-case words may join a run (particles, a name after a
//! greeting, a lower-case surname, words of lower-case text or a field).
//!
//! Words become candidate runs in `runs.rs`; runs are judged in `lists.rs` and `judge.rs`.

use super::bytes::{BYTE_CLASS, GOES_ON, ascii_letters_end};
use super::casual;
use super::cjk;
use super::evidence::Evidence;
use super::gazetteer::Entry;
use super::idle::{GREETING_STOPS, is_lower_greeting, skip_idle};
use super::lexicon;
use super::model;
use super::runs::Tok;
use super::words::{Shape, char_at, is_word_char, text_of, word_end};
use super::{NameFinder, mostly_english};
use crate::detect::Span;

/// Whether a lower-case word with gazetteer entry `e` may be a name after a greeting or another
/// strong cue in capitalised text: a name more than a word ("megan", "john"), not "will" or
/// "mark".
pub(super) fn lower_given_name_after_cue(e: Entry) -> bool {
    e.name() >= 3 && (e.wordiness() <= 2 || (e.first >= 6 && e.wordiness() <= 4))
}

thread_local! {
    /// The buffer of [`Scan::run`], kept between calls on a thread: a text with a candidate
    /// then costs no allocation for it (most tool results are many short texts).
    pub(super) static RUN_BUF: std::cell::Cell<Vec<Tok>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The state of one `find` call.
pub(super) struct Scan<'a, 'o> {
    pub(super) finder: &'a NameFinder,
    pub(super) text: &'a str,
    pub(super) evidence: &'a Evidence,
    pub(super) field: bool,
    /// The text has no capital letter at all: names are lower-case too.
    pub(super) lower_text: bool,
    /// Whether most words of the text are English words; worked out on first need.
    pub(super) english: std::cell::Cell<Option<bool>>,
    pub(super) run: Vec<Tok>,
    pub(super) out: &'o mut Vec<Span>,
    /// Candidates seen, with features, when training the judge.
    pub(super) trace: Option<&'a std::cell::RefCell<Vec<model::Candidate>>>,
    /// Signs of casual writing (`casual::sig` bits; 0 for long, well-cased or code text).
    pub(super) signals: u8,
}

impl<'a, 'o> Scan<'a, 'o> {
    /// The state of a `find` call over `text` (`field`, `lower_text`: how its words may be
    /// read; see `find_inner`).
    pub(super) fn new(
        finder: &'a NameFinder,
        text: &'a str,
        evidence: &'a Evidence,
        field: bool,
        lower_text: bool,
        out: &'o mut Vec<Span>,
        trace: Option<&'a std::cell::RefCell<Vec<model::Candidate>>>,
    ) -> Self {
        Scan {
            finder,
            text,
            evidence,
            field,
            lower_text,
            english: std::cell::Cell::new(None),
            run: RUN_BUF.take(),
            out,
            trace,
            signals: 0,
        }
    }
}

impl Scan<'_, '_> {
    /// Whether at least half the words of the text are English words (computed once, only
    /// when a lower-case pair with an unknown word is judged: rare, so never per byte).
    pub(super) fn is_english(&self) -> bool {
        if let Some(known) = self.english.get() {
            return known;
        }
        let known = mostly_english(
            self.finder.gaz,
            self.text.split(|c: char| !c.is_alphabetic()),
            200,
        );
        self.english.set(Some(known));
        known
    }

    pub(super) fn run_all(&mut self) {
        let text = self.text;
        let b = text.as_bytes();
        let n = b.len();
        let mut i = 0;
        // End of the last lower-case greeting word ("hi"), which lets one lower-case name follow.
        let mut greeting_end = usize::MAX;
        while i < n {
            // A greeting matters only to the word right after it (`after_greeting`).
            if self.run.is_empty()
                && (greeting_end == usize::MAX || i > greeting_end + 2)
                && !self.field
                && !self.lower_text
            {
                i = skip_idle(b, i, self.evidence);
                if i >= n {
                    break;
                }
            }
            let c = b[i];
            if !c.is_ascii_alphabetic() {
                if c < 0x80 {
                    i += 1;
                    continue;
                }
                let Some(ch) = char_at(text, i) else {
                    i += 1;
                    continue;
                };
                if cjk::is_cjk(ch) {
                    self.flush();
                    let end = text[i..]
                        .char_indices()
                        .find(|(_, c)| !cjk::is_cjk(*c))
                        .map_or(n, |(j, _)| i + j);
                    i = cjk::find(text, i, end, self.finder.gaz, self.out);
                    continue;
                }
                if !is_word_char(ch) || !ch.is_alphabetic() {
                    i += ch.len_utf8();
                    continue;
                }
            }
            let start = i;
            // Plain ASCII letters first (most words); the general scan only when the word
            // goes on with an apostrophe, a hyphen or a non-ASCII letter.
            let mut end = ascii_letters_end(b, i + 1);
            // Only ASCII letters (most words): no apostrophe, no possessive, no contraction.
            let mut plain = c < 0x80;
            if b.get(end)
                .is_some_and(|&c| BYTE_CLASS[usize::from(c)] & GOES_ON != 0)
            {
                end = word_end(text, i);
                plain = false;
            }
            i = end;
            // Lower-case words: the common case, kept cheap.
            if c.is_ascii_lowercase()
                || (c >= 0x80 && char_at(text, start).is_some_and(char::is_lowercase))
            {
                let word = &b[start..end];
                if word.len() <= 4 && self.is_particle_here(start, end) {
                    self.push_particle(start, end);
                    continue;
                }
                // HTML's no-break space between two names ("Maria&nbsp;Garcia"): a space
                // (`gap_joins`), not a lower-case word that ends the run.
                if word == b"nbsp"
                    && start > 0
                    && b[start - 1] == b'&'
                    && b.get(end) == Some(&b';')
                    && !self.run.is_empty()
                {
                    continue;
                }
                if word == b"and" && !self.run.is_empty() {
                    // "Sousa and Ball": the next word decides (see `gap_joins`).
                    continue;
                }
                // Only a word that may be a name after the greeting joins ("thx john"): not
                // "to" in "Many thanks to Teddy Smith", which made the run a thing.
                let after_greeting = (greeting_end != usize::MAX
                    && matches!(&text[greeting_end..start], " " | ", ")
                    && self
                        .finder
                        .entry(&text[start..end])
                        .is_some_and(lower_given_name_after_cue))
                    || self.after_capitalised_greeting(start, end);
                if word.len() <= 6
                    && matches!(word[0], b'h' | b'd' | b't' | b'c' | b'y')
                    && is_lower_greeting(word)
                {
                    self.flush();
                    greeting_end = end;
                    continue;
                }
                let candidate = after_greeting
                    || ((self.field || self.lower_text) && self.lower_candidate(start, end))
                    || (!self.run.is_empty() && self.lower_surname(start, end))
                    || (self.evidence.any
                        && self.evidence.idle_stops().passes(word)
                        && self.evidence.has_bytes(word));
                if !candidate {
                    self.flush();
                    continue;
                }
            }
            self.push_word(start, end, plain);
        }
        self.flush();
    }

    /// Whether the run so far is one capitalised greeting right before the lower-case word at
    /// `start..end`, and that word reads as a given name ("Hi megan", "Thanks omar"; not
    /// "Thanks to", "Hi will"): the word is then judged with the greeting as its cue, which
    /// `single` asks of a lower-case word in capitalised text.
    pub(super) fn after_capitalised_greeting(&self, start: usize, end: usize) -> bool {
        let [t] = self.run.as_slice() else {
            return false;
        };
        let w = &self.text.as_bytes()[t.start..t.end];
        if t.particle || !matches!(t.shape, Shape::Title | Shape::Upper) || w.len() > 6 {
            return false;
        }
        // The greetings' first-letter tables reject most words before the copy ("The", "He":
        // none has a greeting's first letter, length and last letter; `& 31` folds case).
        let key = usize::from(w[0] & 31);
        if GREETING_STOPS.lens[key] & (1 << w.len()) == 0
            || GREETING_STOPS.lasts[key] & (1 << (w[w.len() - 1] & 31)) == 0
        {
            return false;
        }
        let mut lower = [0u8; 6];
        lower[..w.len()].copy_from_slice(w);
        lower[..w.len()].make_ascii_lowercase();
        is_lower_greeting(&lower[..w.len()])
            && &self.text[t.end..start] == " "
            && self
                .finder
                .entry(&self.text[start..end])
                .is_some_and(|e| e.first >= 3 && lower_given_name_after_cue(e))
    }

    /// In a text without capitals: whether the lower-case word at `start..end` may be part of a
    /// name (a name word, a title, or an unknown word after a given name).
    pub(super) fn lower_candidate(&self, start: usize, end: usize) -> bool {
        let w = &self.text[start..end];
        if self.finder.lex.is(w, lexicon::TITLE) {
            return true;
        }
        let after_given = || {
            self.run
                .last()
                .is_some_and(|t| !t.particle && t.entry.is_some_and(|e| e.first >= 3))
        };
        match self.finder.entry(w) {
            // In prose, a common word ("said", "to", "will") joins only as a surname after a
            // given name, and not the commonest words ("chad farmer", not "robinson were").
            Some(e) if !self.field && e.wordiness() > e.name() + 1 => {
                e.last >= 2 && e.wordiness() <= 6 && after_given()
            }
            Some(e) => e.name() >= 1,
            None => self
                .run
                .last()
                .is_some_and(|t| !t.particle && t.entry.is_some_and(|e| e.first >= 3)),
        }
    }

    /// Whether the word at `start..end` is a hyphenated phrase with a common lower-case English
    /// word after a hyphen ("Signed-off-by", "Co-authored-by", "Mother-in-law"), not a
    /// double name ("Jean-Luc", "Smith-Jones", "Ould-Abdallahi").
    pub(super) fn hyphenated_phrase(&self, start: usize, end: usize) -> bool {
        self.text[start..end].split('-').skip(1).any(|part| {
            !part.is_empty()
                && part.bytes().all(|c| c.is_ascii_lowercase())
                && self
                    .finder
                    .entry(part)
                    .is_some_and(|e| e.wordiness() >= 6 && e.wordiness() > e.name())
        })
    }

    /// Whether the lower-case word at `start..end` is a surname written in lower case right
    /// after a capitalised given name ("Kylie minogue", "Travis scott"): a clear surname, not
    /// a common word ("Kevin love", "Tanya will").
    pub(super) fn lower_surname(&self, start: usize, end: usize) -> bool {
        let Some(prev) = self.run.last() else {
            return false;
        };
        let given = prev.shape == Shape::Title
            && !prev.possessive
            && prev
                .entry
                .is_some_and(|e| e.first >= 3 && e.first > e.last && e.first >= e.wordiness() + 2)
            && text_of(self.text, prev.end, start) == " ";
        given
            && self
                .finder
                .entry(&self.text[start..end])
                .is_some_and(|e| e.last >= 2 && e.last >= e.wordiness() + 2)
    }

    pub(super) fn word(&self, t: &Tok) -> &str {
        &self.text[t.start..t.end]
    }

    pub(super) fn emit(&mut self, span: Span) {
        let found = &self.text[span.start..span.end];
        // Chat noise ("Timeeeee", "I'ma") in short texts, where chat is (see `casual.rs`).
        if (!self.finder.allow.is_empty() && self.finder.is_allowed(found))
            || (self.text.len() <= casual::MAX_LEN && casual::has_chat_noise(found))
        {
            return;
        }
        self.out.push(span);
    }
}
