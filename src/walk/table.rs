//! Tables drawn in text: Markdown, psql/mysql ASCII and HTML tables, read so that each cell
//! is scanned under its column's name (`| name | email |` makes `name` the key of the cells
//! below it), with column evidence (`text.rs`).
//!
//! - Markdown: a header line of `|` cells, then a `|---|:---:|` line, then rows.
//! - psql: ` id | name ` then `----+------`, rows, `(2 rows)`.
//! - mysql: `+----+------+` borders around a header line and the rows.
//! - HTML: `<tr>` rows of `<th>` / `<td>` cells; the first row of `<th>` names the columns.
//!
//! Text around the tables (prose before, a row count after) is left to the caller, which
//! scans it as plain text. Only the byte ranges of cells are reported, so replacing inside a
//! cell keeps the table drawn as it was (a token may be wider than the value; alignment is
//! cosmetic).

use std::ops::Range;

use memchr::{memchr, memmem};

use super::text::Table;

/// The tables of a text and the ranges they cover.
#[derive(Debug, Default)]
pub(super) struct Found<'t> {
    /// Each table and the byte range of its lines.
    pub(super) tables: Vec<(Table<'t>, Range<usize>)>,
}

/// The tables of `text`, if it has any.
pub(super) fn find(text: &str) -> Option<Found<'_>> {
    let b = text.as_bytes();
    let mut found = Found::default();
    if memchr(b'|', b).is_some() {
        pipe_tables(text, &mut found);
    }
    if found.tables.is_empty() && has_row_tag(b) {
        html_tables(text, &mut found);
    }
    (!found.tables.is_empty()).then_some(found)
}

/// Whether `b` holds `<tr` or `<TR`, the start of an HTML table row. Found from each `<` (one
/// pass; most text has few or none), not by a substring search for each spelling: those read
/// all of a long text that has no table twice.
fn has_row_tag(b: &[u8]) -> bool {
    memchr::memchr_iter(b'<', b).any(|i| matches!(b.get(i + 1..i + 3), Some(b"tr" | b"TR")))
}

/// The lines of `text`: (start, end without the line break).
fn lines(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < b.len() {
        let end = memchr(b'\n', &b[at..]).map_or(b.len(), |n| at + n);
        let content_end = if end > at && b[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        out.push((at, content_end));
        at = end + 1;
    }
    out
}

/// A rule line: only `-`, `+`, `|`, `:`, `=` and spaces, with at least three `-` or `=`.
fn is_rule(line: &[u8]) -> bool {
    let mut dashes = 0;
    for &c in line {
        match c {
            b'-' | b'=' => dashes += 1,
            b'+' | b'|' | b':' | b' ' | b'\t' => {}
            _ => return false,
        }
    }
    dashes >= 3
}

/// The cells of a `|` line: trimmed ranges, without the empty cells outside a leading or
/// trailing `|`.
fn pipe_cells(text: &str, (start, end): (usize, usize)) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut cells = Vec::new();
    let mut at = start;
    loop {
        let stop = (at..end)
            .find(|&i| b[i] == b'|' && (i == start || b[i - 1] != b'\\'))
            .unwrap_or(end);
        let (mut s, mut e) = (at, stop);
        while s < e && b[s].is_ascii_whitespace() {
            s += 1;
        }
        while e > s && b[e - 1].is_ascii_whitespace() {
            e -= 1;
        }
        cells.push(s..e);
        if stop == end {
            break;
        }
        at = stop + 1;
    }
    let trimmed = text[start..end].trim();
    if trimmed.starts_with('|') && cells.first().is_some_and(Range::is_empty) {
        cells.remove(0);
    }
    if trimmed.ends_with('|') && cells.last().is_some_and(Range::is_empty) {
        cells.pop();
    }
    cells
}

/// Markdown and psql/mysql tables: a header line of `|` cells followed by a rule line.
fn pipe_tables<'t>(text: &'t str, found: &mut Found<'t>) {
    let b = text.as_bytes();
    let lines = lines(text);
    let has_pipe = |l: (usize, usize)| memchr(b'|', &b[l.0..l.1]).is_some();
    let mut i = 1;
    while i < lines.len() {
        let rule = lines[i];
        let head = lines[i - 1];
        let rule_bytes = &b[rule.0..rule.1];
        let ruled = is_rule(rule_bytes) && memchr::memchr2(b'|', b'+', rule_bytes).is_some();
        if !(ruled && has_pipe(head) && !is_rule(&b[head.0..head.1])) {
            i += 1;
            continue;
        }
        let headers: Vec<&str> = pipe_cells(text, head)
            .into_iter()
            .map(|r| &text[r])
            .collect();
        if headers.len() < 2 {
            i += 1;
            continue;
        }
        // A mysql border above the header belongs to the table.
        let top = if i >= 2 && is_rule(&b[lines[i - 2].0..lines[i - 2].1]) {
            lines[i - 2].0
        } else {
            head.0
        };
        let mut table = Table {
            headers,
            cells: Vec::new(),
        };
        let mut j = i + 1;
        let mut end = rule.1;
        while j < lines.len() {
            let line = lines[j];
            let bytes = &b[line.0..line.1];
            if is_rule(bytes) {
                end = line.1;
                j += 1;
                continue;
            }
            if !has_pipe(line) {
                break;
            }
            for (column, cell) in pipe_cells(text, line).into_iter().enumerate() {
                if !cell.is_empty() {
                    table.cells.push((cell, column));
                }
            }
            end = line.1;
            j += 1;
        }
        found.tables.push((table, top..end));
        i = j + 1;
    }
}

/// HTML tables: `<tr>` rows of `<th>`/`<td>` cells.
fn html_tables<'t>(text: &'t str, found: &mut Found<'t>) {
    let b = text.as_bytes();
    let lower = |at: usize, tag: &[u8]| {
        b.get(at..at + tag.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(tag))
    };
    let mut table = Table::default();
    let mut first = usize::MAX;
    let mut last = 0;
    let mut column = 0;
    let mut header_row = false;
    let mut i = 0;
    while let Some(n) = memchr(b'<', &b[i..]) {
        let at = i + n;
        i = at + 1;
        if lower(at, b"<tr") && b.get(at + 3).is_some_and(|c| matches!(c, b'>' | b' ')) {
            column = 0;
            header_row = table.headers.is_empty() && table.cells.is_empty();
            first = first.min(at);
            continue;
        }
        let th = lower(at, b"<th") && b.get(at + 3).is_some_and(|c| matches!(c, b'>' | b' '));
        let td = lower(at, b"<td") && b.get(at + 3).is_some_and(|c| matches!(c, b'>' | b' '));
        if !(th || td) {
            continue;
        }
        let Some(open_end) = memchr(b'>', &b[at..]).map(|n| at + n + 1) else {
            break;
        };
        let close = memmem::find_iter(&b[open_end..], b"</t")
            .map(|n| open_end + n)
            .find(|&c| lower(c, b"</td") || lower(c, b"</th"))
            .unwrap_or(b.len());
        let (mut s, mut e) = (open_end, close);
        while s < e && b[s].is_ascii_whitespace() {
            s += 1;
        }
        while e > s && b[e - 1].is_ascii_whitespace() {
            e -= 1;
        }
        if th && header_row {
            table.headers.push(&text[s..e]);
        } else if s < e {
            table.cells.push((s..e, column));
        }
        column += 1;
        last = last.max(close);
        first = first.min(at);
        i = close.max(open_end);
    }
    if !table.cells.is_empty() && first < last {
        found.tables.push((table, first..last));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_tag_is_found_as_the_two_searches_found_it() {
        for text in [
            "",
            "<",
            "<t",
            "<tr",
            "<TR>",
            "<Tr>",
            "<tR>",
            "a < b <tr",
            "x<<TR",
            "<td>",
            "tr <",
            "<table>\n<tr><td>a</td></tr>",
            "no tags at all",
            "é<tr",
            "<é<TR",
        ] {
            let b = text.as_bytes();
            let searched = memmem::find(b, b"<tr").is_some() || memmem::find(b, b"<TR").is_some();
            assert_eq!(has_row_tag(b), searched, "{text:?}");
        }
    }

    /// Each table's headers and (cell text, column) pairs.
    type Read = Vec<(Vec<String>, Vec<(String, usize)>)>;

    fn read(text: &str) -> Read {
        find(text)
            .map(|f| {
                f.tables
                    .into_iter()
                    .map(|(t, _)| {
                        (
                            t.headers.iter().map(|h| h.to_string()).collect(),
                            t.cells
                                .iter()
                                .map(|(r, c)| (text[r.clone()].to_string(), *c))
                                .collect(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn markdown() {
        let t = read(
            "Team:\n\n| name | email |\n|:---|---|\n| Amber Lee | a@x.io |\n| Bo | b@x.io |\n\nend",
        );
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].0, ["name", "email"]);
        assert_eq!(
            t[0].1,
            [
                ("Amber Lee".into(), 0),
                ("a@x.io".into(), 1),
                ("Bo".into(), 0),
                ("b@x.io".into(), 1)
            ]
        );
    }

    #[test]
    fn psql_and_mysql() {
        let psql =
            " id | first_name | city\n----+------------+------\n  1 | Amber      | Oslo\n(1 row)\n";
        let t = read(psql);
        assert_eq!(t[0].0, ["id", "first_name", "city"]);
        assert_eq!(t[0].1[1], ("Amber".into(), 1));
        let mysql =
            "+----+-------+\n| id | name  |\n+----+-------+\n|  1 | Amber |\n+----+-------+\n";
        let t = read(mysql);
        assert_eq!(t[0].0, ["id", "name"]);
        assert_eq!(t[0].1, [("1".into(), 0), ("Amber".into(), 1)]);
    }

    #[test]
    fn html() {
        let t = read(
            "<table><tr><th>Name</th><th>City</th></tr>\n<tr><td>Amber</td><td>Oslo</td></tr></table>",
        );
        assert_eq!(t[0].0, ["Name", "City"]);
        assert_eq!(t[0].1, [("Amber".into(), 0), ("Oslo".into(), 1)]);
    }

    #[test]
    fn no_tables() {
        assert!(find("a | b\nno rule here\n").is_none());
        assert!(find("cat x | grep y\n---\n").is_none());
    }
}
