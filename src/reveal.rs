//! Partial reveals (`detect.reveal`, every kind off by default): the part of a value that
//! identifies no one, shown to the model inside the value's token, when the user allows it.
//!
//! | kind | part | token |
//! |---|---|---|
//! | `EMAIL` | the domain, lower case | `[EMAIL_1 @example.com]` |
//! | `CREDIT_CARD` | the brand and the last four digits | `[CREDIT_CARD_1 visa 4242]` |
//! | `PHONE` | the country calling code | `[PHONE_1 +44]` |
//! | `DATE_OF_BIRTH` | the year | `[DATE_OF_BIRTH_1 1984]` |
//!
//! The part is a pure function of the value (and, for a phone, its E.164 form), so the same
//! value always has the same token text, and restore checks it: a token whose part is not the
//! one its value gives (changed by the model, or forged) is unknown and never restores
//! ([`crate::engine`]). Without a part (`[EMAIL_1]`) a token restores as always: the part is a
//! view, the token is its id. Flow rules and the audit log see the bare token. A value with no
//! such part (a card of unknown brand, a date with a two-digit year, an internationalised
//! domain) gets a bare token. The grammar of the part is [`crate::token`]'s.

use serde::Deserialize;

use crate::detect::{IdKind, Kind};

/// Which kinds show a part of their values in their tokens.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct RevealConfig {
    /// An email's domain (`[EMAIL_1 @example.com]`).
    pub email: bool,
    /// A card's brand and last four digits (`[CREDIT_CARD_1 visa 4242]`).
    pub credit_card: bool,
    /// A phone's country calling code (`[PHONE_1 +44]`).
    pub phone: bool,
    /// A date of birth's year (`[DATE_OF_BIRTH_1 1984]`).
    pub date_of_birth: bool,
}

impl RevealConfig {
    /// Every kind shows a part (tests).
    #[cfg(test)]
    pub(crate) fn all() -> RevealConfig {
        RevealConfig {
            email: true,
            credit_card: true,
            phone: true,
            date_of_birth: true,
        }
    }

    /// Whether any kind shows a part.
    pub fn any(&self) -> bool {
        self.email || self.credit_card || self.phone || self.date_of_birth
    }

    /// Whether `kind` shows a part of its values.
    pub fn reveals(&self, kind: &Kind) -> bool {
        match kind {
            Kind::Email => self.email,
            Kind::CreditCard => self.credit_card,
            Kind::Phone => self.phone,
            Kind::Id(IdKind::DateOfBirth) => self.date_of_birth,
            _ => false,
        }
    }

    /// The part of `value` (a `kind`; `e164` a phone's E.164 form) its token shows, if `kind`
    /// shows one and the value has one that the token grammar can carry.
    pub fn part(&self, kind: &Kind, value: &str, e164: Option<&str>) -> Option<String> {
        if !self.reveals(kind) {
            return None;
        }
        let part = match kind {
            Kind::Email => email_domain(value),
            Kind::CreditCard => card_brand_last_four(value),
            Kind::Phone => calling_code(e164?),
            Kind::Id(IdKind::DateOfBirth) => birth_year(value),
            _ => None,
        }?;
        crate::token::is_valid_reveal(&part).then_some(part)
    }
}

/// `@` and the domain, lower case.
fn email_domain(value: &str) -> Option<String> {
    let (_, domain) = value.trim().rsplit_once('@')?;
    (!domain.is_empty() && domain.contains('.')).then(|| format!("@{}", domain.to_lowercase()))
}

/// The brand (by IIN range) and the last four digits.
fn card_brand_last_four(value: &str) -> Option<String> {
    let digits: Vec<u8> = value
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|b| b - b'0')
        .collect();
    if digits.len() < 12 {
        return None;
    }
    let prefix = |n: usize| digits[..n].iter().fold(0u32, |a, &d| a * 10 + u32::from(d));
    let brand = match (prefix(1), prefix(2), prefix(3), prefix(4)) {
        (4, ..) => "visa",
        (_, 34 | 37, ..) => "amex",
        (_, 51..=55, ..) | (.., 2221..=2720) => "mastercard",
        (_, 65, ..) | (_, _, 644..=649, _) | (.., 6011) => "discover",
        (.., 3528..=3589) => "jcb",
        (_, 36 | 38 | 39, ..) | (_, _, 300..=305, _) => "diners",
        (_, 62, ..) => "unionpay",
        (_, 50 | 56..=58 | 63 | 67, ..) => "maestro",
        _ => return None,
    };
    let last: String = digits[digits.len() - 4..]
        .iter()
        .map(|&d| char::from(b'0' + d))
        .collect();
    Some(format!("{brand} {last}"))
}

/// `+` and the country calling code of an E.164 number.
fn calling_code(e164: &str) -> Option<String> {
    // From the recognizer's own metadata: the `phonenumber` crate's parser would compile
    // every region's patterns on first use.
    crate::detect::calling_code(e164).map(|code| format!("+{code}"))
}

/// The first four-digit year (1000-2999) standing alone in a date.
fn birth_year(value: &str) -> Option<String> {
    let b = value.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i - start == 4 && matches!(b[start], b'1' | b'2') {
            return Some(value[start..i].to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_by_kind() {
        let r = RevealConfig::all();
        let dob = Kind::Id(IdKind::DateOfBirth);
        assert_eq!(
            r.part(&Kind::Email, "Maria.Garcia@Example.COM", None)
                .as_deref(),
            Some("@example.com")
        );
        assert_eq!(
            r.part(&Kind::CreditCard, "4111 1111 1111 1111", None)
                .as_deref(),
            Some("visa 1111")
        );
        assert_eq!(
            r.part(&Kind::CreditCard, "5555-5555-5555-4444", None)
                .as_deref(),
            Some("mastercard 4444")
        );
        assert_eq!(
            r.part(&Kind::CreditCard, "378282246310005", None)
                .as_deref(),
            Some("amex 0005")
        );
        assert_eq!(
            r.part(&Kind::Phone, "020 7946 0958", Some("+442079460958"))
                .as_deref(),
            Some("+44")
        );
        assert_eq!(
            r.part(&Kind::Phone, "(415) 555-0132", Some("+14155550132"))
                .as_deref(),
            Some("+1")
        );
        assert_eq!(r.part(&dob, "1984-03-12", None).as_deref(), Some("1984"));
        assert_eq!(r.part(&dob, "12/03/1984", None).as_deref(), Some("1984"));
        assert_eq!(r.part(&dob, "12.3.84", None), None);
        assert_eq!(r.part(&Kind::Name, "Maria", None), None);
        assert_eq!(r.part(&Kind::Phone, "020 7946 0958", None), None);
        // A domain the grammar cannot carry: a bare token.
        assert_eq!(r.part(&Kind::Email, "a@bücher.de", None), None);
    }

    #[test]
    fn off_by_default() {
        let r = RevealConfig::default();
        assert!(!r.any());
        assert_eq!(r.part(&Kind::Email, "a@example.com", None), None);
    }
}
