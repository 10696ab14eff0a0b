//! How much memory one session costs in `MemoryVault`.
//!
//! Run: `cargo run --release --example session_memory [SESSIONS] [VALUES_PER_SESSION...]`
//! (defaults: 10000 sessions × 10, 50 and 200 values).
//!
//! Every allocation goes through a counting global allocator (`stats_alloc`), so the figure is
//! the live heap the vault holds after minting: session map, per-session tables, both indexes,
//! the stored values and their normal forms. Values are realistic (emails, phone numbers with an
//! E.164 canonical form, names) from `mcp_veil::testdata`; generating them happens outside the
//! measured region.

// The report is this example's output; stdout is not an MCP wire here.
#![allow(clippy::print_stdout)]

use std::alloc::System;
use std::time::Duration;

use mcp_veil::detect::Kind;
use mcp_veil::testdata::{self, Rng};
use mcp_veil::vault::{MemoryVault, MintRequest, SessionId};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

struct Value {
    kind: Kind,
    text: String,
    canonical: Option<String>,
}

fn values(rng: &mut Rng, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let name = testdata::full_name(rng);
            match i % 3 {
                0 => Value {
                    kind: Kind::Email,
                    text: testdata::email_for(rng, &name),
                    canonical: None,
                },
                1 => {
                    let text = testdata::phone(rng);
                    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
                    let canonical = if text.starts_with('+') {
                        format!("+{digits}")
                    } else {
                        format!("+1{digits}")
                    };
                    Value {
                        kind: Kind::Phone,
                        text,
                        canonical: Some(canonical),
                    }
                }
                _ => Value {
                    kind: Kind::Name,
                    text: format!("{name} {}", rng.below(1000)),
                    canonical: None,
                },
            }
        })
        .collect()
}

fn live(region: &Region<'_, System>) -> isize {
    let c = region.change();
    c.bytes_allocated as isize - c.bytes_deallocated as isize + c.bytes_reallocated
}

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let sessions = args.next().and_then(Result::ok).unwrap_or(10_000);
    let mut per_session: Vec<usize> = args.filter_map(Result::ok).collect();
    if per_session.is_empty() {
        per_session = vec![10, 50, 200];
    }
    println!("MemoryVault live heap after minting ({sessions} sessions)");
    println!("values/session  bytes/session  bytes/value  avg value length");
    for n in per_session {
        let mut rng = Rng::new(n as u64);
        let data: Vec<Vec<Value>> = (0..sessions).map(|_| values(&mut rng, n)).collect();
        let ids: Vec<SessionId> = (0..sessions)
            .map(|i| SessionId::new(format!("{i:032x}")))
            .collect();
        let avg_len = data.iter().flatten().map(|v| v.text.len()).sum::<usize>() as f64
            / (sessions * n) as f64;

        let region = Region::new(GLOBAL);
        let vault = MemoryVault::new(Duration::from_secs(3600), 100_000);
        for (id, vals) in ids.iter().zip(&data) {
            let requests: Vec<MintRequest<'_>> = vals
                .iter()
                .map(|v| MintRequest {
                    kind: &v.kind,
                    value: &v.text,
                    canonical: v.canonical.as_deref(),
                })
                .collect();
            vault.mint_now(id, "crm/get_contact", &requests).unwrap();
        }
        let bytes = live(&region);
        assert_eq!(vault.session_count(), sessions);
        println!(
            "{n:>14}  {:>13.0}  {:>11.1}  {avg_len:>16.1}",
            bytes as f64 / sessions as f64,
            bytes as f64 / (sessions * n) as f64,
        );
        drop(vault);
    }
}
