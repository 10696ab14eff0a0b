//! Objects whose own type member says they are no person: `{"name": "Acme Corp",
//! "entityType": "organization"}`.
//!
//! Knowledge graphs (server-memory), CRMs and directory exports keep people and organisations
//! in the same shape of record, told apart by a type member, and that member often comes after
//! the name. A `name` key alone says "a person's name" to the detector; in a record typed as an
//! organisation, a place or a product it is not, and tokenizing it as one hides the company
//! from the model and teaches session recall a false name. So before a JSON document is
//! rewritten, [`thing_objects`] finds the objects typed as things (one extra pass, only for
//! documents that hold a type-like key); their display-name members, and the same names held
//! whole elsewhere in the document (a relation's `to`), are judged as an organisation's name
//! would be.

use std::collections::HashSet;
use std::ops::Range;

use super::json;

/// Keys whose value types the object they are in.
const TYPE_KEYS: &[&str] = &[
    "type",
    "entitytype",
    "objecttype",
    "nodetype",
    "@type",
    "kind",
    "category",
    "recordtype",
];

/// Type values that name no person.
const THING_TYPES: &[&str] = &[
    "organization",
    "organisation",
    "org",
    "company",
    "corporation",
    "business",
    "account",
    "employer",
    "institution",
    "school",
    "university",
    "agency",
    "team",
    "department",
    "group",
    "place",
    "location",
    "city",
    "country",
    "address",
    "product",
    "project",
    "service",
    "tool",
    "repository",
    "event",
    "concept",
    "topic",
    "technology",
    "brand",
    "vendor",
    "supplier",
];

/// Keys that give a record's display name.
const NAME_KEYS: &[&str] = &["name", "title", "label", "displayname", "fullname"];

/// Whether `doc` may hold a type member that types its object as a thing (a cheap test
/// before [`thing_objects`]): a member whose key may be a type key and whose value is a
/// thing's type.
///
/// Both are read at the member's `:`. Keys are folded (`"Kind"`, `"ENTITY_TYPE"` and
/// `"entity-type"` are type keys), so a search for a type key's bytes would have to try each
/// spelling; its last two letters, folded, are read back from the `:` instead. Every MCP
/// content item is typed (`"type": "text"`), so a type key alone would send each of them
/// through a second full pass: the value decides. (The walk asks [`might_have_types_known`],
/// which passes over the string bodies it is told of, and asks this when told of none.)
pub(super) fn might_have_types(doc: &str) -> bool {
    has_thing_value(doc.as_bytes())
}

/// The last two letters of each of [`TYPE_KEYS`].
const TYPE_KEY_ENDS: [[u8; 2]; TYPE_KEYS.len()] = {
    let mut ends = [[0u8; 2]; TYPE_KEYS.len()];
    let mut k = 0;
    while k < TYPE_KEYS.len() {
        let t = TYPE_KEYS[k].as_bytes();
        ends[k] = [t[t.len() - 2], t[t.len() - 1]];
        k += 1;
    }
    ends
};

/// Whether the `:` at `colon` may follow a type key: a string literal's closing quote (after
/// white space) whose last two letters, past the bytes `detect::fold_key` drops and folded to
/// lower case, are the end of one of [`TYPE_KEYS`] (`pe`, `nd`, `ry`). Every key that folds to
/// a type key has them (a key written with escapes is read as written, as it was by the byte
/// search this replaced); most keys (`id`, `name`, `email`) are turned away at once. Inlined
/// into both loops over colons: a call per colon cost a sixth of the search.
#[inline(always)]
fn key_may_type(b: &[u8], colon: usize) -> bool {
    let mut i = colon;
    while i > 0 && matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r') {
        i -= 1;
    }
    if i == 0 || b[i - 1] != b'"' {
        return false;
    }
    i -= 1;
    let mut last = [0u8; 2];
    let mut n = 0;
    while n < 2 && i > 0 {
        i -= 1;
        if !matches!(b[i], b'_' | b'-' | b'.' | b' ') {
            last[1 - n] = b[i].to_ascii_lowercase();
            n += 1;
        }
    }
    n == 2 && TYPE_KEY_ENDS.contains(&last)
}

/// Whether some `:` follows what may be a type key ([`key_may_type`]) and is followed (after
/// white space) by a string literal without escapes that folds to one of [`THING_TYPES`]: what
/// every object [`thing_objects`] finds has, since a member's value comes right after its `:`.
///
/// The colons are taken from 64-byte masks: a tool result's text has one every line or so
/// (`Row 5:`, `10:33:34`, `a::b`), and a `memchr` call per colon cost more in its set-up than
/// in its search (a sixtieth of a 10 KB result's instructions went here).
fn has_thing_value(b: &[u8]) -> bool {
    let mut base = 0;
    while base < b.len() {
        let mut colons = crate::detect::lanes::eq64(b, base, b':');
        while colons != 0 {
            let colon = base + colons.trailing_zeros() as usize;
            colons &= colons - 1;
            if key_may_type(b, colon) && thing_value_after(b, colon) {
                return true;
            }
        }
        base += 64;
    }
    false
}

/// [`might_have_types`] of a JSON document of which `known` gives some string literals (byte
/// ranges from the opening quote to past the closing quote, in order: see
/// `json::for_each_value_known`), whose bodies are passed over: a tool result's text block
/// has a colon every line or so, and is most of the document.
///
/// A colon in a string body never makes a match in a JSON document: the bytes after it up to
/// the next quote are white space only if that quote is the body's closing quote (a quote in
/// a body is escaped, and the backslash before it is no white space), and what follows a
/// closing quote in JSON (white space, then `,`, `:`, `}` or `]`) is no thing's type. So the
/// answer is [`might_have_types`]'s.
pub(super) fn might_have_types_known(doc: &str, known: &[Range<usize>]) -> bool {
    if known.is_empty() {
        // Every colon: the one loop over the document, without the ends of segments.
        return might_have_types(doc);
    }
    let b = doc.as_bytes();
    let mut from = 0;
    for r in known {
        if has_thing_value_within(b, from, r.start) {
            return true;
        }
        from = from.max(r.end);
    }
    has_thing_value_within(b, from, b.len())
}

/// [`has_thing_value`] for the colons from `from` to `to` only (the bytes around them are read
/// as before).
fn has_thing_value_within(b: &[u8], from: usize, to: usize) -> bool {
    let to = to.min(b.len());
    let mut base = from;
    while base < to {
        let mut colons = crate::detect::lanes::eq64(b, base, b':');
        if to - base < 64 {
            colons &= (1u64 << (to - base)) - 1;
        }
        while colons != 0 {
            let colon = base + colons.trailing_zeros() as usize;
            colons &= colons - 1;
            if key_may_type(b, colon) && thing_value_after(b, colon) {
                return true;
            }
        }
        base += 64;
    }
    false
}

/// [`has_thing_value`] with `memchr` (its test oracle).
#[cfg(test)]
fn has_thing_value_memchr(b: &[u8]) -> bool {
    memchr::memchr_iter(b':', b).any(|colon| key_may_type(b, colon) && thing_value_after(b, colon))
}

/// The longest of [`THING_TYPES`].
const LONGEST_THING: usize = {
    let mut longest = 0;
    let mut k = 0;
    while k < THING_TYPES.len() {
        if THING_TYPES[k].len() > longest {
            longest = THING_TYPES[k].len();
        }
        k += 1;
    }
    longest
};

/// The opening quote of the string literal that follows the `:` at `colon` after white space,
/// if one does.
fn string_after(b: &[u8], colon: usize) -> Option<usize> {
    let mut i = colon + 1;
    while b
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    (b.get(i) == Some(&b'"')).then_some(i)
}

/// Which second letters follow each first letter in [`THING_TYPES`]: bit `b` of entry `a`
/// when some type starts with letters `a`, `b` (`0` for `a`). Every type has two letters.
const THING_STARTS: [u32; 26] = {
    let mut starts = [0u32; 26];
    let mut k = 0;
    while k < THING_TYPES.len() {
        let t = THING_TYPES[k].as_bytes();
        assert!(t.len() >= 2);
        starts[(t[0] - b'a') as usize] |= 1 << (t[1] - b'a');
        k += 1;
    }
    starts
};

/// Whether the `:` at `colon` is followed (after white space) by a string literal without
/// escapes that folds to one of [`THING_TYPES`] (folded as keys are, `detect::fold_key`).
///
/// The value is folded as it is read, and turned away at the first byte that cannot be part
/// of a match: the types are lower-case ASCII letters, so a byte that folds to none (a digit,
/// a comma, a backslash, a byte of UTF-8 past ASCII), a letter past [`LONGEST_THING`] or a
/// first letter or two no type starts with ([`THING_STARTS`]) end it. Most values end at their first
/// bytes (`"+1-519…"`, `"d23f0824-…"`, `"Maria Garcia"` at `ma`): a JSON document has a colon
/// per member. `thing_value_after_folded` in the tests is the same test by `fold_key`.
fn thing_value_after(b: &[u8], colon: usize) -> bool {
    let Some(i) = string_after(b, colon) else {
        return false;
    };
    let mut folded = [0u8; LONGEST_THING];
    let mut n = 0;
    for &c in &b[i + 1..] {
        match c {
            b'"' => return THING_TYPES.iter().any(|t| t.as_bytes() == &folded[..n]),
            // What `fold_key` drops.
            b'_' | b'-' | b'.' | b' ' => {}
            c if c.is_ascii_alphabetic() && n < LONGEST_THING => {
                let c = c.to_ascii_lowercase();
                let starts = match n {
                    0 => THING_STARTS[usize::from(c - b'a')],
                    1 => THING_STARTS[usize::from(folded[0] - b'a')] >> (c - b'a'),
                    _ => 1,
                };
                if starts == 0 || (n == 1 && starts & 1 == 0) {
                    return false;
                }
                folded[n] = c;
                n += 1;
            }
            _ => return false,
        }
    }
    false
}

/// The objects of `doc` typed as things, and their display names.
#[derive(Debug, Default)]
pub(super) struct Things {
    /// The `{` offsets of the objects typed as things.
    objects: HashSet<usize>,
    /// Their display names (unescaped literals only), which mean the same thing wherever else
    /// the document holds them whole: a relation's `"to": "Acme Corp"`.
    names: HashSet<String>,
}

impl Things {
    /// Whether nothing in the document was typed as a thing.
    pub(super) fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Whether the string `value` under `key`, a member of the object opened at `object`,
    /// names a thing: a display name in an object typed as one, or one of those names again.
    pub(super) fn names(&self, key: Option<&str>, object: Option<usize>, value: &str) -> bool {
        (key.is_some_and(is_name_key) && object.is_some_and(|o| self.objects.contains(&o)))
            || self.names.contains(value)
    }
}

/// The objects of `doc` typed as things; empty when `doc` is no JSON.
pub(super) fn thing_objects(doc: &str) -> Things {
    let mut objects = HashSet::new();
    let mut named: Vec<(usize, &str)> = Vec::new();
    let _ = json::for_each_value(doc, |lit, pos| {
        let json::Literal::Str(lit) = lit else { return };
        if lit.is_key || lit.escaped {
            return;
        }
        let (Some(key), Some(start)) = (pos.key(), pos.object_start()) else {
            return;
        };
        if folded_in(key, TYPE_KEYS) && folded_in(lit.raw(doc), THING_TYPES) {
            objects.insert(start);
        } else if is_name_key(key) {
            named.push((start, lit.raw(doc)));
        }
    });
    let names = named
        .into_iter()
        .filter(|(start, _)| objects.contains(start))
        .map(|(_, name)| name.to_string())
        .collect();
    Things { objects, names }
}

/// Whether `key` is a display-name key of a record.
fn is_name_key(key: &str) -> bool {
    folded_in(key, NAME_KEYS)
}

/// Whether `text`, folded as keys are (`detect::fold_key`), is one of `list`.
fn folded_in(text: &str, list: &[&str]) -> bool {
    let mut buf = [0u8; 40];
    crate::detect::fold_key(text, &mut buf)
        .and_then(|n| std::str::from_utf8(&buf[..n]).ok())
        .is_some_and(|f| list.contains(&f))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`thing_value_after`] by [`folded_in`] (`detect::fold_key`), as first written: its oracle.
    fn thing_value_after_folded(b: &[u8], colon: usize) -> bool {
        let Some(i) = string_after(b, colon) else {
            return false;
        };
        let body = &b[i + 1..];
        let Some(close) = memchr::memchr2(b'"', b'\\', body) else {
            return false;
        };
        body[close] == b'"'
            && std::str::from_utf8(&body[..close]).is_ok_and(|v| folded_in(v, THING_TYPES))
    }

    #[test]
    fn finds_objects_typed_as_things_whatever_the_member_order() {
        let doc = r#"{"entities":[{"name":"Acme Corp","entityType":"organization"},{"type":"person","name":"Maria Garcia"},{"entityType":"Company","name":"Initech"}]}"#;
        let things = thing_objects(doc);
        let acme = doc.find("{\"name\":\"Acme").unwrap();
        let initech = doc.find("{\"entityType\":\"Company").unwrap();
        let maria = doc.find("{\"type\":\"person").unwrap();
        assert!(things.names(Some("name"), Some(acme), "Acme Corp"));
        assert!(things.names(Some("name"), Some(initech), "Initech"));
        assert!(!things.names(Some("name"), Some(maria), "Maria Garcia"));
        assert!(
            things.names(Some("to"), None, "Acme Corp"),
            "the same name elsewhere"
        );
        assert!(might_have_types(doc));
        assert!(!might_have_types(r#"{"name":"Maria Garcia"}"#));
        assert!(!might_have_types(
            r#"{"content":[{"type":"text","text":"Maria Garcia: \"org\""}]}"#
        ));
        assert!(might_have_types(
            r#"{"type" :
            "Org-anization"}"#
        ));
    }

    /// The test in front never turns away a document [`thing_objects`] finds a thing in.
    #[test]
    fn the_prefilter_turns_away_no_typed_thing() {
        let keys = [
            "type",
            "entityType",
            "Type",
            "TYPE",
            "ENTITY_TYPE",
            "entity-type",
            "@type",
            "kind",
            "Kind",
            "KIND",
            "category",
            "Category",
            "type_",
            "Record-Type",
            "nodeTYPE",
            "ki_nd",
            "name",
            "to",
            "e",
            "_",
        ];
        let values = [
            "organization",
            "Org",
            "o-r-g",
            "ORGANISATION",
            "person",
            "text",
            "a\\\"b",
            "",
            "  company",
            "team ",
            "Acme Corp",
            "x:y",
        ];
        let gaps = ["", " ", "\n\t", "\r "];
        let mut rng = crate::testdata::Rng::new(57);
        let mut found = 0;
        for _ in 0..20_000 {
            let mut doc = String::from("{\"items\":[");
            for o in 0..1 + rng.below(3) {
                if o > 0 {
                    doc.push(',');
                }
                doc.push('{');
                for m in 0..1 + rng.below(3) {
                    if m > 0 {
                        doc.push(',');
                    }
                    let gap = gaps[rng.below(gaps.len())];
                    let key = keys[rng.below(keys.len())];
                    let value = values[rng.below(values.len())];
                    doc.push_str(&format!("\"{key}\"{gap}:{gap}\"{value}\""));
                }
                doc.push('}');
            }
            doc.push_str("]}");
            let things = thing_objects(&doc);
            if !things.is_empty() {
                found += 1;
                assert!(might_have_types(&doc), "{doc}");
            }
        }
        assert!(found > 1_000, "{found}");
    }

    /// Type keys in any case and with any of the separators keys fold away type their
    /// object: the prefilter lets them through, and the record's name is no person's.
    #[test]
    fn type_keys_are_folded_like_every_key() {
        let detector = crate::detect::Detector::with_defaults();
        let names = |doc: &str| {
            let none: &dyn Fn(&json::Position<'_>) -> bool = &|_| false;
            let found = crate::walk::scan_json_except(&detector, None, doc, none).unwrap();
            found
                .found_iter()
                .filter(|f| *f.kind == crate::detect::Kind::Name)
                .count()
        };
        for key in [
            "Kind",
            "KIND",
            "TYPE",
            "Entity_Type",
            "CATEGORY",
            "record type",
        ] {
            let doc = format!(r#"{{"name":"Maria Garcia","{key}":"Organization"}}"#);
            assert!(might_have_types(&doc), "{doc}");
            assert!(!thing_objects(&doc).is_empty(), "{doc}");
            assert_eq!(names(&doc), 0, "{doc}");
            let person = format!(r#"{{"name":"Maria Garcia","{key}":"person"}}"#);
            assert_eq!(names(&person), 1, "{person}");
        }
    }

    /// A value folded as it is read is a thing's type exactly when `fold_key` folds it to one,
    /// on values of letters in both cases, separators, digits, escapes, UTF-8 and lengths
    /// around the longest type; and the types are what that reading assumes.
    #[test]
    fn values_folded_as_read_are_fold_keys() {
        assert!(
            THING_TYPES
                .iter()
                .all(|t| !t.is_empty() && t.bytes().all(|c| c.is_ascii_lowercase()))
        );
        let pieces = [
            "org", "ORG", "an", "iza", "tion", "ISATION", "_", "-", ".", " ", "\\\"", "\\", "7",
            "\u{e9}", ",", "team", "Company", "x", ":", "\t", "o", "R", "c", "t", "E", "g",
        ];
        let mut rng = crate::testdata::Rng::new(23);
        let mut yes = 0;
        for _ in 0..60_000 {
            let mut text = String::from(if rng.below(4) == 0 { ": \"" } else { ":\"" });
            for _ in 0..rng.below(9) {
                text.push_str(pieces[rng.below(pieces.len())]);
            }
            if rng.below(8) != 0 {
                text.push('"');
            }
            let b = text.as_bytes();
            let want = thing_value_after_folded(b, 0);
            assert_eq!(thing_value_after(b, 0), want, "{text:?}");
            yes += usize::from(want);
        }
        assert!(yes > 500, "{yes}");
    }

    /// The colons from masks are `memchr`'s: the same answer on texts of colons, literals and
    /// white space at every offset around the 64-byte blocks.
    #[test]
    fn colons_from_masks_answer_as_memchr() {
        let pieces = [
            ":",
            "::",
            ": ",
            ":\n\t",
            "\"",
            "\"person\"",
            "\"text\"",
            "\"Org-anization\"",
            "\\\"",
            "abc",
            "Row 5",
            " ",
            "\u{e9}",
            "\"team ",
            "\"type\"",
            "\"KIND\" ",
            "\"entity_Type\"",
            "\"kind\"\n",
        ];
        let mut rng = crate::testdata::Rng::new(91);
        let mut yes = 0;
        for _ in 0..30_000 {
            let mut text = "x".repeat(rng.below(70));
            for _ in 0..rng.below(12) {
                text.push_str(pieces[rng.below(pieces.len())]);
            }
            let want = has_thing_value_memchr(text.as_bytes());
            assert_eq!(has_thing_value(text.as_bytes()), want, "{text:?}");
            let b = text.as_bytes();
            assert_eq!(has_thing_value_within(b, 0, b.len()), want, "{text:?}");
            yes += usize::from(want);
        }
        assert!(yes > 200, "{yes}");
    }

    proptest::proptest! {
        /// Passing over the bodies of some string literals of a JSON document (text blocks
        /// that hold typed records, colons, quotes) changes no answer.
        #[test]
        fn known_bodies_change_no_answer(
            values in proptest::collection::vec(
                proptest::sample::select(vec![
                    "person", "Org-anization", "text", "a: b", "x:", "\"kind\": \"team\"",
                    "{\"type\": \"person\", \"name\": \"A\"}", " :  ", "tool ",
                ]),
                0..8,
            ),
            keys in proptest::collection::vec(
                proptest::sample::select(vec!["type", "KIND", "name", "x:", "entity_type"]),
                8,
            ),
            keep in proptest::collection::vec(proptest::bool::ANY, 24),
            pretty in proptest::bool::ANY,
        ) {
            let mut object = serde_json::Map::new();
            for (k, v) in keys.iter().zip(&values) {
                object.insert((*k).to_string(), serde_json::Value::from(*v));
            }
            let value = serde_json::json!({ "content": [object], "text": values.concat() });
            let doc = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                serde_json::to_string(&value).unwrap()
            };
            let mut known = Vec::new();
            json::for_each_string(&doc, |lit, _| known.push(lit.start..lit.end)).unwrap();
            let known: Vec<_> = known
                .into_iter()
                .zip(keep.iter().cycle())
                .filter_map(|(r, k)| k.then_some(r))
                .collect();
            proptest::prop_assert_eq!(
                might_have_types_known(&doc, &known),
                might_have_types(&doc),
                "{}", doc
            );
        }
    }
}
