//! The encrypted session file: one session's token table at rest.
//!
//! `mcp-veil redact --session F` stores the values it replaced so `mcp-veil restore --session F`
//! can put them back, and so a later redact reuses the same tokens. The table is raw PII, so the
//! file is sealed with AES-256-GCM (`ring`), a fresh random 96-bit nonce per write, and the
//! header authenticated as associated data.
//!
//! # The key
//!
//! The secret comes from the environment variable [`KEY_ENV`] (`MCP_VEIL_SESSION_KEY`), never
//! from a file the YAML names or from the command line (which other users can see in `ps`):
//!
//! - exactly 64 hex digits: used directly as the 256-bit key (`openssl rand -hex 32`);
//! - anything else of at least 16 bytes: a passphrase, stretched with PBKDF2-HMAC-SHA256 over a
//!   random 16-byte salt stored in the header ([`PBKDF2_ITERATIONS`] iterations, the OWASP 2023
//!   figure for SHA-256). Reading and rewriting one file derives once.
//!
//! # Format (version 2)
//!
//! ```text
//! offset size
//!      0    8  magic "MCPVSESS"
//!      8    1  version = 2
//!      9    1  kdf: 0 = raw key, 1 = PBKDF2-HMAC-SHA256
//!     10    4  iterations, big-endian (0 for a raw key)
//!     14   16  salt (zeros for a raw key)
//!     30   12  nonce
//!     42   16  key check: HMAC-SHA256(file key, "mcp-veil session key check"), first 16 bytes
//!     58    …  ciphertext + 16-byte tag; the 58 header bytes are the associated data
//! ```
//!
//! The key check tells a wrong key (it does not match) from a modified file (it matches, the
//! tag does not); it reveals nothing of the key. Version 1 files (no key check, a 42-byte
//! header) are still read; for them the two cases are one error.
//!
//! The plaintext is JSON: `{"session": id, "entries": [{"kind","n","value","key","origin",
//! "created_ms"}]}`. A missing key, a wrong key, a modified file and a file of another format are
//! distinct errors; none of them carries file content.

use std::fmt;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use ring::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::rand::{SecureRandom, SystemRandom};
use serde::{Deserialize, Serialize};

use crate::detect::Kind;
use crate::sensitive::Sensitive;
use crate::token::Token;
use crate::vault::{Entry, ExportedEntry, SessionId};

/// The environment variable that holds the key or passphrase.
pub const KEY_ENV: &str = "MCP_VEIL_SESSION_KEY";

/// PBKDF2-HMAC-SHA256 iterations for passphrases written by this version.
pub const PBKDF2_ITERATIONS: u32 = 600_000;

const MAGIC: &[u8; 8] = b"MCPVSESS";
const VERSION: u8 = 2;
const VERSION_1: u8 = 1;
const KDF_RAW: u8 = 0;
const KDF_PBKDF2: u8 = 1;
const SALT_LEN: usize = 16;
const HEADER_LEN_V1: usize = 8 + 1 + 1 + 4 + SALT_LEN + NONCE_LEN;
const CHECK_LEN: usize = 16;
const HEADER_LEN: usize = HEADER_LEN_V1 + CHECK_LEN;
const CHECK_LABEL: &[u8] = b"mcp-veil session key check";
/// Iteration counts outside this range in a header mean a damaged or hostile file.
const ITERATIONS_RANGE: std::ops::RangeInclusive<u32> = 100_000..=10_000_000;
const MIN_PASSPHRASE: usize = 16;

/// Why a session file could not be used. Messages name the file, never its content.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionFileError {
    /// `MCP_VEIL_SESSION_KEY` is not set (or empty).
    #[error(
        "{KEY_ENV} is not set: session files are encrypted; set it to 64 hex digits (openssl rand -hex 32) or a passphrase of at least {MIN_PASSPHRASE} characters"
    )]
    MissingKey,
    /// The variable holds neither 64 hex digits nor a passphrase long enough.
    #[error(
        "{KEY_ENV} is too short: use 64 hex digits or a passphrase of at least {MIN_PASSPHRASE} characters"
    )]
    WeakKey,
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("{path}: cannot write: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file does not start with the session file header.
    #[error("not an mcp-veil session file")]
    NotASessionFile,
    /// The file was written by a newer version (or a damaged header).
    #[error("unsupported session file version {0} (this build reads version {VERSION})")]
    UnsupportedVersion(u8),
    /// Authentication of a version 1 file failed: another key wrote it, or it was modified.
    #[error("cannot decrypt: wrong {KEY_ENV}, or the file was modified")]
    Decrypt,
    /// The file was written with another key (its key check does not match).
    #[error("wrong {KEY_ENV}: the session file was written with another key")]
    WrongKey,
    /// The key is right but the file does not authenticate: it was modified or damaged.
    #[error("the session file was modified or damaged (it does not authenticate with this key)")]
    Modified,
    /// It decrypted, but the table inside is not valid.
    #[error("the session file is corrupt: {0}")]
    Corrupt(String),
}

/// The secret from the environment: a raw key or a passphrase. Its `Debug` is redacted and it
/// is overwritten when dropped.
pub struct SessionSecret(Secret);

enum Secret {
    Raw([u8; 32]),
    Passphrase(Vec<u8>),
}

impl fmt::Debug for SessionSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionSecret(<redacted>)")
    }
}

impl Drop for SessionSecret {
    fn drop(&mut self) {
        match &mut self.0 {
            Secret::Raw(k) => k.fill(0),
            Secret::Passphrase(p) => p.fill(0),
        }
        std::hint::black_box(&self.0);
    }
}

impl SessionSecret {
    /// Reads [`KEY_ENV`].
    pub fn from_env() -> Result<SessionSecret, SessionFileError> {
        match std::env::var(KEY_ENV) {
            Ok(v) if !v.is_empty() => SessionSecret::parse(&v),
            _ => Err(SessionFileError::MissingKey),
        }
    }

    /// 64 hex digits are a raw key; anything else of at least 16 bytes is a passphrase.
    pub fn parse(value: &str) -> Result<SessionSecret, SessionFileError> {
        let v = value.trim();
        if v.len() == 64 && v.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut key = [0u8; 32];
            for (i, pair) in v.as_bytes().chunks(2).enumerate() {
                key[i] = (hex_val(pair[0]) << 4) | hex_val(pair[1]);
            }
            return Ok(SessionSecret(Secret::Raw(key)));
        }
        if value.len() < MIN_PASSPHRASE {
            return Err(SessionFileError::WeakKey);
        }
        Ok(SessionSecret(Secret::Passphrase(value.as_bytes().to_vec())))
    }
}

fn hex_val(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        _ => b - b'A' + 10,
    }
}

/// A key ready to seal and open one file: the derived AES key and the header fields it came
/// from. Opening a file returns the key it was written with, so rewriting it derives nothing.
pub struct FileKey {
    key: LessSafeKey,
    kdf: u8,
    iterations: u32,
    salt: [u8; SALT_LEN],
    check: [u8; CHECK_LEN],
}

impl fmt::Debug for FileKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FileKey(<redacted>)")
    }
}

impl FileKey {
    /// A key for a new file (a passphrase gets a fresh random salt).
    pub fn new(secret: &SessionSecret) -> FileKey {
        let mut salt = [0u8; SALT_LEN];
        if matches!(secret.0, Secret::Passphrase(_)) {
            fill_random(&mut salt);
        }
        FileKey::derive(secret, PBKDF2_ITERATIONS, salt)
    }

    fn derive(secret: &SessionSecret, iterations: u32, salt: [u8; SALT_LEN]) -> FileKey {
        let mut bytes = [0u8; 32];
        let kdf = match &secret.0 {
            Secret::Raw(k) => {
                bytes = *k;
                KDF_RAW
            }
            Secret::Passphrase(p) => {
                let n = NonZeroU32::new(iterations).unwrap_or(NonZeroU32::MIN);
                ring::pbkdf2::derive(ring::pbkdf2::PBKDF2_HMAC_SHA256, n, &salt, p, &mut bytes);
                KDF_PBKDF2
            }
        };
        let unbound = UnboundKey::new(&AES_256_GCM, &bytes).expect("32 bytes is an AES-256 key");
        let mac = ring::hmac::sign(
            &ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &bytes),
            CHECK_LABEL,
        );
        let mut check = [0u8; CHECK_LEN];
        check.copy_from_slice(&mac.as_ref()[..CHECK_LEN]);
        bytes.fill(0);
        std::hint::black_box(&bytes);
        FileKey {
            key: LessSafeKey::new(unbound),
            kdf,
            iterations: if kdf == KDF_RAW { 0 } else { iterations },
            salt,
            check,
        }
    }

    fn header(&self, nonce: &[u8; NONCE_LEN]) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..8].copy_from_slice(MAGIC);
        h[8] = VERSION;
        h[9] = self.kdf;
        h[10..14].copy_from_slice(&self.iterations.to_be_bytes());
        h[14..30].copy_from_slice(&self.salt);
        h[30..HEADER_LEN_V1].copy_from_slice(nonce);
        h[HEADER_LEN_V1..].copy_from_slice(&self.check);
        h
    }
}

fn fill_random(buf: &mut [u8]) {
    // SystemRandom only fails if the operating system has no randomness source at all.
    SystemRandom::new()
        .fill(buf)
        .expect("the operating system provides randomness");
}

/// One session's table, as stored.
#[derive(Debug)]
pub struct SessionData {
    /// The session id (random, not secret).
    pub session: SessionId,
    /// The table (see [`crate::vault::MemoryVault::export_session`]).
    pub entries: Vec<ExportedEntry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Plain {
    session: String,
    entries: Vec<PlainEntry>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct PlainEntry {
    kind: String,
    n: u32,
    value: String,
    key: String,
    origin: String,
    created_ms: u64,
}

/// Encrypts a session table.
pub fn seal(key: &FileKey, data: &SessionData) -> Vec<u8> {
    let plain = Plain {
        session: data.session.as_str().to_string(),
        entries: data
            .entries
            .iter()
            .map(|e| PlainEntry {
                kind: e.entry.token.kind.as_str().to_string(),
                n: e.entry.token.n,
                value: e.entry.value.expose().clone(),
                key: e.match_key.expose().clone(),
                origin: e.entry.origin.to_string(),
                created_ms: e
                    .entry
                    .created
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis() as u64),
            })
            .collect(),
    };
    let mut body = serde_json::to_vec(&plain).expect("a session table serializes");
    drop(plain);
    let mut nonce = [0u8; NONCE_LEN];
    fill_random(&mut nonce);
    let header = key.header(&nonce);
    key.key
        .seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(&header[..]),
            &mut body,
        )
        .expect("AES-GCM sealing only fails on absurd lengths");
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(&header);
    out.extend_from_slice(&body);
    body.fill(0);
    out
}

/// Decrypts a session file; returns the table and the key to write it back with.
pub fn open(
    secret: &SessionSecret,
    bytes: &[u8],
) -> Result<(SessionData, FileKey), SessionFileError> {
    if bytes.len() < HEADER_LEN_V1 || &bytes[..8] != MAGIC {
        return Err(SessionFileError::NotASessionFile);
    }
    let header_len = match bytes[8] {
        VERSION if bytes.len() >= HEADER_LEN => HEADER_LEN,
        VERSION => return Err(SessionFileError::NotASessionFile),
        VERSION_1 => HEADER_LEN_V1,
        v => return Err(SessionFileError::UnsupportedVersion(v)),
    };
    let v1 = header_len == HEADER_LEN_V1;
    let kdf = bytes[9];
    let iterations = u32::from_be_bytes([bytes[10], bytes[11], bytes[12], bytes[13]]);
    let mut salt = [0u8; SALT_LEN];
    salt.copy_from_slice(&bytes[14..30]);
    let mut nonce = [0u8; NONCE_LEN];
    nonce.copy_from_slice(&bytes[30..HEADER_LEN_V1]);
    let key = match (kdf, &secret.0) {
        (KDF_RAW, _) if iterations != 0 => return Err(SessionFileError::NotASessionFile),
        (KDF_PBKDF2, _) if !ITERATIONS_RANGE.contains(&iterations) => {
            return Err(SessionFileError::NotASessionFile);
        }
        (KDF_RAW, Secret::Raw(_)) | (KDF_PBKDF2, Secret::Passphrase(_)) => {
            FileKey::derive(secret, iterations, salt)
        }
        // Written with the other kind of secret: certainly the wrong key.
        (KDF_RAW | KDF_PBKDF2, _) if v1 => return Err(SessionFileError::Decrypt),
        (KDF_RAW | KDF_PBKDF2, _) => return Err(SessionFileError::WrongKey),
        _ => return Err(SessionFileError::NotASessionFile),
    };
    if !v1 {
        let stored = &bytes[HEADER_LEN_V1..HEADER_LEN];
        let same = stored
            .iter()
            .zip(&key.check)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
        if !same {
            return Err(SessionFileError::WrongKey);
        }
    }
    let mut body = bytes[header_len..].to_vec();
    let plain_len = key
        .key
        .open_in_place(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(&bytes[..header_len]),
            &mut body,
        )
        .map_err(|_| {
            if v1 {
                SessionFileError::Decrypt
            } else {
                SessionFileError::Modified
            }
        })?
        .len();
    let parsed = serde_json::from_slice::<Plain>(&body[..plain_len]);
    body.fill(0);
    // serde's messages may quote content; report only where it failed.
    let plain = parsed.map_err(|e| {
        SessionFileError::Corrupt(format!("invalid table at column {}", e.column()))
    })?;
    let entries = plain
        .entries
        .into_iter()
        .map(|p| {
            if !Kind::is_valid_name(&p.kind) || p.n == 0 {
                return Err(SessionFileError::Corrupt("invalid token in table".into()));
            }
            Ok(ExportedEntry {
                entry: Entry {
                    token: Token::new(Kind::from_name(&p.kind), p.n),
                    value: Sensitive::new(p.value),
                    origin: Arc::from(p.origin),
                    created: UNIX_EPOCH + Duration::from_millis(p.created_ms),
                },
                match_key: Sensitive::new(p.key),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok((
        SessionData {
            session: SessionId::new(plain.session),
            entries,
        },
        key,
    ))
}

/// Reads and decrypts `path`; `Ok(None)` when it does not exist yet.
pub fn load(
    path: &Path,
    secret: &SessionSecret,
) -> Result<Option<(SessionData, FileKey)>, SessionFileError> {
    match std::fs::read(path) {
        Ok(bytes) => open(secret, &bytes).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SessionFileError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Encrypts and writes `path` atomically (a temporary file beside it, then a rename), readable
/// by its owner only.
pub fn save(path: &Path, key: &FileKey, data: &SessionData) -> Result<(), SessionFileError> {
    let sealed = seal(key, data);
    let write_err = |source| SessionFileError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "session".into(), |n| n.to_string_lossy().into_owned());
    let mut suffix = [0u8; 6];
    fill_random(&mut suffix);
    let tmp = dir.join(format!(
        ".{name}.{}.tmp",
        suffix
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    ));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let result = (|| {
        use std::io::Write;
        let mut f = options.open(&tmp)?;
        f.write_all(&sealed)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(write_err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::{MemoryVault, MintRequest};

    const HEX: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    fn table() -> SessionData {
        let v = MemoryVault::default();
        let s = SessionId::new("abc");
        let (e, n) = (Kind::Email, Kind::Name);
        v.mint_now(
            &s,
            "cli",
            &[
                MintRequest {
                    kind: &e,
                    value: "ann@example.com",
                    canonical: None,
                },
                MintRequest {
                    kind: &n,
                    value: "Ann \"Q\" Lee",
                    canonical: None,
                },
            ],
        )
        .unwrap();
        SessionData {
            entries: v.export_session(&s),
            session: s,
        }
    }

    #[test]
    fn round_trip_with_raw_key() {
        let secret = SessionSecret::parse(HEX).unwrap();
        let data = table();
        let sealed = seal(&FileKey::new(&secret), &data);
        assert_eq!(&sealed[..8], MAGIC);
        assert!(!String::from_utf8_lossy(&sealed).contains("ann@example.com"));
        let (back, key) = open(&secret, &sealed).unwrap();
        assert_eq!(back.session, data.session);
        assert_eq!(back.entries.len(), 2);
        assert_eq!(back.entries[0].entry.value.expose(), "ann@example.com");
        assert_eq!(back.entries[1].entry.value.expose(), "Ann \"Q\" Lee");
        assert_eq!(back.entries[1].match_key, data.entries[1].match_key);
        // Writing back with the returned key gives a fresh nonce, same header otherwise.
        let again = seal(&key, &back);
        assert_ne!(again[30..42], sealed[30..42]);
        assert_eq!(again[..30], sealed[..30]);
    }

    #[test]
    fn wrong_key_modified_file_and_other_files_are_distinct_errors() {
        let secret = SessionSecret::parse(HEX).unwrap();
        let sealed = seal(&FileKey::new(&secret), &table());
        let other = SessionSecret::parse(&HEX.replace('0', "1")).unwrap();
        assert!(matches!(
            open(&other, &sealed),
            Err(SessionFileError::WrongKey)
        ));
        let mut flipped = sealed.clone();
        let last = flipped.len() - 20;
        flipped[last] ^= 1;
        assert!(matches!(
            open(&secret, &flipped),
            Err(SessionFileError::Modified)
        ));
        // The header is authenticated too.
        let mut header = sealed.clone();
        header[20] ^= 1;
        assert!(matches!(
            open(&secret, &header),
            Err(SessionFileError::Modified)
        ));
        assert_ne!(
            SessionFileError::WrongKey.to_string(),
            SessionFileError::Modified.to_string()
        );
        assert!(matches!(
            open(&secret, b"{\"hello\": 1}"),
            Err(SessionFileError::NotASessionFile)
        ));
        let mut newer = sealed;
        newer[8] = 9;
        assert!(matches!(
            open(&secret, &newer),
            Err(SessionFileError::UnsupportedVersion(9))
        ));
        let pass = SessionSecret::parse("correct horse battery staple").unwrap();
        assert!(matches!(
            open(&pass, &seal(&FileKey::new(&secret), &table())),
            Err(SessionFileError::WrongKey)
        ));
    }

    #[test]
    fn passphrases_are_stretched_with_a_stored_salt() {
        let pass = SessionSecret::parse("correct horse battery staple").unwrap();
        let key = FileKey::new(&pass);
        assert_eq!(key.iterations, PBKDF2_ITERATIONS);
        let sealed = seal(&key, &table());
        assert_eq!(sealed[9], KDF_PBKDF2);
        assert_ne!(sealed[14..30], [0u8; 16]);
        let (back, _) = open(&pass, &sealed).unwrap();
        assert_eq!(back.entries.len(), 2);
        let wrong = SessionSecret::parse("correct horse battery stapler").unwrap();
        assert!(matches!(
            open(&wrong, &sealed),
            Err(SessionFileError::WrongKey)
        ));
    }

    #[test]
    fn short_secrets_are_refused_and_never_shown() {
        assert!(matches!(
            SessionSecret::parse("hunter2"),
            Err(SessionFileError::WeakKey)
        ));
        let s = SessionSecret::parse(HEX).unwrap();
        assert!(!format!("{s:?}").contains("0011"));
    }

    #[test]
    fn save_then_load_atomically() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.veil");
        let secret = SessionSecret::parse(HEX).unwrap();
        assert!(load(&path, &secret).unwrap().is_none());
        save(&path, &FileKey::new(&secret), &table()).unwrap();
        let (back, _) = load(&path, &secret).unwrap().unwrap();
        assert_eq!(back.entries.len(), 2);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
