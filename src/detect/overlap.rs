//! Resolving overlapping candidates into one clean list.
//!
//! Recognizers run independently, so their candidates overlap: a card number also looks like a
//! phone, a name may sit inside an email address. The rule, deterministic for any input order:
//!
//! 1. the longer span wins;
//! 2. between equally long spans, the more specific kind wins ([`Kind`](super::Kind)'s specificity order:
//!    literal token, secret and email, card, IBAN, SSN, custom, IP, identifier, phone, name);
//! 3. then the earlier start wins.
//!
//! Winners never overlap, so the output never holds nested or garbled tokens.

use std::collections::BTreeMap;

use super::Span;

/// Sorts `spans` by start and drops every candidate that overlaps a better one.
///
/// O(n log n): candidates are visited best first and each is kept when it overlaps no winner
/// so far, one cluster of overlapping candidates at a time. Most texts have no overlap at all:
/// sorted by start (a stable sort, cheap on the recognizers' already sorted runs), such a list
/// is the answer as it is, and the rest is skipped.
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

/// [`resolve`] without the shortcut for lists without overlap; `spans` is sorted by start.
///
/// The list is cut into clusters, runs of spans each starting before the furthest end so far.
/// Spans of different clusters never overlap, so visiting all candidates best first and keeping
/// each that overlaps no kept one decides each cluster alone, in the same order: the candidates
/// of one cluster (most hold two or three: a name found twice, a number read two ways) are
/// sorted, best first, and checked against the cluster's winners.
fn resolve_full(spans: &mut Vec<Span>) {
    // The buffers of the last call on this thread, emptied: a tool result resolves thousands
    // of small lists, and two allocations each cost more than the resolving.
    // (A buffer grown past `KEPT_CAPACITY` by a large document is let go after it, so that no
    // thread keeps holding it.)
    SCRATCH.with_borrow_mut(|(keep, order)| {
        keep.clear();
        keep.resize(spans.len(), false);
        resolve_with(spans, keep, order);
        if keep.capacity() > KEPT_CAPACITY {
            *keep = Vec::new();
        }
        if order.capacity() > KEPT_CAPACITY {
            *order = Vec::new();
        }
    });
}

/// The most entries a [`SCRATCH`] buffer keeps room for between calls.
const KEPT_CAPACITY: usize = 4096;

thread_local! {
    /// [`resolve_full`]'s `keep` and `order` buffers.
    static SCRATCH: std::cell::RefCell<(Vec<bool>, Vec<usize>)> = const {
        std::cell::RefCell::new((Vec::new(), Vec::new()))
    };
}

/// [`resolve_full`] with its buffers: `keep` holds `false` for each span.
fn resolve_with(spans: &mut Vec<Span>, keep: &mut [bool], order: &mut Vec<usize>) {
    let mut i = 0;
    while i < spans.len() {
        let mut end = spans[i].end;
        let mut j = i + 1;
        while j < spans.len() && spans[j].start < end {
            end = end.max(spans[j].end);
            j += 1;
        }
        if j == i + 1 {
            keep[i] = !spans[i].is_empty();
        } else {
            order.clear();
            order.extend(i..j);
            // Stable: equal candidates keep their order by start, as in one sort of the whole.
            order.sort_by(|&a, &b| better(&spans[a], &spans[b]));
            keep_best_first(spans, order, keep);
        }
        i = j;
    }
    let mut i = 0;
    spans.retain(|_| {
        i += 1;
        keep[i - 1]
    });
}

/// The order of candidates, best first: longer, then more specific, then earlier.
fn better(a: &Span, b: &Span) -> std::cmp::Ordering {
    b.len()
        .cmp(&a.len())
        .then_with(|| a.kind.specificity().cmp(&b.kind.specificity()))
        .then_with(|| a.start.cmp(&b.start))
}

/// Marks in `keep` each of the candidates `order` (indices into `spans`, best first) that
/// overlaps no candidate kept before it. A few winners are checked one by one; many (a long
/// cluster) in an ordered map (start to end) of the winners so far, against the two neighbours.
fn keep_best_first(spans: &[Span], order: &[usize], keep: &mut [bool]) {
    if order.len() <= 32 {
        let mut kept = [(0, 0); 32];
        let mut n = 0;
        for &k in order {
            let span = &spans[k];
            if !span.is_empty()
                && kept[..n]
                    .iter()
                    .all(|&(s, e)| e <= span.start || s >= span.end)
            {
                kept[n] = (span.start, span.end);
                n += 1;
                keep[k] = true;
            }
        }
        return;
    }
    let mut kept: BTreeMap<usize, usize> = BTreeMap::new();
    for &k in order {
        let span = &spans[k];
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
            keep[k] = true;
        }
    }
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

    /// A small deterministic generator: `next(n)` is below `n`.
    fn xorshift(mut seed: u64) -> impl FnMut(u64) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as usize
        }
    }

    #[test]
    fn shortcut_agrees_with_the_full_pass() {
        // Random lists, some disjoint and some not, in random order.
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
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
            resolve_whole(&mut full);
            resolve(&mut v);
            assert_eq!(v, full);
        }
    }

    /// The pass before clusters: one sort of all candidates, best first, and an ordered map
    /// of the winners.
    fn resolve_whole(spans: &mut Vec<Span>) {
        if spans.len() <= 1 {
            return;
        }
        spans.sort_by_key(|s| s.start);
        spans.sort_by(better);
        let order: Vec<usize> = (0..spans.len()).collect();
        let mut keep = vec![false; spans.len()];
        let mut kept: BTreeMap<usize, usize> = BTreeMap::new();
        for &k in &order {
            let span = &spans[k];
            let clashes = kept
                .range(..=span.start)
                .next_back()
                .is_some_and(|(_, &end)| end > span.start)
                || kept
                    .range(span.start..)
                    .next()
                    .is_some_and(|(&start, _)| start < span.end);
            if !span.is_empty() && !clashes {
                kept.insert(span.start, span.end);
                keep[k] = true;
            }
        }
        let mut i = 0;
        spans.retain(|_| {
            i += 1;
            keep[i - 1]
        });
        spans.sort_unstable_by_key(|s| s.start);
    }

    #[test]
    fn clusters_agree_with_one_pass_over_the_whole_list() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let kinds = [Kind::Name, Kind::Email, Kind::Phone, Kind::CreditCard];
        for round in 0..3000 {
            // Small lists, and long ones dense enough for clusters of more than 32.
            let len = if round % 10 == 0 {
                40 + next(200)
            } else {
                next(14)
            };
            let spread = [30, 200, 600][round % 3];
            let v: Vec<Span> = (0..len)
                .map(|_| {
                    let start = next(spread as u64);
                    s(start, start + next(12), kinds[next(4)].clone())
                })
                .collect();
            let (mut a, mut b) = (v.clone(), v);
            resolve(&mut a);
            resolve_whole(&mut b);
            assert_eq!(a, b);
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
