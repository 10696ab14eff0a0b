//! Chain verification against every kind of tampering, rotation, crash recovery, no raw values.

use std::path::{Path, PathBuf};

use super::*;
use crate::detect::Kind;
use crate::sensitive::Sensitive;
use crate::token::Token;

const MATERIAL: &[u8] = b"test-key-test-key-test-key-test-key";

fn key() -> AuditKey {
    AuditKey::from_material(MATERIAL).unwrap()
}

fn config(max_file_bytes: u64) -> AuditConfig {
    AuditConfig {
        max_file_bytes,
        fsync: FsyncPolicy::Never,
        ..AuditConfig::default()
    }
}

/// Planted values: none of them may appear in any audit file.
const VALUES: [(&str, Kind); 3] = [
    ("alice.planted@example.com", Kind::Email),
    ("Bartholomew Plantedname", Kind::Name),
    ("+44 20 7946 0958", Kind::Phone),
];

fn write_events(log: &AuditLog, n: usize) {
    for i in 0..n {
        let (value, kind) = &VALUES[i % VALUES.len()];
        let token = Token::new(kind.clone(), (i / VALUES.len() + 1) as u32);
        let value = Sensitive::new((*value).to_string());
        let items = [Item {
            kind,
            token: Some(&token),
            value: Some(Sensitive::new(value.expose().as_str())),
            canonical: None,
        }];
        let id = serde_json::json!(i);
        log.record(&Event {
            session: "s-1",
            direction: if i % 2 == 0 {
                Direction::Inbound
            } else {
                Direction::Outbound
            },
            server: "crm",
            method: "tools/call",
            name: Some("get_contact"),
            request_id: Some(&id),
            event: if i % 2 == 0 {
                EventKind::Tokenized
            } else {
                EventKind::Restored
            },
            rule: (i % 2 == 1).then_some("crm-to-mail"),
            items: &items,
        })
        .unwrap();
    }
}

fn fresh(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(&path, key(), &config(0)).unwrap();
    write_events(&log, n);
    (dir, path)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .split_inclusive('\n')
        .map(str::to_string)
        .collect()
}

fn put(path: &Path, lines: &[String]) {
    std::fs::write(path, lines.concat()).unwrap();
}

fn verify(paths: &[PathBuf]) -> Result<VerifyReport, VerifyError> {
    verify_files(&key(), paths, VerifyOptions::default())
}

fn failure(paths: &[PathBuf]) -> (PathBuf, u64, Problem) {
    match verify(paths) {
        Err(VerifyError::Tampered {
            file,
            line,
            problem,
        }) => (file, line, problem),
        other => panic!("expected tampering to be found, got {other:?}"),
    }
}

#[test]
fn a_clean_log_verifies() {
    let (_d, path) = fresh(6);
    let r = verify(std::slice::from_ref(&path)).unwrap();
    // Six events and the seal written when the log closed.
    assert_eq!((r.lines, r.first_seq, r.last_seq), (7, 1, 7));
    assert_eq!((r.seals, r.sealed_through, r.unsealed), (1, 7, 0));
    assert!(r.closed);
    assert_eq!(r.last_mac.len(), 64);
}

#[test]
fn reopening_continues_the_chain() {
    let (_d, path) = fresh(3);
    let log = AuditLog::open(&path, key(), &config(0)).unwrap();
    write_events(&log, 2);
    drop(log);
    let r = verify(&[path]).unwrap();
    // 3 events, a close seal, 2 events, a close seal.
    assert_eq!((r.last_seq, r.seals), (7, 2));
}

#[test]
fn another_key_is_refused_on_open_and_fails_verification() {
    let (_d, path) = fresh(2);
    let other = AuditKey::from_material(b"a completely different key, 32+ bytes").unwrap();
    assert!(matches!(
        AuditLog::open(&path, other, &config(0)),
        Err(AuditError::Corrupt { .. })
    ));
    let other = AuditKey::from_material(b"a completely different key, 32+ bytes").unwrap();
    let err = verify_files(&other, &[path], VerifyOptions::default()).unwrap_err();
    assert!(matches!(
        err,
        VerifyError::Tampered {
            line: 1,
            problem: Problem::BadMac,
            ..
        }
    ));
}

#[test]
fn an_edited_line_is_found() {
    let (_d, path) = fresh(6);
    let mut l = lines(&path);
    l[3] = l[3].replace("\"restored\"", "\"kept\"");
    put(&path, &l);
    assert_eq!(
        failure(std::slice::from_ref(&path)),
        (path, 4, Problem::BadMac)
    );
}

#[test]
fn a_deleted_line_is_found() {
    let (_d, path) = fresh(6);
    let mut l = lines(&path);
    l.remove(2);
    put(&path, &l);
    assert_eq!(
        failure(std::slice::from_ref(&path)),
        (
            path,
            3,
            Problem::Gap {
                expected: 3,
                found: 4
            }
        )
    );
}

#[test]
fn deleting_the_first_line_is_found() {
    let (_d, path) = fresh(3);
    let mut l = lines(&path);
    l.remove(0);
    put(&path, &l);
    let (_, line, problem) = failure(std::slice::from_ref(&path));
    assert_eq!((line, problem), (1, Problem::MissingStart { found: 2 }));
    // Unless a partial start is allowed (older rotated files removed on purpose).
    let r = verify_files(
        &key(),
        &[path],
        VerifyOptions {
            allow_partial_start: true,
            ..VerifyOptions::default()
        },
    )
    .unwrap();
    assert_eq!((r.first_seq, r.last_seq), (2, 4));
}

#[test]
fn an_inserted_line_is_found() {
    // A forged line.
    let (_d, path) = fresh(6);
    let mut l = lines(&path);
    let forged = l[1].replace("get_contact", "get_contacts");
    l.insert(3, forged);
    put(&path, &l);
    assert_eq!(
        failure(std::slice::from_ref(&path)),
        (path.clone(), 4, Problem::BadMac)
    );
    // A copy of a genuine line.
    let mut l = lines(&path);
    l.remove(3);
    let copy = l[1].clone();
    l.insert(3, copy);
    put(&path, &l);
    assert_eq!(
        failure(std::slice::from_ref(&path)),
        (
            path,
            4,
            Problem::Replay {
                expected: 4,
                found: 2
            }
        )
    );
}

#[test]
fn reordered_lines_are_found() {
    let (_d, path) = fresh(6);
    let mut l = lines(&path);
    l.swap(2, 3);
    put(&path, &l);
    assert_eq!(
        failure(std::slice::from_ref(&path)),
        (
            path,
            3,
            Problem::Gap {
                expected: 3,
                found: 4
            }
        )
    );
}

#[test]
fn a_truncated_line_is_found() {
    // Cut in the middle of a line, keeping its newline.
    let (_d, path) = fresh(6);
    let mut l = lines(&path);
    l[4] = format!("{}\n", &l[4][..l[4].len() / 2]);
    put(&path, &l);
    assert_eq!(
        failure(std::slice::from_ref(&path)),
        (path.clone(), 5, Problem::Malformed)
    );
    // Cut at the end of the file (the last line loses its tail and newline).
    let (_d2, path) = fresh(6);
    let mut l = lines(&path);
    let last = l.len() - 1;
    let cut = l[last].len() - 10;
    l[last].truncate(cut);
    put(&path, &l);
    assert_eq!(
        failure(std::slice::from_ref(&path)),
        (path, last as u64 + 1, Problem::Incomplete)
    );
}

#[test]
fn a_spliced_prev_is_found() {
    // Two logs under the same key: a genuine line of one cannot stand in for the other's.
    let (_d1, a) = fresh(4);
    let (_d2, b) = fresh(4);
    let mut la = lines(&a);
    la[2] = lines(&b)[2].clone();
    put(&a, &la);
    // Timestamps differ, so the lines differ and the link from line 3 to line 4 is broken.
    let (_, line, problem) = failure(&[a]);
    assert!(
        (line == 3 || line == 4) && problem == Problem::BrokenLink,
        "{line} {problem:?}"
    );
}

#[test]
fn no_raw_value_reaches_the_file() {
    let (_d, path) = fresh(9);
    let text = std::fs::read_to_string(&path).unwrap();
    for (value, _) in VALUES {
        assert!(!text.contains(value), "{value} leaked");
        for word in value.split_whitespace().filter(|w| w.len() >= 5) {
            assert!(!text.contains(word), "{word} leaked");
        }
    }
    assert!(!text.contains("79460958"));
    assert!(text.contains("\"fp\":"));
    assert!(text.contains("[EMAIL_1]"));
}

#[test]
fn find_locates_every_event_of_a_value() {
    let (_d, path) = fresh(9);
    let k = key();
    let hits = find_value(
        &k,
        std::slice::from_ref(&path),
        "ALICE.planted@example.com",
        None,
        key::DEFAULT_REGIONS,
    )
    .unwrap();
    assert_eq!(hits.iter().map(|h| h.line).collect::<Vec<_>>(), [1, 4, 7]);
    // The phone, typed in another surface form.
    let hits = find_value(
        &k,
        std::slice::from_ref(&path),
        "+442079460958",
        Some(&Kind::Phone),
        key::DEFAULT_REGIONS,
    )
    .unwrap();
    assert_eq!(hits.iter().map(|h| h.line).collect::<Vec<_>>(), [3, 6, 9]);
    // The name, with other spacing and case.
    let hits = find_value(
        &k,
        std::slice::from_ref(&path),
        "bartholomew   PLANTEDNAME",
        None,
        &[],
    )
    .unwrap();
    assert_eq!(hits.len(), 3);
    // A kind filter that does not fit finds nothing; neither does another value.
    let hits = find_value(
        &k,
        std::slice::from_ref(&path),
        "alice.planted@example.com",
        Some(&Kind::Name),
        &[],
    )
    .unwrap();
    assert!(hits.is_empty());
    assert!(
        find_value(&k, &[path], "bob@example.com", None, &[])
            .unwrap()
            .is_empty()
    );
}

#[test]
fn rotation_continues_the_chain_across_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(&path, key(), &config(1500)).unwrap();
    write_events(&log, 20);
    drop(log);
    let files = log_files(&path).unwrap();
    assert!(files.len() >= 3, "{files:?}");
    for f in &files {
        assert!(std::fs::metadata(f).unwrap().len() <= 1500);
    }
    // Any order of the set verifies as one chain.
    let mut shuffled = files.clone();
    shuffled.reverse();
    let r = verify(&shuffled).unwrap();
    // 20 events, a rotation seal ending each rotated file, the close seal.
    assert_eq!((r.first_seq, r.last_seq), (1, r.lines));
    assert_eq!((r.lines - r.seals, r.seals), (20, files.len() as u64));
    assert!(r.closed);
    assert_eq!(r.files.last(), Some(&path));
    for f in &files[..files.len() - 1] {
        let l = lines(f);
        assert!(
            l.last().unwrap().contains("\"seal\":\"rotate\""),
            "{}",
            f.display()
        );
    }
    let before = r.last_seq;
    // A rotation that happened just before a crash leaves an empty current file: reopening
    // continues the chain from the newest rotated file.
    let next = files.len() as u64; // rotated files are .1 .. .(len-1)
    std::fs::rename(&path, writer::numbered(&path, next)).unwrap();
    std::fs::write(&path, "").unwrap();
    let log = AuditLog::open(&path, key(), &config(1500)).unwrap();
    write_events(&log, 1);
    drop(log);
    let r = verify(&log_files(&path).unwrap()).unwrap();
    assert_eq!((r.first_seq, r.last_seq), (1, before + 2));
}

#[test]
fn a_missing_middle_file_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(&path, key(), &config(1500)).unwrap();
    write_events(&log, 20);
    drop(log);
    let mut files = log_files(&path).unwrap();
    let removed = files.remove(1);
    assert!(removed.to_string_lossy().ends_with(".2"));
    let (file, line, problem) = failure(&files);
    assert_eq!(file, files[1]);
    assert_eq!(line, 1);
    assert!(matches!(problem, Problem::Gap { .. }));
}

#[test]
fn a_partial_last_line_is_cut_off_and_recorded_on_open() {
    let (_d, path) = fresh(4);
    // Simulate a crash mid-write: half a line at the end.
    let mut l = lines(&path);
    let half = l[1][..40].to_string();
    l.push(half.clone());
    put(&path, &l);
    // Verification reports it, and everything before it is intact.
    assert_eq!(
        failure(std::slice::from_ref(&path)),
        (path.clone(), 6, Problem::Incomplete)
    );
    let log = AuditLog::open(&path, key(), &config(0)).unwrap();
    write_events(&log, 1);
    drop(log);
    let r = verify(std::slice::from_ref(&path)).unwrap();
    // 4 events, a close seal, the recovery, 1 event, a close seal.
    assert_eq!(r.last_seq, 8);
    let l = lines(&path);
    assert!(l[5].contains("\"event\":\"recovered\""), "{}", l[5]);
    assert!(
        l[5].contains(&format!("\"dropped_bytes\":{}", half.len())),
        "{}",
        l[4]
    );
}

#[test]
fn from_config_follows_required() {
    // No path: off, or an error when required.
    assert!(
        AuditLog::from_config(&AuditConfig::default())
            .unwrap()
            .is_none()
    );
    let required = AuditConfig {
        required: true,
        ..AuditConfig::default()
    };
    assert!(matches!(
        AuditLog::from_config(&required),
        Err(AuditError::NoPath)
    ));
    // A key file works; a short one is an error.
    let dir = tempfile::tempdir().unwrap();
    let key_file = dir.path().join("audit.key");
    std::fs::write(&key_file, b"0123456789abcdef0123456789abcdef0123\n").unwrap();
    let c = AuditConfig {
        path: Some(dir.path().join("a.jsonl")),
        key_file: Some(key_file.clone()),
        fsync: FsyncPolicy::Always,
        required: true,
        ..AuditConfig::default()
    };
    // The environment variable, when set by the test runner's environment, would take
    // precedence; tests never set it, so the file is used.
    if std::env::var_os(KEY_ENV).is_none() {
        let log = AuditLog::from_config(&c).unwrap().unwrap();
        write_events(&log, 2);
        drop(log);
        std::fs::write(&key_file, b"short").unwrap();
        assert!(matches!(
            AuditLog::from_config(&c),
            Err(AuditError::Key(KeyError::TooShort(_)))
        ));
        let no_key = AuditConfig {
            key_file: None,
            ..c.clone()
        };
        assert!(matches!(
            AuditLog::from_config(&no_key),
            Err(AuditError::NoKey)
        ));
        let optional = AuditConfig {
            required: false,
            ..no_key
        };
        assert!(AuditLog::from_config(&optional).unwrap().is_none());
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Changing any one byte of any line (to another printable byte) is caught at that line.
    #[test]
    fn any_single_byte_edit_is_caught_at_its_line(
        line_pick in 0usize..6,
        byte_pick in proptest::prelude::any::<proptest::sample::Index>(),
        replacement in 0x20u8..0x7f,
    ) {
        let (_d, path) = fresh(6);
        let mut l = lines(&path);
        let mut bytes = l[line_pick].clone().into_bytes();
        // Any byte but the newline.
        let at = byte_pick.index(bytes.len() - 1);
        proptest::prop_assume!(bytes[at] != replacement);
        bytes[at] = replacement;
        l[line_pick] = String::from_utf8(bytes).unwrap();
        put(&path, &l);
        let (_, line, problem) = failure(std::slice::from_ref(&path));
        proptest::prop_assert_eq!(line, line_pick as u64 + 1);
        proptest::prop_assert!(
            matches!(problem, Problem::BadMac | Problem::Malformed),
            "{:?}",
            problem
        );
    }
}

#[test]
fn items_from_engine_types_fingerprint_alike() {
    use crate::vault::Entry;
    use crate::walk::FoundValues;
    let mut found = FoundValues::new();
    found.push(Kind::Email, "Erin.Items@Example.com", None);
    let token = Token::new(Kind::Email, 1);
    let entry = Entry {
        token: token.clone(),
        value: Sensitive::new("Erin.Items@Example.com".to_string()),
        origin: std::sync::Arc::from("crm/get"),
        created: std::time::SystemTime::now(),
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.jsonl");
    let log = AuditLog::open(&path, key(), &config(0)).unwrap();
    for (event, item) in [
        (
            EventKind::Tokenized,
            Item::tokenized(found.get(0).unwrap(), &token),
        ),
        (EventKind::Restored, Item::entry(&entry)),
        (EventKind::UnknownToken, Item::token_only(&token)),
    ] {
        log.record(&Event {
            session: "s",
            direction: Direction::Outbound,
            server: "mail",
            method: "tools/call",
            name: Some("send"),
            request_id: None,
            event,
            rule: None,
            items: &[item],
        })
        .unwrap();
    }
    drop(log);
    let hits = find_value(
        &key(),
        std::slice::from_ref(&path),
        "erin.items@example.com",
        None,
        &[],
    )
    .unwrap();
    assert_eq!(hits.iter().map(|h| h.line).collect::<Vec<_>>(), [1, 2]);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.to_lowercase().contains("erin"));
    assert!(text.contains("\"event\":\"unknown_token\""));
}

#[cfg(unix)]
#[test]
fn files_and_the_created_directory_are_owner_only_rotated_ones_too() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("logs/nested/audit.jsonl");
    let log = AuditLog::open(&path, key(), &config(1500)).unwrap();
    write_events(&log, 20);
    drop(log);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir.path().join("logs")), 0o700);
    assert_eq!(mode(&dir.path().join("logs/nested")), 0o700);
    let files = log_files(&path).unwrap();
    assert!(files.len() >= 3, "{files:?}");
    for f in &files {
        assert_eq!(mode(f), 0o600, "{}", f.display());
    }
}

fn verify_sealed(paths: &[PathBuf]) -> Result<VerifyReport, VerifyError> {
    verify_files(
        &key(),
        paths,
        VerifyOptions {
            require_sealed: true,
            ..VerifyOptions::default()
        },
    )
}

#[test]
fn lines_cut_after_the_last_seal_are_an_unsealed_tail() {
    let (_d, path) = fresh(5);
    assert!(verify_sealed(std::slice::from_ref(&path)).unwrap().closed);
    // Cut the close seal and the last event: the rest verifies, but is reported unsealed, and
    // is an error when a seal is required.
    let mut l = lines(&path);
    l.truncate(l.len() - 2);
    put(&path, &l);
    let r = verify(std::slice::from_ref(&path)).unwrap();
    assert_eq!((r.lines, r.seals, r.unsealed, r.closed), (4, 0, 4, false));
    let err = verify_sealed(std::slice::from_ref(&path)).unwrap_err();
    assert!(
        matches!(
            &err,
            VerifyError::Tampered {
                line: 4,
                problem: Problem::Unsealed { lines: 4 },
                ..
            }
        ),
        "{err}"
    );
    // Reopening seals the tail again on close (the log goes on from where it was cut).
    drop(AuditLog::open(&path, key(), &config(0)).unwrap());
    assert!(verify_sealed(&[path]).unwrap().closed);
}

#[test]
fn reopening_a_closed_log_without_events_adds_nothing() {
    let (_d, path) = fresh(2);
    let before = lines(&path);
    drop(AuditLog::open(&path, key(), &config(0)).unwrap());
    assert_eq!(lines(&path), before);
    // An empty log stays empty.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("a.jsonl");
    drop(AuditLog::open(&empty, key(), &config(0)).unwrap());
    assert_eq!(std::fs::read_to_string(&empty).unwrap(), "");
}

#[test]
fn a_deleted_newest_file_is_found_from_the_rotation_seal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(&path, key(), &config(1500)).unwrap();
    write_events(&log, 20);
    drop(log);
    let mut files = log_files(&path).unwrap();
    assert_eq!(files.pop(), Some(path.clone()));
    let (file, line, problem) = failure(&files);
    assert_eq!(file, *files.last().unwrap());
    assert_eq!(line, lines(&file).len() as u64);
    assert_eq!(problem, Problem::NextFileMissing);
    // Lines cut from the end of a rotated file (its seal too): the next file no longer links.
    let mut all = log_files(&path).unwrap();
    let first = all.remove(0);
    let mut l = lines(&first);
    l.truncate(l.len() - 2);
    put(&first, &l);
    all.insert(0, first);
    let (file, line, problem) = failure(&all);
    assert_eq!((file, line), (all[1].clone(), 1));
    assert!(matches!(problem, Problem::Gap { .. }), "{problem}");
}

#[test]
fn seals_every_n_lines_and_on_the_timer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(
        &path,
        key(),
        &AuditConfig {
            seal_every_lines: 3,
            seal_interval_seconds: 0,
            ..config(0)
        },
    )
    .unwrap();
    write_events(&log, 7);
    // Events 1-3, seal 4, events 5-7, seal 8, event 9; the log is still open.
    let r = verify(std::slice::from_ref(&path)).unwrap();
    assert_eq!(
        (r.last_seq, r.seals, r.sealed_through, r.unsealed),
        (9, 2, 8, 1)
    );
    assert!(!r.closed);
    drop(log);

    let timed = dir.path().join("timed.jsonl");
    let log = AuditLog::open(
        &timed,
        key(),
        &AuditConfig {
            seal_every_lines: 0,
            seal_interval_seconds: 1,
            ..config(0)
        },
    )
    .unwrap();
    write_events(&log, 2);
    std::thread::sleep(std::time::Duration::from_millis(1600));
    let r = verify(std::slice::from_ref(&timed)).unwrap();
    assert_eq!((r.last_seq, r.seals, r.unsealed), (3, 1, 0));
    let l = lines(&timed);
    assert!(
        l[2].contains("\"event\":\"sealed\",\"seal\":\"interval\""),
        "{}",
        l[2]
    );
    // Idle: no more seals while nothing is written.
    std::thread::sleep(std::time::Duration::from_millis(1200));
    assert_eq!(lines(&timed).len(), 3);
    drop(log);
    assert!(verify(&[timed]).unwrap().closed);
}
