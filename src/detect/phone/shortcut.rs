//! Exact stand-ins for the simplest metadata regexes, so that confirming a national-form number
//! runs fewer regex searches.
//!
//! Each regex search of the `regex` crate costs about 500 instructions on a ten-digit number,
//! however simple the pattern, and a national number used to run about eight of them (the
//! national prefix, then the leading-digits pattern and the whole pattern of each format until
//! one applies). Most of those patterns are trivial: every format pattern in the metadata is a
//! run of digit groups (`(\d{3})(\d{4})`), which an all-ASCII-digit string matches exactly when
//! its length is in a range; every leading-digits pattern is digits, digit classes, `\d`,
//! groups and alternation, with no quantifier (`[2-9]`, `8[1-4]`, `1(?:[2-69][02-9]|[78])`),
//! which a small tree of digit sets matches exactly; most national prefixes are a literal
//! (`0`, `1`). Each of those is read here once, when the recognizer is built, into a form that
//! is tested without a regex, so no regex is compiled on the first numbers a process sees
//! (compiling one costs far more than a whole small tool result); any other pattern keeps its
//! regex. The tests compare every stand-in with its regex over the whole metadata.

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

/// A leading-digits pattern read as a tree of digit sets, alternations and groups: every
/// leading-digits pattern of the metadata is one (digits, classes, `\d`, `(?:..)` and `|`;
/// no quantifier). Read when the recognizer is built, so that no format's regex is compiled
/// on the first numbers a process sees; [`Leading::matches`] says what `^(?:pattern)` says.
#[derive(Debug)]
pub(super) struct Leading {
    /// The alternatives of the whole pattern.
    alts: Vec<Vec<Atom>>,
    /// Whether the pattern holds `\d`, which the regex reads as any Unicode digit.
    any_digit: bool,
}

#[derive(Debug)]
enum Atom {
    /// One ASCII digit in the set (bit `d` for digit `d`).
    Set(u16),
    /// A group: one of its alternatives.
    Group(Vec<Vec<Atom>>),
}

/// Groups nest no deeper than this in a pattern [`Leading::parse`] reads.
const MAX_NESTING: usize = 16;

impl Leading {
    /// The tree of `pattern`; `None` for a pattern outside that grammar.
    pub(super) fn parse(pattern: &str) -> Option<Leading> {
        let b = pattern.as_bytes();
        let mut i = 0;
        let mut any_digit = false;
        let alts = parse_alts(b, &mut i, 0, &mut any_digit)?;
        (i == b.len()).then_some(Leading { alts, any_digit })
    }

    /// Whether `text` starts with a string the pattern matches (what `^(?:pattern)` matching
    /// says); `None` when this cannot tell without the regex (a text with other characters
    /// than ASCII digits under a pattern with `\d`, or a text longer than 63 bytes).
    pub(super) fn matches(&self, text: &str) -> Option<bool> {
        let t = text.as_bytes();
        if t.len() > 63 || (self.any_digit && !t.iter().all(u8::is_ascii_digit)) {
            return None;
        }
        Some(ends_of_alts(&self.alts, t, 1) != 0)
    }
}

fn parse_alts(b: &[u8], i: &mut usize, depth: usize, any: &mut bool) -> Option<Vec<Vec<Atom>>> {
    if depth > MAX_NESTING {
        return None;
    }
    let mut alts = vec![Vec::new()];
    while let Some(&c) = b.get(*i) {
        match c {
            b'|' => {
                alts.push(Vec::new());
                *i += 1;
            }
            b')' => break,
            b'(' => {
                if b.get(*i + 1..*i + 3) != Some(&b"?:"[..]) {
                    return None;
                }
                *i += 3;
                let group = parse_alts(b, i, depth + 1, any)?;
                if b.get(*i) != Some(&b')') {
                    return None;
                }
                *i += 1;
                alts.last_mut()?.push(Atom::Group(group));
            }
            b'\\' => {
                if b.get(*i + 1) != Some(&b'd') {
                    return None;
                }
                *i += 2;
                *any = true;
                alts.last_mut()?.push(Atom::Set(0x3ff));
            }
            b'0'..=b'9' | b'[' => {
                let end = if c == b'[' {
                    *i + b[*i..].iter().position(|&x| x == b']')? + 1
                } else {
                    *i + 1
                };
                let sets = leading_digit_sets(std::str::from_utf8(&b[*i..end]).ok()?)?;
                alts.last_mut()?.push(Atom::Set(*sets.first()?));
                *i = end;
            }
            _ => return None,
        }
    }
    // An empty alternative would match anywhere: the metadata has none; leave it to the regex.
    alts.iter().all(|a| !a.is_empty()).then_some(alts)
}

/// The positions (bit `p`: `text[..p]` matched) the alternatives `alts` can end at, from the
/// start positions `starts`. An alternative stops at its first atom that no position gets
/// past: most alternatives of a large pattern (`2[1-35-9]|3(?:[1-36]|4[0-35-9]|...)|...`)
/// fail on their first digit, and their groups are then not walked at all.
fn ends_of_alts(alts: &[Vec<Atom>], t: &[u8], starts: u64) -> u64 {
    let mut ends = 0;
    for seq in alts {
        let mut at = starts;
        for atom in seq {
            at = match atom {
                Atom::Set(set) => {
                    let mut next = 0;
                    let mut rest = at;
                    while rest != 0 {
                        let p = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        if let Some(&c) = t.get(p)
                            && c.is_ascii_digit()
                            && set & (1 << (c - b'0')) != 0
                        {
                            next |= 1 << (p + 1);
                        }
                    }
                    next
                }
                Atom::Group(group) => ends_of_alts(group, t, at),
            };
            if at == 0 {
                break;
            }
        }
        ends |= at;
    }
    ends
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

    /// A string the tree matches: the first digit of each set, the first alternative of each
    /// group or of the whole, another one chosen by `pick`.
    fn sample(alts: &[Vec<Atom>], pick: &mut Rng, out: &mut String) {
        let seq = &alts[pick.below(alts.len() as u64) as usize];
        for atom in seq {
            match atom {
                Atom::Set(set) => out.push(char::from(b'0' + set.trailing_zeros() as u8)),
                Atom::Group(group) => sample(group, pick, out),
            }
        }
    }

    /// Every leading-digits pattern of the metadata reads as a tree, and the tree matches what
    /// its regex matches: every digit string of up to four digits, random longer ones, strings
    /// the pattern itself spells, and strings with other characters.
    #[test]
    fn leading_trees_agree_with_the_regex_over_the_metadata() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut short = Vec::new();
        for len in 0..=4u32 {
            for n in 0..10u32.pow(len) {
                short.push(format!("{n:0width$}", width = len as usize));
            }
        }
        let (mut read, mut all, mut matched) = (0, 0, 0);
        for leading in ENTRIES
            .iter()
            .flat_map(|e| e.formats)
            .filter_map(|f| f.leading)
        {
            all += 1;
            let Some(tree) = Leading::parse(leading) else {
                continue;
            };
            read += 1;
            let re = Regex::new(&format!("^(?:{leading})")).unwrap();
            let mut texts = short.clone();
            for _ in 0..200 {
                let len = 5 + rng.below(8) as usize;
                texts.push(rng.digits(len));
            }
            for _ in 0..20 {
                let mut own = String::new();
                sample(&tree.alts, &mut rng, &mut own);
                texts.push(format!("{own}{}", rng.digits(6)));
                texts.push(own[..own.len() - 1].to_string());
                texts.push(format!("{own}x"));
                texts.push(format!("a{own}"));
                texts.push(format!("{own}\u{661}"));
                texts.push(format!("\u{661}{own}"));
                texts.push(own);
            }
            for t in &texts {
                match tree.matches(t) {
                    Some(fast) => {
                        assert_eq!(fast, re.is_match(t), "{leading} {t:?}");
                        matched += usize::from(fast);
                    }
                    None => assert!(tree.any_digit && !t.bytes().all(|b| b.is_ascii_digit())),
                }
            }
        }
        assert_eq!(read, all);
        assert!(read > 700, "{read}");
        assert!(matched > 10_000, "{matched}");
        for bad in ["", "1|", "(?:1", "1)", "(1)", "1?", "[^1]", "\\w", "(?:)"] {
            assert!(Leading::parse(bad).is_none(), "{bad}");
        }
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
