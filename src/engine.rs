//! The engine: a detector and a vault, tokenizing and rehydrating whole documents.
//!
//! [`Engine`] glues the three steps of [`crate::walk`] (scan, vault call, apply) together for
//! callers that want a document in and a document out: the CLI, the MCP interceptor, library
//! users. It is cheap to clone (two `Arc`s) and shared across tasks.

use std::borrow::Cow;
use std::sync::Arc;

use crate::detect::recall::{MAX_RECALLED_NAMES, Recall, RecallBook};
use crate::detect::{Detector, FindContext, Kind};
use crate::token::Token;
use crate::vault::{Entry, MintRequest, SessionId, VaultBackend, VaultError};
use crate::walk::{self, FoundTokenAt, FoundValue, WalkError};

/// How often, at most, a session's names that other replicas tokenized are read from a shared
/// vault before a scan: a name one replica tokenizes is recalled on the others within this.
pub const RECALL_SYNC_EVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// Detector + vault.
#[derive(Clone, Debug)]
pub struct Engine {
    detector: Arc<Detector>,
    vault: Arc<dyn VaultBackend>,
    /// Names each session has tokenized, when the detector recalls names.
    recall: Option<Arc<RecallBook>>,
}

/// A tokenized document and what was replaced in it.
#[derive(Debug)]
pub struct Tokenized<'a> {
    /// The document with every value replaced by its token (borrowed when nothing was found).
    pub text: Cow<'a, str>,
    /// Each occurrence replaced, in document order.
    pub found: Vec<FoundValue>,
    /// The token of each occurrence, parallel to `found`.
    pub tokens: Vec<Token>,
}

/// A scanned outbound document: its tokens, resolved, ready for a decision and [`walk::apply`].
#[derive(Debug)]
pub struct Resolved {
    /// Where each token occurs.
    pub findings: walk::Findings<FoundTokenAt>,
    /// The vault entry of each occurrence (`None`: the session never minted it).
    pub entries: Vec<Option<Entry>>,
}

impl Resolved {
    /// Tokens the session never minted, deduplicated, in order of first occurrence.
    pub fn unknown_tokens(&self) -> Vec<Token> {
        let mut out: Vec<Token> = Vec::new();
        for (slot, entry) in self.findings.slots.iter().zip(&self.entries) {
            if entry.is_none() && !out.contains(&slot.token) {
                out.push(slot.token.clone());
            }
        }
        out
    }
}

/// Why the engine could not rewrite a document. Messages carry token names, never values.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The document could not be scanned or rewritten.
    #[error(transparent)]
    Walk(#[from] WalkError),
    /// The vault failed (full session, backend down).
    #[error(transparent)]
    Vault(#[from] VaultError),
    /// Outbound text names tokens this session never minted.
    #[error("unknown token(s) in this session: {}", list(.0))]
    UnknownTokens(Vec<Token>),
}

fn list(tokens: &[Token]) -> String {
    tokens
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Engine {
    /// An engine over a compiled detector and a vault backend.
    pub fn new(detector: Arc<Detector>, vault: Arc<dyn VaultBackend>) -> Engine {
        let recall = detector
            .recalls_names()
            .then(|| Arc::new(RecallBook::default()));
        Engine {
            detector,
            vault,
            recall,
        }
    }

    /// The detector.
    pub fn detector(&self) -> &Arc<Detector> {
        &self.detector
    }

    /// The vault.
    pub fn vault(&self) -> &Arc<dyn VaultBackend> {
        &self.vault
    }

    /// Ends a session: drops its vault table and the names it recalls.
    pub async fn end_session(&self, session: &SessionId) -> Result<(), EngineError> {
        if let Some(book) = &self.recall {
            book.forget(session);
        }
        Ok(self.vault.end_session(session).await?)
    }

    /// The session's recalled names, compiled (see [`crate::detect::recall`]). With a vault
    /// shared by replicas, first reads the names other replicas tokenized since the last read
    /// (at most every [`RECALL_SYNC_EVERY`]); if the vault cannot be read, recall goes on with
    /// the names this process knows.
    pub(crate) async fn recall_for(&self, session: &SessionId) -> Option<Arc<Recall>> {
        self.read_recall(session).await.0
    }

    /// [`Self::recall_for`], and the error if the shared vault could not be reached to bring the
    /// session's names up to date.
    async fn read_recall(&self, session: &SessionId) -> (Option<Arc<Recall>>, Option<VaultError>) {
        let Some(book) = self.recall.as_ref() else {
            return (None, None);
        };
        let mut unreachable = None;
        if self.vault.shares_sessions()
            && let Some(after) = book.sync_due(session, RECALL_SYNC_EVERY)
        {
            match self
                .vault
                .entries_after(session, &Kind::Name, after, MAX_RECALLED_NAMES)
                .await
            {
                Ok(entries) => {
                    if let Some(last) = entries.last() {
                        book.synced(session, last.token.n);
                    }
                    self.recall_names(session, entries.iter().map(|e| e.value.expose().as_str()));
                }
                Err(error) => {
                    tracing::warn!(
                        %error,
                        "session recall: could not read the names other replicas tokenized"
                    );
                    if matches!(error, VaultError::Unavailable(_)) {
                        unreachable = Some(error);
                    }
                }
            }
        }
        (book.snapshot(session), unreachable)
    }

    /// Teaches the session names it tokenized earlier (a session restored from a file), so they
    /// are recalled like names found in this process. Values that are not distinctive enough
    /// are skipped, as they are when found.
    pub fn recall_names<'v>(&self, session: &SessionId, names: impl IntoIterator<Item = &'v str>) {
        let Some(book) = &self.recall else { return };
        book.learn(
            session,
            names
                .into_iter()
                .filter(|v| self.detector.is_distinctive_name(v)),
        );
    }

    /// Teaches the session the distinctive names among `found`, just tokenized.
    fn learn_names(&self, session: &SessionId, found: &[FoundValue]) {
        self.recall_names(
            session,
            found
                .iter()
                .filter(|f| f.kind == Kind::Name)
                .map(|f| f.value.expose().as_str()),
        );
    }

    /// Tokenizes a JSON document in place. `origin` is recorded with each minted token.
    pub async fn tokenize_json<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        doc: &'a str,
    ) -> Result<Tokenized<'a>, EngineError> {
        self.tokenize_json_except(session, origin, doc, &|_| false)
            .await
    }

    /// Tokenizes a JSON document in place, leaving alone the string values `skip` selects
    /// (binary blobs). Used by the MCP interceptor.
    pub(crate) async fn tokenize_json_except<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        doc: &'a str,
        skip: &(dyn Fn(&walk::json::Position<'_>) -> bool + Sync),
    ) -> Result<Tokenized<'a>, EngineError> {
        let (recall, unreachable) = self.read_recall(session).await;
        let findings = walk::scan_json_except(&self.detector, recall.as_deref(), doc, skip)?;
        // Learning the names found copies the session's recall tables if a snapshot is held.
        drop(recall);
        self.finish_tokenize(session, origin, doc, findings, unreachable)
            .await
    }

    /// Tokenizes text (JSON or CSV inside it keep their structure).
    pub async fn tokenize_text<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        text: &'a str,
    ) -> Result<Tokenized<'a>, EngineError> {
        let (recall, unreachable) = self.read_recall(session).await;
        let cx = FindContext {
            recall: recall.as_deref(),
            ..FindContext::default()
        };
        let findings = walk::scan_text(&self.detector, text, &cx);
        drop(recall);
        self.finish_tokenize(session, origin, text, findings, unreachable)
            .await
    }

    async fn finish_tokenize<'a>(
        &self,
        session: &SessionId,
        origin: &str,
        doc: &'a str,
        findings: walk::Findings<FoundValue>,
        vault_unreachable: Option<VaultError>,
    ) -> Result<Tokenized<'a>, EngineError> {
        if findings.is_empty() {
            return Ok(Tokenized {
                text: Cow::Borrowed(doc),
                found: Vec::new(),
                tokens: Vec::new(),
            });
        }
        // The vault just failed to answer within its whole deadline: fail closed now rather
        // than wait that deadline a second time for the mint.
        if let Some(error) = vault_unreachable {
            return Err(error.into());
        }
        let requests: Vec<MintRequest<'_>> = findings
            .slots
            .iter()
            .map(|f| MintRequest {
                kind: &f.kind,
                value: f.value.expose(),
                canonical: f.canonical.as_deref(),
            })
            .collect();
        let tokens = self.vault.mint(session, origin, &requests).await?;
        drop(requests);
        self.learn_names(session, &findings.slots);
        let (buf, ends) = walk::token_text_buffer(&tokens);
        let mut start = 0;
        let texts: Vec<&str> = ends
            .iter()
            .map(|&end| {
                let text = &buf[start..end];
                start = end;
                text
            })
            .collect();
        let text = walk::apply(doc, &findings, &texts)?;
        drop(texts);
        Ok(Tokenized {
            text,
            found: findings.slots,
            tokens,
        })
    }

    /// Scans a JSON document for tokens and resolves them, without rewriting it yet.
    pub async fn resolve_json(
        &self,
        session: &SessionId,
        doc: &str,
    ) -> Result<Resolved, EngineError> {
        let findings = walk::scan_tokens_json(doc)?;
        self.finish_resolve(session, findings).await
    }

    /// Scans text for tokens and resolves them, without rewriting it yet.
    pub async fn resolve_text(
        &self,
        session: &SessionId,
        text: &str,
    ) -> Result<Resolved, EngineError> {
        self.finish_resolve(session, walk::scan_tokens_text(text))
            .await
    }

    async fn finish_resolve(
        &self,
        session: &SessionId,
        findings: walk::Findings<FoundTokenAt>,
    ) -> Result<Resolved, EngineError> {
        if findings.is_empty() {
            return Ok(Resolved {
                findings,
                entries: Vec::new(),
            });
        }
        let tokens: Vec<Token> = findings.slots.iter().map(|s| s.token.clone()).collect();
        let entries = self.vault.resolve(session, &tokens).await?;
        Ok(Resolved { findings, entries })
    }

    /// Restores every token in a JSON document; unknown tokens are an error.
    pub async fn rehydrate_json<'a>(
        &self,
        session: &SessionId,
        doc: &'a str,
    ) -> Result<Cow<'a, str>, EngineError> {
        let resolved = self.resolve_json(session, doc).await?;
        restore_all(doc, &resolved)
    }

    /// Restores every token in text; unknown tokens are an error.
    pub async fn rehydrate_text<'a>(
        &self,
        session: &SessionId,
        text: &'a str,
    ) -> Result<Cow<'a, str>, EngineError> {
        let resolved = self.resolve_text(session, text).await?;
        restore_all(text, &resolved)
    }
}

/// Writes `doc` with every token replaced by its value; unknown tokens are an error.
pub fn restore_all<'a>(doc: &'a str, resolved: &Resolved) -> Result<Cow<'a, str>, EngineError> {
    let unknown = resolved.unknown_tokens();
    if !unknown.is_empty() {
        return Err(EngineError::UnknownTokens(unknown));
    }
    let values: Vec<&str> = resolved
        .entries
        .iter()
        .map(|e| e.as_ref().map_or("", |e| e.value.expose().as_str()))
        .collect();
    Ok(walk::apply(doc, &resolved.findings, &values)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::MemoryVault;
    use futures::executor::block_on;

    fn engine() -> Engine {
        Engine::new(
            Arc::new(Detector::with_defaults()),
            Arc::new(MemoryVault::default()),
        )
    }

    #[test]
    fn forged_tokens_round_trip_exactly() {
        let e = engine();
        let s = SessionId::new("s");
        let doc = r#"{"note":"the old ticket said [EMAIL_1]"}"#;
        let t = block_on(e.tokenize_json(&s, "crm/get", doc)).unwrap();
        assert_eq!(t.text, r#"{"note":"the old ticket said [LITERAL_1]"}"#);
        let back = block_on(e.rehydrate_json(&s, &t.text)).unwrap();
        assert_eq!(back, doc);
        // The forged token never resolves to anything.
        let err = block_on(e.rehydrate_text(&s, "[EMAIL_1]")).unwrap_err();
        assert!(matches!(err, EngineError::UnknownTokens(ref t) if t.len() == 1));
        assert_eq!(
            err.to_string(),
            "unknown token(s) in this session: [EMAIL_1]"
        );
    }

    #[test]
    fn a_name_found_once_is_recalled_in_the_session() {
        let e = engine();
        let (s, other) = (SessionId::new("s"), SessionId::new("other"));
        let doc = r#"{"full_name":"Ysolde Brackwater","first_name":"Will"}"#;
        let t = block_on(e.tokenize_json(&s, "crm/get", doc)).unwrap();
        assert_eq!(
            t.text,
            r#"{"full_name":"[NAME_1]","first_name":"[NAME_2]"}"#
        );
        // Lower case, no cue, not in the gazetteer: the name finder alone leaves these (a common
        // name in short chat text is found on its own); recall finds the full name.
        let text = "OK, ysolde brackwater will call back; YSOLDE BRACKWATER said so";
        let t = block_on(e.tokenize_text(&s, "notes/read", text)).unwrap();
        assert_eq!(t.text, "OK, [NAME_1] will call back; [NAME_1] said so");
        // Inside JSON too; restoring gives the value as first seen, like any case variant.
        let doc = r#"{"body":"meeting with ysolde brackwater"}"#;
        let t = block_on(e.tokenize_json(&s, "mail/read", doc)).unwrap();
        assert_eq!(t.text, r#"{"body":"meeting with [NAME_1]"}"#);
        assert_eq!(
            block_on(e.rehydrate_json(&s, &t.text)).unwrap(),
            r#"{"body":"meeting with Ysolde Brackwater"}"#
        );
        // Another session knows nothing of it.
        let text = "OK, ysolde brackwater will call back";
        let t = block_on(e.tokenize_text(&other, "notes/read", text)).unwrap();
        assert_eq!(t.text, text);
        // Ending the session forgets the names with the vault table.
        block_on(e.end_session(&s)).unwrap();
        let t = block_on(e.tokenize_text(&s, "notes/read", text)).unwrap();
        assert_eq!(t.text, text);
    }

    #[test]
    fn recall_can_be_turned_off() {
        let config = crate::detect::DetectConfig {
            names_recall: false,
            ..Default::default()
        };
        let e = Engine::new(
            Arc::new(Detector::new(&config).unwrap()),
            Arc::new(MemoryVault::default()),
        );
        let s = SessionId::new("s");
        block_on(e.tokenize_json(&s, "crm/get", r#"{"full_name":"Ysolde Brackwater"}"#)).unwrap();
        let text = "OK, ysolde brackwater will call back";
        let t = block_on(e.tokenize_text(&s, "notes/read", text)).unwrap();
        assert_eq!(t.text, text);
    }

    /// A shared vault that is down: every call fails, and mints are counted.
    #[derive(Debug, Default)]
    struct SharedVaultDown {
        mints: std::sync::atomic::AtomicUsize,
    }

    impl SharedVaultDown {
        fn down<T: Send + 'static>() -> futures::future::BoxFuture<'static, Result<T, VaultError>> {
            Box::pin(async { Err(VaultError::Unavailable("timed out".into())) })
        }
    }

    impl VaultBackend for SharedVaultDown {
        fn mint<'a>(
            &'a self,
            _: &'a SessionId,
            _: &'a str,
            _: &'a [MintRequest<'a>],
        ) -> futures::future::BoxFuture<'a, Result<Vec<Token>, VaultError>> {
            self.mints
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Self::down()
        }

        fn resolve<'a>(
            &'a self,
            _: &'a SessionId,
            _: &'a [Token],
        ) -> futures::future::BoxFuture<'a, Result<Vec<Option<Entry>>, VaultError>> {
            Self::down()
        }

        fn end_session<'a>(
            &'a self,
            _: &'a SessionId,
        ) -> futures::future::BoxFuture<'a, Result<(), VaultError>> {
            Self::down()
        }

        fn shares_sessions(&self) -> bool {
            true
        }

        fn entries_after<'a>(
            &'a self,
            _: &'a SessionId,
            _: &'a Kind,
            _: u32,
            _: usize,
        ) -> futures::future::BoxFuture<'a, Result<Vec<Entry>, VaultError>> {
            Self::down()
        }
    }

    #[test]
    fn a_shared_vault_that_timed_out_on_recall_is_not_waited_for_again() {
        let vault = Arc::new(SharedVaultDown::default());
        let e = Engine::new(Arc::new(Detector::with_defaults()), vault.clone());
        let s = SessionId::new("s");
        // The recall read timed out: the message fails closed without a second wait.
        let err = block_on(e.tokenize_text(&s, "crm/get", "write to ana@example.com")).unwrap_err();
        assert!(matches!(
            err,
            EngineError::Vault(VaultError::Unavailable(_))
        ));
        assert_eq!(vault.mints.load(std::sync::atomic::Ordering::Relaxed), 0);
        // Nothing to tokenize: the message passes, as it would with the vault up.
        let clean = "nothing personal here";
        let t = block_on(e.tokenize_text(&SessionId::new("t"), "crm/get", clean)).unwrap();
        assert_eq!(t.text, clean);
        // Within a second the recall read is not due again, so the mint is tried (and fails).
        let err =
            block_on(e.tokenize_json(&s, "crm/get", r#"{"email":"ana@example.com"}"#)).unwrap_err();
        assert!(matches!(
            err,
            EngineError::Vault(VaultError::Unavailable(_))
        ));
        assert_eq!(vault.mints.load(std::sync::atomic::Ordering::Relaxed), 1);
    }
}
