//! Values in a machine format that holds nothing a recognizer takes.
//!
//! API records are full of identifiers and timestamps: a CRM contact, a ticket, a commit, a row
//! of a database each carry a UUID and a date-time or two. Under a key that vouches for no kind
//! of value (no hint, or one that the value names a thing, as `id` does; no SSN, credential,
//! identifier or keyed kind: [`KeyFacts::vouches_for_nothing`]), every recognizer reads such a
//! value and finds nothing in it, and reading it costs each of
//! them its per-call set-up: on the reference corpus's records, a `created_at` date-time cost
//! more than a phone number. So the detector asks one question first: is the whole value one
//! of these shapes? Then the recognizers have nothing to find there.
//!
//! - a UUID in its text form: 32 hex digits grouped 8-4-4-4-12 by `-`, any case, but one
//!   whose first two groups are all digits (`01088621-1751-…` reads as a phone number in some
//!   regions);
//! - a date in ISO 8601's extended form, `YYYY-MM-DD`, alone or followed by a time `HH:MM`,
//!   `HH:MM:SS` or `HH:MM:SS` with a fraction of 1 to 9 digits (after `.` or `,`), the time
//!   after `T`, `t` or one space, and then, after a time, an optional zone: `Z`, `z`, `+HH`,
//!   `+HHMM`, `+HH:MM` (or `-`); but not a fraction of eight digits with a `Z` after it
//!   (`,02693107Z` is a Spanish NIF's shape).
//!
//! Those two exceptions are what the tests below found the recognizers taking in these shapes:
//! values the detector tokenizes today, and this module does not change what it finds.
//!
//! The shapes are read as shapes: any digits stand where digits are (`9999-99-99` is one). That
//! nothing is found in them is a claim about the recognizers, not about dates: the tests run the
//! whole detector, in its default and in its widest configuration (every kind, every phone
//! region), with this shortcut off, over random values of every shape under such keys and no
//! key, and require that it finds nothing. A recognizer that one day takes something in these
//! shapes fails those tests. Custom kinds (a user's regex may well match a UUID) and deny-listed
//! names are the user's to match anywhere: a detector that has either never takes the shortcut
//! ([`Detector`](super::Detector) decides once, when it is built). Session recall is not a
//! recognizer: it still runs over such a value (a recalled name could be spelled in hex
//! letters, `Abbe`, and stand as a UUID group).
//!
//! [`KeyFacts::vouches_for_nothing`]: super::KeyFacts::vouches_for_nothing

/// Whether `b`, all of it, is a UUID or an ISO 8601 date or date-time (see the module doc).
#[inline]
pub(super) fn is_inert(b: &[u8]) -> bool {
    // A UUID is 36 bytes, a date or date-time 10 to 35 and opens with a digit: most strings
    // are turned away by their length or first byte.
    match b.len() {
        // A UUID whose first two groups are all digits reads as a phone number in some regions
        // (`01088621-1751`): not passed over.
        36 => is_uuid(b) && !b[..13].iter().all(|&c| c.is_ascii_digit() || c == b'-'),
        10..=35 => b[0].is_ascii_digit() && is_date_time(b),
        _ => false,
    }
}

/// Whether `b` is a UUID and nothing else: 32 hex digits grouped 8-4-4-4-12 by `-`.
pub(super) fn is_uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

/// Whether `b` is an ISO 8601 date or date-time and nothing else (see the module doc).
fn is_date_time(b: &[u8]) -> bool {
    let mut r = Reader { b, i: 0 };
    if !(r.digits(4) && r.byte(b'-') && r.digits(2) && r.byte(b'-') && r.digits(2)) {
        return false;
    }
    if r.done() {
        return true;
    }
    if !(r.one_of(b"Tt ") && r.digits(2) && r.byte(b':') && r.digits(2)) {
        return false;
    }
    if r.byte(b':') {
        if !r.digits(2) {
            return false;
        }
        if r.one_of(b".,") {
            match r.digit_run(1, 9) {
                0 => return false,
                // Eight digits and a letter are a Spanish NIF (`,02693107Z`).
                8 if matches!(r.b.get(r.i), Some(b'Z' | b'z')) => return false,
                _ => {}
            }
        }
    }
    if r.one_of(b"Zz") {
        return r.done();
    }
    if r.one_of(b"+-") {
        if !r.digits(2) {
            return false;
        }
        if r.byte(b':') {
            if !r.digits(2) {
                return false;
            }
        } else if !r.done() && !r.digits(2) {
            return false;
        }
    }
    r.done()
}

/// A cursor over the bytes of a value being matched against a shape.
struct Reader<'a> {
    b: &'a [u8],
    i: usize,
}

impl Reader<'_> {
    fn done(&self) -> bool {
        self.i == self.b.len()
    }

    /// Takes `c` if it is next.
    fn byte(&mut self, c: u8) -> bool {
        self.one_of(&[c])
    }

    /// Takes the next byte if it is one of `set`.
    fn one_of(&mut self, set: &[u8]) -> bool {
        let hit = self.b.get(self.i).is_some_and(|c| set.contains(c));
        self.i += usize::from(hit);
        hit
    }

    /// Takes exactly `n` ASCII digits.
    fn digits(&mut self, n: usize) -> bool {
        let ok = self
            .b
            .get(self.i..self.i + n)
            .is_some_and(|s| s.iter().all(u8::is_ascii_digit));
        if ok {
            self.i += n;
        }
        ok
    }

    /// Takes the run of ASCII digits that follows if it is `min` to `max` long; returns its
    /// length, or 0 (taking nothing) if it is not.
    fn digit_run(&mut self, min: usize, max: usize) -> usize {
        let n = self.b[self.i..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        if (min..=max).contains(&n) {
            self.i += n;
            n
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{DetectConfig, Detector, FindContext, IdsConfig, KeyFacts, prefilter};
    use crate::testdata::Rng;

    #[test]
    fn the_shapes() {
        for yes in [
            "d23f0824-128b-4f33-8c5c-7fd0a6a3a450",
            "D23F0824-128B-4F33-8C5C-7FD0A6A3A450",
            "1999-07-21",
            "1999-07-21T01:04",
            "1999-07-21T01:04:52",
            "1999-07-21T01:04:52.561913",
            "1999-07-21 01:04:52,5",
            "1999-07-21t01:04:52.123456789Z",
            "1999-07-21T01:04:52+02:00",
            "1999-07-21T01:04:52-0530",
            "1999-07-21T01:04+02",
            "9999-99-99",
        ] {
            assert!(is_inert(yes.as_bytes()), "{yes}");
        }
        for no in [
            "",
            "d23f0824-128b-4f33-8c5c-7fd0a6a3a45g",
            "d23f0824-128b-4f33-8c5c-7fd0a6a3a4500",
            "{d23f0824-128b-4f33-8c5c-7fd0a6a3a450}",
            "1999-07-2",
            "1999-07-21 ",
            " 1999-07-21",
            "1999-07-21T",
            "1999-07-21T01",
            "1999-07-21T01:04:52.",
            "1999-07-21T01:04:52.1234567890",
            "1999-07-21T01:04:52+2",
            "1999-07-21T01:04:52+02:0",
            "1999-07-21T01:04:52+020",
            "1999-07-21Z",
            "1999-07-21T01:04:52ZZ",
            "1999-07-21T01:04:52 UTC",
            "1999-07-21 John",
            "19990721",
            "21/07/1999",
            "+1-519-748-2199",
        ] {
            assert!(!is_inert(no.as_bytes()), "{no}");
        }
    }

    /// A value of one of the shapes, its digits and hex digits drawn at random (not only valid
    /// dates: the claim is about the shape).
    fn inert_value(rng: &mut Rng) -> String {
        let d = |rng: &mut Rng, n: usize| -> String {
            (0..n)
                .map(|_| char::from(b'0' + rng.below(10) as u8))
                .collect()
        };
        if rng.below(3) == 0 {
            let upper = rng.below(3) == 0;
            return [8, 4, 4, 4, 12]
                .map(|n| crate::testdata::hex(rng, n, upper))
                .join("-");
        }
        let mut s = format!("{}-{}-{}", d(rng, 4), d(rng, 2), d(rng, 2));
        if rng.below(5) == 0 {
            return s;
        }
        s.push(*rng.pick(&['T', 't', ' ']));
        s.push_str(&format!("{}:{}", d(rng, 2), d(rng, 2)));
        if rng.below(4) != 0 {
            s.push_str(&format!(":{}", d(rng, 2)));
            if rng.below(2) == 0 {
                s.push(*rng.pick(&['.', ',']));
                let n = 1 + rng.below(9);
                s.push_str(&d(rng, n));
            }
        }
        match rng.below(6) {
            0 => s.push('Z'),
            1 => s.push('z'),
            2 => s.push_str(&format!("{}{}", rng.pick(&["+", "-"]), d(rng, 2))),
            3 => s.push_str(&format!("{}{}", rng.pick(&["+", "-"]), d(rng, 4))),
            4 => s.push_str(&format!(
                "{}{}:{}",
                rng.pick(&["+", "-"]),
                d(rng, 2),
                d(rng, 2)
            )),
            _ => {}
        }
        s
    }

    /// Every configurable kind on, every phone region listed.
    fn widest() -> DetectConfig {
        DetectConfig {
            ids: IdsConfig::all_on(),
            reveal: crate::reveal::RevealConfig::all(),
            phone_regions: crate::detect::phone::every_region(),
            ..DetectConfig::default()
        }
    }

    /// Keys that vouch for no kind, and no key.
    const SILENT_KEYS: [Option<&str>; 9] = [
        None,
        Some("created_at"),
        Some("updatedAt"),
        Some("value"),
        Some("timestamp"),
        Some("x"),
        Some("id"),
        Some("uuid"),
        Some("company"),
    ];

    #[test]
    fn no_recognizer_finds_anything_in_an_inert_value() {
        for key in SILENT_KEYS {
            assert!(KeyFacts::of(key).vouches_for_nothing(), "{key:?}");
        }
        for (config, values) in [(DetectConfig::default(), 3000), (widest(), 1500)] {
            let mut detector = Detector::new(&config).expect("valid");
            assert!(detector.inert_values);
            // The recognizers themselves, not the shortcut.
            detector.inert_values = false;
            let mut rng = Rng::new(0x1e47);
            let mut out = Vec::new();
            let mut skipped = 0;
            for _ in 0..values {
                let value = inert_value(&mut rng);
                if !is_inert(value.as_bytes()) {
                    // One of the two exceptions of the module doc.
                    skipped += 1;
                    continue;
                }
                for key in SILENT_KEYS {
                    for parent_key in [None, Some("user"), Some("items")] {
                        let cx = FindContext {
                            key,
                            parent_key,
                            recall: None,
                        };
                        let classes = prefilter::classes(value.as_bytes());
                        detector.detect_unrecalled(
                            &value,
                            &cx,
                            classes,
                            &KeyFacts::of(key),
                            &mut out,
                        );
                        assert!(out.is_empty(), "{value} under {key:?}: {out:?}");
                    }
                }
            }
            // The exceptions are rare: nearly every value drawn is tested.
            assert!(skipped * 50 < values, "{skipped} of {values} skipped");
        }
    }

    /// Phone numbers are read with the configured regions' rules: each region alone, with the
    /// rest of the digit pass (cards, IBANs, SSNs, IP addresses).
    #[test]
    fn no_region_reads_a_phone_number_in_an_inert_value() {
        let mut rng = Rng::new(0x9e61);
        let values: Vec<String> = std::iter::repeat_with(|| inert_value(&mut rng))
            .filter(|v| is_inert(v.as_bytes()))
            .take(1000)
            .collect();
        let mut out = Vec::new();
        let regions = crate::detect::phone::every_region();
        assert!(regions.len() > 200);
        for region in regions {
            let phone = crate::detect::phone::PhoneRecognizer::new(std::slice::from_ref(&region))
                .expect("a region of the metadata");
            let digits = crate::detect::digits::DigitRuns::new(
                Some(phone),
                Some(crate::detect::checksum::NumberRecognizer::new(
                    true, true, true,
                )),
                Some(crate::detect::ip::IpRecognizer::new()),
            )
            .expect("recognizers given");
            for value in &values {
                out.clear();
                digits.find_keyed(value, false, false, &mut out);
                assert!(out.is_empty(), "{value} in {region}: {out:?}");
            }
        }
    }

    #[test]
    fn custom_kinds_and_denied_names_turn_the_shortcut_off() {
        let config = DetectConfig {
            custom: vec![crate::detect::CustomKind {
                kind: "ORDER_ID".to_string(),
                pattern: "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}".to_string(),
                validator: None,
                context: Vec::new(),
                json_keys: vec!["id".to_string()],
            }],
            ..DetectConfig::default()
        };
        let detector = Detector::new(&config).expect("valid");
        assert!(!detector.inert_values);
        let found = detector.detect(
            "d23f0824-128b-4f33-8c5c-7fd0a6a3a450",
            &FindContext {
                key: Some("id"),
                ..FindContext::default()
            },
        );
        assert_eq!(found.len(), 1);
        let config = DetectConfig {
            names_deny: vec!["Abbe".to_string()],
            ..DetectConfig::default()
        };
        assert!(!Detector::new(&config).expect("valid").inert_values);
    }
}
