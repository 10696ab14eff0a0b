//! Reading logs back: `audit verify` (the chain) and `audit find` (events about one value).
//!
//! [`verify_files`] takes the current file and any rotated ones in any order, orders them by
//! the `seq` of their first line, and walks every line as one chain. For each line it checks, in
//! this order: the line is complete (ends in a newline), well formed, its MAC matches its bytes,
//! its `seq` is one more than the previous line's, and its `prev` is the previous line's MAC.
//! The first failure is reported with its file and 1-based line number:
//!
//! | tampering | first failure reported |
//! |---|---|
//! | a line edited | that line: MAC mismatch |
//! | a line deleted | the line now in its place: `seq` jumps |
//! | a line inserted | that line: MAC mismatch (forged) or `seq` goes back (copied) |
//! | two lines swapped | the first of them: `seq` jumps |
//! | a line truncated | that line: malformed or incomplete |
//!
//! The chain must start at `seq` 1 unless [`VerifyOptions::allow_partial_start`] is set (older
//! rotated files deliberately removed).
//!
//! # Seals: what a cut end can and cannot hide
//!
//! The writer appends a seal line (`"event":"sealed"`) as the last line of a file it rotates
//! (`rotate`), every `seal_interval_seconds` or `seal_every_lines` while lines are unsealed
//! (`interval`), and when it closes cleanly (`close`). A seal is a chain line: its MAC covers the
//! chain head (`prev`) and the line count (`seq`), so only the key holder can write one.
//!
//! - Lines cut from the end of a **rotated** file: the next file no longer links (`seq` jumps).
//! - The chain ends on a `rotate` seal: the newer file it promises is missing (deleted, or not
//!   given): an error, [`Problem::NextFileMissing`].
//! - Lines after the last seal are reported as the **unsealed tail** ([`VerifyReport::unsealed`]):
//!   they verify, but nothing vouches that the log did not go on. Lines cut from there (or a tail
//!   cut back to an earlier seal) look exactly like a writer that is still running or crashed;
//!   verify cannot prove they were deleted, only that everything up to the last seal is whole.
//!   [`VerifyOptions::require_sealed`] makes an unsealed tail an error (for a stopped writer,
//!   whose log must end in a `close` or `rotate` seal).
//! - [`VerifyReport::closed`] says the log ends in a `close` seal. Cutting a log back to an earlier
//!   clean close (from a previous run) cannot be told from a log that ended there: compare the
//!   report's last `seq` and head with an external record (a monitoring copy) if that matters.
//!
//! - Give `verify` the whole set, the current file included: with the current file deleted
//!   *and* the rotation seal cut off the newest rotated file, what is left is an unsealed tail,
//!   not an error (file names are not trusted to say which file was current).
//!
//! Logs written before seals existed verify as before, with every line counted as unsealed.

use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::AuditKey;
use super::event::{GENESIS, Parsed, split_mac};
use crate::detect::Kind;

/// Options for [`verify_files`].
#[derive(Clone, Copy, Debug, Default)]
pub struct VerifyOptions {
    /// Accept a chain whose first line is not `seq` 1 (earlier files removed on purpose).
    pub allow_partial_start: bool,
    /// Refuse a chain whose last lines are not covered by a seal (see the module docs).
    pub require_sealed: bool,
}

/// A verified chain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// The files in chain order (empty files left out).
    pub files: Vec<PathBuf>,
    /// Lines verified.
    pub lines: u64,
    /// `seq` of the first line (0 if there were none).
    pub first_seq: u64,
    /// `seq` of the last line (0 if there were none).
    pub last_seq: u64,
    /// MAC of the last line (the chain head).
    pub last_mac: String,
    /// Seal lines seen.
    pub seals: u64,
    /// `seq` of the last seal line (0 if there is none).
    pub sealed_through: u64,
    /// Lines after the last seal: nothing proves the log did not continue past them.
    pub unsealed: u64,
    /// The log ends in a `close` seal (its writer closed cleanly).
    pub closed: bool,
}

/// What is wrong with a line.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Problem {
    /// The last line of a file has no newline: cut short (a crash mid-write, or truncated).
    Incomplete,
    /// Not an audit line (bad JSON, no MAC, not UTF-8).
    Malformed,
    /// The MAC does not match: edited, forged, or written with another key.
    BadMac,
    /// `seq` is higher than expected: lines before it deleted, or lines reordered.
    Gap {
        /// The `seq` this line should have.
        expected: u64,
        /// The `seq` it has.
        found: u64,
    },
    /// The first line of the whole set is not `seq` 1: its first lines deleted, or rotated
    /// files not given.
    MissingStart {
        /// The `seq` the first line has.
        found: u64,
    },
    /// `seq` is not higher than the previous line's: a line inserted (copied) or reordered.
    Replay {
        /// The `seq` this line should have.
        expected: u64,
        /// The `seq` it has.
        found: u64,
    },
    /// `prev` is not the previous line's MAC: the chain was spliced.
    BrokenLink,
    /// The chain ends on a `rotate` seal: the newer file that continued it is missing (deleted,
    /// or not given).
    NextFileMissing,
    /// With [`VerifyOptions::require_sealed`]: lines after the last seal.
    Unsealed {
        /// How many.
        lines: u64,
    },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Incomplete => f.write_str("incomplete line (no newline): cut short"),
            Problem::Malformed => {
                f.write_str("malformed line: not an audit line (edited or truncated)")
            }
            Problem::BadMac => {
                f.write_str("MAC mismatch: line edited or inserted (or written with another key)")
            }
            Problem::Gap { expected, found } => write!(
                f,
                "sequence jumps from {expected} to {found}: line(s) deleted or reordered"
            ),
            Problem::MissingStart { found } => write!(
                f,
                "the chain starts at sequence {found}, not 1: its first line(s) deleted, or older rotated files not given (pass them too, or --allow-partial-start)"
            ),
            Problem::Replay { expected, found } => write!(
                f,
                "sequence {found} where {expected} was expected: line inserted or reordered"
            ),
            Problem::BrokenLink => {
                f.write_str("chain broken: `prev` is not the previous line's MAC")
            }
            Problem::NextFileMissing => f.write_str(
                "the chain ends on a rotation seal: the newer file that continued it is missing (deleted, or not given)",
            ),
            Problem::Unsealed { lines } => write!(
                f,
                "{lines} line(s) after the last seal: the log may have been cut here (or its writer is still running or crashed)"
            ),
        }
    }
}

/// Why verification (or a search) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// A file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// No files were given.
    #[error("no audit files given")]
    NoFiles,
    /// A line failed verification.
    #[error("{}:{line}: {problem}", file.display())]
    Tampered {
        /// The file.
        file: PathBuf,
        /// 1-based line number within the file.
        line: u64,
        /// What is wrong.
        problem: Problem,
    },
}

/// Verifies the chain across `paths` (current and rotated files, any order).
pub fn verify_files(
    key: &AuditKey,
    paths: &[PathBuf],
    options: VerifyOptions,
) -> Result<VerifyReport, VerifyError> {
    if paths.is_empty() {
        return Err(VerifyError::NoFiles);
    }
    let ordered = order_by_first_seq(paths)?;
    let mut report = VerifyReport {
        files: Vec::new(),
        lines: 0,
        first_seq: 0,
        last_seq: 0,
        last_mac: String::new(),
        seals: 0,
        sealed_through: 0,
        unsealed: 0,
        closed: false,
    };
    // (seq, mac) of the previous line.
    let mut prev: Option<(u64, String)> = None;
    // Where the last line is (file, line number) and its seal, if it is one.
    let mut last: Option<(PathBuf, u64, Option<String>)> = None;
    for path in ordered {
        let mut any = false;
        for_each_line(&path, |n, raw| {
            any = true;
            let fail = |problem| VerifyError::Tampered {
                file: path.clone(),
                line: n,
                problem,
            };
            let Some(line) = raw.strip_suffix(b"\n") else {
                return Err(fail(Problem::Incomplete));
            };
            let (body, mac, parsed) = parse(line).ok_or_else(|| fail(Problem::Malformed))?;
            if key.chain_mac(body.as_bytes()) != mac {
                return Err(fail(Problem::BadMac));
            }
            let (expected, prev_mac) = match &prev {
                Some((seq, mac)) => (seq + 1, Some(mac.as_str())),
                None if options.allow_partial_start => (parsed.seq, None),
                None => (1, Some(GENESIS)),
            };
            if prev.is_none() && parsed.seq > expected {
                return Err(fail(Problem::MissingStart { found: parsed.seq }));
            }
            if parsed.seq > expected {
                return Err(fail(Problem::Gap {
                    expected,
                    found: parsed.seq,
                }));
            }
            if parsed.seq < expected {
                return Err(fail(Problem::Replay {
                    expected,
                    found: parsed.seq,
                }));
            }
            if prev_mac.is_some_and(|m| m != parsed.prev) {
                return Err(fail(Problem::BrokenLink));
            }
            if prev.is_none() {
                report.first_seq = parsed.seq;
            }
            report.lines += 1;
            report.last_seq = parsed.seq;
            if parsed.seal.is_some() {
                report.seals += 1;
                report.sealed_through = parsed.seq;
                report.unsealed = 0;
            } else {
                report.unsealed += 1;
            }
            prev = Some((parsed.seq, mac.to_string()));
            last = Some((path.clone(), n, parsed.seal));
            Ok(())
        })?;
        if any {
            report.files.push(path);
        }
    }
    report.last_mac = prev.map(|(_, m)| m).unwrap_or_default();
    if let Some((file, line, seal)) = last {
        let tampered = |problem| VerifyError::Tampered {
            file: file.clone(),
            line,
            problem,
        };
        match seal.as_deref() {
            Some("rotate") => return Err(tampered(Problem::NextFileMissing)),
            Some("close") => report.closed = true,
            _ => {}
        }
        if options.require_sealed && report.unsealed > 0 {
            return Err(tampered(Problem::Unsealed {
                lines: report.unsealed,
            }));
        }
    }
    Ok(report)
}

/// One line that mentions the value searched for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hit {
    /// The file.
    pub file: PathBuf,
    /// 1-based line number within the file.
    pub line: u64,
    /// The line itself (it holds fingerprints, never values).
    pub text: String,
}

/// Every event in `paths` that involved `value`: lines with an item whose fingerprint is one
/// the value has under the item's kind (or only under `kind`, if given). Phones are tried in
/// international form and in national form for each of `regions`.
pub fn find_value(
    key: &AuditKey,
    paths: &[PathBuf],
    value: &str,
    kind: Option<&Kind>,
    regions: &[&str],
) -> Result<Vec<Hit>, VerifyError> {
    let ordered = order_by_first_seq(paths)?;
    let mut cache: HashMap<String, Vec<String>> = HashMap::new();
    let mut hits = Vec::new();
    for path in ordered {
        for_each_line(&path, |n, raw| {
            let line = raw.strip_suffix(b"\n").unwrap_or(raw);
            let Some((_, _, parsed)) = parse(line) else {
                return Ok(());
            };
            let hit = parsed.items.iter().any(|item| {
                let Some(fp) = &item.fp else { return false };
                if kind.is_some_and(|k| k.as_str() != item.kind) {
                    return false;
                }
                cache
                    .entry(item.kind.clone())
                    .or_insert_with(|| {
                        key.fingerprint_candidates(&Kind::from_name(&item.kind), value, regions)
                    })
                    .contains(fp)
            });
            if hit {
                hits.push(Hit {
                    file: path.clone(),
                    line: n,
                    text: String::from_utf8_lossy(line).into_owned(),
                });
            }
            Ok(())
        })?;
    }
    Ok(hits)
}

fn parse(line: &[u8]) -> Option<(&str, &str, Parsed)> {
    let line = std::str::from_utf8(line).ok()?;
    let (body, mac) = split_mac(line)?;
    let parsed: Parsed = serde_json::from_str(&format!("{body}}}")).ok()?;
    Some((body, mac, parsed))
}

/// Calls `f(line_number, line_with_newline)` for each line of a file.
fn for_each_line(
    path: &Path,
    mut f: impl FnMut(u64, &[u8]) -> Result<(), VerifyError>,
) -> Result<(), VerifyError> {
    let io = |source| VerifyError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut reader = BufReader::new(std::fs::File::open(path).map_err(io)?);
    let mut buf = Vec::new();
    let mut n = 0u64;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf).map_err(io)? == 0 {
            return Ok(());
        }
        n += 1;
        f(n, &buf)?;
    }
}

/// Orders files by the `seq` of their first line; unreadable first lines sort last, so the
/// problem is reported there.
fn order_by_first_seq(paths: &[PathBuf]) -> Result<Vec<PathBuf>, VerifyError> {
    let mut keyed = Vec::with_capacity(paths.len());
    for (i, p) in paths.iter().enumerate() {
        let file = std::fs::File::open(p).map_err(|source| VerifyError::Io {
            path: p.clone(),
            source,
        })?;
        let mut first = Vec::new();
        BufReader::new(file)
            .read_until(b'\n', &mut first)
            .map_err(|source| VerifyError::Io {
                path: p.clone(),
                source,
            })?;
        let line = first.strip_suffix(b"\n").unwrap_or(&first);
        let seq = parse(line).map_or(u64::MAX, |(_, _, parsed)| parsed.seq);
        keyed.push((seq, i, p.clone()));
    }
    keyed.sort();
    Ok(keyed.into_iter().map(|(_, _, p)| p).collect())
}
