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
        let lower = word.to_ascii_lowercase();
        if lower.contains('-') {
            lower.split('-').all(|part| self.splits(part, 1, true))
        } else {
            self.splits(&lower, most, true)
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

/// Bit `c - 'a'` of entry `n` is set when a surname of the lists has `n` bytes and opens
/// with `c`.
const SURNAME_KEYS: [u32; 9] = {
    let mut keys = [0u32; 9];
    let lists = [CHINESE_SURNAMES, KOREAN_SURNAMES, VIETNAMESE_SURNAMES];
    let mut l = 0;
    while l < lists.len() {
        let mut i = 0;
        while i < lists[l].len() {
            let w = lists[l][i].as_bytes();
            keys[w.len()] |= 1 << (w[0] - b'a');
            i += 1;
        }
        l += 1;
    }
    keys
};

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
    if known_thing(surname, given[0]) {
        return false;
    }
    // Most runs are no such name: one bit (length, first letter) rejects nearly all of them;
    // the lists are sorted (a test checks) for a binary search of the rest.
    let first = surname.as_bytes().first().map_or(0, u8::to_ascii_lowercase);
    if !first.is_ascii_lowercase()
        || SURNAME_KEYS
            .get(surname.len())
            .is_none_or(|m| m & (1 << (first - b'a')) == 0)
    {
        return false;
    }
    let mut buf = [0u8; 8];
    let Some(lower) = buf.get_mut(..surname.len()) else {
        return false;
    };
    lower.copy_from_slice(surname.as_bytes());
    lower.make_ascii_lowercase();
    let lower = &*lower;
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
