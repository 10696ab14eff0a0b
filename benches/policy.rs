//! Flow-rule evaluation cost with 1,000 rules.
//!
//! Run: `cargo bench --bench policy`
//!
//! - `no_rule_for_destination`: 1,000 rules, none for this destination; a call with 8 tokens
//!   and 2 raw values (the common case: the prefilter in `check_call` rejects every rule once).
//! - `all_rules_for_destination_last_matches`: 1,000 rules that all name the destination; only
//!   the last one matches the tokens' origin, so each token walks all 1,000 (the worst case).
//! - `decide_token_x8`: the same worst case through the one-shot `decide_token` (no prefilter).

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_veil::Kind;
use mcp_veil::config::Config;
use mcp_veil::policy::{CallVerdict, Policy};
use mcp_veil::token::Token;

fn policy(rules: impl Fn(usize) -> String) -> Policy {
    let mut yaml = String::from("flows:\n  default: keep\n  rules:\n");
    for i in 0..1000 {
        yaml.push_str(&rules(i));
    }
    let config = Config::parse(&yaml, Path::new("bench.yaml")).expect("valid");
    Policy::from_config(&config).expect("valid")
}

fn call(p: &Policy, server: &str, tool: &str, tokens: &[Token]) -> bool {
    let mut c = p.check_call(server, tool);
    for (i, t) in tokens.iter().enumerate() {
        c.token(
            t,
            "crm/get_contact",
            if i % 2 == 0 { "to" } else { "body.text" },
        );
    }
    c.raw(&Kind::Email, "cc.0");
    c.raw(&Kind::Phone, "body.text");
    matches!(c.finish(), CallVerdict::Proceed)
}

fn bench(c: &mut Criterion) {
    let tokens: Vec<Token> = (1..=8)
        .map(|n| Token::new(if n % 2 == 0 { Kind::Email } else { Kind::Name }, n))
        .collect();

    let sparse = policy(|i| {
        format!(
            "    - name: r{i}\n      kinds: [EMAIL, NAME]\n      from: src{i}/*\n      to: dest{i}/send_*\n      args: [to, cc]\n      action: allow\n      raw: deny\n"
        )
    });
    c.bench_function("policy/no_rule_for_destination", |b| {
        b.iter(|| call(black_box(&sparse), "mail", "send_email", &tokens))
    });

    let dense = policy(|i| {
        let from = if i == 999 {
            "crm/*".to_string()
        } else {
            format!("src{i}/*")
        };
        format!(
            "    - name: r{i}\n      kinds: [EMAIL, NAME]\n      from: {from}\n      to: mail/send_*\n      args: [to, body]\n      action: allow\n"
        )
    });
    assert!(call(&dense, "mail", "send_email", &tokens));
    c.bench_function("policy/all_rules_for_destination_last_matches", |b| {
        b.iter(|| call(black_box(&dense), "mail", "send_email", &tokens))
    });
    c.bench_function("policy/decide_token_x8", |b| {
        b.iter(|| {
            for t in &tokens {
                black_box(dense.decide_token(&t.kind, "crm/get_contact", "mail/send_email", "to"));
            }
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
