//! Places, addresses and organisations next to a run: street corners and house numbers, a
//! street type after the name ("Erzsébet tér 92"), address blocks, known organisation
//! phrases ("Wells Fargo"), `&` between firm names, a lower-case place word after the run
//! ("Lincoln county").
//!
//! Apart because they are the hard rejections of the judge: reasons a name-like run is no
//! person.

use super::lexicon;
use super::lexicon::ORG_PHRASES;
use super::runs::Tok;
use super::scan::Scan;
use super::words::Shape;

/// Bit `min(len, 63)` is set for the word count of each of [`ORG_PHRASES`], so that runs of
/// other lengths (most: one word) skip the list.
pub(super) const ORG_PHRASE_LENS: u64 = {
    let mut m = 0u64;
    let mut i = 0;
    while i < ORG_PHRASES.len() {
        let n = ORG_PHRASES[i].len();
        m |= 1 << if n < 63 { n } else { 63 };
        i += 1;
    }
    m
};

/// A 1024-bit filter of words by length and first and last letter, ASCII case folded: a word
/// equal to one of the filter's words up to ASCII case always passes it.
pub(super) struct WordFilter([u64; 16]);

impl WordFilter {
    /// The bit of `word`.
    pub(super) const fn key(word: &[u8]) -> usize {
        let (first, last) = match word {
            [] => (0, 0),
            [f] => (*f & 31, *f & 31),
            [f, .., l] => (*f & 31, *l & 31),
        };
        (((first as usize) << 5) | last as usize) ^ (word.len().wrapping_mul(37) & 1023)
    }

    #[inline]
    pub(super) fn has(&self, word: &[u8]) -> bool {
        let k = Self::key(word);
        self.0[k / 64] & (1 << (k % 64)) != 0
    }
}

/// The first words of [`ORG_PHRASES`]: most runs of their length skip the list by this test.
pub(super) const ORG_PHRASE_FIRSTS: WordFilter = {
    let mut bits = [0u64; 16];
    let mut i = 0;
    while i < ORG_PHRASES.len() {
        let k = WordFilter::key(ORG_PHRASES[i][0].as_bytes());
        bits[k / 64] |= 1 << (k % 64);
        i += 1;
    }
    WordFilter(bits)
};

impl Scan<'_, '_> {
    /// Whether the run ends a street name at a corner or before an address: " and " followed,
    /// within four words, by a house number of two digits or more ("Eloise and 226 Thomas
    /// Avenue", "Ines and Nordahl Rolfsens vei 187").
    pub(super) fn corner_of_streets(&self, end: usize) -> bool {
        let Some(rest) = self.text[end..].strip_prefix(" and ") else {
            return false;
        };
        rest.split_whitespace().take(4).any(|w| {
            let w = w.trim_end_matches(['.', ',', '?', '!']);
            w.len() >= 2 && w.bytes().all(|c| c.is_ascii_digit())
        })
    }

    /// Whether a short lower-case word that is no English word and a house number follow the
    /// run: a street type written after the name ("Erzsébet tér 92", "Dózsa György út 78",
    /// "Király u. 15"). "Maria has 3 kids" keeps Maria: "has" is a word.
    pub(super) fn street_type_after(&self, end: usize) -> bool {
        let Some(rest) = self.text[end..].strip_prefix(' ') else {
            return false;
        };
        let n = rest
            .bytes()
            .position(|c| matches!(c, b' ' | b'.'))
            .unwrap_or(rest.len());
        let word = &rest[..n];
        let tail = rest[n..].trim_start_matches('.');
        let number_next = tail
            .strip_prefix(' ')
            .is_some_and(|t| t.bytes().next().is_some_and(|c| c.is_ascii_digit()));
        number_next
            && (1..=12).contains(&n)
            && word.chars().all(char::is_lowercase)
            && self
                .finder
                .gaz
                .lookup(word)
                .is_none_or(|e| e.wordiness() == 0 && e.name() == 0)
    }

    /// Whether the run fills a line whose previous line holds a number: a city or region line
    /// of an address block ("Suite 137\nDen Haag"). A block's first line (the addressee) stays.
    pub(super) fn in_address_block(&self, toks: &[Tok]) -> bool {
        let text = self.text;
        let start = toks[0].start;
        let end = toks[toks.len() - 1].end;
        let head = &text[..start];
        // The run must end its line (the cheapest test, and most runs do not: first; the
        // bytes skipped are ASCII, so byte by byte).
        if !text.as_bytes()[end..]
            .iter()
            .find(|&&c| !matches!(c, b' ' | b',' | b'.'))
            .is_none_or(|&c| c == b'\n' || c == b'\r')
        {
            return false;
        }
        // Only the current line matters, and the line must be short: look back a little.
        let from = start.saturating_sub(64);
        let Some(nl) = memchr::memrchr(b'\n', &head.as_bytes()[from..]).map(|i| from + i) else {
            return false;
        };
        if !head[nl + 1..]
            .chars()
            .all(|c| c.is_whitespace() || matches!(c, '>' | '?' | '-' | '*'))
        {
            return false;
        }
        let lookback = nl.saturating_sub(200);
        let prev_line_start = memchr::memrchr(b'\n', &head.as_bytes()[lookback..nl])
            .map_or(lookback, |i| lookback + i + 1);
        head[prev_line_start..nl]
            .bytes()
            .any(|c| c.is_ascii_digit())
    }

    pub(super) fn is_org_phrase(&self, toks: &[Tok]) -> bool {
        let words = || toks.iter().filter(|t| !t.particle).map(|t| self.word(t));
        let n = words().count();
        ORG_PHRASE_LENS & (1 << n.min(63)) != 0
            && words()
                .next()
                .is_some_and(|w| ORG_PHRASE_FIRSTS.has(w.as_bytes()))
            && ORG_PHRASES.iter().any(|p| {
                p.len() == n
                    && p.iter()
                        .zip(words())
                        .all(|(a, b)| a.eq_ignore_ascii_case(b))
            })
            || (n == 2 && {
                // "Johnson & Johnson" is split by `&`; "Wells Fargo" and friends are listed.
                let next = self.text[toks[toks.len() - 1].end..].trim_start();
                next.starts_with('&') && !self.person_beside_amp(toks, true)
            })
    }

    /// Whether a run beside `&` is still a person: a given name with a surname ("Gwen Stefani
    /// & a friend"), or a name before "& I" / "& me". Firms are single words on each side
    /// ("Marks & Spencer", "Ernst & Young").
    pub(super) fn person_beside_amp(&self, toks: &[Tok], amp_after: bool) -> bool {
        let mut core = toks
            .iter()
            .filter(|t| !t.particle && t.shape != Shape::Initial);
        let given_first = core.next().is_some_and(|t| {
            t.shape == Shape::Title
                && t.entry
                    .is_some_and(|e| e.first >= 3 && e.first >= e.wordiness() + 2)
        });
        if given_first && core.next().is_some() {
            return true;
        }
        if !amp_after {
            return false;
        }
        let rest = self.text[toks[toks.len() - 1].end..].trim_start();
        let rest = rest
            .strip_prefix("&amp;")
            .or_else(|| rest.strip_prefix('&'))
            .unwrap_or(rest)
            .trim_start();
        let pronoun = rest.split(|c: char| !c.is_alphabetic()).next();
        given_first && pronoun.is_some_and(|w| w == "I" || w == "me")
    }

    /// Whether a lower-case place or firm word follows `end` after one space ("Lincoln park",
    /// "marshall islands").
    pub(super) fn place_word_after(&self, end: usize) -> bool {
        let Some(r) = self.text[end..].strip_prefix(' ') else {
            return false;
        };
        let n = r.bytes().take_while(u8::is_ascii_lowercase).count();
        n >= 2
            && r[n..]
                .bytes()
                .next()
                .is_none_or(|c| !c.is_ascii_alphanumeric())
            && self.finder.lex.is(&r[..n], lexicon::ORG_PLACE)
            && !lexicon::on_list(lexicon::ORG_PLACE_AFTER_PERSON, &r[..n])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::names::tests::names;

    #[test]
    fn org_phrase_filter_keeps_every_phrase() {
        for p in ORG_PHRASES {
            assert!(ORG_PHRASE_FIRSTS.has(p[0].as_bytes()), "{p:?}");
            assert!(
                ORG_PHRASE_FIRSTS.has(p[0].to_uppercase().as_bytes()),
                "{p:?}"
            );
        }
        assert_eq!(names("Wells Fargo approved it."), Vec::<&str>::new());
        assert_eq!(names("Maria Ortiz approved it."), vec!["Maria Ortiz"]);
    }
}
