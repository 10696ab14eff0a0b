//! Column evidence for records that are not drawn as a table: JSON arrays of objects and
//! repr lists of dicts.
//!
//! A column is the string values of one key under one parent key (`customers[].Name`). When
//! most of a column's values were found to be names, the values the detector let pass are
//! names too: the name finder misses some given–family orders and scripts ("美咲 小林",
//! "Chae-won Park"), but the column says what they are. Keys that name organisations, places
//! or things (`company`, `city`, `street`), and keys that hold addresses or numbers, keep
//! their values clear; keys that name people outright need no evidence.
//!
//! Cost: one small linear table of columns per document (bounded; a column's names are copied
//! once) and one entry per value
//! that is shaped like a name and was found clean; nothing is decoded again unless its column
//! qualifies.

use std::ops::Range;

use crate::detect::{KeyHint, key_hint};

/// At most this many columns are followed per document.
const MAX_COLUMNS: usize = 64;

#[derive(Debug)]
struct Column {
    parent: Option<Box<str>>,
    key: Box<str>,
    cells: usize,
    names: usize,
    /// The key names people outright (`first_name`): it only vouches for its record.
    strong: bool,
}

/// The columns of one document and the clean, name-shaped values seen in them.
#[derive(Debug, Default)]
pub(super) struct Columns {
    columns: Vec<Column>,
    /// Clean values shaped like names: their column and their literal's range, and the path
    /// of the string (when the scan keeps paths).
    open: Vec<(usize, Range<usize>, Option<Box<str>>)>,
}

impl Columns {
    /// Notes a value of `key` under `parent`: whether a name covers most of it, or else
    /// whether it is shaped like one (`open`, with its literal's range).
    pub(super) fn note(
        &mut self,
        parent: Option<&str>,
        key: &str,
        is_name: bool,
        open: Option<(Range<usize>, Option<Box<str>>)>,
    ) {
        let at = match self
            .columns
            .iter()
            .position(|c| &*c.key == key && c.parent.as_deref() == parent)
        {
            Some(at) => at,
            None if self.columns.len() < MAX_COLUMNS => {
                self.columns.push(Column {
                    parent: parent.map(Box::from),
                    key: Box::from(key),
                    cells: 0,
                    names: 0,
                    strong: false,
                });
                self.columns.len() - 1
            }
            None => return,
        };
        let column = &mut self.columns[at];
        if column.cells == 0 {
            column.strong = key_hint(key) == Some(KeyHint::PersonName { strong: true });
        }
        column.cells += 1;
        column.names += usize::from(is_name);
        if let Some((range, path)) = open {
            self.open.push((at, range, path));
        }
    }

    /// The clean values of columns where most values are names, and of bare `name` columns
    /// beside a column that names people outright (`{"first_name": .., "Name": ..}`: the
    /// records are people), in document order.
    pub(super) fn names(self) -> impl Iterator<Item = (Range<usize>, Option<Box<str>>)> {
        let columns = self.columns;
        let people = |parent: &Option<Box<str>>| {
            columns
                .iter()
                .any(|c| c.strong && c.names > 0 && &c.parent == parent)
        };
        let qualifies: Vec<bool> = columns
            .iter()
            .map(|c| {
                super::text::is_name_column(c.cells, c.names)
                    || (key_hint(&c.key) == Some(KeyHint::PersonName { strong: false })
                        && people(&c.parent))
            })
            .collect();
        self.open
            .into_iter()
            .filter_map(move |(at, range, path)| qualifies[at].then_some((range, path)))
    }
}

/// Whether the spans found in `text` (their lengths, with whether each is a name) cover most
/// of it with names.
pub(super) fn covers_name(text: &str, spans: impl Iterator<Item = (usize, bool)>) -> bool {
    let named: usize = spans.filter(|(_, name)| *name).map(|(len, _)| len).sum();
    named > 0 && named * 3 >= text.trim().len() * 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_of_names_names_its_other_values() {
        let mut c = Columns::default();
        for (i, found) in [true, true, false, true].into_iter().enumerate() {
            let open = (!found).then_some((i..i + 1, None));
            c.note(Some("people"), "Name", found, open);
        }
        // Another column: one name only.
        c.note(None, "status", true, None);
        c.note(None, "status", false, Some((9..10, None)));
        let got: Vec<_> = c.names().map(|(r, _)| r).collect();
        assert_eq!(got, vec![(2..3)]);
    }
}
