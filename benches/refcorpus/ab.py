#!/usr/bin/env python3
"""Two builds of `mcp-veil redact` on one file, paired round by round: for a change worth a few
percent on a machine whose noise is larger than that in any one run.

Each round runs both binaries on FILE, one process each, in an order swapped every round, and
takes each child's on-CPU time (user + system, from `wait4`) and minor page faults. It prints
each build's quartiles and, over the rounds, the median of the paired ratios (B / A) and how
many rounds B was the faster. `run.py --against` gives net rates and ratios to gzip; this gives
the pairing.

    python3 benches/refcorpus/ab.py [--rounds 101] FILE BIN_A BIN_B
"""
import argparse
import statistics

from run import cpu_usage


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=101)
    ap.add_argument("file")
    ap.add_argument("a")
    ap.add_argument("b")
    args = ap.parse_args()
    times = {args.a: [], args.b: []}
    faults = {args.a: [], args.b: []}
    for r in range(args.rounds):
        for binary in (args.a, args.b) if r % 2 == 0 else (args.b, args.a):
            cpu, _, minflt = cpu_usage([binary, "redact"], args.file)
            times[binary].append(cpu * 1e3)
            faults[binary].append(minflt)
    for name, binary in (("A", args.a), ("B", args.b)):
        q = statistics.quantiles(times[binary], n=4)
        print(f"{name} {binary}: ms p25 {q[0]:.1f} median {q[1]:.1f} p75 {q[2]:.1f}; "
              f"faults median {statistics.median(faults[binary]):.0f}")
    pairs = list(zip(times[args.a], times[args.b]))
    ratio = statistics.median(b / a for a, b in pairs)
    wins = sum(b < a for a, b in pairs)
    print(f"B / A, median of the paired ratios: {ratio:.3f}; B faster in {wins} of {len(pairs)}")


if __name__ == "__main__":
    main()
