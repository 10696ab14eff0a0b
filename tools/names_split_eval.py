#!/usr/bin/env python3
"""Scores NAME predictions against gold PERSON spans per source, on all records and on the even
and odd record indices of the span file separately, to check that a rule change generalises
(a change that lifts one half and not the other is fitting single lines).

    cargo run --release --example names_dump -- ../shared/eval/spans_dev.jsonl > /tmp/pred.jsonl
    python3 tools/names_split_eval.py ../shared/eval/spans_dev.jsonl /tmp/pred.jsonl

Output, one line per source and half: exact-span precision, recall and F1, the same for overlap,
and how many records without a gold PERSON got a NAME. Offsets are character offsets, as both
files use. Standard library only.
"""

import json
import sys

SOURCES = ["presidio-research", "emerging_entities_17", "PII-synthetic"]


def prf(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def score(gold, pred, source, parity):
    tp = fp = fn = otp = ofp = ofn = 0
    empty = empty_flagged = 0
    for i, rec in enumerate(gold):
        if source not in rec.get("source", ""):
            continue
        if parity is not None and i % 2 != parity:
            continue
        gs = [(s["start"], s["end"]) for s in rec.get("spans", []) if s["label"] == "PERSON"]
        ps = pred.get(i, [])
        if not gs:
            empty += 1
            empty_flagged += bool(ps)
        tp += sum(p in gs for p in ps)
        fp += sum(p not in gs for p in ps)
        fn += sum(g not in ps for g in gs)
        overlaps = lambda a, b: a[0] < b[1] and b[0] < a[1]  # noqa: E731
        otp += sum(any(overlaps(p, g) for g in gs) for p in ps)
        ofp += sum(not any(overlaps(p, g) for g in gs) for p in ps)
        ofn += sum(not any(overlaps(p, g) for p in ps) for g in gs)
    return prf(tp, fp, fn), prf(otp, ofp, ofn), (empty_flagged, empty)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: names_split_eval.py SPANS.jsonl PRED.jsonl")
    with open(sys.argv[1], encoding="utf-8") as f:
        gold = [json.loads(line) for line in f if line.strip()]
    with open(sys.argv[2], encoding="utf-8") as f:
        pred = {}
        for line in f:
            if line.strip():
                row = json.loads(line)
                pred[row["i"]] = [tuple(s) for s in row["names"]]
    for source in SOURCES:
        for name, parity in (("all", None), ("even", 0), ("odd", 1)):
            e, o, (flagged, empty) = score(gold, pred, source, parity)
            print(
                f"{source:22} {name:4}  exact P {e[0]:.3f} R {e[1]:.3f} F1 {e[2]:.3f}"
                f"  overlap P {o[0]:.3f} R {o[1]:.3f} F1 {o[2]:.3f}"
                f"  no-PERSON records with a NAME {flagged}/{empty}"
            )


if __name__ == "__main__":
    main()
