//! Where a key or value sits in a configuration file, for errors found after parsing.
//!
//! Serde errors carry a location, but a semantic check (an unknown phone region, two servers
//! that normalise to one name) runs on the typed [`Config`](super::Config), which has none. So
//! the file is parsed a second time, only when a check failed, into a tree of nodes that each
//! know their line and column, and the check names the offending node by its path
//! (`detect.phone_regions[2]`). Sections added later need nothing here: a check names a path.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{Location, Spanned};

/// One step of a path into the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// A mapping key.
    Key(String),
    /// A sequence index (0-based).
    Index(usize),
}

impl From<&str> for Step {
    fn from(k: &str) -> Step {
        Step::Key(k.to_string())
    }
}

impl From<String> for Step {
    fn from(k: String) -> Step {
        Step::Key(k)
    }
}

impl From<usize> for Step {
    fn from(i: usize) -> Step {
        Step::Index(i)
    }
}

/// A path such as `detect.phone_regions[2]`, built with [`path!`](crate::config_path).
pub type Path = Vec<Step>;

/// Renders a path the way the documentation spells keys (`servers.fs.url`, `detect.custom[0]`).
pub fn render(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A parsed YAML node with its location.
#[derive(Debug)]
pub struct Node {
    at: Location,
    body: Body,
}

#[derive(Debug)]
enum Body {
    Map(Vec<(Spanned<Key>, Node)>),
    Seq(Vec<Node>),
    Scalar,
}

impl Node {
    /// Parses `text`; `None` when it does not parse (the typed parse reported that already).
    pub fn parse(text: &str) -> Option<Node> {
        serde_saphyr::from_str::<Node>(text).ok()
    }

    /// The 1-based line and column of the node at `path`: of the value when it exists, else of
    /// the deepest key or node on the way (a missing key is reported where its section is).
    pub fn locate(&self, path: &[Step]) -> (u64, u64) {
        let mut node = self;
        let mut best = self.at;
        for step in path {
            let next = match (&node.body, step) {
                (Body::Map(entries), Step::Key(k)) => entries
                    .iter()
                    .find(|(key, _)| key.value.0 == *k)
                    .map(|(key, value)| (key.referenced, value)),
                (Body::Seq(items), Step::Index(i)) => items.get(*i).map(|n| (n.at, n)),
                _ => None,
            };
            let Some((key_at, value)) = next else { break };
            // A block mapping or sequence value starts on the next line: point at its key.
            best = match value.body {
                Body::Scalar => value.at,
                _ => key_at,
            };
            node = value;
        }
        if best == Location::UNKNOWN {
            (0, 0)
        } else {
            (best.line(), best.column())
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Node, D::Error> {
        let s = Spanned::<Body>::deserialize(d)?;
        Ok(Node {
            at: s.referenced,
            body: s.value,
        })
    }
}

impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Body, D::Error> {
        d.deserialize_any(BodyVisitor)
    }
}

struct BodyVisitor;

macro_rules! scalar {
    ($($name:ident: $t:ty),*) => {
        $(fn $name<E: de::Error>(self, _: $t) -> Result<Body, E> {
            Ok(Body::Scalar)
        })*
    };
}

impl<'de> Visitor<'de> for BodyVisitor {
    type Value = Body;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML node")
    }

    scalar!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str,
        visit_i128: i128, visit_u128: u128, visit_bytes: &[u8]);

    fn visit_unit<E: de::Error>(self) -> Result<Body, E> {
        Ok(Body::Scalar)
    }

    fn visit_none<E: de::Error>(self) -> Result<Body, E> {
        Ok(Body::Scalar)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Body, D::Error> {
        Body::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Body, A::Error> {
        let mut items = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            items.push(n);
        }
        Ok(Body::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Body, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Key>>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key, value));
        }
        Ok(Body::Map(entries))
    }
}

/// A mapping key as text (a scalar of any type; other keys are empty).
#[derive(Debug)]
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
                Ok(Key(String::new()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Key, A::Error> {
                while seq.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(Key(String::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Key, A::Error> {
                while map
                    .next_entry::<de::IgnoredAny, de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Key(String::new()))
            }
        }
        d.deserialize_any(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(steps: &[Step]) -> Vec<Step> {
        steps.to_vec()
    }

    #[test]
    fn locates_values_keys_and_items() {
        let text = "detect:\n  phone_regions: [US, XX]\n  custom:\n    - kind: email\n      pattern: 'a'\nservers:\n  fs:\n    command: node\n";
        let n = Node::parse(text).unwrap();
        assert_eq!(
            n.locate(&p(&["detect".into(), "phone_regions".into(), 1.into()])),
            (2, 23)
        );
        assert_eq!(
            n.locate(&p(&[
                "detect".into(),
                "custom".into(),
                0.into(),
                "kind".into()
            ])),
            (4, 13)
        );
        assert_eq!(n.locate(&p(&["servers".into(), "fs".into()])), (7, 3));
        // A missing key: the deepest node found on the way.
        assert_eq!(
            n.locate(&p(&["servers".into(), "fs".into(), "url".into()])),
            (7, 3)
        );
        assert_eq!(
            render(&p(&[
                "detect".into(),
                "custom".into(),
                0.into(),
                "kind".into()
            ])),
            "detect.custom[0].kind"
        );
    }
}
