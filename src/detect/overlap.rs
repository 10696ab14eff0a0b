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

use std::collections::BTreeMap;

use super::Span;

/// Sorts `spans` by start and drops every candidate that overlaps a better one.
///
/// O(n log n): candidates are visited best first and each is checked against its two kept
/// neighbours in an ordered map (start to end) of the winners so far. Most texts have no
/// overlap at all: sorted by start (a stable sort, cheap on the recognizers' already sorted
/// runs), such a list is the answer as it is, and the rest is skipped.
pub fn resolve(spans: &mut Vec<Span>) {
    if spans.len() <= 1 {
        return;
    }
    // Stable, so spans with the same start keep their order for the full pass below.
    spans.sort_by_key(|s| s.start);
    if spans.iter().all(|s| !s.is_empty()) && spans.windows(2).all(|w| w[0].end <= w[1].start) {
        return;
    }
    resolve_full(spans);
}

/// [`resolve`] without the shortcut for lists without overlap.
fn resolve_full(spans: &mut Vec<Span>) {
    spans.sort_by(|a, b| {
        b.len()
            .cmp(&a.len())
            .then_with(|| a.kind.specificity().cmp(&b.kind.specificity()))
            .then_with(|| a.start.cmp(&b.start))
    });
    let mut kept: BTreeMap<usize, usize> = BTreeMap::new();
    let mut keep = vec![false; spans.len()];
    for (i, span) in spans.iter().enumerate() {
        if span.is_empty() {
            continue;
        }
        let clashes_before = kept
            .range(..=span.start)
            .next_back()
            .is_some_and(|(_, &end)| end > span.start);
        let clashes_after = kept
            .range(span.start..)
            .next()
            .is_some_and(|(&start, _)| start < span.end);
        if !clashes_before && !clashes_after {
            kept.insert(span.start, span.end);
            keep[i] = true;
        }
    }
    let mut i = 0;
    spans.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    spans.sort_unstable_by_key(|s| s.start);
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

    #[test]
    fn disjoint_spans_come_back_sorted_and_empty_ones_go() {
        let mut v = vec![
            s(30, 35, Kind::Name),
            s(0, 5, Kind::Email),
            s(10, 20, Kind::Phone),
        ];
        resolve(&mut v);
        assert_eq!(
            v,
            vec![
                s(0, 5, Kind::Email),
                s(10, 20, Kind::Phone),
                s(30, 35, Kind::Name)
            ]
        );
        let mut v = vec![
            s(5, 5, Kind::Name),
            s(0, 5, Kind::Email),
            s(6, 9, Kind::Phone),
        ];
        resolve(&mut v);
        assert_eq!(v, vec![s(0, 5, Kind::Email), s(6, 9, Kind::Phone)]);
    }

    #[test]
    fn shortcut_agrees_with_the_full_pass() {
        // Random lists, some disjoint and some not, in random order.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as usize
        };
        let kinds = [Kind::Name, Kind::Email, Kind::Phone, Kind::CreditCard];
        for round in 0..2000 {
            let len = next(12);
            let spread = if round % 2 == 0 { 200 } else { 30 };
            let mut v: Vec<Span> = (0..len)
                .map(|_| {
                    let start = next(spread as u64);
                    s(start, start + next(8), kinds[next(4)].clone())
                })
                .collect();
            let mut full = v.clone();
            if full.len() > 1 {
                resolve_full(&mut full);
            }
            resolve(&mut v);
            assert_eq!(v, full);
        }
    }

    #[test]
    fn many_spans_stay_sorted_and_disjoint() {
        // 20 000 short spans plus a long one covering some of them.
        let mut v: Vec<Span> = (0..20_000)
            .map(|i| s(i * 10, i * 10 + 5, Kind::Email))
            .collect();
        v.push(s(95, 140, Kind::Phone));
        v.reverse();
        resolve(&mut v);
        assert_eq!(v.len(), 20_000 - 4 + 1);
        assert!(v.windows(2).all(|w| w[0].end <= w[1].start));
        assert!(v.contains(&s(95, 140, Kind::Phone)));
    }
}
