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
    "wang", "li", "zhang", "liu", "chen", "yang", "huang", "zhao", "wu", "zhou", "xu", "zhu", "hu",
    "guo", "lin", "gao", "luo", "zheng", "liang", "xie", "tang", "han", "feng", "deng", "cao",
    "peng", "zeng", "xiao", "tian", "dong", "pan", "yuan", "cai", "jiang", "yu", "du", "ye",
    "cheng", "wei", "su", "lu", "ding", "ren", "shen", "yao", "cui", "zhong", "jin", "shi", "liao",
    "jia", "xia", "fu", "fang", "bai", "zou", "meng", "xiong", "qin", "qiu", "hou", "yin", "xue",
    "yan", "duan", "lei", "gu", "mao", "hao", "gong", "shao", "qian", "dai", "kong", "xiang",
    "chang", "zhan", "qi", "lai", "wen", "niu", "mo", "hua",
];

/// The commonest Korean surnames (Revised Romanization and the usual older spellings), less
/// "Park" and "Song", which runs treat as place and English words.
const KOREAN_SURNAMES: &[&str] = &[
    "kim", "lee", "yi", "choi", "choe", "jung", "jeong", "chung", "kang", "cho", "jo", "yoon",
    "yun", "jang", "chang", "lim", "im", "han", "shin", "sin", "seo", "suh", "kwon", "gwon",
    "hwang", "ahn", "jeon", "jun", "hong", "moon", "mun", "yang", "son", "bae", "baek", "paik",
    "heo", "yoo", "ryu", "nam", "noh", "roh", "ha", "kwak", "sung", "seong", "cha", "joo", "ju",
    "woo", "koo", "ku", "min", "jin", "ji", "chae", "won", "byun", "byeon", "hyun", "uhm", "eom",
];

/// The commonest Vietnamese surnames, without diacritics.
const VIETNAMESE_SURNAMES: &[&str] = &[
    "nguyen", "tran", "le", "pham", "hoang", "huynh", "phan", "vu", "vo", "dang", "bui", "do",
    "ho", "ngo", "duong", "ly", "truong", "dinh", "trinh", "lam", "mai", "luong", "dao",
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

/// Phrases of the same shape that are things and places, as a surname and the given name.
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
    let is = |list: &[&str]| list.iter().any(|s| s.eq_ignore_ascii_case(surname));
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
