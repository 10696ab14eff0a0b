//! Email addresses (placeholder).
use super::{FindContext, Recognizer, Span};

#[derive(Debug)]
pub(super) struct EmailRecognizer;

impl EmailRecognizer {
    pub(super) fn new() -> Self {
        EmailRecognizer
    }
}

impl Recognizer for EmailRecognizer {
    fn find(&self, _text: &str, _cx: &FindContext<'_>, _out: &mut Vec<Span>) {}
}
