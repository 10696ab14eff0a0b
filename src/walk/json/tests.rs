//! The lexer's, decoder's and encoder's tests (kept apart from `json.rs` for its length).

use super::*;

// The lexer before `string_stop`, kept as the oracle of the test below.
/// How many bytes of a string body [`lex_string`] reads one at a time before it hands the search
/// for the closing quote to `memchr2`.
const SHORT_RUN: usize = 32;

/// The bytes that end a run of plain string body: `"`, `\\` and control bytes.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// The lexer before [`string_stop`]: the oracle. Lexes the string literal whose opening quote is at `start`.
fn lex_string_by_table(bytes: &[u8], start: usize) -> Result<StrLit, JsonError> {
    let mut i = start + 1;
    let mut escaped = false;
    loop {
        // Most literals are short: read the first bytes one at a time through a table (quote,
        // backslash, control byte), since `memchr2`'s setup costs more than a short run
        // itself, and hand longer runs to it. Errors are the same either way.
        let window = bytes.len().min(i + SHORT_RUN);
        let off = match bytes[i..window]
            .iter()
            .position(|&b| STRING_STOP[usize::from(b)])
        {
            Some(p) if bytes[i + p] >= 0x20 => p,
            stop => {
                // A control byte in the window, or no stop in it: search on as before.
                let from = stop.map_or(window, |p| i + p);
                let Some(found) = memchr::memchr2(b'"', b'\\', &bytes[from..]) else {
                    return Err(JsonError {
                        offset: start,
                        what: "a closing quote",
                    });
                };
                let off = from + found - i;
                // Control characters must be escaped inside JSON strings.
                if bytes[from..i + off].iter().any(|&b| b < 0x20) {
                    return Err(JsonError {
                        offset: i,
                        what: "no raw control character in a string",
                    });
                }
                off
            }
        };
        i += off;
        if bytes[i] == b'"' {
            return Ok(StrLit {
                start,
                end: i + 1,
                escaped,
                is_key: false,
            });
        }
        escaped = true;
        match bytes.get(i + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
            Some(b'u') => {
                let hex = bytes.get(i + 2..i + 6).ok_or(JsonError {
                    offset: i,
                    what: "four hex digits after \\u",
                })?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return Err(JsonError {
                        offset: i,
                        what: "four hex digits after \\u",
                    });
                }
                i += 6;
            }
            _ => {
                return Err(JsonError {
                    offset: i,
                    what: "a valid escape",
                });
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]
    /// The word-at-a-time lexer gives what the byte table gave, errors included, on bodies
    /// made of the bytes that matter (quotes, backslashes, escapes, control and non-ASCII
    /// bytes) at every alignment.
    #[test]
    fn string_stop_lexes_as_the_byte_table(
        body in proptest::collection::vec(
            proptest::sample::select(vec![
                b'a', b'Z', b' ', b'"', b'\\', b'u', b'0', b'f', b'n', 0x00, 0x1f, 0x20,
                0x21, 0x5b, 0x5d, 0x7f, 0x80, 0xa0, 0xc3, 0xff,
            ]),
            0..80,
        ),
        pad in 0usize..9,
    ) {
        let mut bytes = vec![b' '; pad];
        bytes.push(b'"');
        bytes.extend_from_slice(&body);
        let new = format!("{:?}", lex_string(&bytes, pad));
        let old = format!("{:?}", lex_string_by_table(&bytes, pad));
        proptest::prop_assert_eq!(new, old, "{:?}", bytes);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// The same on long bodies whose stops are far apart (prose and log lines in a text
    /// block), where `string_stop` reads 64-byte blocks: plain runs of any length with a
    /// stop, an escape or a non-ASCII byte between them, at every alignment.
    #[test]
    fn long_runs_lex_as_the_byte_table(
        runs in proptest::collection::vec(
            (0usize..200, proptest::sample::select(vec![
                &b"\\n"[..], b"\\\"", b"\\u00e9", b"\xc3\xa9", b"\x01", b"\x1f", b"\x7f",
                b"\\x", b"\\u12", b"\"",
            ])),
            0..6,
        ),
        pad in 0usize..9,
    ) {
        let mut bytes = vec![b' '; pad];
        bytes.push(b'"');
        for (plain, stop) in &runs {
            bytes.extend((0..*plain).map(|k| b"abc xyz,.:"[k % 10]));
            bytes.extend_from_slice(stop);
        }
        let new = format!("{:?}", lex_string(&bytes, pad));
        let old = format!("{:?}", lex_string_by_table(&bytes, pad));
        proptest::prop_assert_eq!(new, old, "{:?}", bytes);
        let body = String::from_utf8_lossy(&bytes[pad + 1..]).into_owned();
        let mut encoded = String::new();
        encode_body_into(&body, &mut encoded);
        let mut want = serde_json::to_string(&body).unwrap_or_default();
        want.pop();
        want.remove(0);
        proptest::prop_assert_eq!(encoded, want);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
    /// The same on long bodies with an escape every few bytes (a JSON document in a text
    /// block), which the lexer reads 64 bytes a step after the first escape (`body.rs`):
    /// escapes, runs of backslashes, bad escapes and control bytes across block boundaries.
    #[test]
    fn dense_escapes_lex_as_the_byte_table(
        pieces in proptest::collection::vec(
            proptest::sample::select(vec![
                &b"a"[..], b"xyz ", b"\\\"", b"\\\\", b"\\\\\\\\", b"\\n", b"\\u00e9",
                b"\\uD83D\\uDE00", b"\\u12", b"\\x", b"\x01", b"\x7f", b"\xc3\xa9", b"\"",
                b"0123456789abcdef0123456789",
            ]),
            0..50,
        ),
        pad in 0usize..9,
    ) {
        let mut bytes = vec![b' '; pad];
        bytes.extend_from_slice(b"\"\\n");
        for p in &pieces {
            bytes.extend_from_slice(p);
        }
        let new = format!("{:?}", lex_string(&bytes, pad));
        let old = format!("{:?}", lex_string_by_table(&bytes, pad));
        proptest::prop_assert_eq!(new, old, "{:?}", bytes);
    }
}

type Visited = (String, bool, Option<String>, Option<String>, String);

fn strings(doc: &str) -> Vec<Visited> {
    let mut out = Vec::new();
    for_each_string(doc, |lit, pos| {
        out.push((
            lit.raw(doc).to_string(),
            lit.is_key,
            pos.key().map(str::to_string),
            pos.parent_key().map(str::to_string),
            pos.path(),
        ))
    })
    .unwrap();
    out
}

#[test]
fn visits_values_with_keys_and_paths() {
    let doc =
        r#"{"users":[{"name":"Ann","tags":["a"]}],"company":{"name":"Acme"},"n":1.5e3,"ok":true}"#;
    let values: Vec<_> = strings(doc).into_iter().filter(|s| !s.1).collect();
    assert_eq!(
        values,
        vec![
            (
                "Ann".into(),
                false,
                Some("name".into()),
                Some("users".into()),
                "users.0.name".into()
            ),
            (
                "a".into(),
                false,
                Some("tags".into()),
                Some("users".into()),
                "users.0.tags.0".into()
            ),
            (
                "Acme".into(),
                false,
                Some("name".into()),
                Some("company".into()),
                "company.name".into()
            ),
        ]
    );
}

#[test]
fn a_values_key_literal_is_its_key() {
    let doc = r#"{"a":"x","b\u0063":["y",{"c":1,"d":[2,"z"]}],"e":{"f":"w"},"":"v"}"#;
    for_each_value(doc, |lit, pos| {
        assert_eq!(pos.key_lit().map(|k| k.raw(doc)), pos.key());
        if let Literal::Str(lit) = lit
            && lit.is_key
        {
            // The key just read is the key of the value that follows it.
            assert_eq!(pos.key_lit().map(|k| k.start), Some(lit.start));
        }
    })
    .unwrap();
}

#[test]
fn visits_numbers_with_their_keys() {
    let doc = r#"{"phone":4155550132,"ok":true,"cards":[4111111111111111,-2.5e3],"n":null}"#;
    let mut seen = Vec::new();
    for_each_value(doc, |lit, pos| {
        if let Literal::Number(range) = lit {
            seen.push((&doc[range], pos.key().map(str::to_string), pos.path()));
        }
    })
    .unwrap();
    assert_eq!(
        seen,
        [
            ("4155550132", Some("phone".into()), "phone".to_string()),
            (
                "4111111111111111",
                Some("cards".into()),
                "cards.0".to_string()
            ),
            ("-2.5e3", Some("cards".into()), "cards.1".to_string()),
        ]
    );
}

#[test]
fn top_level_string_and_escapes() {
    let doc = r#""a\"b\u00e9""#;
    let mut seen = Vec::new();
    for_each_string(doc, |lit, _| seen.push(lit)).unwrap();
    assert_eq!(seen.len(), 1);
    assert!(seen[0].escaped);
    assert_eq!(decode(doc, seen[0]), "a\"bé");
}

#[test]
fn rejects_malformed_documents() {
    for doc in [
        "{",
        "[1,]",
        "{\"a\"}",
        "{\"a\":1,}",
        "[1 2]",
        "\"abc",
        "[\"\\x\"]",
        "tru",
        "{}{}",
        "",
        "[\"a\nb\"]",
        "{1:2}",
        "[-]",
        "[1.]",
    ] {
        assert!(for_each_string(doc, |_, _| {}).is_err(), "{doc:?}");
    }
}

#[test]
fn string_errors_do_not_depend_on_where_the_stop_byte_is() {
    // Short and long bodies (the first 32 bytes are read directly, the rest by memchr2).
    for pad in [0, 5, 31, 32, 33, 100] {
        let p = "a".repeat(pad);
        let err = |doc: &str| for_each_string(doc, |_, _| {}).unwrap_err();
        let e = err(&format!("[\"{p}\u{1}x\"]"));
        assert_eq!(
            (e.offset, e.what),
            (2, "no raw control character in a string")
        );
        let e = err(&format!("[\"{p}\u{1}x"));
        assert_eq!((e.offset, e.what), (1, "a closing quote"));
        let e = err(&format!("[\"{p}\\n{p}\u{1}\"]"));
        assert_eq!(
            (e.offset, e.what),
            (4 + pad, "no raw control character in a string")
        );
        assert_eq!(strings(&format!("[\"{p}\\\"{p}\"]")).len(), 1);
        assert_eq!(err(&format!("[\"{p}")).what, "a closing quote");
    }
}

#[test]
fn accepts_what_serde_accepts() {
    for doc in [
        "[]",
        "{}",
        " [ 1 , -2.5e-3 , true , null , \"x\" , { } , [ ] ] ",
        "{\"a\":{\"b\":[{\"c\":\"d\"}]}}",
        "0",
    ] {
        assert!(for_each_string(doc, |_, _| {}).is_ok(), "{doc:?}");
        assert!(serde_json::from_str::<serde_json::Value>(doc).is_ok());
    }
}

#[test]
fn raw_offsets_follow_escapes() {
    // decoded: a " é 😀 b  (bytes: a=0, "=1, é=2..4, 😀=4..8, b=8)
    let raw = r#"a\"\u00e9\ud83d\ude00b"#;
    let mut m = RawOffsets::new(raw);
    assert_eq!(m.raw(0), 0);
    assert_eq!(m.raw(1), 1);
    assert_eq!(m.raw(2), 3);
    assert_eq!(m.raw(4), 9);
    assert_eq!(m.raw(8), 21);
    assert_eq!(m.raw(9), 22);
    let mut m = RawOffsets::new("plain text");
    assert_eq!(m.raw(6), 6);
    assert_eq!(m.raw(10), 10);
}

/// [`RawOffsets`] before [`escape_starts`] (a plain run at a time, its end found with
/// [`find_backslash`] and kept), the oracle of the one read 64 bytes a step.
struct RawOffsetsByRuns<'a> {
    raw: &'a [u8],
    raw_at: usize,
    decoded_at: usize,
    escape_at: usize,
}

impl<'a> RawOffsetsByRuns<'a> {
    fn new(raw_body: &'a str) -> Self {
        RawOffsetsByRuns {
            raw: raw_body.as_bytes(),
            raw_at: 0,
            decoded_at: 0,
            escape_at: 0,
        }
    }

    fn raw(&mut self, target: usize) -> usize {
        while self.decoded_at < target && self.raw_at < self.raw.len() {
            let r = &self.raw[self.raw_at..];
            let (raw_len, decoded_len) = if r[0] == b'\\' {
                match r.get(1) {
                    Some(b'u') => escape_lengths(r),
                    _ => (2, 1),
                }
            } else {
                if self.escape_at <= self.raw_at {
                    self.escape_at = self.raw_at + find_backslash(r);
                }
                let n = (self.escape_at - self.raw_at).min(target - self.decoded_at);
                (n, n)
            };
            self.raw_at += raw_len;
            self.decoded_at += decoded_len;
        }
        self.raw_at
    }
}

/// Escapes every byte or two (a tool result's JSON text, `\u` escapes among them, a `u` after an
/// escape that is no `\u` one) and plain runs of every length.
const DENSE_PIECES: &[&str] = &[
    "\\\"",
    "\\n",
    "\\\\",
    "\\\\u",
    "\\nu",
    "\\/",
    "u",
    "x",
    "ab",
    "\u{e9}",
    "\u{1f600}",
    "\\u00e9",
    "\\u0041",
    "\\ud83d\\ude00",
    "\\ud83d",
    "\\udc00",
    "\\\"\\n  ",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    /// Asked in turn at every character boundary, or at some of them (a span's start and end,
    /// a few bytes apart or blocks apart), the map answers as the old one does on bodies with
    /// an escape every byte or two, as a tool result's JSON text has.
    #[test]
    fn raw_offsets_on_dense_escapes_are_the_old_ones(
        pieces in proptest::collection::vec(proptest::sample::select(DENSE_PIECES), 0..200),
        pad in 0usize..70,
        steps in proptest::collection::vec(
            proptest::prop_oneof![0usize..2, 0usize..8, 0usize..300],
            1..200,
        ),
        every in proptest::bool::ANY,
    ) {
        let mut body = "p".repeat(pad);
        for p in &pieces {
            body.push_str(p);
        }
        let decoded = decode_body(&body);
        let boundaries: Vec<usize> = (0..=decoded.len() + 2)
            .filter(|&t| decoded.is_char_boundary(t) || t > decoded.len())
            .collect();
        let asked: Vec<usize> = if every {
            boundaries.clone()
        } else {
            let mut k = 0;
            steps
                .iter()
                .map_while(|&step| {
                    k += step;
                    boundaries.get(k).copied()
                })
                .collect()
        };
        let (mut new, mut old) = (RawOffsets::new(&body), RawOffsetsByRuns::new(&body));
        for t in asked {
            proptest::prop_assert_eq!(new.raw(t), old.raw(t), "{:?} at {}", body, t);
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// Asked in turn at some of the decoded text's character boundaries (each of them, or a
    /// few far apart, the same one twice, past the end), the map answers as the old one
    /// does; bodies of dense escapes of every kind at every alignment, and long plain runs.
    #[test]
    fn raw_offsets_are_the_old_ones(
        pieces in proptest::collection::vec(proptest::sample::select(BODY_PIECES), 0..80),
        pad in 0usize..70,
        steps in proptest::collection::vec(
            proptest::prop_oneof![0usize..3, 0usize..150],
            1..120,
        ),
    ) {
        let mut body = "p".repeat(pad);
        for p in &pieces {
            body.push_str(p);
        }
        let decoded = decode_body(&body);
        let (mut new, mut old) = (RawOffsets::new(&body), RawOffsetsByRuns::new(&body));
        let boundaries: Vec<usize> = (0..=decoded.len() + 2)
            .filter(|&t| decoded.is_char_boundary(t) || t > decoded.len())
            .collect();
        let mut k = 0;
        for step in steps {
            k += step;
            let Some(&t) = boundaries.get(k) else { break };
            proptest::prop_assert_eq!(new.raw(t), old.raw(t), "{:?} at {}", body, t);
        }
    }
}

#[test]
fn raw_offsets_asked_in_turn_are_those_asked_afresh() {
    // Plain runs of every length between escapes: one map asked at each decoded offset in
    // turn (its next escape found once) answers as a new map asked at that offset alone.
    let mut rng = crate::testdata::Rng::new(17);
    let pieces = [r"\n", r#"\""#, r"\u00e9", r"\ud83d\ude00", "é", "x"];
    for _ in 0..300 {
        let mut raw = String::new();
        for _ in 0..rng.below(6) {
            raw.push_str(&"plain text ".repeat(rng.below(30)));
            raw.push_str(pieces[rng.below(pieces.len())]);
        }
        let decoded = decode_body(&raw);
        let mut m = RawOffsets::new(&raw);
        for t in (0..=decoded.len()).filter(|&t| decoded.is_char_boundary(t)) {
            assert_eq!(m.raw(t), RawOffsets::new(&raw).raw(t), "{raw:?} at {t}");
        }
    }
}

#[test]
fn decodes_like_serde_and_lone_surrogates_lossily() {
    for body in [
        r#"plain"#,
        r#"a\"b\\c\/d\b\f\n\r\t"#,
        r#"\u00e9\u20AC\ud83d\ude00x"#,
        r#"\u0000\u001f"#,
    ] {
        let lit = format!("\"{body}\"");
        let serde: String = serde_json::from_str(&lit).unwrap();
        assert_eq!(decode_body(body), serde, "{body}");
    }
    assert_eq!(
        decode_body(r#"a\ud83d\uee00b\udc00"#),
        "a\u{FFFD}\u{ee00}b\u{FFFD}"
    );
    // The lossy text has the lengths RawOffsets counts.
    let body = r#"[X_1]\ud83d\uee00[Y_2]"#;
    let decoded = decode_body(body);
    let at = decoded.find("[Y_2]").unwrap();
    assert_eq!(&body[RawOffsets::new(body).raw(at)..], "[Y_2]");
}

/// The decoder before [`copy_plain`]: the oracle.
fn decode_body_by_memchr(raw: &str) -> String {
    let r = raw.as_bytes();
    let mut out = String::with_capacity(raw.len());
    let mut i = 0;
    while i < r.len() {
        let run = memchr::memchr(b'\\', &r[i..]).unwrap_or(r.len() - i);
        out.push_str(&raw[i..i + run]);
        i += run;
        if i >= r.len() {
            break;
        }
        let (raw_len, _) = escape_lengths(&r[i..]);
        match r.get(i + 1) {
            Some(b'n') => out.push('\n'),
            Some(b't') => out.push('\t'),
            Some(b'r') => out.push('\r'),
            Some(b'b') => out.push('\u{8}'),
            Some(b'f') => out.push('\u{c}'),
            Some(b'u') if raw_len == 12 => {
                let hi = u32::from(hex4(&r[i + 2..i + 6]));
                let lo = u32::from(hex4(&r[i + 8..i + 12]));
                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                out.push(char::from_u32(c).unwrap_or('\u{FFFD}'));
            }
            Some(b'u') if raw_len == 6 => {
                let unit = u32::from(hex4(&r[i + 2..i + 6]));
                out.push(char::from_u32(unit).unwrap_or('\u{FFFD}'));
            }
            // `\"`, `\\`, `\/`.
            Some(&c) => out.push(char::from(c)),
            None => {}
        }
        i += raw_len;
    }
    out
}

/// The decoder before [`decode_blocks`] (a [`copy_plain`] and a match per escape): the
/// oracle of the block decoder, `alike` included.
fn decode_body_noting_by_copy_plain(raw: &str) -> (String, bool) {
    let mut alike = true;
    let r = raw.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(r.len() + 16);
    let mut i = 0;
    loop {
        i = copy_plain(r, i, &mut out);
        if i >= r.len() {
            break;
        }
        let raw_len = match r.get(i + 1) {
            Some(b'u') => escape_lengths(&r[i..]).0,
            _ => 2,
        };
        match r.get(i + 1) {
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(b'r') => out.push(b'\r'),
            Some(b'b') => {
                out.push(0x08);
                alike = false;
            }
            Some(b'f') => {
                out.push(0x0c);
                alike = false;
            }
            Some(b'u') if raw_len == 12 => {
                let hi = u32::from(hex4(&r[i + 2..i + 6]));
                let lo = u32::from(hex4(&r[i + 8..i + 12]));
                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                push_char(&mut out, char::from_u32(c).unwrap_or('\u{FFFD}'));
                alike = false;
            }
            Some(b'u') if raw_len == 6 => {
                let unit = u32::from(hex4(&r[i + 2..i + 6]));
                push_char(&mut out, char::from_u32(unit).unwrap_or('\u{FFFD}'));
                alike &= !(0xD800..=0xDFFF).contains(&unit);
            }
            Some(&c) if c.is_ascii() => out.push(c),
            Some(&c) => push_char(&mut out, char::from(c)),
            None => {}
        }
        i += raw_len;
    }
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    (text, alike)
}

/// Pieces of string bodies the lexer lets through: every escape (the common ones, `\b`,
/// `\f`, `\u` in both cases, pairs, lone halves of either kind, a high half before a
/// non-surrogate or a second high half), characters of one to four bytes, runs of backslash
/// escapes, and plain runs as long as a block and longer.
const BODY_PIECES: &[&str] = &[
    "a",
    "xyz ",
    "\\\"",
    "\\\\",
    "\\\\\\\\",
    "\\/",
    "\\n",
    "\\t",
    "\\r",
    "\\b",
    "\\f",
    "\\u00e9",
    "\\u00E9",
    "\\u0041",
    "\\u0000",
    "\\u001f",
    "\\u20AC",
    "\\uffff",
    "\\uFFFD",
    "\\ud83d\\ude00",
    "\\uD83D\\uDE00",
    "\\udbff\\udfff",
    "\\ud800\\udc00",
    "\\ud83d",
    "\\udc00",
    "\\uDFFF",
    "\\ud83d\\u0041",
    "\\ud83d\\ud83d",
    "\\ud83d\\ude00\\udc00",
    "\\ud83dx",
    "\u{e9}",
    "\u{20ac}",
    "\u{1f600}",
    "\u{7f}",
    "\\\"\\n",
    "\\n  \\\"",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",
    "A plain run of more than two blocks, as prose has between its escapes: a paragraph, a \
     sentence or two of it, goes on for a few hundred bytes before the next line break.",
];

/// A body of exactly `len` bytes of [`BODY_PIECES`] (whole pieces, then ASCII to fill).
fn body_of_len(rng: &mut crate::testdata::Rng, len: usize) -> String {
    let mut body = String::new();
    loop {
        let piece = *rng.pick(BODY_PIECES);
        if body.len() + piece.len() > len {
            break;
        }
        body.push_str(piece);
    }
    while body.len() < len {
        body.push('q');
    }
    body
}

#[test]
fn block_decoder_is_the_old_one_at_every_length() {
    let mut rng = crate::testdata::Rng::new(0xdec0de);
    for len in 0..200 {
        for _ in 0..300 {
            let body = body_of_len(&mut rng, len);
            assert!(
                lex_string(format!("\"{body}\"").as_bytes(), 0).is_ok(),
                "{body:?}"
            );
            assert_eq!(
                decode_body_noting(&body),
                decode_body_noting_by_copy_plain(&body),
                "{body:?}"
            );
        }
    }
}

#[test]
fn block_decoder_is_the_old_one_with_an_escape_at_every_block_position() {
    // Each escape at every offset up to two blocks and a half, alone and followed by
    // another, so that it starts in one block and ends in the next (or the padded last one).
    for &esc in BODY_PIECES.iter().filter(|p| p.starts_with('\\')) {
        for pad in 0..160 {
            for after in ["", "b", "\\n", "\\u00e9", "xx\\\"", &"c".repeat(70)] {
                let body = format!("{}{esc}{after}", "a".repeat(pad));
                assert_eq!(
                    decode_body_noting(&body),
                    decode_body_noting_by_copy_plain(&body),
                    "{body:?}"
                );
            }
        }
    }
}

#[test]
fn escape_starts_are_those_read_in_order() {
    let mut rng = crate::testdata::Rng::new(0xe5c);
    for round in 0..20_000 {
        // Dense runs of backslashes, sparse ones, and all of them.
        let density = [2, 3, 8, 64][round % 4];
        let backslashes = (0..64).fold(0u64, |m, k| {
            m | u64::from(rng.below(density) != 0 || density == 64 && round % 8 == 3) << k
        });
        for escaped in [false, true] {
            let (mut want, mut k) = (0u64, usize::from(escaped));
            while k < 64 {
                if backslashes >> k & 1 == 1 {
                    want |= 1 << k;
                    k += 2;
                } else {
                    k += 1;
                }
            }
            let got = escape_starts(backslashes, escaped);
            assert_eq!(got, (want, want >> 63 == 1), "{backslashes:064b} {escaped}");
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]
    /// Dense escapes of every kind at every alignment, against the old decoder.
    #[test]
    fn block_decoder_is_the_old_one(
        pieces in proptest::collection::vec(proptest::sample::select(BODY_PIECES), 0..80),
        pad in 0usize..70,
    ) {
        let mut body = "p".repeat(pad);
        for p in &pieces {
            body.push_str(p);
        }
        proptest::prop_assert_eq!(
            decode_body_noting(&body),
            decode_body_noting_by_copy_plain(&body),
            "{:?}", body
        );
    }
}

proptest::proptest! {
    /// The decoder gives what serde gives for what serde writes, and what the one before it
    /// gave for any body the lexer lets through (lone surrogates, escapes every few bytes,
    /// long plain runs, non-ASCII).
    #[test]
    fn decoding_matches_serde_and_the_old_decoder(
        s in "\\PC{0,80}|[a-z\\\\\"\n\t\u{1}\u{e9}\u{1F600}]{0,60}",
        lone in proptest::collection::vec((0usize..64, proptest::sample::select(vec![
            r"\ud83d", r"\udc00", r"\ud83d\ude00", r"\u00e9", r"\/", r"\b",
        ])), 0..4),
    ) {
        let lit = serde_json::to_string(&s).unwrap();
        let body = &lit[1..lit.len() - 1];
        proptest::prop_assert_eq!(decode_body(body), s.clone());
        let mut body = body.to_string();
        for (at, esc) in lone {
            // Only between escapes and characters (as the lexer would find them).
            let mut at = at.min(body.len());
            while !body.is_char_boundary(at)
                || body[..at].bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
                || lex_string(format!("\"{}\"", &body[..at]).as_bytes(), 0).is_err()
            {
                at -= 1;
            }
            body.insert_str(at, esc);
        }
        let decoded = decode_body(&body);
        proptest::prop_assert_eq!(&decoded, &decode_body_by_memchr(&body));
        // Each character boundary of the decoded text maps to the raw offset whose prefix
        // decodes to the text before it.
        let mut offsets = RawOffsets::new(&body);
        for (at, _) in decoded.char_indices() {
            let raw = offsets.raw(at);
            proptest::prop_assert_eq!(decode_body(&body[..raw]), &decoded[..at]);
        }
    }
}

/// [`document_text`] before [`copy_plain`]: the oracle.
fn json_text_by_memchr(doc: &str) -> std::borrow::Cow<'_, str> {
    let Some(first) = memchr::memchr(b'\\', doc.as_bytes()) else {
        return std::borrow::Cow::Borrowed(doc);
    };
    let mut out = String::with_capacity(doc.len());
    out.push_str(&doc[..first]);
    // `rest` starts at a backslash on every turn: the run before it is copied whole.
    let mut rest = &doc[first..];
    while let Some(escaped) = rest.strip_prefix('\\') {
        let mut chars = escaped.chars();
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('b' | 'f') => out.push(' '),
            Some('u') => out.push(unicode_escape(&mut chars).unwrap_or(' ')),
            Some(other) => out.push(other),
            None => {}
        }
        let after = chars.as_str();
        let next = memchr::memchr(b'\\', after.as_bytes()).unwrap_or(after.len());
        out.push_str(&after[..next]);
        rest = &after[next..];
    }
    std::borrow::Cow::Owned(out)
}

#[test]
fn document_text_reads_escapes() {
    assert_eq!(document_text(r#"{"a":"x\nMaria"}"#), "{\"a\":\"x\nMaria\"}");
    assert_eq!(
        document_text(r#""Ad\u00e9la\u00efde \ud83d\ude00 \"q\" \\ \/""#),
        "\"Adélaïde 😀 \"q\" \\ /\""
    );
    // A lone surrogate and a cut escape read as spaces (the cut one takes the quote).
    assert_eq!(document_text(r#""\ud83d \u12""#), "\"   ");
}

proptest::proptest! {
    /// Any string serde_json writes reads back as itself (`\b` and `\f` as spaces).
    #[test]
    fn document_text_reads_what_serde_writes(s in "\\PC*|[a-z\\\\\"\n\t\u{1}\u{e9}\u{1F600}]{0,40}") {
        let written = serde_json::to_string(&s).unwrap();
        let expected = format!("\"{}\"", s.replace(['\u{8}', '\u{c}'], " "));
        proptest::prop_assert_eq!(document_text(&written), expected);
    }
}

proptest::proptest! {
    /// The text is the one the decoder before [`copy_plain`] gave, on documents with
    /// escapes every few bytes, lone surrogates and cut escapes.
    #[test]
    fn document_text_matches_the_old_one(
        parts in proptest::collection::vec(proptest::sample::select(vec![
            "{", "\"name\":", "\"Maria \\\"Garcia\\\"\"", "\\n", "  ", "\\u00e9",
            "\\ud83d\\ude00", "\\ud83d", "\\u12", "\\\\", "\\/", "\\b", "é", "plain text of a note, ",
            "}", "\\",
        ]), 0..40),
    ) {
        let doc: String = parts.concat();
        proptest::prop_assert_eq!(document_text(&doc), json_text_by_memchr(&doc));
    }
}

proptest::proptest! {
    /// With any of its literals' texts taken from the walk's decoder where it says the two
    /// read them alike, a document's text is what reading all its escapes gives; `\b`,
    /// `\f` and surrogates included.
    #[test]
    fn document_text_with_decoded_literals_is_the_documents_text(
        bodies in proptest::collection::vec(
            (
                proptest::collection::vec(proptest::sample::select(vec![
                    "Maria", " ", "\\\"", "\\n", "\\u00e9", "\\ud83d\\ude00", "\\ud83d",
                    "\\uDBFF\\uDFFF", "\\\\", "\\\\b", "\\/", "\\b", "\\f", "é", "{\\\"a\\\":1}",
                ]), 0..12),
                proptest::bool::ANY,
            ),
            0..6,
        ),
    ) {
        let mut doc = String::from("{");
        let mut ranges = Vec::new();
        for (k, (parts, _)) in bodies.iter().enumerate() {
            if k > 0 {
                doc.push(',');
            }
            doc.push_str(&format!("\"k{k}\":\""));
            let start = doc.len();
            doc.push_str(&parts.concat());
            ranges.push(start..doc.len());
            doc.push('"');
        }
        doc.push('}');
        let decoded: Vec<(String, bool)> =
            ranges.iter().map(|r| decode_body_noting(&doc[r.clone()])).collect();
        let kept: Vec<(Range<usize>, String)> = bodies
            .iter()
            .zip(&ranges)
            .zip(decoded)
            .filter(|(((_, keep), _), (_, alike))| *keep && *alike)
            .map(|((_, r), (d, _))| (r.clone(), d))
            .collect();
        let texts: Vec<String> = kept.iter().map(|(_, t)| t.clone()).collect();
        let (whole, homes) = document_text_with(&doc, kept);
        proptest::prop_assert_eq!(&whole, &document_text(&doc));
        // Each kept text stands where the whole says.
        proptest::prop_assert_eq!(homes.len(), texts.len());
        for (home, text) in homes.iter().zip(&texts) {
            proptest::prop_assert_eq!(whole.get(*home..home + text.len()), Some(text.as_str()));
        }
    }
}

proptest::proptest! {
    /// The encoding is serde's, byte for byte.
    #[test]
    fn encoding_is_serdes(s in "\\PC{0,80}|[a-z\\\\\"\n\t\r\u{1}\u{8}\u{c}\u{1f}\u{7f}\u{e9}\u{1F600}]{0,60}") {
        let mut out = String::new();
        encode_body_into(&s, &mut out);
        let serde = serde_json::to_string(&s).unwrap();
        proptest::prop_assert_eq!(out.as_str(), &serde[1..serde.len() - 1]);
    }
}

#[test]
fn encode_round_trips() {
    for s in ["plain", "q\"uote", "back\\slash", "new\nline\u{1}", "é😀"] {
        let mut out = String::from("\"");
        encode_body_into(s, &mut out);
        out.push('"');
        assert_eq!(serde_json::from_str::<String>(&out).unwrap(), s);
    }
}

/// Every visit of a walk of `doc`: the literal and its path.
fn visits(doc: &str, known: &[Range<usize>]) -> Result<Vec<(Literal, String)>, JsonError> {
    let mut seen = Vec::new();
    for_each_value_known(doc, known, |lit, pos| seen.push((lit, pos.path())))?;
    Ok(seen)
}

proptest::proptest! {
    /// Told where some escaped literals end (as a reader of the same text found them), the
    /// walk visits what it visits reading every body; ranges that start at no literal's quote
    /// are passed over.
    #[test]
    fn known_ends_change_no_visit(
        values in proptest::collection::vec(
            "[a-z \\\\\"\n\u{1}é😀]{0,30}|\\{\"k\":\"[a-z\n]{0,9}\"\\}", 0..12),
        keep in proptest::collection::vec(proptest::bool::ANY, 24),
        junk in proptest::collection::vec(0usize..400, 0..4),
    ) {
        let doc = serde_json::to_string(&serde_json::json!({ "v": values, "w": values.first() }))
            .unwrap();
        let mut literals = Vec::new();
        for_each_string(&doc, |lit, _| literals.push(lit)).unwrap();
        let mut known: Vec<Range<usize>> = literals
            .iter()
            .zip(keep.iter().cycle())
            .filter(|(lit, keep)| lit.escaped && **keep)
            .map(|(lit, _)| lit.start..lit.end)
            .collect();
        // Ranges that start at no literal's quote: inside a body, between literals, past the
        // end.
        for j in junk {
            if literals.iter().all(|lit| lit.start != j) {
                known.push(j..j + 3);
            }
        }
        known.sort_by_key(|r| r.start);
        proptest::prop_assert_eq!(visits(&doc, &known).unwrap(), visits(&doc, &[]).unwrap());
    }
}

#[test]
fn a_known_end_is_taken_without_reading_the_body() {
    // A body the lexer would refuse (a raw control byte), told as known: its end is taken.
    let doc = "[\"a\\n\u{1}b\",\"c\"]";
    assert!(visits(doc, &[]).is_err());
    let known = [Range { start: 1, end: 8 }];
    let seen = visits(doc, &known).unwrap();
    assert_eq!(seen.len(), 2);
    assert!(matches!(
        seen[0].0,
        Literal::Str(StrLit {
            start: 1,
            end: 8,
            escaped: true,
            ..
        })
    ));
}
