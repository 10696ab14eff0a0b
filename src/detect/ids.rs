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
//! separators of a text that holds a digit (`ids/scan.rs`); each is asked of the enabled kinds
//! whose length it fits, and the bytes before it are read for cue words only when they may
//! hold one. Dates of birth have their own finder (`ids/dob.rs`).

mod address;
mod check;
mod dob;
mod scan;
mod wallet;

use aho_corasick::AhoCorasick;
use serde::Deserialize;

use super::inert::is_uuid;
use super::{IdKind, Kind, Span, lanes};
use dob::{BIRTH_CUES, dob_in_text, dob_value};

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
            /// Every identifier kind on (tests of what the widest detector finds).
            #[cfg(test)]
            pub(crate) fn all_on() -> Self {
                IdsConfig { $($field: true,)* }
            }

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
    /// Per pair of bytes (ASCII folded to lower case, at `a << 8 | b`): the index in
    /// `cue_pair_kinds` of the kinds whose cue words open with it, 0 for none. The bytes
    /// before a candidate are given to `cue_words` only when a word in them opens with a pair
    /// of a kind that may take the candidate ([`IdRecognizer::pair_kinds`]).
    cue_pairs: Box<[u8; 65536]>,
    /// The kinds (bit `i`: `IdKind::ALL[i]`) of each index of `cue_pairs`; index 0 is none.
    cue_pair_kinds: Vec<u64>,
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
        let mut cue_pairs = Box::new([0u8; 65536]);
        let mut cue_pair_kinds = vec![0u64];
        for (w, &kinds) in words.iter().zip(&cue_kinds) {
            let [a, b, ..] = *w.as_bytes() else {
                unreachable!("every cue word has three bytes or more")
            };
            // `pair_kinds` reads pairs only at ASCII letters or digits and non-ASCII leads.
            assert!(a.is_ascii_alphanumeric() || a >= 0xC0, "a cue opens a word");
            let pair =
                usize::from(a.to_ascii_lowercase()) << 8 | usize::from(b.to_ascii_lowercase());
            match cue_pairs[pair] {
                0 => {
                    cue_pairs[pair] = u8::try_from(cue_pair_kinds.len()).expect("few cue pairs");
                    cue_pair_kinds.push(kinds);
                }
                k => cue_pair_kinds[usize::from(k)] |= kinds,
            }
        }
        IdRecognizer {
            config: config.clone(),
            cue_pairs,
            cue_pair_kinds,
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
        // A whole UUID holds nothing the candidates and dates below take, whatever the key: a
        // candidate starting after a `-` is joined to the group before it and one ending before
        // a `-` to the group after it ([`embedded`]), so only one spanning the whole value could
        // be kept, and no shape of [`scan::CANDIDATES`] takes four `-` and groups of eight and
        // twelve (digit groups have at most six digits, MACs seventeen bytes). Nor does it hold
        // a birth cue: each has a letter past `f`.
        if !is_uuid(text.as_bytes()) {
            self.candidates_in(text.as_bytes(), keyed, out);
            if self.config.date_of_birth {
                dob_in_text(&self.birth_cues, text, out);
            }
        }
        if let Some(addresses) = &self.addresses {
            addresses.find(text, out);
        }
    }

    /// Appends the identifiers among the candidates of `b` ([`scan::Candidates`]).
    fn candidates_in(&self, b: &[u8], keyed: Option<IdKind>, out: &mut Vec<Span>) {
        // No kind takes fewer than nine bytes.
        for (start, end) in scan::Candidates::at_least(b, 9) {
            let cand = &b[start..end];
            if embedded(b, start, end) {
                continue;
            }
            let mut buf = [0u8; 80];
            let Some(n) = compact(cand, &mut buf) else {
                continue;
            };
            // Only the kinds whose lengths fit are asked (most candidates fit none).
            let mut fit = self.text_kinds & may_accept(cand, n.len());
            if fit == 0 {
                continue;
            }
            let groups = Groups::of(cand);
            let before = &b[start.saturating_sub(48)..start];
            // The kinds that fit and a cue word before the candidate may vouch for: most
            // candidates have none (the word starts of the bytes before open no cue of theirs,
            // [`IdRecognizer::pair_kinds`]), and are then asked of each kind without a cue,
            // its grouping before its checksum, so the kinds that need a cue refuse at once.
            let may_be_cued = self.pair_kinds(before) & fit;
            if keyed.is_none_or(|k| fit & kind_bit(k) == 0) && may_be_cued == 0 {
                // No cue can vouch for any kind that fits: the key names none of them and the
                // bytes before hold no cue word. Below, a kind is then chosen only on its
                // format alone, the first that takes the candidate so; and a kind that takes
                // it without a cue takes it with one (a cue only widens what a kind takes), so
                // it is the first kind of `fit` that takes it without a cue. Asked so, the
                // kinds that need a cue (`cued && ...`) refuse at once, with no checksum.
                let mut chosen = None;
                while fit != 0 {
                    let i = fit.trailing_zeros() as usize;
                    fit &= fit - 1;
                    if accepts_compact(IdKind::ALL[i], cand, n, &groups, false) {
                        chosen = Some(IdKind::ALL[i]);
                        break;
                    }
                }
                if let Some(kind) = chosen {
                    out.push(Span::new(start, end, Kind::Id(kind)));
                }
                continue;
            }
            // The kinds that take the candidate with a cue (a cue only widens what a kind
            // takes): most candidates are none.
            let mut open = 0u64;
            while fit != 0 {
                let i = fit.trailing_zeros() as usize;
                fit &= fit - 1;
                if accepts_compact(IdKind::ALL[i], cand, n, &groups, true) {
                    open |= 1 << i;
                }
            }
            if open == 0 {
                continue;
            }
            // The cue words are looked for only when one may vouch for a kind that takes the
            // candidate: `cued_kinds` is read only at the bits of `open`.
            let cued_kinds = if may_be_cued & open != 0 {
                self.cued_kinds(before)
            } else {
                0
            };
            // A kind whose cue is present wins over one that accepts the candidate on its
            // format alone (`TFN 123 456 782` also passes the SIN's Luhn check).
            let mut chosen = None;
            while open != 0 {
                let i = open.trailing_zeros() as usize;
                open &= open - 1;
                let kind = IdKind::ALL[i];
                let cued = keyed == Some(kind) || cued_kinds & (1 << i) != 0;
                if cued {
                    chosen = Some(kind);
                    break;
                }
                if chosen.is_none() && accepts_compact(kind, cand, n, &groups, false) {
                    chosen = Some(kind);
                }
            }
            if let Some(kind) = chosen {
                out.push(Span::new(start, end, Kind::Id(kind)));
            }
        }
    }

    /// [`IdRecognizer::candidates_in`] as it was, every kind that fits asked with a cue before
    /// the bytes before are read: the test oracle for asking without one first.
    #[cfg(test)]
    fn candidates_in_reference(&self, b: &[u8], keyed: Option<IdKind>, out: &mut Vec<Span>) {
        for (start, end) in scan::Candidates::new(b) {
            let cand = &b[start..end];
            if cand.len() < 9 || embedded(b, start, end) {
                continue;
            }
            let mut buf = [0u8; 80];
            let Some(n) = compact(cand, &mut buf) else {
                continue;
            };
            let mut fit = self.text_kinds & may_accept(cand, n.len());
            let groups = Groups::of(cand);
            let mut open = 0u64;
            while fit != 0 {
                let i = fit.trailing_zeros() as usize;
                fit &= fit - 1;
                if accepts_compact(IdKind::ALL[i], cand, n, &groups, true) {
                    open |= 1 << i;
                }
            }
            if open == 0 {
                continue;
            }
            let before = &b[start.saturating_sub(48)..start];
            let cued_kinds = if may_hold_cue_by_letters(before) {
                self.cued_kinds(before)
            } else {
                0
            };
            let mut chosen = None;
            while open != 0 {
                let i = open.trailing_zeros() as usize;
                open &= open - 1;
                let kind = IdKind::ALL[i];
                if keyed == Some(kind) || cued_kinds & (1 << i) != 0 {
                    chosen = Some(kind);
                    break;
                }
                if chosen.is_none() && accepts_compact(kind, cand, n, &groups, false) {
                    chosen = Some(kind);
                }
            }
            if let Some(kind) = chosen {
                out.push(Span::new(start, end, Kind::Id(kind)));
            }
        }
    }

    /// The kinds (bit `i`: `IdKind::ALL[i]`) a cue word may vouch for in `before`, a superset
    /// of [`IdRecognizer::cued_kinds`]: those of the cue words that open with the first two
    /// bytes of a word in it (a word start as `cued_kinds` counts them: the first byte, or one
    /// after a byte that is no ASCII letter or digit), ASCII case-insensitive. The automaton
    /// costs about twenty instructions a byte on 48 bytes; this reads their classes sixteen at
    /// a time ([`lanes::classes`]) and looks up the pair at each word start, and most word
    /// starts of logs and prose open no cue of the kinds that take a candidate (a phone-shaped
    /// number fits a driver licence and a bank account: `dr`, `dl`, `li`, `ac`, `a/`).
    fn pair_kinds(&self, before: &[u8]) -> u64 {
        let mut kinds = 0;
        // Whether the byte before the 64 from `base` is an ASCII letter or digit.
        let mut prev_alnum = false;
        let mut base = 0;
        while base + 1 < before.len() {
            let mut alnum = 0u64;
            let mut open = 0u64;
            let mut k = 0;
            while k < 64 && base + k < before.len() {
                let c = lanes::classes(before, base + k);
                alnum |= u64::from(c.alnum) << k;
                open |= u64::from(c.alnum | c.lead) << k;
                k += 16;
            }
            let mut starts = !(alnum << 1 | u64::from(prev_alnum)) & open;
            while starts != 0 {
                let i = base + starts.trailing_zeros() as usize;
                starts &= starts - 1;
                let (Some(&a), Some(&b)) = (before.get(i), before.get(i + 1)) else {
                    break;
                };
                let pair =
                    usize::from(a.to_ascii_lowercase()) << 8 | usize::from(b.to_ascii_lowercase());
                let index = usize::from(self.cue_pairs[pair]);
                kinds |= self.cue_pair_kinds.get(index).copied().unwrap_or(0);
            }
            prev_alnum = alnum >> 63 != 0;
            base += 64;
        }
        kinds
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

/// The bit of `kind` in a mask over [`IdKind::ALL`].
const fn kind_bit(kind: IdKind) -> u64 {
    let mut i = 0;
    while i < IdKind::ALL.len() {
        if IdKind::ALL[i] as u8 == kind as u8 {
            return 1 << i;
        }
        i += 1;
    }
    panic!("every kind is in IdKind::ALL")
}

/// Whether [`accepts_compact`] can take a `kind` whose compacted form is `len` bytes long (for
/// the kinds its checks read compacted; MAC addresses and wallets are read as written): each
/// check's length rule, from `check.rs` and the arms of `accepts_compact`.
const fn compact_len_fits(kind: IdKind, len: usize) -> bool {
    use IdKind::*;
    match kind {
        CaSin | UsItin | EsNif | EsNie | SgNricFin | UkNino | AbaRouting | AuTfn | UsPassport => {
            len == 9
        }
        UkNhs | InPan | UsNpi => len == 10,
        BrCpf | UsMbi | DeTaxId => len == 11,
        InAadhaar => len == 12,
        BrCnpj => len == 14,
        FrNir => len == 15,
        ItFiscalCode => len == 16,
        CnResidentId => len == 18,
        AuMedicare => len == 10 || len == 11,
        PhTin => len == 9 || len == 12,
        UsDriverLicense => 5 <= len && len <= 14,
        UsBankNumber => 8 <= len && len <= 17,
        MacAddress | CryptoWallet | DateOfBirth | Username | Address => false,
    }
}

/// Per compacted length (at most 80, the size of [`compact`]'s buffer): the kinds whose length
/// rule it fits ([`compact_len_fits`]).
const FITS_COMPACT_LEN: [u64; 81] = {
    let mut t = [0u64; 81];
    let mut len = 0;
    while len < t.len() {
        let mut i = 0;
        while i < IdKind::ALL.len() {
            if compact_len_fits(IdKind::ALL[i], len) {
                t[len] |= 1 << i;
            }
            i += 1;
        }
        len += 1;
    }
    t
};

/// The kinds (bit `i`: `IdKind::ALL[i]`) [`accepts_compact`] may take `cand` as, with or without
/// a cue, `n_len` its compacted length: those whose length rule it fits. A MAC address
/// ([`wallet::mac`]) is 11 to 17 bytes with a `-` or `:` after its first group, or a `.` after
/// its first quad; a wallet ([`wallet::btc`], [`wallet::eth`]) is 26 to 35 bytes (base58), 42
/// (bech32, ETH) or 62 (bech32). A kind left out would refuse the candidate anyway.
fn may_accept(cand: &[u8], n_len: usize) -> u64 {
    let mut kinds = FITS_COMPACT_LEN.get(n_len).copied().unwrap_or(0);
    let at = |i: usize| cand.get(i).copied();
    if (11..=17).contains(&cand.len())
        && (at(1) == Some(b':')
            || at(2) == Some(b':')
            || at(2) == Some(b'-')
            || at(4) == Some(b'.'))
    {
        kinds |= kind_bit(IdKind::MacAddress);
    }
    if matches!(cand.len(), 26..=35 | 42 | 62) {
        kinds |= kind_bit(IdKind::CryptoWallet);
    }
    kinds
}

/// Whether a cue word may lie in `before`: each holds two ASCII letters in a row, a byte beyond
/// ASCII or a `/` (`a/c`), so bytes with none of them (`1999-07-21T01:04:`) hold no cue and
/// need no look by [`IdRecognizer::cued_kinds`]. The filter before
/// [`IdRecognizer::pair_kinds`], kept for the reference and its test.
#[cfg(test)]
fn may_hold_cue_by_letters(before: &[u8]) -> bool {
    let mut letter = false;
    for &c in before {
        if c >= 0x80 || c == b'/' || letter && c.is_ascii_alphabetic() {
            return true;
        }
        letter = c.is_ascii_alphabetic();
    }
    false
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
///
/// A cue only widens what a kind takes (each arm is monotone in `cued`), and the shape a kind
/// needs without a cue is tested before its checksum (both are pure tests, so the order
/// changes no answer): asked without a cue, most candidates are refused by their grouping.
fn accepts_compact(kind: IdKind, cand: &[u8], n: &[u8], groups: &Groups, cued: bool) -> bool {
    use IdKind::*;
    let solid = groups.count == 1;
    match kind {
        // Uncued, a phone-shaped number must look like no phone: spaces only (3-3-4 with
        // dashes is a US phone), and no trunk prefix `0` (or `1`, `2`: no NHS range starts
        // so; national phone numbers do).
        UkNhs => (cued || groups.is_sep(&[3, 3, 4], b"  ") && n[0] >= b'3') && check::nhs(n),
        InAadhaar => (cued || groups.is_sep(&[4, 4, 4], b"  ")) && check::aadhaar(n),
        // SINs start 1-7 (9: temporary residents); a leading 0 is a national phone number.
        CaSin => (cued || groups.is(&[3, 3, 3]) && n[0] != b'0') && check::ca_sin(n),
        BrCpf => (cued || groups.is_sep(&[3, 3, 3, 2], b"..-")) && check::cpf(n),
        BrCnpj => (cued || groups.is_sep(&[2, 3, 3, 4, 2], b"../-")) && check::cnpj(n),
        UsItin => (cued || groups.is_sep(&[3, 2, 4], b"--")) && check::us_itin(n),
        EsNif => (solid || cued) && check::es_dni(n),
        EsNie => (solid || cued) && check::es_nie(n),
        ItFiscalCode => check::it_fiscal(n) && solid,
        CnResidentId => check::cn_resident(n) && solid,
        SgNricFin => check::sg_nric(n) && solid,
        UkNino => check::uk_nino(n) && (solid || groups.is(&[2, 2, 2, 2, 1])),
        UsMbi => check::us_mbi(n) && (solid || groups.is_sep(&[4, 3, 4], b"--")),
        InPan => check::in_pan(n) && solid,
        FrNir => (cued || groups.is(&[1, 2, 2, 2, 3, 3, 2])) && check::fr_nir(n),
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
        _ if USERNAME_KEYS.contains(&f) => Username,
        _ => return None,
    })
}

/// The keys (folded as [`kind_of_key`] folds them) that name a user name.
const USERNAME_KEYS: [&str; 17] = [
    "username",
    "user",
    "login",
    "loginname",
    "loginid",
    "handle",
    "nickname",
    "nick",
    "screenname",
    "accountname",
    "samaccountname",
    "gitlogin",
    "githubusername",
    "githubhandle",
    "twitterhandle",
    "slackhandle",
    "userlogin",
];

/// Whether [`kind_of_key`] gives `Username` for `key`, without its other lists (no other list
/// holds a user-name key): the key of every `key=value` pair of a log is asked, and most
/// are turned away by their last letter or digit (every user-name key ends in `d e k n r`).
pub(super) fn names_username(key: &str) -> bool {
    let Some(last) = key.bytes().rev().find(u8::is_ascii_alphanumeric) else {
        return false;
    };
    if !matches!(last.to_ascii_lowercase(), b'd' | b'e' | b'k' | b'n' | b'r') {
        return false;
    }
    let mut buf = [0u8; 40];
    let mut n = 0;
    for b in key.bytes().filter(u8::is_ascii_alphanumeric) {
        let Some(slot) = buf.get_mut(n) else {
            return false;
        };
        *slot = b.to_ascii_lowercase();
        n += 1;
    }
    USERNAME_KEYS.iter().any(|k| k.as_bytes() == &buf[..n])
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_username_is_kind_of_key_s_username() {
        for k in USERNAME_KEYS {
            assert!(
                k.bytes().last().is_some_and(|c| b"deknr".contains(&c)),
                "{k}"
            );
        }
        let mut keys: Vec<String> = Vec::new();
        for k in USERNAME_KEYS
            .iter()
            .chain(&["address", "dob", "nhs", "userx", "usr", "", "-"])
        {
            keys.push(k.to_string());
            keys.push(k.to_ascii_uppercase());
            keys.push(format!("{k}_"));
            keys.push(format!("x{k}"));
            keys.push(format!("{}-{}", &k[..k.len() / 2], &k[k.len() / 2..]));
            keys.push(format!("{k}{}", "e".repeat(40)));
        }
        let mut rng = crate::testdata::Rng::new(5);
        let letters = b"userloginhandkc_-. 1";
        for _ in 0..50_000 {
            let k: Vec<u8> = (0..rng.below(12))
                .map(|_| letters[rng.below(letters.len())])
                .collect();
            keys.push(String::from_utf8(k).unwrap());
        }
        let mut hits = 0;
        for k in &keys {
            let want = kind_of_key(k) == Some(IdKind::Username);
            assert_eq!(names_username(k), want, "{k:?}");
            hits += usize::from(want);
        }
        assert!(hits > 50, "{hits}");
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
        dob::dob_in_whole_text(&r.birth_cues, text, &mut out);
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
            "2123456701",
            "21234567011",
            "86095742719",
            "255081416802538",
            "2 55 08 14 168 025 38",
            "11010519491231002X",
            "123-456-789",
            "123-456-789-000",
            "A1234567",
            "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
            "0:1:2:3:4:f",
            "00:00:00:00:00:00",
            "Steuer ",
            "aadhaar ",
            "id card ",
            "身份证 ",
            "cpf ",
            "sin ",
            "a/c ",
            "tax id ",
            "DL: ",
            "npi ",
            "pan ",
            "bitcoin ",
            "eth ",
            "fiscal ",
            "nie ",
            "nir ",
        ];
        let mut rng = crate::testdata::Rng::new(11);
        let mut found = 0;
        for _ in 0..20_000 {
            let mut text = String::new();
            for _ in 0..rng.below(16) {
                text.push_str(pieces[rng.below(pieces.len())]);
            }
            let mut ours = Vec::new();
            r.find(&text, None, &mut ours);
            assert_eq!(ours, find_as_it_was(&r, &re, &text), "{text:?}");
            found += ours.len();
        }
        // Values shaped like UUIDs, timestamps, phone numbers, hashes, code and prose, alone and
        // around identifiers.
        for _ in 0..20_000 {
            let mut text = shaped(&mut rng);
            if rng.below(2) == 0 {
                text.push_str(pieces[rng.below(pieces.len())]);
                text.push_str(&shaped(&mut rng));
            }
            let mut ours = Vec::new();
            r.find(&text, None, &mut ours);
            assert_eq!(ours, find_as_it_was(&r, &re, &text), "{text:?}");
            found += ours.len();
        }
        assert!(found > 2_000, "{found}");
    }

    #[test]
    fn candidates_asked_without_a_cue_first_are_those_of_the_reference() {
        let configs = [IdsConfig::default(), IdsConfig::all_on()];
        let keys: Vec<Option<IdKind>> = std::iter::once(None)
            .chain(IdKind::ALL.iter().copied().map(Some))
            .collect();
        let pieces = [
            "943 476 5919",
            "9434765919",
            "2341 2341 2346",
            "046 454 286",
            "529.982.247-25",
            "11.222.333/0001-81",
            "912-70-1234",
            "12345678Z",
            "123 456 782",
            "65929970489",
            "2 55 08 75 123 456 78",
            "00:1A:2B:3C:4D:5E",
            "+1-519-748-2199",
            "360.318.9555",
            "+1 501-809-2815",
            "04232322183",
            "090-7746-3706",
            "+44 141 496 0230",
            "1234567893",
            "011000015",
            "A12345678",
            "D1234567",
            "NHS ",
            "routing ",
            "TFN ",
            "account ",
            "DL# ",
            "tin ",
            "medicare ",
            "sin ",
            "cpf ",
            "npi ",
            "Steuer ",
            "+",
            "(",
            ") ",
            " ",
            "-",
            ".",
            "x",
            "é",
            "7",
            "42",
            "123456789",
            "1723667683641",
        ];
        let mut rng = crate::testdata::Rng::new(29);
        let mut texts: Vec<String> = (0..6_000)
            .map(|_| (0..1 + rng.below(6)).map(|_| *rng.pick(&pieces)).collect())
            .collect();
        texts.extend((0..3_000).map(|_| shaped(&mut rng)));
        let mut found = 0;
        for config in &configs {
            let r = IdRecognizer::new(config);
            for text in &texts {
                for &keyed in &keys {
                    let (mut new, mut old) = (Vec::new(), Vec::new());
                    r.candidates_in(text.as_bytes(), keyed, &mut new);
                    r.candidates_in_reference(text.as_bytes(), keyed, &mut old);
                    assert_eq!(new, old, "{text:?} {keyed:?}");
                    found += new.len();
                }
            }
        }
        assert!(found > 10_000, "{found}");
    }

    #[test]
    fn whole_uuids_hold_nothing_the_candidates_and_dates_take() {
        for cue in BIRTH_CUES {
            assert!(
                cue.bytes().any(|c| !c.is_ascii_hexdigit() && c != b'-'),
                "{cue}"
            );
        }
        let r = IdRecognizer::new(&IdsConfig::default());
        let re = regex::bytes::Regex::new(scan::CANDIDATES).unwrap();
        let alphabets: [&[u8]; 5] = [
            b"0123456789",
            b"0123456789abcdef",
            b"0123456789ABCDEF",
            b"01",
            b"9aA",
        ];
        let mut rng = crate::testdata::Rng::new(17);
        for _ in 0..20_000 {
            let alphabet = alphabets[rng.below(alphabets.len())];
            let groups: Vec<String> = [8, 4, 4, 4, 12]
                .iter()
                .map(|&n| (0..n).map(|_| char::from(*rng.pick(alphabet))).collect())
                .collect();
            let u = groups.join("-");
            assert!(is_uuid(u.as_bytes()));
            assert_eq!(find_as_it_was(&r, &re, &u), vec![], "{u}");
            for &kind in IdKind::ALL {
                let mut out = Vec::new();
                r.candidates_in(u.as_bytes(), Some(kind), &mut out);
                assert_eq!(out, vec![], "{u} {kind:?}");
            }
            let mut out = Vec::new();
            r.find(&u, None, &mut out);
            assert_eq!(out, vec![], "{u}");
        }
        for not in [
            "",
            "79ccca03-52d2-4b96-bf49-4cd9377a603",
            "79ccca03-52d2-4b96-bf49_4cd9377a6035",
            "79ccca03-52d2-4b96-bf49-4cd9377a603g",
            " 79ccca03-52d2-4b96-bf49-4cd9377a6035",
        ] {
            assert!(!is_uuid(not.as_bytes()), "{not}");
        }
    }

    #[test]
    fn kinds_left_out_by_length_accept_nothing() {
        // Candidates from identifiers, from values shaped like them and from random bytes of
        // their alphabets, each against every kind, with and without a cue.
        let mut cands: Vec<Vec<u8>> = [
            "943 476 5919",
            "234123412346",
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
            "1EG4TE5MK73",
            "ABCPE1234F",
            "011000015",
            "1234567893",
            "123456782",
            "86095742719",
            "2 55 08 14 168 025 38",
            "11010519491231002X",
            "2123456701",
            "21234567011",
            "123-456-789-000",
            "A12345678",
            "D1234567",
            "AB123456789012",
            "00:1A:2B:3C:4D:5E",
            "0:1:2:3:4:f",
            "00-1a-2b-3c-4d-5e",
            "001a.2b3c.4d5e",
            "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa",
            "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
            "bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297",
            "0x52908400098527886E0F7030069857D2E4169EE7",
        ]
        .iter()
        .map(|c| c.as_bytes().to_vec())
        .collect();
        let mut rng = crate::testdata::Rng::new(5);
        for _ in 0..3_000 {
            let text = shaped(&mut rng);
            let b = text.as_bytes();
            cands.extend(scan::Candidates::new(b).map(|(s, e)| b[s..e].to_vec()));
        }
        let alphabets: [&[u8]; 4] = [
            b"0123456789",
            b"0123456789 -./",
            b"0123456789ABXZ",
            b"0123456789abcdefABCDEF:-.",
        ];
        for _ in 0..20_000 {
            let alphabet = alphabets[rng.below(alphabets.len())];
            let len = 1 + rng.below(70);
            cands.push((0..len).map(|_| *rng.pick(alphabet)).collect());
        }
        let mut taken = 0;
        for cand in &cands {
            let mut buf = [0u8; 80];
            let Some(n) = compact(cand, &mut buf) else {
                continue;
            };
            let groups = Groups::of(cand);
            let may = may_accept(cand, n.len());
            for (i, &kind) in IdKind::ALL.iter().enumerate() {
                // A cue only widens what a kind takes (`candidates_in` relies on it).
                assert!(
                    !accepts_compact(kind, cand, n, &groups, false)
                        || accepts_compact(kind, cand, n, &groups, true),
                    "{kind:?} {:?}",
                    String::from_utf8_lossy(cand)
                );
                for cued in [false, true] {
                    if accepts_compact(kind, cand, n, &groups, cued) {
                        taken += 1;
                        assert!(
                            may & (1 << i) != 0,
                            "{kind:?} {:?}",
                            String::from_utf8_lossy(cand)
                        );
                    }
                }
            }
        }
        assert!(taken > 1_000, "{taken}");
    }

    #[test]
    fn bytes_that_may_hold_no_cue_hold_none() {
        let r = IdRecognizer::new(&IdsConfig::default());
        for kind in IdKind::ALL {
            for cue in cues(*kind) {
                for c in [cue.to_string(), cue.to_ascii_uppercase()] {
                    assert!(may_hold_cue_by_letters(c.as_bytes()), "{cue}");
                    for before in [c.clone(), format!("x {c}"), format!("7.{c}:")] {
                        let bit = kind_bit(*kind);
                        assert_eq!(r.cued_kinds(before.as_bytes()) & bit, bit, "{before}");
                        assert_eq!(r.pair_kinds(before.as_bytes()) & bit, bit, "{before}");
                    }
                }
            }
        }
        // Only at word starts.
        for before in ["xnhs", "1tin", "qNHS", "xacct", "Z9steuer"] {
            assert_eq!(r.pair_kinds(before.as_bytes()), 0, "{before}");
        }
        let mut rng = crate::testdata::Rng::new(9);
        let alphabet = b"0123456789aAcCnNsSxXhHtTiIpP/:-._ \xc3\xa9";
        let words = [
            "nhs",
            "NI number",
            "a/c",
            "dl#",
            "DL:",
            "s\u{e9}cu",
            "\u{8eab}\u{4efd}\u{8bc1}",
            "tin",
            "acct",
            "medicare",
            "id card",
            "eth",
            "wallet",
        ];
        let mut taken = 0;
        for _ in 0..50_000 {
            let len = rng.below(48);
            let mut before: Vec<u8> = (0..len).map(|_| *rng.pick(alphabet)).collect();
            if rng.below(3) == 0 {
                let at = rng.below(before.len() + 1);
                let w = words[rng.below(words.len())].as_bytes();
                before.splice(at..at, w.iter().copied());
            }
            let cued = r.cued_kinds(&before);
            if !may_hold_cue_by_letters(&before) {
                assert_eq!(cued, 0, "{:?}", String::from_utf8_lossy(&before));
            }
            // Past 48 bytes too: the pairs are read 64 bytes at a time.
            let mut longer = before.repeat(1 + rng.below(3));
            longer.extend_from_slice(&before);
            for b in [&before, &longer] {
                let c = r.cued_kinds(b);
                assert_eq!(c & !r.pair_kinds(b), 0, "{:?}", String::from_utf8_lossy(b));
            }
            taken += usize::from(cued != 0);
        }
        assert!(taken > 5_000, "{taken}");
        for _ in 0..5_000 {
            let text = shaped(&mut rng);
            let b = text.as_bytes();
            for start in 0..b.len() {
                let before = &b[start.saturating_sub(48)..start];
                let cued = r.cued_kinds(before);
                if !may_hold_cue_by_letters(before) {
                    assert_eq!(cued, 0, "{text:?}");
                }
                assert_eq!(cued & !r.pair_kinds(before), 0, "{text:?}");
            }
        }
    }

    /// A random value shaped like those that hold digits but rarely an identifier: a UUID, an
    /// ISO timestamp, a phone number, a hex hash, a version, a line of code or log, a sentence;
    /// now and then with a birth cue or a cue word before it.
    pub(super) fn shaped(rng: &mut crate::testdata::Rng) -> String {
        let hex = crate::testdata::hex;
        let upper = rng.below(8) == 0;
        let mut v = match rng.below(9) {
            0 => crate::testdata::uuid(rng),
            1 => crate::testdata::iso_timestamp(rng),
            2 => crate::testdata::phone(rng),
            3 => {
                let n = *rng.pick(&[32, 40, 42, 64]);
                hex(rng, n, upper)
            }
            4 => format!("v{}.{}.{}", rng.below(20), rng.below(100), rng.below(1000)),
            5 => {
                static LINES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
                let lines = LINES.get_or_init(|| crate::testdata::code_log_lines(64 * 1024));
                lines[rng.below(lines.len())].clone()
            }
            6 => {
                let prose = crate::testdata::prose(rng.next_u64(), 600).text;
                let from = rng.below(prose.len() / 2);
                let from = (from..prose.len())
                    .find(|&i| prose.is_char_boundary(i))
                    .unwrap_or(0);
                prose[from..].to_string()
            }
            7 => format!(
                "{}{} {}",
                rng.below(100_000),
                *rng.pick(&["", "-", "/", ".", " "]),
                rng.below(100_000_000)
            ),
            _ => {
                let mut w = String::new();
                for _ in 0..1 + rng.below(4) {
                    let pick = ["da", "fe", "D", "b", "0x", "bc1", "DOB", "ne", "1"];
                    w.push_str(pick[rng.below(pick.len())]);
                    let n = rng.below(10);
                    w.push_str(&hex(rng, n, upper));
                    let pick = ["-", ".", ":", " ", "_", "/"];
                    w.push_str(pick[rng.below(pick.len())]);
                }
                w
            }
        };
        if rng.below(4) == 0 {
            let cue = rng.pick(&[
                "born ",
                "DOB: ",
                "Born on ",
                "date of birth ",
                "nhs ",
                "routing ",
                "TFN ",
                "account ",
                "mac ",
                "wallet ",
                "née le ",
                "geboren am ",
                "March ",
                "2nd of ",
            ]);
            v.insert_str(0, cue);
        }
        v
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
