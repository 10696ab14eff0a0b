//! The phone recognizer's tests: the digit scan against its reference, and numbers found,
//! confirmed and refused in context.

use super::*;

#[test]
fn next_digit_finds_the_first_digit_from_every_start() {
    // Every length up to 100 with one or two digits at every place (and none): the
    // eight-byte look, the 32-byte blocks, the eight-byte steps and the tail all decide.
    for len in 0..100usize {
        for first in 0..=len {
            for second in [None, Some(first + 1), Some(first + 9), Some(first + 40)] {
                let mut b = vec![b'x'; len];
                for at in [Some(first), second].into_iter().flatten() {
                    if at < len {
                        b[at] = b'0' + (at % 10) as u8;
                    }
                }
                for i in 0..=len {
                    assert_eq!(next_digit(&b, i), next_digit_reference(&b, i), "{len} {i}");
                }
            }
        }
    }
}

/// The separator run's two-byte shortcuts against the walk that defines it, at every offset
/// of texts dense in digits, separators and the lead bytes of the Unicode spaces.
#[test]
fn separator_runs_are_the_walk() {
    let mut rng = crate::testdata::Rng::new(61);
    let alphabet: &[&[u8]] = &[
        b"0",
        b"7",
        b" ",
        b"(",
        b")",
        b"-",
        b".",
        b"/",
        b"x",
        b",",
        b"\xc2\xa0",
        b"\xe2\x80\xaf",
        b"\xe2\x80\x89",
        b"\xc2",
        b"\xe2\x80",
        b"\xc3\xa9",
    ];
    for _ in 0..20_000 {
        let parts = rng.below(10);
        let b: Vec<u8> = (0..parts)
            .flat_map(|_| rng.pick(alphabet).iter().copied())
            .collect();
        for s in 0..=b.len() + 1 {
            assert_eq!(
                separator_run(&b, s),
                separator_run_walked(&b, s),
                "{b:?} at {s}"
            );
        }
    }
}

/// The cue prefilter against its definition: the first three bytes in a row with the trigram
/// of a cue's first three.
#[test]
fn the_first_cue_trigram_is_the_first_window_of_one() {
    let mut rng = crate::testdata::Rng::new(67);
    let alphabet = b"phonetlcaxPHOT =:_0\xc3\xa9";
    let starts: Vec<usize> = CUES
        .iter()
        .map(|w| {
            let w = w.as_bytes();
            trigram(w[0], w[1], w[2])
        })
        .collect();
    for _ in 0..20_000 {
        let len = rng.below(20);
        let w: Vec<u8> = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        let want = w
            .windows(3)
            .position(|t| starts.contains(&trigram(t[0], t[1], t[2])));
        assert_eq!(first_cue_trigram(&w), want, "{w:?}");
    }
}

/// A candidate's fields and its digits (not the bytes after them in its buffer).
fn candidate_parts(c: &Candidate) -> (usize, usize, usize, [u8; 12], [u8; 12], usize, &[u8]) {
    let digits = &c.digits[..c.ndigits.min(BUF)];
    (
        c.start, c.end, c.ndigits, c.groups, c.seps, c.ngroups, digits,
    )
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// The scan from every digit of strings dense in digit groups and separators (Unicode
    /// spaces, brackets, groups longer than a step of the copy, runs too long or with too
    /// many groups, texts ending inside a group) finds the candidate, its digits and the
    /// resume point the copying scan found.
    #[test]
    fn the_scan_finds_what_the_copying_scan_found(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                "[0-9]{1,20}",
                "[ ()./-]{1,3}",
                proptest::strategy::Strategy::prop_map(
                    proptest::sample::select(vec![
                        "\u{a0}", "\u{202f}", "\u{2009}", "\u{2007}", " - ", "x", "é", "a",
                    ]),
                    String::from,
                ),
            ],
            0..30,
        ),
    ) {
        let text = parts.concat();
        let b = text.as_bytes();
        for d in (0..b.len()).filter(|&d| b[d].is_ascii_digit()) {
            let (new, resume) = scan(b, d, DigitRun::at(b, d).end);
            let (old, old_resume) = scan_reference(b, d);
            proptest::prop_assert_eq!(resume, old_resume, "{:?} at {}", text, d);
            proptest::prop_assert_eq!(
                new.as_ref().map(candidate_parts),
                old.as_ref().map(candidate_parts),
                "{:?} at {}", text, d
            );
        }
    }
}

#[test]
fn e164_writes_what_format_writes() {
    for code in [0u16, 1, 7, 44, 358, 999, 1000, u16::MAX] {
        for rest in ["", "2071838750", "0"] {
            assert_eq!(*e164(Some(code), rest), format!("+{code}{rest}"));
        }
    }
    assert_eq!(&*e164(None, "442071838750"), "+442071838750");
    // Past the stack buffer: written all the same.
    let long = "1234567890".repeat(4);
    assert_eq!(*e164(Some(44), &long), format!("+44{long}"));
    assert_eq!(*e164(None, &long), format!("+{long}"));
}

fn rec() -> PhoneRecognizer {
    let regions: Vec<String> = ["US", "GB", "DE", "FR", "IN", "BR", "CA", "AU", "CN", "JP"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    PhoneRecognizer::new(&regions).unwrap()
}

fn find_with(r: &PhoneRecognizer, text: &str, key: Option<&str>) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let cx = FindContext {
        key,
        ..FindContext::default()
    };
    r.find(text, &cx, &mut out);
    out.iter()
        .map(|s| {
            (
                text[s.start..s.end].to_string(),
                s.canonical.as_deref().map(String::from),
            )
        })
        .collect()
}

fn found(r: &PhoneRecognizer, text: &str) -> Vec<String> {
    find_with(r, text, None).into_iter().map(|x| x.0).collect()
}

#[test]
fn international_forms() {
    let r = rec();
    let cases = [
        (
            "call +44 20 7946 0958 now",
            "+44 20 7946 0958",
            "+442079460958",
        ),
        ("+1-415-555-0100", "+1-415-555-0100", "+14155550100"),
        ("dial 00 49 30 1234567.", "00 49 30 1234567", "+49301234567"),
        ("+4930123456", "+4930123456", "+4930123456"),
        ("tel:+1-415-555-0100", "tel:+1-415-555-0100", "+14155550100"),
        (
            "+44 (0)20 7946 0958",
            "+44 (0)20 7946 0958",
            "+442079460958",
        ),
        ("+81 3-1234-5678", "+81 3-1234-5678", "+81312345678"),
        ("NC +687 20.12.34", "+687 20.12.34", "+687201234"),
    ];
    for (text, want, e164) in cases {
        assert_eq!(
            find_with(&r, text, None),
            vec![(want.to_string(), Some(e164.to_string()))],
            "{text}"
        );
    }
}

#[test]
fn national_forms_of_configured_regions() {
    let cases = [
        ("US", "(415) 555-0100", "+14155550100"),
        ("GB", "020 7946 0958", "+442079460958"),
        ("DE", "030 1234567", "+49301234567"),
        ("FR", "01 23 45 67 89", "+33123456789"),
        ("IN", "098765 43210", "+919876543210"),
        ("BR", "(11) 96123-4567", "+5511961234567"),
        ("AU", "(02) 1234 5678", "+61212345678"),
        ("JP", "03-1234-5678", "+81312345678"),
        ("CN", "010 1234 5678", "+861012345678"),
        ("CA", "(604) 555-0123", "+16045550123"),
    ];
    for (region, text, e164) in cases {
        let r = PhoneRecognizer::new(&[region.to_string()]).unwrap();
        let got = find_with(&r, text, None);
        assert_eq!(
            got,
            vec![(text.to_string(), Some(e164.to_string()))],
            "{region} {text}"
        );
    }
    // With all ten regions, each is still found (the canonical form may name another
    // region where the digits are valid too; see the next test).
    let all = rec();
    for (_, text, _) in cases {
        assert_eq!(found(&all, text), [text], "{text}");
    }
}

#[test]
fn ambiguous_national_numbers_follow_region_order() {
    // Valid in Germany and in India: the first configured region wins.
    let r = rec();
    assert_eq!(
        find_with(&r, "098765 43210", None)[0].1.as_deref(),
        Some("+499876543210")
    );
    let india = PhoneRecognizer::new(&["IN".to_string()]).unwrap();
    assert_eq!(
        find_with(&india, "098765 43210", None)[0].1.as_deref(),
        Some("+919876543210")
    );
}

#[test]
fn regions_of_one_calling_code_are_tried_together() {
    // Ontario's 807 is no US area code; with IN listed before CA the digits were India's.
    let r = rec();
    assert_eq!(
        find_with(&r, "Call (807) 594-5337 today", None)[0]
            .1
            .as_deref(),
        Some("+18075945337")
    );
    // A US number stays the US's, and the order across calling codes is kept.
    assert_eq!(
        find_with(&r, "(415) 555-0100", None)[0].1.as_deref(),
        Some("+14155550100")
    );
}

#[test]
fn one_number_two_formats_one_canonical() {
    let r = rec();
    let a = find_with(&r, "+1 415 555 0100", None);
    let b = find_with(&r, "(415) 555-0100", None);
    assert_eq!(a[0].1, b[0].1);
}

#[test]
fn extensions_and_cues() {
    let r = rec();
    assert_eq!(
        found(&r, "Desk: (415) 555-0100x123"),
        ["(415) 555-0100x123"]
    );
    assert_eq!(found(&r, "Phone: 4155550100"), ["4155550100"]);
    // Not valid in the metadata (area code 311), but called a phone.
    assert_eq!(found(&r, "Call me on (311) 905-4466."), ["(311) 905-4466"]);
    assert_eq!(found(&r, "4155550100"), Vec::<String>::new());
    assert_eq!(find_with(&r, "4155550100", Some("mobile_phone")).len(), 1);
}

#[test]
fn unicode_spaces_group_digits() {
    let r = rec();
    for sep in ["\u{a0}", "\u{202f}", "\u{2009}", "\u{2007}"] {
        let text = format!("Tel. +33{sep}1{sep}42{sep}68{sep}53{sep}00 bitte");
        let want = text["Tel. ".len()..text.len() - " bitte".len()].to_string();
        assert_eq!(found(&r, &text), [want], "{sep:?}");
        let text = format!("call (415){sep}555-0100");
        assert_eq!(found(&r, &text).len(), 1, "{sep:?}");
    }
    // Two spaces of any kind between groups are not one separator.
    assert!(found(&r, "+33 1\u{a0}\u{a0}\u{a0}\u{a0}42 68 53 00").len() <= 1);
}

#[test]
fn not_phones() {
    let r = rec();
    for text in [
        "on 2024-01-15 10:30:00 the job ran",
        "released 15.01.2024",
        "version 10.0.19041.1234",
        "price $1234567.89 or €4155550100",
        "Order #41555501 shipped",
        "Invoice 4155550100 paid",
        "host 192.168.100.200 up",
        "card 4111 1111 1111 1111",
        "id 550e8400-e29b-41d4-a716-446655440000",
        "ts=1700000000 ms=1700000000000",
        "hash 0x4155550100 deadbeef4155550100",
        "ISBN 978-0-306-40615-7",
        "at 12:30 and 10:45",
        "1,234,567 units",
        "short 112 and 911",
        "+1 555 01",
        "536-32-3065",
    ] {
        assert_eq!(found(&r, text), Vec::<String>::new(), "{text}");
    }
}

#[test]
fn unknown_region_is_an_error() {
    let err = PhoneRecognizer::new(&["XX".to_string()]).unwrap_err();
    assert!(matches!(err, DetectError::UnknownRegion(r) if r == "XX"));
    assert!(PhoneRecognizer::new(&["usa".to_string()]).is_err());
}

thread_local! {
    static ORACLE: std::cell::RefCell<std::collections::HashMap<&'static str, Regex>> =
        std::cell::RefCell::default();
}

/// What the metadata's regexes and lengths say, compiled here with the `regex` crate: the
/// oracle for the DFAs `build.rs` compiles.
fn valid_by_regex(v: &Validity, nsn: &str) -> bool {
    let len = nsn.len();
    len >= v.min_len
        && len <= v.max_len
        && v.entries.iter().any(|(_, meta)| {
            meta.types.iter().any(|t| {
                (t.lengths.is_empty() || t.lengths.contains(&(len as u16)))
                    && ORACLE.with_borrow_mut(|cache| {
                        cache
                            .entry(t.pattern)
                            .or_insert_with(|| {
                                regex::RegexBuilder::new(&patterns::anchored(t.pattern))
                                    .unicode(false)
                                    .size_limit(1 << 24)
                                    .build()
                                    .expect("metadata patterns compile")
                            })
                            .is_match(nsn)
                    })
            })
        })
}

/// The compiled automata say what the metadata's regexes and lengths say, for calling
/// codes whose types differ in length and for random and real numbers of every length
/// around theirs.
#[test]
fn validity_automata_agree_with_the_regexes() {
    let mut state = 0x853c_49e6_748f_ea9bu64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let (mut valid, mut invalid) = (0, 0);
    let mut check = |v: &Validity, nsn: &str| {
        let fast = v.valid(nsn);
        assert_eq!(fast, valid_by_regex(v, nsn), "{nsn}");
        if fast {
            valid += 1;
        } else {
            invalid += 1;
        }
    };
    let codes = [
        1u16, 7, 33, 39, 44, 49, 52, 55, 61, 62, 81, 86, 91, 352, 800, 882,
    ];
    for code in codes {
        let v = international(code).expect("known calling code");
        for len in v.min_len.saturating_sub(1)..=v.max_len + 1 {
            for _ in 0..300 {
                let nsn: String = (0..len)
                    .map(|_| char::from(b'0' + next(10) as u8))
                    .collect();
                check(v, &nsn);
            }
        }
    }
    let regions = ["US", "GB", "DE", "FR", "IN", "BR", "CA", "AU", "CN", "JP"];
    for id in regions {
        let region = Region::new(metadata::by_region(id).unwrap());
        for len in 5..=14 {
            for _ in 0..300 {
                let nsn: String = (0..len)
                    .map(|_| char::from(b'0' + next(10) as u8))
                    .collect();
                check(&region.validity, &nsn);
            }
        }
    }
    let mut rng = crate::testdata::Rng::new(5);
    let us = international(1).unwrap();
    let gb = international(44).unwrap();
    for _ in 0..500 {
        let phone = crate::testdata::phone(&mut rng);
        let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
        if phone.starts_with("+44") {
            check(gb, &digits[2..]);
        } else if !phone.starts_with('+') {
            check(us, &digits);
        }
    }
    assert!(valid > 1_000 && invalid > 1_000, "{valid} {invalid}");
}

/// `international` answers with the rules of the code asked, the first time (from the
/// metadata) and after (from its filled slot), whatever codes were asked before.
#[test]
fn international_rules_are_the_codes_own() {
    let codes = [1u16, 7, 43, 44, 48, 49, 86, 87];
    for _ in 0..2 {
        for code in codes {
            let v = international(code);
            assert_eq!(v.is_some(), !metadata::by_code(code).is_empty(), "{code}");
            let Some(v) = v else { continue };
            assert!(!v.entries.is_empty(), "{code}");
            assert!(v.entries.iter().all(|(_, m)| m.code == code), "{code}");
        }
    }
}

/// What lets `national_e164` ask the first region before its shape and pass over the others
/// whose shape the digits miss: every number a region's national rules take matches that
/// region's shape.
#[test]
fn national_numbers_match_their_region_shape() {
    let mut rng = crate::testdata::Rng::new(11);
    let mut taken = 0;
    for id in ["US", "GB", "DE", "FR", "IN", "BR", "CA", "AU", "CN", "JP"] {
        let region = Region::new(metadata::by_region(id).unwrap());
        let shape = region.shape.expect("every region has a shape");
        let meta = metadata::by_region(id).unwrap();
        let source = patterns::shape(
            patterns::prefix_source(meta.prefix_for_parsing, meta.national_prefix).as_deref(),
            meta.types.iter().map(|t| t.pattern),
            meta.transform.is_some(),
        );
        let oracle = regex::RegexBuilder::new(&source)
            .unicode(false)
            .size_limit(1 << 24)
            .build()
            .expect("the shape compiles");
        let mut texts: Vec<String> = (0..4000)
            .map(|i| {
                let len = 7 + i % 9;
                (0..len)
                    .map(|_| char::from(b'0' + rng.below(10) as u8))
                    .collect()
            })
            .collect();
        for _ in 0..300 {
            let phone = crate::testdata::phone(&mut rng);
            texts.push(phone.chars().filter(char::is_ascii_digit).collect());
        }
        for digits in &texts {
            assert_eq!(
                shape.is_match(digits),
                oracle.is_match(digits),
                "{id} {digits}"
            );
            if region.national(digits).is_some() {
                taken += 1;
                assert!(shape.is_match(digits), "{id} {digits}");
            }
        }
    }
    assert!(taken > 1_000, "{taken}");
}

#[test]
fn packed_cue_lists_find_what_the_lists_hold() {
    let mut rng = crate::testdata::Rng::new(3);
    let mut words: Vec<String> = CUES
        .iter()
        .chain(ANTI_CUES)
        .map(|w| w.to_string())
        .collect();
    for _ in 0..20_000 {
        let len = 1 + rng.below(12);
        words.push(
            (0..len)
                .map(|_| char::from(b"acdeilnoprstu"[rng.below(13)]))
                .collect(),
        );
    }
    for w in words
        .iter()
        .filter(|w| w.bytes().all(|b| b.is_ascii_lowercase()))
    {
        for (list, packed) in [(CUES, &CUES_PACKED[..]), (ANTI_CUES, &ANTI_CUES_PACKED[..])] {
            assert_eq!(
                is_listed(w.as_bytes(), pack(w.as_bytes()), list, packed),
                list.contains(&w.as_str()),
                "{w}"
            );
        }
    }
}

#[test]
fn next_digit_matches_naive() {
    let s = b"abc:;/ \xC3\xA9xyzABCDEFGH9 0";
    for i in 0..s.len() {
        assert_eq!(
            next_digit(s, i),
            (i..s.len()).find(|&j| s[j].is_ascii_digit())
        );
    }
}

/// Digit strings of every length a number has, random and from real numbers, with some
/// non-digit strings: what the automata are asked about, and more.
fn automaton_inputs(seed: u64) -> Vec<String> {
    let mut rng = crate::testdata::Rng::new(seed);
    let mut texts: Vec<String> = (0..600)
        .map(|i| {
            (0..i % 19)
                .map(|_| char::from(b'0' + rng.below(10) as u8))
                .collect()
        })
        .collect();
    for _ in 0..200 {
        let phone = crate::testdata::phone(&mut rng);
        let digits: String = phone.chars().filter(char::is_ascii_digit).collect();
        for cut in [0, 1, 2, 3] {
            texts.push(digits.get(cut..).unwrap_or("").to_string());
        }
        texts.push(phone);
    }
    texts.extend(["", "0", "1 2", "12a", "+44", "\u{a0}1"].map(String::from));
    texts
}

/// The digit table finds, pattern for pattern, what the sparse DFA it was written from finds,
/// for every automaton of the metadata (validity and shape) on digit strings and others (on
/// which both find nothing: the patterns match ASCII digits only).
#[test]
fn digit_tables_match_what_the_sparse_dfas_match() {
    let texts = automaton_inputs(29);
    let mut matched = 0;
    for entry in metadata::ENTRIES {
        for (dfa, table) in [
            (entry.validity_dfa, entry.validity_digits),
            (entry.shape_dfa, entry.shape_digits),
        ] {
            let Some(dfa) = metadata::sparse_dfa(dfa) else {
                assert!(Automaton::load(table).is_none(), "{}", entry.id);
                continue;
            };
            let a = Automaton::load(table).expect("a table for each automaton");
            for text in &texts {
                let (mut fast, mut slow) = (Vec::new(), Vec::new());
                let f = a.whole_matches(text, |p| {
                    fast.push(p);
                    false
                });
                let s = metadata::whole_matches_sparse(&dfa, text, |p| {
                    slow.push(p);
                    false
                });
                assert_eq!((f, &fast), (s, &slow), "{} {text:?}", entry.id);
                assert_eq!(a.is_match(text), !slow.is_empty(), "{} {text:?}", entry.id);
                matched += usize::from(!slow.is_empty());
            }
        }
    }
    assert!(matched > 5_000, "{matched}");
}

/// Passing over the regions whose shape the digits miss finds what asking every region after
/// the union of the shapes found, for every order of the regions tried.
#[test]
fn national_e164_finds_what_its_reference_finds() {
    let texts = automaton_inputs(31);
    let orders: [&[&str]; 4] = [
        &["US", "GB", "DE", "FR", "IN", "BR", "CA", "AU", "CN", "JP"],
        &["GB", "IN", "US", "JP"],
        &["DE", "CN", "AU", "BR", "FR"],
        &["JP"],
    ];
    let mut found = 0;
    for order in orders {
        let regions: Vec<String> = order.iter().map(|s| s.to_string()).collect();
        let r = PhoneRecognizer::new(&regions).unwrap();
        for text in &texts {
            let fast = r.national_e164(text);
            assert_eq!(fast, r.national_e164_reference(text), "{order:?} {text:?}");
            found += usize::from(fast.is_some());
        }
    }
    assert!(found > 300, "{found}");
}

/// The trigram test before the cue automaton changes nothing it finds, on windows dense in
/// cue words, their prefixes, cases and neighbours.
#[test]
fn cue_windows_are_found_as_the_automaton_alone_finds_them() {
    let r = rec();
    let pieces: &[&str] = &[
        "phone",
        "PHONE",
        "Tel",
        "tel",
        "te",
        "mob.",
        "mob",
        "CELL",
        "fax",
        "fa",
        "call",
        "dial",
        "reach",
        "contact",
        "whatsapp",
        "sms",
        "text me",
        "text",
        "ring",
        "desk",
        "office",
        "hotline",
        "answering",
        "landline",
        "handy",
        "t\u{e9}l\u{e9}phone",
        "tel\u{e9}fono",
        "telefon",
        "T\u{c9}L",
        "x",
        "1234567",
        " ",
        ":",
        "-",
        "=",
        "\u{e9}",
        "p",
        "h",
        "o",
        "n",
        "e",
        "c",
        "a",
        "l",
    ];
    let mut rng = crate::testdata::Rng::new(43);
    for _ in 0..20_000 {
        let mut text = String::new();
        for _ in 0..rng.below(16) {
            text.push_str(rng.pick::<&str>(pieces));
        }
        let mid = text.len();
        text.push_str("4155550100");
        let end = text.len();
        for _ in 0..rng.below(6) {
            text.push_str(rng.pick::<&str>(pieces));
        }
        assert_eq!(
            has_cue(&r.cues, &text, mid, end),
            has_cue_reference(&r.cues, &text, mid, end),
            "{text:?}"
        );
    }
    for text in [
        crate::testdata::clean_text(8, 64 * 1024).text,
        crate::testdata::prose(7, 64 * 1024).text,
    ] {
        let b = text.as_bytes();
        for start in (0..b.len())
            .filter(|&i| text.is_char_boundary(i))
            .step_by(7)
        {
            let end = (start..b.len())
                .find(|&i| text.is_char_boundary(i) && i >= start + 5)
                .unwrap_or(b.len());
            assert_eq!(
                has_cue(&r.cues, &text, start, end),
                has_cue_reference(&r.cues, &text, start, end),
                "{start}"
            );
        }
    }
}
