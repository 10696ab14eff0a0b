//! The one read of a message's bytes that [`super::classify`] makes.
//!
//! It reads a message into its top-level members as serde_json reads it into borrowed
//! `RawValue`s (keys decoded, values as their JSON text), with serde's verdict on its syntax,
//! and in the same pass looks, in the members the layer forwards (`params`, `result`, `error`
//! and members JSON-RPC does not define), for what serde's skip of a value lets through: a key
//! given twice in one object at any depth, and a `\u` escape of a lone UTF-16 surrogate, which
//! no string can hold. Before, serde read the message and a second walk read those members
//! again; on a tool result of megabytes each read cost as much as the other. Here a string body
//! is skipped sixteen and then 64 bytes a step ([`json::string_stop`]), once.
//!
//! The syntax is serde_json's: whitespace is space, tab, CR and LF; a string holds no byte
//! below 0x20 and only the escapes `\" \\ \/ \b \f \n \r \t \uXXXX`; a number is
//! `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`; the words are `true`, `false` and `null`;
//! nothing but whitespace follows the message. A message that does not start with `{` is left
//! to serde ([`super::not_an_object`]): it is refused either way, and serde alone says whether
//! as JSON or not. The tests compare every verdict with serde's reading (the reference in
//! `reference.rs`) on generated messages.
//!
//! Nothing here trusts the text: every index is checked, nesting costs one byte of stack per
//! level (as serde's skip does) and keys are compared in a hash set past [`INLINE_KEYS`] in one
//! object, so no message makes the read panic or go quadratic.

use std::borrow::Cow;
use std::collections::HashSet;
use std::ops::Range;

use super::{Flaw, INLINE_KEYS, KeySet};
use crate::mcp::envelope::Raw;
use crate::walk::json;
use crate::walk::json::skip_ws as ws;

/// How deep arrays and objects may nest inside a forwarded member: as deep as serde's default
/// recursion limit let the walk of serde's visitor over a member go, which the layer made before
/// (a member nested deeper is refused, as it was).
const MAX_DEPTH: usize = 127;

/// A forwarded member: its text, and the first flaw in it (in the order of its bytes).
#[derive(Debug, Clone, Copy)]
pub(super) struct Member<'a> {
    pub(super) raw: Raw<'a>,
    pub(super) flaw: Option<Flaw>,
}

/// The top level of a message: its members as raw text, and what was odd about them.
#[derive(Default)]
pub(super) struct Top<'a> {
    pub(super) id: Option<Raw<'a>>,
    pub(super) id_twice: bool,
    pub(super) method: Option<Raw<'a>>,
    pub(super) params: Option<Member<'a>>,
    pub(super) result: Option<Member<'a>>,
    pub(super) error: Option<Member<'a>>,
    /// `None`: no `jsonrpc` member.
    pub(super) version_ok: Option<bool>,
    pub(super) extras: Vec<Member<'a>>,
    pub(super) duplicate: bool,
    /// The string literals of the forwarded members that hold an escape and are at least
    /// [`LONG_STRING`] bytes long: their byte ranges in the message (opening quote to one past
    /// the closing quote), in order. The walk that scans a member takes their ends from here
    /// (`walk::json::for_each_value_known`) rather than read their bodies a second time.
    pub(super) long_strings: Vec<Range<usize>>,
}

/// How long a string literal (its quotes included) must be for [`Top::long_strings`] to hold
/// it: a tool result's text block, not the names and short values around it, whose bodies
/// the walk reads again in a few instructions.
pub(super) const LONG_STRING: usize = 256;

/// Reads `text` as one JSON-RPC message: [`Flaw::NotJson`] or [`Flaw::NotObject`] when it is
/// no object.
pub(super) fn read(text: &str) -> Result<Top<'_>, Flaw> {
    let b = text.as_bytes();
    let mut i = ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return Err(super::not_an_object(text));
    }
    let mut reader = Reader {
        text,
        open: Vec::new(),
        objects: Vec::new(),
        keys: Vec::new(),
        long_strings: Vec::new(),
    };
    let mut top = Top::default();
    let mut seen = KeySet::default();
    i = ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        i += 1;
    } else {
        loop {
            if b.get(i) != Some(&b'"') {
                return Err(Flaw::NotJson);
            }
            let s = string(b, i, false)?;
            // serde decodes a top-level key: one it cannot decode makes the message no JSON.
            let key = key_text(text, i, s).ok_or(Flaw::NotJson)?;
            i = ws(b, s.end);
            if b.get(i) != Some(&b':') {
                return Err(Flaw::NotJson);
            }
            let start = ws(b, i + 1);
            let twice = !seen.insert(key.clone());
            top.duplicate |= twice;
            let forwarded = !matches!(&*key, "id" | "method" | "jsonrpc");
            let (end, flaw) = reader.value(start, forwarded)?;
            let raw = Raw::checked(&text[start..end]);
            let member = Member { raw, flaw };
            match &*key {
                "id" => {
                    top.id_twice |= twice;
                    top.id = Some(raw);
                }
                "method" => top.method = Some(raw),
                "jsonrpc" => {
                    let ok = raw.get() == "\"2.0\"";
                    top.version_ok = Some(top.version_ok.unwrap_or(true) && ok);
                }
                "params" => top.params = Some(member),
                "result" => top.result = Some(member),
                "error" => top.error = Some(member),
                _ => top.extras.push(member),
            }
            i = ws(b, end);
            match b.get(i) {
                Some(b',') => i = ws(b, i + 1),
                Some(b'}') => {
                    i += 1;
                    break;
                }
                _ => return Err(Flaw::NotJson),
            }
        }
    }
    if ws(b, i) != b.len() {
        return Err(Flaw::NotJson);
    }
    top.long_strings = reader.long_strings;
    Ok(top)
}

/// The open arrays and objects of the value being read, and the keys of its open objects.
struct Reader<'a> {
    text: &'a str,
    /// The open arrays and objects, innermost last (true for an object): one byte a level.
    open: Vec<bool>,
    /// The open objects of a forwarded member while it is looked into (at most [`MAX_DEPTH`]).
    objects: Vec<Keys<'a>>,
    /// The keys of those objects, each object's after its parent's (an object's keys are
    /// read only while no object inside it is open).
    keys: Vec<Cow<'a, str>>,
    /// [`Top::long_strings`].
    long_strings: Vec<Range<usize>>,
}

/// Where one open object's keys are.
struct Keys<'a> {
    /// Its keys are `Reader::keys[from..]`, up to [`INLINE_KEYS`] of them.
    from: usize,
    /// Past [`INLINE_KEYS`], all its keys, hashed.
    spill: Option<HashSet<Cow<'a, str>>>,
}

/// What [`Reader::value`] looks for in a value, and what it found.
struct Look {
    /// The value is a forwarded member: it is looked into.
    forwarded: bool,
    /// The first flaw found.
    flaw: Option<Flaw>,
}

impl Look {
    /// Still looking: a forwarded member with no flaw found yet (past the first, the rest of
    /// the value is only read).
    fn on(&self) -> bool {
        self.forwarded && self.flaw.is_none()
    }
}

impl<'a> Reader<'a> {
    /// Reads the value that starts at `i` (past any whitespace): its end, and when `forwarded`,
    /// the first duplicate key, lone surrogate escape or nesting past [`MAX_DEPTH`] in it.
    /// [`Flaw::NotJson`] when it is no JSON value.
    fn value(&mut self, mut i: usize, forwarded: bool) -> Result<(usize, Option<Flaw>), Flaw> {
        let b = self.text.as_bytes();
        self.open.clear();
        self.objects.clear();
        self.keys.clear();
        let mut look = Look {
            forwarded,
            flaw: None,
        };
        loop {
            // A value starts at `i`.
            match b.get(i) {
                Some(b'"') => {
                    let s = string(b, i, look.on())?;
                    if s.lone {
                        look.flaw = Some(Flaw::NotJson);
                    }
                    if look.forwarded && s.escaped && s.end - i >= LONG_STRING {
                        self.long_strings.push(i..s.end);
                    }
                    i = s.end;
                }
                Some(&c @ (b'{' | b'[')) => {
                    let object = c == b'{';
                    if look.on() {
                        if self.open.len() == MAX_DEPTH {
                            look.flaw = Some(Flaw::NotJson);
                        } else if object {
                            self.objects.push(Keys {
                                from: self.keys.len(),
                                spill: None,
                            });
                        }
                    }
                    self.open.push(object);
                    i = ws(b, i + 1);
                    if b.get(i) == Some(&if object { b'}' } else { b']' }) {
                        self.close(&look);
                        i += 1;
                    } else {
                        if object {
                            i = self.key(i, &mut look)?;
                        }
                        continue;
                    }
                }
                Some(b't') => i = word(b, i, b"true")?,
                Some(b'f') => i = word(b, i, b"false")?,
                Some(b'n') => i = word(b, i, b"null")?,
                Some(b'-' | b'0'..=b'9') => i = number(b, i)?,
                _ => return Err(Flaw::NotJson),
            }
            // After a value: a comma and the next, or the end of what holds it.
            loop {
                let Some(&object) = self.open.last() else {
                    return Ok((i, look.flaw));
                };
                i = ws(b, i);
                match b.get(i) {
                    Some(b',') => {
                        i = ws(b, i + 1);
                        if object {
                            i = self.key(i, &mut look)?;
                        }
                        break;
                    }
                    Some(b'}') if object => {}
                    Some(b']') if !object => {}
                    _ => return Err(Flaw::NotJson),
                }
                self.close(&look);
                i += 1;
            }
        }
    }

    /// Closes the innermost open array or object.
    fn close(&mut self, look: &Look) {
        if self.open.pop() == Some(true)
            && look.on()
            && let Some(keys) = self.objects.pop()
        {
            self.keys.truncate(keys.from);
        }
    }

    /// Reads the key at `i` in the innermost open object, the colon and the whitespace after
    /// it: where its value starts.
    fn key(&mut self, i: usize, look: &mut Look) -> Result<usize, Flaw> {
        let text = self.text;
        let b = text.as_bytes();
        if b.get(i) != Some(&b'"') {
            return Err(Flaw::NotJson);
        }
        let s = string(b, i, look.on())?;
        if s.lone {
            look.flaw = Some(Flaw::NotJson);
        } else if look.on() {
            look.flaw = match key_text(text, i, s) {
                Some(key) => (!self.insert(key)).then_some(Flaw::Duplicate),
                None => Some(Flaw::NotJson),
            };
        }
        let colon = ws(b, s.end);
        if b.get(colon) != Some(&b':') {
            return Err(Flaw::NotJson);
        }
        Ok(ws(b, colon + 1))
    }

    /// Adds `key` to the innermost open object's keys; false when it has it already.
    fn insert(&mut self, key: Cow<'a, str>) -> bool {
        let Some(object) = self.objects.last_mut() else {
            // Every open object has its keys while the member is looked into.
            return true;
        };
        if let Some(spill) = &mut object.spill {
            return spill.insert(key);
        }
        let keys = &self.keys[object.from..];
        if keys.contains(&key) {
            return false;
        }
        if keys.len() < INLINE_KEYS {
            self.keys.push(key);
            return true;
        }
        let mut spill: HashSet<Cow<'a, str>> = self.keys.drain(object.from..).collect();
        spill.insert(key);
        object.spill = Some(spill);
        true
    }
}

/// One string literal that was read.
#[derive(Clone, Copy)]
struct Str {
    /// One past its closing quote.
    end: usize,
    /// Its body holds an escape.
    escaped: bool,
    /// It holds a `\u` escape of a lone surrogate (looked for when asked).
    lone: bool,
}

/// Reads the string literal whose opening quote is at `start`; with `surrogates`, also whether a
/// `\u` escape in it is a lone UTF-16 surrogate, which serde's decoding into a string refuses.
fn string(b: &[u8], start: usize, surrogates: bool) -> Result<Str, Flaw> {
    let mut i = start + 1;
    let mut s = Str {
        end: 0,
        escaped: false,
        lone: false,
    };
    loop {
        let at = json::string_stop(b, i).ok_or(Flaw::NotJson)?;
        match b[at] {
            b'"' => {
                s.end = at + 1;
                return Ok(s);
            }
            b'\\' => {}
            // A control byte, which must be escaped.
            _ => return Err(Flaw::NotJson),
        }
        match b.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i = at + 2,
            Some(b'u') => i = at + unicode(b, at, surrogates, &mut s.lone).ok_or(Flaw::NotJson)?,
            _ => return Err(Flaw::NotJson),
        }
        if !s.escaped {
            s.escaped = true;
            // A body with one escape often has many: read on 64 bytes a step, as the lexer does
            // (`walk/json.rs`, `lex_string`), or escape by escape where that reader stops (which
            // finds what is wrong).
            let mut lone = s.lone;
            if let Some(end) = json::body_end(b, i, |at| unicode(b, at, surrogates, &mut lone)) {
                s.end = end + 1;
                s.lone = lone;
                return Ok(s);
            }
        }
    }
}

/// How many bytes the `\u` escape at `at` covers: six, or twelve for a surrogate pair; `None`
/// without four hex digits. With `surrogates`, `lone` is set for a lone surrogate (a high one
/// with no low one right after it is alone, and what follows it is read as itself).
fn unicode(b: &[u8], at: usize, surrogates: bool, lone: &mut bool) -> Option<usize> {
    let unit = hex4(b, at + 2)?;
    if !surrogates {
        return Some(6);
    }
    match unit {
        0xDC00..=0xDFFF => *lone = true,
        0xD800..=0xDBFF => {
            if b.get(at + 6..at + 8) == Some(b"\\u")
                && hex4(b, at + 8).is_some_and(|low| (0xDC00..=0xDFFF).contains(&low))
            {
                return Some(12);
            }
            *lone = true;
        }
        _ => {}
    }
    Some(6)
}

/// The four hex digits at `at`, if there are four.
fn hex4(b: &[u8], at: usize) -> Option<u16> {
    let h = b.get(at..at + 4)?;
    h.iter().all(u8::is_ascii_hexdigit).then(|| json::hex4(h))
}

/// The text of the key literal `s` that starts at `start`: borrowed unless it has escapes,
/// `None` when its escapes decode to no string (a lone surrogate).
fn key_text(text: &str, start: usize, s: Str) -> Option<Cow<'_, str>> {
    if s.escaped {
        serde_json::from_str::<String>(&text[start..s.end])
            .ok()
            .map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(&text[start + 1..s.end - 1]))
    }
}

/// Past `w` (`true`, `false` or `null`) at `i`.
fn word(b: &[u8], i: usize, w: &[u8]) -> Result<usize, Flaw> {
    if b.get(i..i + w.len()) == Some(w) {
        Ok(i + w.len())
    } else {
        Err(Flaw::NotJson)
    }
}

/// Past the number at `i`.
fn number(b: &[u8], mut i: usize) -> Result<usize, Flaw> {
    let digits = |i: &mut usize| {
        let from = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > from
    };
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        // One leading zero, and no digit after it.
        Some(b'0') => {
            i += 1;
            if b.get(i).is_some_and(u8::is_ascii_digit) {
                return Err(Flaw::NotJson);
            }
        }
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return Err(Flaw::NotJson),
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return Err(Flaw::NotJson);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return Err(Flaw::NotJson);
        }
    }
    Ok(i)
}
