//! The Redis vault against a real `redis-server` (started per test on a free loopback port; install
//! it with `.ci/install-redis.sh`).

mod support;

use std::collections::{BTreeSet, HashMap};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use mcp_veil::Kind;
use mcp_veil::token::Token;
use mcp_veil::vault::{
    self, BackendKind, KEY_ENV, MintRequest, RedisOptions, RedisVault, SessionId, VaultBackend,
    VaultConfig, VaultError, VaultKey, normalize,
};
use support::redis_server::RedisServer;

const KEY_A: &str = "8f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const KEY_B: &str = "0000000000000000000000000000000000000000000000000000000000000001";

fn vault_with(server: &RedisServer, key: &str, ttl: u64, cap: usize) -> RedisVault {
    RedisVault::new(
        &server.url(),
        VaultKey::from_hex(key).unwrap(),
        Duration::from_secs(ttl),
        cap,
    )
    .unwrap()
    .with_options(RedisOptions::default().timeout(Duration::from_secs(1)))
}

fn vault(server: &RedisServer) -> RedisVault {
    vault_with(server, KEY_A, 3600, 1000)
}

fn req<'a>(kind: &'a Kind, value: &'a str) -> MintRequest<'a> {
    MintRequest {
        kind,
        value,
        canonical: None,
    }
}

fn shown(tokens: &[Token]) -> Vec<String> {
    tokens.iter().map(ToString::to_string).collect()
}

async fn raw_conn(server: &RedisServer) -> redis::aio::MultiplexedConnection {
    redis::Client::open(server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

#[tokio::test]
async fn round_trip_with_stable_numbering() {
    let server = RedisServer::start();
    let v = vault(&server);
    let s = SessionId::new("s1");
    let (email, phone, name) = (Kind::Email, Kind::Phone, Kind::Name);
    let before = SystemTime::now();
    let first = v
        .mint(
            &s,
            "crm/list",
            &[
                req(&email, "ann@x.io"),
                MintRequest {
                    kind: &phone,
                    value: "(415) 555-0100",
                    canonical: Some("+14155550100"),
                },
                req(&email, "bob@x.io"),
                req(&email, "ANN@X.IO"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(
        shown(&first),
        ["[EMAIL_1]", "[PHONE_1]", "[EMAIL_2]", "[EMAIL_1]"]
    );
    let second = v
        .mint(
            &s,
            "crm/get",
            &[
                req(&email, "bob@x.io"),
                req(&email, "cy@x.io"),
                req(&name, "Ann  Lee"),
                MintRequest {
                    kind: &phone,
                    value: "+1 415 555 0100",
                    canonical: Some("+14155550100"),
                },
                req(&name, "ann lee"),
            ],
        )
        .await
        .unwrap();
    assert_eq!(
        shown(&second),
        [
            "[EMAIL_2]",
            "[EMAIL_3]",
            "[NAME_1]",
            "[PHONE_1]",
            "[NAME_1]"
        ]
    );
    let after = SystemTime::now();

    let mut tokens = first.clone();
    tokens.extend(second.iter().cloned());
    tokens.push(Token::new(Kind::Email, 9));
    tokens.push(Token::new(Kind::Custom("EMPLOYEE_ID".into()), 1));
    let entries = v.resolve(&s, &tokens).await.unwrap();
    let values: Vec<Option<&str>> = entries
        .iter()
        .map(|e| e.as_ref().map(|e| e.value.expose().as_str()))
        .collect();
    assert_eq!(
        values,
        [
            Some("ann@x.io"),
            Some("(415) 555-0100"),
            Some("bob@x.io"),
            Some("ann@x.io"),
            Some("bob@x.io"),
            Some("cy@x.io"),
            Some("Ann  Lee"),
            Some("(415) 555-0100"),
            Some("Ann  Lee"),
            None,
            None,
        ]
    );
    let e = entries[0].as_ref().unwrap();
    assert_eq!(e.token, tokens[0]);
    assert_eq!(&*e.origin, "crm/list");
    assert_eq!(&*entries[5].as_ref().unwrap().origin, "crm/get");
    // Stored with millisecond precision.
    assert!(e.created + Duration::from_millis(1) >= before && e.created <= after);

    // Empty batches cost nothing and succeed.
    assert!(v.mint(&s, "x", &[]).await.unwrap().is_empty());
    assert!(v.resolve(&s, &[]).await.unwrap().is_empty());
}

#[tokio::test]
async fn sessions_are_isolated() {
    let server = RedisServer::start();
    let v = vault(&server);
    let e = Kind::Email;
    // Session ids with key-syntax characters stay apart too.
    let ids = ["a", "b", "a}:fp", "{a}", "a:tok"];
    for (i, id) in ids.iter().enumerate() {
        let value = format!("user{i}@x.io");
        let t = v
            .mint(&SessionId::new(*id), "o", &[req(&e, &value)])
            .await
            .unwrap();
        assert_eq!(shown(&t), ["[EMAIL_1]"], "session {id}");
    }
    for (i, id) in ids.iter().enumerate() {
        let got = v
            .resolve(&SessionId::new(*id), &[Token::new(Kind::Email, 1)])
            .await
            .unwrap();
        assert_eq!(
            got[0].as_ref().unwrap().value.expose(),
            &format!("user{i}@x.io")
        );
    }
    let none = v
        .resolve(&SessionId::new("c"), &[Token::new(Kind::Email, 1)])
        .await
        .unwrap();
    assert_eq!(none, vec![None]);

    v.end_session(&SessionId::new("a")).await.unwrap();
    let gone = v
        .resolve(&SessionId::new("a"), &[Token::new(Kind::Email, 1)])
        .await
        .unwrap();
    assert_eq!(gone, vec![None]);
    let kept = v
        .resolve(&SessionId::new("a}:fp"), &[Token::new(Kind::Email, 1)])
        .await
        .unwrap();
    assert!(kept[0].is_some());
    let mut conn = raw_conn(&server).await;
    let left: i64 = redis::cmd("EXISTS")
        .arg("veil:{a}:fp")
        .arg("veil:{a}:tok")
        .arg("veil:{a}:n")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(left, 0);
    // Ending an unknown session is fine.
    v.end_session(&SessionId::new("never")).await.unwrap();
}

#[tokio::test]
async fn idle_sessions_expire_and_use_renews_them() {
    let server = RedisServer::start();
    let v = vault_with(&server, KEY_A, 2, 100);
    let s = SessionId::new("ttl");
    let e = Kind::Email;
    let t = v.mint(&s, "o", &[req(&e, "ann@x.io")]).await.unwrap();
    let mut conn = raw_conn(&server).await;
    for key in ["veil:{ttl}:fp", "veil:{ttl}:tok", "veil:{ttl}:n"] {
        let ttl: i64 = redis::cmd("PTTL")
            .arg(key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert!(ttl > 0 && ttl <= 2000, "{key}: {ttl}");
    }
    // Each use renews the TTL: three uses one second apart outlive the 2 s TTL.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let got = v.resolve(&s, &t).await.unwrap();
        assert!(got[0].is_some(), "a session in use must not expire");
    }
    tokio::time::sleep(Duration::from_millis(3000)).await;
    assert_eq!(v.resolve(&s, &t).await.unwrap(), vec![None]);
    let left: i64 = redis::cmd("EXISTS")
        .arg("veil:{ttl}:fp")
        .arg("veil:{ttl}:tok")
        .arg("veil:{ttl}:n")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(left, 0);
    // A fresh session numbers from 1 again.
    let again = v.mint(&s, "o", &[req(&e, "bob@x.io")]).await.unwrap();
    assert_eq!(shown(&again), ["[EMAIL_1]"]);
}

#[tokio::test]
async fn the_cap_is_a_clear_error() {
    let server = RedisServer::start();
    let v = vault_with(&server, KEY_A, 60, 3);
    let s = SessionId::new("cap");
    let (e, n) = (Kind::Email, Kind::Name);
    v.mint(
        &s,
        "o",
        &[req(&e, "a@x.io"), req(&n, "Ann Lee"), req(&e, "b@x.io")],
    )
    .await
    .unwrap();
    // Known values still get their tokens at the cap.
    let known = v.mint(&s, "o", &[req(&n, "ann lee")]).await.unwrap();
    assert_eq!(shown(&known), ["[NAME_1]"]);
    let err = v
        .mint(&s, "o", &[req(&e, "a@x.io"), req(&e, "secret@x.io")])
        .await
        .unwrap_err();
    assert!(
        matches!(err, VaultError::SessionFull { cap: 3, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("maximum of 3"), "{err}");
    assert!(!err.to_string().contains("secret"), "{err}");
    // Nothing was stored for the refused value and the keys still expire.
    let mut conn = raw_conn(&server).await;
    let len: i64 = redis::cmd("HLEN")
        .arg("veil:{cap}:tok")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(len, 3);
    let ttl: i64 = redis::cmd("TTL")
        .arg("veil:{cap}:fp")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(ttl > 0);
}

/// A tiny deterministic generator for the race test.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_minting_at_once_keep_a_bijection() {
    let server = RedisServer::start();
    let replicas = [Arc::new(vault(&server)), Arc::new(vault(&server))];
    let session = SessionId::new("race");
    let kinds = [Kind::Email, Kind::Name, Kind::Custom("EMPLOYEE_ID".into())];
    // 3 kinds x 30 values; emails also appear upper-cased (the same value).
    let mut pool: Vec<(Kind, String)> = Vec::new();
    for i in 0..30 {
        pool.push((kinds[0].clone(), format!("user{i}@x.io")));
        pool.push((kinds[0].clone(), format!("USER{i}@X.IO")));
        pool.push((kinds[1].clone(), format!("Person Number{i}")));
        pool.push((kinds[2].clone(), format!("E-{i:05}")));
    }
    let pool = Arc::new(pool);
    let mut conn = raw_conn(&server).await;

    let mut tasks = Vec::new();
    for t in 0..16u64 {
        let v = replicas[(t % 2) as usize].clone();
        let pool = pool.clone();
        let session = session.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ (t + 1).wrapping_mul(0x2545_F491));
            let mut seen: Vec<(Kind, String, Token)> = Vec::new();
            for _ in 0..25 {
                let size = 1 + (rng.next() % 12) as usize;
                let picks: Vec<usize> = (0..size)
                    .map(|_| (rng.next() % pool.len() as u64) as usize)
                    .collect();
                let reqs: Vec<MintRequest<'_>> =
                    picks.iter().map(|&i| req(&pool[i].0, &pool[i].1)).collect();
                let tokens = v.mint(&session, "race/tool", &reqs).await.unwrap();
                for (&i, token) in picks.iter().zip(tokens) {
                    seen.push((pool[i].0.clone(), pool[i].1.clone(), token));
                }
            }
            seen
        }));
    }
    let mut value_to_token: HashMap<(Kind, String), Token> = HashMap::new();
    let mut token_to_value: HashMap<Token, (Kind, String)> = HashMap::new();
    for task in tasks {
        for (kind, value, token) in task.await.unwrap() {
            assert_eq!(token.kind, kind);
            let normal = normalize(&kind, &value, None).into_owned();
            let key = (kind.clone(), normal);
            let t = value_to_token.entry(key.clone()).or_insert(token.clone());
            assert_eq!(*t, token, "one value got two tokens");
            let v = token_to_value.entry(token.clone()).or_insert(key.clone());
            assert_eq!(*v, key, "one token was given to two values");
        }
    }
    // Numbers are dense from 1 within each kind.
    for kind in &kinds {
        let numbers: BTreeSet<u32> = token_to_value
            .keys()
            .filter(|t| t.kind == *kind)
            .map(|t| t.n)
            .collect();
        let expected: BTreeSet<u32> = (1..=numbers.len() as u32).collect();
        assert_eq!(numbers, expected, "{}", kind.as_str());
    }
    assert!(
        token_to_value.len() > 60,
        "the race should mint most of the pool"
    );
    // The replicas really raced: some batches had numbers refused and minted again. (Calls
    // beyond the 400 batches; a few may be the first NOSCRIPT replies.)
    let calls = script_calls(&mut conn).await;
    eprintln!("race: {calls} script calls for 400 batches");
    assert!(
        calls > 400 + 20,
        "hardly any batch was refused: {calls} calls"
    );
    // Redis holds exactly those entries: no orphan commits, no lost ones.
    for key in ["veil:{race}:tok", "veil:{race}:fp"] {
        let len: usize = redis::cmd("HLEN")
            .arg(key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(len, token_to_value.len(), "{key}");
    }
    // Both replicas restore every token to its value.
    let tokens: Vec<Token> = token_to_value.keys().cloned().collect();
    for v in &replicas {
        let entries = v.resolve(&session, &tokens).await.unwrap();
        for (token, entry) in tokens.iter().zip(entries) {
            let entry = entry.expect("every minted token resolves");
            let (kind, normal) = &token_to_value[token];
            assert_eq!(normalize(kind, entry.value.expose(), None), normal.as_str());
            assert_eq!(&*entry.origin, "race/tool");
        }
    }
}

#[tokio::test]
async fn redis_never_holds_a_raw_value_or_its_plain_hash() {
    let server = RedisServer::start();
    let v = vault(&server);
    let (email, phone, name, card) = (Kind::Email, Kind::Phone, Kind::Name, Kind::CreditCard);
    let planted: &[(&Kind, &str, Option<&str>)] = &[
        (&email, "Alice.Wonder@Example.com", None),
        (&phone, "(415) 555-0100", Some("+14155550100")),
        (&name, "Alice Wonderland", None),
        (&card, "4111 1111 1111 1111", None),
    ];
    for session in ["one", "two"] {
        let reqs: Vec<MintRequest<'_>> = planted
            .iter()
            .map(|&(kind, value, canonical)| MintRequest {
                kind,
                value,
                canonical,
            })
            .collect();
        let tokens = v
            .mint(&SessionId::new(session), "crm/x", &reqs)
            .await
            .unwrap();
        assert_eq!(tokens.len(), 4);
    }

    let mut needles: Vec<Vec<u8>> = Vec::new();
    for &(kind, value, canonical) in planted {
        let normal = normalize(kind, value, canonical).into_owned();
        for text in [
            value.to_string(),
            value.to_lowercase(),
            normal.clone(),
            format!("{}\0{normal}", kind.as_str()),
        ] {
            let digest = ring::digest::digest(&ring::digest::SHA256, text.as_bytes());
            let hex: String = digest.as_ref().iter().map(|b| format!("{b:02x}")).collect();
            needles.push(digest.as_ref().to_vec());
            needles.push(hex.to_uppercase().into_bytes());
            needles.push(hex.into_bytes());
            needles.push(text.into_bytes());
        }
    }
    // Distinctive fragments too (a local part, a surname, the card's digits).
    for fragment in [
        "Alice",
        "alice",
        "Wonder",
        "wonder",
        "4111111111111111",
        "5550100",
    ] {
        needles.push(fragment.as_bytes().to_vec());
    }

    let mut conn = raw_conn(&server).await;
    let keys: Vec<Vec<u8>> = redis::cmd("KEYS")
        .arg("*")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(keys.len(), 6, "three hashes per session");
    let mut stored: Vec<Vec<u8>> = Vec::new();
    for key in keys {
        let kind: String = redis::cmd("TYPE")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(kind, "hash");
        let all: Vec<Vec<u8>> = redis::cmd("HGETALL")
            .arg(&key)
            .query_async(&mut conn)
            .await
            .unwrap();
        assert!(!all.is_empty());
        stored.push(key);
        stored.extend(all);
    }
    for blob in &stored {
        for needle in &needles {
            assert!(
                !blob.windows(needle.len()).any(|w| w == needle.as_slice()),
                "redis holds a raw value or its plain hash"
            );
        }
    }
}

#[tokio::test]
async fn another_key_cannot_read_or_extend_a_session() {
    let server = RedisServer::start();
    let right = vault_with(&server, KEY_A, 60, 100);
    let wrong = vault_with(&server, KEY_B, 60, 100);
    let s = SessionId::new("keys");
    let e = Kind::Email;
    let t = right.mint(&s, "o", &[req(&e, "ann@x.io")]).await.unwrap();

    let err = wrong.resolve(&s, &t).await.unwrap_err();
    assert!(matches!(err, VaultError::Corrupt(_)), "{err}");
    assert!(err.to_string().contains(KEY_ENV), "{err}");
    assert!(!err.to_string().contains("ann"), "{err}");

    let err = wrong
        .mint(&s, "o", &[req(&e, "ann@x.io")])
        .await
        .unwrap_err();
    assert!(matches!(err, VaultError::Corrupt(_)), "{err}");
    assert!(err.to_string().contains(KEY_ENV), "{err}");

    // The right key still works, and the wrong one is fine in its own sessions.
    let again = right.mint(&s, "o", &[req(&e, "ann@x.io")]).await.unwrap();
    assert_eq!(again, t);
    let own = wrong
        .mint(&SessionId::new("other"), "o", &[req(&e, "ann@x.io")])
        .await
        .unwrap();
    assert_eq!(shown(&own), ["[EMAIL_1]"]);
}

#[tokio::test]
async fn a_moved_entry_does_not_open() {
    let server = RedisServer::start();
    let v = vault(&server);
    let s = SessionId::new("move");
    let e = Kind::Email;
    v.mint(&s, "o", &[req(&e, "ann@x.io"), req(&e, "bob@x.io")])
        .await
        .unwrap();
    // Someone with write access to Redis swaps the two entries.
    let mut conn = raw_conn(&server).await;
    let one: Vec<u8> = redis::cmd("HGET")
        .arg("veil:{move}:tok")
        .arg("EMAIL_1")
        .query_async(&mut conn)
        .await
        .unwrap();
    let two: Vec<u8> = redis::cmd("HGET")
        .arg("veil:{move}:tok")
        .arg("EMAIL_2")
        .query_async(&mut conn)
        .await
        .unwrap();
    let _: () = redis::cmd("HSET")
        .arg("veil:{move}:tok")
        .arg("EMAIL_1")
        .arg(two)
        .arg("EMAIL_2")
        .arg(one)
        .query_async(&mut conn)
        .await
        .unwrap();
    let err = v
        .resolve(&s, &[Token::new(Kind::Email, 1)])
        .await
        .unwrap_err();
    assert!(matches!(err, VaultError::Corrupt(_)), "{err}");
    assert!(err.to_string().contains("[EMAIL_1]"), "{err}");
}

#[tokio::test]
async fn redis_down_fails_closed_and_recovery_is_automatic() {
    let mut server = RedisServer::start_persistent();
    let v = vault(&server); // 1 s deadline per call
    let s = SessionId::new("outage");
    let e = Kind::Email;
    let first = v.mint(&s, "o", &[req(&e, "ann@x.io")]).await.unwrap();
    assert_eq!(shown(&first), ["[EMAIL_1]"]);

    server.stop();
    let started = Instant::now();
    let err = v.mint(&s, "o", &[req(&e, "bob@x.io")]).await.unwrap_err();
    let took = started.elapsed();
    assert!(matches!(err, VaultError::Unavailable(_)), "{err}");
    assert!(!err.to_string().contains("bob"), "{err}");
    assert!(took < Duration::from_millis(1800), "took {took:?}");
    let started = Instant::now();
    let err = v.resolve(&s, &first).await.unwrap_err();
    assert!(matches!(err, VaultError::Unavailable(_)), "{err}");
    assert!(started.elapsed() < Duration::from_millis(1800));

    server.restart();
    // The first call after the restart may still meet the reconnect; within a few calls it works.
    let mut result = Err(VaultError::Unavailable("not tried".into()));
    for _ in 0..10 {
        result = v.resolve(&s, &first).await;
        if result.is_ok() {
            break;
        }
    }
    let entries = result.expect("the vault works again after Redis returns");
    // The mapping acknowledged before the crash survived it (AOF, fsync always).
    assert_eq!(entries[0].as_ref().unwrap().value.expose(), "ann@x.io");
    let next = v
        .mint(&s, "o", &[req(&e, "bob@x.io"), req(&e, "ann@x.io")])
        .await
        .unwrap();
    assert_eq!(shown(&next), ["[EMAIL_2]", "[EMAIL_1]"]);
}

#[tokio::test]
async fn from_config_builds_both_backends() {
    let memory = vault::from_config(&VaultConfig::default()).unwrap();
    let e = Kind::Email;
    let t = memory
        .mint(&SessionId::new("m"), "o", &[req(&e, "a@x.io")])
        .await
        .unwrap();
    assert_eq!(shown(&t), ["[EMAIL_1]"]);

    let no_url = VaultConfig {
        backend: BackendKind::Redis,
        ..VaultConfig::default()
    };
    let err = vault::from_config(&no_url).unwrap_err();
    assert!(err.to_string().contains("vault.url"), "{err}");
}

/// Runs [`key_from_env_child`] in a child process with `MCP_VEIL_VAULT_KEY` set to `key` (or
/// unset) and returns its combined output and success.
fn run_child(server_url: &str, key: Option<&str>) -> (bool, String) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "key_from_env_child",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ])
    .env("MCP_VEIL_TEST_CHILD_URL", server_url)
    .env_remove(KEY_ENV);
    if let Some(key) = key {
        cmd.env(KEY_ENV, key);
    }
    let out = cmd.output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

#[test]
fn the_key_comes_from_the_environment() {
    let server = RedisServer::start();
    let (ok, out) = run_child(&server.url(), None);
    assert!(!ok && out.contains("is not set"), "{out}");
    let (ok, out) = run_child(&server.url(), Some("not-hex"));
    assert!(!ok && out.contains("64 hex characters"), "{out}");
    assert!(!out.contains("not-hex"), "{out}");
    let (ok, out) = run_child(&server.url(), Some(KEY_A));
    assert!(ok && out.contains("CHILD MINTED [EMAIL_1]"), "{out}");
}

/// Does nothing unless started by [`the_key_comes_from_the_environment`].
#[test]
fn key_from_env_child() {
    let Ok(url) = std::env::var("MCP_VEIL_TEST_CHILD_URL") else {
        return;
    };
    let config = VaultConfig {
        backend: BackendKind::Redis,
        url: Some(url),
        ..VaultConfig::default()
    };
    let v = match vault::from_config(&config) {
        Ok(v) => v,
        Err(e) => panic!("CHILD ERROR {e}"),
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let e = Kind::Email;
    let t = rt
        .block_on(v.mint(&SessionId::new("env"), "o", &[req(&e, "a@x.io")]))
        .unwrap();
    eprintln!("CHILD MINTED {}", t[0]);
}

#[tokio::test]
async fn the_redis_password_comes_from_outside_the_config() {
    let server = RedisServer::start_with(&["--requirepass", "s3cret-pw"]);
    let mut config = VaultConfig {
        backend: BackendKind::Redis,
        url: Some(server.url()),
        ttl_seconds: 60,
        max_entries_per_session: 10,
    };
    let key = || VaultKey::from_hex(KEY_A).unwrap();
    let e = Kind::Email;
    let s = SessionId::new("pw");

    let good = RedisVault::from_parts(&config, key(), Some("s3cret-pw")).unwrap();
    good.check().await.unwrap();
    let t = good.mint(&s, "o", &[req(&e, "a@x.io")]).await.unwrap();
    assert_eq!(shown(&t), ["[EMAIL_1]"]);

    let bad = RedisVault::from_parts(&config, key(), Some("wrong"))
        .unwrap()
        .with_options(RedisOptions::default().timeout(Duration::from_millis(500)));
    let err = bad.mint(&s, "o", &[req(&e, "a@x.io")]).await.unwrap_err();
    assert!(matches!(err, VaultError::Unavailable(_)), "{err}");
    assert!(!err.to_string().contains("wrong"), "{err}");

    config.url = Some(server.url().replace("redis://", "redis://:s3cret-pw@"));
    let err = RedisVault::from_parts(&config, key(), None).unwrap_err();
    assert!(matches!(err, VaultError::Config(_)), "{err}");
    assert!(err.to_string().contains(vault::REDIS_PASSWORD_ENV), "{err}");
    assert!(!err.to_string().contains("s3cret"), "{err}");
}

/// Script calls (EVALSHA + EVAL) Redis has run since the last `CONFIG RESETSTAT`.
async fn script_calls(conn: &mut redis::aio::MultiplexedConnection) -> u64 {
    let info: String = redis::cmd("INFO")
        .arg("commandstats")
        .query_async(conn)
        .await
        .unwrap();
    info.lines()
        .filter(|l| l.starts_with("cmdstat_evalsha:") || l.starts_with("cmdstat_eval:"))
        .filter_map(|l| {
            l.split("calls=")
                .nth(1)?
                .split(',')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum()
}

#[tokio::test]
async fn a_batch_costs_one_round_trip_unless_another_replica_minted_meanwhile() {
    let server = RedisServer::start();
    let a = vault(&server);
    let b = vault(&server);
    let e = Kind::Email;
    // Load both scripts on the server first (a NOSCRIPT reply counts as a call).
    let w = a
        .mint(&SessionId::new("warm"), "o", &[req(&e, "w@x.io")])
        .await
        .unwrap();
    a.resolve(&SessionId::new("warm"), &w).await.unwrap();
    let mut conn = raw_conn(&server).await;
    let s = SessionId::new("trips");
    let mut total = 0;
    let _: () = redis::cmd("CONFIG")
        .arg("RESETSTAT")
        .query_async(&mut conn)
        .await
        .unwrap();

    let t = a
        .mint(&s, "o", &[req(&e, "1@x.io"), req(&e, "2@x.io")])
        .await
        .unwrap();
    assert_eq!(shown(&t), ["[EMAIL_1]", "[EMAIL_2]"]);
    total += 1;
    assert_eq!(
        script_calls(&mut conn).await,
        total,
        "new values, new session"
    );

    let t = a
        .mint(
            &s,
            "o",
            &[req(&e, "3@x.io"), req(&e, "1@x.io"), req(&e, "4@x.io")],
        )
        .await
        .unwrap();
    assert_eq!(shown(&t), ["[EMAIL_3]", "[EMAIL_1]", "[EMAIL_4]"]);
    total += 1;
    assert_eq!(script_calls(&mut conn).await, total, "known and new values");

    // Replica B has never seen the session: its guess (counter 0) is refused once.
    let t = b
        .mint(&s, "o", &[req(&e, "2@x.io"), req(&e, "5@x.io")])
        .await
        .unwrap();
    assert_eq!(shown(&t), ["[EMAIL_2]", "[EMAIL_5]"]);
    total += 2;
    assert_eq!(script_calls(&mut conn).await, total, "cold replica");

    // A's counter is now stale by one: one refusal, then the commit.
    let t = a.mint(&s, "o", &[req(&e, "6@x.io")]).await.unwrap();
    assert_eq!(shown(&t), ["[EMAIL_6]"]);
    total += 2;
    assert_eq!(script_calls(&mut conn).await, total, "stale replica");

    // Warm again: one call for new, known and resolve.
    let t = a.mint(&s, "o", &[req(&e, "7@x.io")]).await.unwrap();
    assert_eq!(shown(&t), ["[EMAIL_7]"]);
    total += 1;
    assert_eq!(
        script_calls(&mut conn).await,
        total,
        "warm replica, new value"
    );
    let t = a
        .mint(&s, "o", &[req(&e, "5@x.io"), req(&e, "7@x.io")])
        .await
        .unwrap();
    assert_eq!(shown(&t), ["[EMAIL_5]", "[EMAIL_7]"]);
    total += 1;
    assert_eq!(
        script_calls(&mut conn).await,
        total,
        "warm replica, known values"
    );
    a.resolve(&s, &t).await.unwrap();
    total += 1;
    assert_eq!(script_calls(&mut conn).await, total, "resolve");
}

#[tokio::test]
async fn entries_after_reads_only_newer_numbers_of_one_kind() {
    let server = RedisServer::start();
    let v = vault(&server);
    let s = SessionId::new("entries");
    let (email, name) = (Kind::Email, Kind::Name);
    v.mint(
        &s,
        "crm/list",
        &[
            req(&name, "Ann Lee"),
            req(&email, "ann@x.io"),
            req(&name, "Bo Diaz"),
            req(&name, "Cy Young"),
        ],
    )
    .await
    .unwrap();
    assert!(v.shares_sessions());
    let all = v.entries_after(&s, &name, 0, 100).await.unwrap();
    let values: Vec<&str> = all.iter().map(|e| e.value.expose().as_str()).collect();
    assert_eq!(values, ["Ann Lee", "Bo Diaz", "Cy Young"]);
    assert_eq!(all[2].token.to_string(), "[NAME_3]");
    let newer = v.entries_after(&s, &name, 2, 100).await.unwrap();
    assert_eq!(newer.len(), 1);
    assert_eq!(newer[0].value.expose(), "Cy Young");
    assert!(v.entries_after(&s, &name, 3, 100).await.unwrap().is_empty());
    assert_eq!(v.entries_after(&s, &name, 0, 2).await.unwrap().len(), 2);
    let unknown = SessionId::new("never used");
    assert!(
        v.entries_after(&unknown, &name, 0, 100)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn a_name_one_replica_tokenized_is_recalled_on_another() {
    use mcp_veil::{Detector, Engine};
    let server = RedisServer::start();
    let detector = Arc::new(Detector::with_defaults());
    let replica_a = Engine::new(detector.clone(), Arc::new(vault(&server)));
    let replica_b = Engine::new(detector, Arc::new(vault(&server)));
    let s = SessionId::new("recall across replicas");
    // Replica B has scanned this session before replica A tokenized the name.
    let before = replica_b
        .tokenize_text(&s, "mail/read", "nothing here yet")
        .await
        .unwrap();
    assert!(before.found.is_empty());
    let first = replica_a
        .tokenize_text(&s, "crm/get", "Thanks, Marisol Quintanilla")
        .await
        .unwrap();
    assert_eq!(first.text, "Thanks, [NAME_1]");
    // The lower-case repeat has no cue: only recall finds it. Replica B reads the names the
    // other replica minted at most `RECALL_SYNC_EVERY` after its last read.
    tokio::time::sleep(mcp_veil::engine::RECALL_SYNC_EVERY + Duration::from_millis(50)).await;
    let log = "Call log: marisol quintanilla rang back about order 4471.";
    let later = replica_b.tokenize_text(&s, "mail/read", log).await.unwrap();
    assert_eq!(later.text, "Call log: [NAME_1] rang back about order 4471.");
    // The name finder alone leaves the log as it is: recall made the difference.
    let fresh = replica_b
        .tokenize_text(&SessionId::new("another session"), "mail/read", log)
        .await
        .unwrap();
    assert!(fresh.found.is_empty());
}
