//! Email addresses: the practical subset of RFC 5322 / RFC 6531 that people actually use.
//!
//! Text without `@` costs one `memchr`. Around each `@` the recognizer grows a local part to the
//! left and a domain to the right, then validates both:
//!
//! - **Local part**: dot-atoms of RFC 5322 `atext` (so sub-addressing `a+tag@x.io` works), any
//!   non-ASCII letter or mark (RFC 6531 internationalised addresses such as `ñoñó@x.tld` or
//!   `伊昭傑@郵件.商務`), or a quoted string (`"john doe"@x.io`). At most 64 bytes, no leading,
//!   trailing or doubled dots. Text glued on the left is cut off where it cannot be part of an
//!   address in practice: a `key=`, a URL path `/` or `?`, leading punctuation (`'a@x.io'`), and a
//!   CJK run directly before ASCII (`请联系john@x.com`, where the script needs no spaces).
//! - **Domain**: at least two labels of letters, digits and `-` (no leading or trailing `-`, at
//!   most 63 bytes each, 253 in all); non-ASCII (IDN) and `xn--` domains must pass UTS-46 (the
//!   `idna` crate, strict mode). The top-level label must be alphabetic (or IDN), which rules out
//!   `pkg@1.2.3`, and must not be a file extension, which rules out `icon@2x.png` assets.
//!
//! Not addresses, by construction: `@handles` and `@media`/`@Override` (no local part), file
//! names without `@`, `git@github.com:org/repo` remotes (`:` and a path right after the domain),
//! and URL user-info (`ssh://git@host/`, `https://user:pw@host`), which names a login, not a
//! mailbox. Domain literals (`a@[127.0.0.1]`) and comments are not matched: they do not occur in
//! the data this layer sees.

use memchr::memchr_iter;

mod ascii;

use super::{FindContext, Kind, Recognizer, Span};

/// Longest local part (RFC 5321 §4.5.3.1.1), in bytes.
const MAX_LOCAL: usize = 64;
/// Longest domain in its ASCII form.
const MAX_DOMAIN: usize = 253;
/// Longest domain label in its ASCII form.
const MAX_LABEL: usize = 63;

/// Top-level "domains" that are really file extensions (`logo@2x.png`, `a@b.min.js`). None of
/// them is a delegated TLD.
const FILE_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "tif", "tiff", "avif", "heic", "css",
    "scss", "sass", "less", "js", "mjs", "cjs", "jsx", "ts", "tsx", "map", "json", "lock", "txt",
    "html", "htm", "xml", "yml", "yaml", "toml", "ini", "cfg", "conf", "log", "csv", "tsv", "pdf",
    "doc", "docx", "xls", "xlsx", "ppt", "pptx", "wav", "class", "jar", "java", "kt", "swift",
    "vcf", "ics", "eml", "gz", "tgz", "bz2", "xz", "rar", "7z", "tar", "odt", "ods", "odp", "rtf",
    "mp3", "mp4", "avi", "mkv", "bak", "tmp", "epub", "msg",
];

/// File extensions that are also delegated top-level domains: an address is cut before one of
/// them only when the name before it ends in a common TLD (`a@example.com.zip`).
const TLD_EXTENSIONS: &[&str] = &["zip", "mov"];

/// Top-level domains common enough in mail addresses that a name ending in one, followed by a
/// file extension, is an address used as a file name. Two-letter country codes count too.
const COMMON_TLDS: &[&str] = &[
    "com",
    "org",
    "net",
    "edu",
    "gov",
    "mil",
    "int",
    "info",
    "biz",
    "name",
    "pro",
    "mobi",
    "app",
    "dev",
    "tech",
    "online",
    "site",
    "email",
    "mail",
    "cloud",
    "xyz",
    "shop",
    "store",
    "company",
    "work",
    "club",
    "global",
    "group",
    "world",
    "life",
    "live",
    "systems",
    "solutions",
];

/// Finds email addresses. Stateless; see the module doc.
#[derive(Debug)]
pub(super) struct EmailRecognizer;

impl EmailRecognizer {
    pub(super) fn new() -> Self {
        EmailRecognizer
    }
}

impl Recognizer for EmailRecognizer {
    fn find(&self, text: &str, _cx: &FindContext<'_>, out: &mut Vec<Span>) {
        let b = text.as_bytes();
        let mut last_end = 0;
        for at in memchr_iter(b'@', b) {
            if at < last_end {
                continue;
            }
            if let Some((start, end)) = address_at(text, at, 1) {
                out.push(Span::new(start, end, Kind::Email));
                last_end = end;
            }
        }
        // `%40`, a percent-encoded `@` in a URL.
        if memchr::memchr(b'%', b).is_some() {
            let mut last_end = 0;
            for at in super::PERCENT_AT.find_iter(b) {
                if at < last_end {
                    continue;
                }
                if let Some((start, end)) = address_at(text, at, 3) {
                    out.push(Span::new(start, end, Kind::Email));
                    last_end = end;
                }
            }
        }
    }
}

/// The address around the `@` (or `%40`, `at_len` bytes long) at byte `at`, if there is one.
/// Each half is read by `ascii.rs` in one pass when it is plain ASCII (most are), else here.
fn address_at(text: &str, at: usize, at_len: usize) -> Option<(usize, usize)> {
    let start = match ascii::local_start(text.as_bytes(), at) {
        Some(start) => start?,
        None => local_start(text, at)?,
    };
    if is_url_userinfo(&text[..start]) {
        return None;
    }
    let from = at + at_len;
    let end = match ascii::domain_end(text, from) {
        Some(end) => end?,
        None => domain_end(text, from)?,
    };
    // `git@github.com:org/repo.git`, `user@host:22`: a remote or a login, not a mailbox.
    let rest = &text.as_bytes()[end..];
    if rest.first() == Some(&b':') && rest.get(1).is_some_and(|b| !b.is_ascii_whitespace()) {
        return None;
    }
    if rest.first() == Some(&b'@') {
        return None;
    }
    Some((start, end))
}

/// RFC 5322 `atext` plus `.`, the characters of an unquoted ASCII local part (one load of
/// `ascii.rs`'s byte classes: the local part is read a byte at a time).
fn is_atext(b: u8) -> bool {
    ascii::is_atext(b)
}

/// The punctuation of [`is_atext`].
const ATEXT_PUNCT: &[u8] = b"!#$%&'*+-/=?^_`{|}~.";

/// Whether a non-ASCII character may appear in an internationalised local part or domain:
/// letters, digits and marks of any script, but not spaces, controls, punctuation and symbol
/// blocks, private use or noncharacters.
fn is_intl_char(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 || c.is_whitespace() || c.is_control() {
        return false;
    }
    !matches!(u,
        0x80..=0xBF            // C1 controls, Latin-1 punctuation (nbsp, «, », ¿ ...)
        | 0xD7 | 0xF7          // × ÷
        | 0x2000..=0x206F      // general punctuation: quotes, dashes, zero-width, bidi controls
        | 0x2190..=0x2BFF      // arrows, maths, technical, enclosed alphanumerics, box, dingbats
        | 0x3000..=0x303F      // CJK punctuation (、。「」)
        | 0xD800..=0xF8FF      // surrogates, private use
        | 0xFDD0..=0xFDEF      // noncharacters
        | 0xFE10..=0xFE1F | 0xFE30..=0xFE6F // vertical, compatibility and small forms (﹫)
        | 0xFF00..=0xFF1F | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65 // full-width punctuation
        | 0xFFF0..=0xFFFF      // specials
        | 0xE0000..=0x10FFFF   // tags, supplementary private use
    ) && (u & 0xFFFE) != 0xFFFE
}

/// Combining marks cannot start a local part.
fn is_combining(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF)
}

/// Scripts written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF)
}

/// Where the run of local-part characters that ends `before` starts (at most `4 * MAX_LOCAL`
/// bytes back, give or take a character): ASCII a byte at a time, other characters decoded.
fn local_run_start(before: &str) -> usize {
    let at = before.len();
    let mut start = at;
    while let Some(&last) = before.as_bytes()[..start].last() {
        let (ok, i) = if last.is_ascii() {
            (is_atext(last), start - 1)
        } else {
            let c = before[..start].chars().next_back().unwrap_or('\0');
            (is_intl_char(c) || c == '＠', start - c.len_utf8())
        };
        if !ok || at - i > 4 * MAX_LOCAL {
            break;
        }
        start = i;
    }
    start
}

/// The length of the run of domain characters that starts `rest` (scanning stops past
/// `4 * MAX_DOMAIN` bytes): ASCII a byte at a time, other characters decoded.
fn domain_run_len(rest: &str) -> usize {
    let mut len = 0;
    while let Some(&first) = rest.as_bytes().get(len) {
        let (ok, width) = if first.is_ascii() {
            (ascii::is_domain_byte(first), 1)
        } else {
            let c = rest[len..].chars().next().unwrap_or('\0');
            (is_intl_char(c), c.len_utf8())
        };
        if !ok || len > 4 * MAX_DOMAIN {
            break;
        }
        len += width;
    }
    len
}

/// Where the local part before the `@` at `at` starts, or `None` when there is no valid one.
fn local_start(text: &str, at: usize) -> Option<usize> {
    let before = &text[..at];
    if before.ends_with('"') {
        return quoted_local_start(before);
    }
    let start = local_run_start(before);
    let mut local = &text[start..at];
    // `email=a@x.io`, `/users/a@x.io`, `?to=a@x.io`: keys and paths are glued on, not part of it.
    if let Some(cut) = local.bytes().rposition(|b| matches!(b, b'=' | b'/' | b'?')) {
        local = &local[cut + 1..];
    }
    // Leading punctuation belongs to the sentence (`'a@x.io'`, `{a@x.io}`) unless the local part
    // has nothing else (`!#$%&'*+-/=?^_`{|}~@x.io` is a valid address).
    if local.bytes().any(|b| b.is_ascii_alphanumeric()) || !local.is_ascii() {
        let trimmed = local.trim_start_matches(|c: char| {
            c.is_ascii() && !c.is_ascii_alphanumeric() && c != '_' || is_combining(c)
        });
        local = trimmed;
    }
    // `请联系john@x.com`: CJK text runs into the address with no space.
    if local.starts_with(is_cjk)
        && let Some(ascii) = local.find(|c: char| c.is_ascii_alphanumeric())
        && local[ascii..].is_ascii()
    {
        local = &local[ascii..];
    }
    let start = at - local.len();
    if local.is_empty()
        || local.len() > MAX_LOCAL
        || local.starts_with('.')
        || local.ends_with('.')
        || local.as_bytes().windows(2).any(|w| w == b"..")
    {
        return None;
    }
    Some(start)
}

/// A quoted local part ending just before the `@`: `"john doe"@x.io`.
fn quoted_local_start(before: &str) -> Option<usize> {
    let bytes = before.as_bytes();
    let close = bytes.len() - 1;
    let mut i = close;
    while i > 0 {
        i -= 1;
        let b = bytes[i];
        if b == b'"' {
            let escaped = bytes[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1;
            if !escaped {
                let inner = &before[i + 1..close];
                let boundary = i == 0
                    || matches!(
                        bytes[i - 1],
                        b' ' | b'\t' | b'\n' | b'<' | b'(' | b',' | b';' | b':' | b'['
                    );
                let printable = inner.chars().all(|c| !c.is_control());
                return (boundary && printable && close - i < MAX_LOCAL + 2 && !inner.is_empty())
                    .then_some(i);
            }
        }
        if b.is_ascii_control() || close - i > MAX_LOCAL + 2 {
            return None;
        }
    }
    None
}

/// Whether the local part would be the user-info of a URL (`ssh://git@`, `https://u:pw@`).
fn is_url_userinfo(before: &str) -> bool {
    // `file:///a@x.io.vcf`: an empty authority, then a path.
    if before.ends_with("///") {
        return false;
    }
    if before.ends_with("//") {
        return true;
    }
    if before.ends_with(':') {
        let token_start = before
            .char_indices()
            .rev()
            .find(|&(_, c)| c.is_whitespace() || c == '"' || c == '\'')
            .map_or(0, |(i, c)| i + c.len_utf8());
        return before[token_start..].contains("//");
    }
    false
}

/// Where the domain starting at byte `from` ends, or `None` when there is no valid one.
fn domain_end(text: &str, from: usize) -> Option<usize> {
    let rest = &text[from..];
    let len = domain_run_len(rest);
    let mut domain = rest[..len].trim_end_matches(['.', '-']);
    // `john@x.com获取`: CJK text runs on after an ASCII domain.
    if let Some(dot) = last_dot(domain) {
        let tld = &domain[dot + 1..];
        if tld.starts_with(|c: char| c.is_ascii_alphabetic())
            && !tld.is_ascii()
            && let Some(cut) = tld.find(is_cjk)
        {
            domain = &domain[..dot + 1 + cut];
        }
    }
    if let Some(short) = without_file_extension(domain) {
        return Some(from + short.len());
    }
    valid_domain(domain).then_some(from + domain.len())
}

/// Where the last `.` of `s` is. On bytes: `rfind('.')` goes through the char searcher, which
/// cost more than the byte loop on names this short.
fn last_dot(s: &str) -> Option<usize> {
    s.as_bytes().iter().rposition(|&b| b == b'.')
}

/// `domain` without the file extension(s) that follow a name already ending in a common TLD
/// (`example.com.pdf`, `example.org.tar.gz`), if that is what it is (see the module doc).
fn without_file_extension(domain: &str) -> Option<&str> {
    let mut d = domain;
    for _ in 0..2 {
        let dot = last_dot(d)?;
        let ext = &d.as_bytes()[dot + 1..];
        let is_ext = is_file_extension(ext)
            || TLD_EXTENSIONS
                .iter()
                .any(|t| t.as_bytes().eq_ignore_ascii_case(ext));
        if !is_ext {
            return None;
        }
        d = &d[..dot];
        let tld = d.rsplit('.').next().unwrap_or("").as_bytes();
        let common = COMMON_TLDS
            .iter()
            .any(|t| t.as_bytes().eq_ignore_ascii_case(tld))
            || (tld.len() == 2
                && tld.iter().all(u8::is_ascii_alphabetic)
                && !is_file_extension(tld));
        if common && valid_domain(d) {
            return Some(d);
        }
    }
    None
}

/// Whether `domain` is a plausible mail domain (see the module doc).
fn valid_domain(domain: &str) -> bool {
    if domain.is_empty() || domain.starts_with('.') {
        return false;
    }
    if domain.is_ascii() {
        // Most domains: labels, IDNA need and verdict in one pass.
        match ascii_labels(domain.as_bytes()) {
            Labels::Dotless => return false,
            Labels::Checked(ok) => return ok,
            Labels::Punycode => {}
        }
    } else if !domain.contains('.') {
        return false;
    }
    match idna::domain_to_ascii_strict(domain) {
        Ok(ascii) => ascii_domain_ok(&ascii, true),
        Err(_) => false,
    }
}

/// Whether `domain`, in ASCII form (`from_idna`: as IDNA wrote it), has valid labels and a
/// valid top-level label.
fn ascii_domain_ok(domain: &str, from_idna: bool) -> bool {
    if domain.len() > MAX_DOMAIN {
        return false;
    }
    // On bytes: `.` and the label bytes are ASCII, and splitting on a byte skips the string
    // searcher's setup per label.
    let d = domain.as_bytes();
    let mut labels = 0;
    for label in d.split(|&b| b == b'.') {
        labels += 1;
        if label.is_empty()
            || label.len() > MAX_LABEL
            || label[0] == b'-'
            || label[label.len() - 1] == b'-'
            || !label
                .iter()
                .all(|&b| b.is_ascii_alphanumeric() || b == b'-')
        {
            return false;
        }
    }
    let tld = d.rsplit(|&b| b == b'.').next().unwrap_or(b"");
    let tld_ok = if let Some(puny) = tld.strip_prefix(b"xn--") {
        from_idna && !puny.is_empty()
    } else {
        tld.len() >= 2 && tld.iter().all(u8::is_ascii_alphabetic)
    };
    labels >= 2 && tld_ok && !is_file_extension(tld)
}

/// What one pass over an ASCII domain's labels says (see [`ascii_labels`]).
#[derive(Debug, PartialEq)]
enum Labels {
    /// No `.`: one label, no mail domain.
    Dotless,
    /// A label has `--` at its third byte (`xn--`): the domain goes through IDNA.
    Punycode,
    /// [`ascii_domain_ok`] of the domain as written (`from_idna` false).
    Checked(bool),
}

/// An ASCII domain (not empty, not starting with `.`) read once: whether it has a dot, whether
/// a label needs IDNA, and else what [`ascii_domain_ok`] says of it, with the same label rules
/// (`valid_domain_agrees_with_its_reference` compares them). Two splits, a byte search for the
/// dot and a second pass for the verdict cost four times this on a plain `example.com`.
fn ascii_labels(d: &[u8]) -> Labels {
    // One pass: the bytes between the dots are checked as they go by, each label's ends,
    // length and `xn--` form at the dot (or the end) after it.
    let mut ok = d.len() <= MAX_DOMAIN;
    let (mut labels, mut punycode, mut start) = (1usize, false, 0usize);
    let mut label = |start: usize, end: usize| {
        ok &= end > start && d[start] != b'-' && d[end - 1] != b'-' && end - start <= MAX_LABEL;
        punycode |= d.get(start + 2..start + 4) == Some(&b"--"[..]) && end - start >= 4;
    };
    let mut bytes_ok = true;
    for (i, &c) in d.iter().enumerate() {
        if c == b'.' {
            label(start, i);
            labels += 1;
            start = i + 1;
        } else {
            bytes_ok &= ascii::is_label_byte(c);
        }
    }
    label(start, d.len());
    let ok = ok && bytes_ok;
    let tld = &d[start..];
    if labels < 2 {
        return Labels::Dotless;
    }
    if punycode {
        return Labels::Punycode;
    }
    // Not `xn--` here: that is `Punycode`.
    let tld_ok = tld.len() >= 2 && tld.iter().all(u8::is_ascii_alphabetic);
    Labels::Checked(ok && tld_ok && !is_file_extension(tld))
}

/// [`valid_domain`] as it was, two splits and [`ascii_domain_ok`]: the test oracle of
/// [`ascii_labels`].
#[cfg(test)]
fn valid_domain_reference(domain: &str) -> bool {
    if domain.is_empty() || domain.starts_with('.') || !domain.contains('.') {
        return false;
    }
    let needs_idna = !domain.is_ascii()
        || domain
            .as_bytes()
            .split(|&b| b == b'.')
            .any(|l| l.len() >= 4 && l[2..4] == *b"--");
    if needs_idna {
        match idna::domain_to_ascii_strict(domain) {
            Ok(ascii) => ascii_domain_ok(&ascii, true),
            Err(_) => false,
        }
    } else {
        ascii_domain_ok(domain, false)
    }
}

/// Up to eight bytes, little-endian, in a `u64` (zero-padded).
const fn pack(b: &[u8]) -> u64 {
    assert!(b.len() <= 8, "file extensions are at most eight bytes");
    let mut v = 0u64;
    let mut i = 0;
    while i < b.len() {
        v |= (b[i] as u64) << (8 * i);
        i += 1;
    }
    v
}

/// [`FILE_EXTENSIONS`] packed, so a top-level domain is checked with one comparison per entry.
static PACKED_EXTENSIONS: [u64; FILE_EXTENSIONS.len()] = {
    let mut out = [0u64; FILE_EXTENSIONS.len()];
    let mut i = 0;
    while i < out.len() {
        out[i] = pack(FILE_EXTENSIONS[i].as_bytes());
        i += 1;
    }
    out
};

/// The low five bits of a word's first and last bytes as one 10-bit number: the same for both
/// cases of a letter (and for some other bytes, which only makes [`EXTENSION_ENDS`] a superset).
const fn end_pair(first: u8, last: u8) -> usize {
    ((first & 31) as usize) << 5 | (last & 31) as usize
}

/// Bit [`end_pair`] of each word of [`FILE_EXTENSIONS`].
static EXTENSION_ENDS: [u64; 16] = {
    let mut set = [0u64; 16];
    let mut i = 0;
    while i < FILE_EXTENSIONS.len() {
        let w = FILE_EXTENSIONS[i].as_bytes();
        let k = end_pair(w[0], w[w.len() - 1]);
        set[k / 64] |= 1 << (k % 64);
        i += 1;
    }
    set
};

/// Whether `tld` is on [`FILE_EXTENSIONS`], ignoring ASCII case. (The list is lower-case ASCII
/// without NUL bytes, so equal packed forms of strings of at most eight bytes are equal strings.)
fn is_file_extension(tld: &[u8]) -> bool {
    let b = tld;
    let (Some(&first), Some(&last)) = (b.first(), b.last()) else {
        return false;
    };
    // Most top-level domains (`com`, `org`, `de`) share no first and last letter with an
    // extension, and are turned away without the list.
    let k = end_pair(first, last);
    if b.len() > 8 || EXTENSION_ENDS[k / 64] & (1 << (k % 64)) == 0 {
        return false;
    }
    let mut lower = [0u8; 8];
    for (d, s) in lower.iter_mut().zip(b) {
        *d = s.to_ascii_lowercase();
    }
    let key = pack(&lower[..b.len()]);
    PACKED_EXTENSIONS.contains(&key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atext_table_is_the_atext_set() {
        for b in 0..=255u8 {
            let want = b.is_ascii_alphanumeric() || ATEXT_PUNCT.contains(&b);
            assert_eq!(is_atext(b), want, "{b}");
        }
    }

    #[test]
    fn byte_scans_agree_with_char_scans() {
        let pieces = [
            "a",
            "Z",
            "9",
            ".",
            "-",
            "_",
            "+",
            "!",
            "~",
            "@",
            "＠",
            " ",
            "\t",
            "é",
            "Ωμέγα",
            "王",
            "、",
            "«",
            "\u{301}",
            "\u{a0}",
            "=",
            "/",
            "?",
            "\"",
            "💡",
            "xn--",
            "ü",
        ];
        let mut rng = crate::testdata::Rng::new(5);
        // Runs longer than the scans go, too.
        let long = [
            "a".repeat(300),
            "é".repeat(200),
            format!("x{}", "ab.".repeat(400)),
        ];
        for round in 0..4000 {
            let n = if round % 50 == 0 { 200 } else { rng.below(16) };
            let mut text: String = (0..n).map(|_| *rng.pick(&pieces)).collect();
            if round % 10 == 0 {
                text.push_str(&long[round % 3]);
            }
            let mut by_chars = text.len();
            for (i, c) in text.char_indices().rev() {
                let ok = if c.is_ascii() {
                    is_atext(c as u8)
                } else {
                    is_intl_char(c) || c == '＠'
                };
                if !ok || text.len() - i > 4 * MAX_LOCAL {
                    break;
                }
                by_chars = i;
            }
            assert_eq!(local_run_start(&text), by_chars, "{text:?}");
            let mut by_chars = 0;
            for (i, c) in text.char_indices() {
                let ok = if c.is_ascii() {
                    c.is_ascii_alphanumeric() || c == '-' || c == '.'
                } else {
                    is_intl_char(c)
                };
                if !ok || i > 4 * MAX_DOMAIN {
                    break;
                }
                by_chars = i + c.len_utf8();
            }
            assert_eq!(domain_run_len(&text), by_chars, "{text:?}");
        }
    }

    fn find(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        EmailRecognizer::new().find(text, &FindContext::default(), &mut out);
        out.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn valid_domain_agrees_with_its_reference() {
        let labels = [
            "example",
            "com",
            "co",
            "uk",
            "xn--bcher-kva",
            "xn--",
            "ab--cd",
            "a-b",
            "-ab",
            "ab-",
            "c0m",
            "png",
            "PNG",
            "Jpeg",
            "zip",
            "x",
            "1",
            "",
            "bücher",
            "例え",
            &"a".repeat(63),
            &"b".repeat(64),
        ];
        let mut domains = vec![String::new(), ".".into(), "..".into(), "a.".into()];
        for a in labels {
            domains.push(a.to_string());
            for b in labels {
                domains.push(format!("{a}.{b}"));
                domains.push(format!(".{a}.{b}"));
                for c in ["com", "xn--p1ai", "", "js"] {
                    domains.push(format!("{a}.{b}.{c}"));
                }
            }
        }
        domains.push(format!("{}.com", vec!["a".repeat(60); 5].join(".")));
        domains.push(format!("{}.com", vec!["a".repeat(61); 4].join(".")));
        for d in &domains {
            assert_eq!(valid_domain(d), valid_domain_reference(d), "{d:?}");
        }
    }

    #[test]
    fn file_extensions_match_the_list_in_any_case() {
        for ext in FILE_EXTENSIONS {
            assert!(is_file_extension(ext.as_bytes()), "{ext}");
            assert!(
                is_file_extension(ext.to_ascii_uppercase().as_bytes()),
                "{ext}"
            );
        }
        for tld in ["com", "io", "org", "pn", "jsonx", "", "photography", "j\0"] {
            assert!(!is_file_extension(tld.as_bytes()), "{tld}");
        }
    }

    #[test]
    fn finds_plain_and_sub_addressed() {
        assert_eq!(find("mail alice@example.com now"), ["alice@example.com"]);
        assert_eq!(
            find("a+tag@x.io, b.c-d_e@mail.corp.co.uk."),
            ["a+tag@x.io", "b.c-d_e@mail.corp.co.uk"]
        );
        assert_eq!(find("<JOHN.DOE@EXAMPLE.ORG>"), ["JOHN.DOE@EXAMPLE.ORG"]);
        assert_eq!(
            find("'quoted@x.io' (paren@x.io)"),
            ["quoted@x.io", "paren@x.io"]
        );
        assert_eq!(find("\"john doe\"@x.io"), ["\"john doe\"@x.io"]);
    }

    #[test]
    fn finds_internationalised() {
        assert_eq!(find("write to ñoñó@example.tld"), ["ñoñó@example.tld"]);
        assert_eq!(find("伊昭傑@郵件.商務"), ["伊昭傑@郵件.商務"]);
        assert_eq!(find("юзер@екзампл.ком ok"), ["юзер@екзампл.ком"]);
        assert_eq!(find("राम@मोहन.ईन्फो"), ["राम@मोहन.ईन्फो"]);
        assert_eq!(find("jeff@臺網中心.tw"), ["jeff@臺網中心.tw"]);
        assert_eq!(
            find("test@xn--hxajbheg2az3al.xn--jxalpdlp"),
            ["test@xn--hxajbheg2az3al.xn--jxalpdlp"]
        );
        assert_eq!(find("请联系john@x.com获取"), ["john@x.com"]);
    }

    #[test]
    fn cuts_keys_and_paths() {
        assert_eq!(find("user=bob@x.io level=info"), ["bob@x.io"]);
        assert_eq!(find("https://x.io/unsub?email=bob@x.io"), ["bob@x.io"]);
    }

    #[test]
    fn ignores_non_addresses() {
        for text in [
            "no at sign here",
            "ping @alice and @bob-team",
            "@media screen { } @Override public void x()",
            "git clone git@github.com:org/repo.git",
            "ssh://git@github.com/org/repo",
            "https://user:secret@host.example.com/x",
            "icon@2x.png logo@3x.webp",
            "npm i @angular/core@12.0.1 left-pad@1.3.0",
            "my@localhost",
            "me@-leadingdash.com",
            "a@b..com",
            ".a@",
            "trailing.@x.io",
            "two..dots@x.io",
            "me@xn--0.tld",
            "user@host:22",
            "report.pdf and notes.txt",
        ] {
            assert_eq!(find(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn addresses_used_as_file_names_end_before_the_extension() {
        assert_eq!(
            find("-rw-r--r-- 1 u u 2.1K maria.garcia@example.com.pdf"),
            ["maria.garcia@example.com"]
        );
        assert_eq!(
            find("file:///home/u/maria.garcia@example.com.vcf"),
            ["maria.garcia@example.com"]
        );
        assert_eq!(find("file:///a.b@example.de.vcf"), ["a.b@example.de"]);
        assert_eq!(
            find("bk/jo@corp.example.org.tar.gz"),
            ["jo@corp.example.org"]
        );
        // `.zip` and `.mov` are TLDs too: cut only after a common TLD.
        assert_eq!(find("jo@example.com.zip"), ["jo@example.com"]);
        assert_eq!(find("jo@example.zip"), ["jo@example.zip"]);
        // A country code after `.com` is part of the domain.
        assert_eq!(find("juan@empresa.com.py"), ["juan@empresa.com.py"]);
        // Assets stay assets.
        assert!(find("icon@2x.png a@b.min.js").is_empty());
    }

    #[test]
    fn percent_encoded_at_signs_in_urls() {
        assert_eq!(
            find("https://x.io/u?email=maria.garcia%40example.com&name=Maria%20Garcia"),
            ["maria.garcia%40example.com"]
        );
        assert_eq!(find("mailto:jo%40example.org"), ["jo%40example.org"]);
        assert_eq!(find("mailto:jo@example.org"), ["jo@example.org"]);
        assert!(find("100%40 of them").is_empty());
    }

    #[test]
    fn enforces_lengths() {
        let long_local = format!("{}@x.io", "a".repeat(65));
        assert!(find(&long_local).is_empty());
        let long_label = format!("a@{}.com", "b".repeat(64));
        assert!(find(&long_label).is_empty());
        assert_eq!(find(&format!("{}@x.io", "a".repeat(64))).len(), 1);
    }

    #[test]
    fn sentence_punctuation_is_not_part_of_it() {
        assert_eq!(find("Mail me at a@x.io."), ["a@x.io"]);
        assert_eq!(
            find("Mail me at a@x.io, or b@y.org; thanks"),
            ["a@x.io", "b@y.org"]
        );
        assert_eq!(find("reach a@x.io: now"), ["a@x.io"]);
    }
}
