//! A wrapper for raw personal data.
//!
//! Every value the layer detects is raw PII until it is replaced by a token. Holding it in
//! [`Sensitive`] makes the unsafe path hard to write by accident: `Debug` prints
//! `Sensitive(<redacted>)`, there is no `Display`, and the inner value is only reachable through
//! an explicitly named accessor ([`Sensitive::expose`]). Logs, errors and panic messages that
//! format a `Sensitive` therefore never carry the value.

use std::fmt;

/// A raw value (an email address, a phone number, a name ...) that must never be logged.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Sensitive<T>(T);

impl<T> Sensitive<T> {
    /// Wraps a raw value.
    pub fn new(value: T) -> Self {
        Sensitive(value)
    }

    /// The raw value. Call sites are easy to audit with a search for `expose`.
    pub fn expose(&self) -> &T {
        &self.0
    }

    /// The raw value, to change it in place (append to a buffer of values).
    pub fn expose_mut(&mut self) -> &mut T {
        &mut self.0
    }

    /// Unwraps the raw value.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> fmt::Debug for Sensitive<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sensitive(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_value() {
        let v = Sensitive::new("alice@example.com".to_string());
        let shown = format!("{v:?} {v:#?}");
        assert!(!shown.contains("alice"));
        assert_eq!(v.expose(), "alice@example.com");
    }
}
