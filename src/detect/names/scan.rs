//! The scan over one text: the state of a `find` call (`Scan`) and the loop that walks its
//! words (`run_all`), deciding which lower-case words may join a run (particles, a name after a
//! greeting, a lower-case surname, words of lower-case text or a field).
//!
//! Words become candidate runs in `runs.rs`; runs are judged in `lists.rs` and `judge.rs`.

use super::bytes::{BYTE_CLASS, GOES_ON, ascii_letters_end, next_letter};
use super::casual;
use super::cjk;
use super::evidence::Evidence;
use super::gazetteer::Entry;
use super::idle::{GREETING_STOPS, is_lower_greeting, skip_idle};
use super::lexicon;
use super::model;
use super::runs::{Tok, given_before_lower_surname, may_be_particle};
use super::words::{Shape, char_at, is_word_char, text_of, word_end};
use super::{NameFinder, mostly_english};
use crate::detect::Span;

/// Whether a lower-case word with gazetteer entry `e` may be a name after a greeting or another
/// strong cue in capitalised text: a name more than a word ("megan", "john"), not "will" or
/// "mark".
pub(super) fn lower_given_name_after_cue(e: Entry) -> bool {
    e.name() >= 3 && (e.wordiness() <= 2 || (e.first >= 6 && e.wordiness() <= 4))
}

#[cfg(test)]
thread_local! {
    /// Switches the scan's shortcuts off, for the tests that compare the scan with and without
    /// them.
    pub(super) static NO_SHORTCUTS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether `run_all` takes its shortcuts (always, but in the tests that compare it without).
#[inline(always)]
pub(super) fn shortcuts() -> bool {
    #[cfg(test)]
    return !NO_SHORTCUTS.get();
    #[cfg(not(test))]
    true
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
                    // Nothing changes until the next letter or non-ASCII byte (and `skip_idle`,
                    // if the loop's top calls it there, skips the same gap): cross the gap at
                    // once.
                    i = if shortcuts() {
                        next_letter(b, i + 1)
                    } else {
                        i + 1
                    };
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
            if let Some(resume) = self.push_word(start, end, plain) {
                i = i.max(resume);
            }
        }
        self.flush();
    }

    /// Where the scan may go on when no word after `t`, the only word of the run, can join the
    /// run (see `push_word`, which then adds no run that `flush` would drop); `None` when a
    /// word may join. A word joins only across a gap that [`Scan::gap_joins`] accepts (a
    /// particle, a lower-case surname and a name after a greeting need a space too); the ASCII
    /// bytes of each such gap before its first letter or non-ASCII byte are one of a few
    /// strings, and any other gap ends the run. After one space, a plain lower-case word
    /// decides ([`Scan::lower_word_after`]).
    pub(super) fn closed_after(&self, t: &Tok) -> Option<usize> {
        let b = self.text.as_bytes();
        let end = t.end;
        // The common gap: one space, then a lower-case word.
        if b.get(end) == Some(&b' ') && b.get(end + 1).is_some_and(u8::is_ascii_lowercase) {
            return self.lower_word_after(t, end + 1);
        }
        let next = next_letter(b, end);
        if next >= b.len() {
            return Some(end);
        }
        match &b[end..next] {
            // " ", "\u{a0}", "\u{200b}", "&nbsp;", "%20", ", ", " , ", ", and ", " and "
            b"" | b" " | b"&" | b"%20" | b", " | b" , " => None,
            b"." | b". " if t.shape == Shape::Initial || t.is(lexicon::TITLE) => None,
            _ => Some(end),
        }
    }

    /// For the lower-case word at `at`, one space after `t` (the only word of the run): `None`
    /// when it may keep the run open, else where the scan may go on. `run_all` ends the run at
    /// a plain lower-case ASCII word that is no particle, no "and", no evidence word, not after
    /// a clear given name or a capitalised greeting, in text that is neither a field nor lower
    /// case (a name after a lower-case greeting needs the greeting right before it, where `t`
    /// is); it then goes on after the word, so the scan may too, unless the word is a
    /// greeting, which the scan must see.
    pub(super) fn lower_word_after(&self, t: &Tok, at: usize) -> Option<usize> {
        if self.field || self.lower_text {
            return None;
        }
        let b = self.text.as_bytes();
        let end = ascii_letters_end(b, at + 1);
        if b.get(end)
            .is_some_and(|&c| BYTE_CLASS[usize::from(c)] & GOES_ON != 0)
        {
            return None;
        }
        let w = &b[at..end];
        let tw = &b[t.start..t.end];
        if w == b"and"
            || (w.len() <= 4
                && may_be_particle(w)
                && self.finder.lex.is(&self.text[at..end], lexicon::PARTICLE))
            || given_before_lower_surname(t)
            || (tw.len() <= 6 && GREETING_STOPS.passes(tw))
            || (self.evidence.any
                && self.evidence.idle_stops().passes(w)
                && self.evidence.has_bytes(w))
        {
            return None;
        }
        if w.len() <= 6 && is_lower_greeting(w) {
            return Some(t.end);
        }
        Some(end)
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
        let given = given_before_lower_surname(prev) && text_of(self.text, prev.end, start) == " ";
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

#[cfg(test)]
mod tests {
    use super::NO_SHORTCUTS;
    use crate::detect::names::NameFinder;
    use crate::detect::{FindContext, Span};

    /// What `find` reports for `text`, with or without the scan's shortcuts.
    fn found(f: &NameFinder, text: &str, cx: &FindContext<'_>, shortcuts: bool) -> Vec<Span> {
        NO_SHORTCUTS.set(!shortcuts);
        let mut out = Vec::new();
        f.find(text, cx, &mut out);
        NO_SHORTCUTS.set(false);
        out
    }

    #[test]
    fn shortcuts_change_nothing() {
        // Texts of random words and gaps: capitalised ordinary words, names, greetings,
        // titles, initials, particles, lower-case surnames and given names, evidence words,
        // and the gaps that join a run or end it.
        let words: &[&str] = &[
            "The",
            "Row",
            "You",
            "Friday",
            "April",
            "Apply",
            "Will",
            "Mark",
            "Hi",
            "Thanks",
            "Dear",
            "HI",
            "Mr",
            "Dr",
            "Jr",
            "Esq",
            "EMP",
            "ORDER",
            "BY",
            "McDonald",
            "UserName",
            "Saint",
            "Lake",
            "Bang",
            "Pope",
            "Day",
            "Account",
            "Manager",
            "Maria",
            "Ortiz",
            "Garcia",
            "Kylie",
            "Travis",
            "Teddy",
            "Smith",
            "Megan",
            "Omar",
            "Chad",
            "Jordan",
            "Paris",
            "Van",
            "De",
            "J",
            "A",
            "I",
            "the",
            "and",
            "van",
            "de",
            "del",
            "la",
            "ter",
            "said",
            "minogue",
            "scott",
            "megan",
            "john",
            "hi",
            "thanks",
            "cc",
            "thx",
            "farmer",
            "nbsp",
            "will",
            "maria",
            "ortiz",
            "to",
            "starring",
            "by",
            "iPhone",
            "x",
            "Éric",
            "élan",
            "王伟",
            "Иваном",
            "محمد",
        ];
        let gaps: &[&str] = &[
            " ",
            " ",
            " ",
            "  ",
            ", ",
            " , ",
            ". ",
            ".",
            "&nbsp;",
            "&",
            "%20",
            "\u{a0}",
            " \u{200b}",
            "\u{200b}",
            "\n",
            ": ",
            " 12: ",
            "-",
            "'s ",
            "’s ",
            "\\'s ",
            "\\n",
            "@",
            "#",
            "(",
            ") ",
            "\"",
            "_",
            "/",
            " & ",
            "\t",
            " and ",
            ", and ",
            "; ",
            "! ",
            "",
            " maria.ortiz@example.com ",
            " — ",
            "<br>",
            "[",
            "]",
            "::",
            "<",
            "7",
            "=",
        ];
        let f = NameFinder::new(&[], &[]);
        // The rules alone: no learned judge to rescue a run.
        let rules = NameFinder::new(&[], &[]).with_judge(None);
        let keyed = FindContext::with_key("comment");
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut texts = 0;
        let mut with_names = 0;
        for round in 0..40_000 {
            let mut text = String::new();
            for _ in 0..2 + next() % 16 {
                text.push_str(words[(next() >> 33) as usize % words.len()]);
                text.push_str(gaps[(next() >> 33) as usize % gaps.len()]);
            }
            // Long texts too: no casual regime, no field.
            if round % 8 == 0 {
                text = text.repeat(1 + (next() % 40) as usize);
            }
            for f in [&f, &rules] {
                for cx in [&FindContext::default(), &keyed] {
                    let with = found(f, &text, cx, true);
                    let without = found(f, &text, cx, false);
                    assert_eq!(with, without, "{text:?}");
                    with_names += usize::from(!with.is_empty());
                }
            }
            // Tracing for training: the same candidates.
            if round % 4 == 0 {
                let mut seen = [Vec::new(), Vec::new()];
                let mut out = [Vec::new(), Vec::new()];
                for (k, shortcuts) in [true, false].into_iter().enumerate() {
                    NO_SHORTCUTS.set(!shortcuts);
                    f.trace(&text, &mut out[k], &mut seen[k]);
                    NO_SHORTCUTS.set(false);
                }
                assert_eq!(out[0], out[1], "{text:?}");
                assert_eq!(seen[0].len(), seen[1].len(), "{text:?}");
            }
            texts += 1;
        }
        assert!(texts == 40_000 && with_names > 5_000, "{with_names}");
    }
}
