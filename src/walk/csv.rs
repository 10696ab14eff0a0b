//! CSV with a header row, recognised inside text so column names act as key hints.
//!
//! This module only finds the shape (a delimiter, a first line of name-like cells, a second
//! record of as many cells); whether the first line really names columns is judged by the
//! caller (`text.rs`), which knows the key words and the detector.
//!
//! Only what is needed to find cells: a comma, semicolon or tab delimiter, RFC 4180 quoting
//! (`""` inside quoted cells), CRLF or LF line ends. Tokens contain no delimiter or quote, so
//! replacing text inside a cell keeps the document valid CSV.

use std::ops::Range;

/// A recognised CSV document: its delimiter and header names' ranges.
#[derive(Debug)]
pub(super) struct Csv {
    delimiter: u8,
    headers: Vec<Range<usize>>,
    body_start: usize,
}

impl Csv {
    /// Recognises `text` as CSV when its first line has at least two cells and the next
    /// records (up to four) as many. Whether the first line is a header is the caller's
    /// question ([`is_header_name`] is the shape of one name).
    pub(super) fn parse(text: &str) -> Option<Csv> {
        let first_nl = memchr::memchr(b'\n', text.as_bytes())?;
        let header_line = text[..first_nl].trim_end_matches('\r');
        let delimiter = [b',', b'\t', b';']
            .into_iter()
            .max_by_key(|d| memchr::memchr_iter(*d, header_line.as_bytes()).count())?;
        let headers: Vec<Range<usize>> = cells(header_line, 0, delimiter).map(|(r, _)| r).collect();
        if headers.len() < 2 {
            return None;
        }
        let body_start = first_nl + 1;
        // The next records (up to four) have as many cells.
        let mut at = body_start;
        for n in 0..4 {
            if at >= text.len() && n > 0 {
                break;
            }
            // A record that is not CSV as we know it ends the table (`for_each_cell`).
            let record = match next_record(text, at, delimiter) {
                Some(record) => record,
                None if n > 0 => break,
                None => return None,
            };
            if record.len() != headers.len() {
                return None;
            }
            at = record.last().map_or(text.len(), |r| r.1);
        }
        Some(Csv {
            delimiter,
            headers,
            body_start,
        })
    }

    /// The same document read without a header: its first line is a record like the others.
    pub(super) fn headerless(self) -> Csv {
        Csv {
            body_start: 0,
            headers: Vec::new(),
            ..self
        }
    }

    /// The column names of the header line, quotes trimmed.
    pub(super) fn header_names<'t>(&'t self, text: &'t str) -> impl Iterator<Item = &'t str> + 't {
        self.headers
            .iter()
            .map(|h| text[h.clone()].trim_matches('"'))
    }

    /// Calls `f(cell range, column)` for each non-empty body cell. Returns the offset
    /// where reading stopped: `text.len()` when every record was read, or the start of the
    /// first record that is not CSV as we know it (an unclosed quote, text after a closing
    /// quote), which the caller must still scan as plain text.
    pub(super) fn for_each_cell(
        &self,
        text: &str,
        mut f: impl FnMut(Range<usize>, usize),
    ) -> usize {
        let mut at = self.body_start;
        while at < text.len() {
            let Some(record) = next_record(text, at, self.delimiter) else {
                return at;
            };
            let mut end = at;
            for (i, (range, record_end)) in record.into_iter().enumerate() {
                end = record_end;
                if range.is_empty() {
                    continue;
                }
                f(range, i);
            }
            if end <= at {
                return at;
            }
            at = end;
        }
        text.len()
    }
}

/// Whether a first-line cell is shaped like a column name: letters, digits, `_ - .` and
/// spaces, with a letter, at most 48 bytes.
pub(super) fn is_header_name(name: &str) -> bool {
    let name = name.trim().trim_matches('"');
    !name.is_empty()
        && name.len() <= 48
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | ' ' | '-' | '.'))
        && name.chars().any(char::is_alphabetic)
}

/// Cells of one line without quoting across lines (for the header).
fn cells(
    line: &str,
    base: usize,
    delimiter: u8,
) -> impl Iterator<Item = (Range<usize>, usize)> + '_ {
    let mut start = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let end = match memchr::memchr(delimiter, &line.as_bytes()[start..]) {
            Some(off) => start + off,
            None => {
                done = true;
                line.len()
            }
        };
        let cell = (base + start..base + end, base + end + 1);
        start = end + 1;
        Some(cell)
    })
}

/// The cells of the record that starts at `at`: (content range without quotes, offset after the
/// cell's delimiter or line end). `None` at a quote that never closes.
fn next_record(text: &str, at: usize, delimiter: u8) -> Option<Vec<(Range<usize>, usize)>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = at;
    loop {
        let (content, mut after) = if bytes.get(i) == Some(&b'"') {
            let mut j = i + 1;
            loop {
                j += memchr::memchr(b'"', &bytes[j..])?;
                if bytes.get(j + 1) == Some(&b'"') {
                    j += 2;
                    continue;
                }
                break;
            }
            (i + 1..j, j + 1)
        } else {
            let end = bytes[i..]
                .iter()
                .position(|&b| b == delimiter || b == b'\n')
                .map_or(bytes.len(), |off| i + off);
            let content_end = if end > i && bytes[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            (i..content_end, end)
        };
        if after < bytes.len() && bytes[after] == b'\r' {
            after += 1;
        }
        match bytes.get(after) {
            Some(&b) if b == delimiter => {
                out.push((content, after + 1));
                i = after + 1;
            }
            Some(b'\n') => {
                out.push((content, after + 1));
                return Some(out);
            }
            None => {
                out.push((content, bytes.len()));
                return Some(out);
            }
            // Text after a closing quote that is not a delimiter: not CSV as we know it.
            Some(_) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells_of(text: &str) -> Vec<(String, String)> {
        let csv = Csv::parse(text).expect("csv");
        let mut out = Vec::new();
        let headers: Vec<&str> = csv.header_names(text).collect();
        assert_eq!(
            csv.for_each_cell(text, |r, c| out.push((
                headers.get(c).copied().unwrap_or("").to_string(),
                text[r].to_string()
            ))),
            text.len()
        );
        out
    }

    #[test]
    fn reads_cells_with_headers() {
        let text = "name,email\r\nAnn Lee,ann@x.io\n\"Lee, Bo\",\"b\"\"o@x.io\"\n";
        assert_eq!(
            cells_of(text),
            vec![
                ("name".into(), "Ann Lee".into()),
                ("email".into(), "ann@x.io".into()),
                ("name".into(), "Lee, Bo".into()),
                ("email".into(), "b\"\"o@x.io".into()),
            ]
        );
    }

    #[test]
    fn prose_is_not_csv() {
        assert!(Csv::parse("Hello, how are you?\nFine, thanks, bye.").is_none());
        assert!(Csv::parse("one line, no body").is_none());
        assert!(Csv::parse("a,b\n1,2,3").is_none());
    }

    #[test]
    fn reports_where_a_malformed_record_stops_reading() {
        let text = "name,email\nAnn,a@x.io\n\"Lee\"x,b@x.io\nrest,[NAME_1]\n";
        let csv = Csv::parse(text).unwrap();
        let mut cells = 0;
        let stop = csv.for_each_cell(text, |_, _| cells += 1);
        assert_eq!(cells, 2);
        assert_eq!(&text[stop..], "\"Lee\"x,b@x.io\nrest,[NAME_1]\n");
    }

    #[test]
    fn tab_separated() {
        assert_eq!(
            cells_of("first_name\tphone\nAnn\t555\n"),
            vec![
                ("first_name".into(), "Ann".into()),
                ("phone".into(), "555".into())
            ]
        );
    }
}
