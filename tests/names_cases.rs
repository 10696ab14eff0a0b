//! Hard cases for the free-text name finder, as data: `tests/data/names_cases.jsonl` holds one
//! case a line, `{"note", "text", "names": [...]}`, where `names` lists every NAME span the
//! default detector must produce, in order, as the exact text of each span (so both missed and
//! extra names fail). Cases cover full names, particles, titles, initials, inverted names,
//! single names with cues, lower-case and ALL-CAPS fields, non-Latin scripts, and the non-names
//! (months, common words, companies, places, code) that must be left alone.

use mcp_veil::detect::{Detector, FindContext, Kind};
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    note: String,
    text: String,
    names: Vec<String>,
}

#[test]
fn name_cases() {
    let data = include_str!("data/names_cases.jsonl");
    let detector = Detector::with_defaults();
    let mut failures = Vec::new();
    let mut count = 0;
    for line in data.lines().filter(|l| !l.trim().is_empty()) {
        let case: Case = serde_json::from_str(line).expect("valid case line");
        count += 1;
        let spans = detector.detect(&case.text, &FindContext::default());
        let got: Vec<&str> = spans
            .iter()
            .filter(|s| s.kind == Kind::Name)
            .map(|s| &case.text[s.start..s.end])
            .collect();
        if got != case.names {
            failures.push(format!(
                "{}: {:?}\n    expected {:?}\n    got      {:?}",
                case.note, case.text, case.names, got
            ));
        }
    }
    assert!(count >= 50, "only {count} cases read");
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn byte_offsets_in_multibyte_text() {
    let detector = Detector::with_defaults();
    let text = "Café notes — thanks, Zoë Ångström!";
    let spans = detector.detect(text, &FindContext::default());
    let names: Vec<_> = spans.iter().filter(|s| s.kind == Kind::Name).collect();
    assert_eq!(names.len(), 1);
    let s = names[0];
    assert_eq!(&text[s.start..s.end], "Zoë Ångström");
    assert_eq!(s.start, text.find("Zoë").unwrap());
}

/// The NAME spans `detector` finds in `text` under `cx`, as text.
fn names_in<'t>(detector: &Detector, text: &'t str, cx: &FindContext<'_>) -> Vec<&'t str> {
    detector
        .detect(text, cx)
        .iter()
        .filter(|s| s.kind == Kind::Name)
        .map(|s| &text[s.start..s.end])
        .collect()
}

#[test]
fn allow_and_deny_lists() {
    use mcp_veil::detect::DetectConfig;
    let config = DetectConfig {
        names_allow: vec!["Claude".into(), "Maria Ortiz".into()],
        names_deny: vec!["Zorblax".into()],
        ..DetectConfig::default()
    };
    let detector = Detector::new(&config).unwrap();
    let text = "Claude and maria ortiz met Zorblax and Kevin Small; zorblax2 is an id.";
    let got = names_in(&detector, text, &FindContext::default());
    assert_eq!(got, vec!["Zorblax", "Kevin Small"]);
}

#[test]
fn names_in_json_string_values() {
    let detector = Detector::with_defaults();
    // A value under an unknown key: judged as a field (lower case and capitals count).
    let spans = detector.detect("jane doe", &FindContext::with_key("note"));
    assert_eq!(spans.len(), 1);
    // Under an organisation key: never a person.
    let spans = detector.detect("Johnson Smith", &FindContext::with_key("company"));
    assert!(spans.is_empty());
    // A few words on one line are still one field: a list of names in lower case.
    let text = "maria ortiz, john smith, wei chen";
    let got = names_in(&detector, text, &FindContext::with_key("attendees"));
    assert_eq!(got, vec!["maria ortiz", "john smith", "wei chen"]);
    // A sentence of a few words under a key is read as a sentence; in lower case it stays a
    // field, where lower-case names count.
    for (key, text, names) in [
        (
            "comment",
            "The ticket is assigned to Nguyen today",
            vec!["Nguyen"],
        ),
        (
            "note",
            "spoke with jane doe about the renewal",
            vec!["jane doe"],
        ),
        (
            "summary",
            "Meeting with Omar Haddad and Li Wei on pricing",
            vec!["Omar Haddad", "Li Wei"],
        ),
        ("title", "Grant access to the May report", vec![]),
    ] {
        let got = names_in(&detector, text, &FindContext::with_key(key));
        assert_eq!(got, names, "{key}: {text}");
    }
    // Free text under a key (a comment, a message body) is read as the same text anywhere.
    let text = "Assigned to Nguyen; cc: Patel. The deploy runs on Monday.";
    for cx in [FindContext::default(), FindContext::with_key("comment")] {
        let got = names_in(&detector, text, &cx);
        assert_eq!(got, vec!["Nguyen", "Patel"], "{:?}", cx.key);
    }
}

#[test]
fn clean_code_and_logs_have_no_names() {
    let detector = Detector::with_defaults();
    let text = "2026-01-13T19:43:41.989Z ERROR cpu::super: copy request heap section \
                request_id=bbc37d91 retry=3\npub fn string(link: &Inode) -> Result<Batch, Error> {\n    \
                Ok(Capacity::new(trace))\n}\n";
    let spans = detector.detect(text, &FindContext::default());
    assert!(spans.iter().all(|s| s.kind != Kind::Name), "{spans:?}");
}

mod never_panics {
    use mcp_veil::detect::{Detector, FindContext, Kind};
    use proptest::prelude::*;

    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("Maria ".to_string()),
            Just("O'Neil".to_string()),
            Just("Dr. ".to_string()),
            Just("J. ".to_string()),
            Just(" van der ".to_string()),
            Just(", ".to_string()),
            Just(" and ".to_string()),
            Just("’s ".to_string()),
            Just("李伟".to_string()),
            Just("김민준씨".to_string()),
            Just("محمد ".to_string()),
            Just("Иван ".to_string()),
            Just("\n>".to_string()),
            Just(" -- ".to_string()),
            Just("a@b.io ".to_string()),
            Just("12 ".to_string()),
            Just("é".to_string()),
            Just(" . ".to_string()),
            "\\PC{0,6}",
        ]
    }

    proptest! {
        #[test]
        fn spans_are_valid(parts in proptest::collection::vec(fragment(), 0..12)) {
            let text: String = parts.concat();
            let detector = Detector::with_defaults();
            for cx in [FindContext::default(), FindContext::with_key("note")] {
                let spans = detector.detect(&text, &cx);
                let mut last_end = 0;
                for s in spans.iter().filter(|s| s.kind == Kind::Name) {
                    prop_assert!(s.start < s.end && s.end <= text.len());
                    prop_assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
                    prop_assert!(s.start >= last_end);
                    last_end = s.end;
                }
            }
        }
    }
}

#[test]
fn labelled_values_are_judged_as_their_keys() {
    let detector = Detector::with_defaults();
    // A label that says nothing of people before a short value: judged as that JSON key's
    // value would be, so a surname-first name in capitals is found as it is in a field.
    let text = "Order 1182\nCustomer: WANG FANG\nStatus: OPEN\n";
    let got = names_in(&detector, text, &FindContext::default());
    assert_eq!(got, vec!["WANG FANG"]);
    for text in [
        "Subject: GRANT PROPOSAL FOR MAY",
        "Team: Customer Success",
        "Company: Johnson & Johnson",
        "Location: Paris, France",
    ] {
        let got = names_in(&detector, text, &FindContext::default());
        assert!(got.is_empty(), "{text}: {got:?}");
    }
}
