//! IP addresses (placeholder).
use super::{FindContext, Recognizer, Span};

#[derive(Debug)]
pub(super) struct IpRecognizer;

impl IpRecognizer {
    pub(super) fn new() -> Self {
        IpRecognizer
    }
}

impl Recognizer for IpRecognizer {
    fn find(&self, _text: &str, _cx: &FindContext<'_>, _out: &mut Vec<Span>) {}
}
