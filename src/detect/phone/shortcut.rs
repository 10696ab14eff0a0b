//! Exact stand-ins for the simplest metadata regexes, so that confirming a national-form number
//! runs fewer regex searches.
//!
//! Each regex search of the `regex` crate costs about 500 instructions on a ten-digit number,
//! however simple the pattern, and a national number used to run about eight of them (the
//! national prefix, then the leading-digits pattern and the whole pattern of each format until
//! one applies). Most of those patterns are trivial: every format pattern in the metadata is a
//! run of digit groups (`(\d{3})(\d{4})`), which an all-ASCII-digit string matches exactly when
//! its length is in a range; two thirds of the leading-digits patterns are a plain sequence of
//! digits and digit classes (`[2-9]`, `310`, `8[1-4]`); most national prefixes are a literal
//! (`0`, `1`). Each of those is read here once, when its format or region is first used, into
//! a form that is tested without a regex; any other pattern keeps its regex. The tests compare
//! every stand-in with its regex over the whole metadata.

/// The lengths an all-ASCII-digit string matched by the anchored `pattern` can have, when the
/// pattern is a run of digit groups `(\d)`, `(\d{n})` or `(\d{n,m})`: such a string matches
/// exactly when its length is in the range. `None` for any other pattern.
pub(super) fn digit_group_lengths(pattern: &str) -> Option<(usize, usize)> {
    let mut rest = pattern;
    let (mut lo, mut hi) = (0usize, 0usize);
    while !rest.is_empty() {
        rest = rest.strip_prefix("(\\d")?;
        let (min, max) = if let Some(r) = rest.strip_prefix(')') {
            rest = r;
            (1, 1)
        } else {
            let r = rest.strip_prefix('{')?;
            let close = r.find('}')?;
            let (a, b) = match r[..close].split_once(',') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => {
                    let n = number(&r[..close])?;
                    (n, n)
                }
            };
            rest = r[close + 1..].strip_prefix(')')?;
            (a, b)
        };
        if min > max {
            return None;
        }
        lo = lo.checked_add(min)?;
        hi = hi.checked_add(max)?;
    }
    (hi > 0).then_some((lo, hi))
}

/// A decimal number of at most three digits.
fn number(s: &str) -> Option<usize> {
    (!s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// A leading-digits pattern that is a plain sequence of digits and digit classes
/// (`[2-9]`, `310`, `8[1-4]`, `[89]0`): bit `d` of entry `i` is set when digit `d` may stand at
/// position `i`. `None` for any other pattern (alternation, groups, quantifiers, escapes).
pub(super) fn leading_digit_sets(pattern: &str) -> Option<Box<[u16]>> {
    let b = pattern.as_bytes();
    let mut sets = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            d @ b'0'..=b'9' => {
                sets.push(1u16 << (d - b'0'));
                i += 1;
            }
            b'[' => {
                let mut set = 0u16;
                i += 1;
                loop {
                    match b.get(i..)? {
                        [b']', ..] if set != 0 => break,
                        [a @ b'0'..=b'9', b'-', z @ b'0'..=b'9', ..] if a <= z => {
                            for d in *a..=*z {
                                set |= 1 << (d - b'0');
                            }
                            i += 3;
                        }
                        [d @ b'0'..=b'9', ..] => {
                            set |= 1 << (d - b'0');
                            i += 1;
                        }
                        _ => return None,
                    }
                }
                sets.push(set);
                i += 1;
            }
            _ => return None,
        }
    }
    (!sets.is_empty()).then(|| sets.into_boxed_slice())
}

/// Whether `text` starts with digits in `sets` (what `^(?:pattern)` matching says for the
/// pattern [`leading_digit_sets`] read).
pub(super) fn leads_with(sets: &[u16], text: &str) -> bool {
    let t = text.as_bytes();
    t.len() >= sets.len()
        && sets
            .iter()
            .zip(t)
            .all(|(&set, &c)| c.is_ascii_digit() && set & (1 << (c - b'0')) != 0)
}

/// A national-prefix pattern that is a literal run of digits (`0`, `1`, `8`): the prefix regex
/// then matches exactly the strings that start with it, and captures nothing.
pub(super) fn literal_prefix(pattern: &str) -> Option<Box<str>> {
    (!pattern.is_empty() && pattern.bytes().all(|b| b.is_ascii_digit())).then(|| pattern.into())
}

#[cfg(test)]
mod tests {
    use regex::Regex;

    use super::super::metadata::ENTRIES;
    use super::*;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }

        fn digits(&mut self, len: usize) -> String {
            (0..len)
                .map(|_| char::from(b'0' + self.below(10) as u8))
                .collect()
        }
    }

    #[test]
    fn parsers_read_what_they_should() {
        assert_eq!(digit_group_lengths("(\\d{3})(\\d{4})"), Some((7, 7)));
        assert_eq!(digit_group_lengths("(\\d)(\\d{7,8})"), Some((8, 9)));
        assert_eq!(digit_group_lengths("(\\d{3,6})"), Some((3, 6)));
        assert_eq!(digit_group_lengths("(\\d{3})(\\d{4})?"), None);
        assert_eq!(digit_group_lengths("([2-9]\\d{2})"), None);
        assert_eq!(digit_group_lengths(""), None);
        assert_eq!(
            leading_digit_sets("8[1-4]").as_deref(),
            Some(&[1 << 8, 0b11110][..])
        );
        assert_eq!(
            leading_digit_sets("[24-6]").as_deref(),
            Some(&[0b111_0100][..])
        );
        assert!(leading_digit_sets("[2-9]|3").is_none());
        assert!(leading_digit_sets("1(?:2|3)").is_none());
        assert!(leading_digit_sets("[^1]").is_none());
        assert!(leading_digit_sets("[]").is_none());
        assert_eq!(literal_prefix("0").as_deref(), Some("0"));
        assert!(literal_prefix("0|180020").is_none());
        assert!(literal_prefix("").is_none());
    }

    /// Every format pattern of the metadata that reads as digit groups matches an all-digit
    /// string exactly when the regex does, at every length a candidate can have.
    #[test]
    fn digit_groups_agree_with_the_regex_over_the_metadata() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut read = 0;
        for format in ENTRIES.iter().flat_map(|e| e.formats) {
            let Some((lo, hi)) = digit_group_lengths(format.pattern) else {
                continue;
            };
            read += 1;
            let re = Regex::new(&format!("^(?:{})$", format.pattern)).unwrap();
            for len in 0..=26 {
                for _ in 0..3 {
                    let s = rng.digits(len);
                    assert_eq!(
                        (lo..=hi).contains(&len),
                        re.is_match(&s),
                        "{} {s}",
                        format.pattern
                    );
                }
            }
        }
        // Every format pattern of the metadata is a run of digit groups.
        let formats = ENTRIES.iter().map(|e| e.formats.len()).sum::<usize>();
        assert_eq!(read, formats);
    }

    /// Every leading-digits pattern that reads as digit sets matches what its regex matches:
    /// every digit string of up to four digits, random longer ones, and strings with other
    /// characters.
    #[test]
    fn leading_sets_agree_with_the_regex_over_the_metadata() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut short = Vec::new();
        for len in 0..=4u32 {
            for n in 0..10u32.pow(len) {
                short.push(format!("{n:0width$}", width = len as usize));
            }
        }
        let (mut read, mut matched) = (0, 0);
        for leading in ENTRIES
            .iter()
            .flat_map(|e| e.formats)
            .filter_map(|f| f.leading)
        {
            let Some(sets) = leading_digit_sets(leading) else {
                continue;
            };
            read += 1;
            let re = Regex::new(&format!("^(?:{leading})")).unwrap();
            let mut texts = short.clone();
            for _ in 0..200 {
                let len = 5 + rng.below(8) as usize;
                texts.push(rng.digits(len));
            }
            // Strings that follow the pattern's own digits, then random ones.
            let own: String = sets
                .iter()
                .map(|s| char::from(b'0' + s.trailing_zeros() as u8))
                .collect();
            texts.push(format!("{own}{}", rng.digits(6)));
            texts.push(format!("{own}x"));
            texts.push(format!("a{own}"));
            texts.push(format!("{own}\u{661}"));
            texts.push(format!("\u{661}{own}"));
            for t in &texts {
                let fast = leads_with(&sets, t);
                assert_eq!(fast, re.is_match(t), "{leading} {t:?}");
                matched += usize::from(fast);
            }
        }
        assert!(read > 400, "{read}");
        assert!(matched > 10_000, "{matched}");
    }

    /// A literal national prefix matches, as a regex anchored at the start, exactly the strings
    /// that start with it, and has no capture group.
    #[test]
    fn literal_prefixes_agree_with_the_regex_over_the_metadata() {
        let mut rng = Rng(0xdead_beef_cafe_f00d);
        for entry in ENTRIES {
            let source = entry
                .prefix_for_parsing
                .map(String::from)
                .or_else(|| entry.national_prefix.map(regex::escape));
            let Some(source) = source else { continue };
            let Some(lit) = literal_prefix(&source) else {
                continue;
            };
            let re = Regex::new(&format!("^(?:{source})")).unwrap();
            assert_eq!(re.captures_len(), 1);
            for len in 0..12 {
                for s in [rng.digits(len), format!("{lit}{}", rng.digits(len))] {
                    let want = re.find(&s).map(|m| m.end());
                    assert_eq!(s.starts_with(&*lit).then_some(lit.len()), want, "{s}");
                }
            }
        }
    }
}
