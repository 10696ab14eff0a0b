//! Kinds defined in YAML: a regex, an optional checksum, optional context words and JSON keys.
//!
//! ```yaml
//! detect:
//!   custom:
//!     - kind: EMPLOYEE_ID
//!       pattern: 'EMP-\d{6}'
//!       validator: luhn          # optional: luhn | mod97
//!       context: [employee, staff]   # optional: one of these words within 40 bytes before
//!       json_keys: [employee_id]     # optional: values under these keys need no context word
//! ```
//!
//! Patterns compile once with a size limit (untrusted configuration must not exhaust memory).

use regex::Regex;
use serde::Deserialize;

use super::checksum::{luhn_valid, mod97_valid};
use super::{DetectError, FindContext, Kind, Recognizer, Span};

/// How far before a match a context word may stand, in bytes.
const CONTEXT_WINDOW: usize = 40;

/// One custom kind, as written in the configuration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CustomKind {
    /// The token kind name (`EMPLOYEE_ID`).
    pub kind: String,
    /// The regex a value matches.
    pub pattern: String,
    /// A checksum every match must pass.
    #[serde(default)]
    pub validator: Option<Validator>,
    /// Words (case-insensitive) one of which must precede a match in free text.
    #[serde(default)]
    pub context: Vec<String>,
    /// JSON keys / CSV columns whose values are matched without a context word.
    #[serde(default)]
    pub json_keys: Vec<String>,
}

/// A checksum for custom kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Validator {
    /// The Luhn check digit (payment cards, many ID numbers).
    Luhn,
    /// ISO 7064 mod 97-10 (IBANs and others).
    Mod97,
}

#[derive(Debug)]
pub(super) struct CustomRecognizer {
    kind: Kind,
    regex: Regex,
    validator: Option<Validator>,
    context: Vec<String>,
    json_keys: Vec<String>,
}

impl CustomRecognizer {
    pub(super) fn new(def: &CustomKind) -> Result<Self, DetectError> {
        let regex = regex::RegexBuilder::new(&def.pattern)
            .size_limit(1 << 20)
            .dfa_size_limit(1 << 21)
            .build()
            .map_err(|e| DetectError::InvalidPattern {
                kind: def.kind.clone(),
                message: e.to_string(),
            })?;
        Ok(CustomRecognizer {
            kind: Kind::Custom(def.kind.as_str().into()),
            regex,
            validator: def.validator,
            context: def.context.iter().map(|w| w.to_lowercase()).collect(),
            json_keys: def.json_keys.clone(),
        })
    }

    fn has_context(&self, text: &str, start: usize, cx: &FindContext<'_>) -> bool {
        if self.context.is_empty() {
            return true;
        }
        if let Some(key) = cx.key
            && self.json_keys.iter().any(|k| k.eq_ignore_ascii_case(key))
        {
            return true;
        }
        let mut from = start.saturating_sub(CONTEXT_WINDOW);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        let window = text[from..start].to_lowercase();
        self.context.iter().any(|w| window.contains(w.as_str()))
    }
}

impl Recognizer for CustomRecognizer {
    fn find(&self, text: &str, cx: &FindContext<'_>, out: &mut Vec<Span>) {
        for m in self.regex.find_iter(text) {
            if m.is_empty() {
                continue;
            }
            let valid = match self.validator {
                None => true,
                Some(Validator::Luhn) => luhn_valid(m.as_str()),
                Some(Validator::Mod97) => mod97_valid(m.as_str()),
            };
            if valid && self.has_context(text, m.start(), cx) {
                out.push(Span::new(m.start(), m.end(), self.kind.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(pattern: &str) -> CustomKind {
        CustomKind {
            kind: "EMPLOYEE_ID".into(),
            pattern: pattern.into(),
            validator: None,
            context: vec![],
            json_keys: vec![],
        }
    }

    #[test]
    fn matches_with_context_or_key() {
        let mut d = def(r"EMP-\d{6}");
        d.context = vec!["employee".into()];
        d.json_keys = vec!["staff_id".into()];
        let r = CustomRecognizer::new(&d).unwrap();
        let mut out = vec![];
        r.find(
            "Employee EMP-123456, and later in a long unrelated sentence EMP-654321",
            &FindContext::default(),
            &mut out,
        );
        assert_eq!(out.len(), 1);
        out.clear();
        r.find("EMP-123456", &FindContext::with_key("STAFF_ID"), &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn validator_filters() {
        let mut d = def(r"\d{16}");
        d.validator = Some(Validator::Luhn);
        let r = CustomRecognizer::new(&d).unwrap();
        let mut out = vec![];
        r.find(
            "4111111111111111 4111111111111112",
            &FindContext::default(),
            &mut out,
        );
        assert_eq!(out, vec![Span::new(0, 16, r.kind.clone())]);
    }

    #[test]
    fn bad_pattern_is_a_clear_error() {
        let err = CustomRecognizer::new(&def("(")).unwrap_err();
        assert!(err.to_string().contains("EMPLOYEE_ID"));
    }
}
