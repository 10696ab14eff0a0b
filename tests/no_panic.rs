//! The detector never panics, whatever the text: random strings over an alphabet rich in the
//! characters the recognizers care about (digits, separators, `@`, `:`, `+`, letters, non-ASCII).

use mcp_veil::detect::{Detector, FindContext};
use proptest::prelude::*;

fn alphabet() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "0", "1", "4", "9", "00", "+", "-", ".", " ", "(", ")", ":", "::", "@", "x", "ext", "tel:",
        "a", "Z", "GB", "é", "葉", "\u{a0}", "/", "#", "$", "=", "\n", "\"", "'", "ssn ", "phone ",
        "xn--", "_", "%", ",",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

fn detector() -> &'static Detector {
    static D: std::sync::OnceLock<Detector> = std::sync::OnceLock::new();
    D.get_or_init(Detector::with_defaults)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn detect_never_panics(text in alphabet()) {
        let spans = detector().detect(&text, &FindContext::with_key("phone"));
        for s in &spans {
            prop_assert!(s.start < s.end && s.end <= text.len());
            prop_assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
        }
    }
}
