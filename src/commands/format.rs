//! Telling JSON, JSON Lines and text apart, so `redact` and `restore` need no format flag.
//!
//! Input that opens with `{` or `[` and that the engine's JSON walker reads as one document is
//! rewritten as JSON; there is no separate validating parse first (on a 2 MB tool result it
//! cost as much as a tenth of the walk). Input the walker refuses, whose every non-blank line
//! is a JSON object or array, is JSON Lines, rewritten line by line; anything else is text. The
//! same input is always read the same way, and tokenizing never changes the answer (tokens
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

/// Whether `input` may be one JSON document (object or array): the caller walks it as JSON,
/// and on the walker's refusal asks [`lines_or_text`].
pub(super) fn opens_json(input: &str) -> bool {
    let trimmed = input.trim_ascii_start();
    trimmed.starts_with('{') || trimmed.starts_with('[')
}

/// The format of input that is not one JSON document: JSON Lines when every non-blank line
/// is a JSON object or array (and there is one), else text.
pub(super) fn lines_or_text(input: &str) -> Format {
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
    fn tells_json_lines_from_text() {
        assert!(opens_json(" {\"a\": [1, 2]}\n"));
        assert!(opens_json("[1]"));
        assert!(!opens_json("name,email\nAnn,a@x.io\n"));
        assert!(!opens_json("\"just a string\""));
        assert!(!opens_json(""));
        assert_eq!(
            lines_or_text("{\"a\":1}\n\n{\"b\":2}\r\n"),
            Format::JsonLines
        );
        assert_eq!(lines_or_text("{\"a\":1}\nhello\n"), Format::Text);
        assert_eq!(lines_or_text("{not json"), Format::Text);
        assert_eq!(lines_or_text("\n \n"), Format::Text);
    }

    #[test]
    fn keeps_line_ends() {
        let parts: Vec<_> = lines_with_ends("a\r\nb\n\nc").collect();
        assert_eq!(parts, [("a", "\r\n"), ("b", "\n"), ("", "\n"), ("c", "")]);
    }
}
