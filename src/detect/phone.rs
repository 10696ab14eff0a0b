//! Phone numbers (placeholder).
use super::{DetectError, FindContext, Recognizer, Span};

#[derive(Debug)]
pub(super) struct PhoneRecognizer;

impl PhoneRecognizer {
    pub(super) fn new(_regions: &[String]) -> Result<Self, DetectError> {
        Ok(PhoneRecognizer)
    }
}

impl Recognizer for PhoneRecognizer {
    fn find(&self, _text: &str, _cx: &FindContext<'_>, _out: &mut Vec<Span>) {}
}
