//! One text pipeline: every text gets the same detection, wherever it sits.
//!
//! A plain file given to `redact`, a JSON string inside a tool result, an MCP content block
//! (`{"content":[{"type":"text","text": ..}]}`) and a resource's `text` are the same thing:
//! text. [`ValueScanner::document`] is the one place that decides how a text is read, so the
//! proxy and the CLI give the same tokens for the same text:
//!
//! 1. a JSON document (rewritten as JSON, keys as hints);
//! 2. CSV or TSV whose first line really names columns (`csv`), or a Markdown, HTML or
//!    psql/mysql ASCII table (`table`): each cell with its column's name as key, and
//!    column evidence (a column of names makes its other cells names);
//! 3. a Python or JavaScript literal repr (`repr`: mcp-server-sqlite returns
//!    `[{'first_name': 'Amber', ..}]`), keys as hints as in JSON;
//! 4. otherwise plain text: every recognizer, labelled lines, person slots, `key=value` pairs.
//!
//! The key a JSON string sits under is evidence about a *field*. A key that says nothing
//! about its value (`text`, `content`, `body`, or any such key above a multi-line value) marks
//! a document, which is scanned exactly as the same text given alone: no key, so the name
//! finder reads it as prose and labels inside it count.

use std::ops::Range;

use super::spans::SpanSlots;
use super::{
    Content, MAX_EMBED_DEPTH, Piece, ValueScanner, columns, csv, looks_like_json, repr, table,
};
use crate::detect::{FindContext, KeyFacts, Kind, prefilter};

/// How a text was read: the pieces to replace, in the text's own coordinates.
pub(super) enum Doc {
    /// The text is a JSON document: pieces are its string literals.
    Json(Vec<Piece>),
    /// The text has structure (CSV, a table, a repr): each piece is a replaced range (a slot).
    Structured(Vec<Piece>),
    /// Plain text: each found span and its slot.
    Flat(SpanSlots),
}

/// Keys whose string value is a document rather than a field: MCP content blocks and
/// resource contents (`text`), message and command output bodies.
const DOCUMENT_KEYS: &[&str] = &[
    "text", "content", "contents", "body", "message", "output", "result", "stdout", "stderr",
    "log", "logs", "markdown", "html", "raw", "response",
];

fn is_document_key(key: &str) -> bool {
    DOCUMENT_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key))
}

/// A table of cells found in text: where each cell is, which column it is in, and the
/// column names (if the table has a header that names its columns).
#[derive(Debug, Default)]
pub(super) struct Table<'t> {
    /// The column names, one per column (`""` where unknown).
    pub(super) headers: Vec<&'t str>,
    /// Each body cell: its trimmed range in the text and its column.
    pub(super) cells: Vec<(Range<usize>, usize)>,
}

/// Whether a column of `cells` non-empty cells, `names` of them holding a name that covers
/// most of the cell, is a column of names: at least two, and more than half.
pub(super) fn is_name_column(cells: usize, names: usize) -> bool {
    names >= 2 && names * 2 > cells
}

impl ValueScanner<'_> {
    /// Reads `text` (a document, or a JSON string under `cx.key`) and finds what to replace.
    pub(super) fn document(&mut self, text: &str, cx: &FindContext<'_>, depth: usize) -> Doc {
        let facts = self.key_facts(cx.key);
        self.document_with(text, cx, facts, depth)
    }

    /// [`Self::document`] given `cx.key`'s facts ([`Self::key_facts`]), which a JSON walk
    /// has already worked out.
    pub(super) fn document_with(
        &mut self,
        text: &str,
        cx: &FindContext<'_>,
        mut facts: KeyFacts,
        depth: usize,
    ) -> Doc {
        // One pass over a short string says which recognizers can fire, and whether it can
        // hold structure that needs a line break.
        let classes = prefilter::classes(text.as_bytes());
        let mut cx = *cx;
        if let Some(key) = cx.key
            && facts.is_silent()
            && (is_document_key(key) || classes & prefilter::NEWLINE != 0)
            && !self.detector.custom_kind_for_key(key)
        {
            cx.key = None;
            cx.parent_key = None;
            facts = KeyFacts::default();
        }
        // JSON and a repr open with a bracket, a brace or a parenthesis: a text that does not
        // is neither, asked with one byte.
        let opens = matches!(
            text.trim_ascii_start().as_bytes().first(),
            Some(b'{' | b'[' | b'(')
        );
        if depth < MAX_EMBED_DEPTH {
            if opens && looks_like_json(text) {
                let (mark, sites) = (self.slots.len(), self.noted_sites());
                match self.json_pieces(text, depth + 1) {
                    Ok(pieces) => return Doc::Json(pieces),
                    Err(_) => {
                        self.truncate(mark);
                        self.forget_sites(sites);
                    }
                }
            }
            if classes & prefilter::NEWLINE != 0 {
                if let Some(csv) = csv::Csv::parse(text) {
                    if self.names_columns(csv.header_names(text)) {
                        return Doc::Structured(self.csv_pieces(text, &csv));
                    }
                    // No header: rows read as text, then column evidence over them.
                    return Doc::Structured(self.headerless_pieces(text, &cx, csv.headerless()));
                }
                if let Some(found) = table::find(text) {
                    return Doc::Structured(self.tables_pieces(text, found));
                }
            }
            if opens && repr::might_be(text) {
                let mark = self.slots.len();
                match self.repr_pieces(text) {
                    Some(pieces) => return Doc::Structured(pieces),
                    None => self.truncate(mark),
                }
            }
        }
        Doc::Flat(self.detect_classified(text, &cx, classes, &facts))
    }

    /// Whether a first line's cells name columns: short, none of them a value the detector
    /// finds (a name, an address), and most of them known key words or identifier-like
    /// (`first_name`, `email`, `Given Name`, `qty`). A first row of values ("Amber,Smith,
    /// Springfield") or two prose lines with one comma each are no header.
    fn names_columns<'h>(&mut self, headers: impl Iterator<Item = &'h str>) -> bool {
        let mut n = 0;
        let mut named = 0;
        for h in headers {
            n += 1;
            let h = h.trim().trim_matches('"').trim();
            if !csv::is_header_name(h) {
                return false;
            }
            if h.len() > 40 || h.split_whitespace().nth(4).is_some() {
                return false;
            }
            let facts = self.key_facts(Some(h));
            if !facts.is_silent() || self.detector.custom_kind_for_key(h) || is_column_word(h) {
                named += 1;
                continue;
            }
            self.detector
                .detect_into(h, &FindContext::default(), &mut self.spans);
            if !self.spans.is_empty() {
                self.spans.clear();
                return false;
            }
            if is_identifier_like(h) {
                named += 1;
            }
        }
        n >= 2 && named * 3 >= n * 2
    }

    /// The pieces of CSV text with a header row: each body cell under its column's name.
    pub(super) fn csv_pieces(&mut self, text: &str, csv: &csv::Csv) -> Vec<Piece> {
        let mut table = Table {
            headers: csv.header_names(text).collect(),
            cells: Vec::new(),
        };
        let stopped = csv.for_each_cell(text, |range, column| table.cells.push((range, column)));
        self.table_pieces(text, table, 0..stopped, stopped..text.len())
    }

    /// The pieces of CSV text without a header: the text is read as plain text (no column
    /// names to use as hints), then a column where most cells are names makes its other
    /// cells names.
    fn headerless_pieces(&mut self, text: &str, cx: &FindContext<'_>, csv: csv::Csv) -> Vec<Piece> {
        // Each line on its own: a row is one record ("Kenji,Sato,Osaka"), not a sentence
        // that runs on into the next line.
        let mut pieces: Vec<Piece> = Vec::new();
        let mut at = 0;
        while at < text.len() {
            let end = memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |n| at + n);
            for (r, slot) in self.detect(&text[at..end], cx) {
                pieces.push(Piece {
                    range: at + r.start..at + r.end,
                    content: Content::Slot(slot),
                });
            }
            at = end + 1;
        }
        let mut cells = Vec::new();
        csv.for_each_cell(text, |range, column| cells.push((range, column)));
        // A cell of two words or more that the line left alone is read as a field of its own
        // ("1,Amber Holt,Acme Corp": the digits and commas around it read as code).
        let mut p = 0;
        let before = pieces.len();
        for (range, _) in &cells {
            while p < before && pieces[p].range.end <= range.start {
                p += 1;
            }
            let touched = p < before && pieces[p].range.start < range.end;
            let cell = &text[range.clone()];
            if touched || !cell.trim().contains(' ') {
                continue;
            }
            for (r, slot) in self.detect(cell, &FindContext::default()) {
                pieces.push(Piece {
                    range: range.start + r.start..range.start + r.end,
                    content: Content::Slot(slot),
                });
            }
        }
        if pieces.len() > before {
            pieces.sort_by_key(|p| p.range.start);
        }
        // Per column: cells, and cells that one kind covers most of; per cell: whether
        // anything was found in it.
        let columns = cells.iter().map(|(_, c)| c + 1).max().unwrap_or(0);
        let mut counts = vec![ColumnCount::default(); columns];
        let mut touched = Vec::with_capacity(cells.len());
        let mut p = 0;
        for (range, column) in &cells {
            while p < pieces.len() && pieces[p].range.end <= range.start {
                p += 1;
            }
            let mut q = p;
            // Bytes of the cell covered by names, and by each kind `column_key` knows.
            let mut covered = [0usize; COLUMN_KINDS];
            let mut any = false;
            while q < pieces.len() && pieces[q].range.start < range.end {
                any = true;
                if let Content::Slot(slot) = pieces[q].content
                    && let Some(k) = column_kind_index(&self.slots[slot].kind)
                {
                    covered[k] +=
                        pieces[q].range.end.min(range.end) - pieces[q].range.start.max(range.start);
                }
                q += 1;
            }
            let cell_len = text[range.clone()].trim().len();
            let count = &mut counts[*column];
            count.cells += 1;
            for (k, &n) in covered.iter().enumerate() {
                count.whole[k] += usize::from(n > 0 && n * 3 >= cell_len * 2);
            }
            touched.push(any);
        }
        let before = pieces.len();
        for ((range, column), any) in cells.iter().zip(touched) {
            let count = &counts[*column];
            if any {
                continue;
            }
            let cell = &text[range.clone()];
            // A column of phone numbers, emails, cards ...: its other cells are read under
            // that kind's key, as a JSON value under `phone` would be (a national number of
            // a region not configured, `+1-411-626-6817x0663`, is taken on that context).
            if let Some(key) = (1..COLUMN_KINDS)
                .find(|&k| is_name_column(count.cells, count.whole[k]))
                .map(column_key)
            {
                let cx = FindContext {
                    key: Some(key),
                    parent_key: None,
                    recall: None,
                };
                for (r, slot) in self.detect(cell, &cx) {
                    pieces.push(Piece {
                        range: range.start + r.start..range.start + r.end,
                        content: Content::Slot(slot),
                    });
                }
                continue;
            }
            if !is_name_column(count.cells, count.whole[0]) {
                continue;
            }
            if let Some((s, e)) = self.detector.column_name(cell) {
                let slot = self.push_slot(Kind::Name, &cell[s..e]);
                pieces.push(Piece {
                    range: range.start + s..range.start + e,
                    content: Content::Slot(slot),
                });
            }
        }
        if pieces.len() > before {
            pieces.sort_by_key(|p| p.range.start);
        }
        pieces
    }

    /// The pieces of a text with tables: the tables' cells, and the text around them as
    /// plain text.
    fn tables_pieces(&mut self, text: &str, found: table::Found<'_>) -> Vec<Piece> {
        let mut pieces = Vec::new();
        let mut at = 0;
        for (table, range) in found.tables {
            let gap = at..range.start.max(at);
            pieces.extend(self.table_pieces(text, table, range.clone(), gap));
            at = range.end.max(at);
        }
        if at < text.len() {
            pieces.extend(self.plain_pieces(text, at..text.len()));
        }
        pieces.sort_by_key(|p| p.range.start);
        pieces
    }

    /// The pieces of `range` of `text`, read as plain text.
    fn plain_pieces(&mut self, text: &str, range: Range<usize>) -> Vec<Piece> {
        self.detect(&text[range.clone()], &FindContext::default())
            .into_iter()
            .map(|(r, slot)| Piece {
                range: range.start + r.start..range.start + r.end,
                content: Content::Slot(slot),
            })
            .collect()
    }

    /// The pieces of a table: each cell scanned under its column's name, then column
    /// evidence: in a column where most cells are names (and whose name is no organisation,
    /// place or thing), every other cell shaped like a name is one too. `rest` is text after
    /// the table (or a record that is not part of it), scanned as plain text (fail closed).
    pub(super) fn table_pieces(
        &mut self,
        text: &str,
        table: Table<'_>,
        within: Range<usize>,
        rest: Range<usize>,
    ) -> Vec<Piece> {
        // What lies between the cells (a header line, tag attributes, a caption) is read as
        // plain text when it holds a letter or digit (fail closed); delimiters do not.
        let mut gaps = Vec::new();
        let mut at = within.start;
        for (range, _) in &table.cells {
            if range.start > at {
                gaps.push(at..range.start);
            }
            at = at.max(range.end);
        }
        if within.end > at {
            gaps.push(at..within.end);
        }
        let mut outside = Vec::new();
        for gap in gaps {
            if text[gap.clone()]
                .bytes()
                .any(|c| c.is_ascii_alphanumeric() || c >= 0x80)
            {
                outside.extend(self.plain_pieces(text, gap));
            }
        }
        let columns = table
            .headers
            .len()
            .max(table.cells.iter().map(|(_, c)| c + 1).max().unwrap_or(0));
        // Per column: non-empty cells, cells that are names.
        let mut counts = vec![(0usize, 0usize); columns];
        // Per cell: the first of its pieces, and whether a name covers most of it.
        let mut found: Vec<(usize, bool)> = Vec::with_capacity(table.cells.len());
        let mut pieces = Vec::new();
        // A table with a column that names people outright (`first_name`, `Family Name`)
        // is a table of people: a bare `Name` column in it is a person's name, as a `name`
        // under `users` is in JSON.
        let people = table.headers.iter().any(|h| {
            crate::detect::key_hint(h) == Some(crate::detect::KeyHint::PersonName { strong: true })
        });
        for (range, column) in &table.cells {
            let header = table.headers.get(*column).copied().unwrap_or("");
            let cx = FindContext {
                key: (!header.is_empty()).then_some(header),
                parent_key: people.then_some("people"),
                recall: None,
            };
            let cell = &text[range.clone()];
            let first = pieces.len();
            let mut name_len = 0;
            for (r, slot) in self.detect(cell, &cx) {
                if self.slots[slot].kind == Kind::Name {
                    name_len += r.len();
                }
                pieces.push(Piece {
                    range: range.start + r.start..range.start + r.end,
                    content: Content::Slot(slot),
                });
            }
            let is_name = name_len * 3 >= cell.trim().len() * 2 && name_len > 0;
            counts[*column].0 += 1;
            counts[*column].1 += usize::from(is_name);
            found.push((first, is_name));
        }
        let name_columns: Vec<bool> = counts
            .iter()
            .enumerate()
            .map(|(c, &(cells, names))| {
                is_name_column(cells, names)
                    && self.column_may_hold_people(table.headers.get(c).copied().unwrap_or(""))
            })
            .collect();
        // A cell of a name column with nothing found in it becomes a name as a whole.
        if name_columns.iter().any(|&b| b) {
            for (i, (range, column)) in table.cells.iter().enumerate() {
                let (first, is_name) = found[i];
                let end = found.get(i + 1).map_or(pieces.len(), |f| f.0);
                if !name_columns[*column] || is_name || end > first {
                    continue;
                }
                let cell = &text[range.clone()];
                if let Some((s, e)) = self.detector.column_name(cell) {
                    let slot = self.push_slot(Kind::Name, &cell[s..e]);
                    pieces.push(Piece {
                        range: range.start + s..range.start + e,
                        content: Content::Slot(slot),
                    });
                }
            }
        }
        pieces.extend(outside);
        if rest.start < rest.end {
            let plain = self.plain_pieces(text, rest);
            pieces.extend(plain);
        }
        pieces.sort_by_key(|p| p.range.start);
        pieces
    }

    /// The pieces of a Python or JavaScript literal repr, each string scanned as the value
    /// of its key (`repr`); `None` if `text` is no repr.
    fn repr_pieces(&mut self, text: &str) -> Option<Vec<Piece>> {
        let mut pieces = Vec::new();
        let mut columns = columns::Columns::default();
        let mut bodies = Vec::new();
        let read = repr::for_each_string(text, |lit, key, parent_key| {
            bodies.push(lit.body.clone());
            let body = &text[lit.body.clone()];
            let decoded;
            let (value, map): (&str, Option<&[usize]>) = if lit.escaped {
                decoded = repr::decode(body);
                (&decoded.0, Some(&decoded.1))
            } else {
                (body, None)
            };
            let cx = FindContext {
                key,
                parent_key,
                recall: None,
            };
            let classes = prefilter::classes(value.as_bytes());
            let facts = self.key_facts(key);
            let found = if lit.is_key {
                self.detect(value, &FindContext::default())
            } else {
                self.detect_classified(value, &cx, classes, &facts)
            };
            if !lit.is_key
                && let Some(key) = key
                && self.key_facts(Some(key)).takes_column_evidence()
            {
                let is_name = columns::covers_name(
                    value,
                    found
                        .iter()
                        .map(|(r, slot)| (r.len(), self.slots[*slot].kind == Kind::Name)),
                );
                let open =
                    (found.is_empty() && self.detector.column_name(value).is_some()).then(|| {
                        let path = self.paths.as_ref().map(|_| self.path.clone());
                        (lit.body.clone(), path)
                    });
                columns.note(parent_key, key, is_name, open);
            }
            for (r, slot) in found {
                let (s, e) = map.map_or((r.start, r.end), |m| (m[r.start], m[r.end]));
                pieces.push(Piece {
                    range: lit.body.start + s..lit.body.start + e,
                    content: Content::Slot(slot),
                });
            }
        });
        if read.is_err() {
            return None;
        }
        // Token-shaped text outside the literals (`[[EMAIL_1], 'x']` reads as a list holding
        // a bare word) is neutralised as it is anywhere else (fail closed).
        let mut outside = false;
        for found in crate::token::find_tokens(text) {
            if !bodies
                .iter()
                .any(|b| b.start <= found.start && found.end <= b.end)
            {
                let slot = self.push_slot(Kind::Literal, &text[found.start..found.end]);
                pieces.push(Piece {
                    range: found.start..found.end,
                    content: Content::Slot(slot),
                });
                outside = true;
            }
        }
        if outside {
            pieces.sort_by_key(|p| p.range.start);
        }
        // Column evidence: clean strings in columns of names (`'Name': '美咲 小林'`).
        let before = pieces.len();
        for (body, _) in columns.names() {
            let raw = &text[body.clone()];
            let (value, map) = repr::decode(raw);
            if let Some((s, e)) = self.detector.column_name(&value) {
                let slot = self.push_slot(Kind::Name, &value[s..e]);
                pieces.push(Piece {
                    range: body.start + map[s]..body.start + map[e],
                    content: Content::Slot(slot),
                });
            }
        }
        if pieces.len() > before {
            pieces.sort_by_key(|p| p.range.start);
        }
        Some(pieces)
    }

    /// Records a value found by structure alone (column evidence) as a new slot.
    fn push_slot(&mut self, kind: Kind, value: &str) -> usize {
        if let Some(paths) = &mut self.paths {
            paths.push(self.path.clone());
        }
        let slot = super::FoundValue::push(&mut self.values, kind, value, None);
        self.slots.push(slot);
        self.slots.len() - 1
    }

    /// Whether a column named `header` may hold people: not a key of organisations, places
    /// or things (`company`, `city`, `street`).
    fn column_may_hold_people(&mut self, header: &str) -> bool {
        header.is_empty() || !self.key_facts(Some(header)).is_not_person()
    }
}

/// How many kinds headerless column evidence counts: names (index 0), then the kinds of
/// [`column_key`].
const COLUMN_KINDS: usize = 6;

/// Per column of a headerless table: its cells, and per kind ([`column_kind_index`]) the
/// cells that kind covers most of.
#[derive(Clone, Copy, Debug, Default)]
struct ColumnCount {
    cells: usize,
    whole: [usize; COLUMN_KINDS],
}

/// The index of `kind` in [`ColumnCount::whole`], if column evidence follows it.
fn column_kind_index(kind: &Kind) -> Option<usize> {
    Some(match kind {
        Kind::Name => 0,
        Kind::Phone => 1,
        Kind::Email => 2,
        Kind::CreditCard => 3,
        Kind::UsSsn => 4,
        Kind::Iban => 5,
        _ => return None,
    })
}

/// The key whose evidence a column of kind index `k` (not names) gives its other cells.
fn column_key(k: usize) -> &'static str {
    match k {
        1 => "phone",
        2 => "email",
        3 => "card_number",
        4 => "ssn",
        _ => "iban",
    }
}

/// Common column names that are no key hint but name a column all the same.
const COLUMN_WORDS: &[&str] = &[
    "id",
    "no",
    "nr",
    "num",
    "number",
    "date",
    "time",
    "datetime",
    "timestamp",
    "created",
    "updated",
    "createdat",
    "updatedat",
    "amount",
    "total",
    "price",
    "cost",
    "qty",
    "quantity",
    "count",
    "code",
    "sku",
    "description",
    "notes",
    "note",
    "comment",
    "comments",
    "value",
    "age",
    "gender",
    "sex",
    "dob",
    "birthday",
    "birthdate",
    "dateofbirth",
    "zip",
    "zipcode",
    "postcode",
    "postalcode",
    "role",
    "website",
    "score",
    "rank",
    "level",
    "balance",
    "currency",
    "salary",
    "sales",
    "revenue",
    "year",
    "month",
    "day",
    "start",
    "end",
    "duration",
    "size",
    "weight",
    "height",
    "color",
    "colour",
    "group",
    "location",
    "ip",
    "username",
    "login",
    "user",
    "handle",
    "account",
    "iban",
    "card",
    "cardnumber",
    "ssn",
    "rating",
    "key",
    "label",
    "active",
    "enabled",
    "version",
    "index",
    "order",
    "priority",
    "subject",
    "summary",
    "message",
    "body",
    "text",
    "lang",
    "language",
    "locale",
    "nickname",
    "initials",
    "salutation",
    "prefix",
    "suffix",
    "middle",
    "first",
    "last",
    "given",
    "family",
    "company",
    "organization",
    "street",
    "city",
    "country",
    "state",
    "province",
    "county",
    "address",
    "phone",
    "email",
    "mobile",
    "fax",
];

fn is_column_word(h: &str) -> bool {
    let mut buf = [0u8; 40];
    let mut n = 0;
    for &b in h.as_bytes() {
        if matches!(b, b'_' | b'-' | b'.' | b' ') {
            continue;
        }
        if n == buf.len() || !b.is_ascii() {
            return false;
        }
        buf[n] = b.to_ascii_lowercase();
        n += 1;
    }
    std::str::from_utf8(&buf[..n]).is_ok_and(|w| COLUMN_WORDS.contains(&w))
}

/// `first_name`, `firstName`, `FIRST_NAME`, `email2`: one word of ASCII letters and digits
/// with `_` or an inner capital, or all lower case; not a capitalised word that reads as a
/// value ("Amber", "Springfield").
fn is_identifier_like(h: &str) -> bool {
    let b = h.as_bytes();
    if b.is_empty()
        || !b[0].is_ascii_alphabetic()
        || !b
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'))
    {
        return false;
    }
    let joined = b.iter().any(|c| matches!(c, b'_' | b'.'));
    let inner_capital = b[0].is_ascii_lowercase() && b.iter().any(u8::is_ascii_uppercase);
    let lower = b.iter().all(|c| !c.is_ascii_uppercase());
    joined || inner_capital || lower
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifier_like_headers() {
        for h in ["first_name", "firstName", "email2", "qty", "FIRST_NAME"] {
            assert!(is_identifier_like(h), "{h}");
        }
        for h in ["Amber", "Springfield", "how are you", "42"] {
            assert!(!is_identifier_like(h), "{h}");
        }
        assert!(is_column_word("Zip Code"));
        assert!(is_column_word("created_at"));
        assert!(!is_column_word("Amber"));
    }
}
