//! How names taken from a message appear in logs and errors: as written when they are plain
//! identifiers, otherwise only by their length.
//!
//! Tool names, argument keys, origins (`server/tool`), URIs and method names all come from the
//! wire, and a hostile server or a careless model can put a value in any of them: a tool named
//! after an email, an argument whose *key* is a phone number. Values are never logged, so
//! neither are such names. [`Shown`] prints each `/`-separated segment of a name as written
//! when it looks like an identifier (ASCII letters, digits, `_ - . :`, at most 64 bytes and at
//! most four digits, so no email address, phone number, card or name with a space passes),
//! and `<N bytes>` otherwise. It decides by shape, not by detection: it needs no detector, so
//! the policy module (which never sees values) can use it, and it cannot miss a kind the
//! detector does not know.

use std::fmt;

/// The longest segment shown as written.
const MAX_SEGMENT: usize = 64;
/// The most digits a segment shown as written may hold (`v2`, `page_10`, an array index).
const MAX_DIGITS: usize = 4;

/// A name from a message, for a log line or an error (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub struct Shown<'a>(pub &'a str);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.split('/').enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            if is_plain(segment) {
                f.write_str(segment)?;
            } else {
                write!(f, "<{} bytes>", segment.len())?;
            }
        }
        Ok(())
    }
}

/// Whether `segment` is shown as written.
pub fn is_plain(segment: &str) -> bool {
    segment.len() <= MAX_SEGMENT
        && segment
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
        && segment.bytes().filter(u8::is_ascii_digit).count() <= MAX_DIGITS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_shown_and_values_are_not() {
        let shown = |s: &str| Shown(s).to_string();
        assert_eq!(shown("crm/get_contact"), "crm/get_contact");
        assert_eq!(shown("to.0.address"), "to.0.address");
        assert_eq!(shown("file:///srv/notes.txt"), "file:///srv/notes.txt");
        assert_eq!(shown("crm/maria.garcia@example.com"), "crm/<24 bytes>");
        assert_eq!(shown("+1 415 555 0132"), "<15 bytes>");
        assert_eq!(shown("4155550132"), "<10 bytes>");
        assert_eq!(shown("Maria Garcia"), "<12 bytes>");
        assert_eq!(shown("Zoë"), "<4 bytes>");
    }
}
