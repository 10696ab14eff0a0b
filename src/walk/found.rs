//! The values a scan found, their texts one after another in one buffer.
//!
//! A scan of a large tool result finds tens of thousands of values, most of them a few bytes
//! (a name, a phone number, an e-mail address). Each was a `String` of its own: an allocation
//! as it was found and a free as it was dropped (about 30,000 of each for a 2 MB contact list).
//! Here a value is a range into the buffer of its scan (which grows by doubling: a few dozen
//! allocations, however many values), and each word of a composed name is a range within the
//! name's.
//!
//! Reading a value slices the buffer, so the engine's passes over the slots read the kind first
//! and the text only of the slots they want ([`Findings::value_of`]).
//!
//! The buffer is [`Sensitive`], and a value's text is only read as a [`Sensitive`] `&str`
//! ([`Found::value`]), so neither the buffer nor a value's text ever prints; nor does a
//! canonical form (a phone's E.164 form), which `Debug` shows only as present or not.

use std::ops::Range;
use std::sync::Arc;

use super::Findings;
use crate::detect::{Kind, redacted};
use crate::sensitive::Sensitive;

/// A value found inbound: a slot of [`super::scan_json`] / [`super::scan_text`] findings. Its
/// text is in the buffer of the findings (read it with [`Findings::found`]) or of the
/// [`FoundValues`] it was handed on in.
#[derive(Clone)]
pub struct FoundValue {
    /// Its kind.
    pub kind: Kind,
    /// Where its text is in the buffer.
    text: Range<usize>,
    /// The recognizer's canonical form (a phone's E.164), if any.
    pub canonical: Option<Arc<str>>,
}

impl FoundValue {
    /// A value of `kind` whose text `text` is appended to `buf`. (Inlined into
    /// `ValueScanner::push_found`, which a text document's one call runs tens of thousands
    /// of times.)
    #[inline(always)]
    pub(crate) fn push(
        buf: &mut Sensitive<String>,
        kind: Kind,
        text: &str,
        canonical: Option<Arc<str>>,
    ) -> FoundValue {
        let buf = buf.expose_mut();
        let start = buf.len();
        buf.push_str(text);
        FoundValue {
            kind,
            text: start..buf.len(),
            canonical,
        }
    }

    /// The part `part` of its text (byte offsets within it; on character boundaries), as a
    /// value of the same kind with no canonical form: a word of a name.
    pub(crate) fn part(&self, part: Range<usize>) -> FoundValue {
        FoundValue {
            kind: self.kind.clone(),
            text: self.text.start + part.start..self.text.start + part.end,
            canonical: None,
        }
    }

    /// The length of its text in bytes.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether its text is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Where its text starts in the buffer.
    pub(super) fn text_start(&self) -> usize {
        self.text.start
    }

    /// It, read from the buffer `buf` it is in.
    #[inline]
    pub(super) fn read<'a>(&'a self, buf: &'a Sensitive<String>) -> Found<'a> {
        Found {
            kind: &self.kind,
            value: Sensitive::new(&buf.expose()[self.text.clone()]),
            canonical: self.canonical.as_deref(),
        }
    }
}

/// A found value, read: its kind, its text and its canonical form.
#[derive(Clone, Copy)]
pub struct Found<'a> {
    /// Its kind.
    pub kind: &'a Kind,
    /// The text as found.
    pub value: Sensitive<&'a str>,
    /// The recognizer's canonical form (a phone's E.164), if any.
    pub canonical: Option<&'a str>,
}

/// The values a document's tokenization replaced, in order (`Tokenized::found`).
#[derive(Debug, Default, Clone)]
pub struct FoundValues {
    /// Their texts, one after another (and possibly texts no value points at any more).
    buf: Sensitive<String>,
    slots: Vec<FoundValue>,
}

impl FoundValues {
    /// None yet.
    pub fn new() -> FoundValues {
        FoundValues::default()
    }

    /// Values `slots` whose texts are in `buf`.
    pub(crate) fn from_parts(buf: Sensitive<String>, slots: Vec<FoundValue>) -> FoundValues {
        FoundValues { buf, slots }
    }

    /// Adds a value.
    pub fn push(&mut self, kind: Kind, value: &str, canonical: Option<Arc<str>>) {
        let slot = FoundValue::push(&mut self.buf, kind, value, canonical);
        self.slots.push(slot);
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The `i`th, if there is one.
    pub fn get(&self, i: usize) -> Option<Found<'_>> {
        self.slots.get(i).map(|s| s.read(&self.buf))
    }

    /// Each, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Found<'_>> + Clone + '_ {
        self.slots.iter().map(|s| s.read(&self.buf))
    }
}

impl Findings<FoundValue> {
    /// The value of slot `slot`. Panics if there is no such slot.
    pub fn found(&self, slot: usize) -> Found<'_> {
        self.slots[slot].read(&self.values)
    }

    /// The text of `slot`, one of its slots (read only the slots wanted: a kind is read
    /// without it).
    #[inline]
    pub fn value_of<'a>(&'a self, slot: &FoundValue) -> Sensitive<&'a str> {
        Sensitive::new(&self.values.expose()[slot.text.clone()])
    }

    /// The value of each slot, in order.
    pub fn found_iter(&self) -> impl ExactSizeIterator<Item = Found<'_>> + Clone + '_ {
        self.slots.iter().map(|s| s.read(&self.values))
    }

    /// Its slots, and the buffer their texts are in.
    pub(crate) fn into_values(self) -> (Sensitive<String>, Vec<FoundValue>) {
        (self.values, self.slots)
    }
}

impl std::fmt::Debug for FoundValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FoundValue")
            .field("kind", &self.kind)
            .field("text", &self.text)
            .field("canonical", &redacted(self.canonical.is_some()))
            .finish()
    }
}

impl std::fmt::Debug for Found<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Found")
            .field("kind", self.kind)
            .field("value", &self.value)
            .field("canonical", &redacted(self.canonical.is_some()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::Span;

    #[test]
    fn debug_shows_no_value_and_no_canonical_form() {
        let e164: Arc<str> = Arc::from("+14155550132");
        let mut found = FoundValues::new();
        found.push(Kind::Phone, "(415) 555-0132", Some(e164.clone()));
        let span = Span {
            canonical: Some(e164),
            ..Span::new(0, 14, Kind::Phone)
        };
        let shown = [
            format!("{found:?}"),
            format!("{:?}", found.get(0)),
            format!("{:?}", found.slots),
            format!("{span:?}"),
        ];
        for s in shown {
            assert!(!s.contains("555"), "{s}");
            assert!(s.contains("canonical: Some("), "{s}");
        }
    }
}
