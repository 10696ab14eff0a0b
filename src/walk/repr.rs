//! Python and JavaScript literal reprs inside text, read so keys act as hints as in JSON.
//!
//! MCP servers written in Python often return `str(rows)`: mcp-server-sqlite's `read_query`
//! answers `[{'id': 1, 'first_name': 'Amber', 'email': 'a@x.com'}]`, which is no JSON (single
//! quotes, `None`, `True`, tuples, `Decimal('1.50')`). Node servers print
//! `{ first_name: 'Amber' }` (`util.inspect`, bare keys). Read as prose, the keys give no
//! evidence and lone first names leak; read as structure, `'Amber'` is the value of
//! `first_name`, judged as `{"first_name": "Amber"}` would be.
//!
//! [`for_each_string`] is a lenient lexer for those literals: brackets, braces and
//! parentheses (tuples and calls such as `datetime.date(2024, 1, 1)`), `,` and `:`, quoted
//! strings (`'..'`, `".."`, with `b`/`u`/`r` prefixes), numbers and bare words (`None`,
//! `True`, `null`, `undefined`, JS keys). Anything else (`<object at 0x..>`, unbalanced
//! brackets) means the text is no repr and is scanned as plain text instead.
//!
//! Rewriting: a token replaces a span of a string literal's *content*; tokens hold only
//! `[`, `]`, capitals, digits and `_`, which need no escape in either quote style, so the repr
//! stays a valid literal. Literals with escapes are decoded for scanning with a map from
//! decoded to raw offsets ([`decode`]).

use std::ops::Range;

/// Whether `text` could be a repr: it starts and ends with matching brackets. (A repr that
/// is also JSON was read as JSON before.)
pub(super) fn might_be(text: &str) -> bool {
    let t = text.trim_ascii().as_bytes();
    t.len() >= 4
        && matches!(
            (t[0], t[t.len() - 1]),
            (b'[', b']') | (b'{', b'}') | (b'(', b')')
        )
}

/// One string literal of a repr.
#[derive(Clone, Debug)]
pub(super) struct Literal {
    /// The content between the quotes (raw, escapes not decoded).
    pub(super) body: Range<usize>,
    /// Whether the body holds a backslash escape.
    pub(super) escaped: bool,
    /// Whether it is a dict or object key.
    pub(super) is_key: bool,
}

/// The text is no repr as this lexer knows it.
#[derive(Debug)]
pub(super) struct NotRepr;

#[derive(Clone, Copy)]
struct Frame<'t> {
    close: u8,
    /// `{`: keys and values (or a set).
    dict: bool,
    /// The current entry's key.
    key: Option<&'t str>,
    /// The key this container sits under in its parent.
    container_key: Option<&'t str>,
}

/// Calls `visit(literal, key, parent key)` for each string literal of the repr `text`, in
/// order, and for each number and bare word that is no constant (`None`, `True`) and no call
/// (`Decimal(..)`), with the range of its text as `body`; keys are visited with `is_key` set
/// and no key. Returns [`NotRepr`] (possibly after
/// some visits, which the caller discards) when `text` is no repr.
pub(super) fn for_each_string<'t>(
    text: &'t str,
    mut visit: impl FnMut(&Literal, Option<&'t str>, Option<&'t str>),
) -> Result<(), NotRepr> {
    let b = text.as_bytes();
    let mut frames: Vec<Frame<'t>> = Vec::with_capacity(8);
    let mut i = skip_ws(b, 0);
    let mut strings = 0usize;
    let mut done = false;
    while i < b.len() {
        if done {
            return Err(NotRepr);
        }
        let c = b[i];
        match c {
            b'[' | b'{' | b'(' => {
                if frames.len() >= 128 {
                    return Err(NotRepr);
                }
                let container_key = frames
                    .last()
                    .and_then(|f| if f.dict { f.key } else { f.container_key });
                frames.push(Frame {
                    close: match c {
                        b'[' => b']',
                        b'{' => b'}',
                        _ => b')',
                    },
                    dict: c == b'{',
                    key: None,
                    container_key,
                });
                i += 1;
            }
            b']' | b'}' | b')' => {
                let frame = frames.pop().ok_or(NotRepr)?;
                if frame.close != c {
                    return Err(NotRepr);
                }
                done = frames.is_empty();
                i += 1;
            }
            b',' => {
                let frame = frames.last_mut().ok_or(NotRepr)?;
                frame.key = None;
                i += 1;
            }
            b':' => return Err(NotRepr),
            b'"' | b'\'' => {
                let lit = lex_string(b, i)?;
                strings += 1;
                i = lit.body.end + 1;
                element(text, &mut frames, &mut i, lit, &mut visit)?;
                done = frames.is_empty();
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' => {
                let start = i;
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'$' | b'.'))
                {
                    i += 1;
                }
                let word = &text[start..i];
                // A string prefix: `b'..'`, `u".."`, `r'..'`.
                if matches!(b.get(i), Some(b'"' | b'\''))
                    && word.len() <= 2
                    && word
                        .bytes()
                        .all(|c| matches!(c | 0x20, b'b' | b'u' | b'r' | b'f'))
                {
                    continue;
                }
                if frames.is_empty() {
                    return Err(NotRepr);
                }
                // A bare key (`{ first_name: 'Amber' }`).
                let j = skip_ws(b, i);
                if b.get(j) == Some(&b':')
                    && let Some(frame) = frames.last_mut()
                    && frame.dict
                {
                    frame.key = Some(word);
                    i = j + 1;
                } else if b.get(j) != Some(&b'(') && !is_constant(word) {
                    // Any other bare word is scanned as a value (fail closed).
                    let lit = Literal {
                        body: start..i,
                        escaped: false,
                        is_key: false,
                    };
                    element(text, &mut frames, &mut i, lit, &mut visit)?;
                }
            }
            c if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.') => {
                if frames.is_empty() {
                    return Err(NotRepr);
                }
                let start = i;
                while i < b.len()
                    && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'.' | b'_' | b'-' | b'+'))
                {
                    i += 1;
                }
                // A number is a value like a string (`{'phone': 4155550132}`), scanned under
                // its key.
                let lit = Literal {
                    body: start..i,
                    escaped: false,
                    is_key: false,
                };
                element(text, &mut frames, &mut i, lit, &mut visit)?;
            }
            _ => return Err(NotRepr),
        }
        i = skip_ws(b, i);
    }
    if !frames.is_empty() || strings == 0 {
        return Err(NotRepr);
    }
    Ok(())
}

/// A string literal just lexed at `lit`: a key (followed by `:` in a dict) or a value.
fn element<'t>(
    text: &'t str,
    frames: &mut [Frame<'t>],
    i: &mut usize,
    mut lit: Literal,
    visit: &mut impl FnMut(&Literal, Option<&'t str>, Option<&'t str>),
) -> Result<(), NotRepr> {
    let b = text.as_bytes();
    let j = skip_ws(b, *i);
    let depth = frames.len();
    let Some(frame) = frames.last_mut() else {
        // A lone string is no structure.
        return Err(NotRepr);
    };
    if frame.dict && frame.key.is_none() && b.get(j) == Some(&b':') {
        lit.is_key = true;
        visit(&lit, None, None);
        frame.key = Some(&text[lit.body.clone()]);
        *i = j + 1;
        return Ok(());
    }
    let (key, parent) = if frame.dict {
        (frame.key, frame.container_key)
    } else {
        let key = frame.container_key;
        let _ = depth;
        (key, None)
    };
    let parent = if frame.dict {
        parent
    } else {
        depth
            .checked_sub(2)
            .and_then(|below| frames.get(below))
            .and_then(|f| f.container_key)
    };
    visit(&lit, key, parent);
    Ok(())
}

/// The bare words of Python and JavaScript literals that hold nothing.
fn is_constant(word: &str) -> bool {
    matches!(
        word,
        "None"
            | "True"
            | "False"
            | "null"
            | "true"
            | "false"
            | "undefined"
            | "NaN"
            | "Infinity"
            | "inf"
            | "nan"
            | "Ellipsis"
    )
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The string literal whose opening quote is at `start`; a raw line break or no closing
/// quote is no repr string.
fn lex_string(b: &[u8], start: usize) -> Result<Literal, NotRepr> {
    let q = b[start];
    let mut i = start + 1;
    let mut escaped = false;
    loop {
        let off = memchr::memchr3(q, b'\\', b'\n', &b[i..]).ok_or(NotRepr)?;
        i += off;
        match b[i] {
            b'\\' => {
                escaped = true;
                i += 2;
                if i > b.len() {
                    return Err(NotRepr);
                }
            }
            b'\n' => return Err(NotRepr),
            _ => {
                return Ok(Literal {
                    body: start + 1..i,
                    escaped,
                    is_key: false,
                });
            }
        }
    }
}

/// Decodes a body with escapes (Python and JavaScript rules: `\\`, quotes, `\n` `\t` `\r`,
/// `\xhh`, `\uhhhh`, `\Uhhhhhhhh`; an unknown escape stays as written). Returns the text and,
/// for each decoded byte offset (and the end), the raw offset it starts at.
pub(super) fn decode(body: &str) -> (String, Vec<usize>) {
    let b = body.as_bytes();
    let mut out = String::with_capacity(body.len());
    let mut map = Vec::with_capacity(body.len() + 1);
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 >= b.len() {
            let c = body[i..].chars().next().unwrap_or('\u{FFFD}');
            let n = c.len_utf8();
            out.push(c);
            map.extend(std::iter::repeat_n(i, n));
            i += n;
            continue;
        }
        let hex = |from: usize, len: usize| {
            body.get(from..from + len)
                .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .and_then(char::from_u32)
        };
        let (c, len) = match b[i + 1] {
            b'n' => (Some('\n'), 2),
            b't' => (Some('\t'), 2),
            b'r' => (Some('\r'), 2),
            b'\\' => (Some('\\'), 2),
            b'\'' => (Some('\''), 2),
            b'"' => (Some('"'), 2),
            b'x' => (hex(i + 2, 2), 4),
            b'u' => (hex(i + 2, 4), 6),
            b'U' => (hex(i + 2, 8), 10),
            _ => (None, 0),
        };
        match c {
            Some(c) => {
                out.push(c);
                map.extend(std::iter::repeat_n(i, c.len_utf8()));
                i += len;
            }
            None => {
                out.push('\\');
                map.push(i);
                i += 1;
            }
        }
    }
    map.push(b.len());
    (out, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(text: &str) -> Option<Vec<(String, Option<String>, bool)>> {
        let mut out = Vec::new();
        for_each_string(text, |lit, key, _| {
            out.push((
                text[lit.body.clone()].to_string(),
                key.map(str::to_string),
                lit.is_key,
            ))
        })
        .ok()?;
        Some(out)
    }

    #[test]
    fn python_rows() {
        let got = strings(
            "[{'id': 1, 'first_name': 'Amber', 'note': None, 'ok': True, 'd': Decimal('1.5')}, {'first_name': \"O'Neil\", 't': ('a', -2.5e3)}]",
        )
        .unwrap();
        let values: Vec<(&str, Option<&str>)> = got
            .iter()
            .filter(|s| !s.2)
            .map(|s| (s.0.as_str(), s.1.as_deref()))
            .collect();
        assert_eq!(
            values,
            [
                ("1", Some("id")),
                ("Amber", Some("first_name")),
                ("1.5", Some("d")),
                ("O'Neil", Some("first_name")),
                ("a", Some("t")),
                ("-2.5e3", Some("t")),
            ]
        );
    }

    #[test]
    fn javascript_objects() {
        let got = strings("[ { first_name: 'Amber', tags: [ 'x' ], n: 1 } ]").unwrap();
        assert_eq!(
            got,
            [
                ("Amber".into(), Some("first_name".into()), false),
                ("x".into(), Some("tags".into()), false),
                ("1".into(), Some("n".into()), false)
            ]
        );
    }

    #[test]
    fn not_reprs() {
        for t in [
            "[<object at 0x1>]",
            "[1, 2]",
            "['a'",
            "('a'))",
            "[a: 'b']",
            "['a\nb']",
            "['a'] ['b']",
        ] {
            assert!(strings(t).is_none(), "{t}");
        }
    }

    #[test]
    fn decodes_with_offsets() {
        let (s, map) = decode(r"a\'b\xe9\u00e9\n");
        assert_eq!(s, "a'bé\u{e9}\n");
        assert_eq!(map[0], 0);
        assert_eq!(map[1], 1);
        assert_eq!(map[2], 3);
        assert_eq!(map[3], 4);
        assert_eq!(map[s.len()], r"a\'b\xe9\u00e9\n".len());
    }
}
