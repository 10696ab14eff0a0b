//! The kinds of personal data (`Kind`, `IdKind`): the `KIND` of a token (`[EMAIL_1]`), named
//! in the configuration, minted by the vault and found by the detector.
//!
//! Below both `detect` and `vault` (neither imports the other for it): the detector produces
//! spans of a kind, the vault keys its tables by kind, the token module writes the name.
//! `crate::detect` re-exports both types, so `mcp_veil::detect::Kind` keeps working.

use std::fmt;
use std::sync::Arc;

/// Calls `$m!` with the list of identifier kinds, one `Variant "TOKEN_NAME" config_field "doc";`
/// each: `IdKind` here and `IdsConfig` in `detect/ids.rs` are built from the same list.
macro_rules! with_id_kinds {
    ($m:ident) => {
        $m! {
            UkNhs "UK_NHS" uk_nhs true "UK NHS number (mod 11).";
            UkNino "UK_NINO" uk_nino true "UK National Insurance number.";
            UsItin "US_ITIN" us_itin true "US individual taxpayer identification number.";
            UsPassport "US_PASSPORT" us_passport true "US passport number (context).";
            UsDriverLicense "US_DRIVER_LICENSE" us_driver_license true "US driver licence number (context).";
            UsBankNumber "US_BANK_NUMBER" us_bank_number true "US bank account number (context).";
            AbaRouting "ABA_ROUTING" aba_routing true "ABA routing transit number (checksum and context).";
            UsNpi "US_NPI" us_npi true "US National Provider Identifier (Luhn and context).";
            UsMbi "US_MBI" us_mbi true "US Medicare Beneficiary Identifier.";
            InPan "IN_PAN" in_pan true "Indian permanent account number.";
            InAadhaar "IN_AADHAAR" in_aadhaar true "Indian Aadhaar number (Verhoeff).";
            SgNricFin "SG_NRIC_FIN" sg_nric_fin true "Singapore NRIC/FIN (check letter).";
            CaSin "CA_SIN" ca_sin true "Canadian social insurance number (Luhn).";
            BrCpf "BR_CPF" br_cpf true "Brazilian CPF (two mod-11 digits).";
            BrCnpj "BR_CNPJ" br_cnpj true "Brazilian CNPJ (two mod-11 digits).";
            EsNif "ES_NIF" es_nif true "Spanish DNI/NIF (check letter).";
            EsNie "ES_NIE" es_nie true "Spanish NIE (check letter).";
            ItFiscalCode "IT_FISCAL_CODE" it_fiscal_code true "Italian codice fiscale (check letter).";
            FrNir "FR_NIR" fr_nir true "French social security number (mod-97 key).";
            DeTaxId "DE_TAX_ID" de_tax_id true "German Steuer-ID (ISO 7064 and context).";
            CnResidentId "CN_RESIDENT_ID" cn_resident_id true "Chinese resident identity card (ISO 7064).";
            AuTfn "AU_TFN" au_tfn true "Australian tax file number (mod 11 and context).";
            AuMedicare "AU_MEDICARE" au_medicare true "Australian Medicare number (check digit and context).";
            PhTin "PH_TIN" ph_tin true "Philippine TIN (context).";
            MacAddress "MAC_ADDRESS" mac_address true "MAC address.";
            CryptoWallet "CRYPTO_WALLET" crypto_wallet true "BTC (base58check, bech32) or ETH (context) address.";
            DateOfBirth "DATE_OF_BIRTH" date_of_birth true "A date under a birth-date key or after birth context.";
            Username "USERNAME" username true "A login, handle or user name under a key or label that names one (`username`, `login`, `handle`, `nickname`, `user=`).";
            Address "ADDRESS" address false "A postal address: the whole value under an address key, a street line (number and street-type word, with city and postcode when they follow) in text. Off by default.";
        }
    };
}
pub(crate) use with_id_kinds;

macro_rules! define_id_kind {
    ($($variant:ident $name:literal $field:ident $on:literal $doc:literal;)*) => {
        /// A personal identifier kind (its token name is [`IdKind::name`]).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum IdKind {
            $(#[doc = $doc] $variant,)*
        }

        impl IdKind {
            /// Every identifier kind.
            pub const ALL: &'static [IdKind] = &[$(IdKind::$variant,)*];

            /// The kind's token name (`UK_NHS`).
            pub fn name(self) -> &'static str {
                match self {
                    $(IdKind::$variant => $name,)*
                }
            }

            /// The kind with this token name.
            pub fn from_name(name: &str) -> Option<IdKind> {
                match name {
                    $($name => Some(IdKind::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

with_id_kinds!(define_id_kind);

impl IdKind {
    /// Whether two values of this kind that differ only in spaces, `-`, `.` and letter case
    /// are one value (national numbers); not for wallet addresses, MACs and dates.
    pub(crate) fn folds_separators(self) -> bool {
        !matches!(
            self,
            IdKind::CryptoWallet
                | IdKind::MacAddress
                | IdKind::DateOfBirth
                | IdKind::Username
                | IdKind::Address
        )
    }
}

/// A kind of personal data, and the `KIND` in its tokens (`[KIND_N]`).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// An email address (`EMAIL`).
    Email,
    /// A phone number confirmed by libphonenumber metadata (`PHONE`).
    Phone,
    /// A person's name (`NAME`).
    Name,
    /// A payment card number that passes the Luhn check (`CREDIT_CARD`).
    CreditCard,
    /// An IBAN that passes the mod-97 check (`IBAN`).
    Iban,
    /// A US social security number (`US_SSN`).
    UsSsn,
    /// An IPv4 or IPv6 address (`IP_ADDRESS`).
    IpAddress,
    /// A token-shaped string found in inbound data, neutralised so it can never restore another
    /// value (`LITERAL`). See [`crate::token`].
    Literal,
    /// A credential: an API key, token, private key or password (`SECRET`). See `detect/secrets.rs`.
    Secret,
    /// A personal identifier with a checksum or strict shape, a MAC or wallet address, a date
    /// of birth (`UK_NHS`, `MAC_ADDRESS`, `DATE_OF_BIRTH` ...). See `detect/ids.rs`.
    Id(IdKind),
    /// A kind defined in the configuration (an upper-case name such as `EMPLOYEE_ID`).
    Custom(Arc<str>),
}

impl Kind {
    /// The names of the built-in kinds, as they appear in tokens and configuration.
    pub const BUILTIN: &'static [&'static str] = &[
        "EMAIL",
        "PHONE",
        "NAME",
        "CREDIT_CARD",
        "IBAN",
        "US_SSN",
        "IP_ADDRESS",
        "LITERAL",
        "SECRET",
        "UK_NHS",
        "UK_NINO",
        "US_ITIN",
        "US_PASSPORT",
        "US_DRIVER_LICENSE",
        "US_BANK_NUMBER",
        "ABA_ROUTING",
        "US_NPI",
        "US_MBI",
        "IN_PAN",
        "IN_AADHAAR",
        "SG_NRIC_FIN",
        "CA_SIN",
        "BR_CPF",
        "BR_CNPJ",
        "ES_NIF",
        "ES_NIE",
        "IT_FISCAL_CODE",
        "FR_NIR",
        "DE_TAX_ID",
        "CN_RESIDENT_ID",
        "AU_TFN",
        "AU_MEDICARE",
        "PH_TIN",
        "MAC_ADDRESS",
        "CRYPTO_WALLET",
        "DATE_OF_BIRTH",
        "USERNAME",
        "ADDRESS",
    ];

    /// The kind's name as used in tokens (`EMAIL`, `CREDIT_CARD`, a custom name ...).
    pub fn as_str(&self) -> &str {
        match self {
            Kind::Email => "EMAIL",
            Kind::Phone => "PHONE",
            Kind::Name => "NAME",
            Kind::CreditCard => "CREDIT_CARD",
            Kind::Iban => "IBAN",
            Kind::UsSsn => "US_SSN",
            Kind::IpAddress => "IP_ADDRESS",
            Kind::Literal => "LITERAL",
            Kind::Secret => "SECRET",
            Kind::Id(id) => id.name(),
            Kind::Custom(name) => name,
        }
    }

    /// The kind with this token name. Names that are not built in become custom kinds; the
    /// caller validates them with [`Kind::is_valid_name`].
    pub fn from_name(name: &str) -> Kind {
        match name {
            "EMAIL" => Kind::Email,
            "PHONE" => Kind::Phone,
            "NAME" => Kind::Name,
            "CREDIT_CARD" => Kind::CreditCard,
            "IBAN" => Kind::Iban,
            "US_SSN" => Kind::UsSsn,
            "IP_ADDRESS" => Kind::IpAddress,
            "LITERAL" => Kind::Literal,
            "SECRET" => Kind::Secret,
            other => {
                IdKind::from_name(other).map_or_else(|| Kind::Custom(Arc::from(other)), Kind::Id)
            }
        }
    }

    /// Whether `name` can name a kind: `[A-Z][A-Z0-9_]*`, at most 32 bytes, not ending in `_`.
    pub fn is_valid_name(name: &str) -> bool {
        let b = name.as_bytes();
        !b.is_empty()
            && b.len() <= 32
            && b[0].is_ascii_uppercase()
            && b[b.len() - 1] != b'_'
            && b.iter()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == b'_')
    }

    /// Rank used to break ties between equally long overlapping candidates: lower wins.
    /// More specific evidence (a checksum, an `@`) beats a looser pattern.
    pub(crate) fn specificity(&self) -> u8 {
        match self {
            Kind::Literal => 0,
            Kind::Secret => 1,
            Kind::Email => 1,
            Kind::CreditCard => 2,
            Kind::Iban => 3,
            Kind::UsSsn => 4,
            Kind::Custom(_) => 5,
            Kind::IpAddress => 6,
            // Above phones: an identifier passed its checksum in its national grouping, or
            // had its cue word; a phone reading of the same digits is the weaker one.
            Kind::Id(_) => 7,
            Kind::Phone => 8,
            Kind::Name => 9,
        }
    }
}

impl fmt::Debug for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_round_trip() {
        for &name in Kind::BUILTIN {
            assert_eq!(Kind::from_name(name).as_str(), name);
        }
        assert_eq!(
            Kind::from_name("EMPLOYEE_ID"),
            Kind::Custom(Arc::from("EMPLOYEE_ID"))
        );
    }

    #[test]
    fn kind_name_grammar() {
        assert!(Kind::is_valid_name("EMPLOYEE_ID"));
        assert!(Kind::is_valid_name("X1"));
        assert!(!Kind::is_valid_name("employee"));
        assert!(!Kind::is_valid_name("_X"));
        assert!(!Kind::is_valid_name("X_"));
        assert!(!Kind::is_valid_name(""));
        assert!(!Kind::is_valid_name("A-B"));
    }
}
