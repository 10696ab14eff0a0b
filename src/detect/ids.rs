//! National and personal identifiers with a checksum or a strict shape, MAC addresses, crypto
//! wallet addresses and dates of birth (one [`IdKind`] each).
//!
//! Precision decides how much evidence each kind needs in free text (`rules/default.yaml`
//! documents each):
//!
//! - **in the national format, checksum alone**: a checksum that random numbers rarely pass
//!   together with the format's grouping (NHS `943 476 5919`, Aadhaar `2341 2341 2346`, SIN
//!   `046 454 286`, CPF `529.982.247-25`, CNPJ `11.222.333/0001-81`, ITIN `912-70-1234`) or a
//!   shape no other data has (DNI/NIE with their check letter, codice fiscale, CN resident ID
//!   with its birth date and ISO 7064 check, SG NRIC/FIN, UK NINO, US MBI, IN PAN, MAC, BTC with
//!   base58check or bech32);
//! - **with a cue word** in the 48 bytes before: bare digit runs whose checksum one number in
//!   ten or eleven passes (the same kinds written solid, ABA routing, NPI, TFN, Steuer-ID, NIR),
//!   and kinds with no checksum at all (US passport, driver licence, bank account, PH TIN,
//!   ETH addresses, AU Medicare);
//! - **under a key** that names the kind (`nhs_number`, `passport_no`, `routing_number`, `dob`):
//!   the key is the cue ([`kind_of_key`]).
//!
//! Candidates are the matches of one regex's shapes, found only near the digits and MAC
//! separators of a text that holds a digit (`ids/scan.rs`); each is checked against the
//! enabled kinds in turn.

mod address;
mod check;
mod scan;
mod wallet;

use aho_corasick::AhoCorasick;
use serde::Deserialize;

use super::{IdKind, Kind, Span};

macro_rules! ids_config {
    ($($variant:ident $name:literal $field:ident $on:literal $doc:literal;)*) => {
        /// Which identifier kinds are on (`detect.ids` in the configuration). Every kind but
        /// `address` is on by default; see `rules/default.yaml` for the evidence each needs.
        #[derive(Clone, Debug, Deserialize)]
        #[serde(deny_unknown_fields, default)]
        pub struct IdsConfig {
            $(#[doc = $doc] pub $field: bool,)*
        }

        impl Default for IdsConfig {
            fn default() -> Self {
                IdsConfig { $($field: $on,)* }
            }
        }

        impl IdsConfig {
            fn is_on(&self, kind: IdKind) -> bool {
                match kind {
                    $(IdKind::$variant => self.$field,)*
                }
            }
        }
    };
}

crate::kind::with_id_kinds!(ids_config);

/// Cue words (lower case) that vouch for a kind in the 48 bytes before a candidate.
fn cues(kind: IdKind) -> &'static [&'static str] {
    use IdKind::*;
    match kind {
        UkNhs => &["nhs"],
        UkNino => &["nino", "national insurance", "ni number"],
        UsItin => &["itin", "taxpayer"],
        UsPassport => &["passport"],
        UsDriverLicense => &["driver", "licence", "license", "dl#", "dl no", "dl:"],
        UsBankNumber => &["account", "acct", "a/c"],
        AbaRouting => &["routing", "aba", "rtn", "transit"],
        UsNpi => &["npi", "provider"],
        UsMbi => &["mbi", "medicare"],
        InPan => &["pan"],
        InAadhaar => &["aadhaar", "aadhar", "uidai"],
        SgNricFin => &["nric", "fin"],
        CaSin => &["sin", "social insurance"],
        BrCpf => &["cpf"],
        BrCnpj => &["cnpj"],
        EsNif => &["dni", "nif"],
        EsNie => &["nie"],
        ItFiscalCode => &["fiscale", "fiscal"],
        FrNir => &[
            "nir",
            "sécurité sociale",
            "securite sociale",
            "insee",
            "sécu",
        ],
        DeTaxId => &["steuer", "idnr", "tax id", "identifikationsnummer"],
        CnResidentId => &["身份证", "resident id", "id card"],
        AuTfn => &["tfn", "tax file"],
        AuMedicare => &["medicare"],
        PhTin => &["tin"],
        MacAddress => &["mac"],
        CryptoWallet => &["wallet", "eth", "ethereum", "btc", "bitcoin", "address"],
        DateOfBirth | Username | Address => &[],
    }
}

/// The identifier finder: compiled once.
#[derive(Debug)]
pub(super) struct IdRecognizer {
    config: IdsConfig,
    /// Every kind's cue words in one automaton (ASCII case-insensitive), so the bytes before
    /// a candidate are read once for all kinds rather than once per cue.
    cue_words: AhoCorasick,
    /// Per pattern of `cue_words`: the kinds it vouches for (bit `i`: `IdKind::ALL[i]`).
    cue_kinds: Vec<u64>,
    /// Every birth cue in one automaton (ASCII case-insensitive), so a text is read once for
    /// all of them rather than once per cue.
    birth_cues: AhoCorasick,
    /// Street lines in text, when addresses are on.
    addresses: Option<address::AddressFinder>,
    /// The kinds (bit `i`: `IdKind::ALL[i]`) looked for in candidates: those on, but for
    /// dates of birth, user names and addresses, which have finders of their own.
    text_kinds: u64,
}

impl IdRecognizer {
    pub(super) fn new(config: &IdsConfig) -> IdRecognizer {
        const { assert!(IdKind::ALL.len() <= 64) };
        let mut words: Vec<&str> = Vec::new();
        let mut cue_kinds: Vec<u64> = Vec::new();
        for (i, &kind) in IdKind::ALL.iter().enumerate() {
            for &cue in cues(kind) {
                match words.iter().position(|&w| w == cue) {
                    Some(p) => cue_kinds[p] |= 1 << i,
                    None => {
                        words.push(cue);
                        cue_kinds.push(1 << i);
                    }
                }
            }
        }
        IdRecognizer {
            config: config.clone(),
            cue_words: AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(&words)
                .expect("the cue words compile"),
            cue_kinds,
            birth_cues: AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(BIRTH_CUES)
                .expect("the birth cues compile"),
            addresses: config.address.then(address::AddressFinder::new),
            text_kinds: IdKind::ALL
                .iter()
                .enumerate()
                .filter(|&(_, &k)| {
                    config.is_on(k)
                        && !matches!(k, IdKind::DateOfBirth | IdKind::Username | IdKind::Address)
                })
                .fold(0, |m, (i, _)| m | 1 << i),
        }
    }

    /// Whether `kind` is on.
    pub(super) fn is_on(&self, kind: IdKind) -> bool {
        self.config.is_on(kind)
    }

    /// Whether any identifier kind is on.
    pub(super) fn any_on(config: &IdsConfig) -> bool {
        IdKind::ALL.iter().any(|&k| config.is_on(k))
    }

    /// Appends the identifiers in `text`; `keyed` is the kind the context's key names.
    pub(super) fn find(&self, text: &str, keyed: Option<IdKind>, out: &mut Vec<Span>) {
        let keyed = keyed.filter(|&k| self.config.is_on(k));
        if let Some(kind) = keyed {
            let start = text.len() - text.trim_start().len();
            let value = text.trim();
            if matches!(
                kind,
                IdKind::DateOfBirth | IdKind::Username | IdKind::Address
            ) {
                let ok = match kind {
                    IdKind::DateOfBirth => dob_value(value),
                    IdKind::Username => username_value(value),
                    _ => address::address_value(value),
                };
                if ok {
                    out.push(Span::new(start, start + value.len(), Kind::Id(kind)));
                }
                // A value under an `address` key that is no address line (a wallet, a host)
                // is read as text.
                if ok || kind != IdKind::Address {
                    return;
                }
            }
            if value.len() <= 64 && accepts(kind, value.as_bytes(), true) {
                out.push(Span::new(start, start + value.len(), Kind::Id(kind)));
                return;
            }
        }
        if !text.bytes().any(|b| b.is_ascii_digit()) {
            return;
        }
        let b = text.as_bytes();
        for (start, end) in scan::Candidates::new(b) {
            let cand = &b[start..end];
            if cand.len() < 9 || embedded(b, start, end) {
                continue;
            }
            let mut buf = [0u8; 80];
            let Some(n) = compact(cand, &mut buf) else {
                continue;
            };
            let groups = Groups::of(cand);
            // The kinds that take the candidate with a cue (a cue only widens what a kind
            // takes): most candidates are none, and need no look at the bytes before them.
            let mut open = 0u64;
            for (i, &kind) in IdKind::ALL.iter().enumerate() {
                if self.text_kinds & (1 << i) != 0 && accepts_compact(kind, cand, n, &groups, true)
                {
                    open |= 1 << i;
                }
            }
            if open == 0 {
                continue;
            }
            let before = &b[start.saturating_sub(48)..start];
            let cued_kinds = self.cued_kinds(before);
            // A kind whose cue is present wins over one that accepts the candidate on its
            // format alone (`TFN 123 456 782` also passes the SIN's Luhn check).
            let mut chosen = None;
            for (i, &kind) in IdKind::ALL.iter().enumerate() {
                if open & (1 << i) == 0 {
                    continue;
                }
                let cued = keyed == Some(kind) || cued_kinds & (1 << i) != 0;
                if cued {
                    chosen = Some(kind);
                    break;
                }
                if accepts_compact(kind, cand, n, &groups, false) {
                    chosen = chosen.or(Some(kind));
                }
            }
            if let Some(kind) = chosen {
                out.push(Span::new(start, end, Kind::Id(kind)));
            }
        }
        if self.config.date_of_birth {
            dob_in_text(&self.birth_cues, text, out);
        }
        if let Some(addresses) = &self.addresses {
            addresses.find(text, out);
        }
    }

    /// The kinds (bit `i`: `IdKind::ALL[i]`) a cue word vouches for in `before`: a cue
    /// anywhere in it, at a word start (ASCII case-insensitive).
    fn cued_kinds(&self, before: &[u8]) -> u64 {
        let mut kinds = 0;
        for m in self.cue_words.find_overlapping_iter(before) {
            let i = m.start();
            if i == 0 || !before[i - 1].is_ascii_alphanumeric() {
                kinds |= self.cue_kinds[m.pattern().as_usize()];
            }
        }
        kinds
    }
}

/// Whether `cand` (as written) is a `kind`, with or without a cue.
fn accepts(kind: IdKind, cand: &[u8], cued: bool) -> bool {
    let mut buf = [0u8; 80];
    let Some(n) = compact(cand, &mut buf) else {
        return false;
    };
    accepts_compact(kind, cand, n, &Groups::of(cand), cued)
}

/// [`accepts`] for a candidate already compacted (`n`) and split into its `groups`.
fn accepts_compact(kind: IdKind, cand: &[u8], n: &[u8], groups: &Groups, cued: bool) -> bool {
    use IdKind::*;
    let solid = groups.count == 1;
    match kind {
        // Uncued, a phone-shaped number must look like no phone: spaces only (3-3-4 with
        // dashes is a US phone), and no trunk prefix `0` (or `1`, `2`: no NHS range starts
        // so; national phone numbers do).
        UkNhs => check::nhs(n) && (cued || groups.is_sep(&[3, 3, 4], b"  ") && n[0] >= b'3'),
        InAadhaar => check::aadhaar(n) && (cued || groups.is_sep(&[4, 4, 4], b"  ")),
        // SINs start 1-7 (9: temporary residents); a leading 0 is a national phone number.
        CaSin => check::ca_sin(n) && (cued || groups.is(&[3, 3, 3]) && n[0] != b'0'),
        BrCpf => check::cpf(n) && (cued || groups.is_sep(&[3, 3, 3, 2], b"..-")),
        BrCnpj => check::cnpj(n) && (cued || groups.is_sep(&[2, 3, 3, 4, 2], b"../-")),
        UsItin => check::us_itin(n) && (cued || groups.is_sep(&[3, 2, 4], b"--")),
        EsNif => check::es_dni(n) && (solid || cued),
        EsNie => check::es_nie(n) && (solid || cued),
        ItFiscalCode => check::it_fiscal(n) && solid,
        CnResidentId => check::cn_resident(n) && solid,
        SgNricFin => check::sg_nric(n) && solid,
        UkNino => check::uk_nino(n) && (solid || groups.is(&[2, 2, 2, 2, 1])),
        UsMbi => check::us_mbi(n) && (solid || groups.is_sep(&[4, 3, 4], b"--")),
        InPan => check::in_pan(n) && solid,
        FrNir => check::fr_nir(n) && (cued || groups.is(&[1, 2, 2, 2, 3, 3, 2])),
        AbaRouting => cued && check::aba(n),
        UsNpi => cued && check::us_npi(n),
        AuTfn => cued && check::au_tfn(n),
        DeTaxId => cued && check::de_tax_id(n),
        AuMedicare => cued && check::au_medicare(n),
        UsPassport => {
            cued && (n.len() == 9 && digits(n)
                || n.len() == 9 && n[0].is_ascii_uppercase() && digits(&n[1..]))
        }
        UsDriverLicense => {
            let lead = n.iter().take_while(|c| c.is_ascii_uppercase()).count();
            cued && lead <= 2
                && (5..=14).contains(&n.len())
                && n.len() - lead >= 5
                && digits(&n[lead..])
        }
        UsBankNumber => cued && (8..=17).contains(&n.len()) && digits(n),
        PhTin => cued && matches!(n.len(), 9 | 12) && digits(n) && !solid,
        MacAddress => wallet::mac(cand),
        CryptoWallet => wallet::btc(cand) || (cued && wallet::eth(cand)),
        DateOfBirth | Username | Address => false,
    }
}

/// Whether `start..end` is a piece of a longer token (`d725d849-7457-4855-8304-d489c16e649a`,
/// `v1.2345678Z`): a `-`, `_`, `.` or `/` joins it to a letter or digit on either side.
fn embedded(b: &[u8], start: usize, end: usize) -> bool {
    let joined = |sep: Option<&u8>, next: Option<&u8>| {
        sep.is_some_and(|c| matches!(c, b'-' | b'_' | b'.' | b'/'))
            && next.is_some_and(u8::is_ascii_alphanumeric)
    };
    (start >= 2 && joined(b.get(start - 1), b.get(start - 2))) || joined(b.get(end), b.get(end + 1))
}

fn digits(n: &[u8]) -> bool {
    n.iter().all(u8::is_ascii_digit)
}

/// `cand` without separators (space, `-`, `.`, `/`), upper-cased, into `buf`.
fn compact<'a>(cand: &[u8], buf: &'a mut [u8; 80]) -> Option<&'a [u8]> {
    let mut n = 0;
    for &c in cand {
        if matches!(c, b' ' | b'-' | b'.' | b'/') {
            continue;
        }
        *buf.get_mut(n)? = c.to_ascii_uppercase();
        n += 1;
    }
    Some(&buf[..n])
}

/// The lengths of a candidate's groups and the separators between them.
struct Groups {
    lens: [u8; 8],
    seps: [u8; 8],
    count: usize,
}

impl Groups {
    fn of(cand: &[u8]) -> Groups {
        let mut g = Groups {
            lens: [0; 8],
            seps: [0; 8],
            count: 1,
        };
        for &c in cand {
            if matches!(c, b' ' | b'-' | b'.' | b'/') {
                if g.count == 8 {
                    g.count = 9;
                    break;
                }
                g.seps[g.count - 1] = c;
                g.count += 1;
            } else if g.count <= 8 {
                g.lens[g.count - 1] = g.lens[g.count - 1].saturating_add(1);
            }
        }
        g
    }

    /// Grouped as `lens`, with one separator kind throughout.
    fn is(&self, lens: &[u8]) -> bool {
        self.count == lens.len()
            && &self.lens[..self.count] == lens
            && self.seps[..self.count - 1]
                .iter()
                .all(|&s| s == self.seps[0])
    }

    /// Grouped as `lens` with exactly the separators `seps`.
    fn is_sep(&self, lens: &[u8], seps: &[u8]) -> bool {
        self.count == lens.len()
            && &self.lens[..self.count] == lens
            && &self.seps[..self.count - 1] == seps
    }
}

/// Whether a cue word for `kind` is in `before` (ASCII case-insensitive, at a word start): the
/// per-cue form of [`IdRecognizer::cued_kinds`], kept as its oracle.
#[cfg(test)]
fn has_cue(before: &[u8], kind: IdKind) -> bool {
    cues(kind).iter().any(|cue| {
        let c = cue.as_bytes();
        before.windows(c.len()).enumerate().any(|(i, w)| {
            w.eq_ignore_ascii_case(c) && (i == 0 || !before[i - 1].is_ascii_alphanumeric())
        })
    })
}

/// The identifier kind a JSON key names, if any.
pub(super) fn kind_of_key(key: &str) -> Option<IdKind> {
    use IdKind::*;
    let mut buf = [0u8; 40];
    let mut n = 0;
    for b in key.bytes().filter(u8::is_ascii_alphanumeric) {
        *buf.get_mut(n)? = b.to_ascii_lowercase();
        n += 1;
    }
    let f = std::str::from_utf8(&buf[..n]).ok()?;
    if address::key_names_address(f) {
        return Some(Address);
    }
    Some(match f {
        "nhs" | "nhsnumber" | "nhsno" | "nhsid" => UkNhs,
        "nino"
        | "ninumber"
        | "nationalinsurance"
        | "nationalinsurancenumber"
        | "nationalinsuranceno" => UkNino,
        "itin" | "usitin" => UsItin,
        "passport" | "passportnumber" | "passportno" | "passportnum" => UsPassport,
        "driverlicense"
        | "driverslicense"
        | "driverlicence"
        | "driverslicence"
        | "dlnumber"
        | "driverlicensenumber"
        | "driverslicensenumber"
        | "licensenumber" => UsDriverLicense,
        "accountnumber" | "bankaccount" | "bankaccountnumber" | "acctnumber" | "accountno" => {
            UsBankNumber
        }
        "routingnumber" | "aba" | "abanumber" | "abarouting" | "routingno" | "rtn" => AbaRouting,
        "npi" | "npinumber" => UsNpi,
        "mbi" | "medicarebeneficiaryidentifier" | "medicareid" => UsMbi,
        "pannumber" | "pancard" | "panno" => InPan,
        "aadhaar" | "aadhar" | "aadhaarnumber" | "aadharnumber" | "aadhaarno" => InAadhaar,
        "nric" | "fin" | "nricfin" | "nricno" | "nricnumber" => SgNricFin,
        "sin" | "sinnumber" | "socialinsurancenumber" => CaSin,
        "cpf" => BrCpf,
        "cnpj" => BrCnpj,
        "dni" | "nif" => EsNif,
        "nie" => EsNie,
        "codicefiscale" | "fiscalcode" | "taxcodeit" => ItFiscalCode,
        "nir" | "numerosecu" | "numerosecuritesociale" | "securitesociale" => FrNir,
        "steuerid" | "steueridentifikationsnummer" | "idnr" | "steuernummer" => DeTaxId,
        "residentid" | "shenfenzheng" | "sfz" | "cnid" | "residentidcard" => CnResidentId,
        "tfn" | "taxfilenumber" => AuTfn,
        "medicarenumber" | "medicare" => AuMedicare,
        "tin" | "phtin" => PhTin,
        "mac" | "macaddress" | "macaddr" | "hwaddr" | "hardwareaddress" | "ethernetaddress" => {
            MacAddress
        }
        "wallet" | "walletaddress" | "btcaddress" | "bitcoinaddress" | "ethaddress"
        | "ethereumaddress" | "cryptoaddress" | "cryptowallet" => CryptoWallet,
        "dob" | "dateofbirth" | "birthdate" | "birthday" | "birthdt" | "bday" | "born"
        | "geburtsdatum" | "geburtstag" | "datenaissance" | "datedenaissance"
        | "fechanacimiento" | "fechadenacimiento" | "datanascita" | "datadinascita"
        | "datanascimento" | "datadenascimento" | "birthdateutc" => DateOfBirth,
        "username" | "user" | "login" | "loginname" | "loginid" | "handle" | "nickname"
        | "nick" | "screenname" | "accountname" | "samaccountname" | "gitlogin"
        | "githubusername" | "githubhandle" | "twitterhandle" | "slackhandle" | "userlogin" => {
            Username
        }
        _ => return None,
    })
}

/// Whether a whole value under a user-name key is one: a single word of letters, digits and
/// `. _ - + @` (at most 64 bytes) that starts with a letter or digit. A value with spaces is
/// a display name, left to the name finder; a path or URL is no login.
pub(super) fn username_value(v: &str) -> bool {
    let b = v.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'+' | b'@'))
        && !matches!(v, "true" | "false" | "null" | "None" | "undefined")
}

/// A whole value that is a date (a birth date under a birth-date key).
fn dob_value(v: &str) -> bool {
    date_at(v.as_bytes(), 0).is_some_and(|e| {
        let rest = &v[e..];
        rest.is_empty()
            || rest.starts_with('T')
            || rest.starts_with(' ') && rest.trim().starts_with(|c: char| c.is_ascii_digit())
    })
}

/// Birth cues in text, each followed (within a few bytes) by a date.
const BIRTH_CUES: &[&str] = &[
    "born on",
    "born",
    "dob",
    "d.o.b.",
    "date of birth",
    "birth date",
    "birthdate",
    "birthday",
    "geboren am",
    "geboren",
    "geburtsdatum",
    "né le",
    "née le",
    "date de naissance",
    "fecha de nacimiento",
    "nacido el",
    "nacida el",
    "data di nascita",
    "nato il",
    "nata il",
];

/// How far before the first digit of a date its birth cue can start, less the spaces right
/// before that digit: the longest cue (19 bytes), 8 separators and the fillers `on am in ` (9)
/// after it, a month name (10) and its `.` before the day; with room to spare.
const DOB_REACH: usize = 64;

/// Birth dates in text: a birth cue, then a date. Every date holds a digit within
/// [`DOB_REACH`] bytes and a run of spaces of where its cue starts, and the first digit of a
/// date starts a run of digits; the cues are looked for only in the stretches before the runs
/// that can be a date's first ([`may_date`]; merged where they overlap), which in prose and
/// in logs is a small part of the text. The cues are
/// found and tried in the order a search of the whole text gives.
fn dob_in_text(cues: &AhoCorasick, text: &str, out: &mut Vec<Span>) {
    let b = text.as_bytes();
    let mut region: Option<(usize, usize)> = None;
    let mut i = 0;
    // The next digit eight bytes at a time (`phone::next_digit`).
    while let Some(d) = super::phone::next_digit(b, i) {
        let mut s = d;
        while s > 0 && b[s - 1] == b' ' {
            s -= 1;
        }
        i = d;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if !may_date(b, s, d, i - d) {
            continue;
        }
        let from = s.saturating_sub(DOB_REACH);
        region = match region {
            Some((rs, re)) if from <= re => Some((rs, d)),
            Some((rs, re)) => {
                dob_cues_in(cues, b, rs, re, out);
                Some((from, d))
            }
            None => Some((from, d)),
        };
    }
    if let Some((rs, re)) = region {
        dob_cues_in(cues, b, rs, re, out);
    }
}

/// Whether the run of `len` digits at `d` (`s` where the spaces before it start) can be the first
/// digit of a date: a date starts there ([`date_at`]), or a month name may end at `s` and the
/// day and year of `March 2, 1985` start at `d`. A cue whose date starts with a digit is
/// followed by that date's first digit run (cues end in a letter or `.`, fillers in a space).
fn may_date(b: &[u8], s: usize, d: usize, len: usize) -> bool {
    // A date's first run of digits has one, two or four.
    matches!(len, 1 | 2 | 4)
        && (date_at(b, d).is_some()
            || s > 0
                && (b[s - 1].is_ascii_alphabetic() || b[s - 1] == b'.')
                && day_year_at(b, d).is_some())
}

/// The birth dates whose cue lies in `b[from..to]` (see [`dob_in_text`]).
fn dob_cues_in(cues: &AhoCorasick, b: &[u8], from: usize, to: usize, out: &mut Vec<Span>) {
    // Overlapping: `born` and `born on` at one place are both tried, as each cue on its own.
    for m in cues.find_overlapping_iter(&b[from..to]) {
        let m = m.start() + from..m.end() + from;
        let at = m.start;
        if at > 0 && b[at - 1].is_ascii_alphanumeric() {
            continue;
        }
        // `:`, `=`, spaces, quotes, `on`, `am`, `le`, `el`, `il` between cue and date.
        let mut p = m.end;
        let limit = (p + 8).min(b.len());
        while p < limit && matches!(b[p], b' ' | b':' | b'=' | b'"' | b'\'' | b'-' | b'\t') {
            p += 1;
        }
        for filler in [&b"on "[..], b"am ", b"in "] {
            if b[p..].starts_with(filler) {
                p += filler.len();
            }
        }
        if let Some(e) = date_at(b, p)
            && !out.iter().any(|s| s.start == p)
        {
            out.push(Span::new(p, e, Kind::Id(IdKind::DateOfBirth)));
        }
    }
}

const MONTHS: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sept",
    "sep",
    "oct",
    "nov",
    "dec",
    "januar",
    "februar",
    "märz",
    "mai",
    "juni",
    "juli",
    "oktober",
    "dezember",
    "janvier",
    "février",
    "mars",
    "avril",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
    "enero",
    "febrero",
    "marzo",
    "abril",
    "mayo",
    "junio",
    "julio",
    "agosto",
    "septiembre",
    "octubre",
    "noviembre",
    "diciembre",
];

/// The first letters of [`MONTHS`] (bit 0: `a`); each is a lower-case ASCII letter.
#[cfg(test)]
const MONTH_INITIALS: u32 = {
    let mut mask = 0;
    let mut i = 0;
    while i < MONTHS.len() {
        let first = MONTHS[i].as_bytes()[0];
        assert!(first.is_ascii_lowercase());
        mask |= 1 << (first - b'a');
        i += 1;
    }
    mask
};

/// The end of a date starting at `p`: `1985-03-02`, `02/03/1985`, `2.3.85`, `March 2, 1985`,
/// `2 March 1985`, `2nd of March 1985`.
fn date_at(b: &[u8], p: usize) -> Option<usize> {
    let num = |i: usize, min: usize, max: usize| number(b, i, min, max);
    let year_ok = |y: u32, len: usize| len == 2 || (1900..=2100).contains(&y);
    let boundary = |e: usize| date_ends(b, e);
    if p < b.len() && b[p].is_ascii_digit() {
        // ISO: YYYY-MM-DD (or /, .).
        if let Some((y, e)) = num(p, 4, 4)
            && e < b.len()
            && matches!(b[e], b'-' | b'/' | b'.')
        {
            let sep = b[e];
            let (m, e2) = num(e + 1, 1, 2)?;
            if b.get(e2) != Some(&sep) {
                return None;
            }
            let (d, e3) = num(e2 + 1, 1, 2)?;
            return (year_ok(y, 4)
                && (1..=12).contains(&m)
                && (1..=31).contains(&d)
                && boundary(e3))
            .then_some(e3);
        }
        let (a, e) = num(p, 1, 2)?;
        if e < b.len() && matches!(b[e], b'/' | b'.' | b'-') {
            let sep = b[e];
            let (m, e2) = num(e + 1, 1, 2)?;
            if b.get(e2) != Some(&sep) {
                return None;
            }
            let (y, e3) = num(e2 + 1, 2, 4)?;
            let ok = (1..=31).contains(&a) && (1..=31).contains(&m) && (a <= 12 || m <= 12);
            return (ok && e3 - e2 - 1 != 3 && year_ok(y, e3 - e2 - 1) && boundary(e3))
                .then_some(e3);
        }
        // `2 March 1985`, `2nd of March 1985`, `2. März 1985`.
        let mut q = e;
        for suffix in [&b"st"[..], b"nd", b"rd", b"th", b"."] {
            if b[q..].starts_with(suffix) {
                q += suffix.len();
                break;
            }
        }
        q = skip_spaces(b, q);
        if b[q..].starts_with(b"of ") {
            q += 3;
        }
        let m_end = month_at(b, q)?;
        let q = skip_spaces(b, m_end);
        let (y, e) = num(q, 4, 4)?;
        return ((1..=31).contains(&a) && year_ok(y, 4) && boundary(e)).then_some(e);
    }
    // `March 2, 1985`.
    let m_end = month_at(b, p)?;
    day_year_at(b, skip_spaces(b, m_end))
}

/// The end of the day and year after a month name (`2, 1985` in `March 2, 1985`), the day at
/// `q`.
fn day_year_at(b: &[u8], q: usize) -> Option<usize> {
    let (d, mut e) = number(b, q, 1, 2)?;
    for suffix in [&b"st"[..], b"nd", b"rd", b"th"] {
        if b[e..].starts_with(suffix) {
            e += suffix.len();
            break;
        }
    }
    if b.get(e) == Some(&b',') {
        e += 1;
    }
    let q = skip_spaces(b, e);
    let (y, e) = number(b, q, 4, 4)?;
    ((1..=31).contains(&d) && (1900..=2100).contains(&y) && date_ends(b, e)).then_some(e)
}

/// The value and end of the `min` to `max` digits at `i` that no digit follows.
fn number(b: &[u8], i: usize, min: usize, max: usize) -> Option<(u32, usize)> {
    let mut e = i;
    while e < b.len() && b[e].is_ascii_digit() && e - i < max {
        e += 1;
    }
    if e - i < min || (e < b.len() && b[e].is_ascii_digit()) {
        return None;
    }
    let v = b[i..e]
        .iter()
        .fold(0u32, |v, &c| v * 10 + u32::from(c - b'0'));
    Some((v, e))
}

/// Whether a date may end at `e`: no letter or digit follows.
fn date_ends(b: &[u8], e: usize) -> bool {
    e >= b.len() || !b[e].is_ascii_alphanumeric()
}

fn skip_spaces(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] == b' ' {
        i += 1;
    }
    i
}

/// Per first letter (index `c - b'a'`), the [`MONTHS`] that start with it (bit `i`:
/// `MONTHS[i]`), so a word is compared with the few month names of its initial only.
const MONTHS_BY_INITIAL: [u64; 26] = {
    assert!(MONTHS.len() <= 64);
    let mut t = [0u64; 26];
    let mut i = 0;
    while i < MONTHS.len() {
        t[(MONTHS[i].as_bytes()[0] - b'a') as usize] |= 1 << i;
        i += 1;
    }
    t
};

/// The end of a month name at `p` (longest first, case-insensitive, then an optional `.`).
fn month_at(b: &[u8], p: usize) -> Option<usize> {
    // Most words start with a letter no month name starts with.
    let first = b.get(p)?.to_ascii_lowercase();
    if !first.is_ascii_lowercase() {
        return None;
    }
    let mut months = MONTHS_BY_INITIAL[usize::from(first - b'a')];
    let mut best = None;
    while months != 0 {
        let mb = MONTHS[months.trailing_zeros() as usize].as_bytes();
        months &= months - 1;
        let end = p + mb.len();
        if end <= b.len()
            && b[p..end].eq_ignore_ascii_case(mb)
            && (end == b.len() || !b[end].is_ascii_alphabetic())
            && best.is_none_or(|e| end > e)
        {
            best = Some(end);
        }
    }
    best.map(|e| if b.get(e) == Some(&b'.') { e + 1 } else { e })
}

/// [`month_at`] as it was (every month name compared): its test oracle.
#[cfg(test)]
fn month_at_reference(b: &[u8], p: usize) -> Option<usize> {
    // Most words start with a letter no month name starts with.
    let first = b.get(p)?.to_ascii_lowercase();
    if !first.is_ascii_lowercase() || MONTH_INITIALS & (1 << (first - b'a')) == 0 {
        return None;
    }
    let mut best = None;
    for m in MONTHS {
        let mb = m.as_bytes();
        let end = p + mb.len();
        if mb[0] == first
            && end <= b.len()
            && b[p..end].eq_ignore_ascii_case(mb)
            && (end == b.len() || !b[end].is_ascii_alphabetic())
            && best.is_none_or(|e| end > e)
        {
            best = Some(end);
        }
    }
    best.map(|e| if b.get(e) == Some(&b'.') { e + 1 } else { e })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn month_names_are_found_as_the_reference_finds_them() {
        let mut pieces: Vec<Vec<u8>> = MONTHS.iter().map(|m| m.as_bytes().to_vec()).collect();
        pieces.extend(MONTHS.iter().map(|m| m.to_ascii_uppercase().into_bytes()));
        for p in [
            "m", "a", "j", "x", "é", "ä", ".", " ", "1", "s", "e", "r", "Z",
        ] {
            pieces.push(p.as_bytes().to_vec());
        }
        let mut rng = crate::testdata::Rng::new(11);
        for _ in 0..30_000 {
            let mut text = Vec::new();
            for _ in 0..rng.below(6) {
                text.extend_from_slice(&pieces[rng.below(pieces.len())]);
            }
            for p in 0..=text.len() {
                assert_eq!(
                    month_at(&text, p),
                    month_at_reference(&text, p),
                    "{:?} {p}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
        let prose = crate::testdata::prose(7, 64 * 1024).text;
        for p in 0..=prose.len() {
            assert_eq!(
                month_at(prose.as_bytes(), p),
                month_at_reference(prose.as_bytes(), p)
            );
        }
    }

    fn find(text: &str, key: Option<&str>) -> Vec<(String, &'static str)> {
        let r = IdRecognizer::new(&IdsConfig::default());
        let mut out = Vec::new();
        r.find(text, key.and_then(kind_of_key), &mut out);
        out.iter()
            .map(|s| {
                let Kind::Id(k) = s.kind else { unreachable!() };
                (text[s.start..s.end].to_string(), k.name())
            })
            .collect()
    }

    /// [`dob_in_text`] as it was: the cues looked for in the whole text.
    fn dob_in_whole_text(cues: &AhoCorasick, text: &str, out: &mut Vec<Span>) {
        dob_cues_in(cues, text.as_bytes(), 0, text.len(), out);
    }

    /// [`IdRecognizer::find`] on text as it was: the candidates from the regex's `find_iter`,
    /// the cue words looked for before each, the birth cues in the whole text.
    fn find_as_it_was(r: &IdRecognizer, re: &regex::bytes::Regex, text: &str) -> Vec<Span> {
        let mut out = Vec::new();
        if !text.bytes().any(|b| b.is_ascii_digit()) {
            return out;
        }
        let b = text.as_bytes();
        for m in re.find_iter(b) {
            let cand = m.as_bytes();
            if cand.len() < 9 || embedded(b, m.start(), m.end()) {
                continue;
            }
            let mut buf = [0u8; 80];
            let Some(n) = compact(cand, &mut buf) else {
                continue;
            };
            let groups = Groups::of(cand);
            let cued_kinds = r.cued_kinds(&b[m.start().saturating_sub(48)..m.start()]);
            let mut chosen = None;
            for (i, &kind) in IdKind::ALL.iter().enumerate() {
                if matches!(
                    kind,
                    IdKind::DateOfBirth | IdKind::Username | IdKind::Address
                ) || !r.config.is_on(kind)
                {
                    continue;
                }
                let cued = cued_kinds & (1 << i) != 0;
                if accepts_compact(kind, cand, n, &groups, cued) {
                    if cued {
                        chosen = Some(kind);
                        break;
                    }
                    chosen = chosen.or(Some(kind));
                }
            }
            if let Some(kind) = chosen {
                out.push(Span::new(m.start(), m.end(), Kind::Id(kind)));
            }
        }
        dob_in_whole_text(&r.birth_cues, text, &mut out);
        out
    }

    #[test]
    fn text_finds_are_those_of_the_regex_and_whole_text_scans() {
        let r = IdRecognizer::new(&IdsConfig::default());
        let re = regex::bytes::Regex::new(scan::CANDIDATES).unwrap();
        let pieces = [
            "943 476 5919",
            "9434765919",
            "2341 2341 2346",
            "046 454 286",
            "529.982.247-25",
            "11.222.333/0001-81",
            "912-70-1234",
            "12345678Z",
            "X1234567L",
            "RSSMRA85T10A562S",
            "S1234567D",
            "AB 12 34 56 C",
            "QQ123456C",
            "1EG4-TE5-MK73",
            "ABCPE1234F",
            "011000015",
            "1234567893",
            "123 456 782",
            "65929970489",
            "2 55 08 75 123 456 78",
            "00:1A:2B:3C:4D:5E",
            "de:ad:be:ef:ca:fe",
            "00-1a-2b-3c-4d-5e",
            "001a.2b3c.4d5e",
            "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa",
            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
            "0x52908400098527886E0F7030069857D2E4169EE7",
            "79ccca03-52d2-4b96-bf49-4cd9377a6035",
            "2026-02-26T10:33:34.084Z",
            "ts_ms=1723667683641",
            "1723667683641",
            "123456789",
            "A12345678",
            "D1234567",
            "NHS ",
            "nhs no ",
            "routing ",
            "TFN ",
            "passport ",
            "account ",
            "DL# ",
            "wallet ",
            "tin ",
            "medicare ",
            "born on ",
            "DOB: ",
            "March 2, 1985",
            "02/03/1985",
            "1985-03-02",
            "2nd of March 1985",
            " ",
            "  ",
            ", ",
            "\n",
            "-",
            ".",
            "/",
            ":",
            "_",
            "x",
            "the ",
            "é",
            "7",
            "42",
        ];
        let mut rng = crate::testdata::Rng::new(11);
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..rng.below(16) {
                text.push_str(pieces[rng.below(pieces.len())]);
            }
            let mut ours = Vec::new();
            r.find(&text, None, &mut ours);
            assert_eq!(ours, find_as_it_was(&r, &re, &text), "{text:?}");
        }
    }

    #[test]
    fn birth_cues_before_digits_are_those_of_the_whole_text() {
        let r = IdRecognizer::new(&IdsConfig::default());
        let pieces = [
            "born",
            "born on",
            "Born",
            "DOB",
            "d.o.b.",
            "date of birth",
            "fecha de nacimiento",
            "né le",
            "geboren am",
            ":",
            " ",
            "  ",
            "        ",
            "on ",
            "am ",
            "in ",
            "-",
            "\t",
            "x",
            "the",
            ", ",
            "\n",
            "March",
            "septiembre",
            "Dec.",
            "décembre",
            "2",
            "12",
            "1985",
            "02/03/1985",
            "1985-03-02",
            "2nd",
            "of",
            "7",
            "é",
            "1234567890",
            "2026-02-26T10:33:34",
            "Jan",
            "mai",
            "1st",
            "th",
            ".",
            "a",
            "20",
        ];
        let mut rng = crate::testdata::Rng::new(7);
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..rng.below(24) {
                text.push_str(pieces[rng.below(pieces.len())]);
            }
            let (mut ours, mut whole) = (Vec::new(), Vec::new());
            dob_in_text(&r.birth_cues, &text, &mut ours);
            dob_in_whole_text(&r.birth_cues, &text, &mut whole);
            assert_eq!(ours, whole, "{text:?}");
        }
        let mut found = Vec::new();
        dob_in_text(&r.birth_cues, "born on March        2, 1985", &mut found);
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn cue_automaton_matches_the_per_cue_scan() {
        let r = IdRecognizer::new(&IdsConfig::default());
        let mut windows: Vec<String> = vec![
            String::new(),
            "NHS no".into(),
            "xnhs no".into(),
            "my Medicare card".into(),
            "Sécurité Sociale n°".into(),
            "身份证号".into(),
            "a/c 12, DL# and DL: tax file".into(),
            "the FIN-ish pan. sin; tin".into(),
        ];
        for kind in IdKind::ALL {
            for cue in cues(*kind) {
                for pre in ["", " ", "x", "1", "é", "-", "ab "] {
                    windows.push(format!("{pre}{cue}"));
                    windows.push(format!("{pre}{} 7", cue.to_ascii_uppercase()));
                }
            }
        }
        for w in &windows {
            let mask = r.cued_kinds(w.as_bytes());
            for (i, &kind) in IdKind::ALL.iter().enumerate() {
                assert_eq!(
                    mask & (1 << i) != 0,
                    has_cue(w.as_bytes(), kind),
                    "{w:?} {kind:?}"
                );
            }
        }
    }

    #[test]
    fn formatted_and_cued() {
        assert_eq!(
            find("NHS 943 476 5919.", None),
            vec![("943 476 5919".into(), "UK_NHS")]
        );
        assert_eq!(
            find("ref 943 476 5919", None),
            vec![("943 476 5919".into(), "UK_NHS")]
        );
        assert!(find("ref 9434765919", None).is_empty());
        assert_eq!(
            find("nhs no 9434765919", None),
            vec![("9434765919".into(), "UK_NHS")]
        );
        assert_eq!(
            find("CPF 529.982.247-25", None),
            vec![("529.982.247-25".into(), "BR_CPF")]
        );
        assert_eq!(
            find("DNI 12345678Z", None),
            vec![("12345678Z".into(), "ES_NIF")]
        );
        assert_eq!(
            find("routing 011000015", None),
            vec![("011000015".into(), "ABA_ROUTING")]
        );
        assert!(find("order 011000015", None).is_empty());
        assert_eq!(
            find("mac 00:1A:2B:3C:4D:5E up", None),
            vec![("00:1A:2B:3C:4D:5E".into(), "MAC_ADDRESS")]
        );
        assert_eq!(find("x", Some("passport_number")), vec![]);
        assert_eq!(
            find("123456789", Some("passport_number")),
            vec![("123456789".into(), "US_PASSPORT")]
        );
    }

    #[test]
    fn dates_of_birth() {
        assert_eq!(
            find("Patient born on March 2, 1985 in Leeds", None),
            vec![("March 2, 1985".into(), "DATE_OF_BIRTH")]
        );
        assert_eq!(
            find("DOB: 02/03/1985", None),
            vec![("02/03/1985".into(), "DATE_OF_BIRTH")]
        );
        assert!(find("Released on 2024-01-05", None).is_empty());
        assert_eq!(
            find("1985-03-02", Some("date_of_birth")),
            vec![("1985-03-02".into(), "DATE_OF_BIRTH")]
        );
        assert!(find("2024-01-05", Some("created_at")).is_empty());
    }
}
