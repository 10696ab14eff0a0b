//! The digit-run recognizers as one group: phone numbers, checksummed numbers and IP addresses
//! share a single pass over the digits of a string.
//!
//! Each of the three looks only at digit positions (and IPv6 also at `:`), so running them one
//! after the other skipped over the same non-digit text three times, and in code and logs that
//! skip is most of their cost. Here one skip finds each digit once and hands it to every member
//! whose own scan would stop there: each member keeps its resume point and is asked exactly at
//! the positions its standalone [`Recognizer::find`] loop would visit (the first digit at or
//! after its resume point), so the group finds exactly what the members find one by one.
//!
//! The skip reads the digits 64 bytes at a time and keeps that mask from one stop to the next
//! ([`Digits`]): most stops are a few bytes apart (the runs of a date, a UUID, a log line's
//! fields), and the eight-byte skip the members use alone ([`next_digit`](super::phone::next_digit)) read the bytes after
//! each stop again. The same mask gives where each run ends.
//!
//! Each stop works out the run of digits there once ([`DigitRun`]: where it ends, whether a
//! word glues it) for every member asked, and each member settles most runs from that alone
//! (too short for a phone with no group after it, no octet followed by `.`, no card, IBAN or
//! SSN shape) before its own scan.

use super::checksum::NumberRecognizer;
use super::ip::IpRecognizer;
use std::ops::Range;

use super::phone::{
    DigitRun, MIN_CONTEXT_DIGITS, PhoneRecognizer, is_word, may_separate, separates_group,
};
use super::seps::{Scanned, Seps};
use super::{FindContext, Recognizer, Span, lanes, prefilter};

/// Phone, number and IP recognizers (each optional) run in one pass over the digits.
#[derive(Debug)]
pub(super) struct DigitRuns {
    phone: Option<PhoneRecognizer>,
    numbers: Option<NumberRecognizer>,
    ip: Option<IpRecognizer>,
}

impl DigitRuns {
    pub(super) fn new(
        phone: Option<PhoneRecognizer>,
        numbers: Option<NumberRecognizer>,
        ip: Option<IpRecognizer>,
    ) -> Option<Self> {
        (phone.is_some() || numbers.is_some() || ip.is_some()).then_some(DigitRuns {
            phone,
            numbers,
            ip,
        })
    }
}

impl DigitRuns {
    /// The bytes that can start a candidate: a digit, and `:` when IPv6 is on.
    pub(super) fn triggers(&self) -> u8 {
        if self.ip.is_some() {
            prefilter::DIGIT | prefilter::COLON
        } else {
            prefilter::DIGIT
        }
    }

    /// [`Recognizer::find`] with what the context's key says worked out by the caller: whether
    /// the key names phone numbers (`keyed`) and SSNs (`ssn_key`).
    pub(super) fn find_keyed(&self, text: &str, keyed: bool, ssn_key: bool, out: &mut Vec<Span>) {
        self.find_keyed_in(text, Scanned::new(text), keyed, ssn_key, out);
    }

    /// [`DigitRuns::find_keyed`] with the separators of `text` (`seps.rs`) shared with the
    /// other passes over them.
    pub(super) fn find_keyed_in(
        &self,
        text: &str,
        seps: impl Seps,
        keyed: bool,
        ssn_key: bool,
        out: &mut Vec<Span>,
    ) {
        debug_assert!(seps.is_of(text));
        let b = text.as_bytes();
        let v6 = match &self.ip {
            Some(ip) => ip.find_v6_at(b, seps.of(b':'), out),
            None => out.len()..out.len(),
        };
        // A text shorter than a block (most JSON values) is read as the members read it alone,
        // eight bytes at a time: copying it into a zero-padded block would cost more than its
        // few stops.
        if b.len() < 64 {
            self.runs(text, Short(b), &v6, keyed, ssn_key, out);
        } else {
            self.runs(text, Digits::new(b), &v6, keyed, ssn_key, out);
        }
    }

    /// The pass over the digit runs of `text`, found by `stops`, after the IPv6 pass (whose
    /// spans are `out[v6]`).
    #[inline(always)]
    fn runs(
        &self,
        text: &str,
        mut stops: impl Stops,
        v6: &Range<usize>,
        keyed: bool,
        ssn_key: bool,
        out: &mut Vec<Span>,
    ) {
        let b = text.as_bytes();
        let Some(mut d) = stops.next(0) else {
            return;
        };
        // Where each member resumes; a member that is off never asks again.
        let (mut p, mut n, mut v) = (usize::MAX, usize::MAX, usize::MAX);
        if self.phone.is_some() {
            p = 0;
        }
        if self.numbers.is_some() {
            n = 0;
        }
        if self.ip.is_some() {
            v = 0;
        }
        loop {
            let run = DigitRun::ending(b, d, stops.run_end(d));
            if let Some(to) = self.settled(b, &run, p <= d) {
                // What each member asked here would return (see `settled`).
                if p <= d {
                    p = to;
                }
                if n <= d {
                    n = to;
                }
                if v <= d {
                    v = to;
                }
            } else {
                if p <= d
                    && let Some(phone) = &self.phone
                {
                    p = phone.step(text, &run, keyed, out);
                }
                if n <= d
                    && let Some(numbers) = &self.numbers
                {
                    n = numbers.step(text, &run, ssn_key, out);
                }
                if v <= d
                    && let Some(ip) = &self.ip
                {
                    v = ip.step(text, &run, v6, out);
                }
            }
            // Every member asked here moved past `d`, so the pass always advances.
            match stops.next(p.min(n).min(v)) {
                Some(next) => d = next,
                None => return,
            }
        }
    }
}

/// Where the digit-run pass stops: the digits of a text, and the runs they start.
trait Stops {
    /// The first digit at or after `i` ([`next_digit`](super::phone::next_digit)).
    fn next(&mut self, i: usize) -> Option<usize>;

    /// One past the last digit of the run at `d`, the digit [`Stops::next`] just gave.
    fn run_end(&mut self, d: usize) -> usize;
}

/// The stops of a text shorter than a block, found eight bytes at a time as the members find
/// them alone.
struct Short<'a>(&'a [u8]);

impl Stops for Short<'_> {
    #[inline(always)]
    fn next(&mut self, i: usize) -> Option<usize> {
        super::phone::next_digit(self.0, i)
    }

    #[inline(always)]
    fn run_end(&mut self, d: usize) -> usize {
        DigitRun::at(self.0, d).end
    }
}

/// The ASCII digits of a text of 64 bytes or more, 64 at a time ([`lanes::digits64`]): the
/// mask of the block last read is kept, so the stops inside one block (most are a few bytes
/// apart) cost a shift and a bit count each, and the end of a run is the first byte after it
/// that the mask says is no digit. Every block read lies inside the text (the last starts 64
/// bytes before its end, however far back that reaches), so none is copied to be padded.
struct Digits<'a> {
    b: &'a [u8],
    /// Bit `k`: byte `base + k` is a digit.
    mask: u64,
    base: usize,
}

impl<'a> Digits<'a> {
    /// `b` is 64 bytes long or more.
    fn new(b: &'a [u8]) -> Digits<'a> {
        debug_assert!(b.len() >= 64);
        Digits {
            b,
            mask: lanes::digits64(b, 0),
            base: 0,
        }
    }
}

impl Stops for Digits<'_> {
    /// A block starts where it is first needed (or 64 bytes before the end), so a stop after
    /// a long stretch without digits is found in one read.
    #[inline(always)]
    fn next(&mut self, mut i: usize) -> Option<usize> {
        loop {
            // `i` before the block (a member may resume anywhere) or past it: read from `i`.
            if i.wrapping_sub(self.base) >= 64 {
                if i >= self.b.len() {
                    return None;
                }
                self.base = i.min(self.b.len() - 64);
                self.mask = lanes::digits64(self.b, self.base);
            }
            let m = self.mask & (u64::MAX << (i - self.base));
            if m != 0 {
                return Some(self.base + m.trailing_zeros() as usize);
            }
            i = self.base + 64;
        }
    }

    /// The first clear bit after `d` (in the block, as [`Stops::next`] just gave it), in the
    /// blocks after this one while the run fills them to the end.
    #[inline(always)]
    fn run_end(&mut self, d: usize) -> usize {
        let b = self.b;
        debug_assert!(
            d >= self.base && d - self.base < 64 && self.mask >> (d - self.base) & 1 == 1
        );
        let mut k = d - self.base;
        loop {
            // The bits shifted in from the top are set once inverted: at most `64 - k`.
            let n = (!(self.mask >> k)).trailing_zeros() as usize;
            let end = self.base + k + n;
            if k + n < 64 || end >= b.len() {
                return end;
            }
            // The run fills the block to its end: read on from there (`k` is below 64, as
            // `end` is before the end of the text).
            self.base = end.min(b.len() - 64);
            self.mask = lanes::digits64(b, self.base);
            k = end - self.base;
        }
    }
}

impl DigitRuns {
    /// Where every member resumes after `run` when that is the same for all of them and
    /// settled by the run's ends alone, with nothing found: most runs in ids, hashes, dates,
    /// code and prose. `None` sends the run to the members' own steps.
    ///
    /// - A run glued to a word byte before it (`d23f0824`, `v2`, `user_42`): the phone and IP
    ///   steps skip the token ([`DigitRun::glued_end`]); the number step does too unless an
    ///   IBAN may start there ([`NumberRecognizer::iban_may_start`]: its country code is the
    ///   two letters right before and stands alone), since a glued run starts no card or SSN.
    /// - A run of fewer than [`MIN_CONTEXT_DIGITS`] with an ASCII byte (or nothing) before it
    ///   and after it a byte no phone separator run starts with ([`may_separate`]), or one that
    ///   leads to no group (below): the phone
    ///   step's shortcut ends it (too short, no group after); the number step sees no letter
    ///   before (no IBAN), fewer than 9 digits and no ` ` or `-` after (no card, no SSN); the IP
    ///   step sees no `.` after. Each returns the run's end. When a letter or `_` follows (the
    ///   `128b` of a UUID), each later digit of that word is glued, with a digit three bytes or
    ///   less before it or a word byte before its two letters (no IBAN): every member asked
    ///   there skips to the word's end, and a member asked here would be asked there next, so
    ///   it resumes at the word's end at once. With no digit left in the word, the two resume
    ///   points have no digit between them and lead the pass to the same next stop.
    #[inline(always)]
    fn settled(&self, b: &[u8], run: &DigitRun, phone_asked: bool) -> Option<usize> {
        if run.is_glued() {
            if self
                .numbers
                .as_ref()
                .is_some_and(|numbers| numbers.iban_may_start(b, run))
            {
                return None;
            }
            return Some(run.token_end(b));
        }
        let d = run.start;
        let ascii_before = d == 0 || b[d - 1] < 0x80;
        if !ascii_before || run.len() >= MIN_CONTEXT_DIGITS {
            return None;
        }
        match b.get(run.end) {
            None => Some(run.end),
            // A `.` may start an IPv4 address; a group of three or four before ` ` or `-` an
            // SSN or a card; a group after the separators a phone number (asked only when the
            // phone step is). Otherwise (`4 people`, `646 - `, `12/`, the `07` of a date the
            // phone step has passed) each member asked returns the run's end as above.
            Some(&x) if may_separate(x) => {
                let grouped = matches!(x, b' ' | b'-') && matches!(run.len(), 3 | 4);
                let settled =
                    x != b'.' && !grouped && !(phone_asked && separates_group(b, run.end));
                settled.then_some(run.end)
            }
            // A letter or `_` (the run ends at a non-digit).
            Some(&x) if is_word(x) => Some(run.token_end(b)),
            Some(_) => Some(run.end),
        }
    }
}

impl DigitRuns {
    /// [`DigitRuns::find_keyed`] as it was before [`DigitRun`], with the members' steps as
    /// they were: the test oracle for the shared run and the members' shortcuts.
    #[cfg(test)]
    fn find_keyed_reference(&self, text: &str, keyed: bool, ssn_key: bool, out: &mut Vec<Span>) {
        let b = text.as_bytes();
        let v6 = match &self.ip {
            Some(ip) => ip.find_v6(b, out),
            None => out.len()..out.len(),
        };
        let Some(mut d) = super::phone::next_digit(b, 0) else {
            return;
        };
        let (mut p, mut n, mut v) = (usize::MAX, usize::MAX, usize::MAX);
        if self.phone.is_some() {
            p = 0;
        }
        if self.numbers.is_some() {
            n = 0;
        }
        if self.ip.is_some() {
            v = 0;
        }
        loop {
            if p <= d
                && let Some(phone) = &self.phone
            {
                p = phone.step_reference(text, d, keyed, out);
            }
            if n <= d
                && let Some(numbers) = &self.numbers
            {
                n = numbers.step_reference(text, d, ssn_key, out);
            }
            if v <= d
                && let Some(ip) = &self.ip
            {
                v = ip.step_reference(text, d, &v6, out);
            }
            match super::phone::next_digit(b, p.min(n).min(v)) {
                Some(next) => d = next,
                None => return,
            }
        }
    }
}

impl Recognizer for DigitRuns {
    fn find(&self, text: &str, cx: &FindContext<'_>, out: &mut Vec<Span>) {
        let keyed = PhoneRecognizer::keyed(cx);
        let ssn_key = NumberRecognizer::ssn_keyed(cx);
        self.find_keyed(text, keyed, ssn_key, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::overlap;
    use proptest::strategy::Strategy;

    fn separately(text: &str, cx: &FindContext<'_>) -> Vec<Span> {
        let regions = ["US".to_string(), "GB".to_string(), "DE".to_string()];
        let mut out = Vec::new();
        PhoneRecognizer::new(&regions)
            .unwrap()
            .find(text, cx, &mut out);
        NumberRecognizer::new(true, true, true).find(text, cx, &mut out);
        IpRecognizer::new().find(text, cx, &mut out);
        overlap::resolve(&mut out);
        out
    }

    fn grouped(text: &str, cx: &FindContext<'_>) -> Vec<Span> {
        let regions = ["US".to_string(), "GB".to_string(), "DE".to_string()];
        let group = DigitRuns::new(
            Some(PhoneRecognizer::new(&regions).unwrap()),
            Some(NumberRecognizer::new(true, true, true)),
            Some(IpRecognizer::new()),
        )
        .unwrap();
        let mut out = Vec::new();
        group.find(text, cx, &mut out);
        overlap::resolve(&mut out);
        out
    }

    /// The group with the default phone regions, built once for all cases.
    fn default_group() -> &'static DigitRuns {
        static GROUP: std::sync::LazyLock<DigitRuns> = std::sync::LazyLock::new(|| {
            let regions =
                ["US", "GB", "DE", "FR", "IN", "BR", "CA", "AU", "CN", "JP"].map(String::from);
            DigitRuns::new(
                Some(PhoneRecognizer::new(&regions).unwrap()),
                Some(NumberRecognizer::new(true, true, true)),
                Some(IpRecognizer::new()),
            )
            .unwrap()
        });
        &GROUP
    }

    /// The spans of `find_keyed` and of its reference, unresolved (order and duplicates too).
    fn both(group: &DigitRuns, text: &str, keyed: bool, ssn: bool) -> (Vec<Span>, Vec<Span>) {
        let (mut new, mut old) = (Vec::new(), Vec::new());
        group.find_keyed(text, keyed, ssn, &mut new);
        group.find_keyed_reference(text, keyed, ssn, &mut old);
        (new, old)
    }

    #[test]
    fn shared_runs_find_what_the_reference_finds_on_generated_text() {
        let group = default_group();
        let texts = [
            crate::testdata::prose(7, 256 * 1024).text,
            crate::testdata::clean_text(8, 256 * 1024).text,
            crate::testdata::name_dense_lines(128 * 1024).concat(),
            crate::testdata::crm_json(9, 128 * 1024).text,
        ];
        for text in &texts {
            for line in text.split_inclusive('\n') {
                for (keyed, ssn) in [(false, false), (true, true)] {
                    let (new, old) = both(group, line, keyed, ssn);
                    assert_eq!(new, old, "{line:?}");
                }
            }
        }
    }

    /// One value shaped like what JSON fields and logs hold: UUIDs, timestamps, phone numbers
    /// in many formats, IPs, cards, IBANs, SSNs, hex hashes, versions, code and prose bits.
    fn shaped_value(rng: &mut crate::testdata::Rng) -> String {
        let digits = |rng: &mut crate::testdata::Rng, n: usize| -> String {
            (0..n)
                .map(|_| char::from(b'0' + rng.below(10) as u8))
                .collect()
        };
        let hex = crate::testdata::hex;
        match rng.below(16) {
            0 => crate::testdata::uuid(rng),
            1 => crate::testdata::iso_timestamp(rng),
            2 => crate::testdata::phone(rng),
            3 => {
                // A phone number in a random format.
                let d = {
                    let n = 7 + rng.below(9);
                    digits(rng, n)
                };
                let mut out =
                    String::from(*rng.pick(&["", "+", "+1 ", "00", "(", "tel:+", "call "]));
                for (i, c) in d.chars().enumerate() {
                    if i > 0 && rng.below(4) == 0 {
                        out.push_str(
                            rng.pick::<&str>(&[" ", "-", ".", ") ", "/", "\u{a0}", " - "]),
                        );
                    }
                    out.push(c);
                }
                out.push_str(rng.pick::<&str>(&["", " ext. 12", "x818", ",", "."]));
                out
            }
            4 => format!(
                "{}.{}.{}.{}{}",
                rng.below(300),
                rng.below(256),
                rng.below(256),
                rng.below(256),
                *rng.pick(&["", ":8080", ".", "/24", ".5"])
            ),
            5 => crate::testdata::card(rng),
            6 => {
                let card = crate::testdata::card(rng);
                format!("{} {card}", rng.pick(&["card", "CC:", "visa", "order"]))
            }
            7 => {
                let n = *rng.pick(&[7, 32, 40, 64]);
                let upper = rng.below(3) == 0;
                hex(rng, n, upper)
            }
            8 => format!(
                "{}{:02} {} {} {}",
                rng.pick(&["DE", "GB", "fr", "NO", "XX"]),
                rng.below(100),
                hex(rng, 4, true),
                digits(rng, 4),
                {
                    let n = 2 + rng.below(4);
                    digits(rng, n)
                }
            ),
            9 => format!(
                "{}{}{}{}{}",
                digits(rng, 3),
                rng.pick(&["-", " ", ""]),
                digits(rng, 2),
                rng.pick(&["-", " ", ""]),
                digits(rng, 4)
            ),
            10 => format!(
                "v{}.{}.{} build {} port {}",
                rng.below(20),
                rng.below(100),
                rng.below(1000),
                {
                    let n = 1 + rng.below(8);
                    digits(rng, n)
                },
                rng.below(70000)
            ),
            11 => format!(
                "fn f_{}(x: u{}) -> [u8; {}] {{ let a{} = 0x{}; std::io::{}; }}",
                rng.below(100),
                *rng.pick(&[8, 16, 32, 64]),
                rng.below(64),
                rng.below(10),
                hex(rng, 8, false),
                hex(rng, 2, false)
            ),
            12 => format!(
                "{} fe80::{}:{} and 2a00:{}::{} at {:02}:{:02}",
                rng.pick(&["host", "addr", "ip"]),
                hex(rng, 4, false),
                hex(rng, 3, false),
                hex(rng, 4, false),
                hex(rng, 2, false),
                rng.below(24),
                rng.below(60)
            ),
            13 => format!(
                "Room {}, {} people paid ${}.{:02} on {}/{}/{} (ref {})",
                rng.below(1000),
                rng.below(20),
                rng.below(10000),
                rng.below(100),
                1 + rng.below(12),
                1 + rng.below(28),
                2000 + rng.below(30),
                {
                    let n = 5 + rng.below(8);
                    digits(rng, n)
                }
            ),
            14 => (0..1 + rng.below(40))
                .map(|_| {
                    let set = b"0123456789 -./()+:_abcXYZ\xc3\xa9";
                    char::from(set[rng.below(set.len())])
                })
                .collect(),
            _ => {
                let n = 1 + rng.below(20);
                digits(rng, n)
            }
        }
    }

    #[test]
    fn shared_runs_find_what_the_reference_finds_on_shaped_values() {
        let group = default_group();
        let mut rng = crate::testdata::Rng::new(23);
        for _ in 0..60_000 {
            let mut text = shaped_value(&mut rng);
            if rng.below(3) == 0 {
                text = format!(
                    "{}{}{}",
                    rng.pick(&["", "id ", "phone: ", "x", "é", "ssn ", "_"]),
                    text,
                    rng.pick(&["", " ", "x", "é", ".", "-1"])
                );
            }
            for (keyed, ssn) in [(false, false), (true, true)] {
                let (new, old) = both(group, &text, keyed, ssn);
                assert_eq!(new, old, "{text:?}");
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Strings dense in digits, separators, glue and cue words, where the shortcuts (a
        /// short run with or without a group after it, a glued token, an octet and a dot)
        /// decide most often.
        #[test]
        fn shared_runs_find_what_the_reference_finds(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    "[0-9]{1,12}",
                    "[ ()./:+#x,-]{1,3}",
                    "[a-fA-F_é]{1,3}",
                    proptest::sample::select(vec![
                        "phone ", "call ", "ssn ", "order ", "tel:+", "DE89", "GB", "ext. ",
                        "v", "version ", "::", "ffff:", "€", "$", "\n", " - ",
                    ]).prop_map(String::from),
                ],
                0..24,
            ),
            keyed: bool,
            ssn: bool,
        ) {
            let text = parts.concat();
            let (new, old) = both(default_group(), &text, keyed, ssn);
            proptest::prop_assert_eq!(new, old, "{:?}", text);
        }
    }

    /// The stops `stops` gives in `text` against their bytewise definition: the first digit
    /// at or after a position, and the end of the run there, asked in the order the pass asks
    /// (onwards from the last stop, at times from before it).
    fn stops_are_bytewise(text: &[u8], mut stops: impl Stops, rng: &mut crate::testdata::Rng) {
        let mut i = 0;
        while i <= text.len() + 2 {
            let want = (i..text.len()).find(|&j| text[j].is_ascii_digit());
            let got = stops.next(i);
            assert_eq!(got, want, "{text:?} from {i}");
            let Some(d) = got else {
                break;
            };
            let end = (d..text.len())
                .find(|&j| !text[j].is_ascii_digit())
                .unwrap_or(text.len());
            assert_eq!(stops.run_end(d), end, "{text:?} at {d}");
            // Onwards from inside the run, its end or past it, or back before the stop.
            i = match rng.below(6) {
                0 => d + 1,
                1 => d.saturating_sub(rng.below(70)),
                2 => end + rng.below(100),
                _ => end,
            };
        }
    }

    /// The digit masks (and the short texts' skip) against the bytewise definition, on texts
    /// sparse and dense in digits, with runs longer than a block.
    #[test]
    fn the_stops_are_the_digits_byte_by_byte() {
        let mut rng = crate::testdata::Rng::new(31);
        for round in 0..6_000 {
            let len = rng.below(if round % 4 == 0 { 400 } else { 140 });
            let digit_share = 1 + rng.below(10);
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.below(10) < digit_share {
                        b'0' + rng.below(10) as u8
                    } else {
                        *rng.pick(&[b'a', b' ', b'-', b'/', 0xc3, 0xa9, b':', b'.'])
                    }
                })
                .collect();
            if text.len() >= 64 {
                stops_are_bytewise(&text, Digits::new(&text), &mut rng);
            }
            stops_are_bytewise(&text, Short(&text), &mut rng);
        }
    }

    #[test]
    fn the_group_finds_what_the_members_find() {
        let texts = [
            "call +44 20 7946 0958 or (415) 555-0100, card 4111 1111 1111 1111",
            "host 10.218.6.131 and fd00::1:2 and 2001:db8::1, ssn 123-45-6789",
            "IBAN DE89 3704 0044 0532 0130 00, order 12345678901, v1.2.3.4",
            "id=a1b2c3 ts=1717171717 2024-01-15 10:30 user_42 8.8.8.8:53",
            "[::ffff:192.168.1.20] 415.555.0100 4155550100 phone 4155550100",
            "",
            "no digits at all",
            "1",
        ];
        for text in texts {
            for cx in [FindContext::default(), FindContext::with_key("phone")] {
                assert_eq!(grouped(text, &cx), separately(text, &cx), "{text:?}");
            }
        }
        let data = crate::testdata::prose(7, 64 * 1024).text;
        assert_eq!(
            grouped(&data, &FindContext::default()),
            separately(&data, &FindContext::default())
        );
        let logs = crate::testdata::clean_text(8, 64 * 1024).text;
        assert_eq!(
            grouped(&logs, &FindContext::default()),
            separately(&logs, &FindContext::default())
        );
    }
}
