//! What a JSON key or CSV column name says about its values.
//!
//! Keys are compared after folding case and dropping `_`, `-`, `.` and spaces, so `full_name`,
//! `fullName`, `Full Name` and `FULL-NAME` are one key.

/// What a key says about the values under it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyHint {
    /// The value is a person's name. `strong` keys (`full_name`, `author`) name people outright;
    /// a bare `name` also names companies, products and tools, so it needs more evidence.
    PersonName {
        /// Whether the key alone is enough evidence.
        strong: bool,
    },
    /// The key holds an organisation, product, place or other non-person name: names in the
    /// value are not people (`company`, `product`, `city`).
    NotPerson,
    /// The key holds email addresses.
    Email,
    /// The key holds phone numbers.
    Phone,
}

const STRONG_NAME_KEYS: &[&str] = &[
    "fullname",
    "firstname",
    "lastname",
    "middlename",
    "maidenname",
    "givenname",
    "givennames",
    "familyname",
    "surname",
    "forename",
    "displayname",
    "author",
    "authorname",
    "assignee",
    "assigneename",
    "assignedto",
    "reporter",
    "contact",
    "contactname",
    "contactperson",
    "customername",
    "clientname",
    "patientname",
    "employeename",
    "managername",
    "ownername",
    "personname",
    "recipientname",
    "sendername",
    "fromname",
    "toname",
    "usernamefull",
    "cardholder",
    "cardholdername",
    "accountholder",
    "accountholdername",
    "fathername",
    "mothername",
    "spousename",
    "nextofkin",
    "emergencycontact",
    "signedby",
    "createdbyname",
    "requester",
    "requestername",
];

/// Keys that name a person or a thing, judged as a person's name only when the value reads
/// as one: `name`, and the common name of LDAP, X.500 and calendar entries
/// (`ATTENDEE;CN=Omar Haddad:mailto:..`, `CN=Build Server`).
const WEAK_NAME_KEYS: [&[u8]; 3] = [b"name", b"cn", b"commonname"];

const NOT_PERSON_KEYS: &[&str] = &[
    "company",
    "companyname",
    "organization",
    "organisation",
    "org",
    "orgname",
    "employer",
    "business",
    "businessname",
    "brand",
    "product",
    "productname",
    "title",
    "jobtitle",
    "department",
    "team",
    "city",
    "country",
    "state",
    "street",
    "address",
    "region",
    "university",
    "school",
    "bank",
    "bankname",
    "tool",
    "toolname",
    "method",
    "file",
    "filename",
    "path",
    "repo",
    "repository",
    "project",
    "category",
    "tags",
    "tag",
    "type",
    "status",
    "url",
    "uri",
    "id",
    "uuid",
    "mimetype",
    "catchphrase",
    "bs",
];

/// People-like containers: a bare `name` under these keys is a person's name.
pub(crate) const PEOPLE_CONTAINERS: &[&str] = &[
    "user",
    "users",
    "contact",
    "contacts",
    "customer",
    "customers",
    "client",
    "clients",
    "person",
    "people",
    "persons",
    "employee",
    "employees",
    "member",
    "members",
    "patient",
    "patients",
    "author",
    "authors",
    "owner",
    "assignee",
    "assignees",
    "reporter",
    "attendee",
    "attendees",
    "participant",
    "participants",
    "recipient",
    "recipients",
    "sender",
    "student",
    "students",
    "staff",
    "lead",
    "leads",
    "candidate",
    "candidates",
    "guest",
    "guests",
    "manager",
    "reviewer",
    "reviewers",
    "requester",
    "from",
    "to",
    "cc",
    "bcc",
];

/// Folds a key for comparison: ASCII lower case without `_ - . space`. Keys longer than 40
/// bytes are never hints.
pub(crate) fn fold_key(key: &str, buf: &mut [u8; 40]) -> Option<usize> {
    let mut n = 0;
    for &b in key.as_bytes() {
        if matches!(b, b'_' | b'-' | b'.' | b' ') {
            continue;
        }
        if n == buf.len() {
            return None;
        }
        buf[n] = b.to_ascii_lowercase();
        n += 1;
    }
    Some(n)
}

/// Which lists a folded key is on. Built once: a JSON document asks for the hint of every value's
/// key, so one hash lookup replaces ~140 string comparisons per value.
#[derive(Clone, Copy, Default)]
struct Listed {
    strong_name: bool,
    not_person: bool,
    people: bool,
}

/// FNV-1a: keys are short and the table is fixed, so SipHash's DoS resistance buys nothing
/// here and costs a third of the lookup.
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

type KeyTable = std::collections::HashMap<&'static str, Listed, std::hash::BuildHasherDefault<Fnv>>;

fn listed(folded: &str) -> Listed {
    static TABLE: std::sync::OnceLock<KeyTable> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = KeyTable::default();
        for k in STRONG_NAME_KEYS {
            t.entry(k).or_default().strong_name = true;
        }
        for k in NOT_PERSON_KEYS {
            t.entry(k).or_default().not_person = true;
        }
        for k in PEOPLE_CONTAINERS {
            t.entry(k).or_default().people = true;
        }
        t
    });
    table.get(folded).copied().unwrap_or_default()
}

/// Whether `key` names a person ([`key_hint`] is [`KeyHint::PersonName`]): the question asked
/// of each `key=value` pair of a log line that passes [`might_be_person_key`], so without
/// `key_hint`'s other tests.
pub(crate) fn is_person_key(key: &str) -> bool {
    let mut buf = [0u8; 40];
    let Some(n) = fold_key(key, &mut buf) else {
        return false;
    };
    let folded = &buf[..n];
    WEAK_NAME_KEYS.contains(&folded)
        || std::str::from_utf8(folded).is_ok_and(|k| listed(k).strong_name)
}

/// The last (up to) four letters of the key that ends `bytes`, folded (ASCII lower case,
/// `_ - .` skipped) into one number; the key starts after the last byte that is none of
/// those. `None` when `bytes` does not end in a letter or separator.
fn folded_tail(bytes: &[u8]) -> Option<u32> {
    // Most keys end in four letters: one load, no loop.
    if let Some(&[a, b, c, d]) = bytes.last_chunk::<4>()
        && [a, b, c, d].iter().all(u8::is_ascii_alphabetic)
    {
        return Some(u32::from_le_bytes([d, c, b, a]) | 0x2020_2020);
    }
    let mut tail = 0u32;
    let mut letters = 0;
    for &c in bytes.iter().rev() {
        if matches!(c, b'_' | b'-' | b'.') {
            continue;
        }
        if !c.is_ascii_alphabetic() {
            break;
        }
        tail |= u32::from(c.to_ascii_lowercase()) << (8 * letters);
        letters += 1;
        if letters == 4 {
            break;
        }
    }
    (letters > 0).then_some(tail)
}

/// Whether the key that ends `key` (a few bytes before a `=`) ends like a person key
/// ([`is_person_key`]): its last four letters (or all, if fewer) are those of one. A look at
/// a few bytes, for every `key=` of a log line; most keys (`status`, `latency_ms`, `route`)
/// end otherwise.
pub(crate) fn might_be_person_key(key: &[u8]) -> bool {
    static TAILS: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    let tails = TAILS.get_or_init(|| {
        let mut tails: Vec<u32> = STRONG_NAME_KEYS
            .iter()
            .map(|k| k.as_bytes())
            .chain(WEAK_NAME_KEYS)
            .filter_map(folded_tail)
            .collect();
        tails.sort_unstable();
        tails.dedup();
        tails
    });
    folded_tail(key).is_some_and(|t| tails.binary_search(&t).is_ok())
}

/// What `key` says about its values, if anything.
pub fn key_hint(key: &str) -> Option<KeyHint> {
    let mut buf = [0u8; 40];
    let n = fold_key(key, &mut buf)?;
    let folded = std::str::from_utf8(&buf[..n]).ok()?;
    if WEAK_NAME_KEYS.contains(&folded.as_bytes()) {
        return Some(KeyHint::PersonName { strong: false });
    }
    let on = listed(folded);
    if on.strong_name {
        return Some(KeyHint::PersonName { strong: true });
    }
    if on.not_person || folded.ends_with("company") {
        return Some(KeyHint::NotPerson);
    }
    if folded.contains("email") || folded == "mail" {
        return Some(KeyHint::Email);
    }
    if folded.contains("phone") || folded == "mobile" || folded == "tel" || folded == "fax" {
        return Some(KeyHint::Phone);
    }
    // `street_address`, `address_line_1`, `billing_city`, `hometown`: places.
    if folded.contains("address")
        || folded.contains("street")
        || folded.ends_with("city")
        || folded.ends_with("town")
        || folded.ends_with("country")
    {
        return Some(KeyHint::NotPerson);
    }
    None
}

/// Whether a container key holds people (so a bare `name` under it is a person's name).
pub(crate) fn is_people_container(key: &str) -> bool {
    let mut buf = [0u8; 40];
    let Some(n) = fold_key(key, &mut buf) else {
        return false;
    };
    std::str::from_utf8(&buf[..n]).is_ok_and(|k| listed(k).people)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_person_key_passes_the_tail_gate() {
        for k in STRONG_NAME_KEYS
            .iter()
            .chain(&["name", "first_name", "Assigned-To", "CN"])
        {
            assert!(might_be_person_key(k.as_bytes()), "{k}");
            assert!(might_be_person_key(format!("x;{k}").as_bytes()), "{k}");
        }
        for k in ["status", "latency_ms", "route", "id", "x;ROLE"] {
            assert!(!might_be_person_key(k.as_bytes()), "{k}");
        }
    }

    #[test]
    fn person_keys_are_key_hints_person_names() {
        let keys = STRONG_NAME_KEYS
            .iter()
            .chain(NOT_PERSON_KEYS)
            .chain(PEOPLE_CONTAINERS)
            .copied()
            .chain([
                "name",
                "Name",
                "first_name",
                "e-mail",
                "phone",
                "level",
                "x",
                "",
            ]);
        for k in keys {
            assert_eq!(
                is_person_key(k),
                matches!(key_hint(k), Some(KeyHint::PersonName { .. })),
                "{k}"
            );
        }
    }

    #[test]
    fn spellings_fold_together() {
        for k in [
            "full_name",
            "fullName",
            "Full Name",
            "FULL-NAME",
            "displayName",
            "author",
        ] {
            assert_eq!(
                key_hint(k),
                Some(KeyHint::PersonName { strong: true }),
                "{k}"
            );
        }
        assert_eq!(
            key_hint("name"),
            Some(KeyHint::PersonName { strong: false })
        );
        assert_eq!(key_hint("companyName"), Some(KeyHint::NotPerson));
        assert_eq!(key_hint("work_email"), Some(KeyHint::Email));
        assert_eq!(key_hint("phoneNumber"), Some(KeyHint::Phone));
        assert_eq!(key_hint("quantity"), None);
        for k in [
            "street_address",
            "addressLine1",
            "billing_city",
            "hometown",
            "home_country",
        ] {
            assert_eq!(key_hint(k), Some(KeyHint::NotPerson), "{k}");
        }
        assert_eq!(key_hint("email_address"), Some(KeyHint::Email));
        assert!(is_people_container("Contacts"));
        assert!(!is_people_container("company"));
    }
}
