//! Names in Chinese, Japanese and Korean text, where words are not separated by spaces.
//!
//! A name is a surname from the gazetteer followed by a given name from it ("李伟", "佐藤陽子",
//! "김민준"), or a surname followed by an honorific ("王先生", "佐藤さん"). Single Han characters are
//! also ordinary words, so a match must also end at a boundary: the end of the run, a kana or
//! Hangul particle, or a character that commonly follows a name (是, 说, 的 ...). A run that is
//! exactly a surname, followed by one space and a run that is exactly a given name ("佐藤 陽子"),
//! is a name too.

use super::gazetteer::Gazetteer;
use crate::detect::{Kind, Span};

/// Whether `c` belongs to a script handled here (Han, kana, Hangul).
pub(crate) fn is_cjk(c: char) -> bool {
    is_han(c) || is_kana(c) || is_hangul(c)
}

fn is_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF)
}

fn is_kana(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x31F0..=0x31FF)
}

fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F)
}

/// Characters that commonly follow a Chinese name.
const HAN_AFTER: &str = "是说在的和了也都先女老同告问给对跟向被把与及等说讲回来去要会请今昨已";
/// Characters that commonly precede a Chinese name.
const HAN_BEFORE: &str = "和跟给对向是叫由与及请问找让把被见";
/// Honorifics after a surname (the first characters of the multi-character ones suffice).
const HONORIFICS: &[&str] = &[
    "先生", "女士", "小姐", "老师", "教授", "医生", "经理", "さん", "様", "さま", "君", "氏",
    "先輩", "씨", "님",
];

/// Finds names in the CJK run `text[start..end]`; returns how far the caller should skip (past
/// a following given-name run when one was joined).
pub(super) fn find(
    text: &str,
    start: usize,
    end: usize,
    gaz: &Gazetteer,
    out: &mut Vec<Span>,
) -> usize {
    let run = &text[start..end];
    let first = run.chars().next().unwrap_or(' ');
    if is_hangul(first) {
        find_hangul(run, start, gaz, out);
        return end;
    }
    // "佐藤 陽子": a run that is exactly a surname, then one space and exactly a given name.
    if run.chars().count() <= 3 && gaz.lookup(run).is_some_and(|e| e.last > 0) {
        let rest = &text[end..];
        if let Some(after) = rest
            .strip_prefix(' ')
            .or_else(|| rest.strip_prefix('\u{3000}'))
        {
            let given_len = after
                .char_indices()
                .find(|(_, c)| !is_han(*c))
                .map_or(after.len(), |(i, _)| i);
            let given = &after[..given_len];
            if (1..=9).contains(&given_len) && gaz.lookup(given).is_some_and(|e| e.first > 0) {
                let stop = text.len() - after.len() + given_len;
                out.push(Span::new(start, stop, Kind::Name));
                return stop;
            }
        }
    }
    let chars: Vec<(usize, char)> = run.char_indices().collect();
    let n = chars.len();
    let at = |i: usize| if i < n { chars[i].0 } else { run.len() };
    let mut i = 0;
    while i < n {
        if !is_han(chars[i].1) {
            i += 1;
            continue;
        }
        let mut found = None;
        'surname: for slen in [2usize, 1] {
            if i + slen > n || !chars[i..i + slen].iter().all(|c| is_han(c.1)) {
                continue;
            }
            if !is_surname(gaz, &run[at(i)..at(i + slen)]) {
                continue;
            }
            let tail = &run[at(i + slen)..];
            if HONORIFICS.iter().any(|h| tail.starts_with(h)) {
                found = Some(i + slen);
                break;
            }
            for glen in [2usize, 1] {
                let stop = i + slen + glen;
                if stop > n || !chars[i + slen..stop].iter().all(|c| is_han(c.1)) {
                    continue;
                }
                if !is_given(gaz, &run[at(i + slen)..at(stop)]) {
                    continue;
                }
                let before_ok = i == 0 || boundary_before(chars[i - 1].1);
                let after = &run[at(stop)..];
                // Inside running Han text both edges must look like a name's edges, unless
                // what follows is a particle or honorific that only follows names.
                if (before_ok && (stop == n || boundary_after(after)))
                    || HONORIFICS.iter().any(|h| after.starts_with(h))
                    || after.chars().next().is_some_and(|c| "是说".contains(c))
                {
                    found = Some(stop);
                    break 'surname;
                }
            }
        }
        match found {
            Some(stop) => {
                out.push(Span::new(start + at(i), start + at(stop), Kind::Name));
                i = stop;
            }
            None => i += 1,
        }
    }
    end
}

fn is_surname(gaz: &Gazetteer, s: &str) -> bool {
    gaz.lookup(s).is_some_and(|e| e.last > 0)
}

fn is_given(gaz: &Gazetteer, s: &str) -> bool {
    gaz.lookup(s).is_some_and(|e| e.first > 0)
}

fn boundary_before(c: char) -> bool {
    !is_han(c) || HAN_BEFORE.contains(c)
}

fn boundary_after(rest: &str) -> bool {
    let Some(c) = rest.chars().next() else {
        return true;
    };
    !is_han(c) || HAN_AFTER.contains(c) || HONORIFICS.iter().any(|h| rest.starts_with(h))
}

/// Korean words are space-separated: a word that starts with surname + given name and continues
/// only with a particle is a name.
fn find_hangul(word: &str, start: usize, gaz: &Gazetteer, out: &mut Vec<Span>) {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let n = chars.len();
    if !(2..=6).contains(&n) {
        return;
    }
    let at = |i: usize| if i < n { chars[i].0 } else { word.len() };
    if !is_surname(gaz, &word[..at(1)]) {
        return;
    }
    for glen in [2usize, 1] {
        let stop = 1 + glen;
        if stop > n || !is_given(gaz, &word[at(1)..at(stop)]) {
            continue;
        }
        let rest = &word[at(stop)..];
        if rest.is_empty() || KOREAN_PARTICLES.contains(&rest) {
            out.push(Span::new(start, start + at(stop), Kind::Name));
            return;
        }
    }
}

const KOREAN_PARTICLES: &[&str] = &[
    "은",
    "는",
    "이",
    "가",
    "을",
    "를",
    "의",
    "에게",
    "씨",
    "님",
    "과",
    "와",
    "도",
    "께서",
    "한테",
    "씨가",
    "씨는",
    "씨의",
    "씨를",
    "님이",
    "님의",
    "님께",
    "이다",
    "입니다",
    "에게서",
    "하고",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let gaz = Gazetteer::get();
        let mut i = 0;
        while let Some((s, c)) = text[i..].char_indices().find(|(_, c)| is_cjk(*c)) {
            let s = i + s;
            let e = text[s..]
                .char_indices()
                .find(|(_, c)| !is_cjk(*c))
                .map_or(text.len(), |(j, _)| s + j);
            let _ = c;
            i = find(text, s, e, gaz, &mut out);
        }
        out.iter().map(|s| &text[s.start..s.end]).collect()
    }

    #[test]
    fn chinese_japanese_korean() {
        assert_eq!(names("我的朋友李伟是老师"), vec!["李伟"]);
        assert_eq!(names("王先生来了"), vec!["王"]);
        assert_eq!(names("佐藤 陽子です"), vec!["佐藤 陽子"]);
        assert_eq!(names("김민준씨는 학생입니다"), vec!["김민준"]);
        assert!(names("今天天气很好").is_empty());
    }
}
