//! Telling JSON, JSON Lines and text apart, so `redact` and `restore` need no format flag.
//!
//! One JSON document (object or array) is rewritten as JSON; input whose every non-blank line
//! is a JSON object or array is JSON Lines, rewritten line by line; anything else is text. The
//! same input is always sniffed the same way, and tokenizing never changes the answer (tokens
//! contain no JSON syntax), so `restore` reads what `redact` wrote the way it was written.

use serde::de::IgnoredAny;

/// The shape of the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    /// One JSON object or array.
    Json,
    /// One JSON object or array per non-blank line.
    JsonLines,
    /// Anything else.
    Text,
}

/// Sniffs `input`.
pub(super) fn sniff(input: &str) -> Format {
    let trimmed = input.trim_ascii_start();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return Format::Text;
    }
    if serde_json::from_str::<IgnoredAny>(input).is_ok() {
        return Format::Json;
    }
    let mut any = false;
    for line in input.lines() {
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        if !(line.starts_with('{') || line.starts_with('['))
            || serde_json::from_str::<IgnoredAny>(line).is_err()
        {
            return Format::Text;
        }
        any = true;
    }
    if any { Format::JsonLines } else { Format::Text }
}

/// Splits input into lines, each with its terminator (`\n` or `\r\n`) separated, so JSON Lines
/// are rewritten without touching line ends.
pub(super) fn lines_with_ends(input: &str) -> impl Iterator<Item = (&str, &str)> {
    input.split_inclusive('\n').map(|line| {
        let body = line.trim_end_matches(['\n', '\r']);
        (body, &line[body.len()..])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_formats() {
        assert_eq!(sniff(" {\"a\": [1, 2]}\n"), Format::Json);
        assert_eq!(sniff("[1]"), Format::Json);
        assert_eq!(sniff("{\"a\":1}\n\n{\"b\":2}\r\n"), Format::JsonLines);
        assert_eq!(sniff("{\"a\":1}\nhello\n"), Format::Text);
        assert_eq!(sniff("{not json"), Format::Text);
        assert_eq!(sniff("name,email\nAnn,a@x.io\n"), Format::Text);
        assert_eq!(sniff("\"just a string\""), Format::Text);
        assert_eq!(sniff(""), Format::Text);
    }

    #[test]
    fn keeps_line_ends() {
        let parts: Vec<_> = lines_with_ends("a\r\nb\n\nc").collect();
        assert_eq!(parts, [("a", "\r\n"), ("b", "\n"), ("", "\n"), ("c", "")]);
    }
}
