//! Labelled values in free text: `Reporter: jean-luc picard`, `Patient name: MARIA GARCIA`.
//!
//! Tickets, forms, e-mail bodies and logs write fields as `Label: value` lines. A JSON key says
//! what its value is (`structured.rs`); a label says the same of the rest of its line. So when
//! the label names a person (by the same key rules, `keys.rs`), the value is judged as that
//! key's value would be: lower case and ALL CAPS included, which the free-text name finder
//! leaves alone inside mixed-case text ("jean-luc picard" after a capitalised "Reporter").
//!
//! Only lines whose label stands at the start of the line (after indentation or a bullet) and
//! is one to three words of letters count, so timestamps, URLs and `key: value` pairs inside
//! sentences cost one short backwards look per colon.

use memchr::memchr_iter;

/// The longest label looked at, in bytes ("emergency contact name").
const MAX_LABEL: usize = 32;
/// The longest value looked at, in bytes.
const MAX_VALUE: usize = 80;

/// Calls `f(label, start, end)` for each `Label: value` line of `text` (a space or tab after
/// the colon) whose label could be a field name, with `start..end` the value's range (trimmed; cut before an address in `<>`,
/// a bracket, `|`, `;` or a tab).
pub(super) fn for_each_labelled_value(text: &str, mut f: impl FnMut(&str, usize, usize)) {
    let b = text.as_bytes();
    for colon in memchr_iter(b':', b) {
        // `Label: value`, not `https://` or `10:22`.
        if !matches!(b.get(colon + 1), Some(b' ' | b'\t')) {
            continue;
        }
        let Some(label) = label_before(b, colon) else {
            continue;
        };
        let mut start = colon + 1;
        while start < b.len() && matches!(b[start], b' ' | b'\t') {
            start += 1;
        }
        let limit = b.len().min(start + MAX_VALUE);
        let mut end = start;
        while end < limit
            && !matches!(
                b[end],
                b'\n' | b'\r' | b'<' | b'(' | b'[' | b'|' | b';' | b'\t'
            )
        {
            end += 1;
        }
        // The value must end where the line (or a cut) does, not at the length limit.
        if end == limit && limit < b.len() && !matches!(b[limit], b'\n' | b'\r') {
            continue;
        }
        while end > start && b[end - 1] == b' ' {
            end -= 1;
        }
        if end > start && text.is_char_boundary(end) {
            f(&text[label.0..label.1], start, end);
        }
    }
}

/// The range of the label that ends at the colon at `colon`: one to three words of ASCII
/// letters (spaces, `_` and `-` between), alone on its line but for indentation and a bullet.
fn label_before(b: &[u8], colon: usize) -> Option<(usize, usize)> {
    let mut i = colon;
    while i > 0 && colon - i <= MAX_LABEL {
        let c = b[i - 1];
        if c.is_ascii_alphabetic() || matches!(c, b' ' | b'_' | b'-') {
            i -= 1;
        } else {
            break;
        }
    }
    let at_line_start = i == 0 || matches!(b[i - 1], b'\n' | b'\r' | b'\t' | b'*' | b'>' | b'-');
    if !at_line_start || colon - i > MAX_LABEL {
        return None;
    }
    let label = std::str::from_utf8(&b[i..colon]).ok()?;
    let lead = label.len() - label.trim_start_matches([' ', '-', '_']).len();
    let trimmed = label[lead..].trim_end();
    let words = trimmed.split(' ').filter(|w| !w.is_empty()).count();
    if !(1..=3).contains(&words) {
        return None;
    }
    Some((i + lead, i + lead + trimmed.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for_each_labelled_value(text, |label, s, e| {
            out.push((label.to_string(), text[s..e].to_string()))
        });
        out
    }

    #[test]
    fn finds_label_lines() {
        assert_eq!(
            fields(
                "Ticket 12\nReporter: jean-luc picard <jlp@x.org>\n  - Assigned to:  NGUYEN VAN AN\n"
            ),
            [
                ("Reporter".to_string(), "jean-luc picard".to_string()),
                ("Assigned to".to_string(), "NGUYEN VAN AN".to_string()),
            ]
        );
        assert_eq!(
            fields("Name: maria garcia"),
            [("Name".to_string(), "maria garcia".to_string())]
        );
    }

    #[test]
    fn leaves_colons_that_are_no_labels() {
        assert!(fields("2024-03-01T10:22:01Z login ok").is_empty());
        assert!(fields("see https://example.com/a for more").is_empty());
        assert!(fields("a very long label that goes on and on and on: x").is_empty());
    }
}
