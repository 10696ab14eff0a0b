//! The vault key: how values are sealed and looked up when they leave the process.
//!
//! A shared backend (Redis) must never hold a raw value, nor anything that lets whoever reads the
//! store confirm a guess (a plain hash of an email address is a lookup table away from the
//! address). [`VaultKey`] does the two jobs that make that possible:
//!
//! - **Fingerprints.** A value is found by `HMAC-SHA256(fp_key, kind ‖ 0 ‖ normal form)` (see
//!   [`super::normalize`]), so equal values meet without the store ever seeing them, and a guess
//!   can only be checked by someone who holds the key.
//! - **Sealing.** An entry (value, origin, creation time) is encrypted with AES-256-GCM under a
//!   fresh random 96-bit nonce. The associated data binds the ciphertext to its session and
//!   token, so an entry copied to another token or session fails authentication instead of
//!   restoring the wrong value.
//!
//! Both subkeys (and a short key-check value stored beside each session, so that a replica
//! started with the wrong key fails loudly instead of minting duplicate tokens) are derived with
//! HKDF-SHA256 from one 32-byte master key, read from [`KEY_ENV`] as 64 hex characters.
//!
//! The key never appears in `Debug` output or errors; the decoded master bytes are zeroed after
//! derivation. With random nonces one key should seal fewer than 2^32 entries; rotate it (new
//! key, fresh sessions) long before that.

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ring::rand::{SecureRandom, SystemRandom};
use ring::{aead, hkdf, hmac};
use zeroize::Zeroizing;

use super::{SessionId, VaultError};
use crate::kind::Kind;
use crate::sensitive::Sensitive;

/// The environment variable that holds the vault key: 64 hex characters (32 bytes).
pub const KEY_ENV: &str = "MCP_VEIL_VAULT_KEY";

/// Format version of a sealed entry (its first byte).
const SEALED_V1: u8 = 1;
const NONCE_LEN: usize = aead::NONCE_LEN;
const TAG_LEN: usize = 16;
const HKDF_SALT: &[u8] = b"mcp-veil/vault/v1";
const AAD_PREFIX: &[u8] = b"mcp-veil/vault/entry/v1";

/// The secret that seals vault entries and keys their fingerprints. Its `Debug` is redacted and
/// it cannot be cloned or printed.
pub struct VaultKey {
    seal: aead::LessSafeKey,
    fingerprint: hmac::Key,
    check: String,
    rng: SystemRandom,
}

/// A value fingerprint: a keyed hash, safe to store.
pub(crate) type Fingerprint = [u8; 32];

/// An entry after opening.
pub(crate) struct Opened {
    pub(crate) value: Sensitive<String>,
    pub(crate) origin: String,
    pub(crate) created: SystemTime,
}

/// HKDF output length for the key-check value.
struct CheckLen;

impl hkdf::KeyType for CheckLen {
    fn len(&self) -> usize {
        8
    }
}

impl VaultKey {
    /// The key from [`KEY_ENV`]; a clear error when it is missing or malformed.
    pub fn from_env() -> Result<VaultKey, VaultError> {
        match std::env::var(KEY_ENV) {
            Ok(text) => VaultKey::from_hex(Zeroizing::new(text).as_str()),
            Err(std::env::VarError::NotPresent) => Err(VaultError::Config(format!(
                "{KEY_ENV} is not set: the redis vault needs a 32-byte key as 64 hex characters \
                 (for example from `openssl rand -hex 32`)"
            ))),
            Err(std::env::VarError::NotUnicode(_)) => Err(VaultError::Config(format!(
                "{KEY_ENV} is not valid text: it must be 64 hex characters"
            ))),
        }
    }

    /// A key from 64 hex characters (surrounding whitespace ignored). Errors never echo the
    /// input.
    pub fn from_hex(text: &str) -> Result<VaultKey, VaultError> {
        let text = text.trim();
        if text.len() != 64 {
            return Err(VaultError::Config(format!(
                "{KEY_ENV} must be 64 hex characters (32 bytes); it has {} characters",
                text.chars().count()
            )));
        }
        let mut master = Zeroizing::new([0u8; 32]);
        for (byte, pair) in master.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
            match (hex_digit(pair[0]), hex_digit(pair[1])) {
                (Some(hi), Some(lo)) => *byte = hi << 4 | lo,
                _ => {
                    return Err(VaultError::Config(format!(
                        "{KEY_ENV} must be 64 hex characters; it contains a character that is \
                         not 0-9 or a-f"
                    )));
                }
            }
        }
        Ok(VaultKey::from_bytes(&master))
    }

    /// A key from 32 raw bytes.
    pub fn from_bytes(master: &[u8; 32]) -> VaultKey {
        let prk = hkdf::Salt::new(hkdf::HKDF_SHA256, HKDF_SALT).extract(master);
        // `expand` only fails when the requested length exceeds 255 hash lengths; ours are
        // fixed and tiny.
        let seal_key: aead::UnboundKey = prk
            .expand(&[b"seal: aes-256-gcm"], &aead::AES_256_GCM)
            .expect("HKDF can produce a 32-byte key")
            .into();
        let fingerprint: hmac::Key = prk
            .expand(&[b"fingerprint: hmac-sha256"], hmac::HMAC_SHA256)
            .expect("HKDF can produce a 32-byte key")
            .into();
        let mut check = [0u8; 8];
        prk.expand(&[b"key check"], CheckLen)
            .and_then(|okm| okm.fill(&mut check))
            .expect("HKDF can produce 8 bytes");
        VaultKey {
            seal: aead::LessSafeKey::new(seal_key),
            fingerprint,
            check: check.iter().map(|b| format!("{b:02x}")).collect(),
            rng: SystemRandom::new(),
        }
    }

    /// The keyed fingerprint of a value's normal form.
    pub(crate) fn fingerprint(&self, kind: &Kind, normal: &str) -> Fingerprint {
        let mut ctx = hmac::Context::with_key(&self.fingerprint);
        ctx.update(kind.as_str().as_bytes());
        ctx.update(&[0]);
        ctx.update(normal.as_bytes());
        let tag = ctx.sign();
        let mut out = [0u8; 32];
        out.copy_from_slice(tag.as_ref());
        out
    }

    /// A short public value derived from the key (16 hex characters) that tells two keys apart
    /// without revealing either.
    pub(crate) fn check_value(&self) -> &str {
        &self.check
    }

    /// Seals one entry for `token` (`EMAIL_3`) in `session`.
    pub(crate) fn seal(
        &self,
        session: &SessionId,
        token: &str,
        origin: &str,
        created: SystemTime,
        value: &str,
    ) -> Result<Vec<u8>, VaultError> {
        let millis = created
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        let mut out = Vec::with_capacity(1 + NONCE_LEN + 12 + origin.len() + value.len() + TAG_LEN);
        out.push(SEALED_V1);
        let mut nonce = [0u8; NONCE_LEN];
        self.rng
            .fill(&mut nonce)
            .map_err(|_| VaultError::Unavailable("the system random source failed".into()))?;
        out.extend_from_slice(&nonce);
        let body = out.len();
        out.extend_from_slice(&millis.to_be_bytes());
        out.extend_from_slice(&(origin.len() as u32).to_be_bytes());
        out.extend_from_slice(origin.as_bytes());
        out.extend_from_slice(value.as_bytes());
        let tag = self
            .seal
            .seal_in_place_separate_tag(
                aead::Nonce::assume_unique_for_key(nonce),
                aead::Aad::from(aad(session, token)),
                &mut out[body..],
            )
            .map_err(|_| VaultError::Corrupt(format!("entry [{token}] could not be sealed")))?;
        out.extend_from_slice(tag.as_ref());
        Ok(out)
    }

    /// Opens an entry sealed by [`VaultKey::seal`] for the same session and token.
    pub(crate) fn open(
        &self,
        session: &SessionId,
        token: &str,
        sealed: &[u8],
    ) -> Result<Opened, VaultError> {
        let malformed = || VaultError::Corrupt(format!("entry [{token}] is malformed"));
        if sealed.len() < 1 + NONCE_LEN + TAG_LEN || sealed[0] != SEALED_V1 {
            return Err(malformed());
        }
        let mut nonce = [0u8; NONCE_LEN];
        nonce.copy_from_slice(&sealed[1..1 + NONCE_LEN]);
        let mut buf = Zeroizing::new(sealed[1 + NONCE_LEN..].to_vec());
        let plain = self
            .seal
            .open_in_place(
                aead::Nonce::assume_unique_for_key(nonce),
                aead::Aad::from(aad(session, token)),
                &mut buf,
            )
            .map_err(|_| {
                VaultError::Corrupt(format!(
                    "entry [{token}] failed authentication: it was sealed with another \
                     {KEY_ENV}, for another session or token, or altered"
                ))
            })?;
        if plain.len() < 12 {
            return Err(malformed());
        }
        let millis = u64::from_be_bytes(plain[..8].try_into().expect("8 bytes"));
        let origin_len = u32::from_be_bytes(plain[8..12].try_into().expect("4 bytes")) as usize;
        let rest = &plain[12..];
        if rest.len() < origin_len {
            return Err(malformed());
        }
        let (origin, value) = rest.split_at(origin_len);
        let origin = std::str::from_utf8(origin).map_err(|_| malformed())?;
        let value = std::str::from_utf8(value).map_err(|_| malformed())?;
        Ok(Opened {
            value: Sensitive::new(value.to_string()),
            origin: origin.to_string(),
            created: UNIX_EPOCH + Duration::from_millis(millis),
        })
    }
}

impl fmt::Debug for VaultKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("VaultKey(<redacted>)")
    }
}

/// The associated data: a fixed label, the session (length-prefixed) and the token.
fn aad(session: &SessionId, token: &str) -> Vec<u8> {
    let s = session.as_str().as_bytes();
    let mut aad = Vec::with_capacity(AAD_PREFIX.len() + 4 + s.len() + token.len());
    aad.extend_from_slice(AAD_PREFIX);
    aad.extend_from_slice(&(s.len() as u32).to_be_bytes());
    aad.extend_from_slice(s);
    aad.extend_from_slice(token.as_bytes());
    aad
}

fn hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    fn key() -> VaultKey {
        VaultKey::from_hex(HEX).unwrap()
    }

    #[test]
    fn seal_and_open_round_trip() {
        let k = key();
        let s = SessionId::new("s1");
        let when = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
        let sealed = k.seal(&s, "EMAIL_1", "crm/list", when, "ann@x.io").unwrap();
        let opened = k.open(&s, "EMAIL_1", &sealed).unwrap();
        assert_eq!(opened.value.expose(), "ann@x.io");
        assert_eq!(opened.origin, "crm/list");
        assert_eq!(opened.created, when);
        assert!(!sealed.windows(8).any(|w| w == b"ann@x.io"));
    }

    #[test]
    fn nonces_are_fresh() {
        let k = key();
        let s = SessionId::new("s1");
        let a = k.seal(&s, "EMAIL_1", "o", UNIX_EPOCH, "v").unwrap();
        let b = k.seal(&s, "EMAIL_1", "o", UNIX_EPOCH, "v").unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn entries_cannot_move_between_tokens_or_sessions() {
        let k = key();
        let s = SessionId::new("s1");
        let sealed = k.seal(&s, "EMAIL_1", "o", UNIX_EPOCH, "ann@x.io").unwrap();
        for (session, token) in [("s1", "EMAIL_2"), ("s2", "EMAIL_1"), ("s1", "NAME_1")] {
            let err = k
                .open(&SessionId::new(session), token, &sealed)
                .err()
                .expect("moved entry must not open");
            assert!(matches!(err, VaultError::Corrupt(_)), "{err}");
            assert!(!err.to_string().contains("ann"));
        }
        let mut flipped = sealed.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(k.open(&s, "EMAIL_1", &flipped).is_err());
        assert!(k.open(&s, "EMAIL_1", &sealed[..10]).is_err());
    }

    #[test]
    fn wrong_key_fails_clearly() {
        let s = SessionId::new("s1");
        let sealed = key().seal(&s, "EMAIL_1", "o", UNIX_EPOCH, "v").unwrap();
        let other = VaultKey::from_hex(&HEX.replace("1f", "ff")).unwrap();
        let err = other.open(&s, "EMAIL_1", &sealed).err().unwrap();
        assert!(err.to_string().contains(KEY_ENV), "{err}");
        assert_ne!(other.check_value(), key().check_value());
    }

    #[test]
    fn fingerprints_are_keyed_and_kind_scoped() {
        let k = key();
        let a = k.fingerprint(&Kind::Email, "ann@x.io");
        assert_eq!(a, k.fingerprint(&Kind::Email, "ann@x.io"));
        assert_ne!(a, k.fingerprint(&Kind::Name, "ann@x.io"));
        let other = VaultKey::from_bytes(&[7; 32]);
        assert_ne!(a, other.fingerprint(&Kind::Email, "ann@x.io"));
    }

    #[test]
    fn bad_keys_are_clear_errors_that_do_not_echo_input() {
        for bad in ["", "abc", &HEX[..63], &format!("{}zz", &HEX[..62])] {
            let err = VaultKey::from_hex(bad).unwrap_err();
            assert!(matches!(err, VaultError::Config(_)));
            assert!(err.to_string().contains(KEY_ENV), "{err}");
            if bad.len() > 8 {
                assert!(!err.to_string().contains(&bad[..8]), "{err}");
            }
        }
        assert!(VaultKey::from_hex(&format!("  {}\n", HEX.to_uppercase())).is_ok());
    }

    #[test]
    fn debug_is_redacted() {
        assert_eq!(format!("{:?}", key()), "VaultKey(<redacted>)");
    }
}
