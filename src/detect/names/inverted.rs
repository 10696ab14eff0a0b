//! Inverted names: "Garcia, Maria", "Customer: Doe, Jane", "Smith, John; Doe, Jane",
//! "Garcia, Maria and Chen, Wei", "Garcia, Maria & Chen, Wei".
//!
//! Apart because a surname, a comma and a given name look like a two-item list, and the rules
//! that tell them apart (clear pairs, a cue or label before, the text's own e-mail evidence)
//! are their own.

use super::gazetteer::Entry;
use super::romanized;
use super::runs::Tok;
use super::scan::Scan;
use super::words::Shape;

/// Whether a surname and a given name make an inverted name in a list of them ("Garcia,
/// Maria and Chen, Wei"): each clearly of its kind, neither a place.
pub(super) fn clear_inverted_pair(sur: Entry, given: Entry) -> bool {
    sur.last >= 3
        && sur.last > sur.first
        && sur.place <= 1
        && given.first >= 3
        && given.first > given.last
        && given.place <= 1
        && given.wordiness() <= 4
}

impl Scan<'_, '_> {
    /// "Garcia, Maria and Chen, Wei": inverted names joined by "and" or "&", each a clear
    /// surname, a comma and a clear given name. ("Maslow, Anthony and Perry" is a list of
    /// three; "Smith, Jones and Brown, Taylor" has surnames where the given names would be.)
    pub(super) fn inverted_pairs(&self, run: &[Tok]) -> bool {
        if run.len() < 4 || !run.len().is_multiple_of(2) {
            return false;
        }
        run.chunks_exact(2).enumerate().all(|(k, pair)| {
            let (Some(sur), Some(given)) = (pair[0].entry, pair[1].entry) else {
                return false;
            };
            let joined = k == 0
                || matches!(
                    self.text[run[2 * k - 1].end..pair[0].start].trim(),
                    "and" | "&"
                );
            joined
                && self.text[pair[0].end..pair[1].start].trim() == ","
                && pair[0].shape != Shape::Lower
                && pair[1].shape != Shape::Lower
                && clear_inverted_pair(sur, given)
        })
    }

    /// "Garcia, Maria & Chen, Wei": a run of one inverted name with another on the far side
    /// of `&` (or `&amp;`), one of the two clear (see [`clear_inverted_pair`]), the other at
    /// least a known surname and given name. The scan ends a run at `&`, and a run beside `&`
    /// reads as a firm's name ("Smith & Jones"), so each side is judged here.
    pub(super) fn inverted_pair_beside_amp(&self, run: &[Tok]) -> bool {
        let [sur, given] = run else {
            return false;
        };
        if self.text[sur.end..given.start] != *", " {
            return false;
        }
        let mine = self.inverted_pair_strength(self.word(sur), self.word(given));
        if mine == 0 {
            return false;
        }
        let enough = |other: u8| other > 0 && mine.max(other) == 2;
        // The pair after: "& Chen, Wei".
        let rest = self.text[given.end..].trim_start();
        let after = rest
            .strip_prefix("&amp;")
            .or_else(|| rest.strip_prefix('&'))
            .and_then(|rest| rest.trim_start().split_once(", "))
            .is_some_and(|(s, rest)| {
                rest.split(|c: char| !c.is_alphabetic())
                    .next()
                    .is_some_and(|g| enough(self.inverted_pair_strength(s, g)))
            });
        // The pair before: "Chen, Wei & ".
        let head = self.text[..sur.start].trim_end();
        let before = || {
            head.strip_suffix("&amp;")
                .or_else(|| head.strip_suffix('&'))
                .and_then(|head| head.trim_end().rsplit_once(", "))
                .is_some_and(|(head, g)| {
                    head.rsplit(|c: char| !c.is_alphabetic())
                        .next()
                        .is_some_and(|s| enough(self.inverted_pair_strength(s, g)))
                })
        };
        after || before()
    }

    /// How surely the capitalised words `sur`, `given` make an inverted name: 2 when
    /// [`clear_inverted_pair`], 1 when they are at least a known surname and a given name
    /// ("Wilson, Grace": "grace" is a common word), else 0.
    pub(super) fn inverted_pair_strength(&self, sur: &str, given: &str) -> u8 {
        let capitalised = |w: &str| {
            let mut cs = w.chars();
            cs.next().is_some_and(char::is_uppercase) && cs.any(char::is_lowercase)
        };
        if !capitalised(sur) || !capitalised(given) {
            return 0;
        }
        match (self.finder.entry(sur), self.finder.entry(given)) {
            (Some(s), Some(g)) if clear_inverted_pair(s, g) => 2,
            (Some(s), Some(g))
                if s.last >= 3
                    && s.last >= s.first
                    && g.first >= 3
                    && g.first > g.last
                    && s.place <= 1
                    && g.place <= 1 =>
            {
                1
            }
            _ => 0,
        }
    }

    /// "Smith, John": a surname, a comma, a given name (and maybe an initial), not in a list.
    pub(super) fn inverted(&self, run: &[Tok]) -> bool {
        let Some(sur) = run[0].entry else {
            return false;
        };
        // A hyphenated Chinese or Korean given name ("Park, Min-jun") is one whatever the
        // gazetteer holds; it stands for a clear given name.
        let given = match run[1].entry {
            _ if run.len() == 2 && romanized::hyphenated_given(self.word(&run[1])) => Entry {
                first: 6,
                ..Entry::default()
            },
            Some(e) => e,
            None => return false,
        };
        let tail_ok = run[2..].iter().all(|t| t.shape == Shape::Initial);
        let end = run[run.len() - 1].end;
        let next = &self.text[end..];
        let listy = next.starts_with(',')
            || next.starts_with(" and ")
            || next.starts_with(" &")
            || self.text[..run[0].start].trim_end().ends_with(',');
        if !tail_ok || listy {
            return false;
        }
        // "Doe, Jane (jane.doe@example.com)", "Customer: Doe, Jane", "cc Doe, Jane": a surname
        // the text's own e-mail address holds, or one after a cue or a field label, needs only
        // to be a surname; that context outweighs its sense as a word.
        let evidence = self.evidence.any && self.evidence.has(self.word(&run[0]));
        if evidence
            || self.cue_or_label_before(run[0].start)
            || self.after_inverted_name(run[0].start)
        {
            // A common given name may also be a town ("Ann"); after the cue that is no matter.
            return sur.last >= 1
                && sur.place <= 1
                && given.first >= 3
                && given.first > given.last
                && (given.place <= 1 || given.first >= 6);
        }
        sur.last >= 2
            && sur.last > sur.first + 1
            && sur.last >= sur.wordiness() + 2
            && given.first >= 3
            && given.first > given.last + 1
            && given.wordiness() <= 3
    }

    /// Whether an inverted name ends right before `at`, joined by ";", "or" or "/" ("Smith,
    /// John; Doe, Jane"): the list's first name is a cue to the next.
    pub(super) fn after_inverted_name(&self, at: usize) -> bool {
        self.out.last().is_some_and(|s| {
            s.end <= at
                && matches!(self.text[s.end..at].trim(), ";" | "or" | "/")
                && self.text[s.start..s.end].contains(", ")
        })
    }
}
