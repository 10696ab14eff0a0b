//! Audit write throughput (events/s): one `record` = fingerprint the values, format, chain MAC,
//! one `write` to an append-only file.
//!
//! Run: `cargo bench --bench audit`
//!
//! Each event carries 2 items (an email and a name with their tokens). `fsync_never` and
//! `fsync_interval` (1 s) measure the formatting/MAC/write path; `fsync_always` measures the
//! disk (it is only as fast as this machine's fsync).

use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_veil::Kind;
use mcp_veil::audit::{
    AuditConfig, AuditKey, AuditLog, Direction, Event, EventKind, FsyncPolicy, Item,
};
use mcp_veil::sensitive::Sensitive;
use mcp_veil::token::Token;

fn bench(c: &mut Criterion) {
    let email = Sensitive::new("alice.bench@example.com");
    let name = Sensitive::new("Alice Benchmark");
    let t1 = Token::new(Kind::Email, 1);
    let t2 = Token::new(Kind::Name, 1);
    let items = [
        Item {
            kind: &Kind::Email,
            token: Some(&t1),
            value: Some(email),
            canonical: None,
        },
        Item {
            kind: &Kind::Name,
            token: Some(&t2),
            value: Some(name),
            canonical: None,
        },
    ];
    let id = serde_json::json!(42);
    let event = Event {
        session: "0123456789abcdef0123456789abcdef",
        direction: Direction::Outbound,
        server: "mail",
        method: "tools/call",
        name: Some("send_email"),
        request_id: Some(&id),
        event: EventKind::Restored,
        rule: Some("crm-to-mail"),
        items: &items,
    };
    let mut group = c.benchmark_group("audit");
    group.throughput(Throughput::Elements(1));
    for (label, fsync) in [
        ("fsync_never", FsyncPolicy::Never),
        ("fsync_interval", FsyncPolicy::Interval),
        ("fsync_always", FsyncPolicy::Always),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = AuditConfig {
            fsync,
            max_file_bytes: 256 * 1024 * 1024,
            ..AuditConfig::default()
        };
        let key = AuditKey::from_material(b"bench-key-bench-key-bench-key-bench-key").expect("key");
        let log = AuditLog::open(&dir.path().join("audit.jsonl"), key, &config).expect("open");
        if fsync == FsyncPolicy::Always {
            group
                .measurement_time(Duration::from_secs(5))
                .sample_size(10);
        }
        group.bench_function(label, |b| b.iter(|| log.record(&event).expect("write")));
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
