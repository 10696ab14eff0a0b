//! The audit key: where it comes from and the two MACs it makes.
//!
//! The key material is read from the environment variable [`KEY_ENV`] (`MCP_VEIL_AUDIT_KEY`) or,
//! when that is unset, from the file named by `audit.key_file`; never from the YAML itself. It is
//! taken as bytes (surrounding whitespace trimmed) and must be at least [`MIN_KEY_LEN`] bytes
//! long: `openssl rand -hex 32 > audit.key` makes a good one.
//!
//! Two independent HMAC-SHA256 keys are derived from the material (HMAC of a fixed label), one
//! for the line chain and one for value fingerprints, so neither use can be turned against the
//! other. [`AuditKey`] has a redacted `Debug`, no `Display` and no accessor for the material; the
//! material buffer is overwritten once the keys are derived (best effort: `ring` holds the
//! derived keys and does not expose them).

use std::borrow::Cow;
use std::fmt;
use std::path::Path;

use ring::hmac;

use crate::detect::Kind;
use crate::vault::normalize;

/// The environment variable that holds the audit key.
pub const KEY_ENV: &str = "MCP_VEIL_AUDIT_KEY";

/// The shortest key material accepted, in bytes.
pub const MIN_KEY_LEN: usize = 32;

/// Hex characters kept from a value fingerprint (64 bits).
pub const FINGERPRINT_HEX: usize = 16;

/// Why no key could be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// The key file could not be read.
    #[error("cannot read audit key file {path}: {source}")]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The key material is shorter than [`MIN_KEY_LEN`] bytes.
    #[error(
        "audit key from {0} is too short: expected at least 32 bytes (try `openssl rand -hex 32`)"
    )]
    TooShort(&'static str),
}

/// The audit key (chain and fingerprint keys derived from the material).
pub struct AuditKey {
    chain: hmac::Key,
    fingerprint: hmac::Key,
}

impl fmt::Debug for AuditKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AuditKey(<redacted>)")
    }
}

impl AuditKey {
    /// Derives the keys from raw material (at least [`MIN_KEY_LEN`] bytes after trimming).
    pub fn from_material(material: &[u8]) -> Result<AuditKey, KeyError> {
        AuditKey::derive(material, "the key material")
    }

    fn derive(material: &[u8], source: &'static str) -> Result<AuditKey, KeyError> {
        let trimmed = material.trim_ascii();
        if trimmed.len() < MIN_KEY_LEN {
            return Err(KeyError::TooShort(source));
        }
        let root = hmac::Key::new(hmac::HMAC_SHA256, trimmed);
        let chain = hmac::sign(&root, b"mcp-veil audit chain v1");
        let fingerprint = hmac::sign(&root, b"mcp-veil audit fingerprint v1");
        Ok(AuditKey {
            chain: hmac::Key::new(hmac::HMAC_SHA256, chain.as_ref()),
            fingerprint: hmac::Key::new(hmac::HMAC_SHA256, fingerprint.as_ref()),
        })
    }

    /// Loads the key from `MCP_VEIL_AUDIT_KEY`, else from `key_file`; `Ok(None)` if neither is
    /// set.
    pub fn load(key_file: Option<&Path>) -> Result<Option<AuditKey>, KeyError> {
        if let Some(mut material) = std::env::var_os(KEY_ENV).map(|v| v.into_encoded_bytes())
            && !material.trim_ascii().is_empty()
        {
            let key = AuditKey::derive(&material, KEY_ENV);
            material.fill(0);
            return key.map(Some);
        }
        key_file.map(AuditKey::from_file).transpose()
    }

    /// Loads the key from a file (for example `--key-file` on the command line).
    pub fn from_file(path: &Path) -> Result<AuditKey, KeyError> {
        let mut material = std::fs::read(path).map_err(|source| KeyError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let key = AuditKey::derive(&material, "the key file");
        material.fill(0);
        key
    }

    /// The chain MAC of one line body (which includes the previous line's MAC), 64 hex chars.
    pub(crate) fn chain_mac(&self, body: &[u8]) -> String {
        hex(hmac::sign(&self.chain, body).as_ref())
    }

    /// The keyed fingerprint of an already normalised value of `kind`.
    fn fingerprint_normalized(&self, kind: &Kind, normalized: &str) -> String {
        let mut cx = hmac::Context::with_key(&self.fingerprint);
        cx.update(kind.as_str().as_bytes());
        cx.update(&[0]);
        cx.update(normalized.as_bytes());
        let mut s = hex(cx.sign().as_ref());
        s.truncate(FINGERPRINT_HEX);
        s
    }

    /// The keyed fingerprint of a value of `kind`: HMAC over the kind name and the value as
    /// [`normalize`]d by the vault (so every surface form of one value has one fingerprint).
    /// Phones without a canonical form are brought to E.164 when they parse (see
    /// [`phone_canonical`]) so that a restored value fingerprints like the tokenized one.
    pub fn fingerprint(&self, kind: &Kind, value: &str, canonical: Option<&str>) -> String {
        self.fingerprint_in(kind, value, canonical, DEFAULT_REGIONS)
    }

    /// [`AuditKey::fingerprint`] with the regions phones in national form are read in (set
    /// them to `detect.phone_regions` so restored phones fingerprint like tokenized ones).
    pub fn fingerprint_in<R: AsRef<str>>(
        &self,
        kind: &Kind,
        value: &str,
        canonical: Option<&str>,
        regions: &[R],
    ) -> String {
        let phone;
        let canonical = match canonical {
            None if *kind == Kind::Phone => {
                phone = phone_canonical(value, regions);
                phone.as_deref()
            }
            c => c,
        };
        self.fingerprint_normalized(kind, &normalize(kind, value, canonical))
    }

    /// Every fingerprint `value` could have as `kind`: one per plausible canonical form (a
    /// phone in each region), for `audit find`.
    pub fn fingerprint_candidates(
        &self,
        kind: &Kind,
        value: &str,
        regions: &[&str],
    ) -> Vec<String> {
        let mut forms: Vec<Cow<'_, str>> = vec![normalize(kind, value, None)];
        if *kind == Kind::Phone {
            for region in regions {
                if let Some(c) = phone_canonical(value, &[region]) {
                    forms.push(Cow::Owned(c));
                }
            }
        }
        let mut out: Vec<String> = Vec::new();
        for f in forms {
            let fp = self.fingerprint_normalized(kind, &f);
            if !out.contains(&fp) {
                out.push(fp);
            }
        }
        out
    }
}

/// The regions tried, in order, for phones in national form (the default `detect.phone_regions`).
pub const DEFAULT_REGIONS: &[&str] = &["US", "GB", "DE", "FR", "IN", "BR", "CA", "AU", "CN", "JP"];

/// The E.164 form of a phone number: international form first, then national form in each of
/// `regions` in order; `None` if it is not a valid number anywhere.
pub fn phone_canonical<R: AsRef<str>>(value: &str, regions: &[R]) -> Option<String> {
    use phonenumber::{Mode, country};
    let try_parse = |region: Option<country::Id>| {
        phonenumber::parse(region, value)
            .ok()
            .filter(phonenumber::is_valid)
            .map(|n| n.format().mode(Mode::E164).to_string())
    };
    if value.trim_start().starts_with('+') {
        return try_parse(None);
    }
    regions
        .iter()
        .filter_map(|r| r.as_ref().parse::<country::Id>().ok())
        .find_map(|r| try_parse(Some(r)))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> AuditKey {
        AuditKey::from_material(b"0123456789abcdef0123456789abcdef").unwrap()
    }

    #[test]
    fn short_keys_are_refused() {
        assert!(matches!(
            AuditKey::from_material(b"  short  "),
            Err(KeyError::TooShort(_))
        ));
    }

    #[test]
    fn debug_is_redacted() {
        let shown = format!("{:?}", key());
        assert_eq!(shown, "AuditKey(<redacted>)");
    }

    #[test]
    fn fingerprints_follow_normalisation_and_kind() {
        let k = key();
        let a = k.fingerprint(&Kind::Email, "Ann@X.io", None);
        assert_eq!(a.len(), FINGERPRINT_HEX);
        assert_eq!(a, k.fingerprint(&Kind::Email, "ann@x.io", None));
        assert_ne!(a, k.fingerprint(&Kind::Name, "ann@x.io", None));
        let other = AuditKey::from_material(b"another key another key another key").unwrap();
        assert_ne!(a, other.fingerprint(&Kind::Email, "ann@x.io", None));
    }

    #[test]
    fn phones_fingerprint_by_e164() {
        let k = key();
        let tokenized = k.fingerprint(&Kind::Phone, "(650) 253-0000", Some("+16502530000"));
        assert_eq!(
            tokenized,
            k.fingerprint(&Kind::Phone, "(650) 253-0000", None)
        );
        assert_eq!(
            tokenized,
            k.fingerprint(&Kind::Phone, "+1 650 253 0000", None)
        );
        assert!(
            k.fingerprint_candidates(&Kind::Phone, "650.253.0000", DEFAULT_REGIONS)
                .contains(&tokenized)
        );
    }
}
