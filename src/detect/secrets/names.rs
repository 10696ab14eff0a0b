//! Which keys name a credential, and which values under them are one.
//!
//! A key is split into words (`AWS_SECRET_ACCESS_KEY`, `clientSecret`, `api-key` →
//! `aws secret access key`, `client secret`, `api key`) and judged by its last word: a
//! password word, `secret`, `token`, `credential(s)`, or `key` after a word that makes it a
//! secret key (`api`, `private`, `signing`...). Words before the last that make it something else
//! veto it: `max_tokens`, `next_token` (pagination), `public_key`, `cache_key`.
//!
//! A value is judged by how strong its context is: under an explicit key in a structured
//! context (an env line, a JSON key, a CLI flag, a connection string) any literal that is not a
//! placeholder is a secret, even `hunter2`; in weak contexts (a `key: value` line that may be
//! source code, `key = value` with spaces) the value must also look generated: mixed letters and
//! digits or symbols, not an identifier, a type or a call.

/// How much a context vouches for its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Strength {
    /// Env lines, JSON keys, quoted values, CLI flags, `key=value` without spaces.
    Strong,
    /// `key: value` and `key = value` lines that may be code.
    Weak,
}

/// Words that, last in a key, name a password.
const PASSWORD_WORDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "passcode",
    "pass",
];

/// Words that, before a final `key`, make it a secret key.
const KEY_QUALIFIERS: &[&str] = &[
    "api",
    "secret",
    "private",
    "access",
    "auth",
    "signing",
    "encryption",
    "master",
    "client",
    "app",
    "license",
    "service",
    "account",
    "subscription",
    "consumer",
    "webhook",
    "session",
    "hmac",
    "jwt",
    "aes",
    "storage",
    "admin",
    "write",
    "read",
    "deploy",
    "shared",
    "sas",
];

/// Words that, before a final `token`/`secret`/`key`, make it not a credential.
const VETO_WORDS: &[&str] = &[
    "max",
    "min",
    "num",
    "total",
    "input",
    "output",
    "prompt",
    "completion",
    "context",
    "reasoning",
    "cached",
    "page",
    "next",
    "prev",
    "continuation",
    "cancellation",
    "cursor",
    "sync",
    "public",
    "primary",
    "foreign",
    "sort",
    "cache",
    "partition",
    "idempotency",
    "hash",
    "group",
    "row",
    "object",
    "routing",
    "shard",
    "lookup",
    "map",
    "dict",
    "unique",
    "i18n",
    "translation",
    "message",
    "event",
    "registry",
    "file",
    "state",
    "query",
    "item",
    "index",
    "sub",
    "composite",
    "natural",
    "surrogate",
    "dedup",
    "dedupe",
    "hot",
    "short",
    "key",
    "has",
    "is",
    "use",
    "no",
    "show",
    "with",
    "require",
    "requires",
];

/// Whether `key` names a credential; `upper_env` says the key is an upper-case env name
/// (`STRIPE_KEY`), where any qualified `*_KEY` counts.
pub(crate) fn is_secret_key(key: &str) -> bool {
    may_end_in_secret_word(key.as_bytes()) && secret_key_words(key)
}

/// [`is_secret_key`] without its first test ([`may_end_in_secret_word`]): the key's words.
fn secret_key_words(key: &str) -> bool {
    if key.len() > 64 || key.is_empty() {
        return false;
    }
    let mut words: [&str; 8] = [""; 8];
    let mut n = 0;
    let mut buf = [0u8; 64];
    let lower = fold(key, &mut buf);
    // Word boundaries: separators, and lower → upper transitions in camelCase.
    let b = key.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i <= b.len() {
        let boundary = i == b.len()
            || !b[i].is_ascii_alphanumeric()
            || (i > start && b[i].is_ascii_uppercase() && b[i - 1].is_ascii_lowercase());
        if boundary {
            if i > start {
                if n == words.len() {
                    words.copy_within(1.., 0);
                    n -= 1;
                }
                words[n] = &lower[start..i];
                n += 1;
            }
            start = if i < b.len() && !b[i].is_ascii_alphanumeric() {
                i + 1
            } else {
                i
            };
        }
        i += 1;
    }
    if n == 0 {
        return false;
    }
    let last = words[n - 1];
    let prev = (n >= 2).then(|| words[n - 2]);
    if prev.is_some_and(|p| VETO_WORDS.contains(&p)) {
        return false;
    }
    if PASSWORD_WORDS.contains(&last) {
        return last != "pass" || n > 1 || key == "pass";
    }
    match last {
        "secret" | "token" | "credential" | "credentials" | "apikey" | "secretkey"
        | "accesskey" | "privatekey" | "authtoken" | "accesstoken" | "refreshtoken"
        | "apitoken" | "clientsecret" | "apisecret" => true,
        "key" => prev.is_some_and(|p| KEY_QUALIFIERS.contains(&p)),
        _ => false,
    }
}

/// The words that a key [`is_secret_key`] takes can end in (see [`may_end_in_secret_word`]).
pub(super) const SECRET_WORDS: [&[u8]; 11] = [
    b"password",
    b"passwd",
    b"pwd",
    b"passphrase",
    b"passcode",
    b"pass",
    b"credentials",
    b"secret",
    b"token",
    b"credential",
    b"key",
];

/// The last two bytes of some words, as a set over their low five bits: entry `l & 31` holds
/// bit `p & 31` for each word ending in the bytes `p`, `l`. Upper and lower case letters share
/// their low five bits, so a key that ends in one of the words (ASCII case-insensitive) has
/// its pair in the set; most keys' last two letters are no such pair (`id`, `level`, `ms`).
pub(super) const fn tails(words: &[&[u8]]) -> [u32; 32] {
    let mut set = [0u32; 32];
    let mut i = 0;
    while i < words.len() {
        let w = words[i];
        // Every word has two bytes or more (`secret_words_have_two_bytes`).
        if w.len() >= 2 {
            set[(w[w.len() - 1] & 31) as usize] |= 1 << (w[w.len() - 2] & 31);
        }
        i += 1;
    }
    set
}

/// Whether the pair of bytes `p`, `l` may end one of the words of the set `tails` ([`tails`]).
pub(super) fn may_be_tail(tails: &[u32; 32], p: u8, l: u8) -> bool {
    tails[usize::from(l & 31)] >> (p & 31) & 1 != 0
}

/// The tails of [`SECRET_WORDS`].
static SECRET_TAILS: [u32; 32] = tails(&SECRET_WORDS);

/// Whether `key`'s last word can be one that names a credential: the key, less what follows
/// its last ASCII letter or digit, ends in one of those words (ASCII case-insensitive). A
/// word of [`is_secret_key`] is a run of such bytes, so its last word ends there; most keys
/// of logs and code (`id=`, `level=`, `Result::`) fail this test at their last two letters.
pub(super) fn may_end_in_secret_word(key: &[u8]) -> bool {
    let end = key
        .iter()
        .rposition(u8::is_ascii_alphanumeric)
        .map_or(0, |i| i + 1);
    let core = key.get(..end).unwrap_or_default();
    let [.., p, l] = core else {
        return false;
    };
    may_be_tail(&SECRET_TAILS, *p, *l)
        && SECRET_WORDS
            .iter()
            .any(|w| core.len() >= w.len() && core[core.len() - w.len()..].eq_ignore_ascii_case(w))
}

/// [`may_end_in_secret_word`] as it was, by the last letter (the test oracle of the word list
/// and its tails).
#[cfg(test)]
fn may_end_in_secret_word_reference(key: &[u8]) -> bool {
    let end = key
        .iter()
        .rposition(u8::is_ascii_alphanumeric)
        .map_or(0, |i| i + 1);
    let core = &key[..end];
    let ends =
        |w: &[u8]| core.len() >= w.len() && core[core.len() - w.len()..].eq_ignore_ascii_case(w);
    match core.last().map(u8::to_ascii_lowercase) {
        Some(b'd') => ends(b"password") || ends(b"passwd") || ends(b"pwd"),
        Some(b'e') => ends(b"passphrase") || ends(b"passcode"),
        Some(b's') => ends(b"pass") || ends(b"credentials"),
        Some(b't') => ends(b"secret"),
        Some(b'n') => ends(b"token"),
        Some(b'l') => ends(b"credential"),
        Some(b'y') => ends(b"key"),
        _ => false,
    }
}

/// ASCII lower case of `key` into `buf` (keys are at most 64 bytes; non-ASCII bytes stay).
fn fold<'a>(key: &str, buf: &'a mut [u8; 64]) -> &'a str {
    let b = key.as_bytes();
    for (o, c) in buf.iter_mut().zip(b) {
        *o = c.to_ascii_lowercase();
    }
    std::str::from_utf8(&buf[..b.len()]).unwrap_or("")
}

/// Values that stand for a secret without being one (lower-cased comparison).
const PLACEHOLDERS: &[&str] = &[
    "null",
    "nil",
    "none",
    "true",
    "false",
    "undefined",
    "changeme",
    "change_me",
    "change-me",
    "changeit",
    "password",
    "passwd",
    "secret",
    "token",
    "redacted",
    "hidden",
    "masked",
    "example",
    "test",
    "string",
    "str",
    "required",
    "optional",
    "todo",
    "tbd",
    "n/a",
    "empty",
    "default",
    "sample",
    "dummy",
    "placeholder",
    "value",
    "foo",
    "bar",
    "foobar",
    "your-token",
    "your_token",
    "yourtoken",
    "your-api-key",
    "your_api_key",
    "your-password",
    "your_password",
    "mypassword",
    "my-secret",
    "my_secret",
    "secret123",
    "password123",
    "api_key",
    "apikey",
    "pass",
    "env",
    "unset",
    "omitted",
];

/// Whether `value` (already trimmed of quotes) is a secret in a context of `strength`.
pub(super) fn is_secret_value(value: &str, strength: Strength) -> bool {
    let b = value.as_bytes();
    if b.len() < 4 || b.len() > 512 {
        return false;
    }
    if b.iter()
        .any(|c| c.is_ascii_whitespace() || c.is_ascii_control())
    {
        return false;
    }
    // References and templates: `${VAR}`, `$VAR`, `%(x)s`, `<your-token>`, `{{ secret }}`,
    // YAML anchors and tags, token literals (`[SECRET_1]`).
    if matches!(
        b[0],
        b'$' | b'%' | b'<' | b'{' | b'&' | b'*' | b'!' | b'[' | b'(' | b'#' | b'@' | b'=' | b'|'
    ) || b.contains(&b'(')
        || value.contains("{{")
        || value.contains("${")
    {
        return false;
    }
    // One character repeated (`xxxx`, `****`, `....`).
    if b.iter().all(|&c| c == b[0]) || (b.len() >= 3 && b[..3].iter().all(|&c| c == b'*')) {
        return false;
    }
    let lower = value.to_ascii_lowercase();
    if PLACEHOLDERS.contains(&lower.as_str())
        || lower.starts_with("your")
        || lower.starts_with("xxx")
        || lower.contains("example")
        || lower.contains("placeholder")
        || lower.contains("redacted")
        || lower.starts_with("env:")
        || lower.starts_with("secret:")
        || lower.starts_with("vault:")
        || lower.starts_with("file:")
        || lower.starts_with("keyring:")
        || lower.starts_with("op://")
        || lower.starts_with("arn:")
    {
        return false;
    }
    // Identifier paths are code (`process.env.TOKEN`, `self.token`, `Token::new`, `config.secret`).
    if is_code_path(b) {
        return false;
    }
    match strength {
        Strength::Strong => true,
        Strength::Weak => looks_generated(b) && !is_type_name(&lower),
    }
}

/// `a.b`, `a::b`, `a->b`, `a?.b`: identifiers joined by member access, with no digit run that
/// would make it a generated value.
fn is_code_path(b: &[u8]) -> bool {
    let sep = b.contains(&b'.') || b.windows(2).any(|w| w == b"::" || w == b"->");
    sep && b[0].is_ascii_alphabetic()
        && b.iter().all(|&c| {
            c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-' | b'>' | b'?')
        })
        && !b.iter().any(u8::is_ascii_digit)
}

/// A value a person or a generator made up, not a word: letters with digits or symbols, or a
/// long random-looking run.
fn looks_generated(b: &[u8]) -> bool {
    if b.len() < 6 {
        return false;
    }
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let symbols = b.len() - letters - digits;
    // A prefix or a cut word (`sk-ant-api03-`, `tok_`).
    if matches!(b[b.len() - 1], b'-' | b'_') {
        return false;
    }
    if letters == 0 {
        // Numbers (ports, counts, ids) are not credentials in a weak context.
        return false;
    }
    // Brackets, braces, `,` and `;` are code (`RULES[i]`, `Vec<String>`, `x,`).
    if b.iter()
        .any(|&c| matches!(c, b'<' | b'>' | b'{' | b'}' | b'[' | b']' | b',' | b';'))
    {
        return false;
    }
    (digits > 0 || symbols > 0) && entropy(b) >= 2.5
}

/// Shannon entropy in bits per byte.
pub(super) fn entropy(b: &[u8]) -> f64 {
    let mut counts = [0u32; 256];
    for &c in b {
        counts[usize::from(c)] += 1;
    }
    let n = b.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Type names of the languages whose source a weak context may be (`token: u32`, `key: i64`).
fn is_type_name(lower: &str) -> bool {
    let b = lower.as_bytes();
    let num_suffix = |rest: &str| matches!(rest, "8" | "16" | "32" | "64" | "128" | "size");
    (b.len() <= 5 && matches!(b[0], b'u' | b'i' | b'f') && num_suffix(&lower[1..]))
        || lower
            .strip_prefix("uint")
            .or_else(|| lower.strip_prefix("int"))
            .or_else(|| lower.strip_prefix("float"))
            .is_some_and(num_suffix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    #[test]
    fn the_last_word_test_never_drops_a_secret_key() {
        let mut words: Vec<&str> = Vec::new();
        words.extend(PASSWORD_WORDS);
        words.extend(KEY_QUALIFIERS);
        words.extend(VETO_WORDS);
        words.extend([
            "secret",
            "token",
            "credential",
            "credentials",
            "apikey",
            "secretkey",
            "accesskey",
            "privatekey",
            "authtoken",
            "accesstoken",
            "refreshtoken",
            "apitoken",
            "clientsecret",
            "apisecret",
            "key",
            "keys",
            "id",
            "x",
            "é",
        ]);
        let mut n = 0;
        for a in &words {
            for b in &words {
                for (sep, tail) in [("_", ""), ("-", "."), ("", ""), (".", "-"), ("", "é")] {
                    let upper = b.to_ascii_uppercase();
                    let mut camel = b.to_string();
                    if let Some(first) = camel.get_mut(..1) {
                        first.make_ascii_uppercase();
                    }
                    for k in [
                        format!("{a}{sep}{b}{tail}"),
                        format!("{}{sep}{upper}{tail}", a.to_ascii_uppercase()),
                        format!("{a}{camel}{tail}"),
                        format!("{b}{tail}"),
                    ] {
                        if secret_key_words(&k) {
                            n += 1;
                            assert!(may_end_in_secret_word(k.as_bytes()), "{k}");
                        }
                    }
                }
            }
        }
        assert!(n > 1000, "{n}");
    }

    #[test]
    fn secret_words_have_two_bytes() {
        assert!(SECRET_WORDS.iter().all(|w| w.len() >= 2));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The word list and its tails decide as the test by the last letter did, on keys
        /// dense in the words, their tails and the bytes that end a key's core.
        #[test]
        fn may_end_in_secret_word_as_before(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::sample::select(vec![
                        "password", "PASSWD", "pwd", "passphrase", "PassCode", "pass", "ss",
                        "credentials", "Secret", "token", "credential", "KEY", "ey", "rd", "wd",
                        "se", "de", "ls", "et", "en", "al", "on", "id", "level", "_", "-", ".",
                        "é", " ", "\"", "0", "9", "D", "Y", "\u{0}", "\u{7f}",
                    ]).prop_map(String::from),
                    "[A-Za-z0-9_.-]{1,6}",
                    "[\\x00-\\x7f]{1,3}",
                ],
                0..8,
            ),
        ) {
            let key = parts.concat();
            proptest::prop_assert_eq!(
                may_end_in_secret_word(key.as_bytes()),
                may_end_in_secret_word_reference(key.as_bytes()),
                "{:?}", key
            );
        }
    }

    #[test]
    fn may_end_in_secret_word_as_before_on_every_short_tail() {
        // Every key of one or two bytes, and every two bytes after each word less its last
        // byte or two: the tails test against every pair it could see.
        let mut keys: Vec<Vec<u8>> = Vec::new();
        for p in 0..=255u8 {
            keys.push(vec![p]);
            for l in 0..=255u8 {
                keys.push(vec![p, l]);
                for w in SECRET_WORDS {
                    keys.push([&w[..w.len() - 2], &[p, l]].concat());
                    keys.push([&w[..w.len() - 1], &[p, l]].concat());
                }
            }
        }
        for k in &keys {
            assert_eq!(
                may_end_in_secret_word(k),
                may_end_in_secret_word_reference(k),
                "{k:?}"
            );
        }
    }

    #[test]
    fn secret_keys() {
        for k in [
            "password",
            "DB_PASSWORD",
            "dbPassword",
            "passwd",
            "pwd",
            "api_key",
            "apiKey",
            "API-KEY",
            "apikey",
            "token",
            "GITHUB_TOKEN",
            "access_token",
            "accessToken",
            "secret",
            "client_secret",
            "AWS_SECRET_ACCESS_KEY",
            "secret_key",
            "private_key",
            "STRIPE_SECRET_KEY",
            "credentials",
            "auth_token",
            "id_token",
        ] {
            assert!(is_secret_key(k), "{k}");
        }
        for k in [
            "max_tokens",
            "tokens",
            "next_token",
            "pageToken",
            "public_key",
            "cache_key",
            "key",
            "primary_key",
            "token_type",
            "secret_name",
            "password_hash",
            "name",
            "keys",
            "passport",
            "bypass",
            "compass",
            "sort_key",
            "has_password",
        ] {
            assert!(!is_secret_key(k), "{k}");
        }
    }

    #[test]
    fn values() {
        use Strength::*;
        for v in ["hunter2", "s3cr3t!", "Zx9-long_value"] {
            assert!(is_secret_value(v, Strong), "{v}");
        }
        for v in [
            "",
            "null",
            "changeme",
            "${DB_PASSWORD}",
            "$TOKEN",
            "<your-token>",
            "xxxx",
            "****",
            "{{ secret }}",
            "process.env.TOKEN",
            "self.token",
            "your_api_key_here",
            "os.getenv(\"X\")",
            "[SECRET_1]",
        ] {
            assert!(!is_secret_value(v, Strong), "{v}");
        }
        assert!(is_secret_value("a8Fj2kL9qW", Weak));
        for v in [
            "Token",
            "u32",
            "String",
            "Vec<String>,",
            "Option<&str>",
            "12345",
            "Token::new",
        ] {
            assert!(!is_secret_value(v, Weak), "{v}");
        }
    }
}
