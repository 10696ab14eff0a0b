//! IP addresses: IPv4 dotted quads and IPv6 in any RFC 4291/5952 spelling.
//!
//! Candidates are cut out cheaply (digit runs for IPv4, via the shared SWAR digit skip; each
//! `:` for IPv6, via `memchr`) and parsed with `std::net`, which rejects octets above 255,
//! leading zeros and malformed groups. A candidate glued to a word, or continued by `.`/`:`
//! and more address characters, is not an address (`1.2.3.4.5`, `v1.2.3.4`, `std::io`).
//!
//! **Which addresses count.** An address identifies a host, and through it often a person, so
//! public *and* private addresses are tokenized: the development data label private addresses
//! such as `10.218.6.131` as personal data, and inside an organisation a private address maps
//! to one employee's machine (a DHCP lease, a VPN pool). Skipped are the addresses that
//! identify no one anywhere: unspecified (`0.0.0.0`, `::`), loopback (`127.0.0.0/8`, `::1`),
//! link-local (`169.254.0.0/16`, `fe80::/10`), multicast, broadcast, the reserved `240.0.0.0/4`
//! and the documentation ranges (`192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`,
//! `2001:db8::/32`). These fill logs, configuration and code samples; tokenizing them would
//! only hide useful facts from the model. A dotted quad right after `version`/`v` is a version.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::ops::Range;

use memchr::memchr_iter;

use super::phone::{DigitRun, next_digit};
use super::{FindContext, Kind, Recognizer, Span};

/// Longest IPv6 text form (`ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255`).
const MAX_V6: usize = 45;

/// Finds IP addresses (see the module doc for which).
#[derive(Debug)]
pub(super) struct IpRecognizer;

impl IpRecognizer {
    pub(super) fn new() -> Self {
        IpRecognizer
    }
}

impl IpRecognizer {
    /// The IPv6 pass (over each `:`); returns the range of `out` holding its spans, which the
    /// IPv4 steps consult.
    pub(super) fn find_v6(&self, b: &[u8], out: &mut Vec<Span>) -> Range<usize> {
        self.find_v6_at(b, memchr_iter(b':', b), out)
    }

    /// [`IpRecognizer::find_v6`] over `colons`, every colon of `b` in order (the digit-run
    /// group reads them from the list the passes over a text's colons share, `seps.rs`).
    pub(super) fn find_v6_at(
        &self,
        b: &[u8],
        colons: impl Iterator<Item = usize>,
        out: &mut Vec<Span>,
    ) -> Range<usize> {
        let mut v6_end = 0;
        let v6_from = out.len();
        let mut colons = colons.peekable();
        // The colon before the current one, if any.
        let mut prev: Option<usize> = None;
        while let Some(colon) = colons.next() {
            let before = prev.replace(colon);
            if colon < v6_end {
                continue;
            }
            // A colon with no other colon within `MAX_V6` bytes on either side (`Row 12: the
            // customer ...`) gives no address: the token `v6_at` cuts around it lies within
            // `MAX_V6` bytes of it each way, so holds it alone, and every address spelling has
            // two colons or more (`v6_token`'s group count). Nor does it reach a later colon:
            // the next is past the token's end, so `v6_end` need not move.
            if before.is_none_or(|p| colon - p > MAX_V6)
                && colons.peek().is_none_or(|&q| q - colon > MAX_V6)
            {
                continue;
            }
            // A colon with no address byte on either side (`key: value`, `http://`) is no
            // address and reaches no further: `v6_at` would scan nothing either way, and its
            // token is the colon alone, which `v6_token` drops (a single trailing `:` is
            // punctuation; alone at the start it is one colon, too few).
            let lone = (colon == 0 || !is_v6_byte(b[colon - 1]))
                && !b.get(colon + 1).is_some_and(|&c| is_v6_byte(c));
            if lone {
                v6_end = colon + 1;
                continue;
            }
            let (found, scanned_to) = v6_at(b, colon);
            v6_end = scanned_to;
            if let Some((start, end)) = found {
                out.push(Span::new(start, end, Kind::IpAddress));
            }
        }
        v6_from..out.len()
    }

    /// [`IpRecognizer::find_v6`] without its shortcuts for lone colons and for colons with no
    /// other in reach: its test oracle.
    #[cfg(test)]
    fn find_v6_reference(&self, b: &[u8], out: &mut Vec<Span>) -> Range<usize> {
        let mut v6_end = 0;
        let v6_from = out.len();
        for colon in memchr_iter(b':', b) {
            if colon < v6_end {
                continue;
            }
            let (found, scanned_to) = v6_at(b, colon);
            v6_end = scanned_to;
            if let Some((start, end)) = found {
                out.push(Span::new(start, end, Kind::IpAddress));
            }
        }
        v6_from..out.len()
    }

    /// Looks at the digit run `run` (its first digit is the first at or after the last resume
    /// point) for an IPv4 address not inside one of the IPv6 spans `out[v6]`; returns where to
    /// resume, always past its start. Shared with the digit-run group (`detect/digits.rs`),
    /// which works `run` out once for all its members.
    #[inline(always)]
    pub(super) fn step(
        &self,
        text: &str,
        run: &DigitRun,
        v6: &Range<usize>,
        out: &mut Vec<Span>,
    ) -> usize {
        let b = text.as_bytes();
        // Digits glued to a word are not an address: skip the token.
        if let Some(end) = run.glued_end(b) {
            return end;
        }
        // Cheap shape test: a first octet of 1-3 digits followed by `.` and a digit.
        let e = run.end;
        if run.len() > 3 || b.get(e) != Some(&b'.') || !b.get(e + 1).is_some_and(u8::is_ascii_digit)
        {
            return e;
        }
        self.confirm(text, run.start, v6, out)
    }

    /// [`IpRecognizer::step`] past its shape test: the address at the digit `d`.
    #[inline(never)]
    fn confirm(&self, text: &str, d: usize, v6: &Range<usize>, out: &mut Vec<Span>) -> usize {
        let (found, resume) = v4_at(text, d);
        if let Some(end) = found
            && !out[v6.clone()].iter().any(|s| s.start <= d && d < s.end)
        {
            out.push(Span::new(d, end, Kind::IpAddress));
        }
        resume.max(d + 1)
    }

    /// The step as it was before [`DigitRun`]: the test oracle for it.
    #[cfg(test)]
    pub(super) fn step_reference(
        &self,
        text: &str,
        d: usize,
        v6: &Range<usize>,
        out: &mut Vec<Span>,
    ) -> usize {
        let b = text.as_bytes();
        // Digits glued to a word are not an address: skip the token.
        if let Some(end) = super::phone::glued_token_end(b, d) {
            return end;
        }
        // Cheap shape test: a first octet of 1-3 digits followed by `.` and a digit.
        let mut e = d;
        while e < b.len() && b[e].is_ascii_digit() && e - d < 4 {
            e += 1;
        }
        if e - d > 3 || b.get(e) != Some(&b'.') || !b.get(e + 1).is_some_and(u8::is_ascii_digit) {
            while e < b.len() && b[e].is_ascii_digit() {
                e += 1;
            }
            return e;
        }
        let (found, resume) = v4_at(text, d);
        if let Some(end) = found
            && !out[v6.clone()].iter().any(|s| s.start <= d && d < s.end)
        {
            out.push(Span::new(d, end, Kind::IpAddress));
        }
        resume.max(d + 1)
    }
}

impl Recognizer for IpRecognizer {
    fn find(&self, text: &str, _cx: &FindContext<'_>, out: &mut Vec<Span>) {
        let v6 = self.find_v6(text.as_bytes(), out);
        let mut i = 0;
        while let Some(d) = next_digit(text.as_bytes(), i) {
            i = self.step(text, &DigitRun::at(text.as_bytes(), d), &v6, out);
        }
    }
}

/// An IPv4 address starting at the digit `d`; also returns where to resume scanning.
fn v4_at(text: &str, d: usize) -> (Option<usize>, usize) {
    let b = text.as_bytes();
    // Walk `digits(.digits)*` and remember where it ends.
    let mut i = d;
    let mut dots = 0;
    loop {
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() && i - s < 4 {
            i += 1;
        }
        if i < b.len() && b[i].is_ascii_digit() {
            // A group of 4+ digits: skip the whole run.
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            return (None, i);
        }
        if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) && dots < 4 {
            dots += 1;
            i += 1;
        } else {
            break;
        }
    }
    if dots != 3 {
        return (None, i.max(d + 1));
    }
    let left_ok =
        d == 0 || !(b[d - 1].is_ascii_alphanumeric() || matches!(b[d - 1], b'_' | b'.' | b'-'));
    let right_ok = match b.get(i) {
        None => true,
        Some(&n) => {
            !(n.is_ascii_alphanumeric()
                || n == b'_'
                || (n == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_alphanumeric)))
        }
    };
    if !left_ok || !right_ok || after_version_word(text, d) {
        return (None, i);
    }
    let Ok(addr) = text[d..i].parse::<Ipv4Addr>() else {
        return (None, i);
    };
    let [a, b2, c, _] = addr.octets();
    let skip = addr.is_unspecified()
        || addr.is_loopback()
        || addr.is_link_local()
        || addr.is_multicast()
        || addr.is_broadcast()
        || a >= 240
        || (a, b2, c) == (192, 0, 2)
        || (a, b2, c) == (198, 51, 100)
        || (a, b2, c) == (203, 0, 113)
        || a == 0;
    ((!skip).then_some(i), i)
}

/// Whether the word before `d` says a dotted number is a version (`version 1.2.3.4`, `v1.2`).
fn after_version_word(text: &str, d: usize) -> bool {
    let before = text[..d].trim_end_matches([' ', ':']);
    let word_start = before
        .char_indices()
        .rev()
        .find(|&(_, c)| !c.is_ascii_alphabetic())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let word = &before[word_start..];
    ["version", "ver", "v", "release", "build", "firmware", "oid"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(word))
}

/// The bytes of an IPv6 candidate token: hex digits, `:` and `.` (of an embedded IPv4 tail).
const V6_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        table[c] = b.is_ascii_hexdigit() || b == b':' || b == b'.';
        c += 1;
    }
    table
};

/// Whether `c` may be part of an IPv6 address's text, looked up in a table: the scans around
/// each colon ask it of every byte of the token.
#[inline(always)]
fn is_v6_byte(c: u8) -> bool {
    V6_BYTES[usize::from(c)]
}

/// An IPv6 address containing the `:` at `colon`, and how far the candidate token reached
/// (colons before that need no second look).
fn v6_at(b: &[u8], colon: usize) -> (Option<(usize, usize)>, usize) {
    let mut start = colon;
    while start > 0 && is_v6_byte(b[start - 1]) && colon - start < MAX_V6 {
        start -= 1;
    }
    let mut end = colon + 1;
    while end < b.len() && is_v6_byte(b[end]) && end - start < MAX_V6 + 1 {
        end += 1;
    }
    let scanned_to = end;
    (v6_token(b, start, end, colon), scanned_to)
}

fn v6_token(b: &[u8], mut start: usize, mut end: usize, colon: usize) -> Option<(usize, usize)> {
    // Trailing sentence punctuation.
    while end > colon + 1 && matches!(b[end - 1], b'.') {
        end -= 1;
    }
    // A single trailing `:` (`addr: value`) is punctuation, `::` is part of the address.
    if end >= 2 && b[end - 1] == b':' && b[end - 2] != b':' {
        end -= 1;
    }
    while start < colon && b[start] == b'.' {
        start += 1;
    }
    if end <= start {
        return None;
    }
    let glued_left =
        start > 0 && (b[start - 1].is_ascii_alphanumeric() || matches!(b[start - 1], b'_' | b'-'));
    let glued_right =
        end < b.len() && (b[end].is_ascii_alphanumeric() || matches!(b[end], b'_' | b'-'));
    if glued_left || glued_right {
        return None;
    }
    let token = &b[start..end];
    let colons = token.iter().filter(|&&c| c == b':').count();
    let compressed = token.windows(2).any(|w| w == b"::");
    // Eight groups need seven colons; only `::` allows fewer (`10:30:00` is a time).
    let groups_ok = if compressed {
        colons >= 2
    } else {
        colons == 7 || (colons == 6 && token.contains(&b'.'))
    };
    if !groups_ok || !token.iter().any(u8::is_ascii_digit) {
        return None;
    }
    let s = std::str::from_utf8(token).ok()?;
    let addr: Ipv6Addr = s.parse().ok()?;
    let seg = addr.segments();
    let skip = addr.is_unspecified()
        || addr.is_loopback()
        || addr.is_multicast()
        || (seg[0] & 0xffc0) == 0xfe80
        || (seg[0], seg[1]) == (0x2001, 0x0db8)
        || addr
            .to_ipv4_mapped()
            .is_some_and(|v4| v4.is_loopback() || v4.is_unspecified());
    (!skip).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        IpRecognizer::new().find(text, &FindContext::default(), &mut out);
        out.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn finds_v4_public_and_private() {
        assert_eq!(find("from 86.231.85.193 blocked"), ["86.231.85.193"]);
        assert_eq!(find("host=10.218.6.131:8080."), ["10.218.6.131"]);
        assert_eq!(find("|98.85.59.159|"), ["98.85.59.159"]);
        assert_eq!(find("peer 192.168.1.20, next"), ["192.168.1.20"]);
    }

    #[test]
    fn finds_v6() {
        assert_eq!(
            find("address 4f8a:c99e:dc86:faf9:5988:5f63:375e:8a2a blocked"),
            ["4f8a:c99e:dc86:faf9:5988:5f63:375e:8a2a"]
        );
        assert_eq!(
            find("via 2a00:1450:4001:81b::200e."),
            ["2a00:1450:4001:81b::200e"]
        );
        assert_eq!(find("[2606:4700::6810:84e5]:443"), ["2606:4700::6810:84e5"]);
        assert_eq!(find("mapped ::ffff:8.8.8.8 ok"), ["::ffff:8.8.8.8"]);
    }

    #[test]
    fn skips_addresses_that_identify_no_one() {
        for text in [
            "listen 0.0.0.0:80 and 127.0.0.1",
            "::1 and :: and fe80::1 and ff02::1",
            "doc 192.0.2.1 198.51.100.7 203.0.113.9 2001:db8::1",
            "link 169.254.10.10 multicast 224.0.0.251 broadcast 255.255.255.255",
        ] {
            assert_eq!(find(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn lone_colons_are_settled_as_the_reference_settles_them() {
        let pieces: &[&str] = &[
            ":",
            "::",
            "a",
            "f",
            "0",
            "9",
            "z",
            " ",
            ".",
            "-",
            "_",
            "fe80",
            "1",
            "ffff",
            "db8",
            "key: ",
            "http://",
            "10:30",
            "é",
            "\n",
            // Long runs, so that colons stand near `MAX_V6` bytes apart (the shortcut for a
            // colon with no other in reach) inside and outside address bytes.
            "0123456789abcdef0123456789abcdef0123456789a",
            "0123456789abcdef0123456789abcdef0123",
            "                                           ",
            "1.2.3.4.5.6.7.8.9.0.1.2.3.4.5.6.7.8.9.0.12",
        ];
        let mut rng = crate::testdata::Rng::new(41);
        let ip = IpRecognizer::new();
        let mut texts: Vec<String> = (0..50_000)
            .map(|_| (0..rng.below(30)).map(|_| *rng.pick(pieces)).collect())
            .collect();
        texts.push(crate::testdata::clean_text(8, 64 * 1024).text);
        texts.push(crate::testdata::prose(7, 64 * 1024).text);
        for text in &texts {
            let (mut new, mut old) = (Vec::new(), Vec::new());
            let (a, b) = (
                ip.find_v6(text.as_bytes(), &mut new),
                ip.find_v6_reference(text.as_bytes(), &mut old),
            );
            assert_eq!((a, new), (b, old), "{text:?}");
        }
    }

    #[test]
    fn edge_inputs_do_not_panic() {
        for text in [
            ":", "::", ": x", "a:", ":1", "1:", ".:.", "1.2.3.", ".1.2.3.4", "ff::ff:",
        ] {
            find(text);
        }
    }

    #[test]
    fn ignores_non_addresses() {
        for text in [
            "version 1.2.3.4",
            "v1.2.3.4",
            "1.2.3.4.5",
            "256.1.1.1",
            "01.02.03.04",
            "at 10:30:00 and 12:34",
            "use std::io::Read; a::b",
            "mac 00:1a:2b:3c:4d:5e",
            "abc1.2.3.4",
            "sha dead:beef",
            "2024-01-15 10.20.30.40x",
        ] {
            assert_eq!(find(text), Vec::<&str>::new(), "{text}");
        }
    }
}
