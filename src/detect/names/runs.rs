//! Candidate runs: a word becomes a `Tok` of the open run (with its shape, gazetteer entry and
//! lexicon flags) or ends it (code, mentions, addresses, numbers, contractions), and `flush`
//! hands a finished run to the judge, skipping the runs no cue could make a name.
//!
//! Apart from the scan loop (`scan.rs`), which finds where words start and end, and from the
//! judge, which sees finished runs only.

use super::bytes::{AFTER as QUIET_AFTER, BEFORE as QUIET_BEFORE, is_escape_letter, word_sides};
use super::gazetteer::Entry;
use super::lexicon;
use super::markup::{display_name_mention, html_tag_at, wrapped_phrase};
use super::scan::{Scan, shortcuts};
use super::words::{Shape, is_contraction, is_suffix_word, is_wordish, shape_of, shape_of_letters};

/// One candidate word of a run.
#[derive(Clone, Copy, Debug)]
pub(super) struct Tok {
    pub(super) start: usize,
    /// End of the name part (before a possessive `'s`; after an initial's `.`).
    pub(super) end: usize,
    pub(super) shape: Shape,
    pub(super) particle: bool,
    /// Separated from the previous word of the run by `", "` rather than a space.
    pub(super) comma_before: bool,
    /// Followed by a possessive `'s`.
    pub(super) possessive: bool,
    /// The gazetteer's entry for the word.
    pub(super) entry: Option<Entry>,
    /// The word lists the word is on ([`lexicon`] flags).
    pub(super) flags: u16,
}

impl Tok {
    pub(super) fn is(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }
}

/// For each length `n` up to 4 and first byte `c` (at `c & 31`), bit `l & 31` is set for the
/// last byte `l` of each particle of `n` bytes that starts with `c` ([`lexicon::PARTICLES`]):
/// most short words are no particle by this test alone, without a lookup ("the" has the first
/// letter and length of "ter" and "ten", not their last letters). (`& 31` is the same for an
/// ASCII letter and its capital.)
pub(super) const PARTICLE_KEYS: [[u32; 32]; 5] = {
    let mut keys = [[0u32; 32]; 5];
    let mut i = 0;
    while i < lexicon::PARTICLES.len() {
        let p = lexicon::PARTICLES[i].as_bytes();
        if !p.is_empty() && p.len() <= 4 {
            keys[p.len()][(p[0] & 31) as usize] |= 1 << (p[p.len() - 1] & 31);
        }
        i += 1;
    }
    keys
};

/// Whether `word` may be on [`lexicon::PARTICLES`] (no false negatives; words longer than
/// four bytes are not filtered).
pub(super) fn may_be_particle(word: &[u8]) -> bool {
    match word.len() {
        0 => false,
        n @ 1..=4 => PARTICLE_KEYS[n][usize::from(word[0] & 31)] & (1 << (word[n - 1] & 31)) != 0,
        _ => true,
    }
}

/// Whether a lower-case word right after `prev` may join its run as a surname written in lower
/// case ("Kylie minogue"): `prev` is a clear given name (the first test of
/// [`Scan::lower_surname`]).
#[inline]
pub(super) fn given_before_lower_surname(prev: &Tok) -> bool {
    prev.shape == Shape::Title
        && !prev.possessive
        && prev
            .entry
            .is_some_and(|e| e.first >= 3 && e.first > e.last && e.first >= e.wordiness() + 2)
}

/// Whether [`Scan::single`] can accept the known word `t` only with a title cue (`Cue::Title`),
/// whatever the other cues, the word after it and the sentence start say: an ordinary word far
/// more than a name (`name - wordiness <= -4`: "The", "You"), or a month or weekday that is no
/// clear given name ("Friday", not "April"). For a run of this one word, the only source of a
/// title cue in [`Scan::judge`] is a title word right before it, and the other ways `judge`
/// accepts a single word need a word the gazetteer lacks; so `flush` skips `judge` for it
/// otherwise. Mirrors the thresholds of `single` (`Cue::Strong` needs a margin of -3 or more;
/// weaker cues more); the test `single_needs_title_mirrors_single` checks every entry.
pub(super) fn single_needs_title(t: &Tok) -> bool {
    t.shape != Shape::Initial
        && t.entry.is_some_and(|e| {
            i32::from(e.name()) - i32::from(e.wordiness()) <= -4
                || (t.is(lexicon::CALENDAR_F) && e.first < 3)
        })
}

/// Whether the bytes around the word `b[start..end]` (not empty) make it code, a mention, a
/// hashtag, part of a path, an e-mail address or a number: [`Scan::push_word`] then ends the
/// run and adds no word. `last` is the run's last word (a dot right after an initial joins,
/// "J.R."). Apart so that the idle scan's shortcut for such words (`idle::code_either_side`)
/// is tested against it.
#[inline(always)]
pub(super) fn code_context(b: &[u8], start: usize, end: usize, last: Option<&Tok>) -> bool {
    // Most words sit between a space and a space or a punctuation mark: two table loads
    // answer for them, without the tests below.
    let before = if start > 0 { b[start - 1] } else { b' ' };
    let after = b.get(end).copied().unwrap_or(b' ');
    if QUIET[usize::from(before)] & QUIET_BEFORE != 0
        && QUIET[usize::from(after)] & QUIET_AFTER != 0
    {
        return false;
    }
    code_context_full(b, start, end, last)
}

/// For each byte, whether it is quiet right before a word ([`QUIET_BEFORE`]) or right after
/// it ([`QUIET_AFTER`]): none of the tests of [`code_context_full`] takes it as code or looks
/// past it (no `.`, `:`, `_`, `<`, `\`, `[`, `@` or digit), so with a quiet byte on each side
/// [`code_context_full`] is false.
static QUIET: [u8; 256] = word_sides(b" \n\r\t(\"',;:!?)*-", b" \n\r\t\"',;!?)*-");

/// [`code_context`] without its shortcut for quiet bytes on both sides (and its oracle).
#[inline(always)]
pub(super) fn code_context_full(b: &[u8], start: usize, end: usize, last: Option<&Tok>) -> bool {
    let mut before = if start > 0 { b[start - 1] } else { b' ' };
    // Markdown wraps a phrase in `[...]`, `` `...` `` or `_..._` ("[Maria Garcia](mailto:..)"):
    // there the mark is no code, it opens the phrase like a space.
    if matches!(before, b'[' | b'`' | b'_') && wrapped_phrase(b, start - 1) {
        before = b' ';
    }
    // A chat tool's mention of a display name ("@Maria Garcia can you check"): `@`, a
    // capitalised word, a space and another capitalised word. A handle has no space
    // ("@maria_garcia", "@MariaGarcia").
    if before == b'@' && display_name_mention(b, start, end) {
        before = b' ';
    }
    // A URL-encoded space between two words of a name (`?name=Maria%20Garcia`).
    if before == b'0' && start >= 3 && &b[start - 3..start] == b"%20" {
        before = b' ';
    }
    let after = b.get(end).copied().unwrap_or(b' ');
    let after2 = b.get(end + 1).copied().unwrap_or(b' ');
    let joined_by_dot = before == b'.'
        && start >= 2
        && b[start - 2].is_ascii_alphanumeric()
        && !last.is_some_and(|t| t.shape == Shape::Initial && t.end == start);
    matches!(
        before,
        b'@' | b'#'
            | b'_'
            | b'/'
            | b'\\'
            | b'$'
            | b'='
            | b'{'
            | b'['
            | b'|'
            | b'`'
            | b'~'
            | b'^'
            | b'+'
            | b'%'
            | b'&'
    ) || before.is_ascii_digit()
        || joined_by_dot
        || matches!(after, b'@' | b'(' | b'/' | b'=' | b'[' | b'{' | b'>' | b'+')
        // An identifier goes on after `_`; Markdown's `_Omar Haddad_` ends there.
        || (after == b'_' && (is_wordish(after2) || after2 == b'_'))
        // A type goes on after `<` ("List<Person>"); an HTML tag ends the word like a
        // space (`<td>Maria Garcia</td>`, `Maria Garcia<br>`: an HTML mail body).
        || (after == b'<' && !html_tag_at(b, end))
        // A path goes on after `\`; an escape in logged or double-encoded text
        // (`\"Mary Jones\"`, `Mary\'s`, `Mary\nThanks`) ends the word like its character.
        || (after == b'\\' && !is_escape_letter(Some(after2)))
        || after.is_ascii_digit()
        || (after == b'.'
            && after2.is_ascii_alphanumeric()
            && end - start > 1
            && !document_extension_at(b, end))
        || (after == b':' && after2 == b':')
}

impl Scan<'_, '_> {
    /// Whether the lower-case word at `start..end` is a particle inside a run ("van", "del").
    pub(super) fn is_particle_here(&self, start: usize, end: usize) -> bool {
        !self.run.is_empty()
            && may_be_particle(&self.text.as_bytes()[start..end])
            && self
                .finder
                .lex
                .is(&self.text[start..end], lexicon::PARTICLE)
            && self.gap_joins(self.run.last().map_or(0, |t| t.end), start) == Some(false)
    }

    pub(super) fn push_particle(&mut self, start: usize, end: usize) {
        self.run.push(Tok {
            start,
            end,
            shape: Shape::Lower,
            particle: true,
            comma_before: false,
            possessive: false,
            entry: None,
            flags: lexicon::PARTICLE,
        });
    }

    /// Whether the text between two words lets them belong to one run: `Some(false)` for a
    /// space, `Some(true)` for `", "`, `None` for anything else.
    pub(super) fn gap_joins(&self, prev_end: usize, start: usize) -> Option<bool> {
        match &self.text[prev_end..start] {
            // a space, a no-break space (also as HTML's `&nbsp;`), a URL-encoded space, or
            // one with a zero-width character pasted in
            " " | "\u{a0}" | "&nbsp;" | "%20" | " \u{feff}" | " \u{200b}" | "\u{200b}" => {
                Some(false)
            }
            ", " | " , " | " and " | ", and " => Some(true),
            ". " | "." => self
                .run
                .last()
                .filter(|t| t.shape == Shape::Initial || t.is(lexicon::TITLE))
                .map(|_| false),
            _ => None,
        }
    }

    /// Adds the word `start..end` to the run (or ends the run); `plain` when the word is only
    /// ASCII letters. Returns where the scan may go on when that is past the word (after a
    /// lower-case word that ends the run: see [`Scan::closed_after`]).
    pub(super) fn push_word(&mut self, start: usize, mut end: usize, plain: bool) -> Option<usize> {
        let text = self.text;
        let b = text.as_bytes();
        // Code, mentions, hashtags, paths, e-mail addresses, numbers.
        if code_context(b, start, end, self.run.last()) {
            self.flush();
            return None;
        }
        let after = b.get(end).copied().unwrap_or(b' ');
        let shape = if plain {
            shape_of_letters(b, start, end)
        } else {
            shape_of(&text[start..end])
        };
        let Some(shape) = shape else {
            self.flush();
            return None;
        };
        if is_suffix_word(&b[start..end]) {
            // "Jr.", "PhD": taken by `suffix_len` when the name before them is accepted.
            self.flush();
            return None;
        }
        // A lone capital is an initial with its dot ("J."; "N ." in tokenised text) or right
        // after a clear given name ("Deborah L", "Teddy P proud"); otherwise it is the
        // pronoun "I", a list letter or a grade.
        if shape == Shape::Initial {
            if after == b'.' {
                end += 1;
            } else if text[end..].starts_with(" . ") {
                end += 2;
            } else if !matches!(b[start], b'I' | b'A')
                && matches!(after, b' ' | b',' | b'\n' | b'!' | b'?' | b')')
                && self.run.last().is_some_and(|t| {
                    t.end + 1 == start
                        && t.shape == Shape::Title
                        && t.entry
                            .is_some_and(|e| e.first >= 3 && e.first > e.wordiness())
                })
            {
                // The surname's initial ("I" and "A" are words, not initials).
            } else {
                self.flush();
                return None;
            }
        }
        let mut possessive = false;
        for suffix in ["'s", "’s", "'S"] {
            if plain {
                break;
            }
            if text[start..end].len() > suffix.len() + 1 && text[start..end].ends_with(suffix) {
                end -= suffix.len();
                possessive = true;
                break;
            }
        }
        // `Mary\'s` in escaped text: the same possessive.
        if after == b'\\'
            && text[end + 1..].starts_with("'s")
            && !b.get(end + 3).is_some_and(u8::is_ascii_alphanumeric)
        {
            possessive = true;
        }
        if !plain && (is_contraction(&text[start..end]) || self.hyphenated_phrase(start, end)) {
            self.flush();
            return None;
        }
        let comma_before = match self.run.last() {
            Some(last) => match self.gap_joins(last.end, start) {
                Some(comma)
                    if !last.possessive
                        && ((last.shape == Shape::Caseless) == (shape == Shape::Caseless)) =>
                {
                    comma
                }
                _ => {
                    self.flush();
                    false
                }
            },
            None => false,
        };
        // The word without an initial's dot (a byte test: `.` is ASCII).
        let bare_end = if b[end - 1] == b'.' { end - 1 } else { end };
        let (mut entry, flags) = self.finder.gaz.lookup_with_flags_at(text, start, bare_end);
        let bare = || &text[start..bare_end];
        if entry.is_none() && !plain && shape == Shape::Title {
            entry = self.finder.gaz.lookup_declined_cyrillic(bare());
        }
        if entry.is_none() && !plain && bare().contains(['\'', '’']) {
            // O'Neil → ONEIL in the census list
            let joined: String = bare()
                .chars()
                .filter(|c| !matches!(c, '\'' | '’'))
                .collect();
            entry = self.finder.gaz.lookup(&joined);
        }
        let t = Tok {
            start,
            end,
            shape,
            particle: false,
            comma_before,
            possessive,
            entry,
            flags,
        };
        // The first word of a run that `flush` drops when the run ends with it (an ordinary
        // word: "The", "Row" at a line's start), and that no next word can join (or that its
        // possessive ends at once): `flush` would drop the run of it alone, so it is not
        // added. The scan goes on from its end with no run open either way.
        // (The gap test first: after most words a next word may join, which it tells at once.)
        let alone = self.run.is_empty() && shortcuts();
        if alone
            && !possessive
            && let Some(resume) = self.closed_after(&t)
        {
            if self.drops(std::slice::from_ref(&t)) {
                return Some(resume);
            }
            // A word `flush` keeps is judged at once: the run would end with it anyway, and
            // the scan need not read the next word again. Not in a field or lower-case text,
            // where a lower-case word after the gap may still be a candidate because of the
            // run's last word (`lower_candidate`), and then ends the run itself.
            if !self.field && !self.lower_text {
                self.judge_run(std::slice::from_ref(&t));
                return Some(resume);
            }
        }
        if alone && possessive && self.drops(std::slice::from_ref(&t)) {
            return None;
        }
        self.run.push(t);
        if possessive {
            self.flush();
        }
        None
    }

    pub(super) fn flush(&mut self) {
        if self.run.is_empty() {
            return;
        }
        if self.drops(&self.run) {
            self.run.clear();
            return;
        }
        let run = std::mem::take(&mut self.run);
        self.judge_run(&run);
        self.run = run;
        self.run.clear();
    }

    /// Whether `flush` drops `run` without judging it: runs that `judge` rejects whatever the
    /// cue (an empty run too). The scan asks it also of a capitalised word that no next word
    /// can join (`push_word`, with `Scan::closed_after`).
    pub(super) fn drops(&self, run: &[Tok]) -> bool {
        match run {
            [] => true,
            // The common run of prose: one capitalised ordinary word ("Apply", "The") or a
            // lone initial. `judge` rejects these whatever the cue (see `single`), so skip it.
            [t] if !t.particle
                && (t.shape == Shape::Initial
                    || (t.shape != Shape::Caseless && t.entry.is_some_and(|e| e.name() == 0))) =>
            {
                true
            }
            // One known word that only a title could make a name ("The", "You" at a sentence
            // start; see `single_needs_title`): judge it only after a title word, or when the
            // learned judge could accept it ("starring Bang").
            [t] if !t.particle
                && single_needs_title(t)
                && !self.title_before(t.start)
                && !self.judge_could_rescue(run)
                && self.trace.is_none() =>
            {
                true
            }
            // Ordinary words, initials and particles only ("ORDER BY", "Account Manager"):
            // `single` and `multi` reject every word the gazetteer knows as no name, so
            // `judge` rejects each part of such a run whatever the cue (unless the learned
            // judge could accept it).
            run => {
                run.iter().all(|t| {
                    t.particle
                        || t.shape == Shape::Initial
                        || (t.shape != Shape::Caseless && t.entry.is_some_and(|e| e.name() == 0))
                }) && !self.judge_could_rescue(run)
                    && self.trace.is_none()
            }
        }
    }

    /// Whether the learned judge, if loaded, could accept `run` when the rules reject it
    /// (every word passes [`Scan::rescuable`]); `flush` judges such runs instead of skipping.
    /// (When tracing for training, `flush` skips only what the judge was trained without, so
    /// the training candidates do not depend on these shortcuts.)
    pub(super) fn judge_could_rescue(&self, run: &[Tok]) -> bool {
        self.finder.judge.is_some() && run.iter().all(|t| self.rescuable(t))
    }
}

/// Whether `b[dot..]` is a document's file extension that ends there (`.pdf`, `.docx` ...
/// then a space, quote, bracket, line end or the end): a file named after a person
/// ("Invoice - Maria Garcia.pdf") ends the name at the dot, where `Foo.bar` goes on as code.
fn document_extension_at(b: &[u8], dot: usize) -> bool {
    const EXTENSIONS: &[&[u8]] = &[
        b"pdf", b"doc", b"docx", b"odt", b"rtf", b"txt", b"md", b"csv", b"xls", b"xlsx", b"ods",
        b"ppt", b"pptx", b"png", b"jpg", b"jpeg", b"gif", b"heic", b"eml", b"msg", b"vcf", b"ics",
        b"zip",
    ];
    let rest = &b[dot + 1..];
    let len = rest
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric())
        .count();
    let ends = rest
        .get(len)
        .is_none_or(|&c| !c.is_ascii_alphanumeric() && !matches!(c, b'.' | b'_' | b'-' | b'/'));
    ends && EXTENSIONS
        .iter()
        .any(|e| e.eq_ignore_ascii_case(&rest[..len]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::names::NameFinder;
    use crate::detect::names::cues::{After, Cue};
    use crate::detect::names::evidence::Evidence;
    use crate::detect::names::gazetteer::Lexicon;
    use crate::detect::names::tests::names;

    #[test]
    fn particle_filter_keeps_every_particle() {
        let lex = Lexicon::get();
        // Every lower-case ASCII word of up to four letters, and every particle in both
        // cases: the filter passes each word the lexicon marks as a particle.
        let letters = b"abcdefghijklmnopqrstuvwxyz";
        let mut words: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..4 {
            let longer: Vec<Vec<u8>> = words
                .iter()
                .filter(|w| w.len() < 4)
                .flat_map(|w| letters.iter().map(move |&c| [w.as_slice(), &[c]].concat()))
                .collect();
            words.extend(longer);
        }
        for p in lexicon::PARTICLES {
            words.push(p.as_bytes().to_vec());
            words.push(p.to_uppercase().into_bytes());
        }
        for w in words.iter().filter(|w| !w.is_empty()) {
            let s = std::str::from_utf8(w).unwrap();
            if lex.is(s, lexicon::PARTICLE) {
                assert!(may_be_particle(w), "{s}");
            }
        }
        assert!(!may_be_particle(b"was") && !may_be_particle(b"it") && !may_be_particle(b"the"));
    }

    #[test]
    fn quiet_bytes_are_never_code() {
        // Every pair of quiet bytes around a word, with every byte after the second and a
        // run's last word an initial or none: the full test finds no code there, so the
        // shortcut of `code_context` changes nothing. Also at the text's start and end.
        let initial = Tok {
            start: 0,
            end: 1,
            shape: Shape::Initial,
            particle: false,
            comma_before: false,
            possessive: false,
            entry: None,
            flags: 0,
        };
        let mut checked = 0;
        for before in 0..=255u8 {
            if QUIET[usize::from(before)] & QUIET_BEFORE == 0 {
                continue;
            }
            for after in 0..=255u8 {
                if QUIET[usize::from(after)] & QUIET_AFTER == 0 {
                    continue;
                }
                for after2 in 0..=255u8 {
                    for lead in [b'a', b'.', b'0', b' ', b'@', b'%'] {
                        let b = [lead, before, b'W', b'o', b'r', b'd', after, after2, b'x'];
                        for last in [None, Some(&initial)] {
                            assert!(!code_context_full(&b, 2, 6, last), "{b:?}");
                            assert!(!code_context(&b, 2, 6, last));
                        }
                        checked += 1;
                    }
                }
                assert!(!code_context_full(b"Word", 0, 4, None));
                assert!(!code_context_full(&[before, b'W', b'o'], 1, 3, None));
                assert!(!code_context_full(&[b'W', b'o', after], 0, 2, None));
            }
        }
        assert!(checked > 50_000, "{checked}");
        // Random bytes around random words: the same answer with and without the shortcut.
        let bytes = b" \n\t.,;:!?()[]{}<>@#_/\\$=|`~^+%&'\"-*0123456789aZ";
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..200_000 {
            let mut b: Vec<u8> = (0..(next() % 6))
                .map(|_| bytes[(next() >> 33) as usize % bytes.len()])
                .collect();
            let start = b.len();
            b.extend_from_slice(&b"Maria"[..1 + (next() % 5) as usize]);
            let end = b.len();
            b.extend((0..(next() % 6)).map(|_| bytes[(next() >> 33) as usize % bytes.len()]));
            for last in [None, Some(&initial)] {
                assert_eq!(
                    code_context(&b, start, end, last),
                    code_context_full(&b, start, end, last),
                    "{:?}",
                    String::from_utf8_lossy(&b)
                );
            }
        }
    }

    /// A five-byte word of `shape` with gazetteer `entry` and lexicon `flags`.
    fn word_tok(shape: Shape, entry: Entry, flags: u16) -> Tok {
        Tok {
            start: 0,
            end: 5,
            shape,
            particle: false,
            comma_before: false,
            possessive: false,
            entry: Some(entry),
            flags,
        }
    }

    #[test]
    fn single_needs_title_mirrors_single() {
        // For every entry the shortcut in `flush` skips, `single` accepts with no cue below
        // a title, whatever the shape, the word after, the sentence start and the text's mode.
        let f = NameFinder::new(&[], &[]);
        let evidence = Evidence::default();
        let mut out = Vec::new();
        let cues = [Cue::None, Cue::Place, Cue::Weak, Cue::Strong];
        let afters = [After::None, After::Aux, After::Person];
        let shapes = [Shape::Title, Shape::Upper, Shape::Lower, Shape::Caseless];
        let mut skipped = 0;
        for (field, lower_text) in [(false, false), (true, false), (false, true), (true, true)] {
            let scan = Scan::new(&f, "xyzzy", &evidence, field, lower_text, &mut out, None);
            for first in 0..=9 {
                for last in 0..=9 {
                    for common in 0..=9 {
                        for place in 0..=3 {
                            for flags in [0, lexicon::CALENDAR_F] {
                                for shape in shapes {
                                    let entry = Entry {
                                        first,
                                        last,
                                        common,
                                        place,
                                    };
                                    let t = word_tok(shape, entry, flags);
                                    if !single_needs_title(&t) {
                                        continue;
                                    }
                                    skipped += 1;
                                    for cue in cues {
                                        for after in afters {
                                            for ss in [false, true] {
                                                assert!(
                                                    !scan.single(&t, cue, after, ss, false),
                                                    "{entry:?} {flags} {shape:?} {cue:?} {after:?}"
                                                );
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(skipped > 1000, "{skipped}");
        // Words known as no name: no cue makes `single` or `multi` take them (the shortcut
        // for runs of ordinary words in `flush`).
        for common in 0..=9 {
            for place in 0..=3 {
                for shape in [Shape::Title, Shape::Upper, Shape::Lower] {
                    let entry = Entry {
                        first: 0,
                        last: 0,
                        common,
                        place,
                    };
                    let t = word_tok(shape, entry, 0);
                    let name = Tok {
                        entry: Some(Entry {
                            first: 9,
                            last: 9,
                            common: 0,
                            place: 0,
                        }),
                        ..t
                    };
                    for (field, lower_text) in
                        [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let mut out = Vec::new();
                        let scan =
                            Scan::new(&f, "xyzzy", &evidence, field, lower_text, &mut out, None);
                        for cue in [Cue::Title, Cue::Strong, Cue::Weak, Cue::Place, Cue::None] {
                            assert!(!scan.multi(&[&t, &name], cue), "{entry:?} {shape:?}");
                            assert!(!scan.multi(&[&name, &t], cue), "{entry:?} {shape:?}");
                            for after in afters {
                                for ss in [false, true] {
                                    for initials in [false, true] {
                                        assert!(!scan.single(&t, cue, after, ss, initials));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // A title still makes such a word a name: the shortcut leaves those runs to `judge`.
        assert!(names("The Friday meeting moved. You said so.").is_empty());
    }
}
