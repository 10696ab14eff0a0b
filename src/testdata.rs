//! Deterministic synthetic documents for benches, tests and fuzz seeds.
//!
//! Throughput figures and tests must not depend on files outside the repository, and two runs must
//! see the same bytes, so the data is generated here from a seed with a small SplitMix64 generator
//! (no `rand` dependency). Every generator returns a [`Generated`]: the text and the raw values
//! planted in it, so a test can check that none of them leaks.
//!
//! - [`prose`]: English prose with roughly one PII item per 200 bytes (emails, phones in several
//!   national and international formats, person names, Luhn-valid card numbers);
//! - [`crm_json`]: a JSON tool result of CRM contact records;
//! - [`mcp_tool_result`]: the same records as an MCP `tools/call` result, JSON inside a text
//!   content item, as MCP servers usually return it;
//! - [`clean_text`]: source code and log lines without personal data.
//!
//! The values are fake. Phone numbers avoid the 555 exchange and are shaped to pass
//! libphonenumber validation, so they are found once the phone recognizer lands.

use std::fmt::Write;

/// A generated document and the raw values planted in it.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The document.
    pub text: String,
    /// Every planted value, as it appears in `text` (possibly more than once).
    pub planted: Vec<String>,
}

/// SplitMix64: tiny, fast, and good enough to vary test data deterministically.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Given names used by the generators.
pub const FIRST_NAMES: &[&str] = &[
    "Emily", "James", "Olivia", "Liam", "Sophia", "Noah", "Isabella", "Lucas", "Mia", "Ethan",
    "Amelia", "Mateo", "Harper", "Aiden", "Chloe", "Rahul", "Priya", "Wei", "Mei", "Hiroshi",
    "Yuki", "Fatima", "Omar", "Lena", "Jonas", "Camille", "Hugo", "Ana", "Joao", "Ingrid",
];

/// Surnames used by the generators.
pub const LAST_NAMES: &[&str] = &[
    "Johnson",
    "Smith",
    "Williams",
    "Garcia",
    "Martinez",
    "Brown",
    "Nguyen",
    "Okafor",
    "Muller",
    "Schneider",
    "Dubois",
    "Moreau",
    "Rossi",
    "Bianchi",
    "Sharma",
    "Patel",
    "Tanaka",
    "Sato",
    "Kowalski",
    "Novak",
    "Silva",
    "Santos",
    "Haddad",
    "Lindqvist",
    "Oconnell",
    "Fitzgerald",
];

const DOMAINS: &[&str] = &[
    "example.com",
    "mail.example.org",
    "acme-corp.io",
    "globex.co.uk",
    "initech.de",
];

const COMPANIES: &[&str] = &[
    "Acme Corporation",
    "Globex Industries",
    "Initech",
    "Umbrella Logistics",
    "Stark Manufacturing",
    "Wayne Analytics",
];

const FILLER: &[&str] = &[
    "The quarterly review covered pipeline health, churn and the renewal calendar.",
    "We agreed to revisit the pricing proposal after the board meeting next week.",
    "Shipping delays in the northern warehouse pushed two deliveries to Friday.",
    "The customer asked for a summary of open tickets and the expected resolution dates.",
    "Our support team closed most of the backlog before the holiday freeze.",
    "Please keep the attached notes confidential until the contract is signed.",
    "The integration test suite now runs in under ten minutes on the shared runners.",
    "Marketing wants a short case study once the pilot reaches its first milestone.",
    "Legal reviewed the data processing addendum and suggested two small changes.",
    "The new onboarding flow reduced drop-off on the second screen noticeably.",
];

/// A person's full name.
pub fn full_name(rng: &mut Rng) -> String {
    format!("{} {}", rng.pick(FIRST_NAMES), rng.pick(LAST_NAMES))
}

/// An email address derived from a name.
pub fn email_for(rng: &mut Rng, name: &str) -> String {
    let local: String = name
        .to_ascii_lowercase()
        .split(' ')
        .collect::<Vec<_>>()
        .join(".");
    let tag = if rng.below(4) == 0 { "+crm" } else { "" };
    format!("{local}{tag}{}@{}", rng.below(100), rng.pick(DOMAINS))
}

/// A phone number in one of several national and international formats.
pub fn phone(rng: &mut Rng) -> String {
    const AREAS: &[u32] = &[212, 303, 415, 512, 617, 646, 702, 818];
    let area = *rng.pick(AREAS);
    // Exchange 200..=999 but never 555 or an N11 code.
    let exchange = loop {
        let e = 200 + rng.below(800) as u32;
        if e != 555 && e % 100 != 11 {
            break e;
        }
    };
    let line = rng.below(10_000);
    match rng.below(6) {
        0 => format!("({area}) {exchange}-{line:04}"),
        1 => format!("{area}-{exchange}-{line:04}"),
        2 => format!("+1 {area} {exchange} {line:04}"),
        3 => format!("{area}.{exchange}.{line:04}"),
        4 => format!("+44 20 7946 {:04}", rng.below(1000)),
        _ => format!(
            "+49 30 {:04} {:04}",
            2000 + rng.below(8000),
            rng.below(10_000)
        ),
    }
}

/// `n` random hex digits, in upper or lower case.
pub fn hex(rng: &mut Rng, n: usize, upper: bool) -> String {
    let set: &[u8] = if upper {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    (0..n).map(|_| char::from(set[rng.below(16)])).collect()
}

/// A UUID, now and then in upper case.
pub fn uuid(rng: &mut Rng) -> String {
    let upper = rng.below(4) == 0;
    [8, 4, 4, 4, 12].map(|n| hex(rng, n, upper)).join("-")
}

/// An ISO 8601 timestamp with one of several separators, fractions and zones.
pub fn iso_timestamp(rng: &mut Rng) -> String {
    format!(
        "{}-{:02}-{:02}{}{:02}:{:02}:{:02}{}",
        1900 + rng.below(200),
        1 + rng.below(12),
        1 + rng.below(31),
        *rng.pick(&["T", " ", "t"]),
        rng.below(24),
        rng.below(60),
        rng.below(60),
        *rng.pick(&["", ".123", ".561913", "Z", "+02:00", ".5Z"])
    )
}

/// A Luhn-valid 16-digit card number, grouped in fours or not.
pub fn card(rng: &mut Rng) -> String {
    let mut digits: Vec<u32> = vec![4];
    for _ in 0..14 {
        digits.push(rng.below(10) as u32);
    }
    // Luhn: double every second digit from the right, counting the check digit as first.
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 0 {
                let x = d * 2;
                if x > 9 { x - 9 } else { x }
            } else {
                d
            }
        })
        .sum();
    digits.push((10 - sum % 10) % 10);
    let plain: String = digits.iter().map(|d| char::from(b'0' + *d as u8)).collect();
    if rng.below(2) == 0 {
        plain
    } else {
        plain
            .as_bytes()
            .chunks(4)
            .map(|c| std::str::from_utf8(c).unwrap_or_default())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// English prose of about `bytes` bytes with roughly one PII item per 200 bytes.
pub fn prose(seed: u64, bytes: usize) -> Generated {
    let mut rng = Rng::new(seed);
    let mut text = String::with_capacity(bytes + 256);
    let mut planted = Vec::new();
    let mut since = 0usize;
    while text.len() < bytes {
        let before = text.len();
        if since >= 160 {
            let name = full_name(&mut rng);
            match rng.below(4) {
                0 => {
                    let email = email_for(&mut rng, &name);
                    let _ = write!(text, "Please forward the draft to {email} today. ");
                    planted.push(email);
                }
                1 => {
                    let phone = phone(&mut rng);
                    let _ = write!(
                        text,
                        "You can reach the site office on {phone} after nine. "
                    );
                    planted.push(phone);
                }
                2 => {
                    let _ = write!(text, "{name} approved the change this morning. ");
                    planted.push(name);
                }
                _ => {
                    let card = card(&mut rng);
                    let _ = write!(text, "The refund goes back to card {card} as before. ");
                    planted.push(card);
                }
            }
            since = 0;
        } else {
            text.push_str(rng.pick::<&str>(FILLER));
            text.push(' ');
            if rng.below(5) == 0 {
                text.push('\n');
            }
        }
        since += text.len() - before;
    }
    Generated { text, planted }
}

/// One CRM contact record as a JSON object, appended to `out`.
fn contact(rng: &mut Rng, id: usize, out: &mut String, planted: &mut Vec<String>) {
    let name = full_name(rng);
    let email = email_for(rng, &name);
    let phone = phone(rng);
    let company = *rng.pick(COMPANIES);
    let note = *rng.pick(FILLER);
    let _ = write!(
        out,
        concat!(
            "{{\"id\":{id},\"full_name\":\"{name}\",\"email\":\"{email}\",\"phone\":\"{phone}\",",
            "\"company\":\"{company}\",\"title\":\"Account Manager\",\"status\":\"active\",",
            "\"score\":{score}.{frac},\"tags\":[\"renewal\",\"q{q}\"],\"owner\":{{\"team\":\"emea\",",
            "\"region\":\"north\"}},\"notes\":\"{note}\",\"created_at\":\"2026-0{month}-1{day}T09:30:00Z\"}}"
        ),
        id = id,
        name = name,
        email = email,
        phone = phone,
        company = company,
        score = rng.below(100),
        frac = rng.below(10),
        q = 1 + rng.below(4),
        note = note,
        month = 1 + rng.below(9),
        day = rng.below(10),
    );
    planted.push(name);
    planted.push(email);
    planted.push(phone);
}

/// A JSON tool result of CRM contact records, about `bytes` long:
/// `{"contacts":[{...}, ...],"total":N,"next_cursor":null}`.
pub fn crm_json(seed: u64, bytes: usize) -> Generated {
    let mut rng = Rng::new(seed);
    let mut text = String::with_capacity(bytes + 512);
    let mut planted = Vec::new();
    text.push_str("{\"contacts\":[");
    let mut n = 0;
    while text.len() < bytes.saturating_sub(40) || n == 0 {
        if n > 0 {
            text.push(',');
        }
        contact(&mut rng, n + 1, &mut text, &mut planted);
        n += 1;
    }
    let _ = write!(text, "],\"total\":{n},\"next_cursor\":null}}");
    Generated { text, planted }
}

/// An MCP `tools/call` JSON-RPC response whose text content is a [`crm_json`] document of about
/// `bytes` bytes (JSON inside a JSON string, escaped, as MCP servers return it).
pub fn mcp_tool_result(seed: u64, bytes: usize) -> Generated {
    let inner = crm_json(seed, (bytes - bytes / 8).saturating_sub(400));
    let mut text = String::with_capacity(inner.text.len() + inner.text.len() / 8 + 128);
    text.push_str(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"#);
    let escaped = inner.text.replace('\\', "\\\\").replace('"', "\\\"");
    text.push('"');
    text.push_str(&escaped);
    text.push('"');
    text.push_str(r#"}],"isError":false}}"#);
    Generated {
        text,
        planted: inner.planted,
    }
}

const CODE: &[&str] = &[
    "fn handle(req: &Request) -> Result<Response, Error> {",
    "    let body = req.body().map_err(Error::from)?;",
    "    for item in items.iter().filter(|i| i.is_active()) {",
    "        total += item.weight * factor;",
    "    }",
    "    if cache.contains_key(&key) { return Ok(cache[&key].clone()); }",
    "import { useState, useEffect } from \"react\";",
    "const [state, setState] = useState({ loading: true, rows: [] });",
    "def parse_config(path: str) -> dict:",
    "    with open(path, encoding=\"utf-8\") as fh:",
    "        return yaml.safe_load(fh) or {}",
    "SELECT id, status, updated_at FROM orders WHERE status = 'open' ORDER BY id LIMIT 50;",
    "}",
];

const LOG_WORDS: &[&str] = &[
    "request completed",
    "cache miss",
    "retrying upstream call",
    "connection pool grew",
    "job scheduled",
    "health check ok",
    "config reloaded",
    "slow query detected",
];

const LEVELS: &[&str] = &["INFO", "DEBUG", "WARN", "TRACE"];

/// Source code and log lines of about `bytes` bytes with no personal data (short numbers only,
/// no addresses, no names).
pub fn clean_text(seed: u64, bytes: usize) -> Generated {
    let mut rng = Rng::new(seed);
    let mut text = String::with_capacity(bytes + 256);
    while text.len() < bytes {
        if rng.below(2) == 0 {
            for _ in 0..1 + rng.below(6) {
                text.push_str(rng.pick::<&str>(CODE));
                text.push('\n');
            }
        } else {
            let _ = writeln!(
                text,
                "{} [{}] worker={} {} latency_ms={} route=/api/v2/{} status={}",
                rng.pick(LEVELS),
                ["http", "db", "queue", "auth"][rng.below(4)],
                rng.below(16),
                rng.pick(LOG_WORDS),
                rng.below(900),
                ["orders", "items", "search", "health"][rng.below(4)],
                [200, 204, 304, 404, 503][rng.below(5)],
            );
        }
    }
    Generated {
        text,
        planted: Vec::new(),
    }
}

/// Tool-call arguments (~64 KB, a `tools/call` params object) whose strings hold tokens minted
/// in `session`: the outbound side of the benches.
pub fn tool_call_arguments(
    vault: &crate::vault::MemoryVault,
    session: &crate::vault::SessionId,
) -> String {
    let mut rng = Rng::new(5);
    let (email, phone_kind, name) = (
        crate::detect::Kind::Email,
        crate::detect::Kind::Phone,
        crate::detect::Kind::Name,
    );
    let mut values = Vec::new();
    for _ in 0..200 {
        let n = full_name(&mut rng);
        values.push((&email, email_for(&mut rng, &n)));
        values.push((&phone_kind, phone(&mut rng)));
        values.push((&name, n));
    }
    let requests: Vec<crate::vault::MintRequest<'_>> = values
        .iter()
        .map(|(kind, value)| crate::vault::MintRequest {
            kind,
            value,
            canonical: None,
        })
        .collect();
    let tokens: Vec<String> = vault
        .mint_now(session, "bench", &requests)
        .unwrap()
        .iter()
        .map(ToString::to_string)
        .collect();
    let mut messages = Vec::new();
    while serde_json::to_string(&messages).unwrap().len() < 64 * 1024 {
        let i = messages.len() % (tokens.len() / 3);
        messages.push(serde_json::json!({
            "to": tokens[3 * i],
            "cc": [tokens[(3 * i + 3) % tokens.len()]],
            "subject": "Follow-up on the renewal",
            "body": format!(
                "Hi {}, as discussed please call {} before Friday. Regards, the account team.",
                tokens[3 * i + 2], tokens[3 * i + 1]
            ),
            "priority": 2,
        }));
    }
    serde_json::json!({"name": "send_batch", "arguments": {"messages": messages}}).to_string()
}

/// The names bench's text (`cargo bench --bench names`, `detect/prose_names`; `names_cost
/// bench`): lines of about 330 bytes, each four short templates with names in most of them
/// ("Hi Megan, ...", "Contact Dr. Okafor at the office; ...") and lower-case filler sentences.
/// Its own generator (xorshift64*), so the text stays the one every measurement of it in
/// `benches/README.md` counted.
pub fn name_dense_lines(bytes: usize) -> Vec<String> {
    name_lines::lines(bytes)
}

/// The names bench's clean text (`detect/clean_code_logs`): log lines and Rust source lines,
/// no personal data, from the same generator as [`name_dense_lines`].
pub fn code_log_lines(bytes: usize) -> Vec<String> {
    name_lines::clean(bytes)
}

/// The names bench's generator, as `benches/names.rs` had it (its own xorshift64* and word
/// lists): kept apart from the SplitMix64 generators above so that its bytes never change.
pub mod secrets;

mod name_lines {
    const FIRST: &[&str] = &[
        "Maria", "James", "Aisha", "Wei", "Olga", "Carlos", "Megan", "Omar", "Priya", "Jean-Luc",
        "Sofia", "Liam", "Fatima", "Hiroshi", "Ana", "Kevin", "Zoë", "Dmitri", "Grace", "Mateo",
    ];
    const LAST: &[&str] = &[
        "Ortiz", "Smith", "Nguyen", "Patel", "O'Neil", "McDonald", "Kowalski", "García", "Chen",
        "Müller", "Johnson", "Haas", "Okafor", "Rossi", "Tanaka", "Small", "Rice", "Dubois",
    ];
    const WORDS: &[&str] = &[
        "the",
        "report",
        "was",
        "sent",
        "to",
        "our",
        "team",
        "before",
        "noon",
        "and",
        "it",
        "covers",
        "budget",
        "review",
        "for",
        "next",
        "quarter",
        "with",
        "several",
        "open",
        "questions",
        "about",
        "shipping",
        "invoices",
        "customer",
        "feedback",
        "release",
        "notes",
        "may",
        "will",
        "grant",
        "access",
        "after",
        "meeting",
    ];
    const TEMPLATES: &[&str] = &[
        "Hi {F}, {S}.",
        "Please loop in {F} {L} about {S}.",
        "{F} {L} said that {S}.",
        "Contact Dr. {L} at the office; {S}.",
        "-- {F} {L} | support desk",
        "Thanks, {F}. {S}.",
        "{S}. {S}.",
        "The ticket is assigned to {L}; {S}.",
    ];

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize
        }
        fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
            list[self.next() % list.len()]
        }
    }

    fn sentence(rng: &mut Rng) -> String {
        let n = 6 + rng.next() % 8;
        let mut s: Vec<String> = (0..n).map(|_| rng.pick(WORDS).to_string()).collect();
        let first = s[0].remove(0).to_ascii_uppercase();
        s[0].insert(0, first);
        s.join(" ")
    }

    pub(super) fn lines(bytes: usize) -> Vec<String> {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut lines = Vec::new();
        let mut total = 0;
        while total < bytes {
            let mut line = String::new();
            for _ in 0..4 {
                let mut t = rng.pick(TEMPLATES).to_string();
                while let Some(i) = t.find("{S}") {
                    t.replace_range(i..i + 3, &sentence(&mut rng).to_lowercase());
                }
                t = t
                    .replace("{F}", rng.pick(FIRST))
                    .replace("{L}", rng.pick(LAST));
                line.push_str(&t);
                line.push(' ');
            }
            line.push('\n');
            total += line.len();
            lines.push(line);
        }
        lines
    }

    pub(super) fn clean(bytes: usize) -> Vec<String> {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut lines = Vec::new();
        let mut total = 0;
        while total < bytes {
            let line = match rng.next() % 3 {
                0 => format!(
                    "2026-01-13T19:43:{:02}.989Z ERROR cpu::super: copy request heap section request_id={:x} retry={}\n",
                    rng.next() % 60,
                    rng.next(),
                    rng.next() % 9
                ),
                1 => format!(
                    "    let {} = transform.bandwidth({})?; // Ok(Capacity::new(trace))\n",
                    rng.pick(WORDS),
                    rng.next() % 5000
                ),
                _ => {
                    "pub fn string(link: &Inode, drop_config_batch: usize) -> Result<Batch, Error> {\n"
                        .to_string()
                }
            };
            total += line.len();
            lines.push(line);
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_and_sized() {
        let a = prose(7, 10_000);
        assert_eq!(a.text, prose(7, 10_000).text);
        assert_ne!(a.text, prose(8, 10_000).text);
        assert!(a.text.len() >= 10_000 && a.text.len() < 10_400);
        // About one item per 200 bytes.
        let per = a.text.len() / a.planted.len();
        assert!((150..=260).contains(&per), "{per} bytes per item");
        for v in &a.planted {
            assert!(a.text.contains(v.as_str()));
        }
    }

    #[test]
    fn json_documents_parse() {
        let crm = crm_json(1, 50_000);
        let v: serde_json::Value = serde_json::from_str(&crm.text).unwrap();
        let n = v["contacts"].as_array().unwrap().len();
        assert_eq!(v["total"], n);
        let mcp = mcp_tool_result(1, 10_000);
        let v: serde_json::Value = serde_json::from_str(&mcp.text).unwrap();
        let inner = v["result"]["content"][0]["text"].as_str().unwrap();
        assert!(serde_json::from_str::<serde_json::Value>(inner).is_ok());
        assert!(
            (9_000..11_000).contains(&mcp.text.len()),
            "{}",
            mcp.text.len()
        );
    }

    #[test]
    fn cards_pass_luhn() {
        let mut rng = Rng::new(3);
        for _ in 0..100 {
            let c: Vec<u32> = card(&mut rng)
                .chars()
                .filter_map(|c| c.to_digit(10))
                .collect();
            let sum: u32 = c
                .iter()
                .rev()
                .enumerate()
                .map(|(i, &d)| {
                    if i % 2 == 1 {
                        (d * 2) % 9 + u32::from(d == 9) * 9
                    } else {
                        d
                    }
                })
                .sum();
            assert_eq!(c.len(), 16);
            assert_eq!(sum % 10, 0);
        }
    }

    #[test]
    fn the_names_bench_text_is_the_one_earlier_rounds_measured() {
        let lines = name_dense_lines(1 << 20);
        assert_eq!(lines.len(), 3190);
        assert_eq!(lines.iter().map(String::len).sum::<usize>(), 1_048_661);
        assert!(lines[0].starts_with("Please loop in Wei Haas about report sent it next"));
        assert!(code_log_lines(1 << 20).iter().all(|l| !l.contains('@')));
    }

    #[test]
    fn clean_text_has_no_planted_values() {
        let c = clean_text(1, 5_000);
        assert!(c.planted.is_empty());
        assert!(!c.text.contains('@'));
    }
}
