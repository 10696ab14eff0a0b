//! A string body with an escape every few bytes, read 64 bytes a step.
//!
//! [`super::string_stop`] finds the next quote, backslash or control byte, and a reader of a
//! string (the lexer, `mcp/classify/read.rs`) handles what it found and searches again: one
//! search, with its set-up, per escape. A JSON document inside a tool result's text block has an
//! escape every eleven bytes (each of its quotes is `\"`), code and logs one every sixty, and
//! there those searches cost 40 to 70 instructions an escape.
//!
//! [`body_end`] classifies 64 bytes at once (quotes, backslashes and control bytes, apart:
//! [`lanes::string_masks64`]) and takes the block's backslashes in order from its mask. Each one
//! starts an escape that covers the byte after it (and the four hex digits of a `\u`): a
//! backslash so covered starts no escape, a quote so covered ends no string. So the closing
//! quote is the first quote no escape covers, found with a few instructions per escape and none
//! per plain byte. What it does not take (a control byte, an escape JSON does not have, a `\u`
//! without four hex digits, no closing quote) it answers `None` to, and the caller reads the
//! body escape by escape as before, which says what is wrong. The tests compare it with that reading
//! on generated bodies, with escapes across every block boundary.

use crate::detect::lanes;

/// The index of the closing quote of the string body that goes on at `i` (in a body, at no
/// escape's second byte), or `None` when the body is not one this reader takes (see the module
/// doc): the caller then reads on from `i` escape by escape.
///
/// `unicode(at)` is asked about each `\u` escape (`at`: its backslash) and answers how many bytes
/// it covers (6, or 12 for a surrogate pair the caller reads as one), or `None` when it is no
/// escape (no four hex digits after it).
#[inline(never)]
pub(crate) fn body_end(
    b: &[u8],
    mut i: usize,
    mut unicode: impl FnMut(usize) -> Option<usize>,
) -> Option<usize> {
    // How many bytes at the start of the block an escape of the block before covers.
    let mut covered = 0;
    while i < b.len() {
        let m = lanes::string_masks64(b, i);
        let live = u64::MAX << covered;
        let (mut backslashes, mut quotes) = (m.backslashes & live, m.quotes & live);
        covered = 0;
        loop {
            let quote = quotes.trailing_zeros() as usize;
            let backslash = backslashes.trailing_zeros() as usize;
            if quote < backslash {
                // The closing quote, with no control byte before it.
                return (m.controls & ((1u64 << quote) - 1) == 0).then_some(i + quote);
            }
            if backslash == 64 {
                break;
            }
            let at = i + backslash;
            let len = match b.get(at + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                b'u' => unicode(at)?,
                _ => return None,
            };
            let next = backslash + len;
            if next >= 64 {
                covered = next - 64;
                break;
            }
            let live = u64::MAX << next;
            backslashes &= live;
            quotes &= live;
        }
        // No closing quote in the block: all of it is body (the bytes an escape covers are
        // checked already), so no byte of it may be a control byte.
        if m.controls != 0 {
            return None;
        }
        i += 64;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the body from `i` ends, byte by byte: the reading [`body_end`] must agree with
    /// wherever it answers.
    fn reference(b: &[u8], mut i: usize) -> Option<usize> {
        loop {
            match *b.get(i)? {
                b'"' => return Some(i),
                b'\\' => {
                    i += match *b.get(i + 1)? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => 2,
                        b'u' => {
                            let hex = b.get(i + 2..i + 6)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            6
                        }
                        _ => return None,
                    }
                }
                c if c < 0x20 => return None,
                _ => i += 1,
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(6000))]
        /// Bodies of dense escapes (runs of backslashes, escaped quotes, `\u` escapes, bad
        /// escapes, control bytes, a quote) at every alignment and across block boundaries.
        #[test]
        fn dense_escapes_end_where_the_bytewise_reading_ends(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec![
                    &b"a"[..], b"xyz ", b"\\\"", b"\\\\", b"\\\\\\\\", b"\\n", b"\\/",
                    b"\\u00e9", b"\\uD83D\\uDE00", b"\\u12", b"\\x", b"\x01", b"\x7f",
                    b"\xc3\xa9", b"\"", b"\\", b"0123456789abcdef0123456789",
                ]),
                0..60,
            ),
            pad in 0usize..70,
        ) {
            let mut bytes = vec![b'.'; pad];
            for p in &pieces {
                bytes.extend_from_slice(p);
            }
            let want = reference(&bytes, pad);
            let got = body_end(&bytes, pad, |at| super::super::hex_escape(&bytes, at));
            // It answers for every body the bytewise reading ends, and ends it there.
            proptest::prop_assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&bytes));
        }
    }

    #[test]
    fn a_pair_read_as_one_escape_is_asked_about_once() {
        // At every alignment to the block boundary, the second escape of the pair included.
        for pad in 40..70 {
            let mut b = vec![b'.'; pad];
            b.extend_from_slice(b"\\uD83D\\uDE00\\\"x\"");
            let mut asked = Vec::new();
            let got = body_end(&b, 0, |at| {
                asked.push(at);
                let pair = b.get(at + 2..at + 6) == Some(&b"D83D"[..])
                    && b.get(at + 6..at + 12) == Some(&b"\\uDE00"[..]);
                Some(if pair { 12 } else { 6 })
            });
            assert_eq!(got, Some(pad + 15), "{pad}");
            assert_eq!(asked, [pad], "{pad}");
        }
    }
}
