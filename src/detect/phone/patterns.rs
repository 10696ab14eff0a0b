//! The regex sources the phone recognizer's automata are built from, shared by `build.rs`
//! (which compiles them into DFAs at compile time) and the recognizer (which compiles the
//! few it still needs with captures at start). One definition, so the compiled tables and
//! the run-time rules cannot drift apart.

/// `^(?:pattern)$` for a metadata pattern.
pub(crate) fn anchored(pattern: &str) -> String {
    format!("^(?:{pattern})$")
}

/// The pattern that strips a region's national prefix for parsing: its
/// `national_prefix_for_parsing`, or else its escaped national prefix.
pub(crate) fn prefix_source(
    prefix_for_parsing: Option<&str>,
    national_prefix: Option<&str>,
) -> Option<String> {
    prefix_for_parsing
        .map(String::from)
        .or_else(|| national_prefix.map(escape_digits))
}

/// What a national-form number of a region can look like: its optional prefix, then a valid
/// number of one of its types; with a transform rule, also anything after the prefix (the
/// exact check follows). `prefix` is [`prefix_source`] when it compiles. Compiled by
/// `build.rs`; read by the tests' oracle.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn shape<'a>(
    prefix: Option<&str>,
    types: impl Iterator<Item = &'a str>,
    has_transform: bool,
) -> String {
    let types: Vec<String> = types.map(|t| format!("(?:{t})")).collect();
    let mut shape = format!("^(?:{})?(?:{})$", prefix.unwrap_or(""), types.join("|"));
    if has_transform && let Some(p) = prefix {
        shape = format!("{shape}|^(?:{p})[0-9]*$");
    }
    shape
}

/// A national prefix as a regex literal (`regex::escape` of the few characters national
/// prefixes use; they are digits in practice).
fn escape_digits(prefix: &str) -> String {
    let mut out = String::with_capacity(prefix.len());
    for c in prefix.chars() {
        if !c.is_ascii_alphanumeric() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
