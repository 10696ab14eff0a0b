//! The append-only writer: chaining, rotation, crash recovery, fsync.
//!
//! Each line is formatted in full and written with one `write_all` on a file opened for
//! appending, so a crash leaves at worst a partial **last** line; every earlier line stays
//! intact and verifies. A write that fails part way (disk full) is cut back off at once, and
//! the chain does not advance, so the next successful line still links to the last good one.
//!
//! On open the writer reads the last complete line of the log (the current file, or the newest
//! rotated file if the current one is missing or empty), checks its MAC with the key (a log
//! written with another key is refused rather than continued) and continues its chain: the next
//! `seq` and `prev`. If the file ends in a partial line (a crash mid-write), that partial line is
//! **cut off** (the file is truncated to the end of the last complete line) and a `recovered`
//! event recording `dropped_bytes` is appended first, so the loss is itself in the chained log.
//! The partial bytes are never chained, so keeping them could only make verification fail.
//!
//! Files are created owner-only (0600 on unix, and 0700 for directories the writer creates):
//! fingerprints and session ids are not for other local users.
//!
//! Seals ([`super::SealReason`]): a chained seal line is appended before rotation (the last
//! line of every rotated file), when the log is dropped (`close`, only if something is
//! unsealed or the run ended on a timer seal), after `seal_every_lines` unsealed lines, and by a
//! timer thread every `seal_interval_seconds` while lines are unsealed. Each seal is fsynced.
//!
//! Rotation: before a line (plus room for the rotation seal) would take the current file past
//! `max_file_bytes`, the rotation seal is written, the file is fsynced and renamed to
//! `<name>.<N>` (N = 1, 2, ... never reused, oldest lowest) and a new file started; the chain
//! simply continues (`seq` and `prev` run on), so `audit verify` takes the
//! whole set of files in any order and checks them as one chain.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime};

use super::event::{
    Body, BodyItem, Event, EventKind, GENESIS, Parsed, SealReason, Timestamp, split_mac,
};
use super::{AuditConfig, AuditError, AuditKey, FsyncPolicy};

/// The audit log: shared by every task of a process (`Arc` it), one line per [`Event`].
///
/// Writes are plain blocking file appends under a mutex (microseconds into the page cache);
/// with `fsync: always` each call also waits for the disk, so prefer `interval` on busy proxies.
/// With `seal_interval_seconds` set, a small thread (holding only a weak reference) seals the
/// log when lines stayed unsealed that long; dropping the log seals it (`close`).
#[derive(Debug)]
pub struct AuditLog {
    shared: Arc<Shared>,
    /// Regions for phones in national form without a canonical form (see [`AuditKey::fingerprint_in`]).
    phone_regions: Vec<String>,
    /// Dropped with the log: stops the seal timer at once.
    _stop: Option<mpsc::Sender<()>>,
}

/// What the seal timer shares with the log.
#[derive(Debug)]
struct Shared {
    key: AuditKey,
    inner: Mutex<Writer>,
}

#[derive(Debug)]
struct Writer {
    path: PathBuf,
    file: File,
    size: u64,
    seq: u64,
    prev: String,
    next_rotation: u64,
    max_bytes: u64,
    fsync: FsyncPolicy,
    interval: Duration,
    last_sync: Instant,
    dirty: bool,
    /// Lines written since the last seal (1 when the log was opened on an unsealed tail).
    unsealed: u64,
    /// The last line is a `close` seal.
    closed: bool,
    seal_every: u64,
}

/// The room kept at the end of a file for its rotation seal (a seal line is about 200 bytes).
const SEAL_RESERVE: u64 = 256;

impl AuditLog {
    /// Opens the log described by `config` if it can, following `audit.required`:
    ///
    /// - no `path`: `Ok(None)` (audit off), or an error if required;
    /// - no key (`MCP_VEIL_AUDIT_KEY` unset and no `key_file`): one warning and `Ok(None)`, or
    ///   an error if required;
    /// - a key that cannot be read, or a log that cannot be opened: always an error.
    ///
    /// Chain [`AuditLog::with_phone_regions`] with `detect.phone_regions` when those differ
    /// from the defaults.
    pub fn from_config(config: &AuditConfig) -> Result<Option<AuditLog>, AuditError> {
        let Some(path) = &config.path else {
            if config.required {
                return Err(AuditError::NoPath);
            }
            return Ok(None);
        };
        let Some(key) = AuditKey::load(config.key_file.as_deref())? else {
            if config.required {
                return Err(AuditError::NoKey);
            }
            tracing::warn!(
                "audit log disabled: no audit key (set {} or audit.key_file)",
                super::KEY_ENV
            );
            return Ok(None);
        };
        AuditLog::open(path, key, config).map(Some)
    }

    /// Opens (or creates) the log at `path`, continuing its chain.
    pub fn open(path: &Path, key: AuditKey, config: &AuditConfig) -> Result<AuditLog, AuditError> {
        let io = |source| AuditError::Io {
            path: path.to_path_buf(),
            source,
        };
        create_parent(path).map_err(io)?;
        let rotated = rotated_files(path).map_err(io)?;
        let next_rotation = rotated.last().map_or(1, |(n, _)| n + 1);
        let mut file = open_append(path).map_err(io)?;
        warn_if_shared(path, &file);
        let len = file.metadata().map_err(io)?.len();
        let (good_len, last) = last_complete_line(&mut file, len).map_err(io)?;
        let dropped = len - good_len;
        if dropped > 0 {
            file.set_len(good_len).map_err(io)?;
        }
        let last = match last {
            Some(line) => Some((path.to_path_buf(), line)),
            None => match rotated.last() {
                Some((_, p)) => {
                    let mut f = File::open(p).map_err(|source| AuditError::Io {
                        path: p.clone(),
                        source,
                    })?;
                    let len = f
                        .metadata()
                        .map_err(|source| AuditError::Io {
                            path: p.clone(),
                            source,
                        })?
                        .len();
                    last_complete_line(&mut f, len)
                        .map_err(|source| AuditError::Io {
                            path: p.clone(),
                            source,
                        })?
                        .1
                        .map(|l| (p.clone(), l))
                }
                None => None,
            },
        };
        let (seq, prev, seal) = match last {
            None => (0, GENESIS.to_string(), Some(String::new())),
            Some((p, line)) => chain_tail(&key, &line).ok_or(AuditError::Corrupt { path: p })?,
        };
        let shared = Arc::new(Shared {
            key,
            inner: Mutex::new(Writer {
                path: path.to_path_buf(),
                file,
                size: good_len,
                seq,
                prev,
                next_rotation,
                max_bytes: config.max_file_bytes,
                fsync: config.fsync,
                interval: Duration::from_millis(config.fsync_interval_ms),
                last_sync: Instant::now(),
                dirty: false,
                unsealed: u64::from(seal.is_none()),
                closed: seal.as_deref() == Some("close"),
                seal_every: config.seal_every_lines,
            }),
        });
        let stop = (config.seal_interval_seconds > 0)
            .then(|| seal_timer(&shared, Duration::from_secs(config.seal_interval_seconds)));
        let log = AuditLog {
            shared,
            phone_regions: super::key::DEFAULT_REGIONS
                .iter()
                .map(|r| (*r).to_string())
                .collect(),
            _stop: stop,
        };
        if dropped > 0 {
            tracing::warn!(
                dropped_bytes = dropped,
                "audit log ended in a partial line (crash?); cut it off and recorded the loss"
            );
            log.write(
                &Event {
                    session: "",
                    direction: super::Direction::Inbound,
                    server: "",
                    method: "",
                    name: None,
                    request_id: None,
                    event: EventKind::Recovered,
                    rule: None,
                    items: &[],
                },
                Some(dropped),
            )?;
        }
        Ok(log)
    }

    /// Sets the regions phones in national form are read in when an item has no canonical
    /// form (use `detect.phone_regions`; default: its default list).
    pub fn with_phone_regions(mut self, regions: &[String]) -> AuditLog {
        self.phone_regions = regions.to_vec();
        self
    }

    /// The key (for fingerprints computed elsewhere).
    pub fn key(&self) -> &AuditKey {
        &self.shared.key
    }

    /// Appends one event. Values in `event.items` are fingerprinted, never written.
    pub fn record(&self, event: &Event<'_>) -> Result<(), AuditError> {
        self.write(event, None)
    }

    fn write(&self, event: &Event<'_>, dropped: Option<u64>) -> Result<(), AuditError> {
        let key = &self.shared.key;
        let mut kinds = std::collections::BTreeMap::new();
        let items: Vec<BodyItem<'_>> = event
            .items
            .iter()
            .map(|i| {
                *kinds.entry(i.kind.as_str()).or_insert(0u32) += 1;
                BodyItem {
                    kind: i.kind.as_str(),
                    token: i.token.map(ToString::to_string),
                    fp: i.value.map(|v| {
                        key.fingerprint_in(i.kind, v.expose(), i.canonical, &self.phone_regions)
                    }),
                }
            })
            .collect();
        let ts = Timestamp(SystemTime::now()).to_string();
        let recovered = event.event == EventKind::Recovered;
        let encode = |w: &Writer| {
            let body = Body {
                v: 1,
                seq: w.seq + 1,
                ts: &ts,
                session: (!recovered).then_some(event.session),
                dir: (!recovered).then_some(event.direction),
                server: (!recovered).then_some(event.server),
                method: (!recovered).then_some(event.method),
                name: event.name,
                id: event.request_id,
                event: event.event,
                rule: event.rule,
                kinds: &kinds,
                items: &items,
                dropped_bytes: dropped,
                seal: None,
                prev: &w.prev,
            };
            seal_line(key, &body)
        };
        let mut w = self.shared.inner.lock().unwrap_or_else(|p| p.into_inner());
        let mut line = encode(&w)?;
        if w.must_rotate(line.0.len() as u64) {
            self.shared.seal_locked(&mut w, SealReason::Rotate)?;
            w.rotate()?;
            line = encode(&w)?;
        }
        w.push(line)?;
        if w.seal_every > 0 && w.unsealed >= w.seal_every {
            self.shared.seal_locked(&mut w, SealReason::Interval)?;
        }
        Ok(())
    }

    /// Fsyncs the current file now (for example before a planned shutdown).
    pub fn sync(&self) -> Result<(), AuditError> {
        let mut w = self.shared.inner.lock().unwrap_or_else(|p| p.into_inner());
        w.sync()
    }

    /// Writes a seal line now if any line is unsealed (as the interval timer does).
    pub fn seal(&self) -> Result<(), AuditError> {
        self.shared.seal_if_unsealed(SealReason::Interval)
    }
}

impl Drop for AuditLog {
    fn drop(&mut self) {
        // A clean close: seal what is unsealed, or mark the end of a run that ended on a timer
        // seal. Nothing to do for a log that already ends in a `close` seal.
        let mut w = self.shared.inner.lock().unwrap_or_else(|p| p.into_inner());
        if (w.unsealed > 0 || !w.closed)
            && w.seq > 0
            && let Err(e) = self.shared.seal_locked(&mut w, SealReason::Close)
        {
            tracing::warn!("audit log: could not write the closing seal: {e}");
        }
    }
}

impl Shared {
    fn seal_if_unsealed(&self, reason: SealReason) -> Result<(), AuditError> {
        let mut w = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if w.unsealed == 0 {
            return Ok(());
        }
        self.seal_locked(&mut w, reason)
    }

    /// Appends a seal line (never rotating first: the room is reserved) and fsyncs it.
    fn seal_locked(&self, w: &mut Writer, reason: SealReason) -> Result<(), AuditError> {
        let ts = Timestamp(SystemTime::now()).to_string();
        let kinds = std::collections::BTreeMap::new();
        let body = Body {
            v: 1,
            seq: w.seq + 1,
            ts: &ts,
            session: None,
            dir: None,
            server: None,
            method: None,
            name: None,
            id: None,
            event: EventKind::Sealed,
            rule: None,
            kinds: &kinds,
            items: &[],
            dropped_bytes: None,
            seal: Some(reason),
            prev: &w.prev,
        };
        let line = seal_line(&self.key, &body)?;
        w.push(line)?;
        w.unsealed = 0;
        w.closed = reason == SealReason::Close;
        w.dirty = true;
        w.sync()
    }
}

/// Encodes `body` as a chained line: `(line with newline, its MAC)`.
fn seal_line(key: &AuditKey, body: &Body<'_>) -> Result<(String, String), AuditError> {
    let mut line = serde_json::to_string(body).map_err(AuditError::Encode)?;
    line.pop(); // the closing brace: the MAC goes last
    let mac = key.chain_mac(line.as_bytes());
    line.push_str(super::event::MAC_SEP);
    line.push_str(&mac);
    line.push_str("\"}\n");
    Ok((line, mac))
}

/// Starts the seal timer; dropping the returned sender stops it.
fn seal_timer(shared: &Arc<Shared>, every: Duration) -> mpsc::Sender<()> {
    let (stop, stopped) = mpsc::channel::<()>();
    let weak = Arc::downgrade(shared);
    let spawned = std::thread::Builder::new()
        .name("audit-seal".into())
        .spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(every) {
                let Some(shared) = weak.upgrade() else { return };
                if let Err(e) = shared.seal_if_unsealed(SealReason::Interval) {
                    tracing::warn!("audit log: could not write a seal: {e}");
                }
            }
        });
    if spawned.is_err() {
        tracing::warn!(
            "audit log: no seal timer (cannot start a thread); seals on rotation and close only"
        );
    }
    stop
}

impl Writer {
    fn io(&self, source: std::io::Error) -> AuditError {
        AuditError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Whether `len` more bytes (and the rotation seal after them) would pass `max_bytes`.
    fn must_rotate(&self, len: u64) -> bool {
        self.max_bytes > 0 && self.size > 0 && self.size + len + SEAL_RESERVE > self.max_bytes
    }

    /// Appends an encoded line and advances the chain.
    fn push(&mut self, (line, mac): (String, String)) -> Result<(), AuditError> {
        self.append(line.as_bytes())?;
        self.seq += 1;
        self.prev = mac;
        self.unsealed += 1;
        self.closed = false;
        Ok(())
    }

    fn append(&mut self, line: &[u8]) -> Result<(), AuditError> {
        let len = line.len() as u64;
        if let Err(e) = self.file.write_all(line) {
            // A short write (disk full) must not leave half a line for the next one to follow:
            // cut the file back to its last complete line. The chain did not advance.
            let _ = self.file.set_len(self.size);
            return Err(self.io(e));
        }
        self.size += len;
        self.dirty = true;
        match self.fsync {
            FsyncPolicy::Always => self.sync()?,
            FsyncPolicy::Interval if self.last_sync.elapsed() >= self.interval => self.sync()?,
            FsyncPolicy::Interval | FsyncPolicy::Never => {}
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<(), AuditError> {
        if self.dirty {
            self.file.sync_data().map_err(|e| self.io(e))?;
            self.dirty = false;
        }
        self.last_sync = Instant::now();
        Ok(())
    }

    fn rotate(&mut self) -> Result<(), AuditError> {
        self.sync()?;
        let target = numbered(&self.path, self.next_rotation);
        std::fs::rename(&self.path, &target).map_err(|e| self.io(e))?;
        self.next_rotation += 1;
        self.file = open_append(&self.path).map_err(|e| self.io(e))?;
        self.size = 0;
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty())
            && let Ok(d) = File::open(dir)
        {
            // Make the rename durable; failure here loses nothing already written.
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        if self.dirty {
            let _ = self.file.sync_data();
        }
    }
}

/// Opens `path` for reading and appending, creating it owner-only (0600 on unix; rotated files
/// keep the mode, they are renamed).
fn open_append(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).read(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// Creates the log's directory when missing, owner-only (0700 on unix) for each level created.
fn create_parent(path: &Path) -> std::io::Result<()> {
    let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) else {
        return Ok(());
    };
    if dir.exists() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// An existing log readable by others was not made by this writer: say so once (its mode is
/// left as the operator set it).
fn warn_if_shared(path: &Path, file: &File) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = file.metadata()
            && meta.permissions().mode() & 0o077 != 0
        {
            tracing::warn!(
                path = %path.display(),
                "the audit log is accessible to other users (mode {:o}); chmod 600 it",
                meta.permissions().mode() & 0o777
            );
        }
    }
    #[cfg(not(unix))]
    let _ = (path, file);
}

/// `path` with `.N` appended to its file name.
pub(crate) fn numbered(path: &Path, n: u64) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{n}"));
    path.with_file_name(name)
}

/// The rotated files of `path` (`<name>.<N>`), sorted by N.
pub(crate) fn rotated_files(path: &Path) -> std::io::Result<Vec<(u64, PathBuf)>> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Some(base) = path.file_name().and_then(|n| n.to_str()) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if let Some(n) = name
            .to_str()
            .and_then(|n| n.strip_prefix(base))
            .and_then(|r| r.strip_prefix('.'))
            .and_then(|r| r.parse::<u64>().ok())
        {
            out.push((n, entry.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// Finds the end of the last complete line and that line, reading backwards from `len`.
/// Returns `(length up to and including the last '\n', last complete line)`.
fn last_complete_line(file: &mut File, len: u64) -> std::io::Result<(u64, Option<String>)> {
    let mut window: u64 = 64 * 1024;
    loop {
        let start = len.saturating_sub(window);
        let mut buf = vec![0u8; (len - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut buf)?;
        let Some(last_nl) = buf.iter().rposition(|&b| b == b'\n') else {
            if start == 0 {
                return Ok((0, None));
            }
            window *= 4;
            continue;
        };
        let good_len = start + last_nl as u64 + 1;
        match buf[..last_nl].iter().rposition(|&b| b == b'\n') {
            Some(prev_nl) => {
                let line = String::from_utf8_lossy(&buf[prev_nl + 1..last_nl]).into_owned();
                return Ok((good_len, Some(line)));
            }
            None if start == 0 => {
                let line = String::from_utf8_lossy(&buf[..last_nl]).into_owned();
                return Ok((good_len, Some(line)));
            }
            None => window *= 4,
        }
    }
}

/// The `(seq, mac, seal reason)` to continue from, if `line` is a valid line under `key`.
fn chain_tail(key: &AuditKey, line: &str) -> Option<(u64, String, Option<String>)> {
    let (body, mac) = split_mac(line)?;
    if key.chain_mac(body.as_bytes()) != mac {
        return None;
    }
    let parsed: Parsed = serde_json::from_str(&format!("{body}}}")).ok()?;
    Some((parsed.seq, mac.to_string(), parsed.seal))
}
