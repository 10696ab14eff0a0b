//! The `:` and `=` of a text, found once for the passes that each look at every one of them.
//!
//! IPv6 addresses (`ip.rs`), `Label: value` lines (`labels.rs`), the slots of mail headers and
//! git trailers (`slots.rs`), `key=value` pairs (`labels.rs`, for names, logins and encoded
//! addresses) and secret-named keys (`secrets.rs`) all start at a `:` or a `=`. Each pass used
//! to find them with its own `memchr` scan, and in code and logs (a `:` or `=` every 50 bytes)
//! that is one call per separator per pass, most of those passes' cost. In a long text the
//! separators are found by one pass instead ([`list`]) and every pass reads that list
//! ([`Listed`]). A short text (under [`LIST_FROM`] bytes: the values of most JSON documents)
//! is scanned by each pass as before ([`Scanned`]), as there the list's allocation would cost
//! more than the scans it saves. The passes are generic over the two ([`Seps`]), so a short
//! text's passes are the plain scans they were.
//!
//! Either way a pass is handed the same positions in the same order, so what it finds cannot
//! differ (`the_list_is_the_scan` tests this).

use std::iter::Copied;
use std::slice;

use memchr::{Memchr, Memchr2, memchr_iter, memchr2_iter};

/// The length from which a text's separators are listed once rather than scanned per pass.
pub(super) const LIST_FROM: usize = 4096;

/// The list of every `:` and `=` of `text`, in order, when it is long enough to list them
/// (for [`Listed`]). `memchr2` finds the next one, and the 64 bytes from it are read at once
/// (`lanes::seps64`): in code and logs, where they come every 50 bytes or so, a `memchr2` call
/// per separator was most of the cost; in prose, where they are rare, this is that call.
pub(super) fn list(text: &str) -> Option<Vec<usize>> {
    if text.len() < LIST_FROM {
        return None;
    }
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = memchr::memchr2(b':', b'=', &b[i..]) {
        i += at;
        let mut bits = super::lanes::seps64(b, i);
        while bits != 0 {
            out.push(i + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
        i += 64;
        if i >= b.len() {
            break;
        }
    }
    Some(out)
}

/// The `:` and `=` positions of one text, for the passes over them: scanned per pass
/// ([`Scanned`]) or read from the text's list ([`Listed`]). The passes are generic over the
/// two, so a short text's passes are the plain scans they were.
pub(super) trait Seps: Copy {
    /// The positions of one separator.
    type One: Iterator<Item = usize>;
    /// The positions of both.
    type Both: Iterator<Item = usize>;

    /// The positions of `sep` (`:` or `=`) in the text, in order.
    fn of(self, sep: u8) -> Self::One;

    /// The positions of every `:` and `=` in the text, in order.
    fn both(self) -> Self::Both;

    /// Whether the text holds `sep` (`:` or `=`).
    fn has(self, sep: u8) -> bool;

    /// Whether `text` is the text these are the separators of (for the callers' asserts).
    fn is_of(self, text: &str) -> bool;
}

/// The separators of a text, found by a `memchr` scan per pass.
#[derive(Clone, Copy, Debug)]
pub(super) struct Scanned<'a>(&'a [u8]);

impl<'a> Scanned<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        Scanned(text.as_bytes())
    }
}

impl<'a> Seps for Scanned<'a> {
    type One = Memchr<'a>;
    type Both = Memchr2<'a>;

    fn of(self, sep: u8) -> Memchr<'a> {
        memchr_iter(sep, self.0)
    }

    fn both(self) -> Memchr2<'a> {
        memchr2_iter(b':', b'=', self.0)
    }

    fn has(self, sep: u8) -> bool {
        memchr::memchr(sep, self.0).is_some()
    }

    fn is_of(self, text: &str) -> bool {
        std::ptr::eq(self.0, text.as_bytes())
    }
}

/// The separators of a text, read from its [`list`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Listed<'a> {
    b: &'a [u8],
    list: &'a [usize],
}

impl<'a> Listed<'a> {
    /// `list` is [`list`] of `text`.
    pub(super) fn new(text: &'a str, list: &'a [usize]) -> Self {
        Listed {
            b: text.as_bytes(),
            list,
        }
    }
}

impl<'a> Seps for Listed<'a> {
    type One = Only<'a>;
    type Both = Copied<slice::Iter<'a, usize>>;

    fn of(self, sep: u8) -> Only<'a> {
        debug_assert!(matches!(sep, b':' | b'='));
        Only {
            b: self.b,
            at: self.list.iter(),
            sep,
        }
    }

    fn both(self) -> Self::Both {
        self.list.iter().copied()
    }

    fn has(self, sep: u8) -> bool {
        self.of(sep).next().is_some()
    }

    fn is_of(self, text: &str) -> bool {
        std::ptr::eq(self.b, text.as_bytes())
    }
}

/// The listed positions of one separator.
#[derive(Debug)]
pub(super) struct Only<'a> {
    b: &'a [u8],
    at: slice::Iter<'a, usize>,
    sep: u8,
}

impl Iterator for Only<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        let (b, sep) = (self.b, self.sep);
        self.at.by_ref().copied().find(|&i| b[i] == sep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_is_the_scan() {
        let mut rng = crate::testdata::Rng::new(23);
        let pieces = [":", "=", "a", " ", "\n", "é", "::", "==", "key: ", "k=v"];
        let mut texts: Vec<String> = (0..200)
            .map(|_| {
                let n = rng.below(3 * LIST_FROM);
                let mut t = String::new();
                while t.len() < n {
                    t.push_str(rng.pick::<&str>(&pieces));
                }
                t
            })
            .collect();
        texts.push(crate::testdata::clean_text(8, 64 * 1024).text);
        texts.push(String::new());
        for text in &texts {
            let b = text.as_bytes();
            let kept = list(text);
            assert_eq!(kept.is_some(), text.len() >= LIST_FROM);
            let listed = kept.as_deref().map(|l| Listed::new(text, l));
            let scanned = Scanned::new(text);
            assert!(scanned.is_of(text) && listed.is_none_or(|l| l.is_of(text)));
            for sep in [b':', b'='] {
                let want: Vec<usize> = memchr_iter(sep, b).collect();
                assert_eq!(scanned.of(sep).collect::<Vec<_>>(), want);
                assert_eq!(scanned.has(sep), !want.is_empty());
                if let Some(seps) = listed {
                    assert_eq!(seps.of(sep).collect::<Vec<_>>(), want);
                    assert_eq!(seps.has(sep), !want.is_empty());
                }
            }
            let want: Vec<usize> = memchr2_iter(b':', b'=', b).collect();
            assert_eq!(scanned.both().collect::<Vec<_>>(), want);
            if let Some(seps) = listed {
                assert_eq!(seps.both().collect::<Vec<_>>(), want);
            }
        }
    }
}
