//! Byte classes sixteen bytes at a time, one bit per byte.
//!
//! The scans that read a whole text (recall's search for a session's names, for one) spend
//! most of their instructions telling which bytes are word bytes. With eight-byte arithmetic
//! (SWAR) that is some twenty operations per eight bytes; SSE2, which every x86-64 CPU has,
//! classifies sixteen bytes in about ten, and `safe_arch` gives it without `unsafe`. Other
//! targets get the same masks from the eight-byte arithmetic, which is also the tests' second
//! implementation; both are checked against the bytewise definitions.

/// The classes of sixteen bytes: bit `k` is byte `k`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Classes {
    /// ASCII letters and digits.
    pub(crate) alnum: u32,
    /// Bytes that start a non-ASCII character (`0xC0` and above).
    pub(crate) lead: u32,
    /// Bytes from `0x80` (any part of a non-ASCII character): one instruction with SSE2, where
    /// [`Classes::lead`] takes three, so a scan that needs the leads only where some are can
    /// ask this first (recall's search: most steps of a text hold no non-ASCII byte).
    pub(crate) high: u32,
}

/// The classes of the sixteen bytes of `b` from `i`, zero bytes past its end (which are in no
/// class).
#[inline(always)]
pub(crate) fn classes(b: &[u8], i: usize) -> Classes {
    classes_of(sixteen(b, i))
}

/// What the name finder's idle scan needs of sixteen bytes: bit `k` is byte `k`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Idle {
    /// ASCII letters.
    pub(crate) letters: u32,
    /// Bytes from `0x80` (parts of non-ASCII characters).
    pub(crate) high: u32,
    /// `'` and `-`.
    pub(crate) joiners: u32,
}

/// [`Idle`] of 64 bytes: bit `k` is byte `k`'s. The idle scan reads a text 64 bytes a step
/// (its words are taken from the masks, and a step's set-up is paid once for about ten words).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Idle64 {
    /// ASCII letters.
    pub(crate) letters: u64,
    /// Bytes from `0x80`.
    pub(crate) high: u64,
    /// `'` and `-`.
    pub(crate) joiners: u64,
}

/// [`Idle64`] of `block`, sixteen bytes at a time.
#[inline(always)]
pub(crate) fn idle64(block: &[u8; 64]) -> Idle64 {
    let mut c = Idle64 {
        letters: 0,
        high: 0,
        joiners: 0,
    };
    for k in 0..4 {
        let mut w = [0u8; 16];
        w.copy_from_slice(&block[16 * k..16 * k + 16]);
        let part = idle_of(w);
        c.letters |= u64::from(part.letters) << (16 * k);
        c.high |= u64::from(part.high) << (16 * k);
        c.joiners |= u64::from(part.joiners) << (16 * k);
    }
    c
}

/// What the credential windows' scan needs of sixteen bytes (`secrets/windows.rs`): bit `k`
/// is byte `k`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Credential {
    /// Word bytes: ASCII letters and digits, and `_`.
    pub(crate) word: u32,
    /// The bytes a credential's word may stop at: `-`, `.` and `=`.
    pub(crate) anchors: u32,
}

/// [`Credential`] of the sixteen bytes of `b` from `i`, zero bytes past its end (which are in
/// no class): the oracle of [`credential64`]'s blocks.
#[cfg(test)]
fn credential(b: &[u8], i: usize) -> Credential {
    credential_of(sixteen(b, i))
}

/// [`Credential`] of the 64 bytes of `b` from `i` as two masks, word bytes and anchors (bit
/// `k`: byte `i + k`), zero bytes past its end. Whole 64-byte blocks are classified without a
/// bounds test per sixteen bytes; only the last, short one is copied ([`padded`]).
#[inline(always)]
pub(crate) fn credential64(b: &[u8], i: usize) -> (u64, u64) {
    sixty_four_pair(b, i, |w| {
        let c = credential_of(w);
        (c.word, c.anchors)
    })
}

/// [`credential64`]'s masks of a short text (its first 64 bytes), and two more: bit `k` is
/// byte `k`'s.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Short {
    /// Word bytes: ASCII letters and digits, and `_`.
    pub(crate) word: u64,
    /// `-`, `.` and `=`.
    pub(crate) anchors: u64,
    /// `:`.
    pub(crate) colons: u64,
    /// `.`.
    pub(crate) dots: u64,
}

/// [`Short`] of the first 64 bytes of `b`: the masks of a short text's one block (a JSON
/// value, `secrets/windows.rs`). Only the sixteen-byte parts that hold its bytes are read, the
/// last one ending at the text's end (so overlapping the one before it, whose bytes it
/// classifies the same), and nothing is copied but a text under sixteen bytes: the 64-byte
/// copy and the four parts of [`credential64`] cost more than the rest of the search on a
/// value of 20 to 40 bytes.
#[inline(always)]
pub(crate) fn credential_short(b: &[u8]) -> Short {
    let b = b.get(..64).unwrap_or(b);
    let last = b.len().saturating_sub(16);
    let mut m = Short {
        word: 0,
        anchors: 0,
        colons: 0,
        dots: 0,
    };
    let mut at = 0;
    loop {
        let from = at.min(last);
        let w = sixteen(b, from);
        let c = credential_of(w);
        m.word |= u64::from(c.word) << from;
        m.anchors |= u64::from(c.anchors) << from;
        m.colons |= u64::from(eq_of(w, b':')) << from;
        m.dots |= u64::from(eq_of(w, b'.')) << from;
        at += 16;
        if at >= b.len() {
            break;
        }
    }
    m
}

/// Bit `k` set when byte `i + k` of `b` is `byte`, for the 64 bytes from `i` (none past the
/// end of `b`; `byte` is not 0, the padding). For a walk over a text's few bytes of one kind,
/// where `memchr`'s set-up per call costs more than the search between them.
#[inline(always)]
pub(crate) fn eq64(b: &[u8], i: usize, byte: u8) -> u64 {
    sixty_four(b, i, |w| eq_of(w, byte))
}

/// Bit `k` set when byte `k` of `bytes` is `byte`, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn eq_of(bytes: [u8; 16], byte: u8) -> u32 {
    use safe_arch::{cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
    let x = load_unaligned_m128i(&bytes);
    move_mask_i8_m128i(cmp_eq_mask_i8_m128i(x, sse::splat(byte))) as u32 & 0xFFFF
}

/// Bit `k` set when byte `k` of `bytes` is `byte`, a byte at a time.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn eq_of(bytes: [u8; 16], byte: u8) -> u32 {
    bytes
        .iter()
        .enumerate()
        .fold(0, |m, (k, &c)| m | u32::from(c == byte) << k)
}

/// The first two bytes of every birth cue (`ids/dob.rs`), each `| 0x20` (ASCII case folded;
/// `é`'s first byte `0xC3` becomes `0xE3`).
pub(crate) const BIRTH_CUE_PAIRS: [(u8, u8); 9] = [
    (b'b', b'o'),
    (b'b', b'i'),
    (b'd', b'o'),
    (b'd', b'.'),
    (b'd', b'a'),
    (b'g', b'e'),
    (b'f', b'e'),
    (b'n', b'a'),
    (b'n', 0xE3),
];

/// Bit `k` set when bytes `k` and `k + 1` of `b` from `i`, each `| 0x20`, are one of the
/// [`BIRTH_CUE_PAIRS`]: where among those sixteen bytes a birth cue may start. Every cue start
/// is flagged, and a few other bytes (`| 0x20` folds more than case).
#[inline(always)]
pub(crate) fn birth_cue_pairs(b: &[u8], i: usize) -> u32 {
    match b.get(i..i.saturating_add(17)) {
        Some(w) => birth_cue_pairs_of(w),
        None => birth_cue_pairs_of(&padded::<17>(b, i)),
    }
}

/// [`birth_cue_pairs`] of the seventeen bytes `w`, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn birth_cue_pairs_of(w: &[u8]) -> u32 {
    use safe_arch::{
        bitand_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i,
        zeroed_m128i,
    };
    use sse::splat;
    let load = |k: usize| {
        let mut a = [0u8; 16];
        a.copy_from_slice(&w[k..k + 16]);
        bitor_m128i(load_unaligned_m128i(&a), splat(0x20))
    };
    let (first, second) = (load(0), load(1));
    let mut hits = zeroed_m128i();
    for (a, x) in BIRTH_CUE_PAIRS {
        hits = bitor_m128i(
            hits,
            bitand_m128i(
                cmp_eq_mask_i8_m128i(first, splat(a)),
                cmp_eq_mask_i8_m128i(second, splat(x)),
            ),
        );
    }
    move_mask_i8_m128i(hits) as u32 & 0xFFFF
}

/// [`birth_cue_pairs`] of the seventeen bytes `w`, byte by byte: where SSE2 is missing, and in
/// the tests.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn birth_cue_pairs_bytewise(w: &[u8]) -> u32 {
    let mut bits = 0;
    for k in 0..16 {
        let pair = (w[k] | 0x20, w[k + 1] | 0x20);
        bits |= u32::from(BIRTH_CUE_PAIRS.contains(&pair)) << k;
    }
    bits
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn birth_cue_pairs_of(w: &[u8]) -> u32 {
    birth_cue_pairs_bytewise(w)
}

/// The ASCII white space (a space, or `\t`, `\n`, the vertical tab, `\x0c`, `\r`: what
/// `char::is_whitespace` calls white space below `0x80`) and the bytes from `0x80` of the 64
/// bytes of `b` from `i`, as two masks (bit `k`: byte `i + k`); zero bytes past its end, in
/// neither. For the name finder's word count of a keyed value (`names/mod.rs`), asked of
/// every short text of a JSON document.
#[inline(always)]
pub(crate) fn spaces64(b: &[u8], i: usize) -> (u64, u64) {
    sixty_four_pair(b, i, spaces_of)
}

/// The white space and high bytes of sixteen bytes ([`spaces64`]), with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn spaces_of(bytes: [u8; 16]) -> (u32, u32) {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
    use sse::{splat, within};
    let x = load_unaligned_m128i(&bytes);
    let space = bitor_m128i(within(x, 0x09, 0x0d), cmp_eq_mask_i8_m128i(x, splat(b' ')));
    (
        move_mask_i8_m128i(space) as u32 & 0xFFFF,
        move_mask_i8_m128i(x) as u32 & 0xFFFF,
    )
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn spaces_of(bytes: [u8; 16]) -> (u32, u32) {
    swar::spaces_of(bytes)
}

/// Bit `k` set when byte `i + k` of `b` is an ASCII digit, for the 64 bytes from `i` (none past
/// the end of `b`).
#[inline(always)]
pub(crate) fn digits64(b: &[u8], i: usize) -> u64 {
    sixty_four(b, i, digits_of)
}

/// The masks `of` gives the four blocks of sixteen bytes of `b` from `i`, as one mask of 64
/// bits; zero bytes past the end of `b` (in no class of this module).
#[inline(always)]
fn sixty_four(b: &[u8], i: usize, of: impl Fn([u8; 16]) -> u32) -> u64 {
    let all = |block: &[u8]| {
        let mut bits = 0u64;
        for k in 0..4 {
            let mut w = [0u8; 16];
            w.copy_from_slice(&block[16 * k..16 * k + 16]);
            bits |= u64::from(of(w)) << (16 * k);
        }
        bits
    };
    match b.get(i..i.saturating_add(64)) {
        Some(block) => all(block),
        None if i >= b.len() => 0,
        None => all(&padded::<64>(b, i)),
    }
}

/// [`sixty_four`] of two classes at once (each sixteen bytes loaded once for both): bit `k` of
/// each mask is byte `i + k`'s, zero bytes past the end of `b` (in neither class).
#[inline(always)]
fn sixty_four_pair(b: &[u8], i: usize, of: impl Fn([u8; 16]) -> (u32, u32)) -> (u64, u64) {
    let all = |block: &[u8]| {
        let (mut first, mut second) = (0u64, 0u64);
        for k in 0..4 {
            let mut w = [0u8; 16];
            w.copy_from_slice(&block[16 * k..16 * k + 16]);
            let (x, y) = of(w);
            first |= u64::from(x) << (16 * k);
            second |= u64::from(y) << (16 * k);
        }
        (first, second)
    };
    match b.get(i..i.saturating_add(64)) {
        Some(block) => all(block),
        None if i >= b.len() => (0, 0),
        None => all(&padded::<64>(b, i)),
    }
}

/// Bit `k` set when byte `k` of `bytes` is an ASCII digit, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn digits_of(bytes: [u8; 16]) -> u32 {
    use safe_arch::{load_unaligned_m128i, move_mask_i8_m128i};
    let x = load_unaligned_m128i(&bytes);
    move_mask_i8_m128i(sse::within(x, b'0', b'9')) as u32 & 0xFFFF
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn digits_of(bytes: [u8; 16]) -> u32 {
    swar::digits_of(bytes)
}

/// Bit `k` set when byte `i + k` of `b` ends a run of plain JSON string body, for the 64 bytes
/// from `i` (none past the end of `b`): a `"`, a `\\` or a control byte below `0x20` (which
/// JSON requires escaped). For the long runs of a text block (`walk/json.rs`).
#[inline(always)]
pub(crate) fn string_stops64(b: &[u8], i: usize) -> u64 {
    let mask = sixty_four(b, i, string_stops_of);
    // The zeros `sixty_four` pads a short last block with are control bytes: not stops.
    match b.len().saturating_sub(i) {
        n if n >= 64 => mask,
        n => mask & ((1u64 << n) - 1),
    }
}

/// The quotes, backslashes and control bytes of 64 bytes of a JSON string body, apart: what
/// `walk/json/body.rs` reads a body with an escape every few bytes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StringMasks {
    /// Bit `k` set when byte `i + k` is a `"`.
    pub(crate) quotes: u64,
    /// Bit `k` set when byte `i + k` is a `\\`.
    pub(crate) backslashes: u64,
    /// Bit `k` set when byte `i + k` is below `0x20` (none past the end of `b`).
    pub(crate) controls: u64,
}

/// [`StringMasks`] of the 64 bytes of `b` from `i` (none past its end): each sixteen bytes
/// loaded once for the three classes.
#[inline(always)]
pub(crate) fn string_masks64(b: &[u8], i: usize) -> StringMasks {
    let all = |block: &[u8]| {
        let mut m = StringMasks {
            quotes: 0,
            backslashes: 0,
            controls: 0,
        };
        for k in 0..4 {
            let mut w = [0u8; 16];
            w.copy_from_slice(&block[16 * k..16 * k + 16]);
            let (q, bs, c) = string_classes_of(w);
            m.quotes |= u64::from(q) << (16 * k);
            m.backslashes |= u64::from(bs) << (16 * k);
            m.controls |= u64::from(c) << (16 * k);
        }
        m
    };
    let mut m = match b.get(i..i.saturating_add(64)) {
        Some(block) => all(block),
        None => all(&padded::<64>(b, i)),
    };
    // The zeros a short last block is padded with are control bytes, and past the text.
    let n = b.len().saturating_sub(i);
    if n < 64 {
        m.controls &= (1u64 << n) - 1;
    }
    m
}

/// The quotes, backslashes and control bytes of sixteen bytes, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn string_classes_of(bytes: [u8; 16]) -> (u32, u32, u32) {
    use safe_arch::{
        bitxor_m128i, cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i, load_unaligned_m128i,
        move_mask_i8_m128i,
    };
    use sse::splat;
    let x = load_unaligned_m128i(&bytes);
    let mask = |m| move_mask_i8_m128i(m) as u32 & 0xFFFF;
    (
        mask(cmp_eq_mask_i8_m128i(x, splat(b'"'))),
        mask(cmp_eq_mask_i8_m128i(x, splat(b'\\'))),
        mask(cmp_lt_mask_i8_m128i(
            bitxor_m128i(x, splat(0x80)),
            splat(0xA0),
        )),
    )
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn string_classes_of(bytes: [u8; 16]) -> (u32, u32, u32) {
    let mut m = (0, 0, 0);
    for (k, &c) in bytes.iter().enumerate() {
        m.0 |= u32::from(c == b'"') << k;
        m.1 |= u32::from(c == b'\\') << k;
        m.2 |= u32::from(c < 0x20) << k;
    }
    m
}

/// [`string_stops64`] for the sixteen bytes from `i`.
#[inline(always)]
pub(crate) fn string_stops(b: &[u8], i: usize) -> u32 {
    let mask = string_stops_of(sixteen(b, i));
    match b.len().saturating_sub(i) {
        n if n >= 16 => mask,
        n => mask & ((1u32 << n) - 1),
    }
}

/// Bit `k` set when byte `i + k` of `b` is a `\\`, and with `quotes` also when it is a `"`, for
/// the sixteen bytes from `i` (none past the end of `b`): the escapes of a JSON string body, and
/// its end (`walk/json.rs`, and the test oracle in `mcp/classify/reference.rs`).
#[inline(always)]
pub(crate) fn backslashes(b: &[u8], i: usize, quotes: bool) -> u32 {
    backslashes_of(sixteen(b, i), quotes)
}

/// Bit `k` set when byte `i + k` of `b` is a `\\`, for the 64 bytes from `i` (none past the
/// end of `b`): the escapes of a JSON string body, 64 bytes a step (`walk/json.rs`'s decoder and
/// `RawOffsets`).
#[inline(always)]
pub(crate) fn backslashes64(b: &[u8], i: usize) -> u64 {
    sixty_four(b, i, |w| backslashes_of(w, false))
}

/// [`backslashes`] of sixteen bytes, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn backslashes_of(bytes: [u8; 16], quotes: bool) -> u32 {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
    use sse::splat;
    let x = load_unaligned_m128i(&bytes);
    let mut hits = cmp_eq_mask_i8_m128i(x, splat(b'\\'));
    if quotes {
        hits = bitor_m128i(hits, cmp_eq_mask_i8_m128i(x, splat(b'"')));
    }
    move_mask_i8_m128i(hits) as u32 & 0xFFFF
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn backslashes_of(bytes: [u8; 16], quotes: bool) -> u32 {
    swar::backslashes_of(bytes, quotes)
}

/// Bit `k` set when byte `k` of `bytes` is a `"`, a `\\` or below `0x20`, with SSE2. A byte
/// below `0x20` is one that, with its high bit flipped, is below `0xA0` as a signed byte (the
/// bytes from `0x80` flip to the non-negative ones).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn string_stops_of(bytes: [u8; 16]) -> u32 {
    use safe_arch::{
        bitor_m128i, bitxor_m128i, cmp_eq_mask_i8_m128i, cmp_lt_mask_i8_m128i,
        load_unaligned_m128i, move_mask_i8_m128i,
    };
    use sse::splat;
    let x = load_unaligned_m128i(&bytes);
    let control = cmp_lt_mask_i8_m128i(bitxor_m128i(x, splat(0x80)), splat(0xA0));
    let hits = bitor_m128i(
        bitor_m128i(
            cmp_eq_mask_i8_m128i(x, splat(b'"')),
            cmp_eq_mask_i8_m128i(x, splat(b'\\')),
        ),
        control,
    );
    move_mask_i8_m128i(hits) as u32 & 0xFFFF
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn string_stops_of(bytes: [u8; 16]) -> u32 {
    swar::string_stops_of(bytes)
}

/// Bit `k` set when byte `i + k` of `b` is a `:` or a `=`, for the 64 bytes from `i` (none past
/// the end of `b`): the separators `seps.rs` lists.
#[inline(always)]
pub(crate) fn seps64(b: &[u8], i: usize) -> u64 {
    sixty_four(b, i, seps_of)
}

/// Bit `k` set when byte `k` of `bytes` is a `:` or a `=`, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn seps_of(bytes: [u8; 16]) -> u32 {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
    use sse::splat;
    let x = load_unaligned_m128i(&bytes);
    let hits = bitor_m128i(
        cmp_eq_mask_i8_m128i(x, splat(b':')),
        cmp_eq_mask_i8_m128i(x, splat(b'=')),
    );
    move_mask_i8_m128i(hits) as u32 & 0xFFFF
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn seps_of(bytes: [u8; 16]) -> u32 {
    swar::seps_of(bytes)
}

/// Bit `k` set when byte `i + k` of `b` may stand in a `Label:` of `labels.rs` (an ASCII
/// letter, a space, `_` or `-`), for the sixteen bytes from `i` (none past the end of `b`).
/// The label and key walks back from a `:` or `=` read 33 bytes at most, nine instructions a
/// byte one at a time; two of these masks give the walk's stop in about thirty.
#[inline(always)]
pub(crate) fn label_bytes(b: &[u8], i: usize) -> u32 {
    label_bytes_of(sixteen(b, i))
}

/// Bit `k` set when byte `i + k` of `b` may stand in a `key=` of `labels.rs` (an ASCII letter
/// or digit, `_`, `-` or `.`), for the sixteen bytes from `i` (none past the end of `b`).
#[inline(always)]
pub(crate) fn key_bytes(b: &[u8], i: usize) -> u32 {
    key_bytes_of(sixteen(b, i))
}

/// [`label_bytes`] of sixteen bytes, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn label_bytes_of(bytes: [u8; 16]) -> u32 {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
    use sse::{splat, within};
    let x = load_unaligned_m128i(&bytes);
    let hits = bitor_m128i(
        bitor_m128i(
            within(bitor_m128i(x, splat(0x20)), b'a', b'z'),
            cmp_eq_mask_i8_m128i(x, splat(b' ')),
        ),
        bitor_m128i(
            cmp_eq_mask_i8_m128i(x, splat(b'_')),
            cmp_eq_mask_i8_m128i(x, splat(b'-')),
        ),
    );
    move_mask_i8_m128i(hits) as u32 & 0xFFFF
}

/// [`key_bytes`] of sixteen bytes, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn key_bytes_of(bytes: [u8; 16]) -> u32 {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
    use sse::{splat, within};
    let x = load_unaligned_m128i(&bytes);
    let hits = bitor_m128i(
        bitor_m128i(
            within(bitor_m128i(x, splat(0x20)), b'a', b'z'),
            within(x, b'0', b'9'),
        ),
        bitor_m128i(cmp_eq_mask_i8_m128i(x, splat(b'_')), within(x, b'-', b'.')),
    );
    move_mask_i8_m128i(hits) as u32 & 0xFFFF
}

/// A byte a label of `labels.rs` may hold: an ASCII letter, a space, `_` or `-` (the byte test
/// of [`label_bytes`]).
pub(crate) fn is_label_byte(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b' ' | b'_' | b'-')
}

/// A byte a `key=` of `labels.rs` may hold: an ASCII letter or digit, `_`, `-` or `.` (the byte
/// test of [`key_bytes`]).
pub(crate) fn is_key_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.')
}

/// The bits of the bytes of `bytes` that pass `member`, a byte at a time.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn bytewise(bytes: [u8; 16], member: fn(u8) -> bool) -> u32 {
    bytes
        .iter()
        .enumerate()
        .fold(0, |m, (k, &c)| m | u32::from(member(c)) << k)
}

/// [`label_bytes`] of sixteen bytes, a byte at a time: where SSE2 is missing, and in the tests.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn label_bytes_bytewise(bytes: [u8; 16]) -> u32 {
    bytewise(bytes, is_label_byte)
}

/// [`key_bytes`] of sixteen bytes, a byte at a time: where SSE2 is missing, and in the tests.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn key_bytes_bytewise(bytes: [u8; 16]) -> u32 {
    bytewise(bytes, is_key_byte)
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn label_bytes_of(bytes: [u8; 16]) -> u32 {
    label_bytes_bytewise(bytes)
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn key_bytes_of(bytes: [u8; 16]) -> u32 {
    key_bytes_bytewise(bytes)
}

/// Bit `k` set when byte `i + k` of `b` may open an identifier candidate (`ids/scan.rs`), for
/// the 64 bytes from `i`: a digit, or a `-`, `.` or `:` right after a hex letter (`a-f`,
/// `A-F`: the separator of a MAC address whose first group holds no digit). Zero bytes past
/// the end of `b`, and before its start, are in no class. Sixty-four at a time, so the
/// triggers close together (most are) share one classification of their bytes; each sixteen
/// is read twice, as itself and as the bytes before the next sixteen, which costs fewer
/// operations than carrying the hex letters' mask over by a shift.
#[inline(always)]
pub(crate) fn id_triggers64(b: &[u8], i: usize) -> u64 {
    // `w` is the byte before `i`, then the 64 from `i`: an array, so the sixteens are taken
    // from it with no length checks (a slice's eight checks cost a fifth of the block).
    let all = |w: &[u8; 65]| {
        let mut bits = 0u64;
        for k in 0..4 {
            let mut prev = [0u8; 16];
            let mut cur = [0u8; 16];
            prev.copy_from_slice(&w[16 * k..16 * k + 16]);
            cur.copy_from_slice(&w[16 * k + 1..16 * k + 17]);
            bits |= u64::from(id_triggers_of(prev, cur)) << (16 * k);
        }
        bits
    };
    match i
        .checked_sub(1)
        .and_then(|p| b.get(p..i.saturating_add(64)))
        .and_then(|w| <&[u8; 65]>::try_from(w).ok())
    {
        Some(w) => all(w),
        None if i >= b.len() => 0,
        None => {
            let mut w = [0u8; 65];
            w[0] = i
                .checked_sub(1)
                .and_then(|p| b.get(p))
                .copied()
                .unwrap_or(0);
            w[1..].copy_from_slice(&padded::<64>(b, i));
            all(&w)
        }
    }
}

/// The triggers of [`id_triggers64`] among sixteen bytes `cur`, `prev` the sixteen bytes one
/// before them, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn id_triggers_of(prev: [u8; 16], cur: [u8; 16]) -> u32 {
    use safe_arch::{
        bitand_m128i, bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i,
    };
    use sse::{splat, within};
    let (p, c) = (load_unaligned_m128i(&prev), load_unaligned_m128i(&cur));
    let hex_letter_before = within(bitor_m128i(p, splat(0x20)), b'a', b'f');
    let seps = bitor_m128i(
        bitor_m128i(
            cmp_eq_mask_i8_m128i(c, splat(b'-')),
            cmp_eq_mask_i8_m128i(c, splat(b'.')),
        ),
        cmp_eq_mask_i8_m128i(c, splat(b':')),
    );
    let triggers = bitor_m128i(within(c, b'0', b'9'), bitand_m128i(seps, hex_letter_before));
    move_mask_i8_m128i(triggers) as u32 & 0xFFFF
}

/// [`id_triggers_of`] byte by byte: where SSE2 is missing, and in the tests.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
fn id_triggers_bytewise(prev: [u8; 16], cur: [u8; 16]) -> u32 {
    let mut bits = 0;
    for k in 0..16 {
        let sep =
            matches!(cur[k], b'-' | b'.' | b':') && matches!(prev[k], b'a'..=b'f' | b'A'..=b'F');
        bits |= u32::from(cur[k].is_ascii_digit() || sep) << k;
    }
    bits
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn id_triggers_of(prev: [u8; 16], cur: [u8; 16]) -> u32 {
    id_triggers_bytewise(prev, cur)
}

/// The SSE2 steps the classes share.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
mod sse {
    use safe_arch::{
        bitand_m128i, cmp_gt_mask_i8_m128i, cmp_lt_mask_i8_m128i, m128i, set_splat_i8_m128i,
    };

    /// `c` in every lane.
    #[inline(always)]
    pub(super) fn splat(c: u8) -> m128i {
        set_splat_i8_m128i(c as i8)
    }

    /// The lanes of `x` from `lo` to `hi` (ASCII bounds: signed comparisons serve, the bytes
    /// from `0x80` being the negative ones).
    #[inline(always)]
    pub(super) fn within(x: m128i, lo: u8, hi: u8) -> m128i {
        bitand_m128i(
            cmp_gt_mask_i8_m128i(x, splat(lo - 1)),
            cmp_lt_mask_i8_m128i(x, splat(hi + 1)),
        )
    }
}

/// The sixteen bytes of `b` from `i`, zeros past its end (the last block's copy is
/// [`padded`]'s): what [`classes`] and [`credential`] classify.
#[inline(always)]
fn sixteen(b: &[u8], i: usize) -> [u8; 16] {
    match b.get(i..i.saturating_add(16)) {
        Some(w) => w.try_into().unwrap_or([0; 16]),
        None => padded(b, i),
    }
}

/// The bytes of `b` from `i`, at most `N` of them, then zeros: the last block of a text, whose
/// zeros are in no class of this module.
#[cold]
#[inline(never)]
pub(crate) fn padded<const N: usize>(b: &[u8], i: usize) -> [u8; N] {
    let mut w = [0u8; N];
    let rest = b.get(i..).unwrap_or_default();
    let n = rest.len().min(N);
    w[..n].copy_from_slice(&rest[..n]);
    w
}

/// [`classes`] of sixteen bytes, with SSE2. Signed comparisons serve: the classes lie in
/// `0x00..=0x7F`, and the bytes from `0x80` are the negative ones.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn classes_of(bytes: [u8; 16]) -> Classes {
    use safe_arch::{
        bitand_m128i, bitor_m128i, cmp_gt_mask_i8_m128i, cmp_lt_mask_i8_m128i,
        load_unaligned_m128i, move_mask_i8_m128i, set_splat_i8_m128i, zeroed_m128i,
    };
    use sse::{splat, within};
    let x = load_unaligned_m128i(&bytes);
    let folded = bitor_m128i(x, splat(0x20));
    let alnum = bitor_m128i(within(x, b'0', b'9'), within(folded, b'a', b'z'));
    // 0xC0..=0xFF are -64..=-1.
    let lead = bitand_m128i(
        cmp_gt_mask_i8_m128i(x, set_splat_i8_m128i(-65)),
        cmp_lt_mask_i8_m128i(x, zeroed_m128i()),
    );
    Classes {
        alnum: move_mask_i8_m128i(alnum) as u32 & 0xFFFF,
        lead: move_mask_i8_m128i(lead) as u32 & 0xFFFF,
        high: move_mask_i8_m128i(x) as u32 & 0xFFFF,
    }
}

/// [`Idle`] of sixteen bytes, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn idle_of(bytes: [u8; 16]) -> Idle {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
    use sse::{splat, within};
    let x = load_unaligned_m128i(&bytes);
    let letters = within(bitor_m128i(x, splat(0x20)), b'a', b'z');
    let joiners = bitor_m128i(
        cmp_eq_mask_i8_m128i(x, splat(b'\'')),
        cmp_eq_mask_i8_m128i(x, splat(b'-')),
    );
    Idle {
        letters: move_mask_i8_m128i(letters) as u32 & 0xFFFF,
        high: move_mask_i8_m128i(x) as u32 & 0xFFFF,
        joiners: move_mask_i8_m128i(joiners) as u32 & 0xFFFF,
    }
}

/// [`credential`] of sixteen bytes, with SSE2.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn credential_of(bytes: [u8; 16]) -> Credential {
    use safe_arch::{bitor_m128i, cmp_eq_mask_i8_m128i, load_unaligned_m128i, move_mask_i8_m128i};
    use sse::{splat, within};
    let x = load_unaligned_m128i(&bytes);
    let folded = bitor_m128i(x, splat(0x20));
    let word = bitor_m128i(
        bitor_m128i(within(x, b'0', b'9'), within(folded, b'a', b'z')),
        cmp_eq_mask_i8_m128i(x, splat(b'_')),
    );
    let anchors = bitor_m128i(
        bitor_m128i(
            cmp_eq_mask_i8_m128i(x, splat(b'-')),
            cmp_eq_mask_i8_m128i(x, splat(b'.')),
        ),
        cmp_eq_mask_i8_m128i(x, splat(b'=')),
    );
    Credential {
        word: move_mask_i8_m128i(word) as u32 & 0xFFFF,
        anchors: move_mask_i8_m128i(anchors) as u32 & 0xFFFF,
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn credential_of(bytes: [u8; 16]) -> Credential {
    swar::credential_of(bytes)
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn idle_of(bytes: [u8; 16]) -> Idle {
    swar::idle_of(bytes)
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn classes_of(bytes: [u8; 16]) -> Classes {
    swar::classes_of(bytes)
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = ONES * 0x80;

/// The high bit of each byte of `v` that is an ASCII letter or digit: the eight-byte form of
/// [`Classes::alnum`], for the scans that read eight bytes at a word start (`recall.rs`).
#[inline(always)]
pub(crate) fn alnum_lanes(v: u64) -> u64 {
    // `(x | 0x80) - lo` per byte never borrows from the next byte; its high bit says x >= lo
    // for an ASCII x.
    let ge = |x: u64, lo: u8| ((x | HIGH) - ONES * u64::from(lo)) & HIGH;
    let folded = v | (ONES * 0x20);
    let digit = ge(v, b'0') & !ge(v, b'9' + 1);
    let letter = ge(folded, b'a') & !ge(folded, b'z' + 1);
    (digit | letter) & !v & HIGH
}

/// [`classes`] with eight-byte arithmetic: where SSE2 is missing, and in the tests.
#[cfg(any(test, not(all(target_arch = "x86_64", target_feature = "sse2"))))]
mod swar {
    use super::{Classes, HIGH, ONES, alnum_lanes};

    /// The high bits of `lanes` (one per byte) as the eight low bits of the result.
    fn pack(lanes: u64) -> u32 {
        ((lanes >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    }

    /// The two eight-byte halves of `bytes`, little-endian.
    fn halves(bytes: [u8; 16]) -> (u64, u64) {
        let half = |k: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[k..k + 8]);
            u64::from_le_bytes(w)
        };
        (half(0), half(8))
    }

    /// The high bit of each byte of `v` equal to `c` (an ASCII byte), exactly: a byte is
    /// zero after the xor when adding 0x7F to its low seven bits leaves the high bit clear
    /// and it had none.
    fn equal_lanes(v: u64, c: u8) -> u64 {
        let x = v ^ (ONES * u64::from(c));
        !(((x & !HIGH) + ONES * 0x7f) | x) & HIGH
    }

    pub(super) fn idle_of(bytes: [u8; 16]) -> super::Idle {
        let letters = |v: u64| {
            let y = (v | (ONES * 0x20)) & !HIGH;
            (y + ONES * 0x1f) & !(y + ONES * 0x05) & !v & HIGH
        };
        let joiners = |v: u64| equal_lanes(v, b'\'') | equal_lanes(v, b'-');
        let (lo, hi) = halves(bytes);
        let both = |f: &dyn Fn(u64) -> u64| pack(f(lo)) | pack(f(hi)) << 8;
        super::Idle {
            letters: both(&letters),
            high: both(&|v| v & HIGH),
            joiners: both(&joiners),
        }
    }

    pub(super) fn credential_of(bytes: [u8; 16]) -> super::Credential {
        let word = |v: u64| alnum_lanes(v) | equal_lanes(v, b'_');
        let anchors = |v: u64| equal_lanes(v, b'-') | equal_lanes(v, b'.') | equal_lanes(v, b'=');
        let (lo, hi) = halves(bytes);
        super::Credential {
            word: pack(word(lo)) | pack(word(hi)) << 8,
            anchors: pack(anchors(lo)) | pack(anchors(hi)) << 8,
        }
    }

    pub(super) fn seps_of(bytes: [u8; 16]) -> u32 {
        let (lo, hi) = halves(bytes);
        let seps = |v: u64| equal_lanes(v, b':') | equal_lanes(v, b'=');
        pack(seps(lo)) | pack(seps(hi)) << 8
    }

    pub(super) fn backslashes_of(bytes: [u8; 16], quotes: bool) -> u32 {
        let (lo, hi) = halves(bytes);
        let hits = |v: u64| equal_lanes(v, b'\\') | if quotes { equal_lanes(v, b'"') } else { 0 };
        pack(hits(lo)) | pack(hits(hi)) << 8
    }

    pub(super) fn string_stops_of(bytes: [u8; 16]) -> u32 {
        let (lo, hi) = halves(bytes);
        let ge = |x: u64, lo: u8| ((x | HIGH) - ONES * u64::from(lo)) & HIGH;
        let stops =
            |v: u64| equal_lanes(v, b'"') | equal_lanes(v, b'\\') | (!ge(v, 0x20) & !v & HIGH);
        pack(stops(lo)) | pack(stops(hi)) << 8
    }

    pub(super) fn digits_of(bytes: [u8; 16]) -> u32 {
        let (lo, hi) = halves(bytes);
        let ge = |x: u64, lo: u8| ((x | HIGH) - ONES * u64::from(lo)) & HIGH;
        let digits = |v: u64| ge(v, b'0') & !ge(v, b'9' + 1) & !v & HIGH;
        pack(digits(lo)) | pack(digits(hi)) << 8
    }

    pub(super) fn spaces_of(bytes: [u8; 16]) -> (u32, u32) {
        let (lo, hi) = halves(bytes);
        let ge = |x: u64, lo: u8| ((x | HIGH) - ONES * u64::from(lo)) & HIGH;
        let space = |v: u64| (equal_lanes(v, b' ') | (ge(v, 0x09) & !ge(v, 0x0e))) & !v & HIGH;
        (
            pack(space(lo)) | pack(space(hi)) << 8,
            pack(lo & HIGH) | pack(hi & HIGH) << 8,
        )
    }

    pub(super) fn classes_of(bytes: [u8; 16]) -> Classes {
        let (lo, hi) = halves(bytes);
        let lead = |v: u64| v & (v << 1) & HIGH;
        Classes {
            alnum: pack(alnum_lanes(lo)) | pack(alnum_lanes(hi)) << 8,
            lead: pack(lead(lo)) | pack(lead(hi)) << 8,
            high: pack(lo & HIGH) | pack(hi & HIGH) << 8,
        }
    }
}

/// Asks the CPU to bring the cache line holding byte `i` of `b` into every cache level, when `i`
/// is inside `b` (nothing otherwise): for a walk that will read bytes far apart in a text its
/// scans left long ago, such as the found values of a long text copied out one by one
/// (`walk/mod.rs`). A hint only: no fault, no effect on what is read.
#[inline(always)]
pub(crate) fn prefetch(b: &[u8], i: usize) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    if let Some(byte) = b.get(i) {
        safe_arch::prefetch_t0(byte);
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = (b, i);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The classes byte by byte.
    fn bytewise(bytes: [u8; 16]) -> Classes {
        let mut c = Classes {
            alnum: 0,
            lead: 0,
            high: 0,
        };
        for (k, &x) in bytes.iter().enumerate() {
            c.alnum |= u32::from(x.is_ascii_alphanumeric()) << k;
            c.lead |= u32::from(x >= 0xC0) << k;
            c.high |= u32::from(x >= 0x80) << k;
        }
        c
    }

    fn idle_bytewise(bytes: [u8; 16]) -> Idle {
        let mut c = Idle {
            letters: 0,
            high: 0,
            joiners: 0,
        };
        for (k, &x) in bytes.iter().enumerate() {
            c.letters |= u32::from(x.is_ascii_alphabetic()) << k;
            c.high |= u32::from(x >= 0x80) << k;
            c.joiners |= u32::from(x == b'\'' || x == b'-') << k;
        }
        c
    }

    fn credential_bytewise(bytes: [u8; 16]) -> Credential {
        let mut c = Credential {
            word: 0,
            anchors: 0,
        };
        for (k, &x) in bytes.iter().enumerate() {
            c.word |= u32::from(x.is_ascii_alphanumeric() || x == b'_') << k;
            c.anchors |= u32::from(matches!(x, b'-' | b'.' | b'=')) << k;
        }
        c
    }

    #[test]
    fn label_and_key_bytes_are_the_bytewise_test() {
        // Every byte value in every lane, then random sixteens of the bytes near the classes'
        // edges.
        for x in 0..=255u8 {
            for k in 0..16 {
                let mut w = [b'!'; 16];
                w[k] = x;
                assert_eq!(label_bytes_of(w), label_bytes_bytewise(w), "{x:#x} at {k}");
                assert_eq!(key_bytes_of(w), key_bytes_bytewise(w), "{x:#x} at {k}");
            }
        }
        let mut rng = crate::testdata::Rng::new(23);
        let alphabet = b"aAzZ09 _-./,:@[`{\x7f\x80\xc3\xff\x00\t\n";
        for _ in 0..20_000 {
            let mut w = [0u8; 16];
            for x in &mut w {
                *x = alphabet[rng.below(alphabet.len())];
            }
            assert_eq!(label_bytes_of(w), label_bytes_bytewise(w), "{w:?}");
            assert_eq!(key_bytes_of(w), key_bytes_bytewise(w), "{w:?}");
        }
    }

    #[test]
    fn birth_cue_pairs_are_the_bytewise_test() {
        let mut rng = crate::testdata::Rng::new(9);
        let alphabet = b"bBdDgGfFnNoOiIaAeE.\x0e\xc3\xe3\xa9xX \x00\xff";
        for _ in 0..20_000 {
            let len = rng.below(40);
            let text: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            for i in 0..=text.len() + 1 {
                let mut w = [0u8; 17];
                for (k, x) in w.iter_mut().enumerate() {
                    *x = text.get(i + k).copied().unwrap_or(0);
                }
                assert_eq!(
                    birth_cue_pairs(&text, i),
                    birth_cue_pairs_bytewise(&w),
                    "{text:?} at {i}"
                );
            }
        }
    }

    /// A 64-byte mask (`sixty_four` over `of`) and its sixteen-byte parts, SSE2 and SWAR,
    /// against the bytewise test `is`, on random bytes and on bytes of `alphabet`.
    fn sixty_four_is_bytewise(
        seed: u64,
        alphabet: &[u8],
        is: impl Fn(u8) -> bool,
        of64: impl Fn(&[u8], usize) -> u64,
        parts: [fn([u8; 16]) -> u32; 2],
    ) {
        let mut rng = crate::testdata::Rng::new(seed);
        let text: Vec<u8> = (0..3000).map(|_| rng.below(256) as u8).collect();
        let dense: Vec<u8> = (0..3000)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        for t in [&text, &dense] {
            for i in 0..t.len() + 70 {
                let want = (0..64).fold(0u64, |m, k| {
                    m | u64::from(t.get(i + k).is_some_and(|&c| is(c))) << k
                });
                assert_eq!(of64(t, i), want, "at {i}");
            }
        }
        for x in 0..=255u8 {
            let want = if is(x) { 0xFFFF } else { 0 };
            for part in parts {
                assert_eq!(part([x; 16]), want, "{x}");
            }
        }
    }

    #[test]
    fn digits_are_the_bytewise_test() {
        sixty_four_is_bytewise(
            37,
            b"0123456789/:a",
            |c| c.is_ascii_digit(),
            digits64,
            [digits_of, swar::digits_of],
        );
    }

    #[test]
    fn spaces_are_the_bytewise_test() {
        let alphabet = b"a \t\n\x0b\x0c\r\x08\x0e\x1f\xc2\x85\xa0";
        sixty_four_is_bytewise(
            43,
            alphabet,
            |c| matches!(c, b' ' | 0x09..=0x0d),
            |b, i| spaces64(b, i).0,
            [|w| spaces_of(w).0, |w| swar::spaces_of(w).0],
        );
        sixty_four_is_bytewise(
            47,
            alphabet,
            |c| c >= 0x80,
            |b, i| spaces64(b, i).1,
            [|w| spaces_of(w).1, |w| swar::spaces_of(w).1],
        );
    }

    #[test]
    fn seps_are_the_bytewise_test() {
        sixty_four_is_bytewise(
            41,
            b":=;9a\xff",
            |c| matches!(c, b':' | b'='),
            seps64,
            [seps_of, swar::seps_of],
        );
    }

    #[test]
    fn backslashes_are_the_bytewise_test() {
        for quotes in [false, true] {
            let is = |c: u8| c == b'\\' || (quotes && c == b'"');
            sixty_four_is_bytewise(
                53,
                b"\"\\\x00\x5b\x5da\xdc\xa2",
                is,
                |b, i| {
                    let sixteens = (0..4).fold(0u64, |m, k| {
                        m | u64::from(backslashes(b, i + 16 * k, quotes)) << (16 * k)
                    });
                    if !quotes {
                        assert_eq!(backslashes64(b, i), sixteens, "at {i}");
                    }
                    sixteens
                },
                [
                    if quotes {
                        |w| backslashes_of(w, true)
                    } else {
                        |w| backslashes_of(w, false)
                    },
                    if quotes {
                        |w| swar::backslashes_of(w, true)
                    } else {
                        |w| swar::backslashes_of(w, false)
                    },
                ],
            );
        }
    }

    #[test]
    fn string_stops_are_the_bytewise_test() {
        sixty_four_is_bytewise(
            43,
            b"\"\\\x00\x1f\x20a\x7f\x80\xa0\xff",
            |c| c < 0x20 || c == b'"' || c == b'\\',
            string_stops64,
            [string_stops_of, swar::string_stops_of],
        );
        let text = b"ab\"c\\\x01\x1f \xe9\x80xyz\x00";
        for i in 0..text.len() + 20 {
            let want = (0..16).fold(0u32, |m, k| {
                let stop = text
                    .get(i + k)
                    .is_some_and(|&c| c < 0x20 || c == b'"' || c == b'\\');
                m | u32::from(stop) << k
            });
            assert_eq!(string_stops(text, i), want, "at {i}");
        }
    }

    #[test]
    fn string_masks_are_the_bytewise_tests() {
        let mut rng = crate::testdata::Rng::new(53);
        let alphabet = b"\"\\\x00\x1f\x20a\x7f\x80\xa0\xffxyz";
        for _ in 0..3_000 {
            let len = rng.below(200);
            // Many texts with none of the three classes: the block told plain at once.
            let plain = rng.below(3) == 0;
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    if plain {
                        b"az \x7f\x80\xff"[rng.below(6)]
                    } else {
                        alphabet[rng.below(alphabet.len())]
                    }
                })
                .collect();
            for i in 0..len + 2 {
                let mask = |test: &dyn Fn(u8) -> bool| {
                    (0..64).fold(0u64, |m, k| {
                        m | u64::from(text.get(i + k).is_some_and(|&c| test(c))) << k
                    })
                };
                let want = StringMasks {
                    quotes: mask(&|c| c == b'"'),
                    backslashes: mask(&|c| c == b'\\'),
                    controls: mask(&|c| c < 0x20),
                };
                assert_eq!(string_masks64(&text, i), want, "at {i} of {text:?}");
            }
        }
    }

    #[test]
    fn id_triggers_are_the_bytewise_test() {
        let mut rng = crate::testdata::Rng::new(47);
        let alphabet = b"09afAFgG-.:/ \x00\xff\xc3\xc1\xe6";
        let hex_letter = |c: u8| matches!(c, b'a'..=b'f' | b'A'..=b'F');
        for _ in 0..5_000 {
            let len = rng.below(150);
            let text: Vec<u8> = (0..len)
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            for i in 0..len + 2 {
                let at = |j: Option<usize>| j.and_then(|j| text.get(j)).copied().unwrap_or(0);
                let want = (0..64).fold(0u64, |m, k| {
                    let c = at(Some(i + k));
                    let sep =
                        matches!(c, b'-' | b'.' | b':') && hex_letter(at((i + k).checked_sub(1)));
                    m | u64::from(c.is_ascii_digit() || sep) << k
                });
                assert_eq!(id_triggers64(&text, i), want, "{text:?} at {i}");
            }
        }
        for lane in 0..16 {
            for x in 0..=255u8 {
                for y in [b'-', b'.', b':', b'/', b'a', b'F', b'g', b'5', 0xe6] {
                    let (mut prev, mut cur) = ([b' '; 16], [b' '; 16]);
                    prev[lane] = x;
                    cur[lane] = y;
                    let want = id_triggers_bytewise(prev, cur);
                    assert_eq!(id_triggers_of(prev, cur), want, "{x:#x} {y:#x} at {lane}");
                    let want = id_triggers_bytewise(cur, prev);
                    assert_eq!(id_triggers_of(cur, prev), want, "{y:#x} {x:#x} at {lane}");
                }
            }
        }
    }

    #[test]
    fn every_byte_in_every_lane() {
        for lane in 0..16 {
            for x in 0..=255u8 {
                let mut bytes = [b' '; 16];
                bytes[lane] = x;
                assert_eq!(classes_of(bytes), bytewise(bytes), "{x:#x} at {lane}");
                assert_eq!(swar::classes_of(bytes), bytewise(bytes), "{x:#x} at {lane}");
                assert_eq!(idle_of(bytes), idle_bytewise(bytes), "{x:#x} at {lane}");
                assert_eq!(
                    swar::idle_of(bytes),
                    idle_bytewise(bytes),
                    "{x:#x} at {lane}"
                );
                assert_eq!(
                    credential_of(bytes),
                    credential_bytewise(bytes),
                    "{x:#x} at {lane}"
                );
                assert_eq!(
                    swar::credential_of(bytes),
                    credential_bytewise(bytes),
                    "{x:#x} at {lane}"
                );
            }
        }
    }

    #[test]
    fn random_blocks_and_the_end_of_a_text() {
        let mut rng = crate::testdata::Rng::new(5);
        let text: Vec<u8> = (0..4000).map(|_| rng.below(256) as u8).collect();
        for i in 0..text.len() + 20 {
            let mut bytes = [0u8; 16];
            for (k, byte) in bytes.iter_mut().enumerate() {
                *byte = text.get(i + k).copied().unwrap_or(0);
            }
            assert_eq!(classes(&text, i), bytewise(bytes), "at {i}");
            let mut block = [0u8; 64];
            for (k, byte) in block.iter_mut().enumerate() {
                *byte = text.get(i + k).copied().unwrap_or(0);
            }
            let want = (0..4).fold(
                Idle64 {
                    letters: 0,
                    high: 0,
                    joiners: 0,
                },
                |mut m, k| {
                    let mut w = [0u8; 16];
                    w.copy_from_slice(&block[16 * k..16 * k + 16]);
                    let part = idle_bytewise(w);
                    m.letters |= u64::from(part.letters) << (16 * k);
                    m.high |= u64::from(part.high) << (16 * k);
                    m.joiners |= u64::from(part.joiners) << (16 * k);
                    m
                },
            );
            assert_eq!(idle64(&block), want, "at {i}");
            assert_eq!(swar::idle_of(bytes), idle_bytewise(bytes), "at {i}");
            assert_eq!(swar::classes_of(bytes), bytewise(bytes), "at {i}");
            assert_eq!(credential(&text, i), credential_bytewise(bytes), "at {i}");
            let want = (0..4).fold((0u64, 0u64), |(word, anchors), k| {
                let mut w = [0u8; 16];
                w.copy_from_slice(&block[16 * k..16 * k + 16]);
                let part = credential_bytewise(w);
                (
                    word | u64::from(part.word) << (16 * k),
                    anchors | u64::from(part.anchors) << (16 * k),
                )
            });
            assert_eq!(credential64(&text, i), want, "at {i}");
            let colons = block
                .iter()
                .enumerate()
                .fold(0u64, |m, (k, &c)| m | u64::from(c == b':') << k);
            assert_eq!(eq64(&text, i, b':'), colons, "at {i}");
            assert_eq!(
                swar::credential_of(bytes),
                credential_bytewise(bytes),
                "at {i}"
            );
        }
    }

    #[test]
    fn credential_short_is_credential64_and_eq64s() {
        let mut rng = crate::testdata::Rng::new(9);
        let alphabet = b"aZ09_-.=:/ \n\xc3\xa9\x00";
        let text: Vec<u8> = (0..3000).map(|_| rng.below(256) as u8).collect();
        let dense: Vec<u8> = (0..3000)
            .map(|_| alphabet[rng.below(alphabet.len())])
            .collect();
        for t in [&text, &dense] {
            for i in 0..600 {
                for n in 0..=80 {
                    let b = &t[i..i + n];
                    let (word, anchors) = credential64(b, 0);
                    let want = Short {
                        word,
                        anchors,
                        colons: eq64(b, 0, b':'),
                        dots: eq64(b, 0, b'.'),
                    };
                    assert_eq!(credential_short(b), want, "at {i}, {n} bytes");
                }
            }
        }
    }

    #[test]
    fn prefetch_is_only_a_hint() {
        let b = b"Maria Garcia";
        for i in [0, 5, b.len() - 1, b.len(), usize::MAX] {
            prefetch(b, i);
        }
        prefetch(&[], 0);
    }
}
