//! One word's letters: where a word ends, its shape (`Maria`, `MARIA`, `maria`, `J.`,
//! caseless scripts; camel case is no name), contractions and name suffixes ("Jr.", "PhD").
//!
//! Apart from the scan so that every stage (the scan, the judge, the casual stage, the field
//! checks of `NameFinder`) reads a word by the same rules.

use super::cjk;

/// The shape of a word's letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// `Maria`, `McDonald`, `O'Neil`, `Jean-Luc`.
    Title,
    /// `MARIA` (two letters or more).
    Upper,
    /// `maria`.
    Lower,
    /// `J.` or `J` (one capital letter).
    Initial,
    /// A script without case (Arabic, Hebrew, Devanagari ...).
    Caseless,
}

/// Whether `c` can be part of a word: letters of any script and the combining marks used in
/// Indic, Arabic and Hebrew names.
pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphabetic()
        || matches!(c as u32, 0x0300..=0x036F | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670
            | 0x05B0..=0x05C7 | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957
            | 0x0981..=0x0983 | 0x09BC..=0x09D7 | 0x0A01..=0x0A51 | 0x0B01..=0x0BCD
            | 0x0C00..=0x0D4D | 0x0E31..=0x0E4E | 0x200C | 0x200D)
}

/// `text[a..b]`, or "" when the range is empty or not on character boundaries.
pub(super) fn text_of(text: &str, a: usize, b: usize) -> &str {
    text.get(a..b).unwrap_or("")
}

pub(super) fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..).and_then(|s| s.chars().next())
}

pub(super) fn char_before(text: &str, i: usize) -> Option<char> {
    text.get(..i).and_then(|s| s.chars().next_back())
}

/// The end of the word starting at `i`: letters, with `'`, `’` and `-` allowed between letters.
pub(super) fn word_end(text: &str, mut i: usize) -> usize {
    let b = text.as_bytes();
    let n = b.len();
    while i < n {
        let c = b[i];
        if c.is_ascii_alphabetic() {
            i += 1;
        } else if c < 0x80 {
            let next_letter = i + 1 < n && b[i + 1].is_ascii_alphabetic();
            let next_non_ascii = i + 1 < n && b[i + 1] >= 0x80;
            if (c == b'\'' || c == b'-') && next_letter || c == b'-' && next_non_ascii {
                i += 1;
            } else {
                break;
            }
        } else {
            let Some(ch) = char_at(text, i) else { break };
            if ch == '’' && i + 3 < n && b[i + 3].is_ascii_alphabetic() {
                i += 3;
            } else if is_word_char(ch) && !cjk::is_cjk(ch) {
                i += ch.len_utf8();
            } else {
                break;
            }
        }
    }
    i
}

pub(super) fn shape_of(word: &str) -> Option<Shape> {
    if word.is_ascii() {
        return shape_of_ascii(word);
    }
    let mut chars = word.chars();
    let first = chars.next()?;
    if !first.is_uppercase() {
        return Some(if first.is_lowercase() {
            Shape::Lower
        } else {
            Shape::Caseless
        });
    }
    if word.len() == first.len_utf8() {
        return Some(Shape::Initial);
    }
    let mut upper = 0usize;
    let mut lower = 0usize;
    let mut prev = first;
    let mut camel = false;
    for c in chars {
        if c.is_uppercase() {
            upper += 1;
            // McDonald, MacArthur, O'Neil, D'Angelo, Jean-Luc, DeShawn, LaToya
            if lower > 0 && !matches!(prev, '\'' | '’' | '-') && !mc_prefix(word, c) {
                camel = true;
            }
        } else if c.is_lowercase() {
            lower += 1;
        }
        prev = c;
    }
    if lower == 0 && upper > 0 {
        return Some(Shape::Upper);
    }
    if camel {
        return None;
    }
    Some(Shape::Title)
}

/// [`shape_of`] for an ASCII word, byte by byte (the same rules: for ASCII, `char::is_uppercase`
/// is `u8::is_ascii_uppercase`).
pub(super) fn shape_of_ascii(word: &str) -> Option<Shape> {
    shape_of_ascii_bytes(word.as_bytes())
}

/// [`shape_of_ascii`] of the bytes of an ASCII word.
fn shape_of_ascii_bytes(b: &[u8]) -> Option<Shape> {
    let first = *b.first()?;
    if !first.is_ascii_uppercase() {
        return Some(if first.is_ascii_lowercase() {
            Shape::Lower
        } else {
            Shape::Caseless
        });
    }
    if b.len() == 1 {
        return Some(Shape::Initial);
    }
    let mut upper = 0usize;
    let mut lower = 0usize;
    let mut prev = first;
    // A capital after a lower-case letter, not right after `'` or `-`: camel case unless a
    // name prefix explains it. `mc_prefix` depends on the word only, so it is asked once, and
    // only when the word has exactly two capitals (which it requires).
    let mut inner_capital = false;
    for &c in &b[1..] {
        if c.is_ascii_uppercase() {
            upper += 1;
            inner_capital |= lower > 0 && !matches!(prev, b'\'' | b'-');
        } else if c.is_ascii_lowercase() {
            lower += 1;
        }
        prev = c;
    }
    if lower == 0 && upper > 0 {
        return Some(Shape::Upper);
    }
    if inner_capital && !(upper == 1 && mc_prefix_ascii(b)) {
        return None;
    }
    Some(Shape::Title)
}

/// [`shape_of_ascii`] of `b[start..end]`, a word of ASCII letters only (most capitalised words
/// of a text): a word of up to eight letters with eight bytes of text from its start is read
/// with one load, its capitals are the letters without the `0x20` bit, and the counts and the
/// "capital after a lower-case letter" test come from those bits, not a loop over the bytes.
pub(super) fn shape_of_letters(b: &[u8], start: usize, end: usize) -> Option<Shape> {
    const CASE: u64 = 0x2020_2020_2020_2020;
    let len = end.checked_sub(start)?;
    let x = match b.get(start..start.saturating_add(8)) {
        Some(&[c0, c1, c2, c3, c4, c5, c6, c7]) if (2..=8).contains(&len) => {
            u64::from_le_bytes([c0, c1, c2, c3, c4, c5, c6, c7])
        }
        _ => return shape_of_ascii_bytes(b.get(start..end)?),
    };
    if x & 0x20 != 0 {
        // A lower-case first letter.
        return Some(Shape::Lower);
    }
    // The letters after the first, as the `0x20` bit of their bytes.
    let rest = (u64::MAX >> (64 - 8 * len)) & !0xff & CASE;
    let lower = x & rest;
    let upper = !x & rest;
    if lower == 0 {
        return Some(Shape::Upper);
    }
    // A capital after the first lower-case letter: camel case unless a name prefix explains it.
    let first_lower = lower & lower.wrapping_neg();
    if upper & !(first_lower | (first_lower - 1)) != 0
        && !(upper.count_ones() == 1 && mc_prefix_ascii(&b[start..end]))
    {
        return None;
    }
    Some(Shape::Title)
}

/// [`mc_prefix`] for an ASCII word with exactly two capitals.
pub(super) fn mc_prefix_ascii(b: &[u8]) -> bool {
    [
        "Mc", "Mac", "De", "La", "Le", "Di", "Da", "Van", "Fitz", "St", "Du",
    ]
    .iter()
    .any(|p| b.starts_with(p.as_bytes()) && b.get(p.len()).is_some_and(u8::is_ascii_uppercase))
}

/// Whether an inner capital follows a name prefix (`McDonald`, `MacKenzie`, `DeAndre`, `LaToya`,
/// `DiMaggio`, `VanDyke`, `FitzGerald`).
pub(super) fn mc_prefix(word: &str, _c: char) -> bool {
    let uppers = word.chars().filter(|c| c.is_uppercase()).count();
    uppers == 2
        && [
            "Mc", "Mac", "De", "La", "Le", "Di", "Da", "Van", "Fitz", "St", "Du",
        ]
        .iter()
        .any(|p| {
            word.starts_with(p)
                && word[p.len()..]
                    .chars()
                    .next()
                    .is_some_and(char::is_uppercase)
        })
}

/// "I'm", "Don't", "We'll": an apostrophe followed by a contraction ending.
pub(super) fn is_contraction(word: &str) -> bool {
    // `’` is E2 80 99 in UTF-8: most words have neither byte.
    if !word.bytes().any(|c| c == b'\'' || c == 0xE2) {
        return false;
    }
    let Some(i) = word.find(['\'', '’']) else {
        return false;
    };
    let tail = &word[i..];
    let tail = tail.trim_start_matches(['\'', '’']);
    matches!(
        tail,
        "m" | "ll" | "ve" | "re" | "d" | "t" | "M" | "LL" | "VE" | "RE" | "D" | "T"
    )
}

/// Generational and academic suffixes written after a name.
pub(super) const SUFFIXES: &[&str] = &[
    "Jr.", "Sr.", "Jr", "Sr", "PhD", "Ph.D.", "MD", "M.D.", "DVM", "DDS", "Esq.", "Esq", "III",
    "II", "IV",
];

/// Whether the bytes `word` are a suffix word of [`SUFFIXES`] without a dot ("Jr", "PhD").
pub(super) fn is_suffix_word(word: &[u8]) -> bool {
    // Two or three bytes each, opening with one of seven capitals: most words fail the length
    // test or the first-letter test ("The", "But", "And").
    matches!(word.len(), 2 | 3)
        && matches!(word[0], b'J' | b'S' | b'P' | b'M' | b'D' | b'E' | b'I')
        && matches!(
            word,
            b"Jr" | b"Sr" | b"PhD" | b"MD" | b"DVM" | b"DDS" | b"Esq" | b"II" | b"III" | b"IV"
        )
}

/// An ASCII letter or digit, or a byte of a non-ASCII character.
pub(super) fn is_wordish(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_of_letters_is_shape_of_ascii() {
        // Words of letters in random case, with name prefixes ("McDonald", "DeShawn"), at the
        // end of a text and before other bytes.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let prefixes: [&[u8]; 5] = [b"", b"Mc", b"Mac", b"De", b"Fitz"];
        let mut compared = 0;
        for _ in 0..200_000 {
            let mut text = prefixes[(next() % 5) as usize].to_vec();
            let len = (next() % 13) as usize;
            for _ in 0..len {
                let r = next();
                let c = b'a' + (r % 26) as u8;
                // Capitals now and then, or most of the time.
                let upper = if r >> 40 & 1 == 0 {
                    r >> 20 & 7 == 0
                } else {
                    r >> 20 & 7 != 0
                };
                text.push(if upper { c.to_ascii_uppercase() } else { c });
            }
            let end = text.len();
            for _ in 0..next() % 10 {
                text.push(b" .,x-'Z\n"[(next() % 8) as usize]);
            }
            let want = shape_of_ascii(std::str::from_utf8(&text[..end]).unwrap());
            assert_eq!(
                shape_of_letters(&text, 0, end),
                want,
                "{:?}",
                String::from_utf8_lossy(&text[..end])
            );
            compared += 1;
        }
        assert_eq!(compared, 200_000);
    }

    #[test]
    fn suffix_words_pass_the_first_letter_test() {
        for w in [
            "Jr", "Sr", "PhD", "MD", "DVM", "DDS", "Esq", "II", "III", "IV",
        ] {
            assert!(is_suffix_word(w.as_bytes()), "{w}");
        }
        for w in ["The", "She", "Jrx", "jr", "Mr", "J", ""] {
            assert!(!is_suffix_word(w.as_bytes()), "{w}");
        }
    }

    #[test]
    fn shapes() {
        assert_eq!(shape_of("McDonald"), Some(Shape::Title));
        assert_eq!(shape_of("O'Neil"), Some(Shape::Title));
        assert_eq!(shape_of("getUserName"), Some(Shape::Lower));
        assert_eq!(shape_of("UserName"), None);
        assert_eq!(shape_of("SMITH"), Some(Shape::Upper));
        assert_eq!(shape_of("J"), Some(Shape::Initial));
    }
}
