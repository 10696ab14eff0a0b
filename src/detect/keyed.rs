//! Whole values under keys that name their kind: `{"ssn": "900-590-289"}`, `{"iban": ...}`.
//!
//! The free-text recognizers need the registry's rules to tell a card number or an IBAN from
//! any other digits: a known issuer prefix, the country's registered IBAN length, an SSN area
//! that was ever issued, a public IP address. Under a key that says what the value is, the key
//! is that evidence, and real payloads break the registry rules all the time (test data with
//! unassigned prefixes, an address from a reserved range, a 3-3-3 grouped SSN). So here a whole
//! value under such a key is taken when it has the kind's shape and passes the kind's checksum
//! where it has one (Luhn for cards, mod 97 for IBANs); registry rules are not asked.
//!
//! Only the whole (trimmed) value counts, so free text under the same key is left to the
//! recognizers.

use std::net::IpAddr;

use super::checksum::{folded_is_ssn, luhn_valid, mod97_valid};
use super::{Kind, Span};

/// Which kinds this looks for (the configuration's switches).
#[derive(Debug)]
pub(super) struct KeyedValues {
    pub(super) cards: bool,
    pub(super) iban: bool,
    pub(super) ssn: bool,
    pub(super) ip: bool,
}

impl KeyedValues {
    /// Appends a span over the whole trimmed `text` when the key's kind (`key_kind`, from
    /// [`kind_of_key`], worked out once per key) is switched on and the value has its shape.
    pub(super) fn find(&self, text: &str, key_kind: Option<KeyedKind>, out: &mut Vec<Span>) {
        let Some(kind) = key_kind.filter(|&k| self.is_on(k)) else {
            return;
        };
        let start = text.len() - text.trim_start().len();
        let value = text.trim();
        let (ok, kind) = match kind {
            KeyedKind::Ssn => (grouped_digits(value, 9..=9), Kind::UsSsn),
            KeyedKind::Card => (
                grouped_digits(value, 12..=19) && luhn_valid(value),
                Kind::CreditCard,
            ),
            KeyedKind::Iban => (iban_shaped(value) && mod97_valid(value), Kind::Iban),
            KeyedKind::Ip => (
                value
                    .parse::<IpAddr>()
                    .is_ok_and(|ip| !ip.is_loopback() && !ip.is_unspecified()),
                Kind::IpAddress,
            ),
        };
        if ok {
            out.push(Span::new(start, start + value.len(), kind));
        }
    }

    fn is_on(&self, kind: KeyedKind) -> bool {
        match kind {
            KeyedKind::Ssn => self.ssn,
            KeyedKind::Card => self.cards,
            KeyedKind::Iban => self.iban,
            KeyedKind::Ip => self.ip,
        }
    }
}

/// The kinds a key can vouch for (a `Copy` stand-in for their [`Kind`]s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum KeyedKind {
    Ssn,
    Card,
    Iban,
    Ip,
}

/// The kind a JSON key names, if it is one this module takes whole values for.
pub(super) fn kind_of_key(key: &str) -> Option<KeyedKind> {
    // Folded into a stack buffer. No key that names one of these kinds is longer.
    let mut buf = [0u8; 32];
    let mut n = 0;
    for b in key.bytes().filter(u8::is_ascii_alphanumeric) {
        *buf.get_mut(n)? = b.to_ascii_lowercase();
        n += 1;
    }
    let f = std::str::from_utf8(&buf[..n]).ok()?;
    if folded_is_ssn(f.as_bytes()) {
        Some(KeyedKind::Ssn)
    } else if f.ends_with("cardnumber")
        || f.ends_with("cardno")
        || f.ends_with("creditcard")
        || f.ends_with("debitcard")
        || matches!(
            f,
            "card" | "cardnum" | "paymentcard" | "cc" | "ccnumber" | "ccnum" | "pan"
        )
    {
        Some(KeyedKind::Card)
    } else if f.contains("iban") {
        Some(KeyedKind::Iban)
    } else if f == "ip"
        || f.ends_with("ipaddress")
        || f.ends_with("ipaddr")
        || matches!(
            f,
            "clientip"
                | "remoteip"
                | "remoteaddr"
                | "sourceip"
                | "srcip"
                | "userip"
                | "lastip"
                | "loginip"
                | "lastloginip"
                | "publicip"
        )
    {
        Some(KeyedKind::Ip)
    } else {
        None
    }
}

/// Digits in `count`, separated by single spaces or dashes, starting and ending with a digit.
fn grouped_digits(value: &str, count: std::ops::RangeInclusive<usize>) -> bool {
    let b = value.as_bytes();
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    count.contains(&digits)
        && b.first().is_some_and(u8::is_ascii_digit)
        && b.last().is_some_and(u8::is_ascii_digit)
        && b.iter()
            .all(|c| c.is_ascii_digit() || matches!(c, b' ' | b'-'))
        && !b
            .windows(2)
            .any(|w| !w[0].is_ascii_digit() && !w[1].is_ascii_digit())
}

/// Two letters, two check digits, then 11 to 30 letters and digits; spaces between groups.
fn iban_shaped(value: &str) -> bool {
    let compact: Vec<u8> = value.bytes().filter(|&c| c != b' ').collect();
    (15..=34).contains(&compact.len())
        && compact[..2].iter().all(u8::is_ascii_alphabetic)
        && compact[2..4].iter().all(u8::is_ascii_digit)
        && compact.iter().all(u8::is_ascii_alphanumeric)
        && !value.contains("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(key: &str, text: &str) -> Option<(String, Kind)> {
        let k = KeyedValues {
            cards: true,
            iban: true,
            ssn: true,
            ip: true,
        };
        let mut out = Vec::new();
        k.find(text, kind_of_key(key), &mut out);
        out.first()
            .map(|s| (text[s.start..s.end].to_string(), s.kind.clone()))
    }

    #[test]
    fn keys_vouch_for_values_the_registry_would_refuse() {
        // A 3-3-3 grouped number from an area never issued.
        assert_eq!(
            found("ssn", " 900-590-289 "),
            Some(("900-590-289".into(), Kind::UsSsn))
        );
        // Luhn-valid, no known issuer prefix.
        assert_eq!(
            found("cardNumber", "3598603288061479"),
            Some(("3598603288061479".into(), Kind::CreditCard))
        );
        // A bare `card` key, JCB 15 digits and Maestro 12 digits (found in a JSON export).
        for (key, value) in [
            ("card", "180016130724378"),
            ("card", "2131 4656 3414 832"),
            ("debit_card", "675911145349"),
            ("cc", "3508063608377833"),
        ] {
            assert_eq!(
                found(key, value).map(|f| f.1),
                Some(Kind::CreditCard),
                "{key}"
            );
        }
        // mod-97-valid, longer than Italy's registered length.
        assert_eq!(
            found("iban", "IT11QP2B5J81QM1FBX029VI5DD68O").map(|f| f.1),
            Some(Kind::Iban)
        );
        // A multicast address is still the value of an `ip` field.
        assert_eq!(
            found("ip", "224.126.22.183").map(|f| f.1),
            Some(Kind::IpAddress)
        );
    }

    #[test]
    fn shapes_and_checksums_still_count() {
        assert_eq!(found("ssn", "900-590-28"), None);
        assert_eq!(found("ssn", "call 900-590-289"), None);
        assert_eq!(found("cardNumber", "3598603288061478"), None, "Luhn fails");
        assert_eq!(
            found("iban", "IT11QP2B5J81QM1FBX029VI5DD68X"),
            None,
            "mod 97 fails"
        );
        assert_eq!(found("ip", "127.0.0.1"), None);
        assert_eq!(found("ip", "not an ip"), None);
        assert_eq!(found("zip", "92998-3874"), None);
        assert_eq!(found("ssn", "900--590-289"), None);
    }
}
