//! Checksummed and structured numbers: payment cards, IBANs and US social security numbers.
//!
//! One pass over the text visits each run of ASCII digits (a SWAR skip, shared with the phone
//! scanner) and asks three cheap questions there; only runs that fit the shape reach a
//! checksum:
//!
//! - **CREDIT_CARD**: 13-19 digits, written solid or in groups separated by one space or `-`
//!   (4-4-4-4[-1..4], Amex 4-6-5, Diners 4-6-4), a known issuer prefix (Visa, Mastercard incl.
//!   2-series, Amex, Discover, Diners, JCB, UnionPay, Maestro, Mir, RuPay, Troy) and the Luhn
//!   check. Ten per cent of random digit strings pass Luhn, so the prefix and the length table
//!   are what keep order numbers and IDs out. Right after card context (`card number`,
//!   `Kartennummer`, `carte`, `tarjeta`, `cc` within [`CARD_CUE_WINDOW`] bytes before), the
//!   context is that evidence: any Luhn-valid 12-19 digits in the same groupings are a card,
//!   whatever the issuer table says (12-digit Maestro, test ranges, new issuers).
//! - **IBAN**: two letters, two check digits, then the country's BBAN (letters and digits, solid
//!   or in space-separated groups of four), exactly as long as the registry says for that
//!   country, and ISO 7064 mod 97-10. Upper or lower case.
//! - **US_SSN**: `AAA-GG-SSSS` (or with spaces) anywhere; nine solid digits only next to a cue
//!   (`SSN`, `social security`) or under an SSN-like JSON key. Never-issued numbers are not
//!   SSNs: area 000, 666 or 900-999, group 00, serial 0000.
//!
//! Every match must stand alone: not glued to letters, digits or `_` on either side, and not
//! continued by `.`/`-` and more digits (a longer number, a date, a version).

use super::phone::{DigitRun, next_digit};
use super::{FindContext, Kind, Recognizer, Span};

/// IBAN length by country (SWIFT IBAN registry).
const IBAN_LENGTHS: &[(&[u8; 2], usize)] = &[
    (b"AD", 24),
    (b"AE", 23),
    (b"AL", 28),
    (b"AT", 20),
    (b"AZ", 28),
    (b"BA", 20),
    (b"BE", 16),
    (b"BG", 22),
    (b"BH", 22),
    (b"BI", 27),
    (b"BR", 29),
    (b"BY", 28),
    (b"CH", 21),
    (b"CR", 22),
    (b"CY", 28),
    (b"CZ", 24),
    (b"DE", 22),
    (b"DJ", 27),
    (b"DK", 18),
    (b"DO", 28),
    (b"EE", 20),
    (b"EG", 29),
    (b"ES", 24),
    (b"FI", 18),
    (b"FK", 18),
    (b"FO", 18),
    (b"FR", 27),
    (b"GB", 22),
    (b"GE", 22),
    (b"GI", 23),
    (b"GL", 18),
    (b"GR", 27),
    (b"GT", 28),
    (b"HR", 21),
    (b"HU", 28),
    (b"IE", 22),
    (b"IL", 23),
    (b"IQ", 23),
    (b"IS", 26),
    (b"IT", 27),
    (b"JO", 30),
    (b"KW", 30),
    (b"KZ", 20),
    (b"LB", 28),
    (b"LC", 32),
    (b"LI", 21),
    (b"LT", 20),
    (b"LU", 20),
    (b"LV", 21),
    (b"LY", 25),
    (b"MC", 27),
    (b"MD", 24),
    (b"ME", 22),
    (b"MK", 19),
    (b"MN", 20),
    (b"MR", 27),
    (b"MT", 31),
    (b"MU", 30),
    (b"NI", 28),
    (b"NL", 18),
    (b"NO", 15),
    (b"OM", 23),
    (b"PK", 24),
    (b"PL", 28),
    (b"PS", 29),
    (b"PT", 25),
    (b"QA", 29),
    (b"RO", 24),
    (b"RS", 22),
    (b"RU", 33),
    (b"SA", 24),
    (b"SC", 31),
    (b"SD", 18),
    (b"SE", 24),
    (b"SI", 19),
    (b"SK", 24),
    (b"SM", 27),
    (b"SO", 23),
    (b"ST", 25),
    (b"SV", 28),
    (b"TL", 23),
    (b"TN", 24),
    (b"TR", 26),
    (b"UA", 29),
    (b"VA", 22),
    (b"VG", 24),
    (b"XK", 20),
    (b"YE", 30),
];

/// Words that make nine solid digits an SSN.
const SSN_CUES: &[&str] = &[
    "ssn",
    "social security",
    "soc sec",
    "ss#",
    "ss no",
    "sozialversicherung",
];

/// Finds card numbers, IBANs and SSNs (each switchable).
#[derive(Debug)]
pub(super) struct NumberRecognizer {
    cards: bool,
    iban: bool,
    ssn: bool,
}

impl NumberRecognizer {
    pub(super) fn new(cards: bool, iban: bool, ssn: bool) -> Self {
        NumberRecognizer { cards, iban, ssn }
    }
}

impl NumberRecognizer {
    /// Whether the context says the values are SSNs (computed once per string).
    pub(super) fn ssn_keyed(cx: &FindContext<'_>) -> bool {
        cx.key.is_some_and(is_ssn_key)
    }

    /// Looks at the digit run `run` (its first digit is the first at or after the last resume
    /// point) and returns where to resume, always past its start. Shared with the digit-run
    /// group (`detect/digits.rs`), which works `run` out once for all its members.
    #[inline(always)]
    pub(super) fn step(
        &self,
        text: &str,
        run: &DigitRun,
        ssn_key: bool,
        out: &mut Vec<Span>,
    ) -> usize {
        let b = text.as_bytes();
        let (d, run_end) = (run.start, run.end);
        let len = run.len();
        let sep_next = matches!(b.get(run_end), Some(b' ' | b'-'));
        // Cheap shape test first: an IBAN needs two letters before its check digits, a
        // card 13+ solid digits or a first group of four, an SSN 9 solid digits or a first
        // group of three. Most digit runs in logs and code fail all three here.
        let iban_shape = self.iban && d >= 2 && len >= 2 && b[d - 1].is_ascii_alphabetic();
        // Exactly the runs `card_at` and `ssn_at` can take: a card's first run is 13+ solid
        // digits or a group of four, and its first digit one an issuer uses (`known_issuer`:
        // 0, 1, 7 and 8 start none); an SSN's is nine solid digits or a group of three.
        // After card context any first digit and 12 digits will do (`card_at`), so runs of 12
        // or more always go on; a first group of four only with an issuer's first digit or
        // card context.
        let card_shape = self.cards
            && (len >= 12
                || (sep_next
                    && len == 4
                    && second_card_group(b, run_end)
                    && (matches!(b[d], b'2'..=b'6' | b'9') || has_card_cue(b, d))));
        let ssn_shape = self.ssn && (len == 9 || (sep_next && len == 3));
        if d > 0 && is_glue(b[d - 1]) {
            // Glued: no card or SSN starts here (`confirm`), and no number at all at the
            // token's later digit runs (hex ids, hashes): each is glued too, and an IBAN's
            // country code would have the token's byte before it (`iban_at`). Skip the token.
            let next = if iban_shape {
                self.confirm(text, d, run_end, true, false, false, ssn_key, out)
            } else {
                run_end
            };
            if next > run_end {
                return next;
            }
            return run_end
                + b[run_end..]
                    .iter()
                    .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'_')
                    .count();
        }
        if !iban_shape && !card_shape && !ssn_shape {
            return run_end;
        }
        self.confirm(
            text, d, run_end, iban_shape, card_shape, ssn_shape, ssn_key, out,
        )
    }

    /// Whether an IBAN may have its check digits at the glued run `run`: IBANs are on, the
    /// run has two digits or more, and the two bytes before it are ASCII letters with no glue
    /// byte before them. Where this is false, [`iban_at`] finds nothing at the run, so
    /// [`NumberRecognizer::step`] skips the glued token as it does with no IBAN shape.
    #[inline]
    pub(super) fn iban_may_start(&self, b: &[u8], run: &DigitRun) -> bool {
        let d = run.start;
        self.iban
            && run.len() >= 2
            && d >= 2
            && b[d - 1].is_ascii_alphabetic()
            && b[d - 2].is_ascii_alphabetic()
            && !(d >= 3 && is_glue(b[d - 3]))
    }

    /// [`NumberRecognizer::step`] past its shape test.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn confirm(
        &self,
        text: &str,
        d: usize,
        run_end: usize,
        iban_shape: bool,
        card_shape: bool,
        ssn_shape: bool,
        ssn_key: bool,
        out: &mut Vec<Span>,
    ) -> usize {
        let b = text.as_bytes();
        let mut next = run_end;
        if iban_shape && let Some(end) = iban_at(b, d) {
            out.push(Span::new(d - 2, end, Kind::Iban));
            next = next.max(end);
        }
        let glued = d > 0 && is_glue(b[d - 1]);
        if !glued {
            if card_shape && let Some(end) = card_at(b, d) {
                out.push(Span::new(d, end, Kind::CreditCard));
                next = next.max(end);
            }
            if ssn_shape && let Some(end) = ssn_at(text, d, ssn_key) {
                out.push(Span::new(d, end, Kind::UsSsn));
                next = next.max(end);
            }
        }
        next
    }

    /// The step as it was before [`DigitRun`]: the test oracle for it.
    #[cfg(test)]
    pub(super) fn step_reference(
        &self,
        text: &str,
        d: usize,
        ssn_key: bool,
        out: &mut Vec<Span>,
    ) -> usize {
        let b = text.as_bytes();
        // The digit run (digits only) starting here.
        let mut run_end = d;
        while run_end < b.len() && b[run_end].is_ascii_digit() {
            run_end += 1;
        }
        let mut next = run_end;
        let len = run_end - d;
        let sep_next = matches!(b.get(run_end), Some(b' ' | b'-'));
        // Cheap shape test first: an IBAN needs two letters before its check digits, a
        // card 13+ solid digits or a first group of four, an SSN 9 solid digits or a first
        // group of three. Most digit runs in logs and code fail all three here.
        let iban_shape = self.iban && d >= 2 && len >= 2 && b[d - 1].is_ascii_alphabetic();
        let number_shape = len >= 9 || (sep_next && (len == 3 || len == 4));
        if !iban_shape && !number_shape {
            return next;
        }
        if iban_shape && let Some(end) = iban_at(b, d) {
            out.push(Span::new(d - 2, end, Kind::Iban));
            next = next.max(end);
        }
        let glued = d > 0 && is_glue(b[d - 1]);
        if !glued && number_shape {
            if self.cards
                && let Some(end) = card_at(b, d)
            {
                out.push(Span::new(d, end, Kind::CreditCard));
                next = next.max(end);
            }
            if self.ssn
                && let Some(end) = ssn_at(text, d, ssn_key)
            {
                out.push(Span::new(d, end, Kind::UsSsn));
                next = next.max(end);
            }
        }
        next
    }
}

impl Recognizer for NumberRecognizer {
    fn find(&self, text: &str, cx: &FindContext<'_>, out: &mut Vec<Span>) {
        let ssn_key = Self::ssn_keyed(cx);
        let mut i = 0;
        while let Some(d) = next_digit(text.as_bytes(), i) {
            i = self.step(text, &DigitRun::at(text.as_bytes(), d), ssn_key, out);
        }
    }
}

/// Whether a byte before a number glues it into a longer token.
fn is_glue(p: u8) -> bool {
    p.is_ascii_alphanumeric() || p == b'_' || p >= 0x80
}

/// Whether a number ending at `end` stands alone on the right.
fn right_free(b: &[u8], end: usize) -> bool {
    match b.get(end) {
        None => true,
        Some(&n) if n.is_ascii_alphanumeric() || n == b'_' || n >= 0x80 => false,
        Some(b'.' | b'-' | b'/' | b',' | b':') => !b.get(end + 1).is_some_and(u8::is_ascii_digit),
        Some(_) => true,
    }
}

/// Whether the number starting at `start` stands alone on the left (beyond the glue check).
fn left_free(b: &[u8], start: usize) -> bool {
    if start >= 2 && matches!(b[start - 1], b'.' | b'-' | b'/' | b',' | b':') {
        return !b[start - 2].is_ascii_digit();
    }
    true
}

/// A card number starting at the digit `d`; returns its end.
fn card_at(b: &[u8], d: usize) -> Option<usize> {
    if !left_free(b, d) {
        return None;
    }
    let mut digits = [0u8; 19];
    let mut n = 0;
    let mut groups = [0u8; 6];
    let mut ngroups = 0;
    let mut sep = 0u8;
    let mut i = d;
    loop {
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            if n == 19 {
                return None;
            }
            digits[n] = b[i] - b'0';
            n += 1;
            i += 1;
        }
        if ngroups == groups.len() {
            return None;
        }
        groups[ngroups] = (i - start) as u8;
        ngroups += 1;
        // One separator, the same throughout, then more digits.
        match b.get(i) {
            Some(&s @ (b' ' | b'-')) if b.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                if sep != 0 && sep != s {
                    break;
                }
                if ngroups == 1 && groups[0] != 4 {
                    break;
                }
                sep = s;
                i += 1;
            }
            _ => break,
        }
    }
    // With separators, a separator run that stopped early leaves `i` after the last group.
    let end = d + (0..ngroups).map(|g| groups[g] as usize).sum::<usize>() + ngroups - 1;
    let digits = &digits[..n];
    let grouping_ok = ngroups == 1
        || matches!(&groups[..ngroups], [4, 6, 5] | [4, 6, 4])
        || (groups[..ngroups - 1].iter().all(|&g| g == 4)
            && (1..=4).contains(&groups[ngroups - 1]));
    if !(12..=19).contains(&n) || !grouping_ok || !right_free(b, end) || !luhn_digits(digits) {
        return None;
    }
    // The issuer table, or card context before the number.
    ((n >= 13 && known_issuer(digits)) || has_card_cue(b, d)).then_some(end)
}

/// Whether a grouped card may go on after its first group of four, which ends at `e` (a space
/// or `-` there): [`card_at`] takes 12 to 19 digits grouped 4-4-4[-4][-1..4], 4-6-5 or 4-6-4,
/// one separator throughout, so a third group must follow a second of four or six digits and
/// the same separator. Where it does not (`2024-01-15`, `1999 10 12`, `port 8080 and`),
/// `card_at` finds nothing and neither issuer nor card context is looked at.
#[inline]
fn second_card_group(b: &[u8], e: usize) -> bool {
    let sep = b.get(e).copied();
    let start = e + 1;
    let mut j = start;
    while j < b.len() && b[j].is_ascii_digit() && j - start < 7 {
        j += 1;
    }
    matches!(j - start, 4 | 6)
        && b.get(j).copied() == sep
        && b.get(j + 1).is_some_and(u8::is_ascii_digit)
}

/// How far before a number card context is looked for, in bytes.
const CARD_CUE_WINDOW: usize = 64;

/// Words that say the number after them is a payment card (matched in lower case, anywhere in
/// the window: `card` covers `card number`, `credit card`, `cardNo`, `card_number`).
const CARD_CUES: &[&[u8]] = &[
    b"card",
    b"karte",
    b"kartennummer",
    b"carte",
    b"tarjeta",
    b"carta",
    b"cart\xc3\xa3o",
    b"visa",
    b"mastercard",
    b"maestro",
    b"amex",
    b"jcb",
];

/// The first bytes of [`CARD_CUES`] (bit `c - b'a'`); each is a lower-case ASCII letter, and
/// `c` (of `cc`) is one of them.
const CARD_CUE_INITIALS: u32 = {
    let mut mask = 0;
    let mut i = 0;
    while i < CARD_CUES.len() {
        let first = CARD_CUES[i][0];
        assert!(first.is_ascii_lowercase());
        mask |= 1 << (first - b'a');
        i += 1;
    }
    assert!(mask & (1 << (b'c' - b'a')) != 0);
    mask
};

/// Bit `s - b'a'` of entry `c - b'a'`: a word of [`CARD_CUES`], or `cc`, starts with the
/// letters `c` and `s` (each cue's second byte is a lower-case ASCII letter too).
const CARD_CUE_SECONDS: [u32; 26] = {
    let mut table = [0u32; 26];
    let mut i = 0;
    while i < CARD_CUES.len() {
        let (first, second) = (CARD_CUES[i][0], CARD_CUES[i][1]);
        assert!(second.is_ascii_lowercase());
        table[(first - b'a') as usize] |= 1 << (second - b'a');
        i += 1;
    }
    table[(b'c' - b'a') as usize] |= 1 << (b'c' - b'a');
    table
};

/// Whether card context stands in the [`CARD_CUE_WINDOW`] bytes before the digit at `d`: a
/// word of [`CARD_CUES`], or `cc` as a word of its own (`CC: 6759...`, `cc#`). One pass over
/// the window: only a byte that starts a cue and is followed by a cue's second letter (most
/// bytes are not) is compared further,
/// ASCII case-insensitively in place (no lower-cased copy, no scan per cue).
fn has_card_cue(b: &[u8], d: usize) -> bool {
    let w = &b[d.saturating_sub(CARD_CUE_WINDOW)..d];
    for (i, &c) in w.iter().enumerate() {
        let c = c.to_ascii_lowercase();
        if !c.is_ascii_lowercase() || CARD_CUE_INITIALS & (1 << (c - b'a')) == 0 {
            continue;
        }
        // Code and logs are full of `c`, `t`, `a` and `m`: the second byte turns most away.
        let second = w.get(i + 1).map_or(0, u8::to_ascii_lowercase);
        if !second.is_ascii_lowercase()
            || CARD_CUE_SECONDS[usize::from(c - b'a')] & (1 << (second - b'a')) == 0
        {
            continue;
        }
        let rest = &w[i..];
        if CARD_CUES.iter().any(|cue| {
            cue[0] == c
                && rest
                    .get(..cue.len())
                    .is_some_and(|r| r.eq_ignore_ascii_case(cue))
        }) {
            return true;
        }
        if c == b'c'
            && rest.get(1).is_some_and(|n| n.eq_ignore_ascii_case(&b'c'))
            && !(i > 0 && w[i - 1].is_ascii_alphanumeric())
            && !w.get(i + 2).is_some_and(u8::is_ascii_alphanumeric)
        {
            return true;
        }
    }
    false
}

/// [`has_card_cue`] as it was (a lower-cased copy of the window, one scan per cue): its test
/// oracle.
#[cfg(test)]
fn has_card_cue_reference(b: &[u8], d: usize) -> bool {
    let from = d.saturating_sub(CARD_CUE_WINDOW);
    let mut window = [0u8; CARD_CUE_WINDOW];
    let window = &mut window[..d - from];
    for (w, &c) in window.iter_mut().zip(&b[from..d]) {
        *w = c.to_ascii_lowercase();
    }
    let window = &*window;
    // At most 64 bytes: a plain scan, not a `memmem` searcher built per call.
    if CARD_CUES
        .iter()
        .any(|cue| window.windows(cue.len()).any(|w| w == *cue))
    {
        return true;
    }
    (0..window.len().saturating_sub(1))
        .filter(|&i| &window[i..i + 2] == b"cc")
        .any(|i| {
            let before = i.checked_sub(1).map(|j| window[j]);
            let after = window.get(i + 2).copied();
            !before.is_some_and(|c| c.is_ascii_alphanumeric())
                && !after.is_some_and(|c| c.is_ascii_alphanumeric())
        })
}

/// Whether the digits start with a known issuer identification number and have a length that
/// issuer uses.
fn known_issuer(d: &[u8]) -> bool {
    let p = |k: usize| d[..k].iter().fold(0u32, |a, &x| a * 10 + u32::from(x));
    let len = d.len();
    let (p1, p2, p3, p4, p6) = (p(1), p(2), p(3), p(4), p(6));
    match p1 {
        4 => matches!(len, 13 | 16 | 19), // Visa
        5 => {
            (51..=55).contains(&p2) && len == 16                  // Mastercard
            || matches!(p2, 50 | 56..=59) && (12..=19).contains(&len)
        } // Maestro
        2 => {
            (2221..=2720).contains(&p4) && len == 16              // Mastercard 2-series
            || (2200..=2204).contains(&p4) && (16..=19).contains(&len)
        } // Mir
        3 => {
            matches!(p2, 34 | 37) && len == 15                    // Amex
            || ((300..=305).contains(&p3) || matches!(p2, 36 | 38 | 39)) && (14..=19).contains(&len) // Diners
            || (3528..=3589).contains(&p4) && (16..=19).contains(&len)
        } // JCB
        6 => {
            (p4 == 6011 || (644..=649).contains(&p3) || p2 == 65) && (16..=19).contains(&len) // Discover
            || p2 == 62 && (16..=19).contains(&len)                 // UnionPay
            || matches!(p2, 60 | 63 | 67 | 68 | 69) && (12..=19).contains(&len) // Maestro, RuPay
            || (622126..=622925).contains(&p6)
        }
        9 => p4 == 9792 && len == 16, // Troy
        _ => false,
    }
}

/// Luhn over digit values.
fn luhn_digits(d: &[u8]) -> bool {
    let mut sum = 0u32;
    for (i, &x) in d.iter().rev().enumerate() {
        let x = u32::from(x);
        sum += if i % 2 == 1 {
            if x * 2 > 9 { x * 2 - 9 } else { x * 2 }
        } else {
            x
        };
    }
    sum.is_multiple_of(10)
}

/// An IBAN whose check digits start at `d` (the country code is the two bytes before).
fn iban_at(b: &[u8], d: usize) -> Option<usize> {
    if d < 2 || d + 2 > b.len() || !b[d + 1].is_ascii_digit() {
        return None;
    }
    let cc = [b[d - 2].to_ascii_uppercase(), b[d - 1].to_ascii_uppercase()];
    if !cc.iter().all(u8::is_ascii_uppercase) || (d >= 3 && is_glue(b[d - 3])) {
        return None;
    }
    let len = IBAN_LENGTHS.iter().find(|(c, _)| **c == cc)?.1;
    // Collect `len` alphanumerics, allowing single spaces between groups of four.
    let mut chars = [0u8; 34];
    chars[0] = cc[0];
    chars[1] = cc[1];
    let mut n = 2;
    let mut i = d;
    while n < len {
        match b.get(i) {
            Some(&c) if c.is_ascii_alphanumeric() => {
                chars[n] = c.to_ascii_uppercase();
                n += 1;
                i += 1;
            }
            Some(b' ') if n % 4 == 0 && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric) => {
                i += 1;
            }
            _ => return None,
        }
    }
    if b.get(i)
        .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80)
    {
        return None;
    }
    let s = std::str::from_utf8(&chars[..n]).ok()?;
    mod97_valid(s).then_some(i)
}

/// An SSN starting at the digit `d`.
fn ssn_at(text: &str, d: usize, keyed: bool) -> Option<usize> {
    let b = text.as_bytes();
    if !left_free(b, d) || (d > 0 && matches!(b[d - 1], b'$' | b'#' | b'+')) {
        return None;
    }
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    let (area, group, serial, end) = if (0..3).all(|k| digit(d + k))
        && matches!(b.get(d + 3), Some(b'-' | b' '))
        && digit(d + 4)
        && digit(d + 5)
        && b.get(d + 6) == b.get(d + 3)
        && (7..11).all(|k| digit(d + k))
    {
        (&b[d..d + 3], &b[d + 4..d + 6], &b[d + 7..d + 11], d + 11)
    } else if (0..9).all(|k| digit(d + k)) && !digit(d + 9) {
        if !(keyed || has_ssn_cue(text, d)) {
            return None;
        }
        (&b[d..d + 3], &b[d + 3..d + 5], &b[d + 5..d + 9], d + 9)
    } else {
        return None;
    };
    // A space-separated form needs a cue too: `123 45 6789` is as often a list of numbers.
    if b[d + 3] == b' ' && !(keyed || has_ssn_cue(text, d)) {
        return None;
    }
    let issued =
        area != b"000" && area != b"666" && area[0] != b'9' && group != b"00" && serial != b"0000";
    (issued && right_free(b, end)).then_some(end)
}

fn has_ssn_cue(text: &str, d: usize) -> bool {
    let from = d.saturating_sub(32);
    let window = text.as_bytes()[from..d].to_ascii_lowercase();
    SSN_CUES
        .iter()
        .any(|cue| window.windows(cue.len()).any(|w| w == cue.as_bytes()))
}

/// Whether a key names social security numbers: folded to lower-case ASCII letters and digits,
/// it ends in `ssn` or holds `socialsecurity`. Folds into a stack buffer (this runs once per
/// keyed JSON value); longer keys fold into a `String`.
pub(super) fn is_ssn_key(key: &str) -> bool {
    let mut buf = [0u8; 64];
    let mut n = 0;
    for b in key.bytes().filter(u8::is_ascii_alphanumeric) {
        if n == buf.len() {
            let folded: Vec<u8> = key
                .bytes()
                .filter(u8::is_ascii_alphanumeric)
                .map(|b| b.to_ascii_lowercase())
                .collect();
            return folded_is_ssn(&folded);
        }
        buf[n] = b.to_ascii_lowercase();
        n += 1;
    }
    folded_is_ssn(&buf[..n])
}

pub(super) fn folded_is_ssn(folded: &[u8]) -> bool {
    const SOCIAL: &[u8] = b"socialsecurity";
    folded.ends_with(b"ssn") || folded.windows(SOCIAL.len()).any(|w| w == SOCIAL)
}

/// Whether the digits in `s` pass the Luhn check.
pub(super) fn luhn_valid(s: &str) -> bool {
    let mut sum = 0u32;
    let mut count = 0;
    for (i, d) in s
        .bytes()
        .rev()
        .filter(u8::is_ascii_digit)
        .map(|b| u32::from(b - b'0'))
        .enumerate()
    {
        let v = if i % 2 == 1 {
            let x = d * 2;
            if x > 9 { x - 9 } else { x }
        } else {
            d
        };
        sum += v;
        count += 1;
    }
    count >= 2 && sum.is_multiple_of(10)
}

/// Whether `s` (letters and digits; others ignored) passes ISO 7064 mod 97-10 after moving the
/// first four characters to the end, as for IBANs.
pub(super) fn mod97_valid(s: &str) -> bool {
    let chars: Vec<u8> = s
        .bytes()
        .filter(u8::is_ascii_alphanumeric)
        .map(|b| b.to_ascii_uppercase())
        .collect();
    if chars.len() < 5 {
        return false;
    }
    let mut rem = 0u32;
    for &c in chars[4..].iter().chain(&chars[..4]) {
        let v = if c.is_ascii_digit() {
            u32::from(c - b'0')
        } else {
            u32::from(c - b'A') + 10
        };
        rem = if v >= 10 {
            (rem * 100 + v) % 97
        } else {
            (rem * 10 + v) % 97
        };
    }
    rem == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_cues_are_found_as_the_reference_finds_them() {
        let pieces: &[&[u8]] = &[
            b"card",
            b"CARD",
            b"Karte",
            b"kartennummer",
            b"carte",
            b"tarjeta",
            b"carta",
            b"cart\xc3\xa3o",
            b"CART\xc3\x83O",
            b"visa",
            b"MasterCard",
            b"maestro",
            b"amex",
            b"jcb",
            b"cc",
            b"CC",
            b"c",
            b"a",
            b"ca",
            b"x",
            b"7",
            b" ",
            b"#",
            b":",
            b"_",
            b"-",
            b"\xc3\xa9",
        ];
        let mut rng = crate::testdata::Rng::new(7);
        for _ in 0..40_000 {
            let mut text = Vec::new();
            for _ in 0..rng.below(24) {
                text.extend_from_slice(pieces[rng.below(pieces.len())]);
            }
            for d in 0..=text.len() {
                assert_eq!(
                    has_card_cue(&text, d),
                    has_card_cue_reference(&text, d),
                    "{:?} {d}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
        for text in [
            crate::testdata::prose(7, 64 * 1024).text,
            crate::testdata::clean_text(8, 64 * 1024).text,
        ] {
            let b = text.as_bytes();
            for d in 0..=b.len() {
                assert_eq!(has_card_cue(b, d), has_card_cue_reference(b, d), "{d}");
            }
        }
    }

    fn find(text: &str) -> Vec<(&str, Kind)> {
        find_keyed(text, None)
    }

    fn find_keyed<'a>(text: &'a str, key: Option<&str>) -> Vec<(&'a str, Kind)> {
        let mut out = Vec::new();
        let cx = FindContext {
            key,
            ..FindContext::default()
        };
        NumberRecognizer::new(true, true, true).find(text, &cx, &mut out);
        out.iter()
            .map(|s| (&text[s.start..s.end], s.kind.clone()))
            .collect()
    }

    #[test]
    fn cards() {
        for card in [
            "4111111111111111",
            "4111 1111 1111 1111",
            "4111-1111-1111-1111",
            "5500 0000 0000 0004",
            "2221000000000009",
            "378282246310005",
            "3782 822463 10005",
            "6011111111111117",
            "3530111333300000",
            "4222222222222",
        ] {
            let text = format!("card: {card}.");
            assert_eq!(find(&text), vec![(card, Kind::CreditCard)], "{card}");
        }
    }

    #[test]
    fn luhn_numbers_after_card_context_are_cards_whatever_the_issuer() {
        // 12-digit Maestro, 15-digit JCB, an unassigned prefix: refused without context.
        for card in [
            "675964982648",
            "6759 6498 2648",
            "352800000000007",
            "1234567812345670",
        ] {
            assert!(find(card).is_empty(), "{card}");
            for cue in [
                "card number: ",
                "Card no. ",
                "CC: ",
                "Kartennummer ",
                "numéro de carte ",
                "tarjeta ",
                "cardNumber=",
            ] {
                let text = format!("{cue}{card} ok");
                assert_eq!(find(&text), vec![(card, Kind::CreditCard)], "{text}");
            }
        }
        // Context does not make a Luhn failure, a short run or an order number a card.
        for text in [
            "card number: 675964982649",
            "card number: 67596498264",
            "accident 675964982648",
            "order 675964982648",
        ] {
            assert!(find(text).is_empty(), "{text}");
        }
    }

    #[test]
    fn not_cards() {
        for text in [
            "4111111111111112",     // Luhn fails
            "1234567812345670",     // Luhn passes, no issuer starts with 1
            "4111 1111 1111 11111", // bad grouping
            "41111111111111111111", // too long
            "id A4111111111111111", // glued
            "4111111111111111.5",   // part of a decimal
            "v1.4111111111111111",  // part of a version
            "4111 1111-1111 1111",  // mixed separators
        ] {
            assert!(
                find(text).iter().all(|(_, k)| *k != Kind::CreditCard),
                "{text}"
            );
        }
    }

    #[test]
    fn ibans() {
        for iban in [
            "GB29NWBK60161331926819",
            "GB29 NWBK 6016 1331 9268 19",
            "gb29nwbk60161331926819",
            "DE89370400440532013000",
            "DE89 3704 0044 0532 0130 00",
            "FR1420041010050500013M02606",
            "NO9386011117947",
        ] {
            let text = format!("IBAN {iban}, thanks");
            assert_eq!(find(&text), vec![(iban, Kind::Iban)], "{iban}");
        }
        assert!(find("GB29NWBK60161331926818").is_empty()); // mod 97 fails
        assert!(find("GB29NWBK6016133192681").is_empty()); // too short for GB
        assert!(find("XGB29NWBK60161331926819").is_empty()); // glued
        assert!(find("ZZ29NWBK60161331926819").is_empty()); // no such country
    }

    #[test]
    fn ssns() {
        assert_eq!(find("SSN 123-45-6789"), vec![("123-45-6789", Kind::UsSsn)]);
        assert_eq!(find("id 536-32-3065."), vec![("536-32-3065", Kind::UsSsn)]);
        assert_eq!(
            find("my ssn is 536323065"),
            vec![("536323065", Kind::UsSsn)]
        );
        assert_eq!(
            find("social security: 536 32 3065"),
            vec![("536 32 3065", Kind::UsSsn)]
        );
        assert_eq!(
            find_keyed("536323065", Some("ssn")),
            vec![("536323065", Kind::UsSsn)]
        );
        for text in [
            "536323065",       // nine digits without context
            "536 32 3065",     // spaced without context
            "SSN 000-12-3456", // area 000
            "SSN 666-12-3456", // area 666
            "SSN 912-12-3456", // area 9xx
            "SSN 123-00-4567", // group 00
            "SSN 123-45-0000", // serial 0000
            "2024-45-678901",
            "1-123-45-6789",
            "123-45-67890",
        ] {
            assert!(find(text).iter().all(|(_, k)| *k != Kind::UsSsn), "{text}");
        }
    }

    #[test]
    fn switches() {
        let mut out = Vec::new();
        NumberRecognizer::new(false, false, false).find(
            "4111111111111111 GB29NWBK60161331926819 123-45-6789",
            &FindContext::default(),
            &mut out,
        );
        assert!(out.is_empty());
    }

    #[test]
    fn checksums() {
        assert!(luhn_valid("4111 1111 1111 1111"));
        assert!(!luhn_valid("4111 1111 1111 1112"));
        assert!(mod97_valid("GB29 NWBK 6016 1331 9268 19"));
        assert!(!mod97_valid("GB29 NWBK 6016 1331 9268 18"));
    }
}
