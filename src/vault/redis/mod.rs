//! The Redis vault: session tables shared by several `mcp-veil serve` replicas.
//!
//! Any replica can mint and resolve tokens for any session, and all of them agree: one value has
//! one token and one token one value, whichever replicas mint at the same moment. Redis never
//! holds a raw value or a plain hash of one (see [`VaultKey`]).
//!
//! # Key layout
//!
//! Each session owns three hashes. The `{…}` hash tag keeps them on one cluster slot, so the
//! scripts below may touch all three atomically (on Redis Cluster too):
//!
//! | key                   | field                      | value                                  |
//! |-----------------------|----------------------------|----------------------------------------|
//! | `veil:{session}:fp`   | fingerprint (32 raw bytes) | the token's number (`3`)               |
//! | `veil:{session}:tok`  | token without brackets (`EMAIL_3`) | the sealed entry (below)       |
//! | `veil:{session}:n`    | kind name (`EMAIL`)        | the last number minted for that kind   |
//! |                       | `#key`                     | the key-check value of the vault key   |
//!
//! The fingerprint is `HMAC-SHA256` of kind and normal form ([`super::normalize`]) under a key
//! derived from `MCP_VEIL_VAULT_KEY`. A sealed entry is `1 ‖ nonce(12) ‖ AES-256-GCM(created ms ‖
//! origin length ‖ origin ‖ value) ‖ tag(16)`, with the session and token as associated data, so
//! an entry moved to another token or session does not open. Session ids are used verbatim (Redis
//! keys are binary-safe; the four suffixes end in different letters, so no two sessions' keys
//! can collide).
//!
//! Every call on a session (mint, resolve) renews `EXPIRE ttl_seconds` on all three keys, so a
//! session disappears `ttl_seconds` after its last use; [`VaultBackend::end_session`] deletes
//! them at once. `veil:{session}:ended` marks a session its client terminated
//! ([`VaultBackend::mark_terminated`], `serve`'s `DELETE`), with the same TTL, so every replica
//! refuses its id afterwards. The per-session cap (`max_entries_per_session`) is checked inside the mint
//! script against `HLEN veil:{session}:tok`.
//!
//! # Minting under concurrency
//!
//! One Lua script (`MINT`, sent with `EVALSHA`, reloaded automatically after `NOSCRIPT`) does
//! the whole decision for a batch atomically. For each item (fingerprint, kind, wanted number,
//! sealed entry) it:
//!
//! 1. returns the existing number if the fingerprint is known;
//! 2. otherwise, if the wanted number is the kind's counter + 1 and the session is under its
//!    cap, stores counter, fingerprint → number and token → entry, and returns the number;
//! 3. otherwise returns 0 (not minted).
//!
//! After the items the reply lists each kind's counter as the script left it, so every reply
//! tells the client the session's current numbering.
//!
//! Redis runs scripts one at a time, so no two values can ever take one number and no value can
//! get two: the bijection holds by construction, not by timing.
//!
//! Because an entry's ciphertext is bound to its token, the client must know a value's number
//! before it can seal it. Each replica therefore keeps *hints* ([`hints`]): per session, the kind
//! counters and the fingerprints it has already seen. A batch's first script call looks up the
//! remembered values (wanted number 0) and commits the others numbered from the remembered
//! counters, so a replica that has the latest state mints any batch in **one round trip**. If
//! another replica minted into the session since (or the session expired), the script refuses the
//! stale numbers (rule 3), its reply carries the current counters, and the client renumbers and
//! commits the refused items: two round trips, more only while replicas keep racing on the same
//! session (bounded by [`RedisOptions::max_mint_attempts`], with jitter). Hints are never
//! trusted, only checked, so a stale one costs time, never correctness.
//!
//! Resolve is one script call too (`HGET` per token plus the TTL renewal).
//!
//! # Configuration
//!
//! ```yaml
//! vault:
//!   backend: redis
//!   url: redis://10.0.0.5:6379/0    # no password here: secrets stay out of the file
//!   ttl_seconds: 86400
//!   max_entries_per_session: 100000
//! ```
//!
//! The key comes from `MCP_VEIL_VAULT_KEY` (64 hex characters, the same on every replica) and
//! the Redis password, if Redis requires one, from [`REDIS_PASSWORD_ENV`]. A missing or malformed
//! key, a password inside `vault.url` or a missing `url` is a [`VaultError::Config`] at start-up.
//! [`super::from_config`] builds the backend without connecting; [`RedisVault::check`] probes
//! Redis.

//! # Failure and durability
//!
//! - **Fail closed.** Every public call has one deadline ([`RedisOptions::timeout`], 2 s by
//!   default) covering connection, retries and replies; when Redis cannot be reached in time the
//!   call returns [`VaultError::Unavailable`] (it never hangs and carries no values). Connection
//!   errors inside the deadline are retried, so a short Redis restart is invisible.
//! - **Recovery.** The connection is a [`ConnectionManager`], which reconnects by itself; once
//!   Redis answers again calls succeed with no action needed. A script lost by a restart is
//!   reloaded on `NOSCRIPT`.
//! - **Acknowledged means written.** A token is returned only after the script that stored both
//!   directions has run. Whether that write survives a Redis crash is Redis's persistence: use
//!   `appendonly yes` with `appendfsync always` for no loss of acknowledged mappings
//!   (`everysec` may lose the last second; RDB snapshots alone may lose minutes; asynchronous
//!   replicas may lose the tail on failover). A session whose table is lost while the model still
//!   holds its tokens loses its restores (unknown tokens) and restarts numbering at 1, so an old
//!   token could then name a new value: run Redis with AOF.
//! - **Wrong key.** A replica started with another `MCP_VEIL_VAULT_KEY` gets
//!   [`VaultError::Corrupt`] on mint (the session's `#key` check value differs) and on resolve
//!   (the entry fails authentication); it never mints duplicate tokens.
//!
//! Retrying a mint is safe: a commit that ran but whose reply was lost is seen as "known" on the
//! retry.

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::future::Future;
use std::hash::BuildHasher;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{
    Client, ConnectionInfo, ErrorKind, IntoConnectionInfo, RedisError, RedisResult, Script,
    ServerErrorKind,
};
use futures::FutureExt;
use futures::future::BoxFuture;
use tokio::sync::OnceCell;
use tokio::time::Instant;
use zeroize::Zeroizing;

mod hints;

use self::hints::Hints;
use super::key::{Fingerprint, VaultKey};
use super::{
    Entry, MintRequest, SessionId, StreamEvents, VaultBackend, VaultConfig, VaultError, normalize,
};
use crate::kind::Kind;
use crate::token::Token;

/// The mint script; see the module docs for its rules.
const MINT_LUA: &str = r#"
-- KEYS: fp, tok, n. ARGV: ttl, cap, key check, then per item: fingerprint, kind, wanted n
-- (0 = look up only), sealed entry. Returns one integer per item (n > 0: the item's token;
-- 0: not minted), then the final counter of each kind in the order the kinds first appear.
local ttl, cap, check = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local function touch()
  for k = 1, 3 do redis.call('EXPIRE', KEYS[k], ttl) end
end
local stored = redis.call('HGET', KEYS[3], '#key')
if stored and stored ~= check then
  touch()
  return redis.error_reply('VEILKEY session was written with another vault key')
end
local out, size, kinds, order = {}, nil, {}, {}
for i = 4, #ARGV, 4 do
  local fp, kind, want = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2])
  if not kinds[kind] then
    kinds[kind] = true
    order[#order + 1] = kind
  end
  local n = redis.call('HGET', KEYS[1], fp)
  if n then
    out[#out + 1] = tonumber(n)
  else
    local last = tonumber(redis.call('HGET', KEYS[3], kind) or '0')
    if want ~= last + 1 then
      out[#out + 1] = 0
    else
      size = size or redis.call('HLEN', KEYS[2])
      if size >= cap then
        touch()
        return redis.error_reply('VEILFULL session is full')
      end
      if not stored then
        redis.call('HSET', KEYS[3], '#key', check)
        stored = check
      end
      redis.call('HSET', KEYS[3], kind, want)
      redis.call('HSET', KEYS[1], fp, want)
      redis.call('HSET', KEYS[2], kind .. '_' .. want, ARGV[i + 3])
      size = size + 1
      out[#out + 1] = want
    end
  end
end
for _, kind in ipairs(order) do
  out[#out + 1] = tonumber(redis.call('HGET', KEYS[3], kind) or '0')
end
touch()
return out
"#;

/// The resolve script: the sealed entries of the given tokens, renewing the session's TTL.
const RESOLVE_LUA: &str = r#"
-- KEYS: fp, tok, n. ARGV: ttl, then token fields (EMAIL_3). Returns one entry or nil per field.
local out = {}
for i = 2, #ARGV do
  out[#out + 1] = redis.call('HGET', KEYS[2], ARGV[i])
end
for k = 1, 3 do redis.call('EXPIRE', KEYS[k], tonumber(ARGV[1])) end
return out
"#;

/// The environment variable that holds the Redis password, when Redis requires one.
pub const REDIS_PASSWORD_ENV: &str = "MCP_VEIL_REDIS_PASSWORD";

/// Pause between retries of a call that failed on a connection error.
const RETRY_PAUSE: Duration = Duration::from_millis(50);

/// Time limits and retry bounds of the Redis vault.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RedisOptions {
    /// The most one public call (mint, resolve, end) may take, retries included.
    pub timeout: Duration,
    /// The most one connection attempt may take.
    pub connect_timeout: Duration,
    /// The most commit attempts one mint makes while other replicas keep taking its numbers.
    pub max_mint_attempts: u32,
    /// How many fingerprints (plus sessions) this replica remembers to mint in one round trip
    /// (about 80 bytes each; 0 turns the hints off). See the module docs.
    pub hint_capacity: usize,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            timeout: Duration::from_secs(2),
            connect_timeout: Duration::from_millis(500),
            max_mint_attempts: 64,
            hint_capacity: 200_000,
        }
    }
}

impl RedisOptions {
    /// Sets the per-call deadline.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the connection attempt limit.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Sets how many fingerprints the replica remembers (0: none).
    pub fn hint_capacity(mut self, capacity: usize) -> Self {
        self.hint_capacity = capacity;
        self
    }
}

/// The Redis backend. Share it behind an `Arc`; it holds one multiplexed, self-reconnecting
/// connection, opened on first use.
pub struct RedisVault {
    client: Client,
    manager: OnceCell<ConnectionManager>,
    key: VaultKey,
    ttl_seconds: u64,
    cap: usize,
    options: RedisOptions,
    hints: Hints,
    mint_script: Script,
    resolve_script: Script,
}

impl RedisVault {
    /// A vault on the Redis at `url` (`redis://[user:password@]host:port/db`). Does not connect
    /// yet (a replica may start before Redis); see [`RedisVault::check`].
    pub fn new(
        url: &str,
        key: VaultKey,
        ttl: Duration,
        cap: usize,
    ) -> Result<RedisVault, VaultError> {
        RedisVault::build(parse_url(url)?, key, ttl, cap)
    }

    /// The vault the `vault:` section describes, with its key from `MCP_VEIL_VAULT_KEY` and the
    /// Redis password, if any, from [`REDIS_PASSWORD_ENV`].
    pub fn from_config(config: &VaultConfig) -> Result<RedisVault, VaultError> {
        require_url(config)?;
        let key = VaultKey::from_env()?;
        let password = match std::env::var(REDIS_PASSWORD_ENV) {
            Ok(p) => Some(Zeroizing::new(p)),
            Err(std::env::VarError::NotPresent) => None,
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(VaultError::Config(format!(
                    "{REDIS_PASSWORD_ENV} is not valid text"
                )));
            }
        };
        RedisVault::from_parts(config, key, password.as_deref().map(String::as_str))
    }

    /// What [`RedisVault::from_config`] refuses in the `vault:` section itself (no URL, a bad
    /// URL, a password in the URL, a zero TTL), without the environment or a connection.
    pub fn check_config(config: &VaultConfig) -> Result<(), VaultError> {
        let info = parse_url(require_url(config)?)?;
        if info.redis_settings().password().is_some() {
            return Err(VaultError::Config(format!(
                "vault.url must not contain a password (secrets stay out of the configuration \
                 file); set {REDIS_PASSWORD_ENV} instead"
            )));
        }
        if config.ttl_seconds == 0 {
            return Err(VaultError::Config(
                "vault.ttl_seconds must be at least 1 for the redis backend".into(),
            ));
        }
        Ok(())
    }

    /// [`RedisVault::from_config`] with the key and password given rather than read from the
    /// environment. Secrets never come from the YAML: a `vault.url` that carries a password is
    /// an error.
    pub fn from_parts(
        config: &VaultConfig,
        key: VaultKey,
        password: Option<&str>,
    ) -> Result<RedisVault, VaultError> {
        let mut info = parse_url(require_url(config)?)?;
        if info.redis_settings().password().is_some() {
            return Err(VaultError::Config(format!(
                "vault.url must not contain a password (secrets stay out of the configuration \
                 file); set {REDIS_PASSWORD_ENV} instead"
            )));
        }
        if let Some(password) = password {
            let settings = info.redis_settings().clone().set_password(password);
            info = info.set_redis_settings(settings);
        }
        RedisVault::build(
            info,
            key,
            Duration::from_secs(config.ttl_seconds),
            config.max_entries_per_session,
        )
    }

    fn build(
        info: ConnectionInfo,
        key: VaultKey,
        ttl: Duration,
        cap: usize,
    ) -> Result<RedisVault, VaultError> {
        let ttl_seconds = ttl.as_secs();
        if ttl_seconds == 0 {
            return Err(VaultError::Config(
                "vault.ttl_seconds must be at least 1 for the redis backend".into(),
            ));
        }
        let client = Client::open(info).map_err(|e| {
            VaultError::Config(format!("vault.url is not usable: {}", e.category()))
        })?;
        Ok(RedisVault {
            client,
            manager: OnceCell::new(),
            key,
            ttl_seconds,
            cap,
            hints: Hints::new(
                RedisOptions::default().hint_capacity,
                Duration::from_secs(ttl_seconds),
            ),
            options: RedisOptions::default(),
            mint_script: Script::new(MINT_LUA),
            resolve_script: Script::new(RESOLVE_LUA),
        })
    }

    /// Replaces the options (time limits, retry bound, hint capacity).
    pub fn with_options(mut self, options: RedisOptions) -> RedisVault {
        self.hints = Hints::new(options.hint_capacity, Duration::from_secs(self.ttl_seconds));
        self.options = options;
        self
    }

    /// Checks that Redis answers (`PING`) within the deadline; for start-up and health probes.
    pub async fn check(&self) -> Result<(), VaultError> {
        let deadline = Instant::now() + self.options.timeout;
        let _: String = self
            .with_retry(deadline, |mut conn| async move {
                ::redis::cmd("PING").query_async(&mut conn).await
            })
            .await
            .map_err(|e| self.map_error(e, None))?;
        Ok(())
    }

    async fn connection(&self) -> Result<ConnectionManager, VaultError> {
        self.manager
            .get_or_try_init(|| async {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(self.options.connect_timeout))
                    .set_response_timeout(Some(self.options.timeout))
                    .set_number_of_retries(1)
                    .set_min_delay(Duration::from_millis(20))
                    .set_max_delay(Duration::from_millis(200));
                ConnectionManager::new_lazy_with_config(self.client.clone(), config)
                    .map_err(|e| VaultError::Unavailable(format!("redis: {e}")))
            })
            .await
            .cloned()
    }

    /// Runs `op` until it succeeds, fails for a reason other than the connection, or the
    /// deadline passes.
    async fn with_retry<T, F, Fut>(&self, deadline: Instant, mut op: F) -> Result<T, Failure>
    where
        F: FnMut(ConnectionManager) -> Fut,
        Fut: Future<Output = RedisResult<T>>,
    {
        let conn = match tokio::time::timeout_at(deadline, self.connection()).await {
            Ok(conn) => conn.map_err(Failure::Vault)?,
            Err(_) => return Err(Failure::Deadline(None)),
        };
        loop {
            match tokio::time::timeout_at(deadline, op(conn.clone())).await {
                Err(_) => return Err(Failure::Deadline(None)),
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(e)) if is_transient(&e) => {
                    if Instant::now() + RETRY_PAUSE >= deadline {
                        return Err(Failure::Deadline(Some(e)));
                    }
                    tracing::debug!(error = %e, "redis vault: retrying after a connection error");
                    tokio::time::sleep(RETRY_PAUSE).await;
                }
                Ok(Err(e)) => return Err(Failure::Redis(e)),
            }
        }
    }

    fn map_error(&self, failure: Failure, session: Option<&SessionId>) -> VaultError {
        match failure {
            Failure::Vault(e) => e,
            Failure::Deadline(last) => VaultError::Unavailable(match last {
                Some(e) => format!(
                    "redis did not answer within {:?} (last error: {e})",
                    self.options.timeout
                ),
                None => format!("redis did not answer within {:?}", self.options.timeout),
            }),
            Failure::Redis(e) => match (e.code(), session) {
                (Some("VEILFULL"), Some(session)) => VaultError::SessionFull {
                    session: session.clone(),
                    cap: self.cap,
                },
                (Some("VEILKEY"), Some(session)) => VaultError::Corrupt(format!(
                    "session {session} was written with another {}",
                    super::key::KEY_ENV
                )),
                _ => VaultError::Unavailable(format!("redis: {e}")),
            },
        }
    }

    async fn mint_batch(
        &self,
        session: &SessionId,
        origin: &str,
        requests: &[MintRequest<'_>],
    ) -> Result<Vec<Token>, VaultError> {
        if requests.is_empty() {
            return Ok(Vec::new());
        }
        let deadline = Instant::now() + self.options.timeout;
        let keys = SessionKeys::new(session);

        // One item per distinct value; `slots[i]` is the item of request i.
        let mut items: Vec<Item<'_>> = Vec::with_capacity(requests.len());
        let mut by_fp: HashMap<Fingerprint, usize> = HashMap::with_capacity(requests.len());
        let mut slots = Vec::with_capacity(requests.len());
        for req in requests {
            let fp = self
                .key
                .fingerprint(req.kind, &normalize(req.kind, req.value, req.canonical));
            let next = items.len();
            let at = *by_fp.entry(fp).or_insert(next);
            if at == next {
                items.push(Item {
                    fp,
                    kind: req.kind,
                    value: req.value,
                    n: None,
                });
            }
            slots.push(at);
        }

        // The first call looks up what this replica has seen and commits the rest, numbered
        // from the counters it remembers; later calls renumber what the script refused.
        let guess = self.hints.guess(session, items.iter().map(|it| &it.fp));
        let mut counters: HashMap<&Kind, u32> = HashMap::new();
        for item in &items {
            counters
                .entry(item.kind)
                .or_insert_with(|| guess.counter(item.kind));
        }
        let first: Vec<usize> = (0..items.len())
            .filter(|&i| guess.known[i].is_none())
            .collect();
        let mut plan: Vec<Planned> = (0..items.len())
            .filter(|&i| guess.known[i].is_some())
            .map(|item| Planned {
                item,
                want: 0,
                sealed: Vec::new(),
            })
            .collect();
        plan.extend(self.number(session, origin, &items, &first, &counters)?);
        let mut attempt = 0;
        loop {
            let reply = self
                .run_mint(&keys, &items, &plan, deadline)
                .await
                .map_err(|f| self.map_error(f, Some(session)))?;
            // One result per item, then the counter of each kind in order of first appearance.
            let mut kinds: Vec<&Kind> = Vec::new();
            for p in &plan {
                if !kinds.contains(&items[p.item].kind) {
                    kinds.push(items[p.item].kind);
                }
            }
            if reply.len() != plan.len() + kinds.len() {
                return Err(VaultError::Corrupt(format!(
                    "redis answered {} results for {} values of {} kinds",
                    reply.len(),
                    plan.len(),
                    kinds.len()
                )));
            }
            let number = |r: i64| {
                u32::try_from(r).map_err(|_| {
                    VaultError::Corrupt(format!("redis answered an out-of-range number {r}"))
                })
            };
            let (results, tail) = reply.split_at(plan.len());
            let mut unknown = Vec::new();
            for (p, &r) in plan.iter().zip(results) {
                match number(r)? {
                    0 => unknown.push(p.item),
                    n => items[p.item].n = Some(n),
                }
            }
            for (kind, &c) in kinds.iter().zip(tail) {
                counters.insert(kind, number(c)?);
            }
            if unknown.is_empty() {
                break;
            }
            attempt += 1;
            if attempt > self.options.max_mint_attempts {
                return Err(VaultError::Unavailable(format!(
                    "could not mint into session {session} after {} attempts: other replicas \
                     kept taking the numbers",
                    self.options.max_mint_attempts
                )));
            }
            if attempt > 2 {
                // Several replicas are racing on this session: spread them out.
                let jitter = RandomState::new().hash_one(attempt) % (u64::from(attempt) * 2);
                tokio::time::sleep(Duration::from_millis(jitter)).await;
            }
            plan = self.number(session, origin, &items, &unknown, &counters)?;
        }
        self.hints.learn(
            session,
            counters.into_iter(),
            items
                .iter()
                .map(|it| (it.fp, it.n.expect("every item resolved"))),
        );
        Ok(slots
            .into_iter()
            .map(|i| {
                Token::new(
                    items[i].kind.clone(),
                    items[i].n.expect("every item resolved"),
                )
            })
            .collect())
    }

    /// Numbers `which` items from the kind counters (in order) and seals them for those tokens.
    fn number(
        &self,
        session: &SessionId,
        origin: &str,
        items: &[Item<'_>],
        which: &[usize],
        counters: &HashMap<&Kind, u32>,
    ) -> Result<Vec<Planned>, VaultError> {
        let mut next: HashMap<&Kind, u32> = HashMap::new();
        let now = SystemTime::now();
        which
            .iter()
            .map(|&i| {
                let item = &items[i];
                let c = next
                    .entry(item.kind)
                    .or_insert_with(|| counters.get(item.kind).copied().unwrap_or(0));
                *c = c.checked_add(1).ok_or_else(|| {
                    VaultError::Corrupt(format!("kind {} ran out of numbers", item.kind.as_str()))
                })?;
                let field = token_field(item.kind, *c);
                let sealed = self.key.seal(session, &field, origin, now, item.value)?;
                Ok(Planned {
                    item: i,
                    want: *c,
                    sealed,
                })
            })
            .collect()
    }

    /// One call of the mint script; items planned with `want` 0 are only looked up.
    async fn run_mint(
        &self,
        keys: &SessionKeys,
        items: &[Item<'_>],
        plan: &[Planned],
        deadline: Instant,
    ) -> Result<Vec<i64>, Failure> {
        let mut inv = self.mint_script.prepare_invoke();
        inv.key(&keys.fp[..])
            .key(&keys.tok[..])
            .key(&keys.n[..])
            .arg(self.ttl_seconds)
            .arg(self.cap)
            .arg(self.key.check_value());
        for p in plan {
            let item = &items[p.item];
            inv.arg(&item.fp[..])
                .arg(item.kind.as_str())
                .arg(p.want)
                .arg(&p.sealed[..]);
        }
        let inv = &inv;
        self.with_retry(deadline, |mut conn| async move {
            inv.invoke_async(&mut conn).await
        })
        .await
    }

    async fn resolve_batch(
        &self,
        session: &SessionId,
        tokens: &[Token],
    ) -> Result<Vec<Option<Entry>>, VaultError> {
        if tokens.is_empty() {
            return Ok(Vec::new());
        }
        let deadline = Instant::now() + self.options.timeout;
        let keys = SessionKeys::new(session);
        let fields: Vec<String> = tokens.iter().map(|t| token_field(&t.kind, t.n)).collect();
        let mut inv = self.resolve_script.prepare_invoke();
        inv.key(&keys.fp[..])
            .key(&keys.tok[..])
            .key(&keys.n[..])
            .arg(self.ttl_seconds);
        for field in &fields {
            inv.arg(field.as_str());
        }
        let inv = &inv;
        let reply: Vec<Option<Vec<u8>>> = self
            .with_retry(deadline, |mut conn| async move {
                inv.invoke_async(&mut conn).await
            })
            .await
            .map_err(|f| self.map_error(f, Some(session)))?;
        if reply.len() != tokens.len() {
            return Err(VaultError::Corrupt(format!(
                "redis answered {} entries for {} tokens",
                reply.len(),
                tokens.len()
            )));
        }
        let mut origins: HashMap<String, Arc<str>> = HashMap::new();
        tokens
            .iter()
            .zip(&fields)
            .zip(reply)
            .map(|((token, field), sealed)| {
                let Some(sealed) = sealed else {
                    return Ok(None);
                };
                let opened = self.key.open(session, field, &sealed)?;
                let origin = origins
                    .entry(opened.origin)
                    .or_insert_with_key(|o| Arc::from(o.as_str()))
                    .clone();
                Ok(Some(Entry {
                    token: token.clone(),
                    value: opened.value,
                    origin,
                    created: opened.created,
                }))
            })
            .collect()
    }

    /// [`VaultBackend::entries_after`]: the kind's counter (one `HGET`), then the entries above
    /// `after` through the resolve script. Numbers are minted in order without gaps, so the
    /// counter bounds them.
    async fn entries_after_number(
        &self,
        session: &SessionId,
        kind: &Kind,
        after: u32,
        limit: usize,
    ) -> Result<Vec<Entry>, VaultError> {
        let deadline = Instant::now() + self.options.timeout;
        let keys = &SessionKeys::new(session);
        let last: Option<u32> = self
            .with_retry(deadline, |mut conn| async move {
                ::redis::cmd("HGET")
                    .arg(&keys.n[..])
                    .arg(kind.as_str())
                    .query_async(&mut conn)
                    .await
            })
            .await
            .map_err(|f| self.map_error(f, Some(session)))?;
        let last = last.unwrap_or(0);
        let wanted = u32::try_from(limit).unwrap_or(u32::MAX);
        let upto = last.min(after.saturating_add(wanted));
        if upto <= after {
            return Ok(Vec::new());
        }
        let tokens: Vec<Token> = (after + 1..=upto)
            .map(|n| Token {
                kind: kind.clone(),
                n,
            })
            .collect();
        Ok(self
            .resolve_batch(session, &tokens)
            .await?
            .into_iter()
            .flatten()
            .collect())
    }

    async fn end(&self, session: &SessionId) -> Result<(), VaultError> {
        self.hints.forget(session);
        let deadline = Instant::now() + self.options.timeout;
        let keys = &SessionKeys::new(session);
        let _: i64 = self
            .with_retry(deadline, |mut conn| async move {
                ::redis::cmd("DEL")
                    .arg(&keys.fp[..])
                    .arg(&keys.tok[..])
                    .arg(&keys.n[..])
                    .query_async(&mut conn)
                    .await
            })
            .await
            .map_err(|f| self.map_error(f, Some(session)))?;
        Ok(())
    }

    /// `SET veil:{session}:ended 1 EX ttl`: every replica refuses the session for the TTL.
    async fn terminate(&self, session: &SessionId) -> Result<(), VaultError> {
        let deadline = Instant::now() + self.options.timeout;
        let key = &SessionKeys::new(session).ended;
        let ttl = self.ttl_seconds;
        let _: () = self
            .with_retry(deadline, |mut conn| async move {
                ::redis::cmd("SET")
                    .arg(&key[..])
                    .arg(1)
                    .arg("EX")
                    .arg(ttl)
                    .query_async(&mut conn)
                    .await
            })
            .await
            .map_err(|f| self.map_error(f, Some(session)))?;
        Ok(())
    }

    async fn terminated(&self, session: &SessionId) -> Result<bool, VaultError> {
        let deadline = Instant::now() + self.options.timeout;
        let key = &SessionKeys::new(session).ended;
        let n: i64 = self
            .with_retry(deadline, |mut conn| async move {
                ::redis::cmd("EXISTS")
                    .arg(&key[..])
                    .query_async(&mut conn)
                    .await
            })
            .await
            .map_err(|f| self.map_error(f, Some(session)))?;
        Ok(n > 0)
    }
}

/// The longest a stream's events are kept for resumption on another replica (at most the
/// vault's TTL).
const EVENTS_TTL_SECONDS: u64 = 3600;

impl RedisVault {
    /// The list holding a stream's events (sealed, bound to the session, stream and number).
    fn events_key(session: &SessionId, stream: &str) -> Vec<u8> {
        format!("veil:{{{}}}:ev:{stream}", session.as_str()).into_bytes()
    }

    async fn push_event(
        &self,
        session: &SessionId,
        stream: &str,
        seq: u64,
        event: &str,
        keep: usize,
    ) -> Result<(), VaultError> {
        let deadline = Instant::now() + self.options.timeout;
        let key = &Self::events_key(session, stream);
        let mut item = seq.to_be_bytes().to_vec();
        item.extend(self.key.seal(
            session,
            &format!("ev:{stream}:{seq}"),
            "",
            SystemTime::UNIX_EPOCH,
            event,
        )?);
        let item = &item;
        // Resumption is for a client that lost its connection, not for the vault's lifetime.
        let ttl = self.ttl_seconds.min(EVENTS_TTL_SECONDS);
        let keep = keep.max(1) as isize;
        let _: () = self
            .with_retry(deadline, |mut conn| async move {
                ::redis::pipe()
                    .cmd("RPUSH")
                    .arg(&key[..])
                    .arg(&item[..])
                    .ignore()
                    .cmd("LTRIM")
                    .arg(&key[..])
                    .arg(-keep)
                    .arg(-1)
                    .ignore()
                    .cmd("EXPIRE")
                    .arg(&key[..])
                    .arg(ttl)
                    .ignore()
                    .query_async(&mut conn)
                    .await
            })
            .await
            .map_err(|f| self.map_error(f, Some(session)))?;
        Ok(())
    }

    async fn events(
        &self,
        session: &SessionId,
        stream: &str,
    ) -> Result<Option<StreamEvents>, VaultError> {
        let deadline = Instant::now() + self.options.timeout;
        let key = &Self::events_key(session, stream);
        let items: Vec<Vec<u8>> = self
            .with_retry(deadline, |mut conn| async move {
                ::redis::cmd("LRANGE")
                    .arg(&key[..])
                    .arg(0)
                    .arg(-1)
                    .query_async(&mut conn)
                    .await
            })
            .await
            .map_err(|f| self.map_error(f, Some(session)))?;
        if items.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            if item.len() < 8 {
                return Err(VaultError::Corrupt("a stream event is malformed".into()));
            }
            let seq = u64::from_be_bytes(item[..8].try_into().expect("8 bytes"));
            let opened = self
                .key
                .open(session, &format!("ev:{stream}:{seq}"), &item[8..])?;
            out.push((seq, opened.value.expose().to_string()));
        }
        // Appends may land out of order (each is its own round trip).
        out.sort_by_key(|(seq, _)| *seq);
        Ok(Some(out))
    }
}

impl fmt::Debug for RedisVault {
    /// Shows limits only: the URL may hold a password and the key is secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisVault")
            .field("ttl_seconds", &self.ttl_seconds)
            .field("cap", &self.cap)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl VaultBackend for RedisVault {
    fn mint<'a>(
        &'a self,
        session: &'a SessionId,
        origin: &'a str,
        requests: &'a [MintRequest<'a>],
    ) -> BoxFuture<'a, Result<Vec<Token>, VaultError>> {
        self.mint_batch(session, origin, requests).boxed()
    }

    fn resolve<'a>(
        &'a self,
        session: &'a SessionId,
        tokens: &'a [Token],
    ) -> BoxFuture<'a, Result<Vec<Option<Entry>>, VaultError>> {
        self.resolve_batch(session, tokens).boxed()
    }

    fn end_session<'a>(&'a self, session: &'a SessionId) -> BoxFuture<'a, Result<(), VaultError>> {
        self.end(session).boxed()
    }

    fn mark_terminated<'a>(
        &'a self,
        session: &'a SessionId,
    ) -> BoxFuture<'a, Result<(), VaultError>> {
        self.terminate(session).boxed()
    }

    fn is_terminated<'a>(
        &'a self,
        session: &'a SessionId,
    ) -> BoxFuture<'a, Result<bool, VaultError>> {
        self.terminated(session).boxed()
    }

    fn shares_sessions(&self) -> bool {
        true
    }

    fn append_event<'a>(
        &'a self,
        session: &'a SessionId,
        stream: &'a str,
        seq: u64,
        event: &'a str,
        keep: usize,
    ) -> BoxFuture<'a, Result<(), VaultError>> {
        self.push_event(session, stream, seq, event, keep).boxed()
    }

    fn stream_events<'a>(
        &'a self,
        session: &'a SessionId,
        stream: &'a str,
    ) -> BoxFuture<'a, Result<Option<StreamEvents>, VaultError>> {
        self.events(session, stream).boxed()
    }

    fn ping(&self) -> BoxFuture<'_, Result<(), VaultError>> {
        Box::pin(self.check())
    }

    fn entries_after<'a>(
        &'a self,
        session: &'a SessionId,
        kind: &'a Kind,
        after: u32,
        limit: usize,
    ) -> BoxFuture<'a, Result<Vec<Entry>, VaultError>> {
        self.entries_after_number(session, kind, after, limit)
            .boxed()
    }
}

/// Why a Redis call failed, before it becomes a [`VaultError`].
enum Failure {
    /// No answer before the deadline; the last connection error, if any.
    Deadline(Option<RedisError>),
    /// Redis answered with an error.
    Redis(RedisError),
    /// Failed before reaching Redis.
    Vault(VaultError),
}

/// One distinct value of a mint batch.
struct Item<'r> {
    fp: Fingerprint,
    kind: &'r Kind,
    /// The surface form of its first request (the one restored).
    value: &'r str,
    n: Option<u32>,
}

/// One item of a mint script call.
struct Planned {
    /// Index into the batch's items.
    item: usize,
    /// The number to mint it as; 0 to look it up only.
    want: u32,
    /// Its entry sealed for that number (empty for a look-up).
    sealed: Vec<u8>,
}

/// The three keys of one session.
struct SessionKeys {
    fp: Vec<u8>,
    tok: Vec<u8>,
    n: Vec<u8>,
    /// Set when the session's client terminated it (`mark_terminated`); not dropped by `end`.
    ended: Vec<u8>,
}

impl SessionKeys {
    fn new(session: &SessionId) -> SessionKeys {
        let key = |suffix: &str| format!("veil:{{{}}}:{suffix}", session.as_str()).into_bytes();
        SessionKeys {
            fp: key("fp"),
            tok: key("tok"),
            n: key("n"),
            ended: key("ended"),
        }
    }
}

fn require_url(config: &VaultConfig) -> Result<&str, VaultError> {
    config
        .url
        .as_deref()
        .ok_or_else(|| VaultError::Config("vault.backend is redis but vault.url is not set".into()))
}

/// Parses a Redis URL. The URL may carry a password: errors never repeat it.
fn parse_url(url: &str) -> Result<ConnectionInfo, VaultError> {
    url.into_connection_info().map_err(|e| {
        VaultError::Config(format!(
            "vault.url is not a usable Redis URL (expected redis://host:port/db): {}",
            e.category()
        ))
    })
}

/// A token as a hash field: `EMAIL_3`.
fn token_field(kind: &Kind, n: u32) -> String {
    format!("{}_{n}", kind.as_str())
}

/// Errors that mean "Redis could not be reached right now"; retried within the deadline.
fn is_transient(e: &RedisError) -> bool {
    e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
        || matches!(
            e.kind(),
            ErrorKind::Server(
                ServerErrorKind::BusyLoading
                    | ServerErrorKind::TryAgain
                    | ServerErrorKind::MasterDown
            )
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> VaultKey {
        VaultKey::from_bytes(&[9; 32])
    }

    #[test]
    fn session_keys_share_a_hash_tag() {
        let k = SessionKeys::new(&SessionId::new("abc"));
        assert_eq!(k.fp, b"veil:{abc}:fp");
        assert_eq!(k.tok, b"veil:{abc}:tok");
        assert_eq!(k.n, b"veil:{abc}:n");
    }

    #[test]
    fn bad_urls_are_config_errors_without_the_url() {
        let err =
            RedisVault::new("http://user:hunter2@x", key(), Duration::from_secs(9), 5).unwrap_err();
        assert!(matches!(err, VaultError::Config(_)), "{err}");
        assert!(!err.to_string().contains("hunter2"), "{err}");
    }

    #[test]
    fn zero_ttl_is_rejected() {
        let err = RedisVault::new("redis://127.0.0.1:1/0", key(), Duration::ZERO, 5).unwrap_err();
        assert!(err.to_string().contains("ttl_seconds"), "{err}");
    }

    #[test]
    fn debug_shows_no_url_or_key() {
        let v = RedisVault::new(
            "redis://:hunter2@127.0.0.1:1/0",
            key(),
            Duration::from_secs(9),
            5,
        )
        .unwrap();
        let shown = format!("{v:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("ttl_seconds: 9"), "{shown}");
    }

    #[tokio::test]
    async fn unreachable_redis_fails_closed_within_the_deadline() {
        // Port 1 on loopback: nothing listens, connections are refused at once.
        let v = RedisVault::new("redis://127.0.0.1:1/0", key(), Duration::from_secs(9), 5)
            .unwrap()
            .with_options(RedisOptions::default().timeout(Duration::from_millis(300)));
        let started = std::time::Instant::now();
        let kind = Kind::Email;
        let req = [MintRequest {
            kind: &kind,
            value: "ann@x.io",
            canonical: None,
        }];
        let err = v.mint(&SessionId::new("s"), "o", &req).await.unwrap_err();
        assert!(matches!(err, VaultError::Unavailable(_)), "{err}");
        assert!(!err.to_string().contains("ann"), "{err}");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{:?}",
            started.elapsed()
        );
    }

    #[tokio::test]
    async fn a_silent_server_cannot_hang_a_call() {
        // Accepts connections and never answers, like a stalled Redis or a black-holed route.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let held = tokio::spawn(async move {
            let mut open = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                open.push(socket);
            }
        });
        let v = RedisVault::new(
            &format!("redis://127.0.0.1:{port}/0"),
            key(),
            Duration::from_secs(9),
            5,
        )
        .unwrap()
        .with_options(RedisOptions::default().timeout(Duration::from_millis(400)));
        let kind = Kind::Email;
        let req = [MintRequest {
            kind: &kind,
            value: "ann@x.io",
            canonical: None,
        }];
        for _ in 0..2 {
            let started = std::time::Instant::now();
            let err = v.mint(&SessionId::new("s"), "o", &req).await.unwrap_err();
            assert!(matches!(err, VaultError::Unavailable(_)), "{err}");
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "{:?}",
                started.elapsed()
            );
            let started = std::time::Instant::now();
            let err = v
                .resolve(&SessionId::new("s"), &[Token::new(Kind::Email, 1)])
                .await
                .unwrap_err();
            assert!(matches!(err, VaultError::Unavailable(_)), "{err}");
            assert!(
                started.elapsed() < Duration::from_secs(2),
                "{:?}",
                started.elapsed()
            );
        }
        held.abort();
    }
}
