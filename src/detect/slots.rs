//! Person slots: fields of well-known text formats whose value is a person, whatever its shape.
//!
//! A name finder judges words; a slot needs no judging. The value of a git `Author:` line is
//! the person who wrote the commit, whether it reads "Maria Garcia", "jdoe", "dev42",
//! "Søren Ødegård" or "김민준"; so is a `Signed-off-by:` trailer, the display name of a mail
//! `From:`/`To:`/`Cc:` address, an LDIF `cn:`/`givenName:`/`uid:`, a vCard `FN:`/`N:` and the
//! `CN=` of an iCalendar `ATTENDEE`/`ORGANIZER`. Logins and handles in these slots are
//! personal data and are tokenized as NAME (one kind keeps the token grammar, policies and
//! audit as they are; the README says so).
//!
//! [`for_each_person`] reports the byte range of each such person. The value runs to the
//! address in `<>` (or the end of the field): every word of it is the person. Values that
//! are plainly no person are left alone: a commit hash (`Commit: 3f2a9c1`), a bare number, an
//! address alone (the email recognizer has it).
//!
//! Cost: the slot labels are found from the colons of the text (the caller only asks when
//! the text has one); each colon costs a short backward look that stops at an earlier colon
//! on the line (timestamps) or at the line start. `git blame` lines are found from `(` only
//! when the text has a digit.

use memchr::{memchr, memmem, memrchr3};

use super::seps::Seps;

/// The longest line prefix before a colon that is read as a label (with vCard/iCalendar
/// parameters: `ATTENDEE;CN="Haddad, Omar";ROLE=REQ-PARTICIPANT:`).
const MAX_PREFIX: usize = 200;
/// The longest value that is a person, in bytes.
const MAX_PERSON: usize = 100;

/// What a slot label says about its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// Mail headers: a list of addresses, each with an optional display name.
    Mail,
    /// git `Author:`/`Commit:` lines and trailers: `Name <address>` or a name alone.
    Git,
    /// The whole value (LDIF attributes, vCard `FN`/`NICKNAME`).
    Whole,
    /// vCard `N:`: `family;given;additional;prefix;suffix`.
    VcardN,
    /// iCalendar `ATTENDEE`/`ORGANIZER`: the `CN=` parameter.
    CalendarCn,
    /// LDIF `dn:`: the `cn=` and `uid=` components.
    Dn,
}

/// The slot a label (ASCII, compared case-insensitively) names. `upper` says the label was
/// written in capitals (vCard's one- and two-letter labels count only so).
fn slot_of(label: &[u8], upper: bool) -> Option<Slot> {
    let mut buf = [0u8; 20];
    if label.len() > buf.len() {
        return None;
    }
    for (d, s) in buf.iter_mut().zip(label) {
        *d = s.to_ascii_lowercase();
    }
    Some(match &buf[..label.len()] {
        b"from" | b"to" | b"cc" | b"bcc" | b"reply-to" | b"sender" | b"resent-from"
        | b"resent-to" | b"resent-cc" => Slot::Mail,
        b"author" | b"commit" | b"committer" | b"signed-off-by" | b"co-authored-by"
        | b"reviewed-by" | b"acked-by" | b"tested-by" | b"reported-by" | b"suggested-by"
        | b"helped-by" | b"cc-by" => Slot::Git,
        b"cn" | b"sn" | b"givenname" | b"displayname" | b"uid" | b"gecos" | b"nickname" => {
            Slot::Whole
        }
        b"fn" if upper => Slot::Whole,
        b"n" if upper => Slot::VcardN,
        b"attendee" | b"organizer" => Slot::CalendarCn,
        b"dn" => Slot::Dn,
        _ => return None,
    })
}

/// Calls `f(start, end)` for each person in a slot of `text`. `digits` says the text holds
/// an ASCII digit (`git blame` lines need one); `seps` are its separators (`seps.rs`), shared
/// with the other passes over them.
pub(super) fn for_each_person(
    text: &str,
    seps: impl Seps,
    digits: bool,
    mut f: impl FnMut(usize, usize),
) {
    debug_assert!(seps.is_of(text));
    let b = text.as_bytes();
    for colon in seps.of(b':') {
        let Some(line) = line_start(b, colon) else {
            continue;
        };
        let mut i = line;
        while i < colon && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
        let label_start = i;
        while i < colon && (b[i].is_ascii_alphabetic() || (i > label_start && b[i] == b'-')) {
            i += 1;
        }
        if i == label_start || (i < colon && b[i] != b';') {
            continue;
        }
        let label = &b[label_start..i];
        let upper = label.iter().all(u8::is_ascii_uppercase);
        let Some(slot) = slot_of(label, upper) else {
            continue;
        };
        let line_end = memchr(b'\n', &b[colon..]).map_or(b.len(), |n| colon + n);
        let params = i..colon;
        let value = colon + 1..line_end;
        match slot {
            Slot::Mail => mail(text, value, &mut f),
            Slot::Git => git(text, value, &mut f),
            Slot::Whole => {
                // LDIF `cn:: base64` is encoded: nothing to read.
                if b.get(colon + 1) != Some(&b':') {
                    whole(text, value, &mut f);
                }
            }
            Slot::VcardN => {
                let mut at = value.start;
                for (n, part) in text[value.clone()].split(';').enumerate() {
                    // family; given; additional (prefix and suffix are titles).
                    if n < 3 {
                        whole(text, at..at + part.len(), &mut f);
                    }
                    at += part.len() + 1;
                }
            }
            Slot::CalendarCn => calendar_cn(text, params, &mut f),
            Slot::Dn => dn(text, value, &mut f),
        }
    }
    if digits {
        blame(text, &mut f);
    }
}

/// The words that open a greeting line ("Hi 상호,", "Dear Ἀλέξανδρος,"), in lower case.
const GREETINGS: &[&str] = &[
    "hi", "hello", "hey", "dear", "hallo", "hola", "bonjour", "ciao", "olá", "hej", "moin",
];

/// Calls `f(start, end)` for the person of each greeting line in a non-Latin script: a line
/// that opens with a greeting word and one to three words of letters with no ASCII letter
/// among them, ending in `,` or `!` and the end of the line ("Hi 英樹,", "Dear مياس,"). The
/// name finder reads Latin-script names after a greeting; in other scripts it has no
/// capitals to go by, and the greeting line says who the word is. Lines in Latin script are
/// left to the finder ("Hi team," "Dear customer," are no names).
pub(super) fn for_each_greeted(text: &str, mut f: impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let end = memchr(b'\n', &b[at..]).map_or(b.len(), |n| at + n);
        if let Some((s, e)) = greeted(text, at, end) {
            f(s, e);
        }
        at = end + 1;
    }
}

/// The person of the greeting line `text[start..end]`, if it is one (see [`for_each_greeted`]).
fn greeted(text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
    let line = text[start..end].trim_end_matches(['\r', ' ']);
    let lead = line.len() - line.trim_start().len();
    let line = line.trim_start();
    // Most lines turn away at their first letter; a greeting word is at most eight bytes.
    if !matches!(
        line.bytes().next(),
        Some(b'h' | b'H' | b'd' | b'D' | b'c' | b'C' | b'b' | b'B' | b'o' | b'O' | b'm' | b'M')
    ) {
        return None;
    }
    let head = &line.as_bytes()[..line.len().min(9)];
    let word_end = head.iter().position(|&c| c == b' ' || c == 0xC2)?;
    let greeting = line.get(..word_end)?;
    if greeting.len() > 8 || !GREETINGS.iter().any(|g| greeting.eq_ignore_ascii_case(g)) {
        return None;
    }
    let rest = line.get(word_end..)?;
    let value = rest.trim_start_matches([' ', '\u{a0}']);
    let value = value.strip_suffix([',', '!', '，', '、'])?.trim_end();
    let words = value.split(' ').count();
    let ok = !value.is_empty()
        && value.len() <= 40
        && words <= 3
        && value.chars().all(|c| {
            c == ' '
                || c == '-'
                || c == '\''
                || (!c.is_ascii() && (c.is_alphabetic() || is_mark(c)))
        });
    if !ok {
        return None;
    }
    let s = start + lead + word_end + (rest.len() - rest.trim_start_matches([' ', '\u{a0}']).len());
    Some((s, s + value.len()))
}

/// Combining marks of the scripts a greeting may be written in (Devanagari vowel signs,
/// Hebrew and Arabic points), which `char::is_alphabetic` does not always count.
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x0591..=0x05C7 | 0x0610..=0x061A | 0x064B..=0x065F
        | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0962..=0x0963 | 0x0981..=0x09CD)
}

/// The start of the line of the colon at `colon`, if no colon comes before it on the line and
/// the line starts at most [`MAX_PREFIX`] bytes before it.
/// The nearest line break or colon before it is found with one vectorised backward search
/// (code and logs hold many colons on long lines: `::`, timestamps).
#[inline(always)]
fn line_start(b: &[u8], colon: usize) -> Option<usize> {
    let floor = colon.saturating_sub(MAX_PREFIX);
    if colon > floor && b[colon - 1] == b':' {
        return None;
    }
    match memrchr3(b'\n', b'\r', b':', &b[floor..colon]) {
        Some(j) if b[floor + j] == b':' => None,
        Some(j) => Some(floor + j + 1),
        None => (floor == 0).then_some(0),
    }
}

/// [`line_start`] as it was (a byte-at-a-time backward look): its test oracle.
#[cfg(test)]
fn line_start_reference(b: &[u8], colon: usize) -> Option<usize> {
    let floor = colon.saturating_sub(MAX_PREFIX);
    let mut i = colon;
    while i > floor {
        match b[i - 1] {
            b'\n' | b'\r' => return Some(i),
            b':' => return None,
            _ => i -= 1,
        }
    }
    (i == 0).then_some(0)
}

/// The trimmed range of `range` in `text` (ASCII spaces, tabs, `\r`, and surrounding quotes).
fn trimmed(text: &str, range: std::ops::Range<usize>) -> (usize, usize) {
    let b = text.as_bytes();
    let (mut s, mut e) = (range.start, range.end.min(b.len()));
    while s < e && matches!(b[s], b' ' | b'\t' | b'\r' | b'"' | b'\'') {
        s += 1;
    }
    while e > s && matches!(b[e - 1], b' ' | b'\t' | b'\r' | b'"' | b'\'' | b',') {
        e -= 1;
    }
    (s, e)
}

/// Reports `range` (trimmed) if it can be a person: a letter in it, no `@` (an address alone),
/// not a commit hash or a number, not longer than [`MAX_PERSON`].
fn whole(text: &str, range: std::ops::Range<usize>, f: &mut impl FnMut(usize, usize)) {
    let (s, e) = trimmed(text, range);
    if s >= e || e - s > MAX_PERSON || !text.is_char_boundary(s) || !text.is_char_boundary(e) {
        return;
    }
    let v = &text[s..e];
    let hex = v.len() >= 7 && v.bytes().all(|c| c.is_ascii_hexdigit());
    if hex || v.contains('@') || !v.chars().any(char::is_alphabetic) {
        return;
    }
    f(s, e);
}

/// git `Author: Name <address>` (or a name alone): the name.
fn git(text: &str, value: std::ops::Range<usize>, f: &mut impl FnMut(usize, usize)) {
    let v = &text.as_bytes()[value.clone()];
    let end = memchr(b'<', v).map_or(value.end, |n| value.start + n);
    whole(text, value.start..end, f);
}

/// A mail header's addresses: the display name of each (`Name <a@x>`, `"Doe, Jane" <j@x>`,
/// `a@x (Name)`). Only a header that holds an address counts: `To: all staff` is prose.
fn mail(text: &str, value: std::ops::Range<usize>, f: &mut impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    let v = &b[value.clone()];
    if memchr(b'@', v).is_none() {
        return;
    }
    // Items are separated by commas outside quotes and angle brackets.
    let mut item = value.start;
    let mut quoted = false;
    let mut angle = false;
    for i in value.clone().chain(std::iter::once(value.end)) {
        let c = b.get(i).copied().filter(|_| i < value.end);
        match c {
            Some(b'"') => quoted = !quoted,
            Some(b'<') if !quoted => angle = true,
            Some(b'>') if !quoted => angle = false,
            Some(b',') if quoted || angle => {}
            Some(b',') | None => {
                mail_item(text, item..i, f);
                item = i + 1;
            }
            _ => {}
        }
    }
}

fn mail_item(text: &str, item: std::ops::Range<usize>, f: &mut impl FnMut(usize, usize)) {
    let b = &text.as_bytes()[item.clone()];
    if let Some(lt) = memchr(b'<', b) {
        whole(text, item.start..item.start + lt, f);
    } else if let (Some(open), Some(close)) = (memchr(b'(', b), memchr::memrchr(b')', b))
        && open < close
    {
        whole(text, item.start + open + 1..item.start + close, f);
    }
}

/// iCalendar `ATTENDEE;CN=Omar Haddad;ROLE=..:mailto:..`: the `CN` parameter's value.
fn calendar_cn(text: &str, params: std::ops::Range<usize>, f: &mut impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    let p = &b[params.clone()];
    let Some(at) = memmem::find_iter(p, b";").find(|&i| {
        p.get(i + 1..i + 4)
            .is_some_and(|k| k.eq_ignore_ascii_case(b"cn="))
    }) else {
        return;
    };
    let start = params.start + at + 4;
    let end = if b.get(start) == Some(&b'"') {
        memchr(b'"', &b[start + 1..params.end]).map_or(params.end, |n| start + 1 + n)
    } else {
        memchr(b';', &b[start..params.end]).map_or(params.end, |n| start + n)
    };
    whole(text, start..end, f);
}

/// LDIF `dn: cn=Maria Garcia,ou=people,dc=example` or `uid=mgarcia,..`: the `cn` and `uid`
/// values.
fn dn(text: &str, value: std::ops::Range<usize>, f: &mut impl FnMut(usize, usize)) {
    let mut at = value.start;
    for part in text[value.clone()].split(',') {
        let lead = part.len() - part.trim_start().len();
        let p = part.trim_start().as_bytes();
        for key in [&b"cn="[..], b"uid="] {
            if p.len() > key.len() && p[..key.len()].eq_ignore_ascii_case(key) {
                let s = at + lead + key.len();
                whole(text, s..at + part.len(), f);
            }
        }
        at += part.len() + 1;
    }
}

/// `git blame` lines: `^3f2a9c1 (Maria Garcia 2024-01-01 12:00:00 +0000  1) code`, with an
/// optional file name after the hash; and `--porcelain` `author`/`committer` lines.
///
/// Only a line that opens with a hash and a space can be one, and in code and logs few do:
/// each line start is asked for a hash, and only such a line is searched for its end and its
/// first `(` (the only one that can open its author).
///
/// The line breaks are found two ways. Where lines are short (code, logs) a `memchr` call per
/// line break costs more than the search itself, so they are read from a mask of 64 bytes at
/// a time (`lanes::eq64`); where they are long (prose paragraphs) `memchr` skips to the next
/// one faster than 64-byte masks can. The walk reads masks after a line break found within
/// 128 bytes of the last, and goes back to `memchr` after three masks without one (a single
/// long line in a log is no reason to leave the masks).
fn blame(text: &str, f: &mut impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    blame_at(text, 0, f);
    // Every line break at or after `pos` is still to be read.
    let mut pos = 0;
    // Masks without a line break in a row, while reading masks; `None` while using `memchr`.
    let mut empty: Option<u8> = None;
    while pos < b.len() {
        if let Some(run) = empty {
            let mut breaks = super::lanes::eq64(b, pos, b'\n');
            empty = if breaks != 0 {
                Some(0)
            } else {
                Some(run + 1).filter(|&r| r < 3)
            };
            while breaks != 0 {
                blame_at(text, pos + breaks.trailing_zeros() as usize + 1, f);
                breaks &= breaks - 1;
            }
            pos += 64;
        } else {
            let Some(n) = memchr(b'\n', &b[pos..]) else {
                break;
            };
            blame_at(text, pos + n + 1, f);
            empty = (n < 128).then_some(0);
            pos += n + 1;
        }
    }
    blame_porcelain(text, f);
}

/// The author of the line at `line` if it is a `git blame` line ([`blame_line`]). Inlined into
/// the walk: most lines are turned away at their first bytes.
#[inline(always)]
fn blame_at(text: &str, line: usize, f: &mut impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    if opens_with_hash(b, line) {
        let line_end =
            memchr(b'\n', b.get(line..).unwrap_or_default()).map_or(b.len(), |n| line + n);
        blame_line(text, line, line_end, f);
    }
}

/// [`blame`] as it was (the lines walked with `memchr_iter`): its test oracle.
#[cfg(test)]
fn blame_by_memchr(text: &str, f: &mut impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    let mut line = 0;
    for line_end in memchr::memchr_iter(b'\n', b).chain(std::iter::once(b.len())) {
        if opens_with_hash(b, line) {
            blame_line(text, line, line_end, f);
        }
        line = line_end + 1;
    }
    blame_porcelain(text, f);
}

/// Whether the line at `line` starts with a commit hash (seven hex digits or more, after an
/// optional `^`) and a space.
#[inline(always)]
fn opens_with_hash(b: &[u8], line: usize) -> bool {
    let mut i = line + usize::from(b.get(line) == Some(&b'^'));
    let hex_start = i;
    while i < b.len() && b[i].is_ascii_hexdigit() {
        i += 1;
    }
    i - hex_start >= 7 && b.get(i) == Some(&b' ')
}

/// The author of the `git blame` line from `line` to `line_end`, which opens with a hash, if it
/// is one: after the line's first `(`, when that `(` lies within [`MAX_PREFIX`] bytes of the
/// line break before the line (or of the text's start).
#[inline(never)]
fn blame_line(text: &str, line: usize, line_end: usize, f: &mut impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    let Some(open) = memchr(b'(', &b[line..line_end]).map(|k| line + k) else {
        return;
    };
    let floor = open.saturating_sub(MAX_PREFIX);
    // The line break before the line lies at or after `floor` (`line - 1 >= floor`).
    let within = if line == 0 { floor == 0 } else { line > floor };
    if !within {
        return;
    }
    // The author runs to the date (`2024-01-01`) within the next bytes of the line.
    let limit = line_end.min(open + 1 + MAX_PERSON);
    let Some(date) = (open + 2..limit.saturating_sub(4)).find(|&j| {
        b[j..j + 4].iter().all(u8::is_ascii_digit) && b[j + 4] == b'-' && b[j - 1] == b' '
    }) else {
        return;
    };
    whole(text, open + 1..date, f);
}

/// `git blame --porcelain` output: its `author` and `committer` lines.
fn blame_porcelain(text: &str, f: &mut impl FnMut(usize, usize)) {
    /// Built once: `memmem::find` builds a searcher on every call.
    static AUTHOR_MAIL: std::sync::LazyLock<memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memmem::Finder::new(b"\nauthor-mail "));
    let b = text.as_bytes();
    if AUTHOR_MAIL.find(b).is_some() {
        for key in [&b"\nauthor "[..], b"\ncommitter "] {
            for at in memmem::find_iter(b, key) {
                let start = at + key.len();
                let end = memchr(b'\n', &b[start..]).map_or(b.len(), |n| start + n);
                whole(text, start..end, f);
            }
        }
    }
}

/// [`blame`] as it was (every `(` of a line looked at, its line start found byte by byte):
/// its test oracle.
#[cfg(test)]
fn blame_reference(text: &str, f: &mut impl FnMut(usize, usize)) {
    let b = text.as_bytes();
    for open in memchr::memchr_iter(b'(', b) {
        // The line starts with a commit hash.
        let floor = open.saturating_sub(MAX_PREFIX);
        let Some(line) = (floor..open)
            .rev()
            .find(|&i| b[i] == b'\n')
            .map(|i| i + 1)
            .or((floor == 0).then_some(0))
        else {
            continue;
        };
        let mut i = line + usize::from(b.get(line) == Some(&b'^'));
        let hex_start = i;
        while i < open && b[i].is_ascii_hexdigit() {
            i += 1;
        }
        // The first `(` of a line that starts with a hash and a space.
        if i - hex_start < 7 || b.get(i) != Some(&b' ') || memchr(b'(', &b[line..open]).is_some() {
            continue;
        }
        // The author runs to the date (`2024-01-01`) within the next bytes of the line.
        let line_end = memchr(b'\n', &b[open..]).map_or(b.len(), |n| open + n);
        let limit = line_end.min(open + 1 + MAX_PERSON);
        let Some(date) = (open + 2..limit.saturating_sub(4)).find(|&j| {
            b[j..j + 4].iter().all(u8::is_ascii_digit) && b[j + 4] == b'-' && b[j - 1] == b' '
        }) else {
            continue;
        };
        whole(text, open + 1..date, f);
    }
    blame_porcelain(text, f);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn people(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        for_each_person(
            text,
            crate::detect::seps::Scanned::new(text),
            true,
            |s, e| out.push(&text[s..e]),
        );
        out
    }

    /// Texts dense in what the line and `git blame` scans stop at, and generated logs and prose.
    fn scan_texts() -> Vec<String> {
        let pieces = [
            "(",
            ")",
            ":",
            "::",
            "\n",
            "\r",
            " ",
            "^",
            "3f2a9c1",
            "3f2a9c1d ",
            "src/a.rs ",
            "Jane Doe ",
            "李伟 ",
            "2024-01-01 ",
            "12:00:00 ",
            "x",
            "Author: ",
            "cn: ",
            "\nauthor ",
            "\nauthor-mail ",
            "\ncommitter ",
            "From: ",
        ];
        let mut rng = crate::testdata::Rng::new(5);
        let mut texts: Vec<String> = (0..20_000)
            .map(|_| {
                let n = rng.below(30);
                (0..n).map(|_| pieces[rng.below(pieces.len())]).collect()
            })
            .collect();
        texts.push("x".repeat(250) + ":" + &"y(".repeat(150) + "\n3f2a9c1 (A B 2024-01-01 x");
        // A hash line whose first `(` lies about MAX_PREFIX bytes from its start, at the text's
        // start and after a line break.
        for pad in 185..=205 {
            let line = "3f2a9c1d ".to_string() + &"x".repeat(pad) + "(A B 2024-01-01 x";
            texts.push(line.clone());
            texts.push("zz\n".to_string() + &line + "\n");
        }
        texts.push(crate::testdata::clean_text(8, 128 * 1024).text);
        texts.push(crate::testdata::prose(7, 128 * 1024).text);
        texts
    }

    #[test]
    fn line_starts_are_those_of_the_reference() {
        for text in scan_texts() {
            let b = text.as_bytes();
            for colon in 0..b.len() {
                assert_eq!(
                    line_start(b, colon),
                    line_start_reference(b, colon),
                    "{text:?} {colon}"
                );
            }
        }
    }

    #[test]
    fn blame_finds_what_the_reference_finds() {
        for text in scan_texts() {
            let (mut new, mut old) = (Vec::new(), Vec::new());
            blame(&text, &mut |s, e| new.push((s, e)));
            blame_reference(&text, &mut |s, e| old.push((s, e)));
            assert_eq!(new, old, "{text:?}");
        }
    }

    proptest::proptest! {
        /// The 64-byte line walk finds what the `memchr_iter` walk found, on texts of blame
        /// lines, hashes, line breaks (LF and CRLF) and code, with lines across block edges.
        #[test]
        fn blame_walk_is_the_memchr_walk(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "\n", "\r\n", "^", "3f2a9c1 ", "3f2a9c1d0e ", "abcdef", "src/a.rs ",
                    "(Jane Doe 2024-01-01 12:00:00 +0000  1) ", "(李伟 2024-02-03 x) ", "(",
                    "fn main() { x::y(1); }", "x", "  ", "\nauthor Jane\n",
                    "\nauthor-mail <j@x>\n", "\ncommitter Søren\n", "0123456789",
                    // A long line, so that the walk goes from masks back to `memchr`.
                    "a line of prose that runs on for well over the sixty-four bytes of a mask ",
                ]),
                0..60,
            ),
            pad in 0usize..70,
        ) {
            let text: String = "y".repeat(pad) + &parts.concat();
            let (mut new, mut old) = (Vec::new(), Vec::new());
            blame(&text, &mut |s, e| new.push((s, e)));
            blame_by_memchr(&text, &mut |s, e| old.push((s, e)));
            proptest::prop_assert_eq!(new, old);
        }
    }

    #[test]
    fn git_log_authors_and_trailers() {
        let log = "commit 3f2a9c1d0e\nAuthor: jdoe <jdoe@example.com>\nDate:   Mon Jan 1 \
                   12:00:00 2024 +0000\n\n    Fix it\n\n    Signed-off-by: Søren Ødegård \
                   <so@example.com>\n    Co-authored-by: dev42 <dev42@example.com>\n";
        assert_eq!(people(log), ["jdoe", "Søren Ødegård", "dev42"]);
        assert_eq!(
            people("Author: Pieter van der Berg\nCommit: 3f2a9c1d\n"),
            ["Pieter van der Berg"]
        );
        assert_eq!(people("Commit:     김민준 <kim@example.com>"), ["김민준"]);
    }

    #[test]
    fn mail_headers() {
        assert_eq!(
            people(
                "From: \"Yılmaz, Ayşe\" <ayse@example.com>\nTo: Bob Stone <b@x.io>, c@x.io \
                 (Cleo Dunn)\nCc: all staff\nTo: undisclosed"
            ),
            ["Yılmaz, Ayşe", "Bob Stone", "Cleo Dunn"]
        );
    }

    #[test]
    fn directory_and_card_formats() {
        assert_eq!(
            people(
                "dn: uid=mgarcia,ou=people,dc=example\ncn: Maria Garcia\nuid: mgarcia\nuidNumber: 1000\ncn:: TWFyaWE=\n"
            ),
            ["mgarcia", "Maria Garcia", "mgarcia"]
        );
        assert_eq!(
            people("BEGIN:VCARD\nFN:Ана Петрова\nN:Петрова;Ана;;Dr.;\nEND:VCARD\n"),
            ["Ана Петрова", "Петрова", "Ана"]
        );
        assert_eq!(
            people(
                "ATTENDEE;CN=Omar Haddad;ROLE=REQ-PARTICIPANT:mailto:o@x.io\nORGANIZER;CN=\"Haddad, Omar\":mailto:o@x.io"
            ),
            ["Omar Haddad", "Haddad, Omar"]
        );
        // vCard's short labels count in capitals only.
        assert!(people("n: 5\nfn: x").is_empty());
    }

    #[test]
    fn blame_lines() {
        assert_eq!(
            people(
                "^3f2a9c1 (Jane Doe 2024-01-01 12:00:00 +0000  1) fn main() {}\n3f2a9c1d src/a.rs (李伟   2024-02-03 10:00:00 +0800 2) x(1)\n"
            ),
            ["Jane Doe", "李伟"]
        );
        assert!(people("call(2024-01-01) and f(x)").is_empty());
    }

    #[test]
    fn greetings_in_other_scripts() {
        let greeted = |text: &str| {
            let mut out = Vec::new();
            for_each_greeted(text, |s, e| out.push(text[s..e].to_string()));
            out
        };
        assert_eq!(
            greeted("Hi 상호,\n\nplease call.\nDear مياس,\r\n  Hello 藤田 あすか!\nHi सेनगुप्ता,"),
            ["상호", "مياس", "藤田 あすか", "सेनगुप्ता"]
        );
        // Latin script is the finder's; a greeting inside a line, or one that goes on, is none.
        assert!(
            greeted("Hi team,\nDear customer,\nHi Maria,\nSay hi 상호,\nHi 상호, how are you")
                .is_empty()
        );
        assert!(greeted("Hi 상호 and then a long line that goes on,\nHi ,\nHi\n").is_empty());
    }

    #[test]
    fn colons_that_are_no_slots() {
        assert!(people("10:22:01 from: the start\nsee https://to.example\nAuthor:").is_empty());
        assert!(people("Author: alice@example.com").is_empty());
    }
}
