//! Chinese, Korean and Vietnamese names written in the Latin script, surname first ("Li Wei",
//! "Wang Fang", "Kim Min-jun", "Nguyen Van An", "Tran Thi Lan").
//!
//! The gazetteer knows these words only from Faker's lists, with low scores, and many given
//! names are short syllables that are also English words ("Fang", "Min", "Jun"); the learned
//! judge, trained on English text, drops them. What makes such a run a name is its shape: a
//! surname from a short list of the commonest ones, then given-name words that split into the
//! syllables of the same language's romanization. "Li Ion" is not one ("ion" is no pinyin
//! syllable), nor "Long Beach" (no surname on the lists that is also an everyday English word).

/// The commonest Chinese surnames in pinyin, less those that are everyday English words ("He",
/// "Long", "Song", "Sun", "Fan", "Ma", "Tan").
const CHINESE_SURNAMES: &[&str] = &[
    "bai", "cai", "cao", "chang", "chen", "cheng", "cui", "dai", "deng", "ding", "dong", "du",
    "duan", "fang", "feng", "fu", "gao", "gong", "gu", "guo", "han", "hao", "hou", "hu", "hua",
    "huang", "jia", "jiang", "jin", "kong", "lai", "lei", "li", "liang", "liao", "lin", "liu",
    "lu", "luo", "mao", "meng", "mo", "niu", "pan", "peng", "qi", "qian", "qin", "qiu", "ren",
    "shao", "shen", "shi", "su", "tang", "tian", "wang", "wei", "wen", "wu", "xia", "xiang",
    "xiao", "xie", "xiong", "xu", "xue", "yan", "yang", "yao", "ye", "yin", "yu", "yuan", "zeng",
    "zhan", "zhang", "zhao", "zheng", "zhong", "zhou", "zhu", "zou",
];

/// The commonest Korean surnames (Revised Romanization and the usual older spellings), less
/// "Park" and "Song", which runs treat as place and English words.
const KOREAN_SURNAMES: &[&str] = &[
    "ahn", "bae", "baek", "byeon", "byun", "cha", "chae", "chang", "cho", "choe", "choi", "chung",
    "eom", "gwon", "ha", "han", "heo", "hong", "hwang", "hyun", "im", "jang", "jeon", "jeong",
    "ji", "jin", "jo", "joo", "ju", "jun", "jung", "kang", "kim", "koo", "ku", "kwak", "kwon",
    "lee", "lim", "min", "moon", "mun", "nam", "noh", "paik", "roh", "ryu", "seo", "seong", "shin",
    "sin", "son", "suh", "sung", "uhm", "won", "woo", "yang", "yi", "yoo", "yoon", "yun",
];

/// The commonest Vietnamese surnames, without diacritics.
const VIETNAMESE_SURNAMES: &[&str] = &[
    "bui", "dang", "dao", "dinh", "do", "duong", "ho", "hoang", "huynh", "lam", "le", "luong",
    "ly", "mai", "ngo", "nguyen", "pham", "phan", "tran", "trinh", "truong", "vo", "vu",
];

/// Pinyin initials, longest first so that "zh" is tried before "z".
const PINYIN_INITIALS: &[&str] = &[
    "zh", "ch", "sh", "b", "p", "m", "f", "d", "t", "n", "l", "g", "k", "h", "j", "q", "x", "r",
    "z", "c", "s", "y", "w", "",
];

/// Pinyin finals (without tone marks; "v" and "ü" aside).
const PINYIN_FINALS: &[&str] = &[
    "iang", "iong", "uang", "ang", "eng", "ing", "ong", "iao", "ian", "uai", "uan", "ai", "ei",
    "ui", "ao", "ou", "iu", "ie", "ue", "er", "an", "en", "in", "un", "ia", "ua", "uo", "a", "o",
    "e", "i", "u",
];

/// Korean initials (Revised Romanization and older spellings).
const KOREAN_INITIALS: &[&str] = &[
    "kk", "tt", "pp", "ss", "jj", "ch", "sh", "g", "k", "n", "d", "t", "r", "l", "m", "b", "p",
    "s", "j", "h", "y", "w", "",
];

/// Korean vowels, longest first.
const KOREAN_VOWELS: &[&str] = &[
    "yeo", "yae", "wae", "ae", "ya", "eo", "ye", "wa", "oe", "yo", "wo", "we", "wi", "yu", "eu",
    "ui", "oo", "ee", "a", "e", "o", "u", "i",
];

/// Korean final consonants.
const KOREAN_FINALS: &[&str] = &["ng", "k", "n", "t", "l", "m", "p", ""];

/// Vietnamese initials, without diacritics, longest first.
const VIETNAMESE_INITIALS: &[&str] = &[
    "ngh", "ng", "nh", "gh", "gi", "kh", "ph", "th", "tr", "ch", "qu", "b", "c", "d", "g", "h",
    "k", "l", "m", "n", "p", "r", "s", "t", "v", "x", "",
];

/// Vietnamese vowel groups, without diacritics, longest first.
const VIETNAMESE_VOWELS: &[&str] = &[
    "uye", "uya", "ieu", "uoi", "ai", "ao", "au", "ay", "eo", "eu", "ia", "ie", "iu", "oa", "oe",
    "oi", "ua", "ue", "ui", "uo", "uu", "uy", "ye", "a", "e", "i", "o", "u", "y",
];

/// Vietnamese final consonants.
const VIETNAMESE_FINALS: &[&str] = &["ng", "nh", "ch", "c", "m", "n", "p", "t", ""];

/// A romanization: its syllables are an initial, a vowel part and (but for pinyin, whose
/// finals carry their consonant) a final consonant.
struct Romanization {
    initials: &'static [&'static str],
    vowels: &'static [&'static str],
    finals: &'static [&'static str],
}

const PINYIN: Romanization = Romanization {
    initials: PINYIN_INITIALS,
    vowels: PINYIN_FINALS,
    finals: &[""],
};

const KOREAN: Romanization = Romanization {
    initials: KOREAN_INITIALS,
    vowels: KOREAN_VOWELS,
    finals: KOREAN_FINALS,
};

const VIETNAMESE: Romanization = Romanization {
    initials: VIETNAMESE_INITIALS,
    vowels: VIETNAMESE_VOWELS,
    finals: VIETNAMESE_FINALS,
};

impl Romanization {
    /// Whether lower-case ASCII `word` splits into `1..=most` syllables. Only the first may
    /// open with a vowel: a later one would be written after an apostrophe or a hyphen
    /// ("Xi'an", "Ji-ah"), so "Bean" is no "be" + "an".
    fn splits(&self, word: &str, most: usize, first: bool) -> bool {
        if word.is_empty() {
            return !first;
        }
        if most == 0 {
            return false;
        }
        self.initials.iter().any(|i| {
            (first || !i.is_empty())
                && word.strip_prefix(i).is_some_and(|rest| {
                    self.vowels.iter().any(|v| {
                        rest.strip_prefix(v).is_some_and(|rest| {
                            self.finals.iter().any(|f| {
                                rest.strip_prefix(f)
                                    .is_some_and(|rest| self.splits(rest, most - 1, false))
                            })
                        })
                    })
                })
        })
    }

    /// Whether `word` (any case) is a given-name word of this romanization: up to `most`
    /// syllables, or syllables joined by hyphens ("Min-jun", "Xiao-ming").
    fn given_word(&self, word: &str, most: usize) -> bool {
        if !word.is_ascii() || word.len() > 12 {
            return false;
        }
        // Folded on the stack (at most twelve ASCII bytes), not in a new string.
        let mut buf = [0u8; 12];
        let buf = &mut buf[..word.len()];
        buf.copy_from_slice(word.as_bytes());
        buf.make_ascii_lowercase();
        let Ok(lower) = std::str::from_utf8(buf) else {
            return false;
        };
        if lower.contains('-') {
            lower.split('-').all(|part| self.splits(part, 1, true))
        } else {
            self.splits(lower, most, true)
        }
    }
}

/// Vietnamese middle names that stand between surname and given name ("Van", "Thi").
const VIETNAMESE_MIDDLES: &[&str] = &[
    "van", "thi", "duc", "minh", "ngoc", "quoc", "thanh", "huu", "xuan", "kim", "thu", "hoang",
];

/// Phrases of the same shape that are things and places, as a surname and the given name
/// (each first word has at most four letters: `judge` tests only such words).
const NOT_NAMES: &[(&str, &str)] = &[
    ("hong", "kong"),
    ("mai", "tai"),
    ("ding", "dong"),
    ("feng", "shui"),
    ("yin", "yang"),
    ("wu", "tang"),
    ("lo", "mein"),
    ("chow", "mein"),
    ("bok", "choy"),
];

/// The filter bit of a lower-case word of at most eight bytes, packed little-endian and
/// padded with zeros ([`surname_first`] packs a run's first word the same way).
const fn surname_bit(packed: u64) -> usize {
    (packed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 52) as usize
}

/// A 4096-bit filter with the [`surname_bit`] of every surname of the lists set: a first word
/// that is none of them (nearly every run) fails one bit test, before the binary searches.
/// (About 180 surnames: one other word in twenty passes; a bit per length and first letter
/// let through nine runs in ten of the prose.)
const SURNAME_FILTER: [u64; 64] = {
    let mut filter = [0u64; 64];
    let lists = [CHINESE_SURNAMES, KOREAN_SURNAMES, VIETNAMESE_SURNAMES];
    let mut l = 0;
    while l < lists.len() {
        let mut i = 0;
        while i < lists[l].len() {
            let w = lists[l][i].as_bytes();
            let mut packed = 0u64;
            let mut k = 0;
            while k < w.len() {
                packed |= (w[k] as u64) << (8 * k);
                k += 1;
            }
            let bit = surname_bit(packed);
            filter[bit / 64] |= 1 << (bit % 64);
            i += 1;
        }
        l += 1;
    }
    filter
};

/// `word` (ASCII, any case) lower-cased and packed as [`surname_bit`] reads it, if its bit is
/// set in [`SURNAME_FILTER`]: `None` for every word that is no surname of the lists and for
/// nearly every other word.
fn surname_candidate(word: &str) -> Option<u64> {
    if word.len() > 8 {
        return None;
    }
    let mut packed = 0u64;
    for (k, &c) in word.as_bytes().iter().enumerate() {
        packed |= u64::from(c.to_ascii_lowercase()) << (8 * k);
    }
    let bit = surname_bit(packed);
    (SURNAME_FILTER[bit / 64] & (1 << (bit % 64)) != 0).then_some(packed)
}

/// Whether `first second` is one of [`NOT_NAMES`] ("Hong Kong", "Feng Shui"): never a person.
pub(super) fn known_thing(first: &str, second: &str) -> bool {
    NOT_NAMES
        .iter()
        .any(|(a, b)| first.eq_ignore_ascii_case(a) && second.eq_ignore_ascii_case(b))
}

/// Whether `words` (the name words of a run, in order; any case) are a surname from the lists
/// followed by one or two given-name words of the same language.
pub(super) fn surname_first(words: &[&str]) -> bool {
    let [surname, given @ ..] = words else {
        return false;
    };
    if !(1..=3).contains(&given.len()) || !surname.is_ascii() {
        return false;
    }
    // Most runs are no such name: one bit of the filter rejects nearly all of them (before
    // the list of known things, which costs a comparison per entry); the lists are sorted (a
    // test checks) for a binary search of the rest.
    let Some(packed) = surname_candidate(surname) else {
        return false;
    };
    if known_thing(surname, given[0]) {
        return false;
    }
    let buf = packed.to_le_bytes();
    let lower = &buf[..surname.len()];
    let is = |list: &[&str]| list.binary_search_by(|s| s.as_bytes().cmp(lower)).is_ok();
    let vietnamese = is(VIETNAMESE_SURNAMES)
        && given
            .iter()
            .all(|w| VIETNAMESE.given_word(w, 1) && !w.contains('-'));
    if vietnamese {
        return given.len() == 1
            || given[..given.len() - 1]
                .iter()
                .all(|w| VIETNAMESE_MIDDLES.iter().any(|m| m.eq_ignore_ascii_case(w)));
    }
    if given.len() > 2 {
        return false;
    }
    (is(CHINESE_SURNAMES) && given.iter().all(|w| PINYIN.given_word(w, 2)))
        || (is(KOREAN_SURNAMES) && given.iter().all(|w| KOREAN.given_word(w, 2)))
}

/// Whether `word` is a hyphenated given name of Chinese or Korean romanization ("Min-jun",
/// "Xiao-ming"): a capital, then syllables joined by a hyphen and a lower-case letter, as
/// such names are written and English words seldom are ("Wi-Fi", "Sci-Fi" capitalise both).
/// The gazetteer lacks most of these, so an inverted name ("Park, Min-jun") asks here.
pub(super) fn hyphenated_given(word: &str) -> bool {
    word.bytes().next().is_some_and(|c| c.is_ascii_uppercase())
        && word
            .split_once('-')
            .is_some_and(|(_, rest)| rest.bytes().next().is_some_and(|c| c.is_ascii_lowercase()))
        && (PINYIN.given_word(word, 2) || KOREAN.given_word(word, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_names_open_with_short_words() {
        assert!(NOT_NAMES.iter().all(|(a, _)| a.len() <= 4));
    }

    #[test]
    fn surname_lists_are_sorted_lower_case_and_short() {
        for list in [CHINESE_SURNAMES, KOREAN_SURNAMES, VIETNAMESE_SURNAMES] {
            assert!(list.windows(2).all(|w| w[0] < w[1]));
            assert!(
                list.iter()
                    .all(|s| s.len() <= 8 && *s == s.to_ascii_lowercase())
            );
        }
    }

    #[test]
    fn surname_filter_keeps_every_surname() {
        let on_lists = |w: &str| {
            let lower = w.to_ascii_lowercase();
            [CHINESE_SURNAMES, KOREAN_SURNAMES, VIETNAMESE_SURNAMES]
                .iter()
                .any(|list| list.contains(&lower.as_str()))
        };
        for list in [CHINESE_SURNAMES, KOREAN_SURNAMES, VIETNAMESE_SURNAMES] {
            for s in list.iter() {
                let title = format!("{}{}", s[..1].to_ascii_uppercase(), &s[1..]);
                for w in [s.to_string(), title, s.to_ascii_uppercase()] {
                    let packed = surname_candidate(&w).unwrap_or_else(|| panic!("{w}"));
                    assert_eq!(&packed.to_le_bytes()[..w.len()], s.as_bytes());
                }
            }
        }
        // Random short words: whatever passes is packed as the lower-case word; no surname is
        // rejected, and most other words are.
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let (mut passed, mut tried) = (0, 0);
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 1 + (x % 7) as usize;
            let w: String = (0..len)
                .map(|k| {
                    let c = b'a' + ((x >> (8 + 5 * k)) % 26) as u8;
                    if (x >> (50 + k)) & 1 == 1 {
                        char::from(c.to_ascii_uppercase())
                    } else {
                        char::from(c)
                    }
                })
                .collect();
            match surname_candidate(&w) {
                Some(packed) => {
                    passed += 1;
                    assert_eq!(
                        &packed.to_le_bytes()[..len],
                        w.to_ascii_lowercase().as_bytes()
                    );
                }
                None => assert!(!on_lists(&w), "{w}"),
            }
            tried += 1;
        }
        assert!(passed * 10 < tried, "{passed} of {tried}");
    }

    #[test]
    fn names_in_their_romanization() {
        for name in [
            "Li Wei",
            "Wang Fang",
            "Zhang Xiaoming",
            "Zhou Enlai",
            "Chen Jie",
            "Kim Min-jun",
            "Lee Ji-hoon",
            "Choi Seoyeon",
            "Nguyen An",
            "Tran Thi Lan",
            "Pham Minh Chau",
        ] {
            let words: Vec<&str> = name.split(' ').collect();
            assert!(surname_first(&words), "{name}");
        }
    }

    #[test]
    fn hyphenated_given_names() {
        for w in ["Min-jun", "Seo-yeon", "Xiao-ming", "Ha-eun"] {
            assert!(hyphenated_given(w), "{w}");
        }
        for w in [
            "Min", "min-jun", "Jean-Luc", "E-mail", "Co-op", "Pre-sale", "Wi-Fi",
        ] {
            assert!(!hyphenated_given(w), "{w}");
        }
    }

    #[test]
    fn not_names() {
        for text in [
            "Li Ion",
            "Long Beach",
            "Wang Computers",
            "Kim Kardashian Show",
            "Lin Street",
            "Nguyen",
            "Li Bean",
            "Yu Gi Oh Cards",
            "Hong Kong",
            "Feng Shui",
        ] {
            let words: Vec<&str> = text.split(' ').collect();
            assert!(!surname_first(&words), "{text}");
        }
    }
}
