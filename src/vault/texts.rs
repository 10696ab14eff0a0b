//! The texts of a session table's entries, one after another in a few large blocks.
//!
//! A message mints thousands of values, and an allocation of its own for each stored value
//! (with its match key) cost more than hashing it. The blocks never grow in place: a block is
//! filled up to the capacity it was made with, and a text that does not fit starts the next
//! one (twice as large as the last, up to [`MAX_BLOCK`]), so a stored text never moves and a
//! session with a few values keeps a small block. Each block is [`Sensitive`], as each text
//! was.

use std::ops::Range;

use crate::sensitive::Sensitive;

/// The capacity of a table's first block.
const FIRST_BLOCK: usize = 256;

/// The capacity blocks stop doubling at (a longer text gets a block of its own length).
const MAX_BLOCK: usize = 64 * 1024;

/// Where a text is: its block and its byte range in it.
#[derive(Clone, Debug)]
pub(super) struct At {
    block: usize,
    range: Range<usize>,
}

impl At {
    /// The first `len` bytes of the text.
    pub(super) fn prefix(&self, len: usize) -> At {
        At {
            block: self.block,
            range: self.range.start..self.range.start + len,
        }
    }

    /// The text after its first `len` bytes.
    pub(super) fn suffix(&self, len: usize) -> At {
        At {
            block: self.block,
            range: self.range.start + len..self.range.end,
        }
    }
}

/// A table's texts.
#[derive(Debug, Default)]
pub(super) struct Texts(Vec<Sensitive<String>>);

impl Texts {
    /// Appends `value` followed by `key` (empty for none) as one text; returns where it is.
    pub(super) fn push(&mut self, value: &str, key: &str) -> At {
        let need = value.len() + key.len();
        // The last block, if the text fits in what is left of it (a block never reallocates,
        // so the texts before stay where they are).
        let last = self.0.pop().map(Sensitive::into_inner);
        let mut block = match last {
            Some(b) if b.capacity() - b.len() >= need => b,
            last => {
                let cap = last.as_ref().map_or(FIRST_BLOCK, |b| {
                    b.capacity().saturating_mul(2).min(MAX_BLOCK)
                });
                if let Some(b) = last {
                    self.0.push(Sensitive::new(b));
                }
                String::with_capacity(cap.max(need))
            }
        };
        let start = block.len();
        block.push_str(value);
        block.push_str(key);
        let at = At {
            block: self.0.len(),
            range: start..block.len(),
        };
        self.0.push(Sensitive::new(block));
        at
    }

    /// The text at `at`.
    #[inline]
    pub(super) fn get(&self, at: &At) -> &str {
        &self.0[at.block].expose()[at.range.clone()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_stay_where_they_were_put() {
        let mut texts = Texts::default();
        let long = "x".repeat(MAX_BLOCK + 1);
        let values: Vec<String> = (0..5000)
            .map(|i| match i {
                1234 => long.clone(),
                _ => format!("value {i}"),
            })
            .collect();
        let at: Vec<At> = values.iter().map(|v| texts.push(v, "+key")).collect();
        for (v, at) in values.iter().zip(&at) {
            assert_eq!(texts.get(at), format!("{v}+key"));
            assert_eq!(texts.get(&at.prefix(v.len())), v);
            assert_eq!(texts.get(&at.suffix(v.len())), "+key");
        }
        assert!(
            texts
                .0
                .iter()
                .all(|b| b.expose().len() <= b.expose().capacity())
        );
    }
}
