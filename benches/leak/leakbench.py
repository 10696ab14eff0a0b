"""Leak benchmark: real MCP servers over generated personal data, read directly and through
`mcp-veil proxy`; reports what reached the client in the clear. See benches/leak/README.md.

usage: .venv/bin/python benches/leak/leakbench.py [--quick] [--seed N] [--locales a,b] [--veil BIN]
       [--out FILE] [--show-leaks] [--show-false] [--json]
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gen  # noqa: E402
import servers  # noqa: E402
from score import Tally  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_SEED = 1
SIZES = {
    "quick": dict(per_locale=3, commits=40, n_show=8, per_file=12, memory=24, page=25),
    "full": dict(per_locale=12, commits=200, n_show=30, per_file=40, memory=80, page=25),
}
KINDS = ["NAME", "NAME_PART", "USERNAME", "EMAIL", "PHONE", "CARD", "IBAN", "SSN", "IP"]


def default_veil() -> str:
    if os.environ.get("MCP_VEIL_BIN"):
        return os.environ["MCP_VEIL_BIN"]
    for profile in ("release", "debug"):
        path = os.path.join(ROOT, "target", profile, "mcp-veil")
        if os.path.exists(path):
            return path
    return os.path.join(ROOT, "target", "debug", "mcp-veil")


def peer_commands(work: str) -> dict:
    venv = os.path.join(ROOT, ".venv")
    # mcp-server-sqlite needs the 1.x `mcp` SDK (it fails on 2.x): its own venv
    servers_venv = os.path.join(ROOT, ".venv-servers")
    nm = os.path.join(ROOT, "node_modules", ".bin")
    return {
        "git": [os.path.join(venv, "bin", "mcp-server-git"), "--repository",
                os.path.join(work, "git", "repo")],
        "sqlite": [os.path.join(servers_venv, "bin", "mcp-server-sqlite"), "--db-path",
                   os.path.join(work, "customers.sqlite")],
        "filesystem": [os.path.join(nm, "mcp-server-filesystem"), os.path.join(work, "files")],
        "memory": [os.path.join(nm, "mcp-server-memory")],
    }


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="the CI size (default: full)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--locales", default=",".join(gen.LOCALES))
    ap.add_argument("--veil", default=default_veil(), help="mcp-veil binary (env MCP_VEIL_BIN)")
    ap.add_argument("--servers", default="git,sqlite,filesystem,memory")
    ap.add_argument("--work", help="where the data goes (default .ci/work/leakbench/...)")
    ap.add_argument("--out", help="the JSON report (default <work>/report.json)")
    ap.add_argument("--show-leaks", action="store_true",
                    help="print every leaked value with its shape and context (fake data)")
    ap.add_argument("--show-false", action="store_true",
                    help="print every false token with what it covered")
    ap.add_argument("--json", action="store_true", help="print only the JSON report")
    return ap.parse_args()


def check_peers(cmds: dict, veil: str, wanted: list):
    missing = [c[0] for name, c in cmds.items() if name in wanted and not os.access(c[0], os.X_OK)]
    if not os.access(veil, os.X_OK):
        missing.append(veil)
    if missing:
        sys.stderr.write("leakbench: missing (run .ci/install-peers.sh / cargo build): "
                         + ", ".join(missing) + "\n")
        sys.exit(3)


async def run(args, size, work, people, truth, data):
    cmds = peer_commands(work)
    tally = Tally(truth)
    wanted = args.servers.split(",")
    check_peers(cmds, args.veil, wanted)
    env = dict(os.environ, MEMORY_FILE_PATH=os.path.join(work, "memory.jsonl"),
               RUST_LOG=os.environ.get("RUST_LOG", "warn"))
    errlog = open(os.path.join(work, "servers.stderr"), "w")
    rng = random.Random(args.seed + 7)

    def score(shape, direct, proxied):
        tally.add(shape, direct, proxied)

    async def one(name, body):
        async with servers.Pair(args.veil, cmds[name], env, errlog) as pair:
            checks = await body(pair)
            return name, checks, pair.errors

    jobs = []
    if "git" in wanted:
        jobs.append(one("git", lambda p: servers.run_git(
            p, data["repo"], data["hashes"], size["n_show"], score, rng)))
    if "sqlite" in wanted:
        jobs.append(one("sqlite", lambda p: servers.run_sqlite(
            p, people, size["page"], score)))
    if "filesystem" in wanted:
        jobs.append(one("filesystem", lambda p: servers.run_files(
            p, os.path.join(work, "files"), data["files"], people, score)))
    if "memory" in wanted:
        jobs.append(one("memory", lambda p: servers.run_memory(
            p, data["mem_people"], data["entities"], data["relations"], score)))
    results = await asyncio.gather(*jobs)
    errlog.close()
    return tally, results


def pct(a, b):
    return round(100.0 * a / b, 2) if b else 0.0


def summarise(tally: Tally, results, args, size, elapsed) -> dict:
    shapes = sorted(tally.present)
    per_shape = {}
    for sh in shapes:
        kinds = defaultdict(lambda: {"present": 0, "leaked": 0})
        for v, k in tally.present[sh].items():
            kinds[k]["present"] += 1
            kinds[k]["leaked"] += v in tally.leaked[sh]
        multi = sum(1 for v, k in tally.present[sh].items()
                    if k == "NAME" and v not in tally.leaked[sh])
        by_field = defaultdict(int)
        for _, _, f in tally.false[sh]:
            by_field[f] += 1
        per_shape[sh] = {
            "present": len(tally.present[sh]), "leaked": len(tally.leaked[sh]),
            "leak_pct": pct(len(tally.leaked[sh]), len(tally.present[sh])),
            "kinds": dict(kinds),
            "names_not_leaked": multi, "partly_covered": len(tally.partly[sh]),
            "tokens": tally.tokens[sh], "false_tokens": len(tally.false[sh]),
            "false_pct": pct(len(tally.false[sh]), tally.tokens[sh]),
            "false_by_field": dict(by_field), "unaligned_tokens": tally.unaligned[sh],
        }

    def distinct(filter_shape):
        present, leaked, partly = {}, set(), set()
        for sh in shapes:
            if not filter_shape(sh):
                continue
            present.update(tally.present[sh])
            leaked.update(tally.leaked[sh])
            partly.update(tally.partly[sh])
        kinds = {}
        for k in KINDS:
            vs = [v for v, kk in present.items() if kk == k]
            if vs:
                n = sum(v in leaked for v in vs)
                kinds[k] = {"present": len(vs), "leaked": n, "leak_pct": pct(n, len(vs))}
        tokens = sum(tally.tokens[sh] for sh in shapes if filter_shape(sh))
        false = sum(len(tally.false[sh]) for sh in shapes if filter_shape(sh))
        return {"present": len(present), "leaked": len(leaked),
                "leak_pct": pct(len(leaked), len(present)),
                "partly_covered": len(partly - leaked), "tokens": tokens, "false_tokens": false,
                "false_pct": pct(false, tokens), "kinds": kinds}

    servers_seen = sorted({sh.split("/")[0] for sh in shapes})
    checks = [c.as_dict() for _, cs, _ in results for c in cs]
    return {
        "seed": args.seed, "size": "quick" if args.quick else "full", "params": size,
        "locales": args.locales.split(","), "veil": args.veil, "seconds": round(elapsed, 1),
        "overall": distinct(lambda sh: True),
        "per_server": {s: distinct(lambda sh, s=s: sh.startswith(s + "/")) for s in servers_seen},
        "per_shape": per_shape,
        "checks": checks,
        "checks_holding": sum(c["holds"] for c in checks), "checks_total": len(checks),
        "errors": [e for _, _, es in results for e in es],
    }


def print_report(rep: dict, tally: Tally, args):
    o = rep["overall"]
    print(f"leak benchmark: seed {rep['seed']}, {rep['size']} size, {len(rep['locales'])} locales,"
          f" {rep['seconds']} s, veil {rep['veil']}")
    print(f"\nOVERALL: {o['leaked']} of {o['present']} distinct personal values leaked "
          f"({o['leak_pct']}%); {o['partly_covered']} more names partly covered; "
          f"{o['false_tokens']} of {o['tokens']} tokens false ({o['false_pct']}%); "
          f"round-trip checks holding: {rep['checks_holding']} of {rep['checks_total']}")
    print("\nper server                          present  leaked   leak%   tokens  false  false%")
    for s, r in rep["per_server"].items():
        print(f"  {s:<32} {r['present']:>7} {r['leaked']:>7} {r['leak_pct']:>7} "
              f"{r['tokens']:>8} {r['false_tokens']:>6} {r['false_pct']:>7}")
    print("\nper kind                            present  leaked   leak%")
    for k, r in o["kinds"].items():
        print(f"  {k:<32} {r['present']:>7} {r['leaked']:>7} {r['leak_pct']:>7}")
    print("\nper shape (server/tool/format)                present leaked  leak% partly tokens"
          " false  leaked by kind")
    for sh, r in rep["per_shape"].items():
        kinds = " ".join(f"{k}:{v['leaked']}/{v['present']}" for k, v in sorted(r["kinds"].items())
                         if v["leaked"])
        print(f"  {sh:<44} {r['present']:>5} {r['leaked']:>6} {r['leak_pct']:>6} "
              f"{r['partly_covered']:>6} {r['tokens']:>6} {r['false_tokens']:>5}  {kinds}")
    fields = defaultdict(int)
    for r in rep["per_shape"].values():
        for f, n in r["false_by_field"].items():
            fields[f] += n
    if fields:
        print("\nfalse tokens by field hit: " + ", ".join(
            f"{f} {n}" for f, n in sorted(fields.items(), key=lambda kv: -kv[1])))
    print("\nround-trip checks")
    for c in rep["checks"]:
        print(f"  [{'ok' if c['holds'] else 'FAIL'}] {c['name']}"
              + (f" ({c['detail']})" if c["detail"] else ""))
    if rep["errors"]:
        print("\ntool errors: " + "; ".join(rep["errors"]))
    if args.show_leaks:
        print("\nleaked values (shape, kind, value, proxied context):")
        for sh in sorted(tally.leaked):
            for v, ctx in sorted(tally.leaked[sh].items()):
                print(f"  {sh}\t{tally.present[sh][v]}\t{v!r}\t{ctx!r}")
    if args.show_false:
        print("\nfalse tokens (shape, token, covered, field):")
        for sh in sorted(tally.false):
            for tok, cov, f in tally.false[sh]:
                print(f"  {sh}\t{tok}\t{cov!r}\t{f}")


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":
        # some faker providers pick from sets, whose order follows str hashing: fix it, so a
        # seed gives the same data in every run
        os.execve(sys.executable, [sys.executable, *sys.argv],
                  dict(os.environ, PYTHONHASHSEED="0"))
    args = parse_args()
    size = SIZES["quick" if args.quick else "full"]
    work = args.work or os.path.join(ROOT, ".ci", "work", "leakbench",
                                     f"seed{args.seed}-{'quick' if args.quick else 'full'}")
    work = os.path.abspath(work)
    if os.path.exists(work):
        shutil.rmtree(work)
    os.makedirs(os.path.join(work, "git"))
    t0 = time.time()
    rng = random.Random(args.seed)
    people = gen.make_people(args.seed, size["per_locale"], args.locales.split(","))
    truth = gen.Truth()
    for p in people:
        truth.add_person(p)
    repo, hashes = gen.make_git(os.path.join(work, "git"), people, size["commits"], rng, truth)
    gen.make_sqlite(os.path.join(work, "customers.sqlite"), people, rng)
    files = gen.make_files(os.path.join(work, "files"), people, rng, size["per_file"])
    mem_people = rng.sample(people, min(size["memory"], len(people)))
    entities, relations = gen.memory_plan(mem_people, rng)
    data = dict(repo=repo, hashes=hashes, files=files, mem_people=mem_people,
                entities=entities, relations=relations)
    tally, results = asyncio.run(run(args, size, work, people, truth, data))
    rep = summarise(tally, results, args, size, time.time() - t0)
    out = args.out or os.path.join(work, "report.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(rep, f, indent=1, ensure_ascii=False)
    if args.json:
        print(json.dumps(rep, ensure_ascii=False))
    else:
        print_report(rep, tally, args)
        print(f"\nJSON report: {out}")


if __name__ == "__main__":
    main()
