//! Warming the scan path before the first message.
//!
//! Some of what detection needs is built the first time it is used, not when the detector is:
//! the lazy DFA states of the regexes, the validity rules of each calling code a phone number
//! carries, the national-format rules of each region, and the pages of the binary's large tables
//! (names, phone metadata) the kernel maps in on first touch. A one-shot `redact` pays that once
//! either way; a proxy would pay it on its first tool result, which then takes several times as
//! long as the next ones. [`warm_up`] scans a small built-in tool result that touches each of
//! them (every kind, a phone of each default region in international and national form, JSON
//! inside a string, a table, session recall) and throws the findings away: no session, no
//! vault, no token. Long-lived front ends call it at start, before they read a message.

use super::{scan_json_except, scan_text, scan_tokens_json, scan_tokens_text};
use crate::detect::recall::Recall;
use crate::detect::{Detector, FindContext};

/// A tool result as servers send them: records as JSON inside the text of a content block.
const TOOL_RESULT: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"[{\"id\":\"3b1287ff-f52d-4f5d-a164-99c9e25a7605\",\"name\":\"Maria Garcia\",\"email\":\"maria.garcia@example.com\",\"phone\":\"+1 415-555-0132\",\"company\":\"Garcia and Sons\",\"created_at\":\"2024-03-16T13:02:42Z\",\"notes\":\"Call Jean Dupont at (415) 555-0199 or jean.dupont@example.org. Card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32, SSN 123-45-6789, host 10.1.2.3.\"},{\"name\":\"Omar Haddad\",\"phone\":\"020 7946 0958\",\"mobile\":\"+44 7700 900123\",\"fax\":\"+49 30 901820\",\"office\":\"+33 1 42 68 53 00\",\"alt\":\"+91 98765 43210\",\"br\":\"+55 11 91234-5678\",\"ca\":\"+1 613-555-0147\",\"au\":\"+61 2 9876 5432\",\"cn\":\"+86 10 6552 9988\",\"jp\":\"+81 3-1234-5678\",\"notes\":\"Reporter: jean-luc picard\nAssigned to Ana Souza; ticket=4521 user=jdoe42\"}]"}],"isError":false}}"#;

/// Plain text as a server's log or a file would carry it.
const TEXT: &str = "Hi Maria,\n\nThe invoice for Garcia & Sons went to maria.garcia@example.com on 2024-03-16.\n\
Call me at 030 1234567 or 01 42 68 53 00, mobile 07700 900123, Aadhaar 2345 6789 0123.\n\
| name | email | phone |\n|---|---|---|\n| Li Wei | li.wei@example.cn | +86 138 0013 8000 |\n\
password=hunter2 token=ghp_1234567890abcdefghijklmnopqrstuvwxyzAB\n-- Jean Dupont\n";

/// Scans the built-in samples once (see the module doc). Costs a few milliseconds, once.
pub fn warm_up(detector: &Detector) {
    // The samples look up a few dozen words; a first tool result of prose looks up thousands,
    // anywhere in the name table.
    detector.warm_tables();
    let recall = Recall::of_names(["Maria Garcia", "Jean Dupont"]);
    let none = |_: &super::json::Position<'_>| false;
    for recall in [None, Some(&recall)] {
        let _ = scan_json_except(detector, recall, TOOL_RESULT, &none);
        let cx = FindContext {
            recall,
            ..FindContext::default()
        };
        let _ = scan_text(detector, TEXT, &cx);
    }
    let _ = scan_tokens_json(r#"{"to":"[EMAIL_1]","body":"Hi [NAME_2], call [PHONE_3]"}"#);
    let _ = scan_tokens_text("Hi [NAME_2], call [PHONE_3]");
}
