//! The decision on one comma-free part of a run (`judge`): trim titles, greetings and ordinary
//! words off its ends, split title-cased lines, gather the cues before and after it, reject
//! places, addresses and organisations, then accept by the rules for a single name word
//! (`single`) or several (`multi`), with the learned judge (`model.rs`) having the last word.
//!
//! Apart because it is the one place a run becomes a span; the scan and the lists only call it.

use super::cues::speaker_label;
use super::cues::{After, Cue};
use super::lexicon;
use super::markup::display_name_before;
use super::runs::Tok;
use super::scan::{Scan, lower_given_name_after_cue};
use super::words::{SUFFIXES, Shape, text_of};
use super::{model, romanized};
use crate::detect::{Kind, Span};

impl Scan<'_, '_> {
    /// Judges one comma-free part of a run, starting from cue `given`; whether it was a name.
    pub(super) fn judge(&mut self, toks: &[Tok], given: Cue) -> bool {
        // (A run that is one stretch of known name words is judged below as it is: splitting it
        // again would recurse on the same words until the stack overflows.)
        if toks.len() > 2
            && toks.iter().all(|t| t.shape == Shape::Caseless)
            && !toks.iter().all(|t| t.entry.is_some_and(|e| e.name() > 0))
        {
            // Scripts without case: every word is a candidate, so judge each stretch of known
            // name words on its own ("محمد أحمد وصل اليوم").
            let mut any = false;
            let mut from = 0;
            for i in 0..=toks.len() {
                let known = i < toks.len() && toks[i].entry.is_some_and(|e| e.name() > 0);
                if !known {
                    if i >= from + 2 {
                        any |= self.judge(&toks[from..i], given);
                    }
                    from = i + 1;
                }
            }
            return any;
        }
        let f = self.finder;
        let lex = f.lex;
        let all = toks;
        let mut toks = toks;
        while toks
            .first()
            .is_some_and(|t| t.particle || self.word(t) == "I.")
        {
            toks = &toks[1..];
        }
        while toks.last().is_some_and(|t| t.particle) {
            toks = &toks[..toks.len() - 1];
        }
        if toks.is_empty() {
            return false;
        }
        let run_start = toks[0].start;
        let run_end = toks[toks.len() - 1].end;
        // Cues inside the run: titles, greetings and verbs at its front.
        let mut cue = given;
        let mut dropped_the = false;
        // Where the span starts when a role title leads it ("Pope Benedict").
        let mut role_start = None;
        while toks.len() > 1 {
            let t = &toks[0];
            let w = self.word(t);
            if t.shape == Shape::Lower && !self.lower_text {
                break;
            }
            if t.is(lexicon::TITLE) && t.shape != Shape::Initial {
                cue = Cue::Title;
                if role_start.is_none()
                    && t.shape != Shape::Lower
                    && text_of(self.text, t.end, toks[1].start) == " "
                    && lexicon::on_list(lexicon::ROLE_TITLES, w)
                {
                    role_start = Some(t.start);
                }
            } else if t.is(lexicon::STREET_BEFORE_F)
                && cue < Cue::Title
                && t.shape != Shape::Initial
                && !lexicon::on_list(lexicon::STREET_WORDS_NOT_LEADING, w)
            {
                // "Lake Charles", "Saint Vincent", "USNS Márquez": a place, not a person.
                return false;
            } else if t.is(lexicon::STRONG_BEFORE_F) {
                cue = cue.max(Cue::Strong);
            } else if t.is(lexicon::WEAK_BEFORE_F) {
                cue = cue.max(Cue::Weak);
            } else if cue < Cue::Title && self.is_lead_word(t, &toks[1], t.start == run_start) {
                dropped_the |= w.eq_ignore_ascii_case("the");
            } else {
                break;
            }
            toks = &toks[1..];
            if cue < Cue::Title {
                while toks.first().is_some_and(|t| t.particle) {
                    toks = &toks[1..];
                }
            }
        }
        // A title inside the run starts the name ("rufen Sie Frau Schneider an", "Thank You
        // Mr. Lee"): what comes before it is judged on its own.
        if cue < Cue::Title
            && let Some(i) = (1..toks.len().saturating_sub(1)).find(|&i| {
                let t = &toks[i];
                t.is(lexicon::TITLE)
                    && !t.particle
                    && matches!(t.shape, Shape::Title | Shape::Upper)
                    && !toks[i + 1].particle
            })
        {
            let before = self.judge(&toks[..i], given);
            return self.judge(&toks[i..], Cue::None) || before;
        }
        // A day named after someone ("Marvin Gaye Day"): the name is the person.
        if toks.len() > 2 && self.word(&toks[toks.len() - 1]) == "Day" {
            toks = &toks[..toks.len() - 1];
        }
        // Ordinary words at the end ("Maria Office").
        while toks.len() > 1 && !toks[toks.len() - 2].particle {
            let t = &toks[toks.len() - 1];
            let e = t.entry;
            let after_given = toks[toks.len() - 2].entry.is_some_and(|p| p.first >= 3);
            let wordy = e.is_some_and(|e| {
                if t.shape == Shape::Lower {
                    e.name() == 0 || (e.wordiness() >= e.name() && !(e.last >= 2 && after_given))
                } else {
                    e.name() == 0 || (e.last == 0 && e.wordiness() >= e.name() + 3)
                }
            }) && t.shape != Shape::Initial;
            if !(wordy || self.run_separator(t)) || t.is(lexicon::ORG_PLACE) {
                break;
            }
            toks = &toks[..toks.len() - 1];
            while toks.last().is_some_and(|t| t.particle) {
                toks = &toks[..toks.len() - 1];
            }
        }
        if toks.is_empty() {
            return false;
        }
        // A title-cased line ("Kanye West Celebrates LAMB With Gwen Stefani"): an ordinary word
        // inside the run separates the names around it.
        if toks.len() > 2
            && let Some(i) = (1..toks.len() - 1).find(|&i| {
                let t = &toks[i];
                !t.particle
                    && t.shape != Shape::Initial
                    && !t.is(lexicon::ORG_PLACE)
                    && (t
                        .entry
                        .is_some_and(|e| e.name() == 0 || (e.name() <= 1 && e.common == 1))
                        || self.run_separator(t))
            })
        {
            // A role title before the first part stays with it ("President Jonathan Visits").
            let role = role_start.and_then(|rs| all.iter().position(|t| t.start == rs));
            let split = all.iter().position(|t| t.start == toks[i].start);
            let a = match (role, split) {
                (Some(r), Some(k)) => self.judge(&all[r..k], given),
                _ => self.judge(&toks[..i], cue),
            };
            let b = self.judge(&toks[i + 1..], Cue::None);
            return a || b;
        }
        // Organisations and places.
        if toks[1..]
            .iter()
            .any(|t| !t.particle && t.is(lexicon::ORG_PLACE))
            || self.is_org_phrase(toks)
        {
            return false;
        }
        let text = self.text;
        // The text before the run, trimmed once (the `&` here, the signature dash below).
        let head = text[..run_start].trim_end();
        // `&amp;` (HTML, tweets) as well, but there only before a surname ("Johnson &amp;
        // Johnson"): "&amp; Dave" is a friend far more often than a firm.
        let amp_before = head.ends_with('&')
            || (head.ends_with("&amp;")
                && toks.len() == 1
                && toks[0].entry.is_some_and(|e| e.last > e.first));
        let amp_after = text[run_end..].trim_start().starts_with('&');
        if (amp_before || amp_after) && !self.person_beside_amp(toks, amp_after) {
            return false;
        }
        let (prev_at, sentence_start) = if toks[0].start == run_start {
            self.prev_word_at(run_start)
        } else {
            (None, false)
        };
        let prev = prev_at.map(|(_, p)| p);
        // `at`: where the word before the run starts (the words before it are looked up from
        // there, not searched for in the text again).
        if toks[0].start == run_start
            && let Some((at, p)) = prev_at
        {
            let pf = lex.flags(p);
            if pf & lexicon::TITLE != 0 {
                cue = cue.max(Cue::Title);
            } else if pf & lexicon::STRONG_BEFORE_F != 0 {
                cue = cue.max(self.sign_off_cue(p, at, run_start));
            } else if p == "to" && self.motion_before(at) {
                // "went to Paris", "moved to Austin": a destination, not "talk to Paris".
                if cue == Cue::None {
                    cue = Cue::Place;
                }
            } else if pf & lexicon::WEAK_BEFORE_F != 0 {
                cue = cue.max(Cue::Weak);
            } else if pf & lexicon::STREET_BEFORE_F != 0 && cue < Cue::Title {
                return false;
            } else if (p == "a" || p == "an") && toks.len() == 1 && cue < Cue::Strong {
                // "a Julia model", "a Lane in Summer", "an Oracle database": one word after
                // an article names a thing or a kind.
                return false;
            } else if p.eq_ignore_ascii_case("in") {
                // "loop in X", "bring in X"; otherwise a place ("in Jordan")
                let pp = self.prev_word(at).0;
                if pp.is_some_and(|w| ["loop", "bring", "brought", "looped"].contains(&w)) {
                    cue = cue.max(Cue::Weak);
                } else if cue == Cue::None {
                    cue = Cue::Place;
                }
            } else if pf & lexicon::PLACE_BEFORE_F != 0 && cue == Cue::None {
                cue = Cue::Place;
            } else if p == "and" {
                // "me and Lari", "you and Davis"
                if self
                    .prev_word(at)
                    .0
                    .is_some_and(|w| ["me", "you", "him", "her", "us"].contains(&w))
                {
                    cue = cue.max(Cue::Weak);
                }
            } else if p == "me" {
                // "call me Mark", "everyone calls me Weronika"
                if self
                    .prev_word(at)
                    .0
                    .is_some_and(|w| ["call", "calls", "called", "named"].contains(&w))
                {
                    cue = cue.max(Cue::Strong);
                }
            } else if p.eq_ignore_ascii_case("is") || p.eq_ignore_ascii_case("was") {
                // "my name is X", "her maiden name is X"
                if self
                    .prev_word(at)
                    .0
                    .is_some_and(|w| w.eq_ignore_ascii_case("name"))
                {
                    cue = cue.max(Cue::Strong);
                }
            }
        }
        // "Ruby on Rails", "Stratford-upon-Avon": a name word opening a known phrase.
        if toks.len() == 1
            && cue < Cue::Title
            && text
                .as_bytes()
                .get(run_end + 1)
                .is_some_and(u8::is_ascii_lowercase)
        {
            let word = self.word(&toks[0]);
            let tail = &text[run_end..];
            if phrase_head_may_be(word.as_bytes())
                && lexicon::PHRASE_TAILS.iter().any(|(head, rest)| {
                    word.eq_ignore_ascii_case(head)
                        && tail
                            .get(..rest.len())
                            .is_some_and(|t| t.eq_ignore_ascii_case(rest))
                })
            {
                return false;
            }
        }
        // A signature line: "-- Justin Jackson | ...".
        if head.ends_with("--") || head.ends_with('—') {
            cue = cue.max(Cue::Strong);
        }
        // An attribution or a sign-off by dash closing a line: "Thanks! - Priya",
        // "... in the end. -Larry Bird".
        if toks[0].start == run_start
            && let Some(dash) = head.strip_suffix(['-', '–', '~'])
            && dash.ends_with([' ', '\n'])
            && dash
                .trim_end_matches(' ')
                .chars()
                .next_back()
                .is_none_or(|c| matches!(c, '.' | '!' | '?' | ')' | '"' | '\n'))
            && text[toks[toks.len() - 1].end..]
                .trim_start_matches([' ', '.', '!'])
                .bytes()
                .next()
                .is_none_or(|c| c == b'\n' || c == b'\r')
        {
            cue = cue.max(Cue::Strong);
        }
        // A display name before its address (`Maria Ortiz <maria@example.com>`,
        // `"Jean-Luc Picard" <jl@example.org>`): mail headers, git trailers, CC lists.
        if display_name_before(&text[toks[toks.len() - 1].end..]) {
            cue = cue.max(Cue::Strong);
        }
        if dropped_the && cue == Cue::None {
            cue = Cue::Place;
        }
        // Street addresses: a number right before or after the run (looked for only when the
        // cue is weak enough for it to matter).
        if cue < Cue::Strong {
            // (Spaces and commas are ASCII: skipped byte by byte.)
            let b = text.as_bytes();
            let num_before = b[..toks[0].start]
                .iter()
                .rev()
                .find(|&&c| c != b' ' && c != b',')
                .is_some_and(u8::is_ascii_digit);
            let num_after = || {
                b[toks[toks.len() - 1].end..]
                    .iter()
                    .find(|&&c| c != b' ' && c != b',')
                    .is_some_and(u8::is_ascii_digit)
                    || self.corner_of_streets(toks[toks.len() - 1].end)
            };
            if num_before || num_after() || self.in_address_block(toks) {
                return false;
            }
        }
        let last = toks[toks.len() - 1];
        let rest = &text[last.end..];
        // The word after the run, found once (the verb and the vocative below ask for it).
        let next = self.next_word(last.end);
        let verb = next.filter(|w| !last.possessive && lex.is(w, lexicon::STRONG_AFTER_F));
        // An auxiliary ("is", "was"): looked up once, used twice below.
        let aux_verb = verb.is_some_and(|w| lexicon::on_list(lexicon::AUX_AFTER, w));
        let person_verb = verb.is_some() && !aux_verb && rest.starts_with(' ');
        let after = if last.possessive {
            After::None
        } else if (rest.starts_with(':') && !rest.starts_with("::") && !rest.starts_with(":/"))
            || (sentence_start && (rest.starts_with(", ") || rest.starts_with(" , ")))
            || Self::and_i(rest)
        {
            // a speaker label ("Jordan: ...") or a vocative ("Oscar, can I ...")
            After::Person
        } else if verb.is_some() {
            if aux_verb { After::Aux } else { After::Person }
        } else {
            After::None
        };
        // "Where are you, Summer?": a clear given name addressed at the end of a sentence.
        if toks.len() == 1
            && text.as_bytes()[..run_start]
                .iter()
                .rev()
                .find(|&&c| c != b' ')
                .is_some_and(|&c| c == b',')
            && rest
                .trim_start_matches(' ')
                .bytes()
                .next()
                .is_none_or(|c| matches!(c, b'?' | b'!' | b'.'))
            && toks[0]
                .entry
                .is_some_and(|e| e.first >= 3 && e.first > e.last && e.place == 0)
        {
            cue = cue.max(Cue::Strong);
        }
        // "Jakobine, can I ...": an unknown word addressed at the start of a sentence.
        let vocative = sentence_start
            && (rest.starts_with(", ") || rest.starts_with(" , "))
            && next.is_some_and(|w| {
                [
                    "can", "could", "would", "will", "please", "are", "do", "did", "have", "I",
                ]
                .contains(&w)
            });
        // (Asked only when it can raise the cue: most runs of a text with addresses are not
        // their local parts, and the test reads every word.)
        if cue < Cue::Strong
            && self.evidence.any
            && toks
                .iter()
                .any(|t| self.evidence.has_bytes(&text.as_bytes()[t.start..t.end]))
        {
            cue = Cue::Strong;
        }
        if last.possessive && toks.len() == 1 {
            // "Liam's address", "Mary's daughter": what people have.
            let owned = self
                .next_word(last.end + text[last.end..].find(' ').unwrap_or(0))
                .is_some_and(|w| {
                    [
                        "address", "daughter", "son", "wife", "husband", "mother", "father",
                        "phone", "email", "account", "birthday", "friend", "boss", "sister",
                        "brother", "number", "car", "house", "office", "desk", "team",
                    ]
                    .contains(&w)
                });
            cue = cue.max(if owned { Cue::Strong } else { Cue::Weak });
        }
        // The name words proper (no particles or initials); names have at most eight.
        let mut core_buf: [&Tok; 8] = [&toks[0]; 8];
        let mut n_core = 0;
        for t in toks
            .iter()
            .filter(|t| !t.particle && t.shape != Shape::Initial)
        {
            if n_core == core_buf.len() {
                return false;
            }
            core_buf[n_core] = t;
            n_core += 1;
        }
        let core = &core_buf[..n_core];
        // "in Hamilton East", "from Berlin Spandau": a city and a district, not a given name
        // and a surname.
        if core.len() == 2
            && (cue == Cue::Place || prev.is_some_and(|p| p.eq_ignore_ascii_case("from")))
            && cue < Cue::Strong
            && core[0].entry.is_some_and(|e| e.place >= 2)
            && core[1].entry.is_none_or(|e| e.last < 3)
        {
            return false;
        }
        if let [a, b] = core
            && a.end - a.start <= 4
            && romanized::known_thing(self.word(a), self.word(b))
        {
            return false;
        }
        // A country, capital or state alone, with no cue before it and no person verb after it
        // ("Paris is nice.", "I love Paris."), is the place, even when it is a given name too
        // ("Hi Paris", "Paris said" stay names); the judge is not asked.
        if let [t] = core
            && t.entry.is_some_and(|e| e.place >= 3)
            && cue < Cue::Weak
            && after < After::Person
        {
            return false;
        }
        let rule = match core.len() {
            0 => false,
            1 => {
                self.single(core[0], cue, after, sentence_start, toks.len() > 1)
                    || (vocative && core[0].entry.is_none() && core[0].shape == Shape::Title)
                    || ((person_verb || (sentence_start && speaker_label(rest)))
                        && self.unknown_name_shape(core[0])
                        && self.word(core[0]).len() >= 4)
            }
            _ => self.multi(core, cue),
        };
        // "Li Wei", "Kim Min-jun", "Nguyen Van An": surname first, in a romanization; not
        // when a capitalised word was trimmed off the run ("Wu Tang Clan").
        let core_end = core[core.len().saturating_sub(1)..]
            .first()
            .map_or(run_end, |t| t.end);
        let surname_first = (2..=4).contains(&core.len())
            && !text[core_end..]
                .trim_start_matches(' ')
                .starts_with(|c: char| c.is_uppercase())
            && core
                .iter()
                .all(|t| t.shape == Shape::Title || (t.shape == Shape::Upper && self.field))
            && {
                let mut words = [""; 4];
                for (w, t) in words.iter_mut().zip(core) {
                    *w = self.word(t);
                }
                romanized::surname_first(&words[..core.len()])
            };
        let rule = rule || surname_first;
        // The learned judge, when on, has the last word (the hard rejections above stay).
        let decided = if !core.is_empty() && (f.judge.is_some() || self.trace.is_some()) {
            let seen = model::Seen {
                toks,
                core,
                run_start,
                cue,
                after,
                sentence_start,
                prev,
                next: if last.possessive { None } else { Some(next) },
                rule,
                settled: surname_first,
            };
            self.judge_candidate(&seen, role_start.unwrap_or(toks[0].start))
        } else {
            rule
        };
        let accept = decided
        // "Lincoln county", "marshall islands": a place or firm word in lower case goes on the
        // name of a place (checked last: it costs a lookup).
        && !(cue < Cue::Title && self.place_word_after(last.end))
        && !(cue < Cue::Strong && self.street_type_after(last.end));
        if accept {
            // A leading initial belongs to the name only when a core word follows it.
            let start = role_start.unwrap_or(toks[0].start);
            let end = last.end + self.suffix_len(last.end);
            self.emit(Span::new(start, end, Kind::Name));
        }
        accept
    }

    /// Whether `t` is a word that joins or follows names in tweets and headlines but is
    /// never part of one ("Serena Williams Vs Simona Halep", "Jim Rohn RT @...", "Drake ft
    /// Rihanna"): it ends a name like an ordinary word.
    pub(super) fn run_separator(&self, t: &Tok) -> bool {
        t.entry.is_none()
            && ["vs", "rt", "ft", "feat"]
                .iter()
                .any(|w| w.eq_ignore_ascii_case(self.word(t)))
    }

    /// The length of a generational or academic suffix right after a name (" Jr.", ", PhD").
    pub(super) fn suffix_len(&self, end: usize) -> usize {
        let rest = &self.text[end..];
        let body = rest.strip_prefix(", ").or_else(|| rest.strip_prefix(' '));
        // Every suffix starts with a capital (in lower-case text, a lower-case letter): most
        // runs end with none after them.
        let Some(body) = body.filter(|b| {
            b.as_bytes().first().is_some_and(|c| {
                c.is_ascii_uppercase() || (self.lower_text && c.is_ascii_lowercase())
            })
        }) else {
            return 0;
        };
        for suffix in SUFFIXES {
            let after = if self.lower_text {
                body.get(..suffix.len())
                    .filter(|head| head.eq_ignore_ascii_case(suffix))
                    .map(|_| &body[suffix.len()..])
            } else {
                body.strip_prefix(suffix)
            };
            if let Some(after) = after
                && after.chars().next().is_none_or(|c| !c.is_alphanumeric())
            {
                return rest.len() - after.len();
            }
        }
        0
    }

    /// Whether `t` is a capitalised word the gazetteer does not know and that is on no list:
    /// with a verb people do after it ("Klimek shouted", "Bożena spent") it names someone.
    pub(super) fn unknown_name_shape(&self, t: &Tok) -> bool {
        t.shape == Shape::Title && t.entry.is_none() && t.flags == 0 && !t.possessive
    }

    /// A single name word.
    pub(super) fn single(
        &self,
        t: &Tok,
        cue: Cue,
        after: After,
        sentence_start: bool,
        with_initials: bool,
    ) -> bool {
        let w = self.word(t);
        // One character (the second `chars` item is absent), not a count of them all.
        if w.chars().nth(1).is_none() {
            return false;
        }
        let after_cue = after > After::None;
        let e = t.entry;
        // "April" in a list of names or after a greeting; "May" alone is a month.
        let calendar_ok =
            cue >= Cue::Title || (cue >= Cue::Strong && e.is_some_and(|e| e.first >= 3));
        if (t.is(lexicon::CALENDAR_F) && !calendar_ok)
            || t.is(lexicon::TITLE)
            || t.is(lexicon::ORG_PLACE)
        {
            return false;
        }
        if t.shape == Shape::Upper && e.is_none() && w.len() <= 3 {
            return false;
        }
        if t.is(lexicon::NOT_PEOPLE_F)
            && ((cue < Cue::Strong && after < After::Person)
                || lexicon::on_list(lexicon::NEVER_NAME_WORDS, w))
        {
            return false;
        }
        let name = e.map_or(0, |e| e.name());
        let wordy = e.map_or(0, |e| e.wordiness()) as i32;
        let margin = name as i32 - wordy;
        let first = e.map_or(0, |e| e.first);
        let last = e.map_or(0, |e| e.last);
        // Countries, capitals and states ("Canada", "Poland") need a title or a person verb,
        // even in a list of names, unless they are common given names ("Georgia").
        if e.is_some_and(|e| e.place >= 3) && first < 6 && cue < Cue::Title && after < After::Person
        {
            return false;
        }
        if t.shape == Shape::Lower && w.len() < 3 {
            return false;
        }
        match t.shape {
            // After a greeting ("Hi megan", "Hey john"), not "Hi will" nor "Thanks mark".
            Shape::Lower if !self.lower_text => {
                return cue >= Cue::Strong && e.is_some_and(lower_given_name_after_cue)
                    || (self.field && first >= 4 && wordy == 0);
            }
            Shape::Lower if cue < Cue::Weak && !after_cue && !(first >= 4 && wordy == 0) => {
                return false;
            }
            Shape::Upper if !(cue >= Cue::Strong || (self.field && name >= 3 && margin >= 2)) => {
                return false;
            }
            Shape::Caseless => return cue >= Cue::Title,
            _ => {}
        }
        if with_initials && ((name >= 2 && margin >= 0) || e.is_none()) {
            return true;
        }
        // A place name ("in Harrison", "to Hartford", "Utah lawmakers") unless a title, a
        // greeting or a very common given name says otherwise.
        let place = e.map_or(0, |e| e.place);
        if place > 0
            && cue < Cue::Strong
            && after < After::Person
            && (cue == Cue::Place || first < 6)
        {
            return false;
        }
        match cue {
            Cue::Title => {
                (last > 0 && margin >= -4)
                    || (name > 0 && margin >= -2)
                    || (e.is_none() && t.shape != Shape::Upper)
            }
            Cue::Strong => (name >= 1 && margin >= -3) || e.is_none(),
            Cue::Weak => (name >= 2 && margin >= 1) || (after_cue && name >= 1 && margin >= 0),
            Cue::Place => first >= 4 && margin >= 4 && first > last,
            Cue::None => {
                (first >= 3 && margin >= 3)
                    || (after_cue && first >= 3 && margin >= 1)
                    || (after == After::Person && name >= 2 && margin >= 2)
                    || (!sentence_start && last >= 2 && wordy == 0)
            }
        }
    }

    /// Two or more name words (initials aside).
    pub(super) fn multi(&self, core: &[&Tok], cue: Cue) -> bool {
        let mut strong = 0;
        let mut unknown = 0;
        let first = core[0].entry.unwrap_or_default();
        // A clear given name first lets a surname that is also a word follow ("Kevin Small").
        let given_first = first.first >= 3 && first.first >= first.wordiness() + 2;
        for (i, t) in core.iter().enumerate() {
            let w = self.word(t);
            // "April Horton" is a person; "Monday March" is not.
            let calendar_ok = i == 0 && first.first >= 3;
            if (t.is(lexicon::CALENDAR_F) && !calendar_ok)
                || t.is(lexicon::TITLE)
                || (t.is(lexicon::NOT_PEOPLE_F) && lexicon::on_list(lexicon::NEVER_NAME_WORDS, w))
            {
                return false;
            }
            match t.entry {
                None => {
                    if t.shape == Shape::Upper && w.len() <= 3 {
                        return false;
                    }
                    if t.shape == Shape::Lower && !self.lower_text {
                        return false;
                    }
                    unknown += 1;
                }
                Some(e) => {
                    let margin = e.name() as i32 - e.wordiness() as i32;
                    // A known surname after a clear given name, even if it is also a word
                    // ("Kevin Small"); in lower-case text any rare name word ("natasha
                    // higuchi").
                    let word_surname = i == core.len() - 1
                        && given_first
                        && (e.last >= 2
                            || (self.lower_text && e.name() >= 1 && e.wordiness() <= 1));
                    if e.name() == 0 || (margin <= -3 && !word_surname) {
                        return false;
                    }
                    if t.shape == Shape::Lower
                        && (e.name() < 2 || margin < 1)
                        && cue < Cue::Title
                        && !word_surname
                    {
                        return false;
                    }
                    if e.name() >= 2 && margin >= 2 {
                        strong += 1;
                    }
                }
            }
        }
        let last = core[core.len() - 1].entry.unwrap_or_default();
        let caseless = core.iter().all(|t| t.shape == Shape::Caseless);
        if caseless {
            return unknown == 0 && first.first >= 1;
        }
        if self.lower_text
            && cue < Cue::Weak
            && core.iter().all(|t| t.shape == Shape::Lower)
            && !(first.first >= 6
                || (first.first >= 4 && last.last >= 2)
                || (self.evidence.any && core.iter().any(|t| self.evidence.has(self.word(t)))))
        {
            // Lower-case text in other languages is full of words on some locale's list of
            // names ("para com", "liat nih"): a lower-case pair needs a clear given name.
            return false;
        }
        if self.lower_text
            && core
                .iter()
                .any(|t| t.entry.is_none() && t.end - t.start < 3)
        {
            return false;
        }
        if self.lower_text && unknown > 0 && cue < Cue::Weak && !self.is_english() {
            // Lower-case text that is mostly not English (lorem ipsum, other languages): a
            // word the gazetteer lacks there is no evidence of a surname ("dolores similique").
            return false;
        }
        let upper = core.iter().all(|t| t.shape == Shape::Upper);
        if upper && !(self.field || cue >= Cue::Strong) {
            // ALL-CAPS headings and shouting: a given name and a surname both known.
            return unknown == 0 && first.first >= 3 && last.last >= 3 && strong >= 1;
        }
        strong >= 1
            || (first.first >= 4 && last.last >= 3)
            || (first.first >= 3 && unknown == core.len() - 1)
            || (cue >= Cue::Weak && unknown < core.len())
            || cue >= Cue::Strong
    }
}

/// Whether `word` has the length and first letter (`& 31` folds an ASCII letter's case) of
/// some head of [`lexicon::PHRASE_TAILS`]: when not, it is none of them up to ASCII case, and
/// `judge` skips the list (most single words).
fn phrase_head_may_be(word: &[u8]) -> bool {
    const KEYS: (u64, u32) = {
        let (mut lens, mut firsts) = (0u64, 0u32);
        let mut i = 0;
        while i < lexicon::PHRASE_TAILS.len() {
            let h = lexicon::PHRASE_TAILS[i].0.as_bytes();
            lens |= 1 << if h.len() < 63 { h.len() } else { 63 };
            firsts |= 1 << (h[0] & 31);
            i += 1;
        }
        (lens, firsts)
    };
    KEYS.0 & (1 << word.len().min(63)) != 0
        && word.first().is_some_and(|&c| KEYS.1 & (1 << (c & 31)) != 0)
}

#[cfg(test)]
mod tests {
    use crate::detect::names::tests::names;

    #[test]
    fn role_titles_and_place_prefixes() {
        assert_eq!(names("We saw Pope Benedict today."), vec!["Pope Benedict"]);
        assert_eq!(names("Senator Maria Ortiz spoke."), vec!["Maria Ortiz"]);
        assert!(names("Back to Lake Charles tonight.").is_empty());
        assert!(names("Kenya was super fun to visit!").is_empty());
    }

    #[test]
    fn phrase_head_filter_keeps_every_head() {
        use super::phrase_head_may_be;
        use crate::detect::names::lexicon::PHRASE_TAILS;
        for (head, _) in PHRASE_TAILS {
            assert!(phrase_head_may_be(head.as_bytes()), "{head}");
            assert!(phrase_head_may_be(head.to_uppercase().as_bytes()), "{head}");
            assert!(phrase_head_may_be(b"Ruby"));
        }
        assert!(!phrase_head_may_be(b"Tree") && !phrase_head_may_be(b""));
        assert!(names("I love Ruby on Rails.").is_empty());
    }
}
