//! Person names in free text: prose, chat, email bodies, tickets, logs and JSON string values.
//!
//! # How it works
//! One pass over the bytes splits the text into words. Lower-case words are skipped at the cost
//! of finding their end (apart from name particles such as "van", greetings such as "hi", and
//! words seen in an e-mail address of the same text), so clean text costs little. Capitalised,
//! ALL-CAPS and caseless-script words, with the initials and particles between them, are grouped
//! into *runs* of words separated by single spaces ("Dr. Maria del Carmen Ortiz"). Each run is
//! judged once, on evidence:
//!
//! - the gazetteer (`gazetteer`): how common each word is as a given name, a surname and as an
//!   ordinary English word ("Will" is a given name but far more often a verb);
//! - shape: titles and greetings trimmed off the front ("Dr.", "Thanks"), ordinary words trimmed
//!   from the ends ("Yesterday Ronald Haas"), camel-case and `@`/`#`/`_`/`.`-joined words
//!   rejected as code, mentions and addresses;
//! - context: a title or greeting before the run ("Hi Megan"), a cue such as "by", "cc", "assigned
//!   to" before it or "said" after it, a place cue ("in Jordan"), an organisation word inside it
//!   ("Wells Fargo Bank") or an `&` beside it ("Johnson & Johnson");
//! - the same message: words of an e-mail address in the text (`maria.ortiz@...`) count as names.
//!
//! Chinese, Japanese and Korean text has no spaces between words; `cjk` handles it.
//!
//! # Cost
//! No allocation for text without candidates; a small vector per call otherwise. While no run is
//! open, gaps and lower-case words are crossed eight bytes at a time (`skip_idle`). The
//! gazetteer is packed at compile time (`build.rs`) and copied, with the word lists' flags added,
//! once per process (see `gazetteer`); `README.md` beside this file has the measured figures
//! and the known misses.

pub mod casual;
mod cjk;
pub(super) use cjk::is_cjk;
mod gazetteer;
mod lexicon;
pub mod model;
mod romanized;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::detect::{FindContext, Kind, Span};
use gazetteer::{Entry, Gazetteer};
use lexicon::{Lexicon, ORG_PHRASES};

/// Finds person names in free text and judges whole field values.
#[derive(Debug)]
pub struct NameFinder {
    allow: Vec<String>,
    deny: Option<AhoCorasick>,
    gaz: &'static Gazetteer,
    lex: &'static Lexicon,
    /// The learned candidate judge ([`model`]), when switched on.
    judge: Option<model::Judge>,
    /// The model for lower-case names in casual text ([`casual`]), when switched on.
    casual: Option<model::Judge>,
}

/// The shape of a word's letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// `Maria`, `McDonald`, `O'Neil`, `Jean-Luc`.
    Title,
    /// `MARIA` (two letters or more).
    Upper,
    /// `maria`.
    Lower,
    /// `J.` or `J` (one capital letter).
    Initial,
    /// A script without case (Arabic, Hebrew, Devanagari ...).
    Caseless,
}

/// One candidate word of a run.
#[derive(Clone, Copy, Debug)]
struct Tok {
    start: usize,
    /// End of the name part (before a possessive `'s`; after an initial's `.`).
    end: usize,
    shape: Shape,
    particle: bool,
    /// Separated from the previous word of the run by `", "` rather than a space.
    comma_before: bool,
    /// Followed by a possessive `'s`.
    possessive: bool,
    /// The gazetteer's entry for the word.
    entry: Option<Entry>,
    /// The word lists the word is on ([`lexicon`] flags).
    flags: u16,
}

impl Tok {
    fn is(&self, flag: u16) -> bool {
        self.flags & flag != 0
    }
}

/// How strongly the words around a run say it is a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Cue {
    None,
    /// "in", "at", "the": a place or organisation more likely.
    Place,
    /// "by", "from", "contact", "said" ...
    Weak,
    /// A greeting, a sign-off, an e-mail address of the same text.
    Strong,
    /// A title: "Dr.", "Mrs.".
    Title,
}

/// What the word after a run says about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum After {
    /// Nothing.
    None,
    /// An auxiliary ("is", "was", "has"): things and places take these too ("Kenya was fun").
    Aux,
    /// A speaker label, a vocative, or a verb people do ("said", "shouted", "spent").
    Person,
}

/// Per-call evidence: lower-case words of e-mail local parts that are known name words.
#[derive(Debug, Default)]
struct Evidence {
    words: Vec<String>,
    /// A 1024-bit filter over (length, first letter, last letter) of each word, case folded:
    /// most words of a text are rejected by one bit test, without comparing strings.
    filter: [u64; 16],
    /// Whether there is any word (the filter is not empty).
    any: bool,
    /// Bit `min(len, 63)` is set for the byte length of each word: most words of a text
    /// have no evidence word's length (short words first of all), one test rejects them.
    lens: u64,
    /// The greetings' and these words' [`IdleStops`], once there is a word (most texts have
    /// none, and a JSON document is scanned string by string: the greetings' own table is
    /// shared, not copied per call).
    idle: Option<Box<IdleStops>>,
}

impl Evidence {
    /// What stops `skip_idle` in this text: the greetings, and the words if any.
    fn idle_stops(&self) -> &IdleStops {
        self.idle.as_deref().unwrap_or(&GREETING_STOPS)
    }
}

/// The lower-case words that stop `skip_idle` (greetings, e-mail evidence), as two tables
/// indexed by a word's first letter `c` (at `c & 31`): most words are rejected after one or
/// two loads, without comparing strings.
#[derive(Clone, Debug)]
struct IdleStops {
    /// Bit `min(len, 63)` is set when such a word of `len` bytes starts with the letter.
    lens: [u64; 32],
    /// Bit `last & 31` is set for the last letter of each such word that starts with the
    /// letter: the second test, for the words the first lets through ("the" has the first
    /// letter and length of "thx", not its last letter).
    lasts: [u32; 32],
}

impl IdleStops {
    /// Whether `word` (not empty) has the first letter and length, and the first and last
    /// letter, of some word added (the test `skip_idle` makes): when not, it is none of them.
    fn passes(&self, word: &[u8]) -> bool {
        let key = usize::from(word[0] & 31);
        self.lens[key] & (1 << word.len().min(63)) != 0
            && self.lasts[key] & (1 << (word[word.len() - 1] & 31)) != 0
    }

    /// Adds `word` (ASCII letters; `& 31` folds their case).
    const fn add(&mut self, word: &[u8]) {
        let (first, last) = ((word[0] & 31) as usize, word[word.len() - 1] & 31);
        let len = if word.len() < 63 { word.len() } else { 63 };
        self.lens[first] |= 1 << len;
        self.lasts[first] |= 1 << last;
    }
}

/// [`IdleStops`] of the [`LOWER_GREETINGS`] alone.
static GREETING_STOPS: IdleStops = {
    let mut t = IdleStops {
        lens: [0; 32],
        lasts: [0; 32],
    };
    let mut i = 0;
    while i < LOWER_GREETINGS.len() {
        t.add(LOWER_GREETINGS[i].as_bytes());
        i += 1;
    }
    t
};

/// The filter bit of a word for [`Evidence`]: words equal up to ASCII case share it (`& 31`
/// maps an ASCII letter and its capital to the same value and leaves other bytes unchanged
/// by case folding).
#[inline]
fn evidence_key(word: &[u8]) -> usize {
    let first = usize::from(word.first().map_or(0, |c| c & 31));
    let last = usize::from(word.last().map_or(0, |c| c & 31));
    ((first << 5) | last) ^ (word.len().wrapping_mul(37) & 1023)
}

impl Evidence {
    fn collect(text: &str, gaz: &Gazetteer) -> Evidence {
        let mut ev = Evidence::default();
        let b = text.as_bytes();
        for at in memchr::memchr_iter(b'@', b) {
            if ev.words.len() >= 16 {
                break;
            }
            let mut s = at;
            while s > 0
                && (b[s - 1].is_ascii_alphanumeric()
                    || matches!(b[s - 1], b'.' | b'_' | b'-' | b'+'))
            {
                s -= 1;
            }
            for part in text[s..at].split(|c: char| !c.is_ascii_alphabetic()) {
                if part.len() >= 3
                    && ev.words.len() < 16
                    && gaz.lookup(part).is_some_and(|e| e.name() >= 1)
                    && !ev.has(part)
                {
                    ev.words.push(part.to_ascii_lowercase());
                    let k = evidence_key(part.as_bytes());
                    ev.filter[k / 64] |= 1 << (k % 64);
                    ev.any = true;
                    ev.lens |= 1 << part.len().min(63);
                    ev.idle
                        .get_or_insert_with(|| Box::new(GREETING_STOPS.clone()))
                        .add(part.as_bytes());
                }
            }
        }
        ev
    }

    fn has(&self, word: &str) -> bool {
        self.has_bytes(word.as_bytes())
    }

    #[inline]
    fn has_bytes(&self, word: &[u8]) -> bool {
        let k = evidence_key(word);
        self.lens & (1 << word.len().min(63)) != 0
            && self.filter[k / 64] & (1 << (k % 64)) != 0
            && self
                .words
                .iter()
                .any(|w| w.as_bytes().eq_ignore_ascii_case(word))
    }
}

/// Whether `c` can be part of a word: letters of any script and the combining marks used in
/// Indic, Arabic and Hebrew names.
fn is_word_char(c: char) -> bool {
    c.is_alphabetic()
        || matches!(c as u32, 0x0300..=0x036F | 0x0610..=0x061A | 0x064B..=0x065F | 0x0670
            | 0x05B0..=0x05C7 | 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957
            | 0x0981..=0x0983 | 0x09BC..=0x09D7 | 0x0A01..=0x0A51 | 0x0B01..=0x0BCD
            | 0x0C00..=0x0D4D | 0x0E31..=0x0E4E | 0x200C | 0x200D)
}

/// `text[a..b]`, or "" when the range is empty or not on character boundaries.
fn text_of(text: &str, a: usize, b: usize) -> &str {
    text.get(a..b).unwrap_or("")
}

fn char_at(text: &str, i: usize) -> Option<char> {
    text.get(i..).and_then(|s| s.chars().next())
}

fn char_before(text: &str, i: usize) -> Option<char> {
    text.get(..i).and_then(|s| s.chars().next_back())
}

/// The end of the word starting at `i`: letters, with `'`, `’` and `-` allowed between letters.
fn word_end(text: &str, mut i: usize) -> usize {
    let b = text.as_bytes();
    let n = b.len();
    while i < n {
        let c = b[i];
        if c.is_ascii_alphabetic() {
            i += 1;
        } else if c < 0x80 {
            let next_letter = i + 1 < n && b[i + 1].is_ascii_alphabetic();
            let next_non_ascii = i + 1 < n && b[i + 1] >= 0x80;
            if (c == b'\'' || c == b'-') && next_letter || c == b'-' && next_non_ascii {
                i += 1;
            } else {
                break;
            }
        } else {
            let Some(ch) = char_at(text, i) else { break };
            if ch == '’' && i + 3 < n && b[i + 3].is_ascii_alphabetic() {
                i += 3;
            } else if is_word_char(ch) && !cjk::is_cjk(ch) {
                i += ch.len_utf8();
            } else {
                break;
            }
        }
    }
    i
}

fn shape_of(word: &str) -> Option<Shape> {
    if word.is_ascii() {
        return shape_of_ascii(word);
    }
    let mut chars = word.chars();
    let first = chars.next()?;
    if !first.is_uppercase() {
        return Some(if first.is_lowercase() {
            Shape::Lower
        } else {
            Shape::Caseless
        });
    }
    if word.len() == first.len_utf8() {
        return Some(Shape::Initial);
    }
    let mut upper = 0usize;
    let mut lower = 0usize;
    let mut prev = first;
    let mut camel = false;
    for c in chars {
        if c.is_uppercase() {
            upper += 1;
            // McDonald, MacArthur, O'Neil, D'Angelo, Jean-Luc, DeShawn, LaToya
            if lower > 0 && !matches!(prev, '\'' | '’' | '-') && !mc_prefix(word, c) {
                camel = true;
            }
        } else if c.is_lowercase() {
            lower += 1;
        }
        prev = c;
    }
    if lower == 0 && upper > 0 {
        return Some(Shape::Upper);
    }
    if camel {
        return None;
    }
    Some(Shape::Title)
}

/// [`shape_of`] for an ASCII word, byte by byte (the same rules: for ASCII, `char::is_uppercase`
/// is `u8::is_ascii_uppercase`).
fn shape_of_ascii(word: &str) -> Option<Shape> {
    let b = word.as_bytes();
    let first = *b.first()?;
    if !first.is_ascii_uppercase() {
        return Some(if first.is_ascii_lowercase() {
            Shape::Lower
        } else {
            Shape::Caseless
        });
    }
    if b.len() == 1 {
        return Some(Shape::Initial);
    }
    let mut upper = 0usize;
    let mut lower = 0usize;
    let mut prev = first;
    // A capital after a lower-case letter, not right after `'` or `-`: camel case unless a
    // name prefix explains it. `mc_prefix` depends on the word only, so it is asked once, and
    // only when the word has exactly two capitals (which it requires).
    let mut inner_capital = false;
    for &c in &b[1..] {
        if c.is_ascii_uppercase() {
            upper += 1;
            inner_capital |= lower > 0 && !matches!(prev, b'\'' | b'-');
        } else if c.is_ascii_lowercase() {
            lower += 1;
        }
        prev = c;
    }
    if lower == 0 && upper > 0 {
        return Some(Shape::Upper);
    }
    if inner_capital && !(upper == 1 && mc_prefix_ascii(b)) {
        return None;
    }
    Some(Shape::Title)
}

/// [`mc_prefix`] for an ASCII word with exactly two capitals.
fn mc_prefix_ascii(b: &[u8]) -> bool {
    [
        "Mc", "Mac", "De", "La", "Le", "Di", "Da", "Van", "Fitz", "St", "Du",
    ]
    .iter()
    .any(|p| b.starts_with(p.as_bytes()) && b.get(p.len()).is_some_and(u8::is_ascii_uppercase))
}

/// Whether an inner capital follows a name prefix (`McDonald`, `MacKenzie`, `DeAndre`, `LaToya`,
/// `DiMaggio`, `VanDyke`, `FitzGerald`).
fn mc_prefix(word: &str, _c: char) -> bool {
    let uppers = word.chars().filter(|c| c.is_uppercase()).count();
    uppers == 2
        && [
            "Mc", "Mac", "De", "La", "Le", "Di", "Da", "Van", "Fitz", "St", "Du",
        ]
        .iter()
        .any(|p| {
            word.starts_with(p)
                && word[p.len()..]
                    .chars()
                    .next()
                    .is_some_and(char::is_uppercase)
        })
}

/// Whether a lower-case word with gazetteer entry `e` may be a name after a greeting or another
/// strong cue in capitalised text: a name more than a word ("megan", "john"), not "will" or
/// "mark".
fn lower_given_name_after_cue(e: Entry) -> bool {
    e.name() >= 3 && (e.wordiness() <= 2 || (e.first >= 6 && e.wordiness() <= 4))
}

/// Whether `rest`, the text right after a run, is an e-mail address in angle brackets
/// (` <maria@example.com>`, `" <...>` after a quoted name): the run is that address's display
/// name.
fn display_name_before(rest: &str) -> bool {
    let rest = rest.strip_prefix('"').unwrap_or(rest);
    let Some(addr) = rest.strip_prefix(" <").or_else(|| rest.strip_prefix("<")) else {
        return false;
    };
    let addr = &addr.as_bytes()[..addr.len().min(256)];
    addr.iter().position(|&c| c == b'>').is_some_and(|close| {
        let a = &addr[..close];
        a.contains(&b'@') && !a.iter().any(|c| c.is_ascii_whitespace())
    })
}

/// Whether `b` (lower-case ASCII bytes of a short word) is a greeting or thanks that may precede
/// a lower-case name ("hi megan", "thanks omar").
fn is_lower_greeting(b: &[u8]) -> bool {
    matches!(
        b,
        b"hi" | b"hey" | b"hello" | b"dear" | b"thanks" | b"thx" | b"cheers" | b"cc" | b"yo"
    )
}

impl NameFinder {
    /// Builds the finder with names never to tokenize (`allow`) and always to tokenize (`deny`).
    pub fn new(allow: &[String], deny: &[String]) -> NameFinder {
        let deny: Vec<&str> = deny
            .iter()
            .map(|d| d.trim())
            .filter(|d| !d.is_empty())
            .collect();
        let deny = if deny.is_empty() {
            None
        } else {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(&deny)
                .ok()
        };
        NameFinder {
            allow: allow
                .iter()
                .map(|a| normalize_spaces(&a.to_lowercase()))
                .collect(),
            deny,
            gaz: Gazetteer::get(),
            lex: Lexicon::get(),
            judge: model::shipped(),
            casual: casual::shipped(),
        }
    }

    /// The same finder with another casual-text model (`None`: no casual stage); for
    /// training and evaluation (`examples/names_train.rs`).
    #[doc(hidden)]
    pub fn with_casual(mut self, model: Option<model::Judge>) -> NameFinder {
        self.casual = model;
        self
    }

    /// Finds names like [`NameFinder::find`] and also records every candidate of the casual
    /// stage, with its features (for training its model).
    #[doc(hidden)]
    pub fn trace_casual(
        &self,
        text: &str,
        out: &mut Vec<Span>,
        seen: &mut Vec<casual::CasualCandidate>,
    ) {
        self.find_inner(text, &FindContext::default(), out, None, Some(seen));
    }

    /// The same finder with another candidate judge (`None`: the rules alone); for training
    /// and evaluation (`examples/names_train.rs`).
    #[doc(hidden)]
    pub fn with_judge(mut self, judge: Option<model::Judge>) -> NameFinder {
        self.judge = judge;
        self
    }

    /// Finds names like [`NameFinder::find`] and also records every candidate the judge saw,
    /// with its features (for training the judge).
    #[doc(hidden)]
    pub fn trace(&self, text: &str, out: &mut Vec<Span>, seen: &mut Vec<model::Candidate>) {
        let cell = std::cell::RefCell::new(std::mem::take(seen));
        self.find_inner(text, &FindContext::default(), out, Some(&cell), None);
        *seen = cell.into_inner();
    }

    /// Appends names found in `text`.
    pub fn find(&self, text: &str, cx: &FindContext<'_>, out: &mut Vec<Span>) {
        self.find_inner(text, cx, out, None, None);
    }

    fn find_inner(
        &self,
        text: &str,
        cx: &FindContext<'_>,
        out: &mut Vec<Span>,
        trace: Option<&std::cell::RefCell<Vec<model::Candidate>>>,
        casual_trace: Option<&mut Vec<casual::CasualCandidate>>,
    ) {
        if let Some(deny) = &self.deny {
            self.find_denied(deny, text, out);
        }
        if text.len() < 2 {
            return;
        }
        let evidence = if has_byte(text.as_bytes(), b'@') {
            Evidence::collect(text, self.gaz)
        } else {
            Evidence::default()
        };
        // A keyed value of a few words with capitals, mostly English words, is a sentence
        // ("The ticket is assigned to Nguyen today"), not a list of names; in lower case it
        // stays a field, where lower-case names count ("spoke with jane doe").
        let field = is_short_field(text)
            || (cx.key.is_some()
                && is_keyed_field(text)
                && !(text.bytes().any(|c| c.is_ascii_uppercase())
                    && mostly_english(self.gaz, text.split(|c: char| !c.is_alphabetic()), 8)));
        // All lower-case prose ("hello, this is mr. chad farmer"): short, no capitals, no code
        // (an escaped quote or line break, `\"` or `\n`, is no code).
        let bytes = text.as_bytes();
        let lower_text = text.len() <= 1024
            && !bytes.iter().enumerate().any(|(i, &c)| {
                c.is_ascii_uppercase()
                    || (is_code_byte_in_lower_text(c)
                        && !(c == b'\\' && is_escape_letter(bytes.get(i + 1).copied())))
            })
            && (text.is_ascii() || !text.chars().any(char::is_uppercase));
        let first = out.len();
        // The casing regime of a short text (chat, tweets): the judge's threshold and the
        // casual stage depend on it. Long texts are documents: no regime test.
        let signals = if !field && !lower_text && text.len() <= casual::MAX_LEN {
            casual::regime(text)
        } else {
            0
        };
        let mut scan = Scan::new(self, text, &evidence, field, lower_text, out, trace);
        scan.signals = signals;
        scan.run_all();
        // The run's buffer back for the next call on this thread (empty: `run_all` flushed).
        let mut run = std::mem::take(&mut scan.run);
        run.clear();
        RUN_BUF.set(run);
        // Lower-case names in casual text, when there is a model to ask or a trace to fill.
        if (self.casual.is_some() && casual::asks_model(signals))
            || (casual_trace.is_some() && casual::is_casual(signals))
        {
            self.casual_stage(text, signals, first, out, casual_trace);
        }
    }

    /// The casual stage ([`casual`]) over `text`, after the scan found `out[first..]`. Out of
    /// line, so that its cost shows apart from the scan's in a profile.
    #[inline(never)]
    fn casual_stage(
        &self,
        text: &str,
        signals: u8,
        first: usize,
        out: &mut Vec<Span>,
        casual_trace: Option<&mut Vec<casual::CasualCandidate>>,
    ) {
        let found: Vec<(usize, usize)> = out[first..].iter().map(|s| (s.start, s.end)).collect();
        casual::Casual {
            finder: self,
            text,
            signals,
        }
        .run(self.casual.as_ref(), &found, out, casual_trace);
    }

    /// Deny-list names, wherever they stand as whole words.
    fn find_denied(&self, deny: &AhoCorasick, text: &str, out: &mut Vec<Span>) {
        for m in deny.find_iter(text) {
            let before_ok = char_before(text, m.start()).is_none_or(|c| !c.is_alphanumeric());
            let after_ok = char_at(text, m.end()).is_none_or(|c| !c.is_alphanumeric());
            if before_ok && after_ok {
                out.push(Span::new(m.start(), m.end(), Kind::Name));
            }
        }
    }

    /// Whether `value` holds a word known as a given name or surname.
    pub fn has_known_name_word(&self, value: &str) -> bool {
        let mut i = 0;
        let b = value.as_bytes();
        while i < b.len() {
            let Some(c) = char_at(value, i) else { break };
            if !is_word_char(c) {
                i += c.len_utf8();
                continue;
            }
            if cjk::is_cjk(c) {
                let mut found = Vec::new();
                let end = value[i..]
                    .char_indices()
                    .find(|(_, c)| !cjk::is_cjk(*c))
                    .map_or(value.len(), |(j, _)| i + j);
                cjk::find(value, i, end, self.gaz, &mut found);
                if !found.is_empty() {
                    return true;
                }
                i = end;
                continue;
            }
            let end = word_end(value, i).max(i + c.len_utf8());
            let word = &value[i..end];
            if let Some(e) = self.gaz.lookup(word)
                && e.name() >= 1
                && (e.name() > e.wordiness() || e.wordiness() <= 3)
            {
                return true;
            }
            i = end;
        }
        false
    }

    /// Whether `value` is on the allow list (never tokenized).
    pub fn is_allowed(&self, value: &str) -> bool {
        if self.allow.is_empty() {
            return false;
        }
        let v = normalize_spaces(&value.to_lowercase());
        self.allow.contains(&v)
    }

    /// Whether a value tokenized as a NAME is distinctive enough to be recalled wherever it
    /// recurs in the session (see `detect/recall.rs`): two or more words, or one word of at least
    /// three letters that is neither an ordinary English word, a place, a month or weekday, nor
    /// on a list of well-known non-people. Allow-listed values never are.
    pub fn is_distinctive(&self, value: &str) -> bool {
        let mut words = crate::detect::words(value);
        let Some(first) = words.next() else {
            return false;
        };
        if self.is_allowed(value) {
            return false;
        }
        if words.next().is_some() {
            return true;
        }
        let word = first.trim_matches(|c: char| !c.is_alphanumeric());
        if word.chars().count() < 3 && !word.chars().any(cjk::is_cjk) {
            return false;
        }
        let (entry, flags) = self.gaz.lookup_with_flags(word);
        let listed =
            flags & (lexicon::CALENDAR_F | lexicon::NOT_PEOPLE_F | lexicon::ORG_PLACE) != 0;
        // Rare English words that are common names ("Peter", "June" the name) are fine.
        !listed
            && entry.is_none_or(|e| {
                e.place == 0 && (e.common == 0 || (e.name() >= 1 && e.wordiness() <= 1))
            })
    }

    /// Whether `word` is a known given name or surname and nothing else: no English word, no
    /// place, at least three letters, not an ALL-CAPS code ("Emily", not "Hazel", "Jordan",
    /// "AB").
    pub fn is_only_a_name(&self, word: &str) -> bool {
        let word = word.trim_matches(|c: char| !c.is_alphabetic());
        let letters = word.chars().count();
        let all_caps = word.chars().all(|c| !c.is_lowercase());
        if letters < 3 || (all_caps && letters <= 3) {
            return false;
        }
        self.gaz
            .lookup(word)
            .is_some_and(|e| e.common == 0 && e.place == 0 && e.name() >= 3)
    }

    /// The gazetteer scores of a word (given name, surname, English word, place), for error
    /// analysis in `examples/names_train.rs`.
    #[doc(hidden)]
    pub fn scores(&self, word: &str) -> Option<[u8; 4]> {
        self.gaz
            .lookup(word)
            .map(|e| [e.first, e.last, e.common, e.place])
    }

    /// The gazetteer entry of a word, with its possessive and initial's dot removed.
    fn entry(&self, word: &str) -> Option<Entry> {
        self.gaz.lookup(word)
    }
}

/// Punctuation that marks code, markup or a log line rather than prose.
const fn is_code_byte(c: u8) -> bool {
    matches!(
        c,
        b'{' | b'}'
            | b'('
            | b')'
            | b';'
            | b'='
            | b'_'
            | b'<'
            | b'>'
            | b'/'
            | b'\\'
            | b'['
            | b']'
            | b'|'
            | b'$'
            | b'#'
            | b'*'
            | b'`'
    )
}

/// Punctuation that makes an all-lower-case text code or a log line rather than prose typed
/// without capitals: [`is_code_byte`] less the brackets, `#` and `*` of chat ("(not by megan
/// fyodorova)", "at #15").
fn is_code_byte_in_lower_text(c: u8) -> bool {
    is_code_byte(c) && !matches!(c, b'(' | b')' | b'#' | b'*')
}

/// Whether `c`, after a backslash, makes an escape of logged or double-encoded text (`\"`,
/// `\'`, `\n`, `\r`, `\t`) rather than a path separator.
fn is_escape_letter(c: Option<u8>) -> bool {
    matches!(c, Some(b'"' | b'\'' | b'n' | b'r' | b't'))
}

/// "I'm", "Don't", "We'll": an apostrophe followed by a contraction ending.
fn is_contraction(word: &str) -> bool {
    // `’` is E2 80 99 in UTF-8: most words have neither byte.
    if !word.bytes().any(|c| c == b'\'' || c == 0xE2) {
        return false;
    }
    let Some(i) = word.find(['\'', '’']) else {
        return false;
    };
    let tail = &word[i..];
    let tail = tail.trim_start_matches(['\'', '’']);
    matches!(
        tail,
        "m" | "ll" | "ve" | "re" | "d" | "t" | "M" | "LL" | "VE" | "RE" | "D" | "T"
    )
}

/// Bit `min(len, 63)` is set for the word count of each of [`ORG_PHRASES`], so that runs of
/// other lengths (most: one word) skip the list.
const ORG_PHRASE_LENS: u64 = {
    let mut m = 0u64;
    let mut i = 0;
    while i < ORG_PHRASES.len() {
        let n = ORG_PHRASES[i].len();
        m |= 1 << if n < 63 { n } else { 63 };
        i += 1;
    }
    m
};

/// A 1024-bit filter of words by length and first and last letter, ASCII case folded: a word
/// equal to one of the filter's words up to ASCII case always passes it.
struct WordFilter([u64; 16]);

impl WordFilter {
    /// The bit of `word`.
    const fn key(word: &[u8]) -> usize {
        let (first, last) = match word {
            [] => (0, 0),
            [f] => (*f & 31, *f & 31),
            [f, .., l] => (*f & 31, *l & 31),
        };
        (((first as usize) << 5) | last as usize) ^ (word.len().wrapping_mul(37) & 1023)
    }

    #[inline]
    fn has(&self, word: &[u8]) -> bool {
        let k = Self::key(word);
        self.0[k / 64] & (1 << (k % 64)) != 0
    }
}

/// The first words of [`ORG_PHRASES`]: most runs of their length skip the list by this test.
const ORG_PHRASE_FIRSTS: WordFilter = {
    let mut bits = [0u64; 16];
    let mut i = 0;
    while i < ORG_PHRASES.len() {
        let k = WordFilter::key(ORG_PHRASES[i][0].as_bytes());
        bits[k / 64] |= 1 << (k % 64);
        i += 1;
    }
    WordFilter(bits)
};

/// For each length up to 4, bit `c & 31` is set for the first byte `c` of each particle of
/// that length ([`lexicon::PARTICLES`]): most short words are no particle by this test alone,
/// without a lookup. (`& 31` is the same for an ASCII letter and its capital.)
const PARTICLE_KEYS: [u32; 5] = {
    let mut keys = [0u32; 5];
    let mut i = 0;
    while i < lexicon::PARTICLES.len() {
        let p = lexicon::PARTICLES[i].as_bytes();
        if !p.is_empty() && p.len() <= 4 {
            keys[p.len()] |= 1 << (p[0] & 31);
        }
        i += 1;
    }
    keys
};

/// Whether `word` may be on [`lexicon::PARTICLES`] (no false negatives; words longer than
/// four bytes are not filtered).
fn may_be_particle(word: &[u8]) -> bool {
    match word.len() {
        0 => false,
        n @ 1..=4 => PARTICLE_KEYS[n] & (1 << (word[0] & 31)) != 0,
        _ => true,
    }
}

/// Whether [`Scan::single`] can accept the known word `t` only with a title cue (`Cue::Title`),
/// whatever the other cues, the word after it and the sentence start say: an ordinary word far
/// more than a name (`name - wordiness <= -4`: "The", "You"), or a month or weekday that is no
/// clear given name ("Friday", not "April"). For a run of this one word, the only source of a
/// title cue in [`Scan::judge`] is a title word right before it, and the other ways `judge`
/// accepts a single word need a word the gazetteer lacks; so `flush` skips `judge` for it
/// otherwise. Mirrors the thresholds of `single` (`Cue::Strong` needs a margin of -3 or more;
/// weaker cues more); the test `single_needs_title_mirrors_single` checks every entry.
fn single_needs_title(t: &Tok) -> bool {
    t.shape != Shape::Initial
        && t.entry.is_some_and(|e| {
            i32::from(e.name()) - i32::from(e.wordiness()) <= -4
                || (t.is(lexicon::CALENDAR_F) && e.first < 3)
        })
}

/// Whether `rest` (the text after a word the gazetteer lacks, at the start of a line or
/// sentence) makes the word a speaker label: `Name: "...`, a line of dialogue. Not `Betreff:
/// Rechnung`, `Adresse: ...` (form labels in other languages), a URL, a path or a spaced
/// headline source.
fn speaker_label(rest: &str) -> bool {
    rest.strip_prefix(':').is_some_and(|r| {
        r.trim_start_matches(' ')
            .starts_with(['"', '\\', '“', '«', '„'])
    })
}

/// Generational and academic suffixes written after a name.
const SUFFIXES: &[&str] = &[
    "Jr.", "Sr.", "Jr", "Sr", "PhD", "Ph.D.", "MD", "M.D.", "DVM", "DDS", "Esq.", "Esq", "III",
    "II", "IV",
];

fn is_suffix_word(word: &str) -> bool {
    // Two or three bytes each, opening with one of seven capitals: most words fail the length
    // test or the first-letter test ("The", "But", "And").
    matches!(word.len(), 2 | 3)
        && matches!(
            word.as_bytes()[0],
            b'J' | b'S' | b'P' | b'M' | b'D' | b'E' | b'I'
        )
        && matches!(
            word,
            "Jr" | "Sr" | "PhD" | "MD" | "DVM" | "DDS" | "Esq" | "II" | "III" | "IV"
        )
}

fn normalize_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the value of a JSON key (or CSV column) reads as one data field, a few words on one
/// line ("Dr. Maria Ortiz", "maria ortiz, john smith, wei chen"), rather than free text (a
/// comment, a message body, a description) that only happens to sit under a key: free text is
/// read as prose, where a lower-case word is a name only with evidence, however it is stored.
fn is_keyed_field(text: &str) -> bool {
    // The word count first: it stops at the ninth word of a long value (a message body).
    if text.split_whitespace().nth(8).is_some() {
        return false;
    }
    let b = text.as_bytes();
    // A sentence break: `!`, `?` or `;`, or a full stop after a word of four letters or more
    // ("Dr." and "J." are abbreviations).
    !b.iter().enumerate().any(|(i, &c)| match c {
        b'\n' | b'!' | b'?' | b';' => true,
        b'.' => {
            let word = b[..i]
                .iter()
                .rev()
                .take_while(|c| c.is_ascii_alphabetic())
                .count();
            word >= 4 && b.get(i + 1).is_none_or(|c| c.is_ascii_whitespace())
        }
        _ => false,
    })
}

/// A text short enough to be one field value ("maria ortiz", "JOHN SMITH"): lower-case and
/// ALL-CAPS words count there.
fn is_short_field(text: &str) -> bool {
    // The marks are ASCII, so a byte test finds exactly the chars `contains` would.
    if text.len() > 48
        || text
            .bytes()
            .any(|c| matches!(c, b'.' | b'!' | b'?' | b':' | b'\n'))
    {
        return false;
    }
    if !text.is_ascii() {
        return text.split_whitespace().count() <= 4;
    }
    // ASCII white space as `char::is_whitespace` has it (which includes the vertical tab).
    let mut words = 0;
    let mut in_word = false;
    for &c in text.as_bytes() {
        let space = matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r');
        words += usize::from(!space && !in_word);
        in_word = !space;
    }
    words <= 4
}

/// Byte classes of [`BYTE_CLASS`].
const UPPER: u8 = 1;
/// A byte of [`is_code_byte`].
const CODE: u8 = 2;
/// A byte after ASCII letters that makes the word go on or needs the full word scan: `'`,
/// `-`, or any non-ASCII byte.
const GOES_ON: u8 = 4;

/// The class bits of each byte value, so that a test is one load.
const BYTE_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        if b.is_ascii_uppercase() {
            t[c] |= UPPER;
        }
        if is_code_byte(b) {
            t[c] |= CODE;
        }
        if b >= 0x80 || b == b'\'' || b == b'-' {
            t[c] |= GOES_ON;
        }
        c += 1;
    }
    t
};

/// The high bit of every byte of a `u64`.
const HIGH: u64 = 0x8080_8080_8080_8080;

/// Eight bytes of `b` from `i`, little-endian, if there are eight.
fn load8(b: &[u8], i: usize) -> Option<u64> {
    match b.get(i..i.checked_add(8)?)? {
        &[a, b, c, d, e, f, g, h] => Some(u64::from_le_bytes([a, b, c, d, e, f, g, h])),
        _ => None,
    }
}

/// The high bit of each byte of `x` that is an ASCII letter. With every byte below 0x80,
/// `y + (0x80 - bound)` sets a byte's high bit exactly when `y >= bound`, without carries.
fn ascii_letters(x: u64) -> u64 {
    let y = (x | 0x2020_2020_2020_2020) & !HIGH; // lower case, bytes below 0x80
    let at_least_a = y.wrapping_add(0x1f1f_1f1f_1f1f_1f1f); // >= b'a'
    let past_z = y.wrapping_add(0x0505_0505_0505_0505); // >= b'{'
    at_least_a & !past_z & !x & HIGH
}

/// The end of the run of ASCII letters starting at `i`, eight bytes at a time.
fn ascii_letters_end(b: &[u8], mut i: usize) -> usize {
    while let Some(x) = load8(b, i) {
        let other = !ascii_letters(x) & HIGH;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i].is_ascii_alphabetic() {
        i += 1;
    }
    i
}

/// The first position from `i` holding an ASCII letter or a non-ASCII byte (`b.len()` if none).
fn next_letter(b: &[u8], mut i: usize) -> usize {
    // Most gaps between words are one space: look at the next byte before loading eight.
    match b.get(i) {
        Some(&c) if c.is_ascii_alphabetic() || c >= 0x80 => return i,
        Some(_) => i += 1,
        None => return i,
    }
    while let Some(x) = load8(b, i) {
        let stop = ascii_letters(x) | (x & HIGH);
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && !(b[i].is_ascii_alphabetic() || b[i] >= 0x80) {
        i += 1;
    }
    i
}

/// Whether `b` holds `needle`: `memchr` for long texts, eight bytes at a time for short ones
/// (where `memchr`'s set-up costs more than the search).
fn has_byte(b: &[u8], needle: u8) -> bool {
    if b.len() >= 256 {
        return memchr::memchr(needle, b).is_some();
    }
    let pattern = u64::from(needle) * 0x0101_0101_0101_0101;
    let mut chunks = b.chunks_exact(8);
    for c in &mut chunks {
        let x = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) ^ pattern;
        // A zero byte of `x` (exact: no borrow from the byte below).
        if !(((x & !HIGH) + !HIGH) | x) & HIGH != 0 {
            return true;
        }
    }
    chunks.remainder().contains(&needle)
}

/// Whether an HTML tag starts at `b[at]` (a `<`): a closing tag, or a tag of text markup
/// (`<br>`, `<p class="x">`, `<td>`), not a type's parameters (`List<Person>`, `Vec<Grant>`).
fn html_tag_at(b: &[u8], at: usize) -> bool {
    const TAGS: [&[u8]; 26] = [
        b"a", b"b", b"br", b"div", b"em", b"font", b"h1", b"h2", b"h3", b"h4", b"h5", b"h6", b"hr",
        b"i", b"img", b"li", b"ol", b"p", b"small", b"span", b"strong", b"table", b"td", b"th",
        b"tr", b"ul",
    ];
    let Some(rest) = b.get(at + 1..) else {
        return false;
    };
    if rest.first() == Some(&b'/') {
        return true;
    }
    let name_len = rest
        .iter()
        .position(|c| !c.is_ascii_alphanumeric())
        .unwrap_or(rest.len());
    let name = &rest[..name_len];
    matches!(rest.get(name_len), Some(b'>' | b' ' | b'/'))
        && TAGS.iter().any(|t| t.eq_ignore_ascii_case(name))
}

/// Whether the word `b[start..end]`, right after `@`, opens a mention of a display name: the
/// `@` after a space or the text's start, the word capitalised (a capital, then lower case
/// only), then one space and a capital that starts the next word.
fn display_name_mention(b: &[u8], start: usize, end: usize) -> bool {
    (start < 2 || b[start - 2].is_ascii_whitespace())
        && end - start >= 2
        && b[start].is_ascii_uppercase()
        && b[start + 1..end].iter().all(u8::is_ascii_lowercase)
        && b.get(end) == Some(&b' ')
        && b.get(end + 1).is_some_and(u8::is_ascii_uppercase)
}

/// Whether the mark at `b[at]` (`[`, `` ` `` or `_`) wraps a phrase of words on the same line,
/// as Markdown does (`[Maria Garcia](mailto:..)`, `` `Maria Garcia` ``, `_Omar Haddad_`): no word
/// character before it, its closing mark within 64 bytes, and between them letters and at
/// least one space (an index `a[Index]`, `` `Grant` `` or `_Private` has no space).
fn wrapped_phrase(b: &[u8], at: usize) -> bool {
    let close = match b[at] {
        b'[' => b']',
        c => c,
    };
    if at > 0 && (is_wordish(b[at - 1]) || b[at - 1] == b'_') {
        return false;
    }
    let mut spaced = false;
    for &c in b.iter().skip(at + 1).take(64) {
        match c {
            _ if c == close => return spaced,
            b' ' => spaced = true,
            b'-' | b'\'' | b'.' => {}
            _ if c.is_ascii_alphabetic() || c >= 0x80 => {}
            _ => return false,
        }
    }
    false
}

/// An ASCII letter or digit, or a byte of a non-ASCII character.
fn is_wordish(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c >= 0x80
}

/// Whether a surname and a given name make an inverted name in a list of them ("Garcia,
/// Maria and Chen, Wei"): each clearly of its kind, neither a place.
fn clear_inverted_pair(sur: Entry, given: Entry) -> bool {
    sur.last >= 3
        && sur.last > sur.first
        && sur.place <= 1
        && given.first >= 3
        && given.first > given.last
        && given.place <= 1
        && given.wordiness() <= 4
}

/// Skips, from `i`, what the scan would skip while no run is open and no lower-case word can
/// be a name: punctuation, digits and plain lower-case ASCII words. Stops at a capital, a
/// non-ASCII byte, a lower-case greeting ("hi"), a word of `ev` (e-mail evidence) or a word
/// going on with `'`, `-` or a non-ASCII letter (the full scan decides those), at the start of
/// that word. Gaps and words are crossed eight bytes at a time. Kept out of line: inlined in
/// the large scan loop, its constants and the text's bounds were reloaded from the stack on
/// every step.
#[inline(never)]
fn skip_idle(b: &[u8], mut i: usize, ev: &Evidence) -> usize {
    let n = b.len();
    let stops = ev.idle_stops();
    // Eight bytes from `i` exist while `i < loads_end`: fewer instructions per step than
    // `load8`'s overflow and bound tests.
    let loads_end = n.saturating_sub(7);
    loop {
        // The next word's start and end: from one load when the word starts and ends within
        // the same eight bytes (most words), else byte by byte at the end of the text.
        // The word's first byte and the byte after it come from `x` when they lie in it
        // (no second load, no bounds check).
        // `len_bit`: bit `min(len, 63)` for the word's byte length (as `IdleStops` keeps it).
        let chunk = if i < loads_end {
            b.get(i..i + 8)
                .map(|c| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        } else {
            None
        };
        let (start, end, first, next, len_bit) = if let Some(x) = chunk {
            let letters = ascii_letters(x);
            let stop = letters | (x & HIGH);
            if stop == 0 {
                i += 8;
                continue;
            }
            // The high bit of byte `p`: bit `8p + 7`.
            let tz = stop.trailing_zeros();
            let p = (tz / 8) as usize;
            let start = i + p;
            let first = (x >> (tz & !7)) as u8;
            if !first.is_ascii_lowercase() {
                return start;
            }
            // The first byte after `start` within `x` that is not an ASCII letter: the high
            // bits of the bytes that are no letters (`letters ^ HIGH`) above the lowest bit of
            // `stop` (`stop ^ (stop - 1)` masks it and every bit below it).
            let after = (letters ^ HIGH) & !(stop ^ (stop - 1));
            if after != 0 {
                let tz = after.trailing_zeros();
                let next = (x >> (tz & !7)) as u8;
                let end = i + (tz / 8) as usize;
                // Within `x`: fewer than eight letters.
                (start, end, first, Some(next), 1u64 << (end - start))
            } else {
                let end = ascii_letters_end(b, i + 8);
                let len_bit = 1u64 << (end - start).min(63);
                (start, end, first, b.get(end).copied(), len_bit)
            }
        } else {
            i = next_letter(b, i);
            let Some(&c) = b.get(i) else {
                return n;
            };
            if !c.is_ascii_lowercase() {
                return i;
            }
            let end = ascii_letters_end(b, i + 1);
            (i, end, c, b.get(end).copied(), 1u64 << (end - i).min(63))
        };
        if next.is_some_and(|c| BYTE_CLASS[usize::from(c)] & GOES_ON != 0) {
            return start;
        }
        // Two loads reject most words ("the", "to", "can"): no greeting or evidence word has
        // their first letter and length, or their first and last letter (`& 31` folds the
        // case of an ASCII letter, and the word is ASCII letters only).
        let key = usize::from(first & 31);
        if stops.lens[key] & len_bit != 0
            && stops.lasts[key] & (1 << (b[end - 1] & 31)) != 0
            && idle_stop_word(&b[start..end], ev)
        {
            return start;
        }
        // The byte after the word (`next`) is ASCII and no letter: the next load starts past
        // it, so that a word of seven letters after it still ends within that load.
        i = end + usize::from(next.is_some());
    }
}

/// Whether at least half of the first `limit` of `words` of two letters or more are English
/// words (on the gazetteer's common-word list): text in another language is full of words on
/// some locale's name list ("das", "von").
fn mostly_english<'t>(gaz: &Gazetteer, words: impl Iterator<Item = &'t str>, limit: usize) -> bool {
    let (mut seen, mut english) = (0usize, 0usize);
    for w in words.filter(|w| w.len() >= 2).take(limit) {
        seen += 1;
        english += usize::from(gaz.lookup(w).is_some_and(|e| e.common > 0));
    }
    english * 2 >= seen
}

/// Whether the lower-case word `word`, which passed the [`IdleStops`] tests, stops
/// [`skip_idle`]: a greeting or a word of `ev`. Out of line: few words get here, and inlined
/// its set-up (the evidence list) was loaded on every call of the scan.
#[cold]
#[inline(never)]
fn idle_stop_word(word: &[u8], ev: &Evidence) -> bool {
    is_lower_greeting(word) || (ev.any && ev.has_bytes(word))
}

/// The words of [`is_lower_greeting`].
const LOWER_GREETINGS: [&str; 9] = [
    "hi", "hey", "hello", "dear", "thanks", "thx", "cheers", "cc", "yo",
];

thread_local! {
    /// The buffer of [`Scan::run`], kept between calls on a thread: a text with a candidate
    /// then costs no allocation for it (most tool results are many short texts).
    static RUN_BUF: std::cell::Cell<Vec<Tok>> = const { std::cell::Cell::new(Vec::new()) };
}

/// The state of one `find` call.
struct Scan<'a, 'o> {
    finder: &'a NameFinder,
    text: &'a str,
    evidence: &'a Evidence,
    field: bool,
    /// The text has no capital letter at all: names are lower-case too.
    lower_text: bool,
    /// Whether most words of the text are English words; worked out on first need.
    english: std::cell::Cell<Option<bool>>,
    run: Vec<Tok>,
    out: &'o mut Vec<Span>,
    /// Candidates seen, with features, when training the judge.
    trace: Option<&'a std::cell::RefCell<Vec<model::Candidate>>>,
    /// Signs of casual writing (`casual::sig` bits; 0 for long, well-cased or code text).
    signals: u8,
}

impl<'a, 'o> Scan<'a, 'o> {
    /// The state of a `find` call over `text` (`field`, `lower_text`: how its words may be
    /// read; see `find_inner`).
    fn new(
        finder: &'a NameFinder,
        text: &'a str,
        evidence: &'a Evidence,
        field: bool,
        lower_text: bool,
        out: &'o mut Vec<Span>,
        trace: Option<&'a std::cell::RefCell<Vec<model::Candidate>>>,
    ) -> Self {
        Scan {
            finder,
            text,
            evidence,
            field,
            lower_text,
            english: std::cell::Cell::new(None),
            run: RUN_BUF.take(),
            out,
            trace,
            signals: 0,
        }
    }
}

impl Scan<'_, '_> {
    /// Whether at least half the words of the text are English words (computed once, only
    /// when a lower-case pair with an unknown word is judged: rare, so never per byte).
    fn is_english(&self) -> bool {
        if let Some(known) = self.english.get() {
            return known;
        }
        let known = mostly_english(
            self.finder.gaz,
            self.text.split(|c: char| !c.is_alphabetic()),
            200,
        );
        self.english.set(Some(known));
        known
    }

    fn run_all(&mut self) {
        let text = self.text;
        let b = text.as_bytes();
        let n = b.len();
        let mut i = 0;
        // End of the last lower-case greeting word ("hi"), which lets one lower-case name follow.
        let mut greeting_end = usize::MAX;
        while i < n {
            // A greeting matters only to the word right after it (`after_greeting`).
            if self.run.is_empty()
                && (greeting_end == usize::MAX || i > greeting_end + 2)
                && !self.field
                && !self.lower_text
            {
                i = skip_idle(b, i, self.evidence);
                if i >= n {
                    break;
                }
            }
            let c = b[i];
            if !c.is_ascii_alphabetic() {
                if c < 0x80 {
                    i += 1;
                    continue;
                }
                let Some(ch) = char_at(text, i) else {
                    i += 1;
                    continue;
                };
                if cjk::is_cjk(ch) {
                    self.flush();
                    let end = text[i..]
                        .char_indices()
                        .find(|(_, c)| !cjk::is_cjk(*c))
                        .map_or(n, |(j, _)| i + j);
                    i = cjk::find(text, i, end, self.finder.gaz, self.out);
                    continue;
                }
                if !is_word_char(ch) || !ch.is_alphabetic() {
                    i += ch.len_utf8();
                    continue;
                }
            }
            let start = i;
            // Plain ASCII letters first (most words); the general scan only when the word
            // goes on with an apostrophe, a hyphen or a non-ASCII letter.
            let mut end = ascii_letters_end(b, i + 1);
            // Only ASCII letters (most words): no apostrophe, no possessive, no contraction.
            let mut plain = c < 0x80;
            if b.get(end)
                .is_some_and(|&c| BYTE_CLASS[usize::from(c)] & GOES_ON != 0)
            {
                end = word_end(text, i);
                plain = false;
            }
            i = end;
            // Lower-case words: the common case, kept cheap.
            if c.is_ascii_lowercase()
                || (c >= 0x80 && char_at(text, start).is_some_and(char::is_lowercase))
            {
                let word = &b[start..end];
                if word.len() <= 4 && self.is_particle_here(start, end) {
                    self.push_particle(start, end);
                    continue;
                }
                // HTML's no-break space between two names ("Maria&nbsp;Garcia"): a space
                // (`gap_joins`), not a lower-case word that ends the run.
                if word == b"nbsp"
                    && start > 0
                    && b[start - 1] == b'&'
                    && b.get(end) == Some(&b';')
                    && !self.run.is_empty()
                {
                    continue;
                }
                if word == b"and" && !self.run.is_empty() {
                    // "Sousa and Ball": the next word decides (see `gap_joins`).
                    continue;
                }
                // Only a word that may be a name after the greeting joins ("thx john"): not
                // "to" in "Many thanks to Teddy Smith", which made the run a thing.
                let after_greeting = (greeting_end != usize::MAX
                    && matches!(&text[greeting_end..start], " " | ", ")
                    && self
                        .finder
                        .entry(&text[start..end])
                        .is_some_and(lower_given_name_after_cue))
                    || self.after_capitalised_greeting(start, end);
                if word.len() <= 6
                    && matches!(word[0], b'h' | b'd' | b't' | b'c' | b'y')
                    && is_lower_greeting(word)
                {
                    self.flush();
                    greeting_end = end;
                    continue;
                }
                let candidate = after_greeting
                    || ((self.field || self.lower_text) && self.lower_candidate(start, end))
                    || (!self.run.is_empty() && self.lower_surname(start, end))
                    || (self.evidence.any
                        && self.evidence.idle_stops().passes(word)
                        && self.evidence.has_bytes(word));
                if !candidate {
                    self.flush();
                    continue;
                }
            }
            self.push_word(start, end, plain);
        }
        self.flush();
    }

    /// Whether the run so far is one capitalised greeting right before the lower-case word at
    /// `start..end`, and that word reads as a given name ("Hi megan", "Thanks omar"; not
    /// "Thanks to", "Hi will"): the word is then judged with the greeting as its cue, which
    /// `single` asks of a lower-case word in capitalised text.
    fn after_capitalised_greeting(&self, start: usize, end: usize) -> bool {
        let [t] = self.run.as_slice() else {
            return false;
        };
        let w = &self.text.as_bytes()[t.start..t.end];
        if t.particle || !matches!(t.shape, Shape::Title | Shape::Upper) || w.len() > 6 {
            return false;
        }
        // The greetings' first-letter tables reject most words before the copy ("The", "He":
        // none has a greeting's first letter, length and last letter; `& 31` folds case).
        let key = usize::from(w[0] & 31);
        if GREETING_STOPS.lens[key] & (1 << w.len()) == 0
            || GREETING_STOPS.lasts[key] & (1 << (w[w.len() - 1] & 31)) == 0
        {
            return false;
        }
        let mut lower = [0u8; 6];
        lower[..w.len()].copy_from_slice(w);
        lower[..w.len()].make_ascii_lowercase();
        is_lower_greeting(&lower[..w.len()])
            && &self.text[t.end..start] == " "
            && self
                .finder
                .entry(&self.text[start..end])
                .is_some_and(|e| e.first >= 3 && lower_given_name_after_cue(e))
    }

    /// In a text without capitals: whether the lower-case word at `start..end` may be part of a
    /// name (a name word, a title, or an unknown word after a given name).
    fn lower_candidate(&self, start: usize, end: usize) -> bool {
        let w = &self.text[start..end];
        if self.finder.lex.is(w, lexicon::TITLE) {
            return true;
        }
        let after_given = || {
            self.run
                .last()
                .is_some_and(|t| !t.particle && t.entry.is_some_and(|e| e.first >= 3))
        };
        match self.finder.entry(w) {
            // In prose, a common word ("said", "to", "will") joins only as a surname after a
            // given name, and not the commonest words ("chad farmer", not "robinson were").
            Some(e) if !self.field && e.wordiness() > e.name() + 1 => {
                e.last >= 2 && e.wordiness() <= 6 && after_given()
            }
            Some(e) => e.name() >= 1,
            None => self
                .run
                .last()
                .is_some_and(|t| !t.particle && t.entry.is_some_and(|e| e.first >= 3)),
        }
    }

    /// Whether the word at `start..end` is a hyphenated phrase with a common lower-case English
    /// word after a hyphen ("Signed-off-by", "Co-authored-by", "Mother-in-law"), not a
    /// double name ("Jean-Luc", "Smith-Jones", "Ould-Abdallahi").
    fn hyphenated_phrase(&self, start: usize, end: usize) -> bool {
        self.text[start..end].split('-').skip(1).any(|part| {
            !part.is_empty()
                && part.bytes().all(|c| c.is_ascii_lowercase())
                && self
                    .finder
                    .entry(part)
                    .is_some_and(|e| e.wordiness() >= 6 && e.wordiness() > e.name())
        })
    }

    /// Whether the lower-case word at `start..end` is a surname written in lower case right
    /// after a capitalised given name ("Kylie minogue", "Travis scott"): a clear surname, not
    /// a common word ("Kevin love", "Tanya will").
    fn lower_surname(&self, start: usize, end: usize) -> bool {
        let Some(prev) = self.run.last() else {
            return false;
        };
        let given = prev.shape == Shape::Title
            && !prev.possessive
            && prev
                .entry
                .is_some_and(|e| e.first >= 3 && e.first > e.last && e.first >= e.wordiness() + 2)
            && text_of(self.text, prev.end, start) == " ";
        given
            && self
                .finder
                .entry(&self.text[start..end])
                .is_some_and(|e| e.last >= 2 && e.last >= e.wordiness() + 2)
    }

    /// Whether the lower-case word at `start..end` is a particle inside a run ("van", "del").
    fn is_particle_here(&self, start: usize, end: usize) -> bool {
        !self.run.is_empty()
            && may_be_particle(&self.text.as_bytes()[start..end])
            && self
                .finder
                .lex
                .is(&self.text[start..end], lexicon::PARTICLE)
            && self.gap_joins(self.run.last().map_or(0, |t| t.end), start) == Some(false)
    }

    fn push_particle(&mut self, start: usize, end: usize) {
        self.run.push(Tok {
            start,
            end,
            shape: Shape::Lower,
            particle: true,
            comma_before: false,
            possessive: false,
            entry: None,
            flags: lexicon::PARTICLE,
        });
    }

    /// Whether the text between two words lets them belong to one run: `Some(false)` for a
    /// space, `Some(true)` for `", "`, `None` for anything else.
    fn gap_joins(&self, prev_end: usize, start: usize) -> Option<bool> {
        match &self.text[prev_end..start] {
            // a space, a no-break space (also as HTML's `&nbsp;`), a URL-encoded space, or
            // one with a zero-width character pasted in
            " " | "\u{a0}" | "&nbsp;" | "%20" | " \u{feff}" | " \u{200b}" | "\u{200b}" => {
                Some(false)
            }
            ", " | " , " | " and " | ", and " => Some(true),
            ". " | "." => self
                .run
                .last()
                .filter(|t| t.shape == Shape::Initial || t.is(lexicon::TITLE))
                .map(|_| false),
            _ => None,
        }
    }

    fn word(&self, t: &Tok) -> &str {
        &self.text[t.start..t.end]
    }

    /// Adds the word `start..end` to the run (or ends the run); `plain` when the word is only
    /// ASCII letters.
    fn push_word(&mut self, start: usize, mut end: usize, plain: bool) {
        let text = self.text;
        let b = text.as_bytes();
        // Code, mentions, hashtags, paths, e-mail addresses, numbers.
        let mut before = if start > 0 { b[start - 1] } else { b' ' };
        // Markdown wraps a phrase in `[...]`, `` `...` `` or `_..._` ("[Maria Garcia](mailto:..)"):
        // there the mark is no code, it opens the phrase like a space.
        if matches!(before, b'[' | b'`' | b'_') && wrapped_phrase(b, start - 1) {
            before = b' ';
        }
        // A chat tool's mention of a display name ("@Maria Garcia can you check"): `@`, a
        // capitalised word, a space and another capitalised word. A handle has no space
        // ("@maria_garcia", "@MariaGarcia").
        if before == b'@' && display_name_mention(b, start, end) {
            before = b' ';
        }
        // A URL-encoded space between two words of a name (`?name=Maria%20Garcia`).
        if before == b'0' && start >= 3 && &b[start - 3..start] == b"%20" {
            before = b' ';
        }
        let after = b.get(end).copied().unwrap_or(b' ');
        let after2 = b.get(end + 1).copied().unwrap_or(b' ');
        let joined_by_dot = before == b'.'
            && start >= 2
            && b[start - 2].is_ascii_alphanumeric()
            && !self
                .run
                .last()
                .is_some_and(|t| t.shape == Shape::Initial && t.end == start);
        if matches!(
            before,
            b'@' | b'#'
                | b'_'
                | b'/'
                | b'\\'
                | b'$'
                | b'='
                | b'{'
                | b'['
                | b'|'
                | b'`'
                | b'~'
                | b'^'
                | b'+'
                | b'%'
                | b'&'
        ) || before.is_ascii_digit()
            || joined_by_dot
            || matches!(after, b'@' | b'(' | b'/' | b'=' | b'[' | b'{' | b'>' | b'+')
            // An identifier goes on after `_`; Markdown's `_Omar Haddad_` ends there.
            || (after == b'_' && (is_wordish(after2) || after2 == b'_'))
            // A type goes on after `<` ("List<Person>"); an HTML tag ends the word like a
            // space (`<td>Maria Garcia</td>`, `Maria Garcia<br>`: an HTML mail body).
            || (after == b'<' && !html_tag_at(b, end))
            // A path goes on after `\`; an escape in logged or double-encoded text
            // (`\"Mary Jones\"`, `Mary\'s`, `Mary\nThanks`) ends the word like its character.
            || (after == b'\\' && !is_escape_letter(Some(after2)))
            || after.is_ascii_digit()
            || (after == b'.' && after2.is_ascii_alphanumeric() && end - start > 1)
            || (after == b':' && after2 == b':')
        {
            self.flush();
            return;
        }
        let shape = if plain {
            shape_of_ascii(&text[start..end])
        } else {
            shape_of(&text[start..end])
        };
        let Some(shape) = shape else {
            self.flush();
            return;
        };
        if is_suffix_word(&text[start..end]) {
            // "Jr.", "PhD": taken by `suffix_len` when the name before them is accepted.
            self.flush();
            return;
        }
        // A lone capital is an initial with its dot ("J."; "N ." in tokenised text) or right
        // after a clear given name ("Deborah L", "Teddy P proud"); otherwise it is the
        // pronoun "I", a list letter or a grade.
        if shape == Shape::Initial {
            if after == b'.' {
                end += 1;
            } else if text[end..].starts_with(" . ") {
                end += 2;
            } else if !matches!(b[start], b'I' | b'A')
                && matches!(after, b' ' | b',' | b'\n' | b'!' | b'?' | b')')
                && self.run.last().is_some_and(|t| {
                    t.end + 1 == start
                        && t.shape == Shape::Title
                        && t.entry
                            .is_some_and(|e| e.first >= 3 && e.first > e.wordiness())
                })
            {
                // The surname's initial ("I" and "A" are words, not initials).
            } else {
                self.flush();
                return;
            }
        }
        let mut possessive = false;
        for suffix in ["'s", "’s", "'S"] {
            if plain {
                break;
            }
            if text[start..end].len() > suffix.len() + 1 && text[start..end].ends_with(suffix) {
                end -= suffix.len();
                possessive = true;
                break;
            }
        }
        // `Mary\'s` in escaped text: the same possessive.
        if after == b'\\'
            && text[end + 1..].starts_with("'s")
            && !b.get(end + 3).is_some_and(u8::is_ascii_alphanumeric)
        {
            possessive = true;
        }
        if !plain && (is_contraction(&text[start..end]) || self.hyphenated_phrase(start, end)) {
            self.flush();
            return;
        }
        let comma_before = match self.run.last() {
            Some(last) => match self.gap_joins(last.end, start) {
                Some(comma)
                    if !last.possessive
                        && ((last.shape == Shape::Caseless) == (shape == Shape::Caseless)) =>
                {
                    comma
                }
                _ => {
                    self.flush();
                    false
                }
            },
            None => false,
        };
        let word = &text[start..end];
        let bare = word.strip_suffix('.').unwrap_or(word);
        let (mut entry, flags) =
            self.finder
                .gaz
                .lookup_with_flags_at(text, start, start + bare.len());
        if entry.is_none() && !plain && shape == Shape::Title {
            entry = self.finder.gaz.lookup_declined_cyrillic(bare);
        }
        if entry.is_none() && !plain && bare.contains(['\'', '’']) {
            // O'Neil → ONEIL in the census list
            let joined: String = bare.chars().filter(|c| !matches!(c, '\'' | '’')).collect();
            entry = self.finder.gaz.lookup(&joined);
        }
        self.run.push(Tok {
            start,
            end,
            shape,
            particle: false,
            comma_before,
            possessive,
            entry,
            flags,
        });
        if possessive {
            self.flush();
        }
    }

    fn flush(&mut self) {
        match self.run.as_slice() {
            [] => return,
            // The common run of prose: one capitalised ordinary word ("Apply", "The") or a
            // lone initial. `judge` rejects these whatever the cue (see `single`), so skip it.
            [t] if !t.particle
                && (t.shape == Shape::Initial
                    || (t.shape != Shape::Caseless && t.entry.is_some_and(|e| e.name() == 0))) =>
            {
                self.run.clear();
                return;
            }
            // One known word that only a title could make a name ("The", "You" at a sentence
            // start; see `single_needs_title`): judge it only after a title word, or when the
            // learned judge could accept it ("starring Bang").
            [t] if !t.particle
                && single_needs_title(t)
                && !self.title_before(t.start)
                && !self.judge_could_rescue(&self.run)
                && self.trace.is_none() =>
            {
                self.run.clear();
                return;
            }
            // Ordinary words, initials and particles only ("ORDER BY", "Account Manager"):
            // `single` and `multi` reject every word the gazetteer knows as no name, so
            // `judge` rejects each part of such a run whatever the cue (unless the learned
            // judge could accept it).
            run if run.iter().all(|t| {
                t.particle
                    || t.shape == Shape::Initial
                    || (t.shape != Shape::Caseless && t.entry.is_some_and(|e| e.name() == 0))
            }) && !self.judge_could_rescue(run)
                && self.trace.is_none() =>
            {
                self.run.clear();
                return;
            }
            _ => {}
        }
        let run = std::mem::take(&mut self.run);
        self.judge_run(&run);
        self.run = run;
        self.run.clear();
    }

    /// Whether the learned judge, if loaded, could accept `run` when the rules reject it
    /// (every word passes [`Scan::rescuable`]); `flush` judges such runs instead of skipping.
    /// (When tracing for training, `flush` skips only what the judge was trained without, so
    /// the training candidates do not depend on these shortcuts.)
    fn judge_could_rescue(&self, run: &[Tok]) -> bool {
        self.finder.judge.is_some() && run.iter().all(|t| self.rescuable(t))
    }

    /// Splits a run at its commas ("Smith, John" stays whole) and judges each part.
    fn judge_run(&mut self, run: &[Tok]) {
        let commas = run.iter().filter(|t| t.comma_before).count();
        if commas == 0 {
            self.judge(run, Cue::None);
            return;
        }
        // "Contact Doe, Jane": a cue word that opens the sentence joins the run.
        if commas == 1
            && run.len() >= 3
            && run[2].comma_before
            && self.text[run[1].end..run[2].start].starts_with(',')
            && self.finder.lex.flags(self.word(&run[0]))
                & (lexicon::STRONG_BEFORE_F | lexicon::WEAK_BEFORE_F)
                != 0
            && self.inverted(&run[1..])
        {
            self.emit(Span::new(run[1].start, run[run.len() - 1].end, Kind::Name));
            return;
        }
        if commas == 1
            && run.len() >= 2
            && run[1].comma_before
            && self.text[run[0].end..run[1].start].starts_with(',')
            && (self.inverted(run) || self.inverted_pair_beside_amp(run))
        {
            let span = Span::new(run[0].start, run[run.len() - 1].end, Kind::Name);
            self.emit(span);
            return;
        }
        // A list ("Maslow, Anthony and Perry"): a firm's name when "The" leads it or "office"
        // follows it; otherwise people when one item is, so weaker items count as people too.
        let before = self.text[..run[0].start].trim_end();
        let after = self.text[run[run.len() - 1].end..].trim_start();
        let firm = before.ends_with("The")
            || before.ends_with("the")
            || self.word(&run[0]) == "The"
            || ["office", "law", "LLP", "&"]
                .iter()
                .any(|w| after.starts_with(w))
            || after.bytes().next().is_some_and(|c| c.is_ascii_digit())
            || self.surname_firm(run, after);
        if firm {
            return;
        }
        if self.inverted_pairs(run) {
            for pair in run.chunks_exact(2) {
                self.emit(Span::new(pair[0].start, pair[1].end, Kind::Name));
            }
            return;
        }
        // The parts, on the stack (a list of more than sixteen goes to the heap): this runs
        // for every run with a comma.
        let mut parts_buf = [(0usize, 0usize); 16];
        let mut parts_heap = Vec::new();
        let mut n_parts = 0;
        let mut from = 0;
        for i in 1..=run.len() {
            if i == run.len() || run[i].comma_before {
                if n_parts < parts_buf.len() {
                    parts_buf[n_parts] = (from, i);
                } else {
                    if parts_heap.is_empty() {
                        parts_heap.extend_from_slice(&parts_buf);
                    }
                    parts_heap.push((from, i));
                }
                n_parts += 1;
                from = i;
            }
        }
        let parts: &[(usize, usize)] = if n_parts <= parts_buf.len() {
            &parts_buf[..n_parts]
        } else {
            &parts_heap
        };
        // "Paris, France", "Austin, Texas": a place then its country or state, not two
        // people. (A state that is a common given name, "Georgia", is left to the list.)
        let region = |&(a, b): &(usize, usize)| {
            b == a + 1
                && run[a].shape != Shape::Lower
                && run[a].entry.is_some_and(|e| e.place >= 3 && e.first < 6)
        };
        if parts.len() == 2 && region(&parts[1]) {
            return;
        }
        // A list with a thing in it ("Merrill Lynch, Arrive Labs and Buildzoom") lists firms
        // or places: none of its items is taken for a person.
        let things = parts.len() >= 3
            && parts.iter().any(|&(a, b)| {
                run[a..b].iter().any(|t| {
                    !t.particle
                        && t.shape != Shape::Initial
                        && (t.is(lexicon::ORG_PLACE) || t.entry.is_some_and(|e| e.name() == 0))
                })
            });
        if things {
            return;
        }
        // Which parts the judge rejected (by the parts' order), on the stack like them.
        let mut rejected_buf = [false; 16];
        let mut rejected_heap = Vec::new();
        let rejected: &mut [bool] = if parts.len() <= rejected_buf.len() {
            &mut rejected_buf[..parts.len()]
        } else {
            rejected_heap.resize(parts.len(), false);
            &mut rejected_heap
        };
        let mut n_rejected = 0;
        for (k, &(a, b)) in parts.iter().enumerate() {
            if !self.judge(&run[a..b], Cue::None) {
                rejected[k] = true;
                n_rejected += 1;
            }
        }
        // Only a list proper lends an item its neighbours' standing: three or more items, or
        // two joined by "and" ("Sousa and Ball"), not "omar, will do".
        let list = parts.len() >= 3
            || parts.last().is_some_and(|&(a, _)| {
                a > 0 && self.text[run[a - 1].end..run[a].start].contains("and")
            })
            || after.trim_start_matches([',', ' ']).starts_with("and ");
        if list && n_rejected < parts.len() {
            for (&(a, b), _) in parts.iter().zip(rejected.iter()).filter(|(_, r)| **r) {
                // A lower-case common word is no list item ("sam, will and ...").
                if b == a + 1
                    && run[a].shape == Shape::Lower
                    && run[a].entry.is_some_and(|e| e.wordiness() >= 6)
                {
                    continue;
                }
                // "Love, Maria", "Thanks, Omar": a sign-off or greeting is no list item.
                if b == a + 1
                    && run[a].is(lexicon::STRONG_BEFORE_F | lexicon::WEAK_BEFORE_F | lexicon::TITLE)
                {
                    continue;
                }
                self.judge(&run[a..b], Cue::Strong);
            }
        }
    }

    /// "Davis, Reynolds and Williamson is ...": three surnames in the form of a firm's name,
    /// going on in the sentence. A list of people closes it ("our founders: Blair, Sousa and
    /// Parks.") or has given names in it.
    fn surname_firm(&self, run: &[Tok], after: &str) -> bool {
        run.len() == 3
            && self.text[run[0].end..run[1].start] == *", "
            && self.text[run[1].end..run[2].start] == *" and "
            && run.iter().all(|t| {
                t.shape == Shape::Title && t.entry.is_some_and(|e| e.last >= 2 && e.last > e.first)
            })
            && after
                .bytes()
                .next()
                .is_some_and(|c| !matches!(c, b'.' | b'!' | b'?' | b'"' | b')'))
    }

    /// "Garcia, Maria and Chen, Wei": inverted names joined by "and" or "&", each a clear
    /// surname, a comma and a clear given name. ("Maslow, Anthony and Perry" is a list of
    /// three; "Smith, Jones and Brown, Taylor" has surnames where the given names would be.)
    fn inverted_pairs(&self, run: &[Tok]) -> bool {
        if run.len() < 4 || !run.len().is_multiple_of(2) {
            return false;
        }
        run.chunks_exact(2).enumerate().all(|(k, pair)| {
            let (Some(sur), Some(given)) = (pair[0].entry, pair[1].entry) else {
                return false;
            };
            let joined = k == 0
                || matches!(
                    self.text[run[2 * k - 1].end..pair[0].start].trim(),
                    "and" | "&"
                );
            joined
                && self.text[pair[0].end..pair[1].start].trim() == ","
                && pair[0].shape != Shape::Lower
                && pair[1].shape != Shape::Lower
                && clear_inverted_pair(sur, given)
        })
    }

    /// "Garcia, Maria & Chen, Wei": a run of one inverted name with another on the far side
    /// of `&` (or `&amp;`), one of the two clear (see [`clear_inverted_pair`]), the other at
    /// least a known surname and given name. The scan ends a run at `&`, and a run beside `&`
    /// reads as a firm's name ("Smith & Jones"), so each side is judged here.
    fn inverted_pair_beside_amp(&self, run: &[Tok]) -> bool {
        let [sur, given] = run else {
            return false;
        };
        if self.text[sur.end..given.start] != *", " {
            return false;
        }
        let mine = self.inverted_pair_strength(self.word(sur), self.word(given));
        if mine == 0 {
            return false;
        }
        let enough = |other: u8| other > 0 && mine.max(other) == 2;
        // The pair after: "& Chen, Wei".
        let rest = self.text[given.end..].trim_start();
        let after = rest
            .strip_prefix("&amp;")
            .or_else(|| rest.strip_prefix('&'))
            .and_then(|rest| rest.trim_start().split_once(", "))
            .is_some_and(|(s, rest)| {
                rest.split(|c: char| !c.is_alphabetic())
                    .next()
                    .is_some_and(|g| enough(self.inverted_pair_strength(s, g)))
            });
        // The pair before: "Chen, Wei & ".
        let head = self.text[..sur.start].trim_end();
        let before = || {
            head.strip_suffix("&amp;")
                .or_else(|| head.strip_suffix('&'))
                .and_then(|head| head.trim_end().rsplit_once(", "))
                .is_some_and(|(head, g)| {
                    head.rsplit(|c: char| !c.is_alphabetic())
                        .next()
                        .is_some_and(|s| enough(self.inverted_pair_strength(s, g)))
                })
        };
        after || before()
    }

    /// How surely the capitalised words `sur`, `given` make an inverted name: 2 when
    /// [`clear_inverted_pair`], 1 when they are at least a known surname and a given name
    /// ("Wilson, Grace": "grace" is a common word), else 0.
    fn inverted_pair_strength(&self, sur: &str, given: &str) -> u8 {
        let capitalised = |w: &str| {
            let mut cs = w.chars();
            cs.next().is_some_and(char::is_uppercase) && cs.any(char::is_lowercase)
        };
        if !capitalised(sur) || !capitalised(given) {
            return 0;
        }
        match (self.finder.entry(sur), self.finder.entry(given)) {
            (Some(s), Some(g)) if clear_inverted_pair(s, g) => 2,
            (Some(s), Some(g))
                if s.last >= 3
                    && s.last >= s.first
                    && g.first >= 3
                    && g.first > g.last
                    && s.place <= 1
                    && g.place <= 1 =>
            {
                1
            }
            _ => 0,
        }
    }

    /// "Smith, John": a surname, a comma, a given name (and maybe an initial), not in a list.
    fn inverted(&self, run: &[Tok]) -> bool {
        let Some(sur) = run[0].entry else {
            return false;
        };
        // A hyphenated Chinese or Korean given name ("Park, Min-jun") is one whatever the
        // gazetteer holds; it stands for a clear given name.
        let given = match run[1].entry {
            _ if run.len() == 2 && romanized::hyphenated_given(self.word(&run[1])) => Entry {
                first: 6,
                ..Entry::default()
            },
            Some(e) => e,
            None => return false,
        };
        let tail_ok = run[2..].iter().all(|t| t.shape == Shape::Initial);
        let end = run[run.len() - 1].end;
        let next = &self.text[end..];
        let listy = next.starts_with(',')
            || next.starts_with(" and ")
            || next.starts_with(" &")
            || self.text[..run[0].start].trim_end().ends_with(',');
        if !tail_ok || listy {
            return false;
        }
        // "Doe, Jane (jane.doe@example.com)", "Customer: Doe, Jane", "cc Doe, Jane": a surname
        // the text's own e-mail address holds, or one after a cue or a field label, needs only
        // to be a surname; that context outweighs its sense as a word.
        let evidence = self.evidence.any && self.evidence.has(self.word(&run[0]));
        if evidence
            || self.cue_or_label_before(run[0].start)
            || self.after_inverted_name(run[0].start)
        {
            // A common given name may also be a town ("Ann"); after the cue that is no matter.
            return sur.last >= 1
                && sur.place <= 1
                && given.first >= 3
                && given.first > given.last
                && (given.place <= 1 || given.first >= 6);
        }
        sur.last >= 2
            && sur.last > sur.first + 1
            && sur.last >= sur.wordiness() + 2
            && given.first >= 3
            && given.first > given.last + 1
            && given.wordiness() <= 3
    }

    /// Whether an inverted name ends right before `at`, joined by ";", "or" or "/" ("Smith,
    /// John; Doe, Jane"): the list's first name is a cue to the next.
    fn after_inverted_name(&self, at: usize) -> bool {
        self.out.last().is_some_and(|s| {
            s.end <= at
                && matches!(self.text[s.end..at].trim(), ";" | "or" | "/")
                && self.text[s.start..s.end].contains(", ")
        })
    }

    /// Whether the word before the "to" at `at` (the word right before a run) is a verb of
    /// going ("went to", "moving to", "flights to").
    fn motion_before(&self, at: usize) -> bool {
        // The first letter rejects most words before the list is walked.
        self.prev_word(at).0.is_some_and(|w| {
            w.as_bytes()
                .first()
                .is_some_and(|&c| lexicon::MOTION_FIRSTS & (1 << (c & 31)) != 0)
                && lexicon::on_list(lexicon::MOTION_VERBS, w)
        })
    }

    /// Whether a cue word ("cc", "by", "Dr.") or a field label (`Customer:`, `- Owner:`)
    /// comes right before `at`.
    fn cue_or_label_before(&self, at: usize) -> bool {
        let head = self.text[..at].trim_end_matches(' ');
        if let Some(label) = head.strip_suffix(':') {
            let head = label.trim_end_matches(|c: char| c.is_alphanumeric());
            let word = &label[head.len()..];
            let line_start = head
                .trim_end_matches([' ', '-', '*', '\t'])
                .chars()
                .next_back()
                .is_none_or(|c| c == '\n' || c == '\r');
            if !word.is_empty() && line_start {
                return true;
            }
        }
        let (Some(prev), _) = self.prev_word(at) else {
            return false;
        };
        let flags = self.finder.lex.flags(prev);
        flags & (lexicon::STRONG_BEFORE_F | lexicon::WEAK_BEFORE_F | lexicon::TITLE) != 0
    }

    /// The word before `at`, skipping spaces and at most one `,` or `:`, and whether a sentence
    /// boundary (or the start of the text) comes first.
    fn prev_word(&self, at: usize) -> (Option<&str>, bool) {
        let (word, boundary) = self.prev_word_at(at);
        (word.map(|(_, w)| w), boundary)
    }

    /// [`Self::prev_word`] with the word's start in the text: callers that look further back
    /// start there, without searching the text for the word again.
    fn prev_word_at(&self, at: usize) -> (Option<(usize, &str)>, bool) {
        let text = self.text;
        let head = text[..at].trim_end_matches([' ', '\u{a0}']);
        let head_p = head
            .strip_suffix([',', ':', '-', '(', '"', '“'])
            .unwrap_or(head)
            .trim_end_matches(' ');
        match head_p.chars().next_back() {
            None => (None, true),
            Some(c) if !c.is_alphabetic() => (
                None,
                matches!(
                    c,
                    '.' | '!' | '?' | '\n' | '\r' | '\t' | '>' | '|' | ';' | '*'
                ),
            ),
            Some(_) => {
                // ASCII letters and `'` byte by byte; the char scan only past a non-ASCII byte.
                let hb = head_p.as_bytes();
                let mut start = hb.len();
                while start > 0 && (hb[start - 1].is_ascii_alphabetic() || hb[start - 1] == b'\'') {
                    start -= 1;
                }
                if start > 0 && hb[start - 1] >= 0x80 {
                    start = head_p
                        .char_indices()
                        .rev()
                        .find(|(_, c)| !c.is_alphabetic() && *c != '\'')
                        .map_or(0, |(i, c)| i + c.len_utf8());
                }
                (Some((start, &head_p[start..])), false)
            }
        }
    }

    /// Whether the word before `at`, as [`Self::prev_word`] finds it, is a title ("Mr The").
    /// Most words follow a space and a byte that ends no word (". The", "\nYou"): that byte
    /// alone answers.
    fn title_before(&self, at: usize) -> bool {
        let b = self.text.as_bytes();
        let mut j = at;
        while j > 0 && b[j - 1] == b' ' {
            j -= 1;
        }
        match j.checked_sub(1).and_then(|k| b.get(k)) {
            None => return false,
            // What `prev_word` would see last after its trims: no letter, no word.
            Some(&c)
                if c < 0x80
                    && !c.is_ascii_alphabetic()
                    && !matches!(c, b',' | b':' | b'-' | b'(' | b'"') =>
            {
                return false;
            }
            Some(_) => {}
        }
        self.prev_word(at)
            .0
            .is_some_and(|p| self.finder.lex.flags(p) & lexicon::TITLE != 0)
    }

    /// The word right after `at`, skipping spaces and one `,`.
    fn next_word(&self, at: usize) -> Option<&str> {
        let rest = self.text[at..].trim_start_matches([' ', ',']);
        // ASCII letters eight bytes at a time; the char scan only from a non-ASCII byte.
        let mut end = ascii_letters_end(rest.as_bytes(), 0);
        if rest.as_bytes().get(end).is_some_and(|&c| c >= 0x80) {
            end += rest[end..]
                .char_indices()
                .find(|(_, c)| !c.is_alphabetic())
                .map_or(rest.len() - end, |(i, _)| i);
        }
        (end > 0).then(|| &rest[..end])
    }

    /// Judges one comma-free part of a run, starting from cue `given`; whether it was a name.
    fn judge(&mut self, toks: &[Tok], given: Cue) -> bool {
        // (A run that is one stretch of known name words is judged below as it is: splitting it
        // again would recurse on the same words until the stack overflows.)
        if toks.len() > 2
            && toks.iter().all(|t| t.shape == Shape::Caseless)
            && !toks.iter().all(|t| t.entry.is_some_and(|e| e.name() > 0))
        {
            // Scripts without case: every word is a candidate, so judge each stretch of known
            // name words on its own ("محمد أحمد وصل اليوم").
            let mut any = false;
            let mut from = 0;
            for i in 0..=toks.len() {
                let known = i < toks.len() && toks[i].entry.is_some_and(|e| e.name() > 0);
                if !known {
                    if i >= from + 2 {
                        any |= self.judge(&toks[from..i], given);
                    }
                    from = i + 1;
                }
            }
            return any;
        }
        let f = self.finder;
        let lex = f.lex;
        let all = toks;
        let mut toks = toks;
        while toks
            .first()
            .is_some_and(|t| t.particle || self.word(t) == "I.")
        {
            toks = &toks[1..];
        }
        while toks.last().is_some_and(|t| t.particle) {
            toks = &toks[..toks.len() - 1];
        }
        if toks.is_empty() {
            return false;
        }
        let run_start = toks[0].start;
        let run_end = toks[toks.len() - 1].end;
        // Cues inside the run: titles, greetings and verbs at its front.
        let mut cue = given;
        let mut dropped_the = false;
        // Where the span starts when a role title leads it ("Pope Benedict").
        let mut role_start = None;
        while toks.len() > 1 {
            let t = &toks[0];
            let w = self.word(t);
            if t.shape == Shape::Lower && !self.lower_text {
                break;
            }
            if t.is(lexicon::TITLE) && t.shape != Shape::Initial {
                cue = Cue::Title;
                if role_start.is_none()
                    && t.shape != Shape::Lower
                    && text_of(self.text, t.end, toks[1].start) == " "
                    && lexicon::on_list(lexicon::ROLE_TITLES, w)
                {
                    role_start = Some(t.start);
                }
            } else if t.is(lexicon::STREET_BEFORE_F)
                && cue < Cue::Title
                && t.shape != Shape::Initial
                && !lexicon::on_list(lexicon::STREET_WORDS_NOT_LEADING, w)
            {
                // "Lake Charles", "Saint Vincent", "USNS Márquez": a place, not a person.
                return false;
            } else if t.is(lexicon::STRONG_BEFORE_F) {
                cue = cue.max(Cue::Strong);
            } else if t.is(lexicon::WEAK_BEFORE_F) {
                cue = cue.max(Cue::Weak);
            } else if cue < Cue::Title && self.is_lead_word(t, &toks[1], t.start == run_start) {
                dropped_the |= w.eq_ignore_ascii_case("the");
            } else {
                break;
            }
            toks = &toks[1..];
            if cue < Cue::Title {
                while toks.first().is_some_and(|t| t.particle) {
                    toks = &toks[1..];
                }
            }
        }
        // A title inside the run starts the name ("rufen Sie Frau Schneider an", "Thank You
        // Mr. Lee"): what comes before it is judged on its own.
        if cue < Cue::Title
            && let Some(i) = (1..toks.len().saturating_sub(1)).find(|&i| {
                let t = &toks[i];
                t.is(lexicon::TITLE)
                    && !t.particle
                    && matches!(t.shape, Shape::Title | Shape::Upper)
                    && !toks[i + 1].particle
            })
        {
            let before = self.judge(&toks[..i], given);
            return self.judge(&toks[i..], Cue::None) || before;
        }
        // A day named after someone ("Marvin Gaye Day"): the name is the person.
        if toks.len() > 2 && self.word(&toks[toks.len() - 1]) == "Day" {
            toks = &toks[..toks.len() - 1];
        }
        // Ordinary words at the end ("Maria Office").
        while toks.len() > 1 && !toks[toks.len() - 2].particle {
            let t = &toks[toks.len() - 1];
            let e = t.entry;
            let after_given = toks[toks.len() - 2].entry.is_some_and(|p| p.first >= 3);
            let wordy = e.is_some_and(|e| {
                if t.shape == Shape::Lower {
                    e.name() == 0 || (e.wordiness() >= e.name() && !(e.last >= 2 && after_given))
                } else {
                    e.name() == 0 || (e.last == 0 && e.wordiness() >= e.name() + 3)
                }
            }) && t.shape != Shape::Initial;
            if !(wordy || self.run_separator(t)) || t.is(lexicon::ORG_PLACE) {
                break;
            }
            toks = &toks[..toks.len() - 1];
            while toks.last().is_some_and(|t| t.particle) {
                toks = &toks[..toks.len() - 1];
            }
        }
        if toks.is_empty() {
            return false;
        }
        // A title-cased line ("Kanye West Celebrates LAMB With Gwen Stefani"): an ordinary word
        // inside the run separates the names around it.
        if toks.len() > 2
            && let Some(i) = (1..toks.len() - 1).find(|&i| {
                let t = &toks[i];
                !t.particle
                    && t.shape != Shape::Initial
                    && !t.is(lexicon::ORG_PLACE)
                    && (t
                        .entry
                        .is_some_and(|e| e.name() == 0 || (e.name() <= 1 && e.common == 1))
                        || self.run_separator(t))
            })
        {
            // A role title before the first part stays with it ("President Jonathan Visits").
            let role = role_start.and_then(|rs| all.iter().position(|t| t.start == rs));
            let split = all.iter().position(|t| t.start == toks[i].start);
            let a = match (role, split) {
                (Some(r), Some(k)) => self.judge(&all[r..k], given),
                _ => self.judge(&toks[..i], cue),
            };
            let b = self.judge(&toks[i + 1..], Cue::None);
            return a || b;
        }
        // Organisations and places.
        if toks[1..]
            .iter()
            .any(|t| !t.particle && t.is(lexicon::ORG_PLACE))
            || self.is_org_phrase(toks)
        {
            return false;
        }
        let text = self.text;
        // The text before the run, trimmed once (the `&` here, the signature dash below).
        let head = text[..run_start].trim_end();
        // `&amp;` (HTML, tweets) as well, but there only before a surname ("Johnson &amp;
        // Johnson"): "&amp; Dave" is a friend far more often than a firm.
        let amp_before = head.ends_with('&')
            || (head.ends_with("&amp;")
                && toks.len() == 1
                && toks[0].entry.is_some_and(|e| e.last > e.first));
        let amp_after = text[run_end..].trim_start().starts_with('&');
        if (amp_before || amp_after) && !self.person_beside_amp(toks, amp_after) {
            return false;
        }
        let (prev_at, sentence_start) = if toks[0].start == run_start {
            self.prev_word_at(run_start)
        } else {
            (None, false)
        };
        let prev = prev_at.map(|(_, p)| p);
        // `at`: where the word before the run starts (the words before it are looked up from
        // there, not searched for in the text again).
        if toks[0].start == run_start
            && let Some((at, p)) = prev_at
        {
            let pf = lex.flags(p);
            if pf & lexicon::TITLE != 0 {
                cue = cue.max(Cue::Title);
            } else if pf & lexicon::STRONG_BEFORE_F != 0 {
                cue = cue.max(self.sign_off_cue(p, at, run_start));
            } else if p == "to" && self.motion_before(at) {
                // "went to Paris", "moved to Austin": a destination, not "talk to Paris".
                if cue == Cue::None {
                    cue = Cue::Place;
                }
            } else if pf & lexicon::WEAK_BEFORE_F != 0 {
                cue = cue.max(Cue::Weak);
            } else if pf & lexicon::STREET_BEFORE_F != 0 && cue < Cue::Title {
                return false;
            } else if (p == "a" || p == "an") && toks.len() == 1 && cue < Cue::Strong {
                // "a Julia model", "a Lane in Summer", "an Oracle database": one word after
                // an article names a thing or a kind.
                return false;
            } else if p.eq_ignore_ascii_case("in") {
                // "loop in X", "bring in X"; otherwise a place ("in Jordan")
                let pp = self.prev_word(at).0;
                if pp.is_some_and(|w| ["loop", "bring", "brought", "looped"].contains(&w)) {
                    cue = cue.max(Cue::Weak);
                } else if cue == Cue::None {
                    cue = Cue::Place;
                }
            } else if pf & lexicon::PLACE_BEFORE_F != 0 && cue == Cue::None {
                cue = Cue::Place;
            } else if p == "and" {
                // "me and Lari", "you and Davis"
                if self
                    .prev_word(at)
                    .0
                    .is_some_and(|w| ["me", "you", "him", "her", "us"].contains(&w))
                {
                    cue = cue.max(Cue::Weak);
                }
            } else if p == "me" {
                // "call me Mark", "everyone calls me Weronika"
                if self
                    .prev_word(at)
                    .0
                    .is_some_and(|w| ["call", "calls", "called", "named"].contains(&w))
                {
                    cue = cue.max(Cue::Strong);
                }
            } else if p.eq_ignore_ascii_case("is") || p.eq_ignore_ascii_case("was") {
                // "my name is X", "her maiden name is X"
                if self
                    .prev_word(at)
                    .0
                    .is_some_and(|w| w.eq_ignore_ascii_case("name"))
                {
                    cue = cue.max(Cue::Strong);
                }
            }
        }
        // "Ruby on Rails", "Stratford-upon-Avon": a name word opening a known phrase.
        if toks.len() == 1
            && cue < Cue::Title
            && text
                .as_bytes()
                .get(run_end + 1)
                .is_some_and(u8::is_ascii_lowercase)
        {
            let word = self.word(&toks[0]);
            let tail = &text[run_end..];
            if lexicon::PHRASE_TAILS.iter().any(|(head, rest)| {
                word.eq_ignore_ascii_case(head)
                    && tail
                        .get(..rest.len())
                        .is_some_and(|t| t.eq_ignore_ascii_case(rest))
            }) {
                return false;
            }
        }
        // A signature line: "-- Justin Jackson | ...".
        if head.ends_with("--") || head.ends_with('—') {
            cue = cue.max(Cue::Strong);
        }
        // An attribution or a sign-off by dash closing a line: "Thanks! - Priya",
        // "... in the end. -Larry Bird".
        if toks[0].start == run_start
            && let Some(dash) = head.strip_suffix(['-', '–', '~'])
            && dash.ends_with([' ', '\n'])
            && dash
                .trim_end_matches(' ')
                .chars()
                .next_back()
                .is_none_or(|c| matches!(c, '.' | '!' | '?' | ')' | '"' | '\n'))
            && text[toks[toks.len() - 1].end..]
                .trim_start_matches([' ', '.', '!'])
                .bytes()
                .next()
                .is_none_or(|c| c == b'\n' || c == b'\r')
        {
            cue = cue.max(Cue::Strong);
        }
        // A display name before its address (`Maria Ortiz <maria@example.com>`,
        // `"Jean-Luc Picard" <jl@example.org>`): mail headers, git trailers, CC lists.
        if display_name_before(&text[toks[toks.len() - 1].end..]) {
            cue = cue.max(Cue::Strong);
        }
        if dropped_the && cue == Cue::None {
            cue = Cue::Place;
        }
        // Street addresses: a number right before or after the run (looked for only when the
        // cue is weak enough for it to matter).
        if cue < Cue::Strong {
            let num_before = text[..toks[0].start]
                .trim_end_matches([' ', ','])
                .bytes()
                .next_back()
                .is_some_and(|c| c.is_ascii_digit());
            let num_after = || {
                text[toks[toks.len() - 1].end..]
                    .trim_start_matches([' ', ','])
                    .bytes()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
                    || self.corner_of_streets(toks[toks.len() - 1].end)
            };
            if num_before || num_after() || self.in_address_block(toks) {
                return false;
            }
        }
        let last = toks[toks.len() - 1];
        let rest = &text[last.end..];
        // The word after the run, found once (the verb and the vocative below ask for it).
        let next = self.next_word(last.end);
        let verb = next.filter(|w| !last.possessive && lex.is(w, lexicon::STRONG_AFTER_F));
        // An auxiliary ("is", "was"): looked up once, used twice below.
        let aux_verb = verb.is_some_and(|w| lexicon::on_list(lexicon::AUX_AFTER, w));
        let person_verb = verb.is_some() && !aux_verb && rest.starts_with(' ');
        let after = if last.possessive {
            After::None
        } else if (rest.starts_with(':') && !rest.starts_with("::") && !rest.starts_with(":/"))
            || (sentence_start && (rest.starts_with(", ") || rest.starts_with(" , ")))
            || Self::and_i(rest)
        {
            // a speaker label ("Jordan: ...") or a vocative ("Oscar, can I ...")
            After::Person
        } else if verb.is_some() {
            if aux_verb { After::Aux } else { After::Person }
        } else {
            After::None
        };
        // "Where are you, Summer?": a clear given name addressed at the end of a sentence.
        if toks.len() == 1
            && text[..run_start].trim_end_matches(' ').ends_with(',')
            && rest
                .trim_start_matches(' ')
                .bytes()
                .next()
                .is_none_or(|c| matches!(c, b'?' | b'!' | b'.'))
            && toks[0]
                .entry
                .is_some_and(|e| e.first >= 3 && e.first > e.last && e.place == 0)
        {
            cue = cue.max(Cue::Strong);
        }
        // "Jakobine, can I ...": an unknown word addressed at the start of a sentence.
        let vocative = sentence_start
            && (rest.starts_with(", ") || rest.starts_with(" , "))
            && next.is_some_and(|w| {
                [
                    "can", "could", "would", "will", "please", "are", "do", "did", "have", "I",
                ]
                .contains(&w)
            });
        if self.evidence.any && toks.iter().any(|t| self.evidence.has(self.word(t))) {
            cue = cue.max(Cue::Strong);
        }
        if last.possessive && toks.len() == 1 {
            // "Liam's address", "Mary's daughter": what people have.
            let owned = self
                .next_word(last.end + text[last.end..].find(' ').unwrap_or(0))
                .is_some_and(|w| {
                    [
                        "address", "daughter", "son", "wife", "husband", "mother", "father",
                        "phone", "email", "account", "birthday", "friend", "boss", "sister",
                        "brother", "number", "car", "house", "office", "desk", "team",
                    ]
                    .contains(&w)
                });
            cue = cue.max(if owned { Cue::Strong } else { Cue::Weak });
        }
        // The name words proper (no particles or initials); names have at most eight.
        let mut core_buf: [&Tok; 8] = [&toks[0]; 8];
        let mut n_core = 0;
        for t in toks
            .iter()
            .filter(|t| !t.particle && t.shape != Shape::Initial)
        {
            if n_core == core_buf.len() {
                return false;
            }
            core_buf[n_core] = t;
            n_core += 1;
        }
        let core = &core_buf[..n_core];
        // "in Hamilton East", "from Berlin Spandau": a city and a district, not a given name
        // and a surname.
        if core.len() == 2
            && (cue == Cue::Place || prev.is_some_and(|p| p.eq_ignore_ascii_case("from")))
            && cue < Cue::Strong
            && core[0].entry.is_some_and(|e| e.place >= 2)
            && core[1].entry.is_none_or(|e| e.last < 3)
        {
            return false;
        }
        if let [a, b] = core
            && a.end - a.start <= 4
            && romanized::known_thing(self.word(a), self.word(b))
        {
            return false;
        }
        // A country, capital or state alone, with no cue before it and no person verb after it
        // ("Paris is nice.", "I love Paris."), is the place, even when it is a given name too
        // ("Hi Paris", "Paris said" stay names); the judge is not asked.
        if let [t] = core
            && t.entry.is_some_and(|e| e.place >= 3)
            && cue < Cue::Weak
            && after < After::Person
        {
            return false;
        }
        let rule = match core.len() {
            0 => false,
            1 => {
                self.single(core[0], cue, after, sentence_start, toks.len() > 1)
                    || (vocative && core[0].entry.is_none() && core[0].shape == Shape::Title)
                    || ((person_verb || (sentence_start && speaker_label(rest)))
                        && self.unknown_name_shape(core[0])
                        && self.word(core[0]).len() >= 4)
            }
            _ => self.multi(core, cue),
        };
        // "Li Wei", "Kim Min-jun", "Nguyen Van An": surname first, in a romanization; not
        // when a capitalised word was trimmed off the run ("Wu Tang Clan").
        let core_end = core[core.len().saturating_sub(1)..]
            .first()
            .map_or(run_end, |t| t.end);
        let surname_first = (2..=4).contains(&core.len())
            && !text[core_end..]
                .trim_start_matches(' ')
                .starts_with(|c: char| c.is_uppercase())
            && core
                .iter()
                .all(|t| t.shape == Shape::Title || (t.shape == Shape::Upper && self.field))
            && {
                let mut words = [""; 4];
                for (w, t) in words.iter_mut().zip(core) {
                    *w = self.word(t);
                }
                romanized::surname_first(&words[..core.len()])
            };
        let rule = rule || surname_first;
        // The learned judge, when on, has the last word (the hard rejections above stay).
        let decided = if !core.is_empty() && (f.judge.is_some() || self.trace.is_some()) {
            let seen = model::Seen {
                toks,
                core,
                run_start,
                cue,
                after,
                sentence_start,
                prev,
                rule,
                settled: surname_first,
            };
            self.judge_candidate(&seen, role_start.unwrap_or(toks[0].start))
        } else {
            rule
        };
        let accept = decided
        // "Lincoln county", "marshall islands": a place or firm word in lower case goes on the
        // name of a place (checked last: it costs a lookup).
        && !(cue < Cue::Title && self.place_word_after(last.end))
        && !(cue < Cue::Strong && self.street_type_after(last.end));
        if accept {
            // A leading initial belongs to the name only when a core word follows it.
            let start = role_start.unwrap_or(toks[0].start);
            let end = last.end + self.suffix_len(last.end);
            self.emit(Span::new(start, end, Kind::Name));
        }
        accept
    }

    /// Whether `t` is a word that joins or follows names in tweets and headlines but is
    /// never part of one ("Serena Williams Vs Simona Halep", "Jim Rohn RT @...", "Drake ft
    /// Rihanna"): it ends a name like an ordinary word.
    fn run_separator(&self, t: &Tok) -> bool {
        t.entry.is_none()
            && ["vs", "rt", "ft", "feat"]
                .iter()
                .any(|w| w.eq_ignore_ascii_case(self.word(t)))
    }

    /// Whether the run ends a street name at a corner or before an address: " and " followed,
    /// within four words, by a house number of two digits or more ("Eloise and 226 Thomas
    /// Avenue", "Ines and Nordahl Rolfsens vei 187").
    fn corner_of_streets(&self, end: usize) -> bool {
        let Some(rest) = self.text[end..].strip_prefix(" and ") else {
            return false;
        };
        rest.split_whitespace().take(4).any(|w| {
            let w = w.trim_end_matches(['.', ',', '?', '!']);
            w.len() >= 2 && w.bytes().all(|c| c.is_ascii_digit())
        })
    }

    /// Whether a short lower-case word that is no English word and a house number follow the
    /// run: a street type written after the name ("Erzsébet tér 92", "Dózsa György út 78",
    /// "Király u. 15"). "Maria has 3 kids" keeps Maria: "has" is a word.
    fn street_type_after(&self, end: usize) -> bool {
        let Some(rest) = self.text[end..].strip_prefix(' ') else {
            return false;
        };
        let n = rest
            .bytes()
            .position(|c| matches!(c, b' ' | b'.'))
            .unwrap_or(rest.len());
        let word = &rest[..n];
        let tail = rest[n..].trim_start_matches('.');
        let number_next = tail
            .strip_prefix(' ')
            .is_some_and(|t| t.bytes().next().is_some_and(|c| c.is_ascii_digit()));
        number_next
            && (1..=12).contains(&n)
            && word.chars().all(char::is_lowercase)
            && self
                .finder
                .gaz
                .lookup(word)
                .is_none_or(|e| e.wordiness() == 0 && e.name() == 0)
    }

    /// Whether the run fills a line whose previous line holds a number: a city or region line
    /// of an address block ("Suite 137\nDen Haag"). A block's first line (the addressee) stays.
    fn in_address_block(&self, toks: &[Tok]) -> bool {
        let text = self.text;
        let start = toks[0].start;
        let end = toks[toks.len() - 1].end;
        let head = &text[..start];
        // The run must end its line (the cheapest test, and most runs do not: first).
        let tail = text[end..].trim_start_matches([' ', ',', '.']);
        if !(tail.is_empty() || tail.starts_with('\n') || tail.starts_with('\r')) {
            return false;
        }
        // Only the current line matters, and the line must be short: look back a little.
        let from = start.saturating_sub(64);
        let Some(nl) = memchr::memrchr(b'\n', &head.as_bytes()[from..]).map(|i| from + i) else {
            return false;
        };
        if !head[nl + 1..]
            .chars()
            .all(|c| c.is_whitespace() || matches!(c, '>' | '?' | '-' | '*'))
        {
            return false;
        }
        let lookback = nl.saturating_sub(200);
        let prev_line_start = memchr::memrchr(b'\n', &head.as_bytes()[lookback..nl])
            .map_or(lookback, |i| lookback + i + 1);
        head[prev_line_start..nl]
            .bytes()
            .any(|c| c.is_ascii_digit())
    }

    /// The length of a generational or academic suffix right after a name (" Jr.", ", PhD").
    fn suffix_len(&self, end: usize) -> usize {
        let rest = &self.text[end..];
        let body = rest.strip_prefix(", ").or_else(|| rest.strip_prefix(' '));
        // Every suffix starts with a capital (in lower-case text, a lower-case letter): most
        // runs end with none after them.
        let Some(body) = body.filter(|b| {
            b.as_bytes().first().is_some_and(|c| {
                c.is_ascii_uppercase() || (self.lower_text && c.is_ascii_lowercase())
            })
        }) else {
            return 0;
        };
        for suffix in SUFFIXES {
            let after = if self.lower_text {
                body.get(..suffix.len())
                    .filter(|head| head.eq_ignore_ascii_case(suffix))
                    .map(|_| &body[suffix.len()..])
            } else {
                body.strip_prefix(suffix)
            };
            if let Some(after) = after
                && after.chars().next().is_none_or(|c| !c.is_alphanumeric())
            {
                return rest.len() - after.len();
            }
        }
        0
    }

    /// Whether the first word of a run is an ordinary word to drop ("Yesterday Ronald Haas").
    fn is_lead_word(&self, t: &Tok, next: &Tok, run_first: bool) -> bool {
        if t.shape == Shape::Initial || t.shape == Shape::Caseless {
            return false;
        }
        if t.shape == Shape::Upper && t.entry.is_none() && t.end - t.start <= 3 {
            // "NY Congressman Michael Grimm", "LW Beleskey"
            return true;
        }
        let Some(e) = t.entry else {
            // An unknown word before a clear given name: "Привет Иван", "Gracias Maria".
            let n = next.entry.unwrap_or_default();
            return t.is(lexicon::CALENDAR_F)
                || (n.first >= 3 && n.first > n.last && n.first > n.wordiness());
        };
        if e.name() == 0 {
            return e.wordiness() > 0 || t.is(lexicon::CALENDAR_F);
        }
        if e.wordiness() < e.name() && !t.is(lexicon::CALENDAR_F) {
            return false;
        }
        if t.shape == Shape::Lower {
            return true;
        }
        // Inside a sentence, a capitalised given name that is also a word begins the name
        // before another name word ("I met Nick Jonas", "with Don Cheadle").
        if run_first
            && t.shape == Shape::Title
            && e.first >= 5
            && e.first > e.last
            && !t.is(lexicon::CALENDAR_F)
            && next.shape == Shape::Title
            && next.entry.is_none_or(|n| n.name() >= 1)
            && !self.prev_word(t.start).1
        {
            return false;
        }
        // "Will Smith" keeps Will; "Will Maria come?" drops it.
        let next = next.entry.unwrap_or_default();
        !(next.last >= 3 && next.last + 1 >= next.first)
    }

    fn is_org_phrase(&self, toks: &[Tok]) -> bool {
        let words = || toks.iter().filter(|t| !t.particle).map(|t| self.word(t));
        let n = words().count();
        ORG_PHRASE_LENS & (1 << n.min(63)) != 0
            && words()
                .next()
                .is_some_and(|w| ORG_PHRASE_FIRSTS.has(w.as_bytes()))
            && ORG_PHRASES.iter().any(|p| {
                p.len() == n
                    && p.iter()
                        .zip(words())
                        .all(|(a, b)| a.eq_ignore_ascii_case(b))
            })
            || (n == 2 && {
                // "Johnson & Johnson" is split by `&`; "Wells Fargo" and friends are listed.
                let next = self.text[toks[toks.len() - 1].end..].trim_start();
                next.starts_with('&') && !self.person_beside_amp(toks, true)
            })
    }

    /// Whether a run beside `&` is still a person: a given name with a surname ("Gwen Stefani
    /// & a friend"), or a name before "& I" / "& me". Firms are single words on each side
    /// ("Marks & Spencer", "Ernst & Young").
    fn person_beside_amp(&self, toks: &[Tok], amp_after: bool) -> bool {
        let mut core = toks
            .iter()
            .filter(|t| !t.particle && t.shape != Shape::Initial);
        let given_first = core.next().is_some_and(|t| {
            t.shape == Shape::Title
                && t.entry
                    .is_some_and(|e| e.first >= 3 && e.first >= e.wordiness() + 2)
        });
        if given_first && core.next().is_some() {
            return true;
        }
        if !amp_after {
            return false;
        }
        let rest = self.text[toks[toks.len() - 1].end..].trim_start();
        let rest = rest
            .strip_prefix("&amp;")
            .or_else(|| rest.strip_prefix('&'))
            .unwrap_or(rest)
            .trim_start();
        let pronoun = rest.split(|c: char| !c.is_alphabetic()).next();
        given_first && pronoun.is_some_and(|w| w == "I" || w == "me")
    }

    /// The cue of a greeting or sign-off word `p`, at `at`, right before the run at `run_start`. "Love"
    /// and the times of day are greetings only as such ("Love, Mackenna", "Good morning
    /// Sarah", "Night,\nJo"); otherwise they are a verb ("I love Fridays") or a time ("Saturday
    /// night Casitas presents").
    fn sign_off_cue(&self, p: &str, at: usize, run_start: usize) -> Cue {
        let timely = ["morning", "evening", "afternoon", "night"]
            .iter()
            .any(|w| p.eq_ignore_ascii_case(w));
        if !timely && !p.eq_ignore_ascii_case("love") {
            return Cue::Strong;
        }
        let gap = &self.text[at + p.len()..run_start];
        let good = self
            .prev_word(at)
            .0
            .is_some_and(|w| w.eq_ignore_ascii_case("good"));
        if gap.contains([',', '\n']) || (timely && good) || (!timely && self.prev_word(at).1) {
            Cue::Strong
        } else if timely {
            Cue::None
        } else {
            Cue::Weak
        }
    }

    /// Whether a lower-case place or firm word follows `end` after one space ("Lincoln park",
    /// "marshall islands").
    fn place_word_after(&self, end: usize) -> bool {
        let Some(r) = self.text[end..].strip_prefix(' ') else {
            return false;
        };
        let n = r.bytes().take_while(u8::is_ascii_lowercase).count();
        n >= 2
            && r[n..]
                .bytes()
                .next()
                .is_none_or(|c| !c.is_ascii_alphanumeric())
            && self.finder.lex.is(&r[..n], lexicon::ORG_PLACE)
            && !lexicon::on_list(lexicon::ORG_PLACE_AFTER_PERSON, &r[..n])
    }

    /// Whether `rest` (the text after a run) goes on with "and I" or "& I": the run is a person.
    fn and_i(rest: &str) -> bool {
        let rest = rest.trim_start_matches(' ');
        let rest = rest
            .strip_prefix("and ")
            .or_else(|| rest.strip_prefix("&amp; "))
            .or_else(|| rest.strip_prefix("& "));
        rest.is_some_and(|r| {
            r.strip_prefix('I')
                .is_some_and(|t| t.bytes().next().is_none_or(|c| !c.is_ascii_alphanumeric()))
        })
    }

    /// Whether `t` is a capitalised word the gazetteer does not know and that is on no list:
    /// with a verb people do after it ("Klimek shouted", "Bożena spent") it names someone.
    fn unknown_name_shape(&self, t: &Tok) -> bool {
        t.shape == Shape::Title && t.entry.is_none() && t.flags == 0 && !t.possessive
    }

    /// A single name word.
    fn single(
        &self,
        t: &Tok,
        cue: Cue,
        after: After,
        sentence_start: bool,
        with_initials: bool,
    ) -> bool {
        let w = self.word(t);
        // One character (the second `chars` item is absent), not a count of them all.
        if w.chars().nth(1).is_none() {
            return false;
        }
        let after_cue = after > After::None;
        let e = t.entry;
        // "April" in a list of names or after a greeting; "May" alone is a month.
        let calendar_ok =
            cue >= Cue::Title || (cue >= Cue::Strong && e.is_some_and(|e| e.first >= 3));
        if (t.is(lexicon::CALENDAR_F) && !calendar_ok)
            || t.is(lexicon::TITLE)
            || t.is(lexicon::ORG_PLACE)
        {
            return false;
        }
        if t.shape == Shape::Upper && e.is_none() && w.len() <= 3 {
            return false;
        }
        if t.is(lexicon::NOT_PEOPLE_F)
            && ((cue < Cue::Strong && after < After::Person)
                || lexicon::on_list(lexicon::NEVER_NAME_WORDS, w))
        {
            return false;
        }
        let name = e.map_or(0, |e| e.name());
        let wordy = e.map_or(0, |e| e.wordiness()) as i32;
        let margin = name as i32 - wordy;
        let first = e.map_or(0, |e| e.first);
        let last = e.map_or(0, |e| e.last);
        // Countries, capitals and states ("Canada", "Poland") need a title or a person verb,
        // even in a list of names, unless they are common given names ("Georgia").
        if e.is_some_and(|e| e.place >= 3) && first < 6 && cue < Cue::Title && after < After::Person
        {
            return false;
        }
        if t.shape == Shape::Lower && w.len() < 3 {
            return false;
        }
        match t.shape {
            // After a greeting ("Hi megan", "Hey john"), not "Hi will" nor "Thanks mark".
            Shape::Lower if !self.lower_text => {
                return cue >= Cue::Strong && e.is_some_and(lower_given_name_after_cue)
                    || (self.field && first >= 4 && wordy == 0);
            }
            Shape::Lower if cue < Cue::Weak && !after_cue && !(first >= 4 && wordy == 0) => {
                return false;
            }
            Shape::Upper if !(cue >= Cue::Strong || (self.field && name >= 3 && margin >= 2)) => {
                return false;
            }
            Shape::Caseless => return cue >= Cue::Title,
            _ => {}
        }
        if with_initials && ((name >= 2 && margin >= 0) || e.is_none()) {
            return true;
        }
        // A place name ("in Harrison", "to Hartford", "Utah lawmakers") unless a title, a
        // greeting or a very common given name says otherwise.
        let place = e.map_or(0, |e| e.place);
        if place > 0
            && cue < Cue::Strong
            && after < After::Person
            && (cue == Cue::Place || first < 6)
        {
            return false;
        }
        match cue {
            Cue::Title => {
                (last > 0 && margin >= -4)
                    || (name > 0 && margin >= -2)
                    || (e.is_none() && t.shape != Shape::Upper)
            }
            Cue::Strong => (name >= 1 && margin >= -3) || e.is_none(),
            Cue::Weak => (name >= 2 && margin >= 1) || (after_cue && name >= 1 && margin >= 0),
            Cue::Place => first >= 4 && margin >= 4 && first > last,
            Cue::None => {
                (first >= 3 && margin >= 3)
                    || (after_cue && first >= 3 && margin >= 1)
                    || (after == After::Person && name >= 2 && margin >= 2)
                    || (!sentence_start && last >= 2 && wordy == 0)
            }
        }
    }

    /// Two or more name words (initials aside).
    fn multi(&self, core: &[&Tok], cue: Cue) -> bool {
        let mut strong = 0;
        let mut unknown = 0;
        let first = core[0].entry.unwrap_or_default();
        // A clear given name first lets a surname that is also a word follow ("Kevin Small").
        let given_first = first.first >= 3 && first.first >= first.wordiness() + 2;
        for (i, t) in core.iter().enumerate() {
            let w = self.word(t);
            // "April Horton" is a person; "Monday March" is not.
            let calendar_ok = i == 0 && first.first >= 3;
            if (t.is(lexicon::CALENDAR_F) && !calendar_ok)
                || t.is(lexicon::TITLE)
                || (t.is(lexicon::NOT_PEOPLE_F) && lexicon::on_list(lexicon::NEVER_NAME_WORDS, w))
            {
                return false;
            }
            match t.entry {
                None => {
                    if t.shape == Shape::Upper && w.len() <= 3 {
                        return false;
                    }
                    if t.shape == Shape::Lower && !self.lower_text {
                        return false;
                    }
                    unknown += 1;
                }
                Some(e) => {
                    let margin = e.name() as i32 - e.wordiness() as i32;
                    // A known surname after a clear given name, even if it is also a word
                    // ("Kevin Small"); in lower-case text any rare name word ("natasha
                    // higuchi").
                    let word_surname = i == core.len() - 1
                        && given_first
                        && (e.last >= 2
                            || (self.lower_text && e.name() >= 1 && e.wordiness() <= 1));
                    if e.name() == 0 || (margin <= -3 && !word_surname) {
                        return false;
                    }
                    if t.shape == Shape::Lower
                        && (e.name() < 2 || margin < 1)
                        && cue < Cue::Title
                        && !word_surname
                    {
                        return false;
                    }
                    if e.name() >= 2 && margin >= 2 {
                        strong += 1;
                    }
                }
            }
        }
        let last = core[core.len() - 1].entry.unwrap_or_default();
        let caseless = core.iter().all(|t| t.shape == Shape::Caseless);
        if caseless {
            return unknown == 0 && first.first >= 1;
        }
        if self.lower_text
            && cue < Cue::Weak
            && core.iter().all(|t| t.shape == Shape::Lower)
            && !(first.first >= 6
                || (first.first >= 4 && last.last >= 2)
                || (self.evidence.any && core.iter().any(|t| self.evidence.has(self.word(t)))))
        {
            // Lower-case text in other languages is full of words on some locale's list of
            // names ("para com", "liat nih"): a lower-case pair needs a clear given name.
            return false;
        }
        if self.lower_text
            && core
                .iter()
                .any(|t| t.entry.is_none() && t.end - t.start < 3)
        {
            return false;
        }
        if self.lower_text && unknown > 0 && cue < Cue::Weak && !self.is_english() {
            // Lower-case text that is mostly not English (lorem ipsum, other languages): a
            // word the gazetteer lacks there is no evidence of a surname ("dolores similique").
            return false;
        }
        let upper = core.iter().all(|t| t.shape == Shape::Upper);
        if upper && !(self.field || cue >= Cue::Strong) {
            // ALL-CAPS headings and shouting: a given name and a surname both known.
            return unknown == 0 && first.first >= 3 && last.last >= 3 && strong >= 1;
        }
        strong >= 1
            || (first.first >= 4 && last.last >= 3)
            || (first.first >= 3 && unknown == core.len() - 1)
            || (cue >= Cue::Weak && unknown < core.len())
            || cue >= Cue::Strong
    }

    fn emit(&mut self, span: Span) {
        let found = &self.text[span.start..span.end];
        // Chat noise ("Timeeeee", "I'ma") in short texts, where chat is (see `casual.rs`).
        if (!self.finder.allow.is_empty() && self.finder.is_allowed(found))
            || (self.text.len() <= casual::MAX_LEN && casual::has_chat_noise(found))
        {
            return;
        }
        self.out.push(span);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<&str> {
        let f = NameFinder::new(&[], &[]);
        let mut out = Vec::new();
        f.find(text, &FindContext::default(), &mut out);
        out.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn full_names_and_titles() {
        assert_eq!(
            names("I spoke with Maria Ortiz today."),
            vec!["Maria Ortiz"]
        );
        assert_eq!(names("Please ask Dr. Ana Souza."), vec!["Ana Souza"]);
        assert_eq!(names("Yesterday Ronald Haas called."), vec!["Ronald Haas"]);
        assert_eq!(names("Signed: J. R. Tolkien"), vec!["J. R. Tolkien"]);
    }

    #[test]
    fn distinctive_names_for_recall() {
        let f = NameFinder::new(&["Claude".into()], &[]);
        for yes in ["Maria Ortiz", "will grant", "Xochitl", "Ortiz", "王伟"] {
            assert!(f.is_distinctive(yes), "{yes}");
        }
        for no in [
            "Will", "may", "Jordan", "Paris", "June", "Al", "", "  ", "claude",
        ] {
            assert!(!f.is_distinctive(no), "{no}");
        }
    }

    #[test]
    fn common_words_alone_are_not_names() {
        assert!(names("Will you come in May?").is_empty());
        assert!(names("Grant access to the repo.").is_empty());
    }

    #[test]
    fn caseless_runs_of_known_names_do_not_recurse_forever() {
        // Three or more known names in a caseless script overflowed the stack before.
        let found = names("محمد محمد محمد وصل");
        assert!(found.len() <= 1, "{found:?}");
        let found = names("محمد محمد محمد");
        assert!(found.len() <= 1, "{found:?}");
    }

    #[test]
    fn particle_filter_keeps_every_particle() {
        let lex = Lexicon::get();
        // Every lower-case ASCII word of up to three letters, and every particle in both
        // cases: the filter passes each word the lexicon marks as a particle.
        let letters = b"abcdefghijklmnopqrstuvwxyz";
        let mut words: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..3 {
            let longer: Vec<Vec<u8>> = words
                .iter()
                .filter(|w| w.len() < 3)
                .flat_map(|w| letters.iter().map(move |&c| [w.as_slice(), &[c]].concat()))
                .collect();
            words.extend(longer);
        }
        for p in lexicon::PARTICLES {
            words.push(p.as_bytes().to_vec());
            words.push(p.to_uppercase().into_bytes());
        }
        for w in words.iter().filter(|w| !w.is_empty()) {
            let s = std::str::from_utf8(w).unwrap();
            if lex.is(s, lexicon::PARTICLE) {
                assert!(may_be_particle(w), "{s}");
            }
        }
        assert!(!may_be_particle(b"was") && !may_be_particle(b"it"));
    }

    #[test]
    fn org_phrase_filter_keeps_every_phrase() {
        for p in ORG_PHRASES {
            assert!(ORG_PHRASE_FIRSTS.has(p[0].as_bytes()), "{p:?}");
            assert!(
                ORG_PHRASE_FIRSTS.has(p[0].to_uppercase().as_bytes()),
                "{p:?}"
            );
        }
        assert_eq!(names("Wells Fargo approved it."), Vec::<&str>::new());
        assert_eq!(names("Maria Ortiz approved it."), vec!["Maria Ortiz"]);
    }

    #[test]
    fn idle_stops_keep_every_greeting_and_evidence_word() {
        /// Whether `stops` lets `word` through to the string comparisons.
        fn passes(stops: &IdleStops, word: &[u8]) -> bool {
            let first = usize::from(word[0] & 31);
            stops.lens[first] & (1 << word.len()) != 0
                && stops.lasts[first] & (1 << (word[word.len() - 1] & 31)) != 0
        }
        for g in LOWER_GREETINGS {
            assert!(is_lower_greeting(g.as_bytes()), "{g}");
            assert!(passes(&GREETING_STOPS, g.as_bytes()), "{g}");
            assert!(GREETING_STOPS.passes(g.as_bytes()), "{g}");
            // Capitalised greetings too (`after_capitalised_greeting` tests "Hi", "THANKS").
            let title = format!("{}{}", g[..1].to_ascii_uppercase(), &g[1..]);
            for w in [title, g.to_ascii_uppercase()] {
                assert!(passes(&GREETING_STOPS, w.as_bytes()), "{w}");
            }
        }
        // "the" has the first letter and length of "thx" but not its last letter.
        assert_eq!(
            GREETING_STOPS.lens[usize::from(b't' & 31)],
            (1 << 3) | (1 << 6)
        );
        assert!(!passes(&GREETING_STOPS, b"the"));
        assert!(!passes(&GREETING_STOPS, b"has"));

        let f = NameFinder::new(&[], &[]);
        assert!(Evidence::default().idle.is_none());
        let ev = Evidence::collect("write to maria.ortiz@example.com or JAMES@x.org", f.gaz);
        assert_eq!(ev.words, ["maria", "ortiz", "james"]);
        for w in ev.words.iter().map(String::as_str).chain(LOWER_GREETINGS) {
            assert!(passes(ev.idle_stops(), w.as_bytes()), "{w}");
            assert!(ev.idle_stops().passes(w.as_bytes()), "{w}");
            assert!(
                ev.idle_stops().passes(w.to_ascii_uppercase().as_bytes()),
                "{w}"
            );
        }
        // "maria" and "ortiz" stop the idle scan, lower case or not; "mario" does not.
        let b = b"and then maria said";
        assert_eq!(skip_idle(b, 0, &ev), 9);
        assert_eq!(skip_idle(b"mario and ortiz", 0, &ev), 10);
        assert_eq!(skip_idle(b"the data says hi", 0, &ev), 14);
        assert_eq!(skip_idle(b"ask mariA", 0, &ev), 4);
    }

    /// What [`skip_idle`] does, byte by byte: the start of the first word from `i` that is no
    /// plain lower-case ASCII word, or is a greeting or evidence word, or goes on with `'`,
    /// `-` or a non-ASCII byte; the position of a capital or non-ASCII byte before any word.
    fn skip_idle_bytewise(b: &[u8], mut i: usize, ev: &Evidence) -> usize {
        while i < b.len() {
            let c = b[i];
            if c >= 0x80 || c.is_ascii_uppercase() {
                return i;
            }
            if !c.is_ascii_lowercase() {
                i += 1;
                continue;
            }
            let mut end = i;
            while end < b.len() && b[end].is_ascii_alphabetic() {
                end += 1;
            }
            let word = &b[i..end];
            if b.get(end)
                .is_some_and(|&c| c >= 0x80 || c == b'\'' || c == b'-')
                || is_lower_greeting(word)
                || ev.has_bytes(word)
            {
                return i;
            }
            i = end;
        }
        b.len()
    }

    #[test]
    fn skip_idle_matches_a_byte_scan() {
        let f = NameFinder::new(&[], &[]);
        let ev = Evidence::collect("write to maria.ortiz@example.com", f.gaz);
        let none = Evidence::default();
        let pieces: [&[u8]; 24] = [
            b" ",
            b" ",
            b"  ",
            b"the",
            b"a",
            b"extraordinarily",
            b"seven",
            b"letters",
            b"hi",
            b"thx",
            b"thanks",
            b"maria",
            b"ortiz",
            b"Maria",
            b"iPhone",
            b",",
            b". ",
            b"'",
            b"-",
            b"\xc3\xa9",
            b"42",
            b"\n",
            b"cc",
            b"abcdefghijklmnopqrstuvwxyz",
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut compared = 0;
        for _ in 0..20_000 {
            let mut text = Vec::new();
            for _ in 0..1 + next() % 24 {
                text.extend_from_slice(pieces[(next() >> 40) as usize % pieces.len()]);
            }
            compared += text.len() + 1;
            for e in [&ev, &none] {
                for i in 0..=text.len() {
                    assert_eq!(
                        skip_idle(&text, i, e),
                        skip_idle_bytewise(&text, i, e),
                        "{:?} from {i}",
                        String::from_utf8_lossy(&text)
                    );
                }
            }
        }
        assert!(compared > 500_000, "{compared}");
    }

    #[test]
    fn html_tags_and_markdown_wrappers() {
        let tag = |t: &str| html_tag_at(t.as_bytes(), t.find('<').unwrap());
        for t in [
            "x</td>",
            "x<br>",
            "x<BR/>",
            "x<p class=\"a\">",
            "x<span>",
            "x<h2>",
        ] {
            assert!(tag(t), "{t}");
        }
        for t in ["List<Person>", "Vec<Grant>::new", "a<b", "x<", "x<table"] {
            assert!(!tag(t), "{t}");
        }
        let wrapped = |t: &str, at: usize| wrapped_phrase(t.as_bytes(), at);
        assert!(wrapped("[Maria Garcia](mailto:m@x.com)", 0));
        assert!(wrapped("see `Jean Dupont` here", 4));
        assert!(wrapped("by _Omar Haddad_.", 3));
        assert!(!wrapped("arr[Index]", 3), "no space inside");
        assert!(!wrapped("call `Grant` now", 5));
        assert!(!wrapped("my_Grant id_", 2), "joined to a word");
        assert!(!wrapped("[Maria Garcia", 0), "never closed");
        assert!(!wrapped("`let x = Grant`", 0), "code inside");
    }

    #[test]
    fn prev_word_position_is_where_rfind_found_it() {
        // `judge` once found the words before a run's previous word by `rfind`ing that word
        // in the text before the run; `prev_word_at` returns its position instead. The two
        // agree wherever a word is found (the trimmed characters after it hold no letter and
        // no `'`, so no later occurrence can end past it).
        let f = NameFinder::new(&[], &[]);
        let ev = Evidence::default();
        let pieces = [
            "to", "in", "and", "me", "is", "went", "Good", "morning", "don't", "l'", "Müller", " ",
            " ", "  ", "\u{a0}", ",", ":", "-", "(", "\"", "“", ".", "!", "\n", "42", "x",
        ];
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut found = 0;
        for _ in 0..5_000 {
            let mut text = String::new();
            for _ in 0..1 + next() % 10 {
                text.push_str(pieces[(next() >> 40) as usize % pieces.len()]);
            }
            let mut out = Vec::new();
            let scan = Scan::new(&f, &text, &ev, false, false, &mut out, None);
            for at in (0..=text.len()).filter(|&at| text.is_char_boundary(at)) {
                let (word, boundary) = scan.prev_word_at(at);
                assert_eq!(scan.prev_word(at), (word.map(|(_, w)| w), boundary));
                if let Some((pos, w)) = word {
                    assert_eq!(text[..at].rfind(w), Some(pos), "{text:?} at {at}");
                    found += 1;
                }
            }
        }
        assert!(found > 10_000, "{found}");
    }

    #[test]
    fn long_lists_judge_each_item_as_short_ones_do() {
        // `judge_run` keeps up to sixteen parts on the stack and more on the heap: a list of
        // twenty names is judged item by item like one of five.
        let given = [
            "Maria",
            "Jennifer",
            "Michael",
            "Patricia",
            "Robert",
            "Linda",
            "William",
            "Barbara",
            "Richard",
            "Susan",
            "Joseph",
            "Jessica",
            "Thomas",
            "Sarah",
            "Charles",
            "Karen",
            "Christopher",
            "Nancy",
            "Daniel",
            "Lisa",
        ];
        for n in [5, 16, 17, 20] {
            let text = format!(
                "Thanks to {}, and {} for coming.",
                given[..n - 1].join(", "),
                given[n - 1]
            );
            assert_eq!(names(&text), given[..n].to_vec(), "{n}");
        }
    }

    #[test]
    fn motion_verbs_pass_their_first_letter_test() {
        for w in lexicon::MOTION_VERBS {
            for w in [w.to_string(), w.to_uppercase()] {
                assert!(
                    lexicon::MOTION_FIRSTS & (1 << (w.as_bytes()[0] & 31)) != 0,
                    "{w}"
                );
            }
        }
    }

    #[test]
    fn suffix_words_pass_the_first_letter_test() {
        for w in [
            "Jr", "Sr", "PhD", "MD", "DVM", "DDS", "Esq", "II", "III", "IV",
        ] {
            assert!(is_suffix_word(w), "{w}");
        }
        for w in ["The", "She", "Jrx", "jr", "Mr", "J", ""] {
            assert!(!is_suffix_word(w), "{w}");
        }
    }

    #[test]
    fn speaker_labels_and_and_i() {
        assert!(speaker_label(": \"Who are you?\""));
        // A spaced colon is a headline's source in tweets ("Engadget : Sky 3D ...").
        assert!(!speaker_label(" : hello"));
        assert!(!speaker_label(": hello"));
        assert!(speaker_label(": “Who are you?”"));
        assert!(!speaker_label("://example.com"));
        assert!(!speaker_label(" said"));
        assert!(Scan::and_i(" and I went"));
        assert!(Scan::and_i(" &amp; I work"));
        assert!(!Scan::and_i(" and Ivan went"));
    }

    #[test]
    fn role_titles_and_place_prefixes() {
        assert_eq!(names("We saw Pope Benedict today."), vec!["Pope Benedict"]);
        assert_eq!(names("Senator Maria Ortiz spoke."), vec!["Maria Ortiz"]);
        assert!(names("Back to Lake Charles tonight.").is_empty());
        assert!(names("Kenya was super fun to visit!").is_empty());
    }

    /// A five-byte word of `shape` with gazetteer `entry` and lexicon `flags`.
    fn word_tok(shape: Shape, entry: Entry, flags: u16) -> Tok {
        Tok {
            start: 0,
            end: 5,
            shape,
            particle: false,
            comma_before: false,
            possessive: false,
            entry: Some(entry),
            flags,
        }
    }

    #[test]
    fn single_needs_title_mirrors_single() {
        // For every entry the shortcut in `flush` skips, `single` accepts with no cue below
        // a title, whatever the shape, the word after, the sentence start and the text's mode.
        let f = NameFinder::new(&[], &[]);
        let evidence = Evidence::default();
        let mut out = Vec::new();
        let cues = [Cue::None, Cue::Place, Cue::Weak, Cue::Strong];
        let afters = [After::None, After::Aux, After::Person];
        let shapes = [Shape::Title, Shape::Upper, Shape::Lower, Shape::Caseless];
        let mut skipped = 0;
        for (field, lower_text) in [(false, false), (true, false), (false, true), (true, true)] {
            let scan = Scan::new(&f, "xyzzy", &evidence, field, lower_text, &mut out, None);
            for first in 0..=9 {
                for last in 0..=9 {
                    for common in 0..=9 {
                        for place in 0..=3 {
                            for flags in [0, lexicon::CALENDAR_F] {
                                for shape in shapes {
                                    let entry = Entry {
                                        first,
                                        last,
                                        common,
                                        place,
                                    };
                                    let t = word_tok(shape, entry, flags);
                                    if !single_needs_title(&t) {
                                        continue;
                                    }
                                    skipped += 1;
                                    for cue in cues {
                                        for after in afters {
                                            for ss in [false, true] {
                                                assert!(
                                                    !scan.single(&t, cue, after, ss, false),
                                                    "{entry:?} {flags} {shape:?} {cue:?} {after:?}"
                                                );
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(skipped > 1000, "{skipped}");
        // Words known as no name: no cue makes `single` or `multi` take them (the shortcut
        // for runs of ordinary words in `flush`).
        for common in 0..=9 {
            for place in 0..=3 {
                for shape in [Shape::Title, Shape::Upper, Shape::Lower] {
                    let entry = Entry {
                        first: 0,
                        last: 0,
                        common,
                        place,
                    };
                    let t = word_tok(shape, entry, 0);
                    let name = Tok {
                        entry: Some(Entry {
                            first: 9,
                            last: 9,
                            common: 0,
                            place: 0,
                        }),
                        ..t
                    };
                    for (field, lower_text) in
                        [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let mut out = Vec::new();
                        let scan =
                            Scan::new(&f, "xyzzy", &evidence, field, lower_text, &mut out, None);
                        for cue in [Cue::Title, Cue::Strong, Cue::Weak, Cue::Place, Cue::None] {
                            assert!(!scan.multi(&[&t, &name], cue), "{entry:?} {shape:?}");
                            assert!(!scan.multi(&[&name, &t], cue), "{entry:?} {shape:?}");
                            for after in afters {
                                for ss in [false, true] {
                                    for initials in [false, true] {
                                        assert!(!scan.single(&t, cue, after, ss, initials));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        // A title still makes such a word a name: the shortcut leaves those runs to `judge`.
        assert!(names("The Friday meeting moved. You said so.").is_empty());
    }

    #[test]
    fn shapes() {
        assert_eq!(shape_of("McDonald"), Some(Shape::Title));
        assert_eq!(shape_of("O'Neil"), Some(Shape::Title));
        assert_eq!(shape_of("getUserName"), Some(Shape::Lower));
        assert_eq!(shape_of("UserName"), None);
        assert_eq!(shape_of("SMITH"), Some(Shape::Upper));
        assert_eq!(shape_of("J"), Some(Shape::Initial));
    }
}
