#!/usr/bin/env python3
"""Throughput of `mcp-veil redact` on the reference corpus, with gzip -1 as the yardstick.

Set-up: generates the corpus with `../shared/bench/gen_corpus.py` (seed 7, 5,000 records, 5 MB
of prose and of clean text; needs `faker` and `phonenumbers`, both installed into `.venv` by
`.ci/install-peers.sh`) unless `--corpus DIR` names one already made.

For each file (`mcp_contacts.json`, `prose.txt`, `clean.txt`) it runs, one process per run,
alternately: `mcp-veil redact < FILE`, `mcp-veil redact < HEAD` (the file's first ~16 KB, cut at a
line, the same shape: start-up and every one-off set-up the first input pays), and the same two
through `gzip -1`. Times are the child's on-CPU time (user + system, from `wait4`), medians of
`--rounds` (default 5). The rate "net of start-up" is `(size(FILE) - size(HEAD)) / (t(FILE) -
t(HEAD))`: the marginal rate, what a long-lived proxy pays per byte. The ratio to gzip -1 is of
the net rates measured in the same rounds. The `redact` output is hashed (sha1) on the first
round so two binaries can be compared for byte-identical output.

With `--through-proxy` it also times each file as a tool result through `mcp-veil proxy`: the
proxy runs `file_server.py` (one tool, `read`, whose result is the file as one text block), and
the figure is the proxy process's own on-CPU time for the call (all its threads, from
`/proc/PID/task/*/schedstat`, in nanoseconds), FILE minus HEAD as above, each call in a fresh
proxy (a fresh session), medians of `--rounds`. It also says whether the tokenized text equals
`redact`'s output (one text pipeline: it should).

With `--against BIN` (repeatable) each round also times BIN, alternated with `--veil`, and prints
a row for it under each file's: two builds compared in the same rounds, against the same gzip
(through the proxy too).

With `--proxy` it also runs `target/release/examples/proxy_latency` (10 KB results; build it
with `cargo build --release --bin mcp-veil --example echo_server --example proxy_latency`)
and prints its table.

    .venv/bin/python benches/refcorpus/run.py [--veil target/release/mcp-veil] [--corpus DIR]
        [--rounds 5] [--against BIN ...] [--proxy] [--through-proxy]
"""
import argparse
import glob
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILES = ["mcp_contacts.json", "prose.txt", "clean.txt"]
HEAD_BYTES = 16 * 1024


def cpu_usage(argv, stdin_path, out=subprocess.DEVNULL):
    """(on-CPU seconds (user + system), system seconds, minor page faults) of one child run
    reading `stdin_path`."""
    with open(stdin_path, "rb") as f:
        p = subprocess.Popen(argv, stdin=f, stdout=out, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit(f"{argv[0]} exited with {p.returncode} on {stdin_path}")
    return ru.ru_utime + ru.ru_stime, ru.ru_stime, ru.ru_minflt


def cpu_time(argv, stdin_path, out=subprocess.DEVNULL):
    """On-CPU seconds (user + system) of one child run reading `stdin_path`."""
    return cpu_usage(argv, stdin_path, out)[0]


def head_of(path, tmp):
    """The file's first ~HEAD_BYTES, cut after a line (for JSON: a complete small array)."""
    data = open(path, "rb").read()
    if path.endswith(".json"):
        # The first records of the array, closed: same shape, valid JSON.
        cut = data.find(b"\n  },\n", HEAD_BYTES)
        head = data[: cut + 4] + b"\n]\n"
    else:
        cut = data.find(b"\n", HEAD_BYTES)
        head = data[: cut + 1]
    out = os.path.join(tmp, "head-" + os.path.basename(path))
    with open(out, "wb") as f:
        f.write(head)
    return out


def proxy_cpu_ns(pid):
    """On-CPU nanoseconds of every thread of process `pid` so far."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(path) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended between the listing and the read
    return total


def open_session(cmd, client):
    """Starts the MCP proxy command `cmd`, opens a session as `client` (initialize, initialized,
    tools/list) and returns the process and `request(id, method, params)`, which sends a request
    and returns the reply with its id and the raw reply line."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)

    def request(i, method, params):
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                   "params": params}) + "\n").encode())
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            msg = json.loads(line)
            if msg.get("id") == i:
                return msg, line

    request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": client, "version": "1"}})
    p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    p.stdin.flush()
    request(2, "tools/list", {})
    return p, request


def through_proxy(veil, path):
    """(on-CPU seconds of the proxy for one `read` of `path`, the result's text) in a fresh proxy."""
    server = os.path.join(os.path.dirname(os.path.abspath(__file__)), "file_server.py")
    p, request = open_session([veil, "proxy", "--name", "files", "--", sys.executable, server],
                              "run.py")
    before = proxy_cpu_ns(p.pid)
    reply, _ = request(3, "tools/call", {"name": "read", "arguments": {"path": path}})
    spent = (proxy_cpu_ns(p.pid) - before) / 1e9
    p.stdin.close()
    p.wait()
    if "result" not in reply:
        sys.exit(f"the proxy refused the read of {path}: {reply.get('error')}")
    return spent, reply["result"]["content"][0]["text"]


def sha1_of_output(argv, stdin_path):
    with open(stdin_path, "rb") as f:
        out = subprocess.run(argv, stdin=f, capture_output=True, check=True).stdout
    return hashlib.sha1(out).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--veil", default=os.path.join(ROOT, "target/release/mcp-veil"))
    ap.add_argument("--against", action="append", default=[], metavar="BIN",
                    help="another build to time in the same rounds, alternated with --veil")
    ap.add_argument("--corpus", help="an existing corpus directory (skips generation)")
    ap.add_argument("--shared", default=os.path.join(ROOT, "../shared"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--proxy", action="store_true", help="also run examples/proxy_latency")
    ap.add_argument("--through-proxy", action="store_true",
                    help="also time each file as a tool result through `mcp-veil proxy`")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="refcorpus-")
    corpus = args.corpus
    if corpus is None:
        # The generator quietly writes other phone numbers without `phonenumbers` (and so a
        # corpus other than the reference one, which every figure here is of).
        for module in ("faker", "phonenumbers"):
            try:
                __import__(module)
            except ImportError:
                sys.exit(f"run.py: the corpus generator needs `{module}` in this Python "
                         f"({sys.executable}); run .ci/install-peers.sh or pip install it")
        corpus = os.path.join(tmp, "corpus")
        gen = os.path.join(args.shared, "bench/gen_corpus.py")
        subprocess.run(
            [sys.executable, gen, "--out", corpus, "--seed", "7", "--records", "5000",
             "--prose-mb", "5", "--clean-mb", "5"],
            check=True, stdout=subprocess.DEVNULL)
    veil = [args.veil, "redact"]
    builds = [args.veil] + args.against
    gzip = ["gzip", "-1", "-c"]
    print(f"corpus {corpus}; {args.rounds} rounds; on-CPU time of each child; medians")
    # The reference corpus is mcp_contacts.json dc06bf06, prose.txt 8d989e8b, clean.txt afd19f95.
    print("corpus sha1: " + ", ".join(
        f"{name} {hashlib.sha1(open(os.path.join(corpus, name), 'rb').read()).hexdigest()[:8]}"
        for name in FILES))
    print(f"{'file':<18} {'MB':>5} {'veil s':>7} {'head s':>7} {'veil MB/s':>9} "
          f"{'gross':>7} {'gzip MB/s':>9} {'ratio':>6} {'sys':>4} {'faults':>6}  "
          f"sha1 of redact output")
    for name in FILES:
        path = os.path.join(corpus, name)
        head = head_of(path, tmp)
        size, hsize = os.path.getsize(path), os.path.getsize(head)
        t = {k: [] for k in ("gzip", "ghead")}
        # Per build, FILE minus HEAD in each round: system seconds and minor page faults.
        sys_s, faults = {b: [] for b in builds}, {b: [] for b in builds}
        for b in builds:
            t[b], t[b + " head"] = [], []
        for _ in range(args.rounds):
            # Each build and gzip in turn within a round: load that comes and goes is shared.
            for b in builds:
                whole, whole_sys, whole_faults = cpu_usage([b, "redact"], path)
                part, part_sys, part_faults = cpu_usage([b, "redact"], head)
                t[b].append(whole)
                t[b + " head"].append(part)
                sys_s[b].append(whole_sys - part_sys)
                faults[b].append(whole_faults - part_faults)
            t["gzip"].append(cpu_time(gzip, path))
            t["ghead"].append(cpu_time(gzip, head))
        m = {k: statistics.median(v) for k, v in t.items()}
        mb = (size - hsize) / 1e6
        net_gzip = mb / max(m["gzip"] - m["ghead"], 1e-6)
        for b in builds:
            net_veil = mb / max(m[b] - m[b + " head"], 1e-6)
            gross = size / 1e6 / m[b]
            digest = sha1_of_output([b, "redact"], path)
            label = name if b == args.veil else f"  {os.path.basename(b)}"
            net_s = max(m[b] - m[b + " head"], 1e-6)
            sys_share = statistics.median(sys_s[b]) / net_s
            print(f"{label:<18} {size / 1e6:>5.2f} {m[b]:>7.3f} {m[b + ' head']:>7.3f} "
                  f"{net_veil:>9.1f} {gross:>7.1f} {net_gzip:>9.1f} {net_veil / net_gzip:>6.2f} "
                  f"{sys_share:>4.0%} {statistics.median(faults[b]):>6.0f}  {digest}")
    print("veil MB/s and gzip MB/s: net of start-up (FILE minus its first 16 KB); "
          "gross: the whole run, start-up included; ratio: veil / gzip -1, net; sys: the "
          "kernel's share of the net time (page faults, mostly); faults: minor page faults, net")
    if args.through_proxy:
        print(f"through `mcp-veil proxy` (file_server.py, one read per fresh proxy); "
              f"the proxy's on-CPU time; medians")
        print(f"{'file':<18} {'MB':>5} {'call s':>7} {'head s':>7} {'MB/s':>9} {'gross':>7} "
              f"{'× gzip':>7}  text equals redact's output")
        for name in FILES:
            path = os.path.join(corpus, name)
            head = head_of(path, tmp)
            size, hsize = os.path.getsize(path), os.path.getsize(head)
            calls = {b: [] for b in builds}
            heads = {b: [] for b in builds}
            texts = {}
            gz = []
            for _ in range(args.rounds):
                # Each build and gzip in turn within a round, as above.
                for b in builds:
                    spent, texts[b] = through_proxy(b, path)
                    calls[b].append(spent)
                    heads[b].append(through_proxy(b, head)[0])
                gz.append(cpu_time(gzip, path) - cpu_time(gzip, head))
            mg = statistics.median(gz)
            mb = (size - hsize) / 1e6
            for b in builds:
                mc, mh = statistics.median(calls[b]), statistics.median(heads[b])
                net = mb / max(mc - mh, 1e-6)
                with open(path, "rb") as f:
                    redacted = subprocess.run([b, "redact"], stdin=f, capture_output=True,
                                              check=True).stdout.decode()
                same = "yes" if texts[b] == redacted else "NO"
                label = name if b == args.veil else f"  {os.path.basename(b)}"
                print(f"{label:<18} {size / 1e6:>5.2f} {mc:>7.3f} {mh:>7.3f} {net:>9.1f} "
                      f"{size / 1e6 / mc:>7.1f} {net / (mb / max(mg, 1e-6)):>7.2f}  {same}")
    if args.proxy:
        exe = os.path.join(os.path.dirname(args.veil), "examples/proxy_latency")
        subprocess.run([exe, "2000"], check=True)


if __name__ == "__main__":
    main()
