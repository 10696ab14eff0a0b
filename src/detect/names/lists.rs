//! Runs with commas: "A, B and C" lists judged item by item (weaker items borrow the
//! others' standing), firms ("The Davis, Reynolds and Williamson office", "Merrill Lynch,
//! Arrive Labs and Buildzoom"), places with their region ("Paris, France"), and the hand-off
//! of inverted names to `inverted.rs`.
//!
//! Apart from `judge.rs`, which judges one comma-free part.

use super::cues::Cue;
use super::lexicon;
use super::runs::Tok;
use super::scan::Scan;
use super::words::Shape;
use crate::detect::Kind;
use crate::detect::Span;

impl Scan<'_, '_> {
    /// Splits a run at its commas ("Smith, John" stays whole) and judges each part.
    pub(super) fn judge_run(&mut self, run: &[Tok]) {
        let commas = run.iter().filter(|t| t.comma_before).count();
        if commas == 0 {
            self.judge(run, Cue::None);
            return;
        }
        // "Contact Doe, Jane": a cue word that opens the sentence joins the run.
        if commas == 1
            && run.len() >= 3
            && run[2].comma_before
            && self.text[run[1].end..run[2].start].starts_with(',')
            && self.finder.lex.flags(self.word(&run[0]))
                & (lexicon::STRONG_BEFORE_F | lexicon::WEAK_BEFORE_F)
                != 0
            && self.inverted(&run[1..])
        {
            self.emit(Span::new(run[1].start, run[run.len() - 1].end, Kind::Name));
            return;
        }
        if commas == 1
            && run.len() >= 2
            && run[1].comma_before
            && self.text[run[0].end..run[1].start].starts_with(',')
            && (self.inverted(run) || self.inverted_pair_beside_amp(run))
        {
            let span = Span::new(run[0].start, run[run.len() - 1].end, Kind::Name);
            self.emit(span);
            return;
        }
        // A list ("Maslow, Anthony and Perry"): a firm's name when "The" leads it or "office"
        // follows it; otherwise people when one item is, so weaker items count as people too.
        let before = self.text[..run[0].start].trim_end();
        let after = self.text[run[run.len() - 1].end..].trim_start();
        let firm = before.ends_with("The")
            || before.ends_with("the")
            || self.word(&run[0]) == "The"
            || ["office", "law", "LLP", "&"]
                .iter()
                .any(|w| after.starts_with(w))
            || after.bytes().next().is_some_and(|c| c.is_ascii_digit())
            || self.surname_firm(run, after);
        if firm {
            return;
        }
        if self.inverted_pairs(run) {
            for pair in run.chunks_exact(2) {
                self.emit(Span::new(pair[0].start, pair[1].end, Kind::Name));
            }
            return;
        }
        // The parts, on the stack (a list of more than sixteen goes to the heap): this runs
        // for every run with a comma.
        let mut parts_buf = [(0usize, 0usize); 16];
        let mut parts_heap = Vec::new();
        let mut n_parts = 0;
        let mut from = 0;
        for i in 1..=run.len() {
            if i == run.len() || run[i].comma_before {
                if n_parts < parts_buf.len() {
                    parts_buf[n_parts] = (from, i);
                } else {
                    if parts_heap.is_empty() {
                        parts_heap.extend_from_slice(&parts_buf);
                    }
                    parts_heap.push((from, i));
                }
                n_parts += 1;
                from = i;
            }
        }
        let parts: &[(usize, usize)] = if n_parts <= parts_buf.len() {
            &parts_buf[..n_parts]
        } else {
            &parts_heap
        };
        // "Paris, France", "Austin, Texas": a place then its country or state, not two
        // people. (A state that is a common given name, "Georgia", is left to the list.)
        let region = |&(a, b): &(usize, usize)| {
            b == a + 1
                && run[a].shape != Shape::Lower
                && run[a].entry.is_some_and(|e| e.place >= 3 && e.first < 6)
        };
        if parts.len() == 2 && region(&parts[1]) {
            return;
        }
        // A list with a thing in it ("Merrill Lynch, Arrive Labs and Buildzoom") lists firms
        // or places: none of its items is taken for a person.
        let things = parts.len() >= 3
            && parts.iter().any(|&(a, b)| {
                run[a..b].iter().any(|t| {
                    !t.particle
                        && t.shape != Shape::Initial
                        && (t.is(lexicon::ORG_PLACE) || t.entry.is_some_and(|e| e.name() == 0))
                })
            });
        if things {
            return;
        }
        // Which parts the judge rejected (by the parts' order), on the stack like them.
        let mut rejected_buf = [false; 16];
        let mut rejected_heap = Vec::new();
        let rejected: &mut [bool] = if parts.len() <= rejected_buf.len() {
            &mut rejected_buf[..parts.len()]
        } else {
            rejected_heap.resize(parts.len(), false);
            &mut rejected_heap
        };
        let mut n_rejected = 0;
        for (k, &(a, b)) in parts.iter().enumerate() {
            if !self.judge(&run[a..b], Cue::None) {
                rejected[k] = true;
                n_rejected += 1;
            }
        }
        // Only a list proper lends an item its neighbours' standing: three or more items, or
        // two joined by "and" ("Sousa and Ball"), not "omar, will do".
        let list = parts.len() >= 3
            || parts.last().is_some_and(|&(a, _)| {
                a > 0 && self.text[run[a - 1].end..run[a].start].contains("and")
            })
            || after.trim_start_matches([',', ' ']).starts_with("and ");
        if list && n_rejected < parts.len() {
            for (&(a, b), _) in parts.iter().zip(rejected.iter()).filter(|(_, r)| **r) {
                // A lower-case common word is no list item ("sam, will and ...").
                if b == a + 1
                    && run[a].shape == Shape::Lower
                    && run[a].entry.is_some_and(|e| e.wordiness() >= 6)
                {
                    continue;
                }
                // "Love, Maria", "Thanks, Omar": a sign-off or greeting is no list item.
                if b == a + 1
                    && run[a].is(lexicon::STRONG_BEFORE_F | lexicon::WEAK_BEFORE_F | lexicon::TITLE)
                {
                    continue;
                }
                self.judge(&run[a..b], Cue::Strong);
            }
        }
    }

    /// "Davis, Reynolds and Williamson is ...": three surnames in the form of a firm's name,
    /// going on in the sentence. A list of people closes it ("our founders: Blair, Sousa and
    /// Parks.") or has given names in it.
    pub(super) fn surname_firm(&self, run: &[Tok], after: &str) -> bool {
        run.len() == 3
            && self.text[run[0].end..run[1].start] == *", "
            && self.text[run[1].end..run[2].start] == *" and "
            && run.iter().all(|t| {
                t.shape == Shape::Title && t.entry.is_some_and(|e| e.last >= 2 && e.last > e.first)
            })
            && after
                .bytes()
                .next()
                .is_some_and(|c| !matches!(c, b'.' | b'!' | b'?' | b'"' | b')'))
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::names::tests::names;

    #[test]
    fn long_lists_judge_each_item_as_short_ones_do() {
        // `judge_run` keeps up to sixteen parts on the stack and more on the heap: a list of
        // twenty names is judged item by item like one of five.
        let given = [
            "Maria",
            "Jennifer",
            "Michael",
            "Patricia",
            "Robert",
            "Linda",
            "William",
            "Barbara",
            "Richard",
            "Susan",
            "Joseph",
            "Jessica",
            "Thomas",
            "Sarah",
            "Charles",
            "Karen",
            "Christopher",
            "Nancy",
            "Daniel",
            "Lisa",
        ];
        for n in [5, 16, 17, 20] {
            let text = format!(
                "Thanks to {}, and {} for coming.",
                given[..n - 1].join(", "),
                given[n - 1]
            );
            assert_eq!(names(&text), given[..n].to_vec(), "{n}");
        }
    }
}
