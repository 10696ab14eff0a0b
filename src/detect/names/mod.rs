//! Person names in free text (placeholder until the name detector lands).

use crate::detect::{FindContext, Span};

/// Finds person names in free text and judges whole field values.
#[derive(Debug)]
pub struct NameFinder {
    allow: Vec<String>,
}

impl NameFinder {
    /// Builds the finder with names never to tokenize (`allow`) and always to tokenize (`deny`).
    pub fn new(allow: &[String], _deny: &[String]) -> NameFinder {
        NameFinder {
            allow: allow.iter().map(|a| a.to_lowercase()).collect(),
        }
    }

    /// Appends names found in `text`.
    pub fn find(&self, _text: &str, _cx: &FindContext<'_>, _out: &mut Vec<Span>) {}

    /// Whether `value` holds a word known as a given name or surname.
    pub fn has_known_name_word(&self, _value: &str) -> bool {
        false
    }

    /// Whether `value` is on the allow list (never tokenized).
    pub fn is_allowed(&self, value: &str) -> bool {
        let v = value.to_lowercase();
        self.allow.contains(&v)
    }
}
