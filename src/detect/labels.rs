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
//!
//! Logs and URLs write fields as `key=value` pairs (`assignee=maria.garcia name="maria garcia"`,
//! `?name=Maria&id=7`): [`for_each_pair_value`] finds those, for the same judgement.

use super::lanes::{self, is_key_byte, is_label_byte};
#[cfg(test)]
use super::seps::Scanned;
use super::seps::Seps;

/// The longest label looked at, in bytes ("emergency contact name").
const MAX_LABEL: usize = 32;
/// The longest value looked at, in bytes.
const MAX_VALUE: usize = 80;

/// Calls `f(label, start, end)` for each `Label: value` line of `text` (a space or tab after
/// the colon) whose label could be a field name, with `start..end` the value's range (trimmed; cut before an address in `<>`,
/// a bracket, `|`, `;` or a tab).
/// `seps` are the separators of `text` (`seps.rs`).
pub(super) fn for_each_labelled_value(
    text: &str,
    seps: impl Seps,
    mut f: impl FnMut(&str, usize, usize),
) {
    debug_assert!(seps.is_of(text));
    let b = text.as_bytes();
    for colon in seps.of(b':') {
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
        // A quoted value (YAML, TOML: `name: "Michał Zugaj"`) is the text inside the quotes.
        if end >= start + 2 && matches!(b[start], b'"' | b'\'') && b[end - 1] == b[start] {
            start += 1;
            end -= 1;
        }
        if end > start && text.is_char_boundary(end) {
            f(&text[label.0..label.1], start, end);
        }
    }
}

/// The range of the label that ends at the colon at `colon`: one to three words of ASCII
/// letters (spaces, `_` and `-` between), alone on its line but for indentation and a bullet.
#[inline]
fn label_before(b: &[u8], colon: usize) -> Option<(usize, usize)> {
    let i = run_start(b, colon, is_label_byte, lanes::label_bytes);
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

/// The longest key of a `key=value` pair looked at, in bytes.
const MAX_KEY: usize = 32;

/// How far back [`run_start`] reads: one byte past the longest label or key, which tells a
/// run of [`RUN_LIMIT`] bytes from a longer one.
const RUN_LIMIT: usize = 32;
const _: () = assert!(MAX_LABEL == RUN_LIMIT && MAX_KEY == RUN_LIMIT);

/// Where the run of `member` bytes that ends at `end` starts, looking at most
/// [`RUN_LIMIT`]` + 1` bytes back (a start more than [`RUN_LIMIT`] bytes back means "too
/// long"). Most colons and `=` of logs have a run of a few words before them that is no label
/// or key, which cost nine instructions a byte walked one at a time: here (when the byte before
/// `end` is in the run at all) the 32 bytes before `end` are classified sixteen at a time
/// (`lanes`, the same class as `member`), and the run starts after the last byte outside it.
/// Texts shorter than that at `end` are walked.
#[inline(always)]
fn run_start(
    b: &[u8],
    end: usize,
    member: impl Fn(u8) -> bool,
    lanes: impl Fn(&[u8], usize) -> u32,
) -> usize {
    // Many runs are empty (`"name": ` in JSON text, `10:22`): one byte tells, where the masks
    // would cost thirty instructions.
    if end == 0 || !b.get(end - 1).copied().is_some_and(&member) {
        return end;
    }
    let Some(from) = end.checked_sub(RUN_LIMIT) else {
        return run_start_walked(b, end, member);
    };
    let run = lanes(b, from) | lanes(b, from + 16) << 16;
    if run != u32::MAX {
        // The highest zero bit is the last byte outside the run.
        return end - (!run).leading_zeros() as usize;
    }
    // All 32 are in: the walk would read one byte more.
    if from > 0 && b.get(from - 1).copied().is_some_and(member) {
        from - 1
    } else {
        from
    }
}

/// [`run_start`] a byte at a time: near a text's start, and the test oracle.
fn run_start_walked(b: &[u8], end: usize, member: impl Fn(u8) -> bool) -> usize {
    let mut i = end;
    while i > 0 && end - i <= RUN_LIMIT && member(b[i - 1]) {
        i -= 1;
    }
    i
}

/// Calls `f(key, start, end)` for each `key=value` pair of `text` (logfmt, URL queries, shell
/// assignments) whose key is `wanted`, with `start..end` the value's range.
///
/// A key is identifier bytes (letters, digits, `_`, `-`, `.`) right before the `=`, after a
/// space, a line start or `?`, `&`, `,`, `;`, `(`, `{`. The value is quoted (double or single,
/// up to the closing quote on the line) or bare (up to a space, `&`, `,`, `;`, `:`, `)`, `}`,
/// going on over a space before a capitalised word that is no next key). `key = value` with
/// spaces is code, not a pair. Logs hold many pairs and few wanted ones, so the up to eight
/// bytes before each `=` are first asked whether they `might_end_key`, then the key whether
/// it is `wanted`, and only then is the value looked for. `seps` are the separators of `text`
/// (`seps.rs`).
pub(super) fn for_each_pair_value(
    text: &str,
    seps: impl Seps,
    might_end_key: impl Fn(&[u8]) -> bool,
    wanted: impl Fn(&str) -> bool,
    mut f: impl FnMut(&str, usize, usize),
) {
    debug_assert!(seps.is_of(text));
    let b = text.as_bytes();
    for eq in seps.of(b'=') {
        // The key's last letters first: most pairs are turned away there.
        if !might_end_key(&b[eq.saturating_sub(8)..eq]) {
            continue;
        }
        let k = run_start(b, eq, is_key_byte, lanes::key_bytes);
        let key_ok = k < eq
            && eq - k <= MAX_KEY
            && b[k].is_ascii_alphabetic()
            && (k == 0
                || matches!(
                    b[k - 1],
                    b' ' | b'\t' | b'\n' | b'\r' | b'?' | b'&' | b',' | b';' | b'(' | b'{'
                ));
        // The key is ASCII, so `k..eq` are char boundaries.
        if !key_ok || !wanted(&text[k..eq]) {
            continue;
        }
        let (start, end) = match b.get(eq + 1) {
            Some(&q @ (b'"' | b'\'')) => {
                let start = eq + 2;
                let limit = b.len().min(start + MAX_VALUE);
                let Some(len) = b[start..limit].iter().position(|&c| c == q || c == b'\n') else {
                    continue;
                };
                if b[start + len] != q {
                    continue;
                }
                (start, start + len)
            }
            Some(_) => {
                let start = eq + 1;
                let limit = b.len().min(start + MAX_VALUE);
                let bare_end = |from: usize| {
                    b[from..limit]
                        .iter()
                        .position(|&c| {
                            c.is_ascii_whitespace()
                                || matches!(
                                    c,
                                    b'&' | b',' | b';' | b':' | b')' | b'}' | b'"' | b'\'' | b'='
                                )
                        })
                        .map_or(limit, |n| from + n)
                };
                let mut end = bare_end(start);
                // A bare value goes on over a space before a capitalised word that is no key
                // of the next pair (`CN=Maria Garcia:mailto:..` in a calendar entry,
                // `name=Maria Garcia status=open`).
                while b.get(end) == Some(&b' ')
                    && b.get(end + 1).is_some_and(u8::is_ascii_uppercase)
                    && end + 1 < limit
                {
                    let next = bare_end(end + 1);
                    if b.get(next) == Some(&b'=') {
                        break;
                    }
                    end = next;
                }
                (start, end)
            }
            None => continue,
        };
        if end > start && text.is_char_boundary(end) {
            f(&text[k..eq], start, end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for_each_labelled_value(text, Scanned::new(text), |label, s, e| {
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
        // YAML and TOML quote values: the value is what the quotes hold.
        assert_eq!(
            fields("people:\n  - name: \"Michał Zugaj\"\n    nick: 'jo'\n    x: \""),
            [
                ("name".to_string(), "Michał Zugaj".to_string()),
                ("nick".to_string(), "jo".to_string()),
                ("x".to_string(), "\"".to_string()),
            ]
        );
    }

    fn pairs(text: &str) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for_each_pair_value(
            text,
            Scanned::new(text),
            |tail| !tail.ends_with(b"skip2"),
            |key| key != "skip",
            |key, s, e| out.push((key.to_string(), text[s..e].to_string())),
        );
        out
    }

    #[test]
    fn finds_key_value_pairs() {
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            pairs("level=info assignee=maria.garcia name=\"maria garcia\" n=7"),
            [
                pair("level", "info"),
                pair("assignee", "maria.garcia"),
                pair("name", "maria garcia"),
                pair("n", "7"),
            ]
        );
        assert_eq!(pairs("skip=1 keep=2 skip2=3"), [pair("keep", "2")]);
        assert_eq!(
            pairs("GET /users?name=Maria&id=7 200"),
            [pair("name", "Maria"), pair("id", "7")]
        );
        assert_eq!(
            pairs("owner='Omar Haddad';"),
            [pair("owner", "Omar Haddad")]
        );
        // Code: spaces around `=`, comparisons, an unclosed quote, a key made of digits.
        assert!(pairs("let x = grant; if a == b {}").is_empty());
        assert!(pairs("name=\"unclosed").is_empty());
        assert!(pairs("3=4 x==y").iter().all(|(k, _)| k != "3"));
    }

    #[test]
    fn run_start_is_the_walk() {
        // Runs of every length around the limit, with and without a byte outside them, at
        // every end: the masks' answer against the byte walk's.
        let mut rng = crate::testdata::Rng::new(12);
        let alphabet = b"aZ09 _-.:=\n\t\xc3\xa9!";
        for _ in 0..4_000 {
            let len = rng.below(90);
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.below(8) == 0 {
                        alphabet[rng.below(alphabet.len())]
                    } else {
                        alphabet[rng.below(7)]
                    }
                })
                .collect();
            for end in 0..=text.len() {
                assert_eq!(
                    run_start(&text, end, is_label_byte, lanes::label_bytes),
                    run_start_walked(&text, end, is_label_byte),
                    "label {text:?} at {end}"
                );
                assert_eq!(
                    run_start(&text, end, is_key_byte, lanes::key_bytes),
                    run_start_walked(&text, end, is_key_byte),
                    "key {text:?} at {end}"
                );
            }
        }
    }

    #[test]
    fn leaves_colons_that_are_no_labels() {
        assert!(fields("2024-03-01T10:22:01Z login ok").is_empty());
        assert!(fields("see https://example.com/a for more").is_empty());
        assert!(fields("a very long label that goes on and on and on: x").is_empty());
    }
}
