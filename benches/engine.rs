//! Engine throughput and latency on deterministic data from `mcp_veil::testdata`.
//!
//! Run: `cargo bench --bench engine -- --noplot --warm-up-time 1 --measurement-time 3`
//! (one group: append its name, e.g. `-- json_tool_result`). Single thread; the vault is a
//! `MemoryVault` driven with `futures::executor::block_on` (its futures are ready at once).
//!
//! - `prose`: detect + tokenize 1 MB of prose with ~1 PII item per 200 bytes;
//! - `json_tool_result`: `Engine::tokenize_json` over a 1 MB CRM contacts result;
//! - `json_scan`: the walk alone (lexer + detector, no vault, no rewrite) over the same;
//! - `clean_text`: 1 MB of code and logs without PII (the no-copy fast path);
//! - `rehydrate`: `Engine::rehydrate_json` over tool-call arguments full of tokens;
//! - `latency_10kb`: one 10 KB MCP tool result (JSON inside a JSON string), end to end.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::executor::block_on;
use mcp_veil::testdata;
use mcp_veil::vault::{MemoryVault, SessionId};
use mcp_veil::{Detector, Engine, walk};

const MB: usize = 1 << 20;

fn engine() -> (Engine, Arc<MemoryVault>) {
    let vault = Arc::new(MemoryVault::default());
    let engine = Engine::new(Arc::new(Detector::with_defaults()), vault.clone());
    (engine, vault)
}

fn tokenize(c: &mut Criterion) {
    let (engine, _) = engine();
    let session = SessionId::new("bench");

    let prose = testdata::prose(1, MB).text;
    let mut g = c.benchmark_group("prose");
    g.throughput(Throughput::Bytes(prose.len() as u64));
    g.bench_function("tokenize_text_1mb", |b| {
        b.iter(|| block_on(engine.tokenize_text(&session, "bench", black_box(&prose))).unwrap())
    });
    g.finish();

    let crm = testdata::crm_json(2, MB).text;
    let mut g = c.benchmark_group("json_tool_result");
    g.throughput(Throughput::Bytes(crm.len() as u64));
    g.bench_function("tokenize_json_1mb", |b| {
        b.iter(|| block_on(engine.tokenize_json(&session, "bench", black_box(&crm))).unwrap())
    });
    g.finish();

    let mut g = c.benchmark_group("json_scan");
    g.throughput(Throughput::Bytes(crm.len() as u64));
    g.bench_function("scan_json_1mb", |b| {
        b.iter(|| walk::scan_json(engine.detector(), black_box(&crm)).unwrap())
    });
    g.finish();

    let clean = testdata::clean_text(3, MB).text;
    let mut g = c.benchmark_group("clean_text");
    g.throughput(Throughput::Bytes(clean.len() as u64));
    g.bench_function("tokenize_text_1mb", |b| {
        b.iter(|| block_on(engine.tokenize_text(&session, "bench", black_box(&clean))).unwrap())
    });
    g.finish();

    let result = testdata::mcp_tool_result(4, 10 * 1024).text;
    let mut g = c.benchmark_group("latency_10kb");
    g.throughput(Throughput::Bytes(result.len() as u64));
    g.bench_function("tool_result", |b| {
        b.iter(|| block_on(engine.tokenize_json(&session, "bench", black_box(&result))).unwrap())
    });
    g.finish();
}

fn rehydrate(c: &mut Criterion) {
    let (engine, vault) = engine();
    let session = SessionId::new("bench");
    let args = testdata::tool_call_arguments(&vault, &session);
    let mut g = c.benchmark_group("rehydrate");
    g.throughput(Throughput::Bytes(args.len() as u64));
    g.bench_function("rehydrate_json_64kb", |b| {
        b.iter(|| block_on(engine.rehydrate_json(&session, black_box(&args))).unwrap())
    });
    g.finish();
}

criterion_group!(benches, tokenize, rehydrate);
criterion_main!(benches);
