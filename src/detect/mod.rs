//! Finding personal data in a `&str`.
//!
//! A [`Detector`] is built once from a [`DetectConfig`] and shared (it is `Send + Sync` and holds
//! no locks): every regex and automaton is compiled in [`Detector::new`], never per call. It runs
//! a list of [`Recognizer`]s, one per kind of data (email, phone, names, checksummed numbers,
//! custom YAML kinds), over one string and resolves their overlapping candidates into a sorted,
//! non-overlapping list of [`Span`]s (see [`overlap`]).
//!
//! Recognizers are the plug-in point: each owns one kind, does its own cheap prefilter (for
//! example `memchr` on `@` for email) so that text without candidates costs one fast scan, and
//! appends candidates to a shared output vector so the hot path allocates nothing when nothing is
//! found. On a short string the detector first reads the bytes once (`prefilter`) and skips the
//! built-in recognizers whose trigger byte is absent, and it works out what the context's key
//! says (a phone key, an SSN key, a name key) once for all of them.
//!
//! Structure matters as much as text: a value under the JSON key `full_name` or in the CSV column
//! `email` is evidence the text alone does not carry. Callers pass that through [`FindContext`].

mod checksum;
mod custom;
mod digits;
mod email;
mod ids;
mod inert;
mod ip;
mod keyed;
mod keys;
mod labels;
pub(crate) mod lanes;
pub mod names;
pub mod overlap;
mod phone;
pub(crate) mod prefilter;
pub mod recall;
mod secrets;
mod seps;
mod slots;
mod structured;

use std::fmt;

use serde::Deserialize;

use seps::{Listed, Scanned, Seps};

/// The finder of `%40` (a percent-encoded `@`), built once: `memmem::find` would build a
/// searcher on every call, and this runs on every text.
pub(crate) static PERCENT_AT: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"%40"));

pub use crate::kind::{IdKind, Kind};
pub use custom::{CustomKind, Validator};
pub use ids::IdsConfig;
pub(crate) use keys::{Fnv, fold_key};
pub use keys::{KeyHint, key_hint};
pub(crate) use phone::calling_code;

/// Whether a label or pair key names a login (`handle`, `user`). `login` counts only as a JSON
/// key: as a label or a pair key it mostly says how a login went (`login=ok`, `Login: failed`).
fn names_login(label: &str) -> bool {
    ids::names_username(label) && !label.eq_ignore_ascii_case("login")
}

/// One finding: the byte range `start..end` of the searched text holds a value of `kind`.
///
/// `canonical` is the form used to decide whether two findings are the same value when it is
/// not a plain case/whitespace fold of the text (a phone's E.164 form). The span holds no copy of
/// the text itself, and its `Debug` does not show the canonical form (a phone's E.164 form is the
/// phone number), so it is safe to log.
#[derive(Clone, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// What was found.
    pub kind: Kind,
    /// A canonical form for equality (E.164 for phones), if the recognizer computed one.
    pub canonical: Option<std::sync::Arc<str>>,
}

impl std::fmt::Debug for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Span")
            .field("start", &self.start)
            .field("end", &self.end)
            .field("kind", &self.kind)
            .field("canonical", &redacted(self.canonical.is_some()))
            .finish()
    }
}

/// What `Debug` shows of a canonical form: whether there is one, never the form (a phone's
/// E.164 form is the number).
pub(crate) fn redacted(present: bool) -> Option<crate::sensitive::Sensitive<()>> {
    present.then_some(crate::sensitive::Sensitive::new(()))
}

impl Span {
    /// A span with no canonical form.
    pub fn new(start: usize, end: usize, kind: Kind) -> Span {
        Span {
            start,
            end,
            kind,
            canonical: None,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the span is empty (recognizers never produce empty spans).
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// What the caller knows about where a string came from.
#[derive(Clone, Copy, Debug, Default)]
pub struct FindContext<'a> {
    /// The JSON object key the string is the value of, or the CSV column header.
    pub key: Option<&'a str>,
    /// The key of the object that holds `key` (`company` in `{"company": {"name": ..}}`).
    pub parent_key: Option<&'a str>,
    /// Names the session has already tokenized, found again wherever they recur.
    pub recall: Option<&'a recall::Recall>,
}

impl<'a> FindContext<'a> {
    /// A context for a value under `key`.
    pub fn with_key(key: &'a str) -> Self {
        FindContext {
            key: Some(key),
            ..FindContext::default()
        }
    }
}

/// What the context's key says to the built-in recognizers, worked out once per key: a caller
/// that sees the same key many times (the rows of a JSON array) works it out once and reuses it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KeyFacts {
    /// [`key_hint`] of the key.
    hint: Option<KeyHint>,
    /// The key names social security numbers.
    ssn: bool,
    /// The key names a credential (`password`, `api_key`, `*_TOKEN`: `detect/secrets.rs`).
    secret: bool,
    /// The kind whose whole values the key vouches for (`detect/keyed.rs`).
    keyed: Option<keyed::KeyedKind>,
    /// The identifier kind the key names (`nhs_number`, `dob`: `detect/ids.rs`).
    id: Option<IdKind>,
}

impl KeyFacts {
    /// Whether the key says nothing about its value (no hint, no SSN key, no keyed kind):
    /// its value is read as text (`walk/text.rs`).
    pub(crate) fn is_silent(&self) -> bool {
        self.hint.is_none() && !self.ssn && self.keyed.is_none()
    }

    /// Whether the key vouches for no kind of value: no hint or one that its value names a
    /// thing (`id`, `company`), and no SSN, credential, identifier or keyed kind. A value in a
    /// machine format under such a key is passed over (`inert.rs`).
    pub(crate) fn vouches_for_nothing(&self) -> bool {
        matches!(self.hint, None | Some(KeyHint::NotPerson))
            && !self.ssn
            && !self.secret
            && self.keyed.is_none()
            && self.id.is_none()
    }

    /// Whether the key's values count for column evidence (`walk/columns.rs`): a key that
    /// says nothing or names people; not an organisation, place, address or phone key.
    pub(crate) fn takes_column_evidence(&self) -> bool {
        matches!(self.hint, None | Some(KeyHint::PersonName { .. }))
    }

    /// Whether the key names organisations, places or things (`company`, `city`).
    pub(crate) fn is_not_person(&self) -> bool {
        self.hint == Some(KeyHint::NotPerson)
    }

    /// The facts of `key` (none without one).
    pub(crate) fn of(key: Option<&str>) -> KeyFacts {
        key.map_or_else(KeyFacts::default, |key| KeyFacts {
            hint: key_hint(key),
            ssn: checksum::is_ssn_key(key),
            keyed: keyed::kind_of_key(key),
            secret: secrets::is_secret_key(key),
            id: ids::kind_of_key(key),
        })
    }

    /// Whether the key names a kind whose values are often written as JSON numbers: phone
    /// numbers, card numbers, SSNs (`{"phone": 4155550132}`; `walk` scans such numbers).
    pub(crate) fn holds_digits(&self) -> bool {
        self.hint == Some(KeyHint::Phone)
            || self.ssn
            || matches!(
                self.keyed,
                Some(keyed::KeyedKind::Ssn | keyed::KeyedKind::Card)
            )
    }
}

/// One kind's finder. Implementations push candidates (possibly overlapping each other and
/// other recognizers' candidates) to `out`; the [`Detector`] resolves overlaps.
pub trait Recognizer: Send + Sync + fmt::Debug {
    /// Appends the candidates found in `text` to `out`.
    fn find(&self, text: &str, cx: &FindContext<'_>, out: &mut Vec<Span>);
}

/// Which built-in kinds are on, and how they are tuned. Every field has a default; see
/// `rules/default.yaml` for the documented defaults.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DetectConfig {
    /// Detect email addresses.
    pub email: bool,
    /// Detect phone numbers.
    pub phone: bool,
    /// Regions (ISO 3166 alpha-2) whose national-format numbers are recognised without a `+`.
    pub phone_regions: Vec<String>,
    /// Detect person names (structure: JSON keys and CSV columns; free text: the name finder).
    pub name: bool,
    /// Detect names in free text too, not only in name-keyed fields.
    pub names_in_text: bool,
    /// Names never to tokenize (the assistant's own name, staff names the user exposes).
    pub names_allow: Vec<String>,
    /// Names always to tokenize, wherever they appear as words.
    pub names_deny: Vec<String>,
    /// Once a session has tokenized a distinctive name, find it again wherever it recurs in
    /// the session (see `detect/recall.rs`).
    pub names_recall: bool,
    /// Detect Luhn-valid payment card numbers.
    pub credit_card: bool,
    /// Detect mod-97-valid IBANs.
    pub iban: bool,
    /// Detect US social security numbers.
    pub us_ssn: bool,
    /// Detect IPv4/IPv6 addresses (loopback, unspecified, link-local, multicast and
    /// documentation ranges are skipped; private ranges are detected, see `detect/ip.rs`).
    pub ip_address: bool,
    /// Detect credentials (`SECRET`: provider keys, JWTs, private keys, passwords in URLs and
    /// under secret-named keys; see `detect/secrets.rs`).
    pub secret: bool,
    /// Personal identifiers, MAC and wallet addresses, dates of birth, one switch per kind.
    pub ids: IdsConfig,
    /// Partial reveals in tokens, per kind, all off by default (see [`crate::reveal`]).
    pub reveal: crate::reveal::RevealConfig,
    /// Kinds defined by regex.
    pub custom: Vec<CustomKind>,
}

impl Default for DetectConfig {
    fn default() -> Self {
        DetectConfig {
            email: true,
            phone: true,
            phone_regions: ["US", "GB", "DE", "FR", "IN", "BR", "CA", "AU", "CN", "JP"]
                .iter()
                .map(|r| r.to_string())
                .collect(),
            name: true,
            names_in_text: true,
            names_allow: Vec::new(),
            names_deny: Vec::new(),
            names_recall: true,
            credit_card: true,
            iban: true,
            us_ssn: true,
            ip_address: true,
            secret: true,
            ids: IdsConfig::default(),
            reveal: crate::reveal::RevealConfig::default(),
            custom: Vec::new(),
        }
    }
}

/// Why a [`Detector`] could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DetectError {
    /// A phone region is not an ISO 3166 alpha-2 code known to libphonenumber.
    #[error("unknown phone region `{0}` (expected an ISO 3166 alpha-2 code such as US or DE)")]
    UnknownRegion(String),
    /// A custom kind's name is not `[A-Z][A-Z0-9_]*` or collides with a built-in kind.
    #[error(
        "invalid custom kind name `{0}`: use upper-case letters, digits and `_`, and not a built-in name"
    )]
    InvalidKindName(String),
    /// Two custom kinds share a name.
    #[error("custom kind `{0}` is defined twice")]
    DuplicateKind(String),
    /// A custom kind's regex does not compile (or is too large).
    #[error("custom kind `{kind}`: invalid regex: {message}")]
    InvalidPattern {
        /// The kind whose pattern failed.
        kind: String,
        /// The regex crate's message.
        message: String,
    },
}

/// The compiled detector: build once per configuration, share by reference or `Arc`.
#[derive(Debug)]
pub struct Detector {
    email: Option<email::EmailRecognizer>,
    digits: Option<digits::DigitRuns>,
    /// The [`prefilter`] classes that can start a candidate of `digits`.
    digit_triggers: u8,
    custom: Vec<custom::CustomRecognizer>,
    structured: structured::StructuredNames,
    keyed: keyed::KeyedValues,
    custom_keys: Vec<(Box<str>, usize)>,
    literal: LiteralRecognizer,
    names_recall: bool,
    secrets: Option<secrets::SecretRecognizer>,
    ids: Option<ids::IdRecognizer>,
    reveal: crate::reveal::RevealConfig,
    /// Whether a value in a machine format that no recognizer takes anything in is passed over
    /// under a key that vouches for no kind (`inert.rs`): not with custom kinds or deny-listed
    /// names, which the user may want matched anywhere.
    inert_values: bool,
}

impl Detector {
    /// Compiles every recognizer the configuration turns on.
    pub fn new(config: &DetectConfig) -> Result<Detector, DetectError> {
        let email = config.email.then(email::EmailRecognizer::new);
        // Phone, checksummed numbers and IP addresses share one pass over the digits.
        let phone = if config.phone {
            Some(phone::PhoneRecognizer::new(&config.phone_regions)?)
        } else {
            None
        };
        let numbers = (config.credit_card || config.iban || config.us_ssn).then(|| {
            checksum::NumberRecognizer::new(config.credit_card, config.iban, config.us_ssn)
        });
        let ip = config.ip_address.then(ip::IpRecognizer::new);
        let digits = digits::DigitRuns::new(phone, numbers, ip);
        let digit_triggers = digits.as_ref().map_or(0, digits::DigitRuns::triggers);
        let mut custom = Vec::new();
        let mut custom_keys = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for kind in &config.custom {
            if !Kind::is_valid_name(&kind.kind) || Kind::BUILTIN.contains(&kind.kind.as_str()) {
                return Err(DetectError::InvalidKindName(kind.kind.clone()));
            }
            if !seen.insert(kind.kind.clone()) {
                return Err(DetectError::DuplicateKind(kind.kind.clone()));
            }
            let compiled = custom::CustomRecognizer::new(kind)?;
            for key in &kind.json_keys {
                custom_keys.push((key.to_ascii_lowercase().into_boxed_str(), custom.len()));
            }
            custom.push(compiled);
        }
        let names = if config.name {
            Some(names::NameFinder::new(
                &config.names_allow,
                &config.names_deny,
            ))
        } else {
            None
        };
        let structured = structured::StructuredNames::new(names, config.names_in_text);
        Ok(Detector {
            email,
            digits,
            digit_triggers,
            custom,
            structured,
            keyed: keyed::KeyedValues {
                cards: config.credit_card,
                iban: config.iban,
                ssn: config.us_ssn,
                ip: config.ip_address,
            },
            custom_keys,
            literal: LiteralRecognizer,
            names_recall: config.name && config.names_recall,
            secrets: config.secret.then(secrets::SecretRecognizer::new),
            ids: ids::IdRecognizer::any_on(&config.ids)
                .then(|| ids::IdRecognizer::new(&config.ids)),
            reveal: config.reveal.clone(),
            inert_values: config.custom.is_empty() && config.names_deny.is_empty(),
        })
    }

    /// A detector with the default configuration.
    pub fn with_defaults() -> Detector {
        Detector::new(&DetectConfig::default()).expect("the default configuration is valid")
    }

    /// Finds every value in `text`: sorted by start, non-overlapping.
    pub fn detect(&self, text: &str, cx: &FindContext<'_>) -> Vec<Span> {
        let mut out = Vec::new();
        self.detect_into(text, cx, &mut out);
        out
    }

    /// Like [`Detector::detect`], but reuses `out` (cleared first) to avoid allocating.
    pub fn detect_into(&self, text: &str, cx: &FindContext<'_>, out: &mut Vec<Span>) {
        let classes = prefilter::classes(text.as_bytes());
        self.detect_classified(text, cx, classes, &KeyFacts::of(cx.key), out);
    }

    /// The values of `Label: value` lines, in one pass over the text's colons (`labels.rs`),
    /// each judged as the same JSON key's value would be: names under person labels
    /// (`Reporter: jean-luc picard`), logins under login labels (`handle: jdoe42`), and whole
    /// values a label vouches for (`iban: GB85PQPP…` in YAML: `keyed.rs`).
    fn labelled_values(
        &self,
        text: &str,
        seps: impl Seps,
        cx: &FindContext<'_>,
        out: &mut Vec<Span>,
    ) {
        let logins = self
            .ids
            .as_ref()
            .is_some_and(|ids| ids.is_on(IdKind::Username));
        labels::for_each_labelled_value(text, seps, |label, start, end| {
            self.labelled_name(text, cx, label, start, end, out);
            if logins && names_login(label) && ids::username_value(&text[start..end]) {
                out.push(Span::new(start, end, Kind::Id(IdKind::Username)));
            }
            let keyed = keyed::kind_of_key(label);
            if keyed.is_some() {
                let before = out.len();
                self.keyed.find(&text[start..end], keyed, out);
                for span in &mut out[before..] {
                    span.start += start;
                    span.end += start;
                }
            }
        });
    }

    /// People in the slots of well-known text formats (git `Author:` and trailers, mail
    /// headers, LDIF, vCard, iCalendar, `git blame`): the whole slot value, whatever its
    /// shape (`slots.rs`).
    fn slot_names(&self, text: &str, seps: impl Seps, classes: u8, out: &mut Vec<Span>) {
        let Some(names) = self.structured.names() else {
            return;
        };
        let digits = classes & prefilter::DIGIT != 0;
        slots::for_each_person(text, seps, digits, |start, end| {
            if !names.is_allowed(&text[start..end]) {
                out.push(Span::new(start, end, Kind::Name));
            }
        });
    }

    /// People greeted in a script without capitals ("Hi 상호,", `slots::for_each_greeted`).
    fn greeted_names(&self, text: &str, out: &mut Vec<Span>) {
        let Some(names) = self.structured.names() else {
            return;
        };
        slots::for_each_greeted(text, |start, end| {
            if !names.is_allowed(&text[start..end]) {
                out.push(Span::new(start, end, Kind::Name));
            }
        });
    }

    /// Logins in `key=value` pairs whose key names one (`user=jdoe42`): the whole value, when
    /// it is one word ([`ids::username_value`]).
    fn paired_usernames(&self, text: &str, seps: impl Seps, out: &mut Vec<Span>) {
        if !self
            .ids
            .as_ref()
            .is_some_and(|ids| ids.is_on(IdKind::Username))
        {
            return;
        }
        labels::for_each_pair_value(
            text,
            seps,
            |_| true,
            names_login,
            |_, start, end| {
                if ids::username_value(&text[start..end]) {
                    out.push(Span::new(start, end, Kind::Id(IdKind::Username)));
                }
            },
        );
    }

    /// URL-encoded addresses in `key=value` pairs with an email key
    /// (`?email=maria.garcia%40example.com`): the encoded value is the address.
    fn encoded_emails(&self, text: &str, seps: impl Seps, out: &mut Vec<Span>) {
        if self.email.is_none() || PERCENT_AT.find(text.as_bytes()).is_none() {
            return;
        }
        labels::for_each_pair_value(
            text,
            seps,
            |_| true,
            |key| key_hint(key) == Some(KeyHint::Email),
            |_, start, end| {
                let v = &text.as_bytes()[start..end];
                if let Some(at) = PERCENT_AT.find(v)
                    && at > 0
                    && memchr::memchr(b'.', &v[at + 3..]).is_some()
                {
                    out.push(Span::new(start, end, Kind::Email));
                }
            },
        );
    }

    /// A cell of a column of names, as a whole, when it is shaped like a name and not on the
    /// allow list (column evidence, `walk/text.rs`); `None` when names are off.
    pub(crate) fn column_name(&self, cell: &str) -> Option<(usize, usize)> {
        let names = self.structured.names()?;
        let (s, e) = structured::name_shaped(cell)?;
        (!names.is_allowed(&cell[s..e])).then_some((s, e))
    }

    /// Names that are the values of `key=value` pairs with a person key in logs and URLs
    /// (`assignee=maria.garcia`, `?name=Maria&id=7`), judged as that JSON key's value would be.
    /// Unlike a label line, a key that says nothing either way is left to the free-text scan
    /// (`id=7`, `level=info`, `retry=3` are most pairs).
    fn paired_names(&self, text: &str, seps: impl Seps, cx: &FindContext<'_>, out: &mut Vec<Span>) {
        labels::for_each_pair_value(
            text,
            seps,
            keys::might_be_person_key,
            keys::is_person_key,
            |key, start, end| self.labelled_name(text, cx, key, start, end, out),
        );
    }

    /// The names in the value `start..end` of `text`, labelled `label` (see
    /// [`Detector::labelled_names`]).
    fn labelled_name(
        &self,
        text: &str,
        cx: &FindContext<'_>,
        label: &str,
        start: usize,
        end: usize,
        out: &mut Vec<Span>,
    ) {
        let hint = key_hint(label);
        // A label that names people, or one that says nothing either way before a short
        // value of two or more words, which is judged as that JSON key's value would be
        // ("Customer: WANG FANG" as `{"customer": "WANG FANG"}`).
        let short_value = || {
            let value = &text[start..end];
            let words = value.split_whitespace().count();
            (2..=4).contains(&words) && value.len() <= 48
        };
        if !(matches!(hint, Some(KeyHint::PersonName { .. })) || (hint.is_none() && short_value()))
        {
            return;
        }
        let field = FindContext {
            key: Some(label),
            parent_key: None,
            ..*cx
        };
        let before = out.len();
        self.structured.find(&text[start..end], &field, hint, out);
        for span in &mut out[before..] {
            span.start += start;
            span.end += start;
        }
    }

    /// [`Detector::detect_into`] for a caller that already has the [`prefilter::classes`] of
    /// `text` (or [`prefilter::ALL`]) and the [`KeyFacts`] of `cx.key`.
    pub(crate) fn detect_classified(
        &self,
        text: &str,
        cx: &FindContext<'_>,
        classes: u8,
        facts: &KeyFacts,
        out: &mut Vec<Span>,
    ) {
        self.detect_unrecalled(text, cx, classes, facts, out);
        self.finish_recalling(text, cx, facts, out);
    }

    /// Every recognizer's candidates in `text`, before session recall and overlap resolution:
    /// none of them reads `cx.recall`, so a second scan of a document with more names recalled
    /// can reuse them and run only [`Self::finish_recalling`] again (`walk/memo.rs`).
    pub(crate) fn detect_unrecalled(
        &self,
        text: &str,
        cx: &FindContext<'_>,
        classes: u8,
        facts: &KeyFacts,
        out: &mut Vec<Span>,
    ) {
        out.clear();
        if text.is_empty()
            || (self.inert_values
                && facts.vouches_for_nothing()
                && inert::is_inert(text.as_bytes()))
        {
            return;
        }
        // The `:` and `=` several passes look at: in a long text listed once for all of them.
        match seps::list(text) {
            Some(list) => {
                let seps = Listed::new(text, &list);
                self.detect_separated(text, seps, cx, classes, facts, out);
            }
            None => self.detect_separated(text, Scanned::new(text), cx, classes, facts, out),
        }
    }

    /// [`Self::detect_unrecalled`] of a text that is not empty, with its separators `seps`.
    ///
    /// The name finder is skipped when a span found before it already covers the whole text
    /// ([`covered_whole`]: a phone or e-mail value under its key, most often): every name it
    /// could add lies inside that span, so is no longer than it, and a NAME is the least
    /// specific kind, so [`overlap::resolve`] would drop each one, session recall's included.
    fn detect_separated(
        &self,
        text: &str,
        seps: impl Seps,
        cx: &FindContext<'_>,
        classes: u8,
        facts: &KeyFacts,
        out: &mut Vec<Span>,
    ) {
        if classes & prefilter::BRACKET != 0 {
            self.literal.find(text, cx, out);
        }
        if classes & prefilter::AT != 0
            && let Some(email) = &self.email
        {
            email.find(text, cx, out);
        }
        if classes & self.digit_triggers != 0
            && let Some(digits) = &self.digits
        {
            let phone_key = facts.hint == Some(KeyHint::Phone);
            digits.find_keyed_in(text, seps, phone_key, facts.ssn, out);
        }
        for custom in &self.custom {
            custom.find(text, cx, out);
        }
        if !covered_whole(text, out) {
            self.structured.find(text, cx, facts.hint, out);
        }
        // Labels, slots and pairs inside a value are text structure: they count under any
        // key that says nothing about its value, as in a document.
        let text_key = facts.hint.is_none();
        if text_key && classes & prefilter::COLON != 0 {
            self.labelled_values(text, seps, cx, out);
            self.slot_names(text, seps, classes, out);
        }
        if text_key && !text.is_ascii() {
            self.greeted_names(text, out);
        }
        if text_key && seps.has(b'=') {
            self.paired_names(text, seps, cx, out);
            self.encoded_emails(text, seps, out);
            self.paired_usernames(text, seps, out);
        }
        self.keyed.find(text, facts.keyed, out);
        if let Some(secrets) = &self.secrets
            && (facts.secret
                || classes & prefilter::SECRET_TRIGGERS != 0
                || text.len() >= secrets::SHORTEST_BARE)
        {
            secrets.find_in(text, seps, cx, facts.secret, out);
        }
        if let Some(ids) = &self.ids
            && (facts.id.is_some() || classes & prefilter::DIGIT != 0)
        {
            ids.find(text, facts.id, out);
        }
    }

    /// The names `cx.recall` finds in `text` added to `out` (what [`Self::detect_unrecalled`]
    /// gave for it), then the overlaps resolved.
    pub(crate) fn finish_recalling(
        &self,
        text: &str,
        cx: &FindContext<'_>,
        facts: &KeyFacts,
        out: &mut Vec<Span>,
    ) {
        self.finish_recalling_found(text, cx, facts, None, out);
    }

    /// [`Self::finish_recalling`], given `recalled`, what `cx.recall` finds in `text`
    /// (`Recall::find` of that very table over that very text), when the caller has it.
    pub(crate) fn finish_recalling_found(
        &self,
        text: &str,
        cx: &FindContext<'_>,
        facts: &KeyFacts,
        recalled: Option<&[Span]>,
        out: &mut Vec<Span>,
    ) {
        if text.is_empty() {
            return;
        }
        if let Some(recall) = cx.recall
            && Self::applies_recall(cx, facts)
        {
            let from = out.len();
            match recalled {
                Some(spans) => out.extend_from_slice(spans),
                None => recall.find(text, out),
            }
            self.extend_all_recalled(text, &mut out[from..]);
        }
        overlap::resolve(out);
    }

    /// Grows each of `recalled`, what session recall found in `text`, over the name words
    /// right next to it, as [`Self::finish_recalling_found`] does before resolving overlaps
    /// ([`Self::extend_recalled`]).
    pub(crate) fn extend_all_recalled(&self, text: &str, recalled: &mut [Span]) {
        // In a long text the names lie far apart, in bytes its scans read long ago: the text
        // around a name eight ahead is fetched while this one is grown.
        for i in 0..recalled.len() {
            if let Some(ahead) = recalled.get(i + 8) {
                lanes::prefetch(text.as_bytes(), ahead.end);
            }
            if let Some(span) = recalled.get_mut(i) {
                self.extend_recalled(text, span);
            }
        }
    }

    /// Whether [`Self::finish_recalling`] adds what `cx.recall` finds (there is a recall, and
    /// the key does not say the value names a thing).
    pub(crate) fn applies_recall(cx: &FindContext<'_>, facts: &KeyFacts) -> bool {
        cx.recall.is_some() && !Self::names_a_thing(cx, facts)
    }

    /// Whether the key (or, for a bare `name`, the key above it) says the value names an
    /// organisation, a place or a thing (`company`, `city`, `street_address`, `company.name`).
    /// Session recall never overrides that evidence: a surname the session learned is not a
    /// person in a `city` cell, and what the model sees does not depend on which message came
    /// first.
    fn names_a_thing(cx: &FindContext<'_>, facts: &KeyFacts) -> bool {
        match facts.hint {
            Some(KeyHint::NotPerson) => true,
            Some(KeyHint::PersonName { strong: false }) => cx
                .parent_key
                .is_some_and(|p| key_hint(p) == Some(KeyHint::NotPerson)),
            _ => false,
        }
    }

    /// Grows a recalled name over the name words right next to it, so a given name the session
    /// learned alone does not leave the rest of a full name visible (`健太 小林`, `Ysolde
    /// Brackwater-Lee`): up to two words after it and one before, each separated by one space,
    /// each one that reads as a name word (a capital or a letter of a caseless script first)
    /// and is distinctive ([`Detector::is_distinctive_name`]: no ordinary English word or place,
    /// so `Maria Street` and `Dear Maria` stay as they are).
    fn extend_recalled(&self, text: &str, span: &mut Span) {
        // The tests of a word that decide most often come first: its first letter (almost
        // every word after a name is lower case) and its letters; the distinctness lookup,
        // the dear one, last. `old_extend_recalled` in the tests is the same in the order
        // first written.
        let name_word = |w: &str| {
            w.chars().next().is_some_and(opens_name_word)
                && w.chars()
                    .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '’' | '.'))
                && w.chars().count() <= 30
                && self.structured.is_distinctive_name(w.trim_end_matches('.'))
        };
        for _ in 0..2 {
            let rest = &text[span.end..];
            let Some(after) = rest.strip_prefix(' ') else {
                break;
            };
            // The word's first character is `after`'s unless the word is empty: either way a
            // first character that opens no name word ends the growth.
            if !after.chars().next().is_some_and(opens_name_word) {
                break;
            }
            let len = after.find(breaks_name_words).unwrap_or(after.len());
            let word = after[..len].trim_end_matches(['.', '\'', '’']);
            if word.is_empty() || !name_word(word) {
                break;
            }
            span.end += 1 + word.len();
        }
        let before = &text[..span.start];
        if let Some(head) = before.strip_suffix(' ') {
            let start = head
                .char_indices()
                .rev()
                .find(|&(_, c)| breaks_name_words(c))
                .map_or(0, |(i, c)| i + c.len_utf8());
            let word = &head[start..];
            if !word.is_empty() && !word.ends_with('.') && name_word(word) {
                span.start = start;
            }
        }
    }

    /// Which kinds show a part of their values in their tokens (`detect.reveal`).
    pub fn reveal(&self) -> &crate::reveal::RevealConfig {
        &self.reveal
    }

    /// Maps and reads the name gazetteer's table (read-only pages of the binary, faulted in on
    /// first touch) when names are on: for [`crate::walk::warm_up`].
    pub(crate) fn warm_tables(&self) {
        if self.structured.names().is_some() {
            names::warm_tables();
        }
    }

    /// Whether session recall is on: names are detected and `detect.names_recall` is set.
    pub fn recalls_names(&self) -> bool {
        self.names_recall
    }

    /// Whether a value tokenized as a NAME should be recalled in the rest of the session
    /// (see [`recall`]): false when names are off.
    pub fn is_distinctive_name(&self, value: &str) -> bool {
        self.names_recall && self.structured.is_distinctive_name(value)
    }

    /// The custom kinds whose `json_keys` name `key` (case-insensitive), for callers that want
    /// to know whether a key is a hint.
    pub fn custom_kind_for_key(&self, key: &str) -> bool {
        self.custom_keys
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case(key))
    }
}

/// Whether `c` can open a name word that recall grows a name over
/// ([`Detector::extend_recalled`]): a capital, or a letter of a caseless script.
fn opens_name_word(c: char) -> bool {
    c.is_uppercase() || (c.is_alphabetic() && !c.is_lowercase())
}

/// Whether `c` ends a word that recall grows a name over ([`Detector::extend_recalled`]):
/// white space or punctuation that joins no name.
fn breaks_name_words(c: char) -> bool {
    match c {
        ',' | ';' | ':' | '!' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '<' | '>' | '"' | '/'
        | '|' => true,
        c => c.is_whitespace(),
    }
}

/// Marks token-shaped text (`[EMAIL_1]`) in inbound data so it is neutralised as a
/// [`Kind::Literal`] value instead of reaching the model as if the layer had minted it.
#[derive(Debug)]
struct LiteralRecognizer;

impl Recognizer for LiteralRecognizer {
    fn find(&self, text: &str, _cx: &FindContext<'_>, out: &mut Vec<Span>) {
        for found in crate::token::find_tokens(text) {
            out.push(Span::new(found.start, found.end, Kind::Literal));
        }
    }
}

/// The words of `value`, as [`str::split_whitespace`] gives them. ASCII text without a
/// vertical tab (the one ASCII character `char::is_whitespace` counts as a space and
/// `u8::is_ascii_whitespace` does not) is split byte by byte, without decoding characters:
/// each name a message tokenizes is split this way on its way into session recall.
pub(crate) fn words(value: &str) -> Words<'_> {
    if value.bytes().all(|c| c.is_ascii() && c != 0x0b) {
        Words::Ascii(value.split_ascii_whitespace())
    } else {
        Words::Any(value.split_whitespace())
    }
}

/// The iterator of [`words`].
#[derive(Debug)]
pub(crate) enum Words<'a> {
    /// ASCII text without a vertical tab.
    Ascii(std::str::SplitAsciiWhitespace<'a>),
    /// Any other text.
    Any(std::str::SplitWhitespace<'a>),
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match self {
            Words::Ascii(w) => w.next(),
            Words::Any(w) => w.next(),
        }
    }
}

/// Whether a span of `spans` that is not a NAME covers every byte of `text` but its leading and
/// trailing white space (and `text` is not blank). Such a span wins over every NAME inside
/// `text` in [`overlap::resolve`]: it is at least as long, and more specific when as long.
fn covered_whole(text: &str, spans: &[Span]) -> bool {
    let start = text.len() - text.trim_start().len();
    let end = text.trim_end().len();
    start < end
        && spans
            .iter()
            .any(|s| s.start <= start && s.end >= end && s.kind != Kind::Name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Detector::extend_recalled`] with its tests in the order first written: its oracle.
    fn old_extend_recalled(d: &Detector, text: &str, span: &mut Span) {
        let name_word = |w: &str| {
            w.chars().count() <= 30
                && w.chars()
                    .next()
                    .is_some_and(|c| c.is_uppercase() || (c.is_alphabetic() && !c.is_lowercase()))
                && w.chars()
                    .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '’' | '.'))
                && d.structured.is_distinctive_name(w.trim_end_matches('.'))
        };
        let is_break = |c: char| c.is_whitespace() || ",;:!?()[]{}<>\"/|".contains(c);
        for _ in 0..2 {
            let rest = &text[span.end..];
            let Some(after) = rest.strip_prefix(' ') else {
                break;
            };
            let len = after.find(is_break).unwrap_or(after.len());
            let word = after[..len].trim_end_matches(['.', '\'', '’']);
            if word.is_empty() || !name_word(word) {
                break;
            }
            span.end += 1 + word.len();
        }
        let before = &text[..span.start];
        if let Some(head) = before.strip_suffix(' ') {
            let start = head
                .char_indices()
                .rev()
                .find(|&(_, c)| is_break(c))
                .map_or(0, |(i, c)| i + c.len_utf8());
            let word = &head[start..];
            if !word.is_empty() && !word.ends_with('.') && name_word(word) {
                span.start = start;
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// Recall grows a name as it did with its tests in the first order: texts of name
        /// words, ordinary words, titles, initials, punctuation and other scripts' letters and
        /// spaces, with the span on any run of whole tokens.
        #[test]
        fn recalled_names_grow_as_before(
            parts in proptest::collection::vec(0usize..26, 1..14),
            seps in proptest::collection::vec(0usize..6, 14),
            from in 0usize..14,
            len in 1usize..4,
        ) {
            const WORDS: [&str; 26] = [
                "Maria", "Garcia", "Ortiz", "the", "Street", "Dear", "O'Brien", "Lee-Smith",
                "J.", "Dr.", "Ysolde", "Brackwater", "健太", "小林", "Ἀλέξανδρος", "Émile",
                "x", "Zoë", "ÉTIENNE", "and", "Mr", "Haddad’s", "A.B.", "Ab3", "Überlänge",
                "Abcdefghijklmnopqrstuvwxyzabcdefgh",
            ];
            const SEPS: [&str; 6] = [" ", ", ", "  ", "\u{a0}", " (", ". "];
            let mut text = String::new();
            let mut bounds = Vec::new();
            for (k, &p) in parts.iter().enumerate() {
                let start = text.len();
                text.push_str(WORDS[p]);
                bounds.push((start, text.len()));
                text.push_str(SEPS[seps[k]]);
            }
            let detector = Detector::with_defaults();
            let first = from % bounds.len();
            let last = (first + len - 1).min(bounds.len() - 1);
            let span = Span {
                start: bounds[first].0,
                end: bounds[last].1,
                kind: Kind::Name,
                canonical: None,
            };
            let (mut new, mut old) = (span.clone(), span);
            detector.extend_recalled(&text, &mut new);
            old_extend_recalled(&detector, &text, &mut old);
            proptest::prop_assert_eq!(new, old, "{}", text);
        }
    }

    #[test]
    fn words_split_like_split_whitespace() {
        // Every ASCII byte between and around words, and some non-ASCII spaces.
        let mut texts: Vec<String> = (0..=127u8)
            .map(|c| format!("{c}maria{c}{c}ortiz{c}", c = c as char))
            .collect();
        texts.extend(
            [
                "",
                " ",
                "a",
                "\u{a0}maria\u{2003}ortiz ",
                "józef wąs",
                "x\u{b}y\u{85}z",
            ]
            .map(String::from),
        );
        for t in &texts {
            let ours: Vec<&str> = words(t).collect();
            let std: Vec<&str> = t.split_whitespace().collect();
            assert_eq!(ours, std, "{t:?}");
        }
    }

    #[test]
    fn detector_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Detector>();
    }

    /// Skipping the name finder under a whole-value span changes no result: for values made of
    /// phone numbers, e-mail addresses, names and words, under keys of every sort, with and
    /// without session recall, the finals equal those of the candidates with every name the
    /// finder gives added.
    #[test]
    fn a_value_covered_whole_gives_no_name_a_chance() {
        let d = Detector::with_defaults();
        let recall = recall::Recall::of_names_upto(["Maria Ortiz", "Lee", "ortiz"], 100);
        let parts = [
            "+1-519-748-2199",
            "360.318.9555x9797",
            "+1 501-809-2815 ext. 901",
            "(415) 555-0100",
            "maria.ortiz@example.com",
            "Lee.Wong@Example.org",
            "lee@ortiz.com",
            "Maria Ortiz",
            "Lee",
            "call",
            "mobile:",
            "<",
            ">",
            ",",
            "Dr.",
            "4111 1111 1111 1111",
        ];
        let keys = [
            None,
            Some("phone"),
            Some("email"),
            Some("name"),
            Some("contact"),
            Some("notes"),
            Some("company"),
        ];
        let mut rng = crate::testdata::Rng::new(0x2545);
        let mut covered = 0;
        for _ in 0..3000 {
            let words = 1 + rng.below(3);
            let mut value = String::from(*rng.pick(&[" ", ""]));
            for w in 0..words {
                if w > 0 {
                    value.push(' ');
                }
                value.push_str(parts[rng.below(parts.len())]);
            }
            let key = *rng.pick(&keys);
            for recall in [None, Some(&recall)] {
                let cx = FindContext {
                    key,
                    parent_key: None,
                    recall,
                };
                let facts = KeyFacts::of(key);
                let classes = prefilter::classes(value.as_bytes());
                let mut fast = Vec::new();
                d.detect_unrecalled(&value, &cx, classes, &facts, &mut fast);
                let mut full = fast.clone();
                covered += usize::from(covered_whole(&value, &fast));
                d.structured.find(&value, &cx, facts.hint, &mut full);
                d.finish_recalling(&value, &cx, &facts, &mut fast);
                d.finish_recalling(&value, &cx, &facts, &mut full);
                assert_eq!(fast, full, "{value:?} under {key:?}");
            }
        }
        // The shortcut was taken often enough for the comparison to say something.
        assert!(covered > 500, "{covered}");
    }

    #[test]
    fn forged_tokens_are_found_as_literals() {
        let d = Detector::with_defaults();
        let spans = d.detect("reply to [EMAIL_1] now", &FindContext::default());
        assert_eq!(spans, vec![Span::new(9, 18, Kind::Literal)]);
    }
}
