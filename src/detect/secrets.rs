//! Credentials (`SECRET`): API keys, tokens, private keys and passwords that tool results carry
//! (`.env` files, configs, CI logs, shell history).
//!
//! One kind, so one flow rule covers every credential: an agent can hand a tokenized credential
//! back to a tool (the token restores on the way out, like any other) without the model ever
//! seeing it, and `rules/secrets.yaml` keeps it from flowing anywhere but where it came from.
//!
//! What is found, cheapest evidence first:
//!
//! - **provider-prefixed keys** (`secrets/rules.rs`: AWS, GitHub, GitLab, Slack, Stripe, Google,
//!   OpenAI, Anthropic, npm, SendGrid, Twilio, Azure, Hugging Face, PyPI, DigitalOcean,
//!   Shopify, Mailgun, Square and more): a literal prefix from one Aho-Corasick pass, then a tail
//!   of the format's alphabet and length, bounded on both sides;
//! - **JWTs**: `eyJ` + three base64url parts whose header decodes to a JSON object with `alg`;
//! - **PEM private key blocks**: `-----BEGIN ... PRIVATE KEY-----` through its `END` line, the
//!   whole block one value (to the end of the text if the block is cut off: fail closed);
//! - **passwords in URLs**: the password of `scheme://user:password@host`;
//! - **values of secret-named keys** (`secrets/names.rs`): `KEY=value` and `export KEY="v"`
//!   lines, `key: value`, `"key": "value"`, `key = "value"`, `Password=...;` in connection
//!   strings, `--password x` / `--token=x` flags, `Authorization: Bearer x` headers, and a JSON
//!   value under a secret-named key ([`FindContext::key`]).
//!
//! Commit hashes, UUIDs, digests, lock-file integrity hashes and base64 blobs have no provider
//! prefix and no secret-named key, so they are never candidates: there is no free-floating
//! entropy scan, which is what keeps clean code and logs free of false credentials.

mod names;
mod rules;
mod windows;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, Input, MatchKind};
use base64::Engine;

pub(super) use self::names::is_secret_key;
use self::names::{Strength, is_secret_value};
use self::rules::{Check, RULES};
use super::seps::Seps;
#[cfg(test)]
use super::seps::{Listed, Scanned};
use super::{FindContext, Kind, Span};

/// The shortest provider-prefixed credential (`AKIA` + 16): a shorter string without a digit,
/// `:`, `=` or newline holds none.
pub(super) const SHORTEST_BARE: usize = 20;

/// Triggers that are not provider prefixes: index `RULES.len() + i`.
const EXTRA: [&str; 3] = ["eyJ", "-----BEGIN ", "://"];

/// The finder of `--` (command-line flags), built once rather than on every text.
static DOUBLE_DASH: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"--"));

/// The credential finder. Built once; its automaton is compiled in [`SecretRecognizer::new`].
#[derive(Debug)]
pub(super) struct SecretRecognizer {
    prefixes: AhoCorasick,
    /// Where `prefixes` has to run (`secrets/windows.rs`).
    windows: windows::Windows,
}

impl SecretRecognizer {
    pub(super) fn new() -> SecretRecognizer {
        let patterns = RULES.iter().map(|r| r.prefix).chain(EXTRA);
        let prefixes = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .build(patterns)
            .expect("the credential prefixes compile");
        SecretRecognizer {
            prefixes,
            windows: windows::Windows::new(&EXTRA),
        }
    }

    /// Appends the credentials in `text`; `keyed` says the context's key names a credential.
    #[cfg(test)]
    pub(super) fn find(&self, text: &str, cx: &FindContext<'_>, keyed: bool, out: &mut Vec<Span>) {
        match super::seps::list(text) {
            Some(list) => self.find_in(text, Listed::new(text, &list), cx, keyed, out),
            None => self.find_in(text, Scanned::new(text), cx, keyed, out),
        }
    }

    /// [`SecretRecognizer::find`] with the separators of `text` (`seps.rs`) shared with the
    /// other passes over them.
    pub(super) fn find_in(
        &self,
        text: &str,
        seps: impl Seps,
        cx: &FindContext<'_>,
        keyed: bool,
        out: &mut Vec<Span>,
    ) {
        debug_assert!(seps.is_of(text));
        if keyed {
            whole_value(text, cx.key.unwrap_or(""), out);
        }
        let b = text.as_bytes();
        let mut windows = Vec::new();
        let pairless = self.windows.find(b, &mut windows);
        for &(ws, we) in &windows {
            for m in self.prefixes.find_iter(Input::new(b).range(ws..we)) {
                Self::matched(b, &m, out);
            }
        }
        // A text without `:`, `=` or `-` (told by the windows' masks of a short one) has no
        // pair and no flag: the two scans for them cost more than the rest on a JSON value.
        if !pairless {
            key_values_with(text, seps.both(), pair_at, out);
        }
    }

    /// The credential, if any, of the automaton's match `m`.
    fn matched(b: &[u8], m: &aho_corasick::Match, out: &mut Vec<Span>) {
        let (start, end) = (m.start(), m.end());
        let found = match m.pattern().as_usize() {
            i if i < RULES.len() => prefixed(b, i, start, end),
            i if i == RULES.len() => jwt(b, start),
            i if i == RULES.len() + 1 => pem(b, start),
            _ => url_password(b, start),
        };
        if let Some((s, e)) = found {
            out.push(Span::new(s, e, Kind::Secret));
        }
    }

    /// [`SecretRecognizer::find`] as it was before `secrets/windows.rs` and
    /// [`may_end_secret_key`] (the automaton over the whole text, every pair's key read): the
    /// test oracle for them.
    #[cfg(test)]
    fn find_reference(&self, text: &str, cx: &FindContext<'_>, keyed: bool, out: &mut Vec<Span>) {
        if keyed {
            whole_value(text, cx.key.unwrap_or(""), out);
        }
        let b = text.as_bytes();
        for m in self.prefixes.find_iter(b) {
            Self::matched(b, &m, out);
        }
        key_values_with(
            text,
            memchr::memchr2_iter(b'=', b':', b),
            pair_reading_key,
            out,
        );
    }
}

/// Whether `b` can sit inside a token or identifier (so it cannot bound one).
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A provider-prefixed credential: `RULES[i]`'s prefix at `start..end`.
fn prefixed(b: &[u8], i: usize, start: usize, end: usize) -> Option<(usize, usize)> {
    let rule = &RULES[i];
    if rule.check != Check::TailOnly && start > 0 && is_word(b[start - 1]) {
        return None;
    }
    let mut e = end;
    while e < b.len() && e - end <= rule.max && rule.alphabet.has(b[e]) {
        e += 1;
    }
    // Trailing punctuation of prose or a path (`... key.`), which some alphabets include.
    while e > end && matches!(b[e - 1], b'.' | b'/') && rule.check != Check::TailOnly {
        e -= 1;
    }
    let tail = &b[end..e];
    if tail.len() < rule.min || tail.len() > rule.max || (e < b.len() && is_word(b[e])) {
        return None;
    }
    if tail.iter().all(|&c| c == tail[0]) || contains_ci(tail, b"example") {
        return None;
    }
    match rule.check {
        Check::None => Some((start, e)),
        Check::Mixed => {
            let has = |f: fn(&u8) -> bool| tail.iter().any(f);
            (has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase) && has(u8::is_ascii_digit))
                .then_some((start, e))
        }
        Check::TwilioContext => {
            let from = start.saturating_sub(64);
            (contains_ci(&b[from..start], b"twilio") || contains_ci(&b[from..start], b"sid"))
                .then_some((start, e))
        }
        Check::SendGrid => (tail.len() == 66 && tail[22] == b'.' && !tail[..22].contains(&b'.'))
            .then_some((start, e)),
        Check::TailOnly => Some((end, e)),
        Check::Url => {
            let s = if start >= 8 && &b[start - 8..start] == b"https://" {
                start - 8
            } else {
                start
            };
            Some((s, e))
        }
    }
}

/// ASCII case-insensitive substring test.
fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// The base64url run starting at `i`.
fn b64url_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_alphanumeric() || matches!(b[i], b'_' | b'-')) {
        i += 1;
    }
    i
}

/// A JWT at `start` (`eyJ`): `header.payload.signature`, the header a JSON object with `alg`.
fn jwt(b: &[u8], start: usize) -> Option<(usize, usize)> {
    if start > 0 && (is_word(b[start - 1]) || b[start - 1] == b'-') {
        return None;
    }
    let h_end = b64url_end(b, start);
    if b.get(h_end) != Some(&b'.') {
        return None;
    }
    let p_end = b64url_end(b, h_end + 1);
    if p_end - h_end < 4 || b.get(p_end) != Some(&b'.') {
        return None;
    }
    let s_end = b64url_end(b, p_end + 1);
    let engine = base64::engine::GeneralPurpose::new(
        &base64::alphabet::URL_SAFE,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    let header = engine.decode(&b[start..h_end]).ok()?;
    let json: serde_json::Value = serde_json::from_slice(&header).ok()?;
    json.get("alg")?;
    Some((start, s_end))
}

/// A PEM private key block at `start` (`-----BEGIN `).
fn pem(b: &[u8], start: usize) -> Option<(usize, usize)> {
    let label_start = start + "-----BEGIN ".len();
    let line_end = memchr::memchr(b'\n', &b[label_start..]).map_or(b.len(), |i| label_start + i);
    let close = memchr::memmem::find(&b[label_start..line_end], b"-----")? + label_start;
    let label = &b[label_start..close];
    if !contains_ci(label, b"PRIVATE KEY")
        || !label.iter().all(|&c| c.is_ascii_uppercase() || c == b' ')
    {
        return None;
    }
    let body = close + 5;
    let Some(end_at) = memchr::memmem::find(&b[body..], b"-----END ") else {
        // Cut off: the rest of the text is key material.
        return Some((start, b.len()));
    };
    let end_label = body + end_at + "-----END ".len();
    let end =
        memchr::memmem::find(&b[end_label..], b"-----").map_or(b.len(), |i| end_label + i + 5);
    Some((start, end))
}

/// The password of `scheme://user:password@host` around the `://` at `at`.
fn url_password(b: &[u8], at: usize) -> Option<(usize, usize)> {
    let mut s = at;
    while s > 0 && (b[s - 1].is_ascii_alphanumeric() || matches!(b[s - 1], b'+' | b'.' | b'-')) {
        s -= 1;
    }
    if at - s < 2 {
        return None;
    }
    let auth_start = at + 3;
    // The authority ends at the first `/`, whitespace or quote (not at `?` or `#`: pasted URLs
    // carry unencoded passwords); its userinfo at the last `@` before that.
    let mut end = auth_start;
    while end < b.len()
        && !matches!(
            b[end],
            b'/' | b'?' | b'#' | b'"' | b'\'' | b'`' | b'<' | b'>'
        )
        && !b[end].is_ascii_whitespace()
    {
        end += 1;
    }
    let at_sign = auth_start + memchr::memrchr(b'@', &b[auth_start..end])?;
    let colon = auth_start + memchr::memchr(b':', &b[auth_start..at_sign])?;
    let pw = &b[colon + 1..at_sign];
    let pw_str = std::str::from_utf8(pw).ok()?;
    if pw.is_empty() || !is_secret_value(&percent_free(pw_str), Strength::Strong) {
        // Short passwords count in a URL (`redis://:pw@`), placeholders don't.
        if pw.is_empty() || pw.len() >= 4 || is_placeholder_short(pw) {
            return None;
        }
    }
    Some((colon + 1, at_sign))
}

/// A password shorter than the general minimum that is still a placeholder (`***`, `xx`).
fn is_placeholder_short(pw: &[u8]) -> bool {
    pw.iter().all(|&c| c == pw[0])
}

/// `%40` and friends read as one character, so `p%40ss` is judged as `p@ss`.
fn percent_free(s: &str) -> String {
    s.replace("%40", "@")
        .replace("%3A", ":")
        .replace("%3a", ":")
}

/// The whole value under a secret-named key (a JSON string, a CSV cell).
fn whole_value(text: &str, key: &str, out: &mut Vec<Span>) {
    let start = text.len() - text.trim_start().len();
    let mut value = text.trim();
    let mut s = start;
    if key.eq_ignore_ascii_case("authorization")
        && let Some(rest) = strip_scheme(value)
    {
        s += value.len() - rest.len();
        value = rest;
    }
    if is_secret_value(value, Strength::Strong) {
        out.push(Span::new(s, s + value.len(), Kind::Secret));
    }
}

/// `Bearer x`, `Basic x`, `Token x` → `x`.
fn strip_scheme(v: &str) -> Option<&str> {
    for scheme in ["Bearer ", "Basic ", "Token ", "bearer ", "token ", "basic "] {
        if let Some(rest) = v.strip_prefix(scheme) {
            return Some(rest.trim_start());
        }
    }
    None
}

/// Values of secret-named keys in text: each `=` or `:` of `seps` (every one of `text`, in
/// order) whose left side is a secret-named key, read by `pair`, and each `--flag value`.
fn key_values_with(
    text: &str,
    seps: impl Iterator<Item = usize>,
    pair: impl Fn(&str, usize) -> Option<(usize, usize)>,
    out: &mut Vec<Span>,
) {
    let b = text.as_bytes();
    for sep in seps {
        if let Some((s, e)) = pair(text, sep) {
            out.push(Span::new(s, e, Kind::Secret));
        }
    }
    // Most texts hold no `-` at all: a byte search turns them away before the finder's own
    // setup, which costs more than the search on a short JSON value.
    if memchr::memchr(b'-', b).is_none() {
        return;
    }
    for dash in DOUBLE_DASH.find_iter(b) {
        if let Some((s, e)) = flag_at(b, dash) {
            out.push(Span::new(s, e, Kind::Secret));
        }
    }
}

/// The key ending just before `end` (skipping a closing quote and spaces): its range and
/// whether it was quoted.
fn key_before(b: &[u8], end: usize) -> Option<(usize, usize, bool)> {
    let mut e = end;
    while e > 0 && b[e - 1] == b' ' {
        e -= 1;
    }
    let quoted = e > 0 && matches!(b[e - 1], b'"' | b'\'');
    if quoted {
        e -= 1;
    }
    let mut s = e;
    while s > 0 && (is_word(b[s - 1]) || matches!(b[s - 1], b'-' | b'.')) && e - s <= 64 {
        s -= 1;
    }
    while s < e && b[s] == b'-' {
        s += 1;
    }
    if s == e || e - s > 64 || !b[s].is_ascii_alphabetic() && b[s] != b'_' {
        return None;
    }
    if quoted && !(s > 0 && matches!(b[s - 1], b'"' | b'\'')) {
        return None;
    }
    Some((s, e, quoted))
}

/// Whether the key [`key_before`] `sep` would read can name a credential, from the bytes
/// right before its end: a key that `is_secret_key` takes ends (less what follows its last
/// letter or digit) in one of its words (`may_end_in_secret_word`), or is `authorization`.
/// Most separators of code and logs (`id=7`, `level=info`, `ts_ms=…`, `name=`) are settled
/// here without reading the key.
///
/// Exact: the key lies within the 65 bytes before its end `e`, and so does the word it ends
/// in; the bytes between that word and `e` are key bytes that are no letter or digit, so the
/// last letter or digit of the 80 bytes before `e` is the key's, and the test of those bytes
/// is the test of the key.
fn may_end_secret_key(b: &[u8], sep: usize) -> bool {
    let mut e = sep;
    while e > 0 && b[e - 1] == b' ' {
        e -= 1;
    }
    if e > 0 && matches!(b[e - 1], b'"' | b'\'') {
        e -= 1;
    }
    let before = &b[e.saturating_sub(80)..e];
    // Most keys end in two letters or digits that end none of the words (`id`, `level`,
    // `ms`): one load of a set of pairs settles them without a call or a search for the last
    // letter. Exact: a key that ends in one of the words ends in its last two bytes.
    if let [.., p, l] = before
        && p.is_ascii_alphanumeric()
        && l.is_ascii_alphanumeric()
        && !names::may_be_tail(&KEY_TAILS, *p, *l)
    {
        return false;
    }
    may_end_secret_key_reading(before)
}

/// The tails ([`names::tails`]) of the words a key that [`may_end_secret_key`] takes ends in.
static KEY_TAILS: [u32; 32] = {
    let mut t = names::tails(&names::SECRET_WORDS);
    let auth = names::tails(&[b"authorization"]);
    let mut i = 0;
    while i < 32 {
        t[i] |= auth[i];
        i += 1;
    }
    t
};

/// [`may_end_secret_key`] of the bytes `before` the key's end, without its test of the last
/// two bytes (and its test oracle).
fn may_end_secret_key_reading(before: &[u8]) -> bool {
    names::may_end_in_secret_word(before)
        || before.len() >= 13 && before[before.len() - 13..].eq_ignore_ascii_case(b"authorization")
}

/// The secret value of the `key<sep>value` pair whose separator is at `sep`. Inlined into
/// the pass over every separator, as most are turned away by its first test.
#[inline(always)]
fn pair_at(text: &str, sep: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    // `::`, `==`, `=>`, `:=` first: one byte turns away what the key's test would read back for
    // (`Result::Ok`, every `::` of code); `pair_reading_key` turns them away too.
    if matches!(b.get(sep + 1), Some(b'=' | b':' | b'>')) || !may_end_secret_key(b, sep) {
        return None;
    }
    pair_reading_key(text, sep)
}

/// [`pair_at`] without its test of the key's last byte (the test oracle for it).
fn pair_reading_key(text: &str, sep: usize) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let next = b.get(sep + 1).copied();
    // `==`, `::`, `=>`, `:=` with nothing after are code.
    if matches!(next, Some(b'=') | Some(b':') | Some(b'>')) {
        return None;
    }
    let (ks, ke, key_quoted) = key_before(b, sep)?;
    // A part of a `&str` is valid UTF-8 exactly when it starts and ends on character
    // boundaries: `get` tests those two bytes instead of validating the bytes between.
    let key = text.get(ks..ke)?;
    let key_trim = key.trim_start_matches('-');
    let authorization = key_trim.eq_ignore_ascii_case("authorization");
    if !authorization && !is_secret_key(key_trim) {
        return None;
    }
    let spaced_before = ke + usize::from(key_quoted) < sep;
    let mut v = sep + 1;
    while v < b.len() && (b[v] == b' ' || b[v] == b'\t') {
        v += 1;
    }
    let spaced_after = v > sep + 1;
    let line_start = b[..ks]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let lead = &b[line_start..ks];
    let at_line_start = lead.iter().all(|&c| c == b' ' || c == b'\t')
        || lead.trim_ascii_start() == b"export "
        || lead.trim_ascii_start() == b"- "
        || lead.trim_ascii_start() == b"set ";
    let (mut vs, mut ve, quoted) = value_at(b, v, at_line_start)?;
    if authorization {
        // The rest of the text, not validated again (once per pair it made a text of many
        // `Authorization:` lines quadratic).
        let rest = strip_scheme(text.get(vs..)?)?;
        vs = b.len() - rest.len();
        ve = value_at(b, vs, false)?.1;
    }
    // A backtick quotes code in Markdown and docs, not a literal.
    let literal = quoted && b[vs - 1] != b'`';
    let strength = if literal
        || key_quoted
        || authorization
        || (b[sep] == b'=' && !spaced_before && !spaced_after)
    {
        Strength::Strong
    } else {
        Strength::Weak
    };
    let value = text.get(vs..ve)?;
    // A key with a JSON key's quotes wants a quoted value (`"token": 3` is a count).
    if key_quoted && !quoted && b[sep] == b':' && !looks_like_word_value(value) {
        return None;
    }
    is_secret_value(value, strength).then_some((vs, ve))
}

/// An unquoted value after a quoted key that could still be a literal secret (YAML flow).
fn looks_like_word_value(v: &str) -> bool {
    v.bytes().any(|c| c.is_ascii_alphabetic()) && v.bytes().any(|c| c.is_ascii_digit())
}

/// The value starting at `v`: quoted (to the closing quote on the same line) or bare (to
/// whitespace or a delimiter; the bare value of a pair that starts its line (an env or YAML line)
/// runs to whitespace only). Returns its
/// range and whether it was quoted.
fn value_at(b: &[u8], v: usize, env_line: bool) -> Option<(usize, usize, bool)> {
    let q = *b.get(v)?;
    if matches!(q, b'"' | b'\'' | b'`') {
        let mut e = v + 1;
        while e < b.len() && b[e] != q && b[e] != b'\n' {
            if b[e] == b'\\' {
                e += 1;
            }
            e += 1;
        }
        if e >= b.len() || b[e] != q {
            return None;
        }
        return Some((v + 1, e, true));
    }
    let mut e = v;
    while e < b.len() && !b[e].is_ascii_whitespace() {
        if !env_line
            && matches!(
                b[e],
                b';' | b',' | b'&' | b'"' | b'\'' | b'`' | b')' | b'}' | b']' | b'>'
            )
        {
            break;
        }
        e += 1;
    }
    // Prose punctuation after a value (`the password is: hunter2.`).
    while e > v && matches!(b[e - 1], b'.' | b',' | b';' | b':') {
        e -= 1;
    }
    (e > v).then_some((v, e, false))
}

/// The value of a `--flag value` / `--flag=value` at `dash` (`--`), when the flag names a
/// credential (`--password`, `--token`, `--api-key`, `--client-secret`).
fn flag_at(b: &[u8], dash: usize) -> Option<(usize, usize)> {
    if dash > 0 && !b[dash - 1].is_ascii_whitespace() && b[dash - 1] != b'"' {
        return None;
    }
    let ks = dash + 2;
    let mut ke = ks;
    while ke < b.len() && (b[ke].is_ascii_alphanumeric() || matches!(b[ke], b'-' | b'_')) {
        ke += 1;
    }
    if ke == ks || b.get(ke) == Some(&b'=') {
        // `--token=x` is read by the `=` pass.
        return None;
    }
    let key = std::str::from_utf8(&b[ks..ke]).ok()?;
    if !is_secret_key(key) || b.get(ke) != Some(&b' ') {
        return None;
    }
    let (vs, ve, _) = value_at(b, ke + 1, false)?;
    if b[vs] == b'-' {
        return None;
    }
    let value = std::str::from_utf8(&b[vs..ve]).ok()?;
    is_secret_value(value, Strength::Strong).then_some((vs, ve))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    fn found(text: &str) -> Vec<&str> {
        let r = SecretRecognizer::new();
        let mut out = Vec::new();
        r.find(text, &FindContext::default(), false, &mut out);
        super::super::overlap::resolve(&mut out);
        out.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn prefixed_keys() {
        let gh = "ghp_0123456789abcdefghijABCDEFGHIJ012345";
        assert_eq!(found(&format!("token {gh} here")), vec![gh]);
        assert_eq!(found("AKIAQ3EGRTJ5L2XVN7PZ."), vec!["AKIAQ3EGRTJ5L2XVN7PZ"]);
        assert!(found("AKIAQ3EGRTJ5L2XVN7PZX").is_empty());
        assert!(found("xAKIAQ3EGRTJ5L2XVN7PZ").is_empty());
        let sg = format!("SG.{}.{}", "a".repeat(21) + "B", "c".repeat(42) + "D");
        assert_eq!(found(&sg), vec![sg.as_str()]);
    }

    #[test]
    fn env_yaml_json_flags() {
        assert_eq!(found("DB_PASSWORD=hunter2\n"), vec!["hunter2"]);
        assert_eq!(found("export API_TOKEN=\"abc123xyz\""), vec!["abc123xyz"]);
        assert_eq!(found("  password: s3cr3tPw!\n"), vec!["s3cr3tPw!"]);
        assert_eq!(found(r#"{"client_secret": "zz9Top"}"#), vec!["zz9Top"]);
        assert_eq!(found("mytool --password hunter2 -v"), vec!["hunter2"]);
        assert_eq!(found("mytool --token=hunter2"), vec!["hunter2"]);
        assert_eq!(
            found("Server=db;User Id=sa;Password=Pa55word;Encrypt=true"),
            vec!["Pa55word"]
        );
        assert_eq!(
            found("Authorization: Bearer abcDEF123456"),
            vec!["abcDEF123456"]
        );
        assert!(found("password: changeme").is_empty());
        assert!(found("DB_PASSWORD=${DB_PASSWORD}").is_empty());
        assert!(found("let token = Token::new(kind, n);").is_empty());
        assert!(found("    token: Token,\n    secret: u32,").is_empty());
        assert!(found("if password == other {").is_empty());
        assert!(found("max_tokens: 1024").is_empty());
        assert!(found("/// A provider-prefixed credential: `RULES[i]`'s prefix at").is_empty());
        assert!(found("// Anthropic (anthropic-api-key: `sk-ant-api03-`, `x`)").is_empty());
    }

    #[test]
    fn urls_jwts_pems() {
        assert_eq!(
            found("postgres://app:Tr0ub4dor@db:5432/x"),
            vec!["Tr0ub4dor"]
        );
        assert_eq!(found("redis://:pw@cache:6379"), vec!["pw"]);
        assert!(found("https://user:***@host/").is_empty());
        assert!(found("see https://example.com/a:b@c").is_empty());
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0In0.sig_ABC-123";
        assert_eq!(found(&format!("Bearer {jwt}")), vec![jwt]);
        assert!(found("eyJmb28iOjF9.eyJzdWIiOiIxMjM0In0.sig").is_empty());
        let pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----";
        assert_eq!(found(&format!("key:\n{pem}\nafter")), vec![pem]);
        assert!(found("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----").is_empty());
    }

    /// The spans of `find` and of `find_reference`, unresolved (order and duplicates too).
    fn both(text: &str) -> (Vec<Span>, Vec<Span>) {
        static R: std::sync::LazyLock<SecretRecognizer> =
            std::sync::LazyLock::new(SecretRecognizer::new);
        let (mut new, mut old) = (Vec::new(), Vec::new());
        R.find(text, &FindContext::default(), false, &mut new);
        R.find_reference(text, &FindContext::default(), false, &mut old);
        (new, old)
    }

    #[test]
    fn windows_find_what_the_whole_text_finds_on_generated_text() {
        let texts = [
            crate::testdata::prose(7, 256 * 1024).text,
            crate::testdata::clean_text(8, 256 * 1024).text,
            crate::testdata::crm_json(9, 128 * 1024).text,
        ];
        for text in &texts {
            let (new, old) = both(text);
            assert_eq!(new, old);
            for line in text.split_inclusive('\n').take(2000) {
                let (new, old) = both(line);
                assert_eq!(new, old, "{line:?}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// Strings dense in prefixes, tails, word glue and the bytes that bound windows, where
        /// overlapping and glued prefixes decide most often.
        #[test]
        fn windows_find_what_the_whole_text_finds(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(
                        RULES.iter().map(|r| r.prefix).chain(EXTRA).collect::<Vec<_>>()
                    ).prop_map(String::from),
                    "[A-Za-z0-9]{1,40}",
                    "[a-f0-9]{30,70}",
                    "[A-Za-z0-9_.=/+-]{1,24}",
                    "[ \n:@=._/\"'+é-]{1,3}",
                    proptest::sample::select(vec![
                        "eyJhbGciOiJIUzI1NiJ9", ".eyJzdWIiOiIxIn0.", "PRIVATE KEY-----\n",
                        "https://", "postgres://u:", "@db/", "twilio ", "-----END ", "x",
                        "password=", "api_key: ", "\"token\": \"", "Authorization: Bearer ",
                        "--password ", "export DB_PASSWORD=", "secret = '", "pwd", "Key",
                        "s3cr3tPw9", "hunter2x", "\"", "'", "==", "::", "1:", "n=", "y ",
                        "authorization: ", "AUTHORIZATION=", "-token=", "credentials.=",
                        "PASS=", "my_pwd_=", "key-:", "passcode.", "_", "-", ".",

                    ]).prop_map(String::from),
                ],
                0..20,
            ),
        ) {
            let text = parts.concat();
            let (new, old) = both(&text);
            proptest::prop_assert_eq!(new, old, "{:?}", text);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20_000))]
        /// Short texts (JSON values), where the windows' masks tell the pairs' and flags' scans
        /// off: words, spaces, punctuation, digits, separators, base64-like runs and prefixes.
        #[test]
        fn short_texts_find_what_the_whole_text_finds(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    "[A-Za-z]{1,12}",
                    "[ ,;!?()'\"/@+]{1,2}",
                    "[0-9]{1,4}",
                    "[:=._\n-]",
                    "[A-Za-z0-9+/_-]{10,40}",
                    "[A-Z0-9]{12,24}",
                    proptest::sample::select(vec![
                        "ghp_", "sk-", "AKIA", "xoxb-", "xox", "eyJ", "-----BEGIN ", "://",
                        "https://u:", "@h", "password", "token", "--token ", "--", "é",
                        "eyJhbGciOiJIUzI1NiJ9", ".eyJzdWIiOiIxIn0.", "AccountKey=",
                    ]).prop_map(String::from),
                    proptest::sample::select(
                        RULES.iter().map(|r| r.prefix).chain(EXTRA).collect::<Vec<_>>()
                    ).prop_map(String::from),
                ],
                0..10,
            ),
        ) {
            let text = parts.concat();
            let (new, old) = both(&text);
            proptest::prop_assert_eq!(new, old, "{:?}", text);
        }
    }

    #[test]
    fn may_end_secret_key_as_without_tails_on_generated_text() {
        // The generated texts hold few secret keys: a text of every glue of key words, key
        // ends and separators joins them.
        let words = [
            "db_password",
            "PASSWD",
            "pwd",
            "passphrase",
            "PassCode",
            "pass",
            "credentials",
            "Secret",
            "token",
            "credential",
            "API_KEY",
            "Authorization",
            "AUTHORIZATIOn",
            "id",
            "level",
            "x9",
            "on",
            "ey",
            "_",
            "-",
            ".",
            "é",
            "\"",
            "'",
            " ",
            "0",
        ];
        let mut glued = String::new();
        for a in words {
            for b in words {
                for sep in ["=", ": ", " = ", "\"=", "':", "::", "\n:"] {
                    glued.push_str(&format!("{a}{b}{sep}v "));
                }
            }
        }
        let texts = [
            crate::testdata::prose(10, 128 * 1024).text,
            crate::testdata::clean_text(11, 128 * 1024).text,
            crate::testdata::crm_json(12, 64 * 1024).text,
            glued,
        ];
        let mut n = 0;
        for text in &texts {
            let b = text.as_bytes();
            for sep in memchr::memchr2_iter(b'=', b':', b) {
                let mut e = sep;
                while e > 0 && b[e - 1] == b' ' {
                    e -= 1;
                }
                if e > 0 && matches!(b[e - 1], b'"' | b'\'') {
                    e -= 1;
                }
                let reading = may_end_secret_key_reading(&b[e.saturating_sub(80)..e]);
                assert_eq!(may_end_secret_key(b, sep), reading, "{sep}");
                n += usize::from(reading);
            }
        }
        assert!(n > 1000, "{n}");
    }

    #[test]
    fn not_credentials() {
        for clean in [
            "commit 3f786850e387550fdab836ed7e6dc881de23001b",
            "id 123e4567-e89b-12d3-a456-426614174000",
            "\"integrity\": \"sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR6FBPNPX3cGNPGXQ==\"",
            "checksum = \"a3f5b0c2d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2\"",
            "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk",
        ] {
            assert!(found(clean).is_empty(), "{clean}");
        }
    }
}
