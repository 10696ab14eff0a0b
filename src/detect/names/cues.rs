//! Cue words around a run: the word before it (titles, greetings, "by", "cc", a verb of going
//! before "to"), sign-offs ("Love,", "Good morning"), a field label before it, the word after it
//! ("said", a speaker label, "and I"), and the ordinary words dropped from a run's front.
//!
//! Apart so that the judge reads as decisions over cues, not as text slicing; `Cue` and
//! `After` are the two scales it decides on.

use super::bytes::ascii_letters_end;
use super::lexicon;
use super::runs::Tok;
use super::scan::Scan;
use super::words::Shape;

/// How strongly the words around a run say it is a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Cue {
    None,
    /// "in", "at", "the": a place or organisation more likely.
    Place,
    /// "by", "from", "contact", "said" ...
    Weak,
    /// A greeting, a sign-off, an e-mail address of the same text.
    Strong,
    /// A title: "Dr.", "Mrs.".
    Title,
}

/// What the word after a run says about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum After {
    /// Nothing.
    None,
    /// An auxiliary ("is", "was", "has"): things and places take these too ("Kenya was fun").
    Aux,
    /// A speaker label, a vocative, or a verb people do ("said", "shouted", "spent").
    Person,
}

/// Whether `rest` (the text after a word the gazetteer lacks, at the start of a line or
/// sentence) makes the word a speaker label: `Name: "...`, a line of dialogue. Not `Betreff:
/// Rechnung`, `Adresse: ...` (form labels in other languages), a URL, a path or a spaced
/// headline source.
pub(super) fn speaker_label(rest: &str) -> bool {
    rest.strip_prefix(':').is_some_and(|r| {
        r.trim_start_matches(' ')
            .starts_with(['"', '\\', '“', '«', '„'])
    })
}

impl Scan<'_, '_> {
    /// Whether the word before the "to" at `at` (the word right before a run) is a verb of
    /// going ("went to", "moving to", "flights to").
    pub(super) fn motion_before(&self, at: usize) -> bool {
        // The first letter rejects most words before the list is walked.
        self.prev_word(at).0.is_some_and(|w| {
            w.as_bytes()
                .first()
                .is_some_and(|&c| lexicon::MOTION_FIRSTS & (1 << (c & 31)) != 0)
                && lexicon::on_list(lexicon::MOTION_VERBS, w)
        })
    }

    /// Whether a cue word ("cc", "by", "Dr.") or a field label (`Customer:`, `- Owner:`)
    /// comes right before `at`.
    pub(super) fn cue_or_label_before(&self, at: usize) -> bool {
        let head = self.text[..at].trim_end_matches(' ');
        if let Some(label) = head.strip_suffix(':') {
            let head = label.trim_end_matches(|c: char| c.is_alphanumeric());
            let word = &label[head.len()..];
            let line_start = head
                .trim_end_matches([' ', '-', '*', '\t'])
                .chars()
                .next_back()
                .is_none_or(|c| c == '\n' || c == '\r');
            if !word.is_empty() && line_start {
                return true;
            }
        }
        let (Some(prev), _) = self.prev_word(at) else {
            return false;
        };
        let flags = self.finder.lex.flags(prev);
        flags & (lexicon::STRONG_BEFORE_F | lexicon::WEAK_BEFORE_F | lexicon::TITLE) != 0
    }

    /// The word before `at`, skipping spaces and at most one `,` or `:`, and whether a sentence
    /// boundary (or the start of the text) comes first.
    pub(super) fn prev_word(&self, at: usize) -> (Option<&str>, bool) {
        let (word, boundary) = self.prev_word_at(at);
        (word.map(|(_, w)| w), boundary)
    }

    /// [`Self::prev_word`] with the word's start in the text: callers that look further back
    /// start there, without searching the text for the word again.
    pub(super) fn prev_word_at(&self, at: usize) -> (Option<(usize, &str)>, bool) {
        let text = self.text;
        let b = &text.as_bytes()[..at];
        // Byte by byte, whole characters only: spaces and no-break spaces (`C2 A0`), one
        // `,` `:` `-` `(` `"` or `“` (`E2 80 9C`), then spaces (as the character scan of
        // `prev_word_at_chars` trims them).
        let mut k = at;
        loop {
            if k >= 1 && b[k - 1] == b' ' {
                k -= 1;
            } else if k >= 2 && b[k - 2] == 0xc2 && b[k - 1] == 0xa0 {
                k -= 2;
            } else {
                break;
            }
        }
        if k >= 1 && matches!(b[k - 1], b',' | b':' | b'-' | b'(' | b'"') {
            k -= 1;
        } else if k >= 3 && b[k - 3..k] == [0xe2, 0x80, 0x9c] {
            k -= 3;
        }
        while k >= 1 && b[k - 1] == b' ' {
            k -= 1;
        }
        let head_p = &text[..k];
        let last = match b[..k].last() {
            None => None,
            Some(&c) if c < 0x80 => Some(char::from(c)),
            Some(_) => head_p.chars().next_back(),
        };
        Self::prev_word_of(head_p, last)
    }

    /// [`Self::prev_word_at`] by characters: the oracle of its byte scan.
    #[cfg(test)]
    pub(super) fn prev_word_at_chars(&self, at: usize) -> (Option<(usize, &str)>, bool) {
        let text = self.text;
        let head = text[..at].trim_end_matches([' ', '\u{a0}']);
        let head_p = head
            .strip_suffix([',', ':', '-', '(', '"', '“'])
            .unwrap_or(head)
            .trim_end_matches(' ');
        Self::prev_word_of(head_p, head_p.chars().next_back())
    }

    /// The word that ends `head_p` (the text before a run, trimmed), whose last character is
    /// `last`, and whether a sentence boundary comes first (see [`Self::prev_word_at`]).
    fn prev_word_of(head_p: &str, last: Option<char>) -> (Option<(usize, &str)>, bool) {
        match last {
            None => (None, true),
            Some(c) if !c.is_alphabetic() => (
                None,
                matches!(
                    c,
                    '.' | '!' | '?' | '\n' | '\r' | '\t' | '>' | '|' | ';' | '*'
                ),
            ),
            Some(_) => {
                // ASCII letters and `'` byte by byte; the char scan only past a non-ASCII byte.
                let hb = head_p.as_bytes();
                let mut start = hb.len();
                while start > 0 && (hb[start - 1].is_ascii_alphabetic() || hb[start - 1] == b'\'') {
                    start -= 1;
                }
                if start > 0 && hb[start - 1] >= 0x80 {
                    start = head_p
                        .char_indices()
                        .rev()
                        .find(|(_, c)| !c.is_alphabetic() && *c != '\'')
                        .map_or(0, |(i, c)| i + c.len_utf8());
                }
                (Some((start, &head_p[start..])), false)
            }
        }
    }

    /// Whether the word before `at`, as [`Self::prev_word`] finds it, is a title ("Mr The").
    /// Most words follow a space and a byte that ends no word (". The", "\nYou"): that byte
    /// alone answers.
    pub(super) fn title_before(&self, at: usize) -> bool {
        let b = self.text.as_bytes();
        let mut j = at;
        while j > 0 && b[j - 1] == b' ' {
            j -= 1;
        }
        match j.checked_sub(1).and_then(|k| b.get(k)) {
            None => return false,
            // What `prev_word` would see last after its trims: no letter, no word.
            Some(&c)
                if c < 0x80
                    && !c.is_ascii_alphabetic()
                    && !matches!(c, b',' | b':' | b'-' | b'(' | b'"') =>
            {
                return false;
            }
            Some(_) => {}
        }
        self.prev_word(at)
            .0
            .is_some_and(|p| self.finder.lex.flags(p) & lexicon::TITLE != 0)
    }

    /// The word right after `at`, skipping spaces and one `,`.
    pub(super) fn next_word(&self, at: usize) -> Option<&str> {
        // (Spaces and commas are ASCII: trimmed byte by byte.)
        let skip = self.text.as_bytes()[at..]
            .iter()
            .take_while(|&&c| c == b' ' || c == b',')
            .count();
        let rest = &self.text[at + skip..];
        // ASCII letters eight bytes at a time; the char scan only from a non-ASCII byte.
        let mut end = ascii_letters_end(rest.as_bytes(), 0);
        if rest.as_bytes().get(end).is_some_and(|&c| c >= 0x80) {
            end += rest[end..]
                .char_indices()
                .find(|(_, c)| !c.is_alphabetic())
                .map_or(rest.len() - end, |(i, _)| i);
        }
        (end > 0).then(|| &rest[..end])
    }

    /// The cue of a greeting or sign-off word `p`, at `at`, right before the run at `run_start`. "Love"
    /// and the times of day are greetings only as such ("Love, Mackenna", "Good morning
    /// Sarah", "Night,\nJo"); otherwise they are a verb ("I love Fridays") or a time ("Saturday
    /// night Casitas presents").
    pub(super) fn sign_off_cue(&self, p: &str, at: usize, run_start: usize) -> Cue {
        let timely = ["morning", "evening", "afternoon", "night"]
            .iter()
            .any(|w| p.eq_ignore_ascii_case(w));
        if !timely && !p.eq_ignore_ascii_case("love") {
            return Cue::Strong;
        }
        let gap = &self.text[at + p.len()..run_start];
        let good = self
            .prev_word(at)
            .0
            .is_some_and(|w| w.eq_ignore_ascii_case("good"));
        if gap.contains([',', '\n']) || (timely && good) || (!timely && self.prev_word(at).1) {
            Cue::Strong
        } else if timely {
            Cue::None
        } else {
            Cue::Weak
        }
    }

    /// Whether `rest` (the text after a run) goes on with "and I" or "& I": the run is a person.
    pub(super) fn and_i(rest: &str) -> bool {
        let rest = rest.trim_start_matches(' ');
        // Most runs go on with another word: its first byte tells.
        if !matches!(rest.as_bytes().first(), Some(b'a' | b'&')) {
            return false;
        }
        let rest = rest
            .strip_prefix("and ")
            .or_else(|| rest.strip_prefix("&amp; "))
            .or_else(|| rest.strip_prefix("& "));
        rest.is_some_and(|r| {
            r.strip_prefix('I')
                .is_some_and(|t| t.bytes().next().is_none_or(|c| !c.is_ascii_alphanumeric()))
        })
    }

    /// Whether the first word of a run is an ordinary word to drop ("Yesterday Ronald Haas").
    pub(super) fn is_lead_word(&self, t: &Tok, next: &Tok, run_first: bool) -> bool {
        if t.shape == Shape::Initial || t.shape == Shape::Caseless {
            return false;
        }
        if t.shape == Shape::Upper && t.entry.is_none() && t.end - t.start <= 3 {
            // "NY Congressman Michael Grimm", "LW Beleskey"
            return true;
        }
        let Some(e) = t.entry else {
            // An unknown word before a clear given name: "Привет Иван", "Gracias Maria".
            let n = next.entry.unwrap_or_default();
            return t.is(lexicon::CALENDAR_F)
                || (n.first >= 3 && n.first > n.last && n.first > n.wordiness());
        };
        if e.name() == 0 {
            return e.wordiness() > 0 || t.is(lexicon::CALENDAR_F);
        }
        if e.wordiness() < e.name() && !t.is(lexicon::CALENDAR_F) {
            return false;
        }
        if t.shape == Shape::Lower {
            return true;
        }
        // Inside a sentence, a capitalised given name that is also a word begins the name
        // before another name word ("I met Nick Jonas", "with Don Cheadle").
        if run_first
            && t.shape == Shape::Title
            && e.first >= 5
            && e.first > e.last
            && !t.is(lexicon::CALENDAR_F)
            && next.shape == Shape::Title
            && next.entry.is_none_or(|n| n.name() >= 1)
            && !self.prev_word(t.start).1
        {
            return false;
        }
        // "Will Smith" keeps Will; "Will Maria come?" drops it.
        let next = next.entry.unwrap_or_default();
        !(next.last >= 3 && next.last + 1 >= next.first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::names::NameFinder;
    use crate::detect::names::evidence::Evidence;
    use crate::detect::names::scan::Scan;

    #[test]
    fn prev_word_position_is_where_rfind_found_it() {
        // `judge` once found the words before a run's previous word by `rfind`ing that word
        // in the text before the run; `prev_word_at` returns its position instead. The two
        // agree wherever a word is found (the trimmed characters after it hold no letter and
        // no `'`, so no later occurrence can end past it).
        let f = NameFinder::new(&[], &[]);
        let ev = Evidence::default();
        let pieces = [
            "to",
            "in",
            "and",
            "me",
            "is",
            "went",
            "Good",
            "morning",
            "don't",
            "l'",
            "Müller",
            " ",
            " ",
            "  ",
            "\u{a0}",
            ",",
            ":",
            "-",
            "(",
            "\"",
            "“",
            ".",
            "!",
            "\n",
            "42",
            "x",
            "”",
            "\u{2000}",
            "é",
            "\u{a0}\u{a0}",
            ", ",
            "\t",
            "’",
            "\u{c2}",
        ];
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut found = 0;
        for _ in 0..5_000 {
            let mut text = String::new();
            for _ in 0..1 + next() % 10 {
                text.push_str(pieces[(next() >> 40) as usize % pieces.len()]);
            }
            let mut out = Vec::new();
            let scan = Scan::new(&f, &text, &ev, false, false, &mut out, None);
            for at in (0..=text.len()).filter(|&at| text.is_char_boundary(at)) {
                let (word, boundary) = scan.prev_word_at(at);
                // The byte scan finds what the character scan found.
                assert_eq!(
                    scan.prev_word_at_chars(at),
                    (word, boundary),
                    "{text:?} at {at}"
                );
                assert_eq!(scan.prev_word(at), (word.map(|(_, w)| w), boundary));
                if let Some((pos, w)) = word {
                    assert_eq!(text[..at].rfind(w), Some(pos), "{text:?} at {at}");
                    found += 1;
                }
            }
        }
        assert!(found > 10_000, "{found}");
    }

    #[test]
    fn motion_verbs_pass_their_first_letter_test() {
        for w in lexicon::MOTION_VERBS {
            for w in [w.to_string(), w.to_uppercase()] {
                assert!(
                    lexicon::MOTION_FIRSTS & (1 << (w.as_bytes()[0] & 31)) != 0,
                    "{w}"
                );
            }
        }
    }

    #[test]
    fn speaker_labels_and_and_i() {
        assert!(speaker_label(": \"Who are you?\""));
        // A spaced colon is a headline's source in tweets ("Engadget : Sky 3D ...").
        assert!(!speaker_label(" : hello"));
        assert!(!speaker_label(": hello"));
        assert!(speaker_label(": “Who are you?”"));
        assert!(!speaker_label("://example.com"));
        assert!(!speaker_label(" said"));
        assert!(Scan::and_i(" and I went"));
        assert!(Scan::and_i(" &amp; I work"));
        assert!(!Scan::and_i(" and Ivan went"));
    }
}
