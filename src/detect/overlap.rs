//! Resolving overlapping candidates into one clean list.
//!
//! Recognizers run independently, so their candidates overlap: a card number also looks like a
//! phone, a name may sit inside an email address. The rule, deterministic for any input order:
//!
//! 1. the longer span wins;
//! 2. between equally long spans, the more specific kind wins ([`Kind`]'s specificity order:
//!    literal token, email, card, IBAN, SSN, custom, IP, phone, name);
//! 3. then the earlier start wins.
//!
//! Winners never overlap, so the output never holds nested or garbled tokens.

use super::Span;

/// Sorts `spans` by start and drops every candidate that overlaps a better one.
pub fn resolve(spans: &mut Vec<Span>) {
    if spans.len() <= 1 {
        return;
    }
    spans.sort_by(|a, b| {
        b.len()
            .cmp(&a.len())
            .then_with(|| a.kind.specificity().cmp(&b.kind.specificity()))
            .then_with(|| a.start.cmp(&b.start))
    });
    let mut kept: Vec<Span> = Vec::with_capacity(spans.len());
    for span in spans.drain(..) {
        if span.is_empty() {
            continue;
        }
        // `kept` stays sorted by start; find where `span` would go and check its neighbours.
        let at = kept.partition_point(|k| k.start < span.start);
        let clashes_before = at > 0 && kept[at - 1].end > span.start;
        let clashes_after = at < kept.len() && kept[at].start < span.end;
        if !clashes_before && !clashes_after {
            kept.insert(at, span);
        }
    }
    *spans = kept;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::Kind;

    fn s(start: usize, end: usize, kind: Kind) -> Span {
        Span::new(start, end, kind)
    }

    #[test]
    fn longest_wins_then_specificity() {
        let mut v = vec![
            s(0, 10, Kind::Phone),
            s(0, 16, Kind::CreditCard),
            s(20, 25, Kind::Name),
            s(20, 25, Kind::Email),
            s(30, 35, Kind::Name),
        ];
        resolve(&mut v);
        assert_eq!(
            v,
            vec![
                s(0, 16, Kind::CreditCard),
                s(20, 25, Kind::Email),
                s(30, 35, Kind::Name)
            ]
        );
    }

    #[test]
    fn order_of_input_does_not_matter() {
        let a = vec![
            s(0, 5, Kind::Name),
            s(3, 9, Kind::Phone),
            s(8, 12, Kind::Email),
        ];
        let mut b = a.clone();
        b.reverse();
        let (mut a, mut b) = (a, b);
        resolve(&mut a);
        resolve(&mut b);
        assert_eq!(a, b);
        assert_eq!(a, vec![s(3, 9, Kind::Phone)]);
    }
}
