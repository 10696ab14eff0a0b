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
/// before [`thing_objects`]): a type-like key, and a member value that is a thing's type.
///
/// The second test matters for MCP results: every content item is typed (`"type": "text"`),
/// so the first alone sent each of them through a second full pass.
pub(super) fn might_have_types(doc: &str) -> bool {
    let b = doc.as_bytes();
    (memchr::memmem::find(b, b"ype\"").is_some()
        || memchr::memmem::find(b, b"\"kind\"").is_some()
        || memchr::memmem::find(b, b"\"category\"").is_some())
        && has_thing_value(b)
}

/// Whether some `:` is followed (after white space) by a string literal without escapes that
/// folds to one of [`THING_TYPES`]: what every object [`thing_objects`] finds has, since a
/// member's value comes right after its `:`.
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
            if thing_value_after(b, colon) {
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
    memchr::memchr_iter(b':', b).any(|colon| thing_value_after(b, colon))
}

/// Whether the `:` at `colon` is followed (after white space) by a string literal without
/// escapes that folds to one of [`THING_TYPES`].
fn thing_value_after(b: &[u8], colon: usize) -> bool {
    let mut i = colon + 1;
    while b
        .get(i)
        .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    {
        i += 1;
    }
    if b.get(i) != Some(&b'"') {
        return false;
    }
    let body = &b[i + 1..];
    let Some(close) = memchr::memchr2(b'"', b'\\', body) else {
        return false;
    };
    body[close] == b'"'
        && std::str::from_utf8(&body[..close]).is_ok_and(|v| folded_in(v, THING_TYPES))
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
            "@type",
            "kind",
            "category",
            "name",
            "to",
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
            yes += usize::from(want);
        }
        assert!(yes > 1_000, "{yes}");
    }
}
