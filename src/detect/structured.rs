//! Names found through structure: the value of a name-keyed field is a name as a whole.
//!
//! `{"full_name": "maria del carmen ortiz"}` needs no capital letters or gazetteer hits to be a
//! name: the key says so. A bare `name` key also holds companies and tools, so its value counts
//! only under a people-like container (`users`, `contacts`) or when the name finder sees a known
//! given name or surname in it. Values under organisation-like keys (`company`, `product`) are
//! kept away from the free-text name finder, which would otherwise read "Johnson & Johnson" as
//! people.

use super::keys::{KeyHint, is_people_container, key_hint};
use super::names::NameFinder;
use super::{FindContext, Kind, Span};

#[derive(Debug)]
pub(super) struct StructuredNames {
    names: Option<NameFinder>,
    in_text: bool,
}

impl StructuredNames {
    pub(super) fn new(names: Option<NameFinder>, in_text: bool) -> Self {
        StructuredNames { names, in_text }
    }

    /// The name finder, when names are on.
    pub(super) fn names(&self) -> Option<&NameFinder> {
        self.names.as_ref()
    }

    /// See [`NameFinder::is_distinctive`]; false when names are off.
    pub(super) fn is_distinctive_name(&self, value: &str) -> bool {
        self.names.as_ref().is_some_and(|n| n.is_distinctive(value))
    }

    /// Finds names in `text`; `hint` is `key_hint` of `cx.key`, worked out by the caller.
    pub(super) fn find(
        &self,
        text: &str,
        cx: &FindContext<'_>,
        hint: Option<KeyHint>,
        out: &mut Vec<Span>,
    ) {
        let Some(names) = &self.names else {
            return;
        };
        if cx.key.is_some() {
            match hint {
                Some(KeyHint::PersonName { strong }) => {
                    if !strong
                        && cx
                            .parent_key
                            .is_some_and(|p| key_hint(p) == Some(KeyHint::NotPerson))
                    {
                        // `company.name`: the organisation's own name, even when it is made of
                        // surnames ("Dooley, Kozey and Cronin").
                        return;
                    }
                    if let Some((start, end)) = name_shaped(text) {
                        let value = &text[start..end];
                        let under_people = || cx.parent_key.is_some_and(is_people_container);
                        let evidence = strong
                            || under_people()
                            || (names.has_known_name_word(value) && reads_as_name(names, value));
                        if evidence && !names.is_allowed(value) {
                            out.push(Span::new(start, end, Kind::Name));
                            return;
                        }
                    }
                }
                Some(KeyHint::NotPerson) => return,
                _ => {
                    // One word under a key that says nothing of people is an enum value, a
                    // colour, a code ("Hazel" eyes, "GBP", "AB+") far more often than a name:
                    // only a word that is a name and nothing else goes on to the name finder.
                    let value = text.trim();
                    if !value.is_empty()
                        && !value.contains(char::is_whitespace)
                        && !names.is_only_a_name(value)
                    {
                        return;
                    }
                }
            }
        }
        if self.in_text {
            names.find(text, cx, out);
        }
    }
}

/// The trimmed range of `text` if it is shaped like a name: 1 to 6 words of letters (any
/// script) joined by spaces, with `'`, `-`, `.` and one `,` allowed; no digits or `@`.
pub(super) fn name_shaped(text: &str) -> Option<(usize, usize)> {
    if text.is_ascii() {
        name_shaped_ascii(text.as_bytes())
    } else {
        name_shaped_chars(text)
    }
}

/// [`name_shaped`] of ASCII text, in one pass over its bytes (most JSON values; the same
/// answer as [`name_shaped_chars`], which the tests check): ASCII whitespace as
/// `char::is_whitespace` reads it (tab to carriage return, and space), letters, and `,` `'`
/// `-` `.`, each byte's class read from [`SHAPE`].
fn name_shaped_ascii(b: &[u8]) -> Option<(usize, usize)> {
    let start = b.iter().position(|&c| SHAPE[usize::from(c)] != SPACE)?;
    let (mut words, mut commas) = (0usize, 0usize);
    let mut in_word = false;
    let mut end = start;
    for (i, &c) in b.iter().enumerate().skip(start) {
        match SHAPE[usize::from(c)] {
            SPACE => in_word = false,
            // A value whose trimmed length passes 80 bytes is no name.
            _ if i - start >= 80 => return None,
            // A word opens with a letter.
            LETTER if !in_word => {
                in_word = true;
                words += 1;
                end = i + 1;
            }
            LETTER | MARK if in_word => {
                commas += usize::from(c == b',');
                end = i + 1;
            }
            _ => return None,
        }
    }
    (words <= 6 && commas <= 1).then_some((start, end))
}

/// [`SHAPE`]: other bytes (none of a name).
const OTHER: u8 = 0;
/// [`SHAPE`]: ASCII white space.
const SPACE: u8 = 1;
/// [`SHAPE`]: an ASCII letter.
const LETTER: u8 = 2;
/// [`SHAPE`]: `,` `'` `-` `.`, inside a word.
const MARK: u8 = 3;

/// The class of each byte for [`name_shaped_ascii`].
static SHAPE: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = if b.is_ascii_alphabetic() {
            LETTER
        } else if matches!(b, b'\t'..=b'\r' | b' ') {
            SPACE
        } else if matches!(b, b',' | b'\'' | b'-' | b'.') {
            MARK
        } else {
            OTHER
        };
        c += 1;
    }
    t
};

/// [`name_shaped`] of any text, character by character.
fn name_shaped_chars(text: &str) -> Option<(usize, usize)> {
    let start = text.len() - text.trim_start().len();
    let end = text.trim_end().len();
    if start >= end || end - start > 80 {
        return None;
    }
    let value = &text[start..end];
    let mut words = 0;
    let mut commas = 0;
    for word in value.split_whitespace() {
        words += 1;
        let first = word.chars().next()?;
        if !first.is_alphabetic() {
            return None;
        }
        for c in word.chars() {
            match c {
                ',' => commas += 1,
                '\'' | '’' | '-' | '.' => {}
                c if c.is_alphabetic() || is_combining(c) => {}
                _ => return None,
            }
        }
    }
    (words <= 6 && commas <= 1).then_some((start, end))
}

/// Whether a value under a bare `name` key reads as a person's name rather than a title or a
/// phrase: every word capitalised (lower-case particles such as "van", "de" aside), or at most
/// three words that are all known name words ("maria garcia", not "alias odio sit").
fn reads_as_name(names: &NameFinder, value: &str) -> bool {
    const PARTICLES: &[&str] = &[
        "van", "von", "der", "den", "de", "del", "della", "da", "di", "la", "le", "du", "dos",
        "das", "y", "bin", "al",
    ];
    let words = || value.split_whitespace();
    let capitalised = words().all(|w| {
        w.chars().next().is_some_and(|c| !c.is_lowercase())
            || PARTICLES.contains(&w.trim_end_matches(',').to_lowercase().as_str())
    });
    capitalised || (words().count() <= 3 && words().all(|w| names.has_known_name_word(w)))
}

/// Combining marks and joiners used inside names in Devanagari, Arabic and other scripts.
fn is_combining(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x0610..=0x061A | 0x064B..=0x065F | 0x0900..=0x0903
        | 0x093A..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963 | 0x0981..=0x0983 | 0x09BC..=0x09D7
        | 0x0A01..=0x0A03 | 0x0A3C..=0x0A51 | 0x0B01..=0x0B03 | 0x0BBE..=0x0BCD | 0x0C00..=0x0C04
        | 0x0C3E..=0x0C56 | 0x0D00..=0x0D03 | 0x0D3E..=0x0D4D | 0x0E31 | 0x0E34..=0x0E3A
        | 0x0E47..=0x0E4E | 0x200C | 0x200D | 0x05B0..=0x05C7)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// The byte-by-byte reading of ASCII text is the character-by-character one: on
        /// random bytes of its classes, long runs around its 80-byte limit, and words.
        #[test]
        fn name_shaped_ascii_is_name_shaped_chars(
            text in "[ \t\n\x0b\x0c\rA-Za-z,'.@0-9-]{0,24}|[ A-Za-z,-]{70,90}\
                |[ ]{0,3}([A-Za-z,'.-][A-Za-z,'.-]{0,12}[ \t]{1,2}){0,9}[A-Za-z,.]{0,4}[ ]{0,3}"
        ) {
            proptest::prop_assert_eq!(name_shaped_ascii(text.as_bytes()), name_shaped_chars(&text));
        }
    }

    fn found(key: &str, parent: Option<&str>, text: &str) -> Vec<String> {
        let s = StructuredNames::new(Some(NameFinder::new(&[], &[])), true);
        let cx = FindContext {
            key: Some(key),
            parent_key: parent,
            ..FindContext::default()
        };
        let mut out = Vec::new();
        s.find(text, &cx, key_hint(key), &mut out);
        out.iter()
            .map(|s| text[s.start..s.end].to_string())
            .collect()
    }

    #[test]
    fn name_keys_and_their_containers() {
        assert_eq!(found("name", Some("users"), "Ann Lee"), ["Ann Lee"]);
        assert_eq!(found("name", None, "Leanne Graham"), ["Leanne Graham"]);
        assert_eq!(found("name", None, "maria garcia"), ["maria garcia"]);
        assert_eq!(
            found("full_name", None, "maria del carmen ortiz"),
            ["maria del carmen ortiz"]
        );
        // An organisation's own name, even one made of surnames.
        assert!(found("name", Some("company"), "Dooley, Kozey and Cronin").is_empty());
        // A person's name under an organisation, when the key says so.
        assert_eq!(
            found("contact_name", Some("company"), "Ann Lee"),
            ["Ann Lee"]
        );
        // A phrase under a bare `name` is no name.
        assert!(found("name", None, "id labore ex et quam laborum").is_empty());
        // One word under a key that says nothing of people: only a word that is only a name.
        assert_eq!(found("reviewer_login", None, "Emily"), ["Emily"]);
        for value in ["Hazel", "Brown", "GBP", "AB+", "MS", "Jordan"] {
            assert!(found("eyeColor", None, value).is_empty(), "{value}");
        }
    }

    #[test]
    fn shapes() {
        assert_eq!(name_shaped("  Ann Lee "), Some((2, 9)));
        assert!(name_shaped("Smith, John").is_some());
        assert!(name_shaped("O'Neil-Smith Jr.").is_some());
        assert!(name_shaped("李伟").is_some());
        assert!(name_shaped("राहुल शर्मा").is_some());
        assert!(name_shaped("read_file").is_none());
        assert!(name_shaped("ann@x.io").is_none());
        assert!(name_shaped("Item 42").is_none());
        assert!(name_shaped("").is_none());
    }
}
