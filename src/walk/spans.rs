//! The spans found in one string and their slots ([`SpanSlots`]).
//!
//! A scan keeps, for each string where something was found, where each found value is and
//! which slot it fills. Most strings hold one value (a name, an email address, a phone
//! number): that one is kept inline, so a string's finding costs no allocation of its own (a
//! 2 MB tool result has tens of thousands of them). A string with more keeps a vector.

use std::ops::{Deref, DerefMut, Range};

/// A span of a string and its slot.
pub(super) type SpanSlot = (Range<usize>, usize);

/// The spans of a string and their slots, in text order; a slice to read.
#[derive(Clone)]
pub(super) enum SpanSlots {
    /// One span, inline.
    One([SpanSlot; 1]),
    /// Any number of them.
    Many(Vec<SpanSlot>),
}

/// As the list it is, however it is held (one inline or a vector read the same).
impl std::fmt::Debug for SpanSlots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Default for SpanSlots {
    fn default() -> Self {
        SpanSlots::Many(Vec::new())
    }
}

impl From<Vec<SpanSlot>> for SpanSlots {
    fn from(v: Vec<SpanSlot>) -> Self {
        SpanSlots::Many(v)
    }
}

impl FromIterator<SpanSlot> for SpanSlots {
    fn from_iter<I: IntoIterator<Item = SpanSlot>>(iter: I) -> Self {
        let mut iter = iter.into_iter();
        let Some(first) = iter.next() else {
            return SpanSlots::default();
        };
        match iter.next() {
            None => SpanSlots::One([first]),
            Some(second) => {
                let mut many = Vec::with_capacity(iter.size_hint().0.saturating_add(2));
                many.push(first);
                many.push(second);
                many.extend(iter);
                SpanSlots::Many(many)
            }
        }
    }
}

impl Deref for SpanSlots {
    type Target = [SpanSlot];

    fn deref(&self) -> &[SpanSlot] {
        match self {
            SpanSlots::One(one) => one,
            SpanSlots::Many(many) => many,
        }
    }
}

impl DerefMut for SpanSlots {
    fn deref_mut(&mut self) -> &mut [SpanSlot] {
        match self {
            SpanSlots::One(one) => one,
            SpanSlots::Many(many) => many,
        }
    }
}

impl IntoIterator for SpanSlots {
    type Item = SpanSlot;
    type IntoIter = std::iter::Chain<std::option::IntoIter<SpanSlot>, std::vec::IntoIter<SpanSlot>>;

    fn into_iter(self) -> Self::IntoIter {
        match self {
            // An empty vector holds no allocation.
            SpanSlots::One([one]) => Some(one).into_iter().chain(Vec::new()),
            SpanSlots::Many(many) => None.into_iter().chain(many),
        }
    }
}

impl<'a> IntoIterator for &'a SpanSlots {
    type Item = &'a SpanSlot;
    type IntoIter = std::slice::Iter<'a, SpanSlot>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut SpanSlots {
    type Item = &'a mut SpanSlot;
    type IntoIter = std::slice::IterMut<'a, SpanSlot>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_and_many_read_and_iterate_alike() {
        let one = SpanSlots::One([(2..5, 7)]);
        let many = SpanSlots::from(vec![(2..5, 7)]);
        assert_eq!(&*one, &*many);
        assert_eq!(format!("{one:?}"), format!("{many:?}"));
        assert_eq!(one.clone().into_iter().collect::<Vec<_>>(), vec![(2..5, 7)]);
        assert_eq!(many.into_iter().collect::<Vec<_>>(), vec![(2..5, 7)]);
        let two = SpanSlots::from(vec![(0..1, 0), (3..4, 1)]);
        assert_eq!(two.into_iter().count(), 2);
        assert!(SpanSlots::default().is_empty());
        let collected: SpanSlots = [(1..2, 0)].into_iter().collect();
        assert!(matches!(collected, SpanSlots::One(_)));
        let collected: SpanSlots = [(1..2, 0), (4..6, 1), (7..9, 2)].into_iter().collect();
        assert_eq!(collected.len(), 3);
        assert!(std::iter::empty().collect::<SpanSlots>().is_empty());
    }
}
