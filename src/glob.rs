//! The two glob dialects of the rules: `server/name` globs and argument-path globs.
//!
//! Both are compiled once, when the policy is built, into literal pieces; matching is a prefix
//! check, a suffix check and an in-order substring search (`str::find`), with no allocation and
//! no backtracking. There are no character classes, no `?` and no escapes: tool names, resource
//! URIs and argument names do not need them, and a smaller language is easier to read in review.
//!
//! # `server/name` globs (`from:`, `to:`, `tools[].match`)
//!
//! A name is `server/name` where `server` is a configured server name (never containing `/`)
//! and `name` a tool name or a resource URI (which may contain `/`). A glob is split at its
//! first `/` into a server part and a name part, matched separately:
//!
//! - `*` matches any run of characters (possibly empty) within its part. In the name part that
//!   includes `/`, so `crm/*` covers the resource `crm/file:///contacts/42` as well as the tool
//!   `crm/get_contact`. A `*` never crosses the server/name boundary: `c*` in `c*/x` matches the
//!   server only.
//! - A glob without `/` names servers only: `crm` is `crm/*`, `*` is every server and name.
//! - `**` is accepted only as the whole glob and means everything (the same as `*`); anywhere
//!   else it is an error, since `*` already matches any run within a part.
//! - Everything else is literal and case-sensitive. Empty parts (`/x`, `crm/`) are errors.
//!
//! # Argument-path globs (`args:`)
//!
//! An argument path is the dotted JSON path of the string that holds a token inside the tool's
//! arguments, as [`crate::walk`] reports it: `to`, `cc.0`, `message.recipients.2.email`.
//! A glob is dotted the same way:
//!
//! - `*` within a segment matches any run of characters of that segment (`cc.*`, `*_email`);
//! - a segment `**` matches any number of segments, including none (`**.email`); `**` alone
//!   matches every path, even the empty one (a document that is not JSON);
//! - a glob also matches every path **below** what it matches: `cc` covers `cc.0` and
//!   `cc.0.address`, so listing an argument covers whatever it holds.
//!
//! Argument names that themselves contain `.` cannot be told apart from nesting; such a name
//! is matched by `*` in its place.

use std::fmt;

/// Why a glob was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GlobError {
    /// The glob is empty.
    #[error("empty pattern: expected `server/name`, `server` or `*`")]
    Empty,
    /// A part before or after `/` is empty.
    #[error("empty {0} part in `{1}`: expected `server/name` with both parts non-empty")]
    EmptyPart(&'static str, String),
    /// `**` appears somewhere other than as the whole glob (or a whole path segment).
    #[error("`**` in `{0}`: {1}")]
    DoubleStar(String, &'static str),
    /// An argument path has an empty segment (`a..b`, `.a`, `a.`).
    #[error("empty segment in argument path `{0}`: expected names separated by single dots")]
    EmptySegment(String),
}

/// One `*`-glob over a single string: literal pieces separated by `*`.
#[derive(Clone, PartialEq, Eq)]
struct Wild {
    /// The literal pieces; `pieces.len() - 1` stars sit between them.
    pieces: Box<[Box<str>]>,
}

impl Wild {
    fn new(pattern: &str) -> Wild {
        Wild {
            pieces: pattern.split('*').map(Box::from).collect(),
        }
    }

    fn is_any(&self) -> bool {
        self.pieces.len() == 2 && self.pieces.iter().all(|p| p.is_empty())
    }

    fn matches(&self, text: &str) -> bool {
        let pieces = &self.pieces;
        if pieces.len() == 1 {
            return &*pieces[0] == text;
        }
        let first = &*pieces[0];
        let last = &*pieces[pieces.len() - 1];
        if text.len() < first.len() + last.len()
            || !text.starts_with(first)
            || !text.ends_with(last)
        {
            return false;
        }
        let mut rest = &text[first.len()..text.len() - last.len()];
        for piece in &pieces[1..pieces.len() - 1] {
            match rest.find(&**piece) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        true
    }
}

impl fmt::Display for Wild {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.pieces.iter().enumerate() {
            if i > 0 {
                f.write_str("*")?;
            }
            f.write_str(p)?;
        }
        Ok(())
    }
}

/// A compiled `server/name` glob.
#[derive(Clone, PartialEq, Eq)]
pub struct NameGlob {
    server: Wild,
    /// `None`: any name (the glob had no `/`, or its name part is `*`).
    name: Option<Wild>,
}

impl NameGlob {
    /// Compiles a glob (see the module documentation for the language).
    pub fn new(pattern: &str) -> Result<NameGlob, GlobError> {
        if pattern.is_empty() {
            return Err(GlobError::Empty);
        }
        if pattern == "**" {
            return Ok(NameGlob::any());
        }
        if pattern.contains("**") {
            return Err(GlobError::DoubleStar(
                pattern.to_string(),
                "expected `**` alone (everything); use `*` to match any run within the server or the name",
            ));
        }
        let (server, name) = match pattern.split_once('/') {
            Some((s, n)) => (s, Some(n)),
            None => (pattern, None),
        };
        if server.is_empty() {
            return Err(GlobError::EmptyPart("server", pattern.to_string()));
        }
        if name == Some("") {
            return Err(GlobError::EmptyPart("name", pattern.to_string()));
        }
        let name = name.map(Wild::new).filter(|w| !w.is_any());
        Ok(NameGlob {
            server: Wild::new(server),
            name,
        })
    }

    /// The glob that matches everything.
    pub fn any() -> NameGlob {
        NameGlob {
            server: Wild::new("*"),
            name: None,
        }
    }

    /// Whether the glob matches `server` + `name`.
    pub fn matches(&self, server: &str, name: &str) -> bool {
        self.server.matches(server) && self.name.as_ref().is_none_or(|n| n.matches(name))
    }

    /// Whether the glob matches a joined `server/name` (split at the first `/`).
    pub fn matches_joined(&self, joined: &str) -> bool {
        let (server, name) = joined.split_once('/').unwrap_or((joined, ""));
        self.matches(server, name)
    }
}

impl fmt::Display for NameGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            Some(n) => write!(f, "{}/{}", self.server, n),
            None => write!(f, "{}/*", self.server),
        }
    }
}

impl fmt::Debug for NameGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NameGlob({self})")
    }
}

#[derive(Clone, PartialEq, Eq)]
enum Seg {
    /// `**`: any number of segments.
    Any,
    /// A `*`-glob over one segment.
    One(Wild),
}

/// A compiled argument-path glob.
#[derive(Clone, PartialEq, Eq)]
pub struct PathGlob {
    segs: Box<[Seg]>,
}

impl PathGlob {
    /// Compiles a dotted argument-path glob (see the module documentation).
    pub fn new(pattern: &str) -> Result<PathGlob, GlobError> {
        if pattern.is_empty() {
            return Err(GlobError::Empty);
        }
        let mut segs = Vec::new();
        for seg in pattern.split('.') {
            if seg.is_empty() {
                return Err(GlobError::EmptySegment(pattern.to_string()));
            }
            if seg == "**" {
                if segs.last() != Some(&Seg::Any) {
                    segs.push(Seg::Any);
                }
            } else if seg.contains("**") {
                return Err(GlobError::DoubleStar(
                    pattern.to_string(),
                    "expected `**` as a whole segment (any number of segments)",
                ));
            } else {
                segs.push(Seg::One(Wild::new(seg)));
            }
        }
        Ok(PathGlob { segs: segs.into() })
    }

    /// Whether the glob matches `path` or one of its ancestors (`cc` matches `cc.0`).
    pub fn matches(&self, path: &str) -> bool {
        // Segments are walked without collecting them: `rest` is what is left of the path.
        match_segs(&self.segs, path)
    }
}

/// Matches `segs` against a prefix (whole segments) of `path`.
fn match_segs(segs: &[Seg], path: &str) -> bool {
    let Some((first, rest_segs)) = segs.split_first() else {
        // Every glob segment consumed: the glob matched `path`'s ancestor (or path itself).
        return true;
    };
    match first {
        Seg::Any => {
            // Try consuming 0, 1, 2 ... whole segments.
            if match_segs(rest_segs, path) {
                return true;
            }
            let mut rest = path;
            while let Some((_, tail)) = rest.split_once('.') {
                if match_segs(rest_segs, tail) {
                    return true;
                }
                rest = tail;
            }
            false
        }
        Seg::One(w) => {
            if path.is_empty() {
                return false;
            }
            let (head, tail) = path.split_once('.').unwrap_or((path, ""));
            w.matches(head) && (rest_segs.is_empty() || match_segs(rest_segs, tail))
        }
    }
}

impl fmt::Display for PathGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.segs.iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            match s {
                Seg::Any => f.write_str("**")?,
                Seg::One(w) => write!(f, "{w}")?,
            }
        }
        Ok(())
    }
}

impl fmt::Debug for PathGlob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PathGlob({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(p: &str) -> NameGlob {
        NameGlob::new(p).unwrap()
    }

    #[test]
    fn star_within_the_name_part_covers_resource_uris() {
        assert!(g("crm/*").matches("crm", "get_contact"));
        assert!(g("crm/*").matches("crm", "file:///contacts/42"));
        assert!(!g("crm/*").matches("crm2", "get_contact"));
        assert!(g("crm").matches("crm", "anything/at/all"));
    }

    #[test]
    fn star_never_crosses_the_server_boundary() {
        assert!(g("c*/send").matches("crm", "send"));
        // `c*` is the server part only: `crm/x/send` is server `crm`, name `x/send`.
        assert!(!g("c*/send").matches("crm", "x/send"));
        assert!(g("*/send_*").matches("mail", "send_email"));
        assert!(!g("*/send_*").matches("mail", "draft_email"));
    }

    #[test]
    fn literal_and_infix_pieces() {
        assert!(g("mail/send_email").matches("mail", "send_email"));
        assert!(!g("mail/send_email").matches("mail", "send_emails"));
        assert!(!g("mail/send_email").matches("Mail", "send_email"));
        assert!(g("*/*mail*").matches("x", "gmail_send"));
        assert!(g("w*b/a*b*c").matches("web", "aXbYc"));
        assert!(!g("w*b/a*b*c").matches("web", "acb"));
        // Overlapping prefix and suffix do not double count.
        assert!(!g("s/ab*ba").matches("s", "aba"));
        assert!(g("s/ab*ba").matches("s", "abba"));
    }

    #[test]
    fn double_star_only_whole() {
        assert!(g("**").matches("a", "b/c"));
        assert!(g("*").matches("a", "b/c"));
        assert!(matches!(
            NameGlob::new("crm/**"),
            Err(GlobError::DoubleStar(..))
        ));
        assert!(matches!(NameGlob::new(""), Err(GlobError::Empty)));
        assert!(matches!(
            NameGlob::new("/x"),
            Err(GlobError::EmptyPart("server", _))
        ));
        assert!(matches!(
            NameGlob::new("x/"),
            Err(GlobError::EmptyPart("name", _))
        ));
    }

    #[test]
    fn joined_and_display() {
        assert!(g("crm/*").matches_joined("crm/file:///a/b"));
        assert_eq!(g("crm").to_string(), "crm/*");
        assert_eq!(g("**").to_string(), "*/*");
        assert_eq!(g("mail/send_*").to_string(), "mail/send_*");
    }

    fn p(s: &str) -> PathGlob {
        PathGlob::new(s).unwrap()
    }

    #[test]
    fn arg_paths_cover_descendants() {
        assert!(p("to").matches("to"));
        assert!(p("cc").matches("cc.0"));
        assert!(p("cc").matches("cc.0.address"));
        assert!(!p("cc").matches("ccx"));
        assert!(!p("cc").matches("bcc"));
        assert!(!p("to").matches(""));
    }

    #[test]
    fn arg_path_stars() {
        assert!(p("recipients.*.email").matches("recipients.3.email"));
        assert!(!p("recipients.*.email").matches("recipients.3.name"));
        assert!(p("*_email").matches("reply_email"));
        assert!(p("**.email").matches("a.b.c.email"));
        assert!(p("**.email").matches("email"));
        assert!(!p("**.email").matches("a.b.name"));
        assert!(p("a.**.z").matches("a.z"));
        assert!(p("a.**.z").matches("a.b.c.z.0"));
        assert!(p("**").matches("anything.at.all"));
    }

    #[test]
    fn arg_path_errors() {
        assert!(matches!(
            PathGlob::new("a..b"),
            Err(GlobError::EmptySegment(_))
        ));
        assert!(matches!(
            PathGlob::new("a**"),
            Err(GlobError::DoubleStar(..))
        ));
        assert_eq!(p("a.**.**.b").to_string(), "a.**.b");
    }

    proptest::proptest! {
        /// The piece matcher agrees with a regex built from the same glob.
        #[test]
        fn wild_agrees_with_a_regex(pattern in "[ab*]{0,8}", text in "[ab]{0,10}") {
            let re = regex::Regex::new(&format!(
                "^{}$",
                pattern.split('*').map(regex::escape).collect::<Vec<_>>().join(".*")
            ))
            .unwrap();
            proptest::prop_assert_eq!(Wild::new(&pattern).matches(&text), re.is_match(&text));
        }

        /// Path globs agree with a regex over dotted segments, descendants included.
        #[test]
        fn path_glob_agrees_with_a_regex(
            pattern in proptest::collection::vec("(a|b|\\*|a\\*|\\*\\*)", 1..4),
            path in proptest::collection::vec("(a|b|ab|ba)", 0..5),
        ) {
            let glob = pattern.join(".");
            let path = path.join(".");
            // Reference: match `.` + path, each segment introduced by its dot.
            let mut re = String::from("^");
            for seg in &pattern {
                if seg == "**" {
                    re.push_str("(?:\\.[^.]+)*");
                } else {
                    re.push_str("\\.");
                    re.push_str(&seg.split('*').map(regex::escape).collect::<Vec<_>>().join("[^.]*"));
                }
            }
            re.push_str("(?:\\..*)?$");
            let re = regex::Regex::new(&re).unwrap();
            let dotted = if path.is_empty() { String::new() } else { format!(".{path}") };
            let want = re.is_match(&dotted);
            proptest::prop_assert_eq!(PathGlob::new(&glob).unwrap().matches(&path), want, "{} {} {}", glob, path, re);
        }
    }
}
