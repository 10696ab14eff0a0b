//! What a tokenization gives back: the document written whole ([`Tokenized`]), or minted and
//! left to be written where it goes ([`Deferred`]), which spares a caller with a large document
//! a second copy of it (`redact` writes straight to stdout).

use std::borrow::Cow;

use super::EngineError;
use crate::token::Token;
use crate::walk::{self, FoundValues};

/// A tokenized document and what was replaced in it.
#[derive(Debug)]
pub struct Tokenized<'a> {
    /// The document with every value replaced by its token (borrowed when nothing was found).
    pub text: Cow<'a, str>,
    /// Each occurrence replaced, in document order.
    pub found: FoundValues,
    /// The token of each occurrence, parallel to `found`.
    pub tokens: Vec<Token>,
}

/// A tokenized document whose text is not written yet ([`Engine::tokenize_text_deferred`],
/// [`Engine::tokenize_json_deferred`]): its values are minted and the session has learned its
/// names, so a caller that must save the session before any output can do so, and then write
/// the document straight to where it goes ([`Deferred::write_to`]) instead of building a
/// second copy of it first.
pub struct Deferred<'a> {
    pub(super) doc: &'a str,
    pub(super) layout: walk::Layout,
    /// Each slot's replacement, one after another (a composed name's holds parts of its value
    /// between its words' tokens), and where each ends.
    pub(super) texts: String,
    pub(super) ends: Vec<usize>,
    /// Each occurrence replaced, in document order.
    pub found: FoundValues,
    /// The token of each occurrence, parallel to `found`.
    pub tokens: Vec<Token>,
    /// A buffer the scans are done with (a tool result's text block, decoded), which
    /// [`Deferred::into_tokenized`] writes the document into: a process reading its first
    /// large result would otherwise fault in a new buffer of that size, page by page. It may
    /// hold the decoded text still, values included, as freed memory would.
    pub(super) spare: Option<String>,
}

impl std::fmt::Debug for Deferred<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Neither the document nor the replacements nor the spare buffer: all hold values.
        f.debug_struct("Deferred")
            .field("found", &self.found)
            .field("tokens", &self.tokens)
            .finish_non_exhaustive()
    }
}

impl<'a> Deferred<'a> {
    /// Writes the document with every value replaced by its token to `w` (the text
    /// [`Deferred::into_tokenized`] would hold), in pieces of about 64 KiB.
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> Result<(), EngineError> {
        Ok(self.layout.write_to(self.doc, &self.replacements(), w)?)
    }

    /// The document written out whole, with what was found and minted.
    pub fn into_tokenized(mut self) -> Result<Tokenized<'a>, EngineError> {
        let spare = self.spare.take();
        let text = self
            .layout
            .apply_into(self.doc, &self.replacements(), spare)?;
        Ok(Tokenized {
            text,
            found: self.found,
            tokens: self.tokens,
        })
    }

    fn replacements(&self) -> Vec<&str> {
        let mut start = 0;
        self.ends
            .iter()
            .map(|&end| {
                let text = self.texts.get(start..end).unwrap_or_default();
                start = end;
                text
            })
            .collect()
    }
}
