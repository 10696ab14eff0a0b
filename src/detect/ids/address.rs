//! Postal addresses (`ADDRESS`): a home or mailing address names where someone lives as surely
//! as their name names them, and CRMs, contact exports and order systems return them in two
//! shapes, which is all this module reads:
//!
//! - **under an address key** (`address`, `street`, `street_address`, `address_line1`,
//!   `mailing_address`, `billing_address`, `shipping_address`, `home_address`, Outlook's
//!   `Business Street` ... : [`key_names_address`]) the **whole value** is the address: street,
//!   city and postcode together are what locate a home, and one token for the whole keeps
//!   restore exact and leaves no house number beside it. The value must read as an address line
//!   ([`address_value`]: a letter, a digit and a space; no `@`, no `://`), so a `city`-less
//!   `"address": "192.168.0.1"`, a wallet or a host name under the same key are not addresses.
//! - **in text**, a street line: a house number and a street-type word, in the US/UK
//!   (`1600 Pennsylvania Ave NW`, `10 Downing Street`), German (`Musterstraße 12`,
//!   `Berliner Str. 5`) and French (`12 rue de la Paix`) orders, taking the city and postcode
//!   when they follow (`, Washington, DC 20500`, `, London SW1A 2AA`, `, 10115 Berlin`,
//!   `, 75002 Paris`). Street-type words that are also ordinary words (`Way`, `Drive`, `Place`,
//!   `Court`, German `-weg`, `-platz`, `-ring`, French `place`, `route` ...) count only with a
//!   postcode after them: `3 Google Drive files` and `Spring 2024` are no addresses.
//!
//! Not caught: a street without a house number, a city or postcode alone, PO boxes, addresses
//! in other languages' orders (Spanish `Calle Mayor 5` is read only by its German-like order
//! when it has a postcode), and lines whose street name is lower case or all capitals.

use regex::Regex;

use super::super::{Kind, Span};
use super::IdKind;

/// The street-line shapes. Groups: `strong` marks a street-type word that is no ordinary word
/// (`Street`, `Ave`, `-straße`, `rue`); `tail` the city and postcode after the street.
const STREET_LINE: &str = r"(?x)
    (?:
      # US / UK: number, optional direction, 1-3 capitalised words (or an ordinal), type word.
      [0-9]{1,5}[A-Za-z]?(?:-[0-9]{1,5})?\x20
      (?:(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\.?\x20)?
      (?:(?:[A-Z][A-Za-z'’-]*[a-z]|[0-9]{1,3}(?:st|nd|rd|th))\.?\x20){1,3}
      (?:
        (?P<strong>Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Highway|Hwy|Parkway|Pkwy)
        | Drive|Dr|Way|Court|Ct|Place|Pl|Terrace|Square|Sq|Close|Crescent|Gardens|Grove|Mews
        | Row|Circle|Cir|Trail|Plaza
      )(?-u:\b)\.?
      (?:\x20(?:NW|NE|SW|SE|N|S|E|W)(?-u:\b)\.?)?
      (?:,?\x20(?:Apt|Apartment|Suite|Ste|Unit|Flat|\#)\.?\x20?[0-9A-Za-z-]{1,6}(?-u:\b))?
      (?P<tail>
          ,\x20[A-Z][A-Za-z.'’-]+(?:\x20[A-Z][A-Za-z.'’-]+){0,2}
          ,?\x20(?:[A-Z]{2}\x20[0-9]{5}(?:-[0-9]{4})?|[A-Z]{1,2}[0-9][A-Z0-9]?\x20?[0-9][A-Z]{2})(?-u:\b)
        | ,?\x20[A-Z]{1,2}[0-9][A-Z0-9]?\x20[0-9][A-Z]{2}(?-u:\b)
      )?
    |
      # German: the street name with its type as suffix or word, then the number.
      (?:
        (?:[A-ZÄÖÜ][\p{L}-]*\x20)?
        [A-ZÄÖÜ][\p{L}-]*?(?:(?P<strong_de>straße|strasse|str\.)|weg|platz|allee|gasse|ring|damm|ufer|markt)
      | [A-ZÄÖÜ][\p{L}-]*\x20(?:(?P<strong_de2>Straße|Strasse|Str\.)|Weg|Platz|Allee|Gasse|Ring|Damm|Ufer|Markt)
      )
      \x20[0-9]{1,4}(?:\x20?[a-z])?(?:-[0-9]{1,4})?(?-u:\b)
      (?P<tail_de>,\x20(?:D-)?[0-9]{5}\x20[A-ZÄÖÜ][\p{L}-]+(?:\x20(?:am|an\x20der|im|ob\x20der)\x20[A-ZÄÖÜ][\p{L}-]+)?)?
    |
      # French: number, type word in lower case, the name (particles and capitalised words).
      [0-9]{1,4}(?:\x20?(?:bis|ter))?,?\x20
      (?:(?P<strong_fr>rue|avenue|boulevard|bd|chemin|allée|impasse|quai)|place|route|cours|square|passage)\x20
      (?:(?:de|du|des|la|le|les|aux|au|sur)\x20|[ld]['’])*
      [A-ZÀ-ÝÉ][\p{L}'’-]*
      (?:\x20(?:(?:de|du|des|la|le|les|aux|au|sur|et)\x20|[ld]['’])*[A-ZÀ-ÝÉ][\p{L}'’-]*){0,3}
      (?P<tail_fr>,?\x20[0-9]{5}\x20[A-ZÀ-ÝÉ][\p{L}'’-]+(?:[\x20-][A-ZÀ-ÝÉ][\p{L}'’-]+){0,3})?
    )";

/// The street-type words of [`STREET_LINE`] with the space the regex wants beside them,
/// longest match first: a text with none of them, where [`type_word_fits`], holds no street
/// line, and one automaton pass over it is much cheaper than the regex's. Capitalised words
/// follow a space, German suffixes precede one, French words have one on each side.
const TYPE_WORDS: &[&str] = &[
    " Street",
    " St",
    " Avenue",
    " Ave",
    " Square",
    " Road",
    " Rd",
    " Boulevard",
    " Blvd",
    " Lane",
    " Ln",
    " Highway",
    " Hwy",
    " Parkway",
    " Pkwy",
    " Drive",
    " Dr",
    " Way",
    " Court",
    " Ct",
    " Place",
    " Pl",
    " Terrace",
    " Sq",
    " Close",
    " Crescent",
    " Gardens",
    " Grove",
    " Mews",
    " Row",
    " Circle",
    " Cir",
    " Trail",
    " Plaza",
    " Straße",
    " Strasse",
    " Str.",
    " Weg",
    " Platz",
    " Allee",
    " Gasse",
    " Ring",
    " Damm",
    " Ufer",
    " Markt",
    "straße ",
    "strasse ",
    "str. ",
    "weg ",
    "platz ",
    "allee ",
    "gasse ",
    "ring ",
    "damm ",
    "ufer ",
    "markt ",
    " rue ",
    " avenue ",
    " boulevard ",
    " bd ",
    " chemin ",
    " allée ",
    " impasse ",
    " quai ",
    " place ",
    " route ",
    " cours ",
    " square ",
    " passage ",
];

/// The street-line finder: compiled once per detector with addresses on.
#[derive(Debug)]
pub(super) struct AddressFinder {
    street: Regex,
    types: aho_corasick::AhoCorasick,
}

impl AddressFinder {
    pub(super) fn new() -> AddressFinder {
        AddressFinder {
            street: Regex::new(STREET_LINE).expect("the street-line shapes compile"),
            types: aho_corasick::AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(TYPE_WORDS)
                .expect("the street-type words build an automaton"),
        }
    }

    /// Appends the street lines of `text` (with the city and postcode that follow them).
    pub(super) fn find(&self, text: &str, out: &mut Vec<Span>) {
        if !self
            .types
            .find_iter(text)
            .any(|m| type_word_fits(text.as_bytes(), m))
        {
            return;
        }
        for caps in self.street.captures_iter(text) {
            let Some(m) = caps.get(0) else { continue };
            let strong = ["strong", "strong_de", "strong_de2", "strong_fr"]
                .iter()
                .any(|g| caps.name(g).is_some());
            let tail = ["tail", "tail_de", "tail_fr"]
                .iter()
                .any(|g| caps.name(g).is_some());
            if !(strong || tail) || !starts_a_word(text, m.start()) {
                continue;
            }
            let end = m.start() + m.as_str().trim_end_matches([',', ' ']).len();
            out.push(Span::new(m.start(), end, Kind::Id(IdKind::Address)));
        }
    }
}

/// Whether a street-type word found at `m` sits where [`STREET_LINE`] could use it: a
/// capitalised word (` Street`, ` Ave`, ` Straße`) ending a word, a German suffix (`-straße `,
/// `str. `) before a digit; a French word (` rue `) as found. ` String`, `str.len()`, ` Row(`
/// fail.
fn type_word_fits(b: &[u8], m: aho_corasick::Match) -> bool {
    let after = b.get(m.end()).copied();
    match (b[m.start()] == b' ', b[m.end() - 1] == b' ') {
        (true, true) => true,
        (true, false) => !after.is_some_and(|c| c.is_ascii_alphabetic()),
        _ => after.is_some_and(|c| c.is_ascii_digit()),
    }
}

/// Whether `start` begins a word: not inside a longer number, version or identifier
/// (`v1.12 Main St`, `#12`, `x12 Road`).
fn starts_a_word(text: &str, start: usize) -> bool {
    text[..start].chars().next_back().is_none_or(|c| {
        !(c.is_alphanumeric() || matches!(c, '.' | ':' | '/' | '-' | '_' | '#' | '$' | '€' | '£'))
    })
}

/// Whether a key (folded to lower-case ASCII letters and digits) names a postal address or
/// its street line.
pub(super) fn key_names_address(folded: &str) -> bool {
    matches!(
        folded,
        "address"
            | "addr"
            | "address1"
            | "address2"
            | "addressline"
            | "addressline1"
            | "addressline2"
            | "addressline3"
            | "addr1"
            | "addr2"
            | "street"
            | "street1"
            | "street2"
            | "streetaddress"
            | "streetaddr"
            | "streetline"
            | "streetline1"
            | "streetline2"
            | "mailingaddress"
            | "billingaddress"
            | "shippingaddress"
            | "homeaddress"
            | "postaladdress"
            | "residentialaddress"
            | "physicaladdress"
            | "deliveryaddress"
            | "fulladdress"
            | "homestreet"
            | "businessstreet"
            | "otherstreet"
            | "adresse"
            | "anschrift"
            | "strasse"
            | "direccion"
            | "indirizzo"
            | "endereco"
    )
}

/// Whether a whole value under an address key reads as an address line: at most 300 bytes with
/// a letter, a digit and a space, and no `@` or `://` (an email or URL under an `address` key
/// is its own kind or none).
pub(super) fn address_value(v: &str) -> bool {
    v.len() <= 300
        && v.chars().any(char::is_alphabetic)
        && v.bytes().any(|b| b.is_ascii_digit())
        && v.chars().any(char::is_whitespace)
        && !v.contains('@')
        && !v.contains("://")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        AddressFinder::new().find(text, &mut out);
        out.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn street_lines_in_four_orders() {
        for (text, want) in [
            (
                "Write to 1600 Pennsylvania Ave NW, Washington, DC 20500 today.",
                "1600 Pennsylvania Ave NW, Washington, DC 20500",
            ),
            (
                "at 10 Downing Street, London SW1A 2AA.",
                "10 Downing Street, London SW1A 2AA",
            ),
            (
                "Musterstraße 12, 10115 Berlin",
                "Musterstraße 12, 10115 Berlin",
            ),
            ("wohnt in der Berliner Str. 5a.", "Berliner Str. 5a"),
            (
                "au 12 rue de la Paix, 75002 Paris.",
                "12 rue de la Paix, 75002 Paris",
            ),
            ("ships to 42 Oak Lane", "42 Oak Lane"),
            ("221B Baker Street", "221B Baker Street"),
            (
                "7 Elm Way, Springfield, IL 62704",
                "7 Elm Way, Springfield, IL 62704",
            ),
            (
                "Am Lindenweg 3, 80331 München",
                "Am Lindenweg 3, 80331 München",
            ),
        ] {
            assert_eq!(found(text), vec![want], "{text}");
        }
    }

    #[test]
    fn ordinary_words_need_a_postcode() {
        for text in [
            "uploaded 3 Google Drive files",
            "see Spring 2024 release",
            "the 5 Star Way of doing it",
            "in 2 place Holders",
            "v1.10 Main Street",
            "build 12 on main street",
            "Straße",
            "12 Monkeys",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }

    #[test]
    fn keyed_values() {
        assert!(key_names_address("streetaddress"));
        assert!(key_names_address("billingaddress"));
        assert!(!key_names_address("emailaddress"));
        assert!(address_value("Apt 4B"));
        assert!(address_value(
            "1600 Pennsylvania Ave NW\nWashington, DC 20500"
        ));
        for v in [
            "192.168.0.1",
            "maria@example.com",
            "London",
            "Main Street",
            "",
        ] {
            assert!(!address_value(v), "{v}");
        }
    }
}
