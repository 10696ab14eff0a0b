//! Tests of session recall: the scan, the tables and the forms against the simpler code and
//! the Aho-Corasick automaton they replaced.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, Anchored, Input, MatchKind, StartKind};

use super::*;

fn found<'t>(recall: &Recall, text: &'t str) -> Vec<&'t str> {
    let mut out = Vec::new();
    recall.find(text, &mut out);
    out.iter().map(|s| &text[s.start..s.end]).collect()
}

#[test]
fn recalls_whole_words_in_any_ascii_case() {
    let book = RecallBook::default();
    let s = SessionId::new("a");
    assert_eq!(book.learn(&s, ["Maria  Ortiz", "Xochitl"]), 2);
    let r = book.snapshot(&s).expect("names learned");
    assert_eq!(
        found(&r, "ping MARIA ORTIZ and maria ortiz; xochitl too"),
        ["MARIA ORTIZ", "maria ortiz", "xochitl"]
    );
    // Not inside longer words.
    assert!(found(&r, "xochitls mariaortiz Maria Ortizes").is_empty());
}

#[test]
fn recalls_names_with_other_cased_letters_in_upper_and_title_case() {
    let book = RecallBook::default();
    let s = SessionId::new("a");
    assert_eq!(book.learn(&s, ["ÁNGEL WĄS-ĆWIK", "Ørjan"]), 2);
    assert_eq!(book.learn(&s, ["ángel wąs-ćwik"]), 0, "same name, any case");
    let r = book.snapshot(&s).expect("names learned");
    assert_eq!(
        found(
            &r,
            "Ángel Wąs-Ćwik, ángel wąs-ćwik and ÁNGEL WĄS-ĆWIK; ØRJAN, ørjan"
        ),
        [
            "Ángel Wąs-Ćwik",
            "ángel wąs-ćwik",
            "ÁNGEL WĄS-ĆWIK",
            "ØRJAN",
            "ørjan"
        ]
    );
}

#[test]
fn sessions_are_isolated_and_forgotten() {
    let book = RecallBook::default();
    let (a, b) = (SessionId::new("a"), SessionId::new("b"));
    book.learn(&a, ["Maria Ortiz"]);
    assert!(book.snapshot(&b).is_none());
    assert_eq!(book.learn(&a, ["maria ortiz"]), 0, "same name, any case");
    book.forget(&a);
    assert!(book.snapshot(&a).is_none());
}

#[test]
fn idle_sessions_expire() {
    let book = RecallBook::new(Duration::ZERO);
    let s = SessionId::new("a");
    book.learn(&s, ["Maria Ortiz"]);
    std::thread::sleep(Duration::from_millis(5));
    assert_eq!(book.sweep_expired(), 1);
    assert_eq!(book.session_count(), 0);
}

#[test]
fn cjk_names_need_no_spaces_around_them() {
    let book = RecallBook::default();
    let s = SessionId::new("a");
    book.learn(&s, ["王伟"]);
    let r = book.snapshot(&s).unwrap();
    assert_eq!(found(&r, "请联系王伟。"), ["王伟"]);
}

#[test]
fn alnum_lanes_is_exact_for_every_byte_in_every_lane() {
    for b in 0..=255u8 {
        for lane in 0..8 {
            // The byte among neighbours of every kind (a letter, a non-ASCII byte, a
            // digit), so a carry between lanes would show.
            for fill in [b'z', 0xff, b'0', 0x7f, 0] {
                let mut bytes = [fill; 8];
                bytes[lane] = b;
                let lanes = alnum_lanes(u64::from_le_bytes(bytes));
                for (k, &c) in bytes.iter().enumerate() {
                    let set = lanes >> (8 * k + 7) & 1 == 1;
                    assert_eq!(set, c.is_ascii_alphanumeric(), "byte {c:#x} in lane {k}");
                }
                assert_eq!(lanes & !HIGH, 0);
            }
        }
    }
}

#[test]
fn first_word_key_keeps_the_bytes_before_the_first_zero() {
    let mut rng = crate::testdata::Rng::new(3);
    for _ in 0..200_000 {
        // Bytes of a word (non-zero, below 0x80) or zero, with zeros common (each of the
        // eight lanes is the first zero often enough).
        let bytes: [u8; 8] = std::array::from_fn(|_| match rng.below(6) {
            0 => 0,
            _ => 1 + rng.below(127) as u8,
        });
        let len = bytes.iter().position(|&c| c == 0).unwrap_or(8);
        let mut kept = [0u8; 8];
        kept[..len].copy_from_slice(&bytes[..len]);
        assert_eq!(
            first_word_key(u64::from_le_bytes(bytes)),
            u64::from_le_bytes(kept),
            "{bytes:?}"
        );
    }
    // Every word length up to eight and beyond, from a real load.
    for len in 0..=12 {
        let text = format!("{} x", &"abcdefghijkl"[..len]);
        let v = load(text.as_bytes(), 0);
        // Folded to upper case (bit 5 cleared), from a text in lower case.
        let want = &"ABCDEFGH"[..len.min(8)];
        let mut kept = [0u8; 8];
        kept[..want.len()].copy_from_slice(want.as_bytes());
        assert_eq!(
            prefix_key(v, alnum_lanes(v)),
            u64::from_le_bytes(kept),
            "{len}"
        );
    }
}

#[test]
fn the_scan_key_is_the_table_key_of_the_word_in_lower_case() {
    let mut rng = crate::testdata::Rng::new(37);
    let alphabet = b"aAzZqQ09 -'@[`{\xc3\xa9\x00";
    for _ in 0..20_000 {
        let text: Vec<u8> = (0..rng.below(48))
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        let block = lanes::padded::<48>(&text, 0);
        let words = (0..48).fold(0u64, |m, k| {
            m | u64::from(block[k].is_ascii_alphanumeric()) << k
        });
        // A name is learned in lower case: its key is the one the table holds.
        let lower = text.to_ascii_lowercase();
        for start in 0..32 {
            if words & (1 << start) == 0 || (start > 0 && words & (1 << (start - 1)) != 0) {
                continue;
            }
            let v = load(&lower, start);
            assert_eq!(
                key_at(&block, start, words >> start),
                prefix_key(v, alnum_lanes(v)),
                "{text:?} at {start}"
            );
        }
    }
}

#[test]
fn the_word_filter_never_drops_a_recalled_name() {
    let book = RecallBook::default();
    let s = SessionId::new("a");
    let names: Vec<String> = (0..3000)
        .map(|i| format!("given{i} family{}", i * 7))
        .chain([
            "josé ruiz".into(),
            "o'neil".into(),
            "jean-luc picard".into(),
        ])
        .collect();
    book.learn(&s, names.iter().map(String::as_str));
    let r = book.snapshot(&s).unwrap();
    let text = names.join(", ").to_uppercase();
    assert_eq!(found(&r, &text).len(), names.len());
    assert_eq!(
        found(&r, "Josés, JOSÉ RUIZ and O'Neil met Jean-Luc Picard"),
        ["JOSÉ RUIZ", "O'Neil", "Jean-Luc Picard"]
    );
}

/// The scan without the word filter or the eight-byte loads: every ASCII word start and
/// every non-ASCII character start outside a found name is tried.
/// Up to `most` of `pieces` in random order, mostly with a separator after each.
fn random_text(rng: &mut crate::testdata::Rng, pieces: &[&str], most: usize) -> String {
    let mut text = String::new();
    for _ in 0..rng.below(most) {
        text.push_str(rng.pick::<&str>(pieces));
        if rng.below(3) > 0 {
            text.push_str(rng.pick::<&str>(&[" ", ", ", "", "\t", "…"]));
        }
    }
    text
}

fn found_by_bytes<'t>(recall: &Recall, text: &'t str) -> Vec<&'t str> {
    found_at_word_starts(text, |i| recall.match_at(text, i))
}

/// The names `match_at` finds, tried at every ASCII word start and non-ASCII character
/// start outside a found name (`match_at(i)` is the end of a name starting at `i`).
fn found_at_word_starts(text: &str, match_at: impl Fn(usize) -> Option<usize>) -> Vec<&str> {
    let (b, mut out, mut i) = (text.as_bytes(), Vec::new(), 0);
    while i < b.len() {
        let word = b[i].is_ascii_alphanumeric();
        if (word || (b[i] >= 0xC0 && i + 1 < b.len()))
            && let Some(end) = match_at(i)
        {
            out.push(&text[i..end]);
            i = end;
        } else if word {
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

#[test]
fn the_word_scan_tries_every_word_and_character_start() {
    let book = RecallBook::default();
    let s = SessionId::new("a");
    let names = [
        "maria ortiz",
        "xochitl",
        "abcdefgh",
        "abcdefghijklmnop q",
        "ab1234567 z",
        "josé ruiz",
        "o'neil",
        "ørjan",
        "王伟",
        "q",
        "zz top",
    ];
    book.learn(&s, names);
    let r = book.snapshot(&s).unwrap();
    let pieces = [
        "Maria Ortiz",
        "MARIA  ORTIZ",
        "xochitl",
        "Xochitls",
        "ABCDEFGH",
        "abcdefghi",
        "abcdefghijklmnop Q",
        "AB1234567 Z",
        "ab1234567z",
        "JOSÉ RUIZ",
        "josés",
        "O'Neil",
        "ØRJAN",
        "Ørjan",
        "王伟",
        "请联系王伟。",
        "é",
        "ZZ Top",
        "zz",
        "@",
        "[",
        "`",
        "{",
        "\u{10}",
        "\n",
        " ",
        "-",
        "9",
        "Zz TOP",
        "émaria ortiz",
        "maria ortizé",
    ];
    let mut rng = crate::testdata::Rng::new(7);
    for _ in 0..3000 {
        let text = random_text(&mut rng, &pieces, 12);
        assert_eq!(found(&r, &text), found_by_bytes(&r, &text), "{text:?}");
    }
    let all = pieces.join(" ");
    assert_eq!(found(&r, &all).len(), 13, "{:?}", found(&r, &all));
}

/// The scan of the automaton recall used before its tables were updated in place: an
/// anchored leftmost-longest Aho-Corasick search (ASCII case folded) over the names and
/// the upper-case and title-case forms of names with other cased letters, tried at every
/// ASCII word start and non-ASCII character start outside a found name.
fn found_by_automaton<'t>(matcher: &AhoCorasick, text: &'t str) -> Vec<&'t str> {
    found_at_word_starts(text, |i| {
        let input = Input::new(text).span(i..text.len()).anchored(Anchored::Yes);
        matcher
            .find(input)
            .and_then(|m| stands_by_chars(text, i, m.end()))
    })
}

/// The automaton of [`found_by_automaton`] for `names`.
fn automaton(names: &[&str]) -> AhoCorasick {
    let mut patterns: Vec<String> = Vec::new();
    for name in names {
        let mut form = String::new();
        push_recall_form(name, &mut form);
        if !form.is_ascii() {
            patterns.extend([form.to_uppercase(), title_case(&form)]);
        }
        patterns.push(form);
    }
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        .start_kind(StartKind::Anchored)
        .build(&patterns)
        .unwrap()
}

#[test]
fn the_tables_find_what_the_automaton_found() {
    let book = RecallBook::default();
    let s = SessionId::new("a");
    // Names that begin others, share a first word, end inside another's word, and have
    // other cased letters, learned over several messages (the tables grow in place).
    let names = [
        "maria",
        "maria ortiz",
        "maria ortiz jr",
        "maria ortiza",
        "maria-luisa",
        "xochitl",
        "xochitls smith",
        "josé",
        "josé ruiz",
        "jos",
        "ørjan",
        "ørjan lie",
        "ßtraße",
        "王伟",
        "王伟明",
        "abcdefgh",
        "abcdefgh ij",
        "o'neil",
    ];
    for chunk in names.chunks(4) {
        book.learn(&s, chunk.iter().copied());
    }
    let r = book.snapshot(&s).unwrap();
    let matcher = automaton(&names);
    let pieces = [
        "Maria",
        "maria",
        "MARIA ORTIZ",
        "Maria Ortiz Jr",
        "maria ortiz jrx",
        "Maria Ortiza",
        "maria ortizé",
        "Maria-Luisa",
        "maria-",
        "Xochitl",
        "XOCHITLS SMITH",
        "xochitls",
        "José",
        "JOSÉ RUIZ",
        "Jos",
        "josé ruizx",
        "ØRJAN",
        "Ørjan Lie",
        "ørjan lie",
        "SSTRASSE",
        "SStraße",
        "王伟",
        "王伟明",
        "王伟明白",
        "ABCDEFGH",
        "abcdefgh IJ",
        "abcdefghij",
        "O'Neil",
        "o'neils",
        "é",
        " ",
        ", ",
        "-",
        "'",
        "…",
        "\n",
        "9",
    ];
    let mut rng = crate::testdata::Rng::new(11);
    for _ in 0..3000 {
        let text = random_text(&mut rng, &pieces, 10);
        assert_eq!(
            found(&r, &text),
            found_by_automaton(&matcher, &text),
            "{text:?}"
        );
        // Going on from the end of any occurrence finds the ones after it.
        let mut all = Vec::new();
        r.find(&text, &mut all);
        for (k, s) in all.iter().enumerate() {
            let mut rest = Vec::new();
            r.find_from(&text, s.end, &mut rest);
            assert_eq!(rest, all[k + 1..], "{text:?} from {}", s.end);
        }
    }
}

#[test]
fn the_cap_bounds_a_session() {
    let book = RecallBook::default();
    let s = SessionId::new("a");
    let names: Vec<String> = (0..MAX_RECALLED_NAMES + 10)
        .map(|i| format!("name{i} surname"))
        .collect();
    assert_eq!(
        book.learn(&s, names.iter().map(String::as_str)),
        MAX_RECALLED_NAMES
    );
}

/// A fresh session that adopts a message's count table holds what learning the names
/// would have built, up to the cap, whatever the names' case, spacing and script; a
/// session that already recalls names learns them as before.
#[test]
fn adopting_the_count_table_is_learning_its_names() {
    let mut names: Vec<String> = vec![
        "Maria Ortiz".into(),
        "maria  ORTIZ".into(),
        "Józef Wąs".into(),
        "张伟".into(),
        "x".into(),
        "Ørsted".into(),
    ];
    names.extend((0..MAX_RECALLED_NAMES + 10).map(|i| format!("name{i} Surname")));
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let learned = RecallBook::default();
    let s = SessionId::new("a");
    learned.learn(&s, names.iter().copied());
    let adopted = RecallBook::default();
    let table = Recall::of_names_upto(names.iter().copied(), MAX_RECALLED_NAMES);
    let (got, took) = adopted.adopt(&s, table, names.iter().copied());
    let got = got.unwrap();
    assert!(took);
    let want = learned.snapshot(&s).unwrap();
    assert_eq!(format!("{got:?}"), format!("{want:?}"));
    assert_eq!(got.names(), MAX_RECALLED_NAMES);
    assert!(Arc::ptr_eq(&got, &adopted.snapshot(&s).unwrap()));
    // Not fresh: learned into the session's own table, the count table left aside.
    let other = Recall::of_names_upto(["Ada Lovelace"], usize::MAX);
    let busy = RecallBook::default();
    busy.learn(&s, ["Grace Hopper"]);
    let (got, took) = busy.adopt(&s, other, ["Ada Lovelace"]);
    let got = got.unwrap();
    assert!(!took);
    assert_eq!(got.names(), 2);
    assert!(got.contains("ada lovelace") && got.contains("grace hopper"));
}

/// [`Recall::insert`] as it was before one walk found both a known name and the new
/// pattern's place: a walk over the whole chain for the name, then, in `add`, the first
/// word's hash and length again and a second walk for the place. (Keyed as the tables are
/// now, [`chain_key`].)
fn insert_by_two_walks(r: &mut Recall, name: &str) -> bool {
    let Some((word, h, _)) = chain_key(name.as_bytes()) else {
        return false;
    };
    let table = if word { &r.words } else { &r.pairs };
    let mut at = table.get(h).unwrap_or(NONE);
    while at != NONE {
        if r.patterns[at as usize].name && r.pattern(at) == name.as_bytes() {
            return false;
        }
        at = r.patterns[at as usize].next;
    }
    r.names += 1;
    add_by_walk(r, name, true);
    if !name.is_ascii() {
        let upper = name.to_uppercase();
        let title = title_case(name);
        if upper != name {
            add_by_walk(r, &upper, false);
        }
        if title != name && title != upper {
            add_by_walk(r, &title, false);
        }
    }
    true
}

/// The `add` of [`insert_by_two_walks`].
fn add_by_walk(r: &mut Recall, form: &str, name: bool) {
    let b = form.as_bytes();
    let (word, h, _) = chain_key(b).unwrap();
    let (start, len, index) = (
        r.bytes.len() as u32,
        b.len() as u32,
        r.patterns.len() as u32,
    );
    let head = if word { &r.words } else { &r.pairs }
        .get(h)
        .unwrap_or(NONE);
    let skip = if word {
        b.iter()
            .position(|c| !c.is_ascii_alphanumeric())
            .unwrap_or(b.len())
    } else {
        0
    };
    let (tail, tail_mask) = tail_at(b, skip);
    let mut pattern = Pattern {
        start,
        len,
        next: head,
        name,
        tail,
        tail_mask,
    };
    if head != NONE && r.patterns[head as usize].len >= len {
        let mut at = head;
        loop {
            let next = r.patterns[at as usize].next;
            if next == NONE || r.patterns[next as usize].len < len {
                break;
            }
            at = next;
        }
        pattern.next = r.patterns[at as usize].next;
        r.patterns[at as usize].next = index;
    } else if word {
        r.words.set(h, index);
    } else {
        r.pairs.set(h, index);
    }
    r.patterns.push(pattern);
    r.bytes.push_str(form);
    if word {
        let v = load(b, 0);
        mark_prefix(&mut r.prefixes, prefix_key(v, alnum_lanes(v)));
    } else {
        let k = pair_key(b[0], b[1]);
        let starts = r.starts.get_or_insert_with(|| Box::new([0u64; PAIR_WORDS]));
        starts[k >> 6] |= 1 << (k & 63);
    }
}

/// Random names: words from a small set (so first words and whole names repeat, chains
/// grow long and names begin others), in any case and spacing, some with other cased
/// letters or starting with a non-ASCII character.
fn random_names(rng: &mut crate::testdata::Rng, n: usize) -> Vec<String> {
    let words = [
        "maria",
        "Maria",
        "ORTIZ",
        "ortiza",
        "jo",
        "józef",
        "WĄS",
        "ørjan",
        "王伟",
        "ßtraße",
        "o'neil",
        "jean-luc",
        "x",
        "ab1234567",
        "abcdefghij",
        "q.",
        "al",
        "smith",
        "Ángel",
        "de",
        "la",
        "cruz",
    ];
    (0..n)
        .map(|_| {
            let mut name = String::new();
            for k in 0..1 + rng.below(4) {
                if k > 0 || rng.below(8) == 0 {
                    name.push_str(rng.pick::<&str>(&[" ", "  ", "\t", "\u{a0}", "\u{b}"]));
                }
                name.push_str(rng.pick::<&str>(&words));
            }
            name
        })
        .collect()
}

#[test]
fn one_walk_builds_the_table_two_walks_built() {
    let mut rng = crate::testdata::Rng::new(23);
    for round in 0..300 {
        let n = 1 + rng.below(if round % 10 == 0 { 2000 } else { 60 });
        let names = random_names(&mut rng, n);
        let room = rng.below(names.len() + 2);
        let new = Recall::of_names_upto(names.iter().map(String::as_str), room);
        let mut old = Recall::new();
        let mut form = String::new();
        for name in &names {
            if old.names >= room {
                break;
            }
            form.clear();
            push_recall_form_by_words(name, &mut form);
            if form.chars().count() >= 2 {
                insert_by_two_walks(&mut old, &form);
            }
        }
        assert_eq!(format!("{new:?}"), format!("{old:?}"), "{names:?}");
    }
}

#[test]
fn the_recall_form_in_one_pass_is_the_form_by_words() {
    let mut rng = crate::testdata::Rng::new(29);
    let pieces = [
        "Maria", "ORTIZ", " ", "  ", "\t", "\n", "\r", "\u{c}", "\u{b}", "\u{a0}", "\u{85}",
        "józef", "ÅSA", "x", "-", "'", "7", "\u{0}", "\u{7f}", "İ",
    ];
    for _ in 0..20_000 {
        let value = random_text(&mut rng, &pieces, 8);
        let prefix: &str = rng.pick::<&str>(&["", "kept ", "Ø"]);
        let (mut new, mut old) = (String::from(prefix), String::from(prefix));
        push_recall_form(&value, &mut new);
        push_recall_form_by_words(&value, &mut old);
        assert_eq!(new, old, "{value:?}");
    }
}

/// The search as it was before a name that ends the text ended it (it classified a step
/// from the text's end first).
fn found_by_restarts<'t>(r: &Recall, text: &'t str, from: usize) -> Vec<&'t str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let prefixes = &*r.prefixes;
    let mut i = from;
    let mut c = lanes::classes(b, i);
    let mut before = u32::from(i > 0 && b.get(i - 1).is_some_and(u8::is_ascii_alphanumeric));
    while i < b.len() {
        let block = lanes::padded::<48>(b, i);
        let (c1, c2) = (lanes::classes(&block, 16), lanes::classes(&block, 32));
        let alnum = c.alnum | c1.alnum << 16;
        let words = u64::from(alnum) | u64::from(c2.alnum) << 32;
        let starts = alnum & !((alnum << 1) | before);
        let leads = c.lead | c1.lead << 16;
        let resume = if leads == 0 {
            let mut next = starts;
            let mut resume = None;
            while next != 0 {
                let bit = next.trailing_zeros();
                next &= next - 1;
                let start = i + bit as usize;
                if may_begin(prefixes, key_at(&block, bit as usize, words >> bit))
                    && let Some(end) = r.match_at(text, start)
                {
                    out.push(&text[start..end]);
                    resume = Some(end);
                    break;
                }
            }
            resume
        } else {
            r.find_in_mixed(
                text,
                i,
                u64::from(starts),
                u64::from(leads),
                u128::from(words),
            )
            .map(|(start, end)| {
                out.push(&text[start..end]);
                end
            })
        };
        match resume {
            Some(end) => {
                i = end;
                c = lanes::classes(b, i);
                before = u32::from(b[i - 1].is_ascii_alphanumeric());
            }
            None => {
                i += 32;
                before = alnum >> 31;
                c = c2;
            }
        }
    }
    out
}

#[test]
fn the_search_finds_what_it_found_before_it_stopped_at_the_end() {
    let mut rng = crate::testdata::Rng::new(31);
    let names = random_names(&mut rng, 400);
    let r = Recall::of_names(names.iter().map(String::as_str));
    // The names themselves in other cases and spacing, pieces of them, and long fillers,
    // so names end at every offset of a step, inside it, at its end and past it.
    let mut pieces: Vec<String> = names.iter().take(60).cloned().collect();
    pieces.extend(names.iter().take(30).map(|n| n.to_uppercase()));
    pieces.extend(
        [
            "maria",
            "jo",
            "王伟明",
            "ørjanx",
            "x",
            "é",
            " ",
            ", ",
            "-",
            "'",
            "\n",
            "9",
            "a",
            "abcdefghijklmnopqrstuvwxyz0123",
            "the quick brown fox jumps over",
            "…",
        ]
        .map(String::from),
    );
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    for round in 0..6000 {
        let text = random_text(&mut rng, &pieces, if round % 50 == 0 { 120 } else { 14 });
        let mut spans = Vec::new();
        r.find(&text, &mut spans);
        let got: Vec<&str> = spans.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(got, found_by_restarts(&r, &text, 0), "{text:?}");
        assert_eq!(r.count(&text), got.len());
        // Going on from each end, and stopping after any number.
        for (k, s) in spans.iter().enumerate() {
            let mut rest = Vec::new();
            r.find_from(&text, s.end, &mut rest);
            assert_eq!(rest, spans[k + 1..], "{text:?} from {}", s.end);
            let mut first = Vec::new();
            assert!(r.find_exceeding(&text, k, &mut first));
            assert_eq!(first, spans[..=k]);
            assert!(r.count_exceeds(&text, k) && !r.count_exceeds(&text, spans.len()));
        }
    }
}

/// [`Recall::each`] as it was before it read 64 bytes a step: 32 bytes a step.
fn each_in_32_byte_steps(r: &Recall, text: &str, from: usize, mut found: impl FnMut(Span) -> bool) {
    let b = text.as_bytes();
    let prefixes = &*r.prefixes;
    // Thirty-two bytes from `i` at a time: the classes of their first sixteen (`c`), and
    // whether the byte before `i` is a word byte (`before`, one bit). Each step classifies
    // its second sixteen and the sixteen after its own too, for the words that start late
    // in its own and go on (and the next step's first sixteen). After an occurrence the
    // search goes on from its end in this same state.
    let mut i = from;
    let mut c = lanes::classes(b, i);
    let mut before = u32::from(i > 0 && b.get(i - 1).is_some_and(u8::is_ascii_alphanumeric));
    while i < b.len() {
        // The 48 bytes from `i` (zeros past the end of the text): the 32 of this step, the
        // sixteen classified for the next, and the eight bytes from each word start, read
        // without a bounds check (a word start is at most bit 32 of a `u32`).
        let padded;
        let block: &[u8; 48] = match b.get(i..).and_then(<[u8]>::first_chunk) {
            Some(block) => block,
            None => {
                padded = lanes::padded::<48>(b, i);
                &padded
            }
        };
        let (c1, c2) = (lanes::classes(block, 16), lanes::classes(block, 32));
        let alnum = c.alnum | c1.alnum << 16;
        let words = u64::from(alnum) | u64::from(c2.alnum) << 32;
        let starts = alnum & !((alnum << 1) | before);
        // The non-ASCII character starts, read only in a step with a byte from 0x80 (a
        // move of the high bits, where the starts take three instructions a sixteen bytes).
        let leads = if c.high | c1.high == 0 {
            0
        } else {
            lanes::classes(block, 0).lead | c1.lead << 16
        };
        let resume = if leads == 0 {
            // Word starts only (most of the text): the first eight bytes of each, then
            // its first word's entry in the table, say whether a name may begin there.
            let mut next = starts;
            let mut resume = None;
            while next != 0 {
                let bit = next.trailing_zeros();
                next &= next - 1;
                let start = i + bit as usize;
                if may_begin(prefixes, key_at(block, bit as usize, words >> bit))
                    && let Some(end) = r.match_at(text, start)
                {
                    if !found(Span::new(start, end, Kind::Name)) {
                        return;
                    }
                    resume = Some(end);
                    break;
                }
            }
            resume
        } else {
            match r.find_in_mixed(
                text,
                i,
                u64::from(starts),
                u64::from(leads),
                u128::from(words),
            ) {
                Some((start, end)) => {
                    if !found(Span::new(start, end, Kind::Name)) {
                        return;
                    }
                    Some(end)
                }
                None => None,
            }
        };
        match resume {
            // A name that ends the text ends the search (a found value counted is most
            // often one name, to its end): no step is classified after it.
            Some(end) if end >= b.len() => return,
            // Go on after the name (no word byte follows it).
            Some(end) => {
                i = end;
                c = lanes::classes(b, i);
                before = u32::from(b[i - 1].is_ascii_alphanumeric());
            }
            None => {
                i += 32;
                before = alnum >> 31;
                c = c2;
            }
        }
    }
}

/// Every occurrence [`each_in_32_byte_steps`] finds from `from`.
fn found_in_32_byte_steps(r: &Recall, text: &str, from: usize) -> Vec<Span> {
    let mut out = Vec::new();
    each_in_32_byte_steps(r, text, from, |span| {
        out.push(span);
        true
    });
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// The search 64 bytes a step finds what it found 32 bytes a step: texts of
    /// recalled names (in other cases, cut, run into other words), long fillers and non-ASCII
    /// characters, so names start and end at every offset of a step and steps hold non-ASCII
    /// starts or only their continuation bytes; from the start and from each name's end.
    #[test]
    fn sixty_four_bytes_a_step_find_what_thirty_two_found(
        seed in 0u64..1 << 40,
        names in 1usize..300,
        most in 1usize..80,
    ) {
        let mut rng = crate::testdata::Rng::new(seed);
        let names = random_names(&mut rng, names);
        let r = Recall::of_names(names.iter().map(String::as_str));
        let mut pieces: Vec<String> = names.iter().take(40).cloned().collect();
        pieces.extend(names.iter().take(20).map(|n| n.to_uppercase()));
        pieces.extend(names.iter().take(20).map(|n| format!("x{n}")));
        pieces.extend(names.iter().take(20).map(|n| n.chars().take(3).collect::<String>()));
        pieces.extend(
            [
                "王伟明", "é", "…", "ørjanx", "abcdefghijklmnopqrstuvwxyz0123456789abcdef", " ",
                "                                ", "the quick brown fox", "9", "'",
            ]
            .map(String::from),
        );
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let text = random_text(&mut rng, &pieces, most);
        let mut spans = Vec::new();
        r.find(&text, &mut spans);
        proptest::prop_assert_eq!(&spans, &found_in_32_byte_steps(&r, &text, 0));
        proptest::prop_assert_eq!(r.count(&text), spans.len());
        for s in &spans {
            let mut rest = Vec::new();
            r.find_from(&text, s.end, &mut rest);
            proptest::prop_assert_eq!(rest, found_in_32_byte_steps(&r, &text, s.end));
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    /// Counting many texts in one search gives the weighted sum of their counts alone: texts
    /// that are names, names in other cases, names cut or run into other words, empty texts
    /// and non-ASCII ones; with a quote in some names (each text then counted alone) or in
    /// some texts.
    #[test]
    fn texts_counted_at_once_count_as_each_alone(
        seed in 0u64..1 << 40,
        names in 1usize..60,
        texts in 0usize..40,
        quoted in proptest::bool::ANY,
    ) {
        let mut rng = crate::testdata::Rng::new(seed);
        let mut names = random_names(&mut rng, names);
        if quoted {
            names.push("o\"neil".to_string());
        }
        let r = Recall::of_names(names.iter().map(String::as_str));
        let mut pieces: Vec<String> = names.clone();
        pieces.extend(names.iter().map(|n| n.to_uppercase()));
        pieces.extend(names.iter().map(|n| format!("x{n}")));
        pieces.extend(["王伟明", "é", "\"", "", " ", "9", "'"].map(String::from));
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        let texts: Vec<(String, usize)> = (0..texts)
            .map(|_| (random_text(&mut rng, &pieces, 4), rng.below(4)))
            .collect();
        let each: usize = texts.iter().map(|(t, w)| r.count(t) * w).sum();
        let at_once = r.count_weighted(texts.iter().map(|(t, w)| (t.as_str(), *w)));
        proptest::prop_assert_eq!(at_once, each);
    }
}

#[test]
fn lower_lanes_is_to_ascii_lowercase_in_every_lane() {
    for b in 0..=255u8 {
        for lane in 0..8 {
            for fill in [b'Z', b'a', 0xff, b'@', b'[', 0x7f, 0] {
                let mut bytes = [fill; 8];
                bytes[lane] = b;
                let want = bytes.map(|c| c.to_ascii_lowercase());
                assert_eq!(
                    lower_lanes(u64::from_le_bytes(bytes)),
                    u64::from_le_bytes(want),
                    "byte {b:#x} in lane {lane}"
                );
            }
        }
    }
}

#[test]
fn the_word_compare_and_the_byte_neighbours_agree_with_the_char_ones() {
    let mut rng = crate::testdata::Rng::new(37);
    let pieces = [
        "a", "A", "z", "Z", "@", "[", "`", "{", "0", "9", " ", "é", "É", "王", "伟", "ß", "\u{0}",
        "\u{7f}", "mArIa", "MARIA", "ortiz", "-", "'",
    ];
    for _ in 0..20_000 {
        let a = random_text(&mut rng, &pieces, 10);
        let b = if rng.below(2) == 0 {
            // The same text in some other case.
            a.chars()
                .map(|c| match rng.below(3) {
                    0 => c.to_ascii_uppercase(),
                    1 => c.to_ascii_lowercase(),
                    _ => c,
                })
                .collect()
        } else {
            random_text(&mut rng, &pieces, 10)
        };
        // Every length, past the shorter too.
        let (x, y) = (a.as_bytes(), b.as_bytes());
        for n in 0..=x.len().max(y.len()) + 1 {
            let want = n <= x.len().min(y.len()) && x[..n].eq_ignore_ascii_case(&y[..n]);
            assert_eq!(same_ignoring_ascii_case(x, y, n), want, "{a:?} {b:?} {n}");
        }
        // Every pair of character boundaries of `a`.
        let bounds: Vec<usize> = a.char_indices().map(|(i, _)| i).chain([a.len()]).collect();
        for &s in &bounds {
            for &e in bounds.iter().filter(|&&e| e >= s) {
                assert_eq!(
                    stands(&a, s, e),
                    stands_by_chars(&a, s, e),
                    "{a:?} {s}..{e}"
                );
            }
        }
    }
}

#[test]
fn names_chained_by_their_two_bytes_after_the_first_word_find_what_the_automaton_found() {
    let mut rng = crate::testdata::Rng::new(41);
    for round in 0..40 {
        let n = 5 + rng.below(if round % 4 == 0 { 300 } else { 30 });
        let names = random_names(&mut rng, n);
        // The automaton has no two-character floor of its own.
        let names: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| {
                let mut form = String::new();
                push_recall_form(n, &mut form);
                form.chars().count() >= 2
            })
            .collect();
        let r = Recall::of_names(names.iter().copied());
        let matcher = automaton(&names);
        let mut pieces: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        pieces.extend(names.iter().map(|n| n.to_uppercase()));
        pieces.extend(names.iter().map(|n| format!("{n}s")));
        pieces.extend(
            [
                "maria",
                "Maria Ort",
                "jo",
                "JO S",
                "x",
                "é",
                " ",
                ", ",
                "-",
                "'",
                "9",
                "al s",
                "smithy",
                "王伟明",
                "q",
            ]
            .map(String::from),
        );
        let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
        for _ in 0..400 {
            let text = random_text(&mut rng, &pieces, 10);
            assert_eq!(
                found(&r, &text),
                found_by_automaton(&matcher, &text),
                "{text:?} {names:?}"
            );
        }
        for name in &names {
            assert!(r.contains(name), "{name:?}");
        }
    }
}

#[test]
fn is_plain_ascii_is_what_the_word_split_leaves_but_for_case() {
    // Every byte in every position of short texts around spaces, and generated ones.
    let mut texts: Vec<Vec<u8>> = Vec::new();
    for c in 0..=255u8 {
        for len in 1..=18 {
            for at in 0..len {
                let mut t: Vec<u8> = (0..len)
                    .map(|k| if k % 5 == 2 { b' ' } else { b'a' })
                    .collect();
                t[at] = c;
                texts.push(t);
            }
        }
    }
    let mut rng = crate::testdata::Rng::new(43);
    for _ in 0..20_000 {
        let n = rng.below(20);
        texts.push(
            (0..n)
                .map(|_| *rng.pick(b"ab  \t\x0b\x0c\r\nZ\x7f\x00"))
                .collect(),
        );
    }
    for t in &texts {
        let want = std::str::from_utf8(t).is_ok_and(|s| {
            s.is_ascii() && {
                let mut form = String::new();
                push_recall_form_by_words(s, &mut form);
                form.as_bytes().eq_ignore_ascii_case(t)
            }
        });
        assert_eq!(is_plain_ascii(t), want, "{t:?}");
    }
}
