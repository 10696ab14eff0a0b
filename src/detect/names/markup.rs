//! Markup around words: HTML tags that end a word like a space (`<td>Maria Garcia</td>`),
//! Markdown marks that wrap a phrase (`[..]`, `` `..` ``, `_.._`), a chat mention of a display
//! name (`@Omar Haddad`) and a display name before its address (`Maria Ortiz <m@x.org>`).
//!
//! Apart because these are facts about formats, not about names; they are pure functions of
//! the bytes.

use super::words::is_wordish;

/// Whether an HTML tag starts at `b[at]` (a `<`): a closing tag, or a tag of text markup
/// (`<br>`, `<p class="x">`, `<td>`), not a type's parameters (`List<Person>`, `Vec<Grant>`).
pub(super) fn html_tag_at(b: &[u8], at: usize) -> bool {
    const TAGS: [&[u8]; 26] = [
        b"a", b"b", b"br", b"div", b"em", b"font", b"h1", b"h2", b"h3", b"h4", b"h5", b"h6", b"hr",
        b"i", b"img", b"li", b"ol", b"p", b"small", b"span", b"strong", b"table", b"td", b"th",
        b"tr", b"ul",
    ];
    let Some(rest) = b.get(at + 1..) else {
        return false;
    };
    if rest.first() == Some(&b'/') {
        return true;
    }
    let name_len = rest
        .iter()
        .position(|c| !c.is_ascii_alphanumeric())
        .unwrap_or(rest.len());
    let name = &rest[..name_len];
    matches!(rest.get(name_len), Some(b'>' | b' ' | b'/'))
        && TAGS.iter().any(|t| t.eq_ignore_ascii_case(name))
}

/// Whether the word `b[start..end]`, right after `@`, opens a mention of a display name: the
/// `@` after a space or the text's start, the word capitalised (a capital, then lower case
/// only), then one space and a capital that starts the next word.
pub(super) fn display_name_mention(b: &[u8], start: usize, end: usize) -> bool {
    (start < 2 || b[start - 2].is_ascii_whitespace())
        && end - start >= 2
        && b[start].is_ascii_uppercase()
        && b[start + 1..end].iter().all(u8::is_ascii_lowercase)
        && b.get(end) == Some(&b' ')
        && b.get(end + 1).is_some_and(u8::is_ascii_uppercase)
}

/// Whether the mark at `b[at]` (`[`, `` ` `` or `_`) wraps a phrase of words on the same line,
/// as Markdown does (`[Maria Garcia](mailto:..)`, `` `Maria Garcia` ``, `_Omar Haddad_`): no word
/// character before it, its closing mark within 64 bytes, and between them letters and at
/// least one space (an index `a[Index]`, `` `Grant` `` or `_Private` has no space).
pub(super) fn wrapped_phrase(b: &[u8], at: usize) -> bool {
    let close = match b[at] {
        b'[' => b']',
        c => c,
    };
    if at > 0 && (is_wordish(b[at - 1]) || b[at - 1] == b'_') {
        return false;
    }
    let mut spaced = false;
    for &c in b.iter().skip(at + 1).take(64) {
        match c {
            _ if c == close => return spaced,
            b' ' => spaced = true,
            b'-' | b'\'' | b'.' => {}
            _ if c.is_ascii_alphabetic() || c >= 0x80 => {}
            _ => return false,
        }
    }
    false
}

/// Whether `rest`, the text right after a run, is an e-mail address in angle brackets
/// (` <maria@example.com>`, `" <...>` after a quoted name): the run is that address's display
/// name.
pub(super) fn display_name_before(rest: &str) -> bool {
    let rest = rest.strip_prefix('"').unwrap_or(rest);
    let Some(addr) = rest.strip_prefix(" <").or_else(|| rest.strip_prefix("<")) else {
        return false;
    };
    let addr = &addr.as_bytes()[..addr.len().min(256)];
    addr.iter().position(|&c| c == b'>').is_some_and(|close| {
        let a = &addr[..close];
        a.contains(&b'@') && !a.iter().any(|c| c.is_ascii_whitespace())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_tags_and_markdown_wrappers() {
        let tag = |t: &str| html_tag_at(t.as_bytes(), t.find('<').unwrap());
        for t in [
            "x</td>",
            "x<br>",
            "x<BR/>",
            "x<p class=\"a\">",
            "x<span>",
            "x<h2>",
        ] {
            assert!(tag(t), "{t}");
        }
        for t in ["List<Person>", "Vec<Grant>::new", "a<b", "x<", "x<table"] {
            assert!(!tag(t), "{t}");
        }
        let wrapped = |t: &str, at: usize| wrapped_phrase(t.as_bytes(), at);
        assert!(wrapped("[Maria Garcia](mailto:m@x.com)", 0));
        assert!(wrapped("see `Jean Dupont` here", 4));
        assert!(wrapped("by _Omar Haddad_.", 3));
        assert!(!wrapped("arr[Index]", 3), "no space inside");
        assert!(!wrapped("call `Grant` now", 5));
        assert!(!wrapped("my_Grant id_", 2), "joined to a word");
        assert!(!wrapped("[Maria Garcia", 0), "never closed");
        assert!(!wrapped("`let x = Grant`", 0), "code inside");
    }
}
