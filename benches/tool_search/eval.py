"""Tool search, measured: the gateway in front of six real MCP servers.

usage (from the repository root, after `bash .ci/install-peers.sh` and `cargo build --bin mcp-veil`):

    .venv/bin/python benches/tool_search/eval.py [--veil target/debug/mcp-veil] [--json OUT] [--list]

Starts `mcp-veil proxy --config` over server-everything, server-filesystem, server-memory,
mcp-server-git, mcp-server-sqlite and mcp-server-time twice (tool_search mode never, then always)
and speaks raw JSON-RPC to it, so the bytes counted are exactly the bytes of the `tools/list`
result the host receives. Model tokens are estimated as bytes / 4 (the usual figure for English
text and JSON with BPE tokenizers; it is an estimate, not a tokenizer count). Then each query of
`queries.json` is sent to `search_tools` (limit 5) and scored: recall@1 (the expected tool is
first) and recall@5 (it is among the five), overall, per split and per class. `--split dev` scores
only the dev half (the half looked at while working on ranking; `heldout` is scored at the end);
misses are printed only for the splits scored. `search_ms_median` is the median wall time of one
`search_tools` round trip through the gateway. `--list` prints the gateway's tool names and stops.
"""

import argparse
import json
import os
import subprocess
import sys
import statistics
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def config(tmp, mode):
    folder = os.path.join(tmp, "files")
    os.makedirs(folder, exist_ok=True)
    repo = os.path.join(tmp, "repo")
    if not os.path.isdir(repo):
        subprocess.run(["git", "init", "-q", repo], check=True)
    bin_ = lambda p: os.path.join(ROOT, p)
    return f"""tool_search:
  mode: {mode}
servers:
  everything:
    command: {bin_('node_modules/.bin/mcp-server-everything')}
    args: [stdio]
  fs:
    command: {bin_('node_modules/.bin/mcp-server-filesystem')}
    args: [{folder}]
  memory:
    command: {bin_('node_modules/.bin/mcp-server-memory')}
    env: {{MEMORY_FILE_PATH: {os.path.join(tmp, 'memory.jsonl')}}}
  git:
    command: {bin_('.venv/bin/mcp-server-git')}
    args: [--repository, {repo}]
  sqlite:
    command: {bin_('.venv-servers/bin/mcp-server-sqlite')}
    args: [--db-path, {os.path.join(tmp, 'db.sqlite')}]
  time:
    command: {bin_('.venv/bin/mcp-server-time')}
    args: [--local-timezone, UTC]
"""


class Gateway:
    def __init__(self, veil, cfg):
        self.p = subprocess.Popen([veil, "proxy", "--config", cfg], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.n = 0

    def request(self, method, params):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"the gateway closed during {method}")
            answer = json.loads(line)
            if answer.get("id") == self.n and "method" not in answer:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"], line

    def notify(self, method):
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def start(veil, tmp, mode):
    path = os.path.join(tmp, f"veil-{mode}.yaml")
    with open(path, "w") as f:
        f.write(config(tmp, mode))
    gw = Gateway(veil, path)
    gw.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                              "clientInfo": {"name": "tool-search-eval", "version": "1"}})
    gw.notify("notifications/initialized")
    return gw


def listing(gw):
    result, _ = gw.request("tools/list", {})
    size = len(json.dumps(result, separators=(",", ":")).encode())
    return result["tools"], size


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--veil", default=os.path.join(ROOT, "target/debug/mcp-veil"))
    ap.add_argument("--queries", default=os.path.join(os.path.dirname(__file__), "queries.json"))
    ap.add_argument("--json")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--split", choices=["dev", "heldout"], help="score only this half")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        gw = start(args.veil, tmp, "never")
        tools, never_bytes = listing(gw)
        gw.close()
        if args.list:
            for t in tools:
                print(t["name"], "-", (t.get("description") or "").splitlines()[0][:100] if t.get("description") else "")
            return
        gw = start(args.veil, tmp, "always")
        listed, always_bytes = listing(gw)
        with open(args.queries) as f:
            queries = json.load(f)
        if args.split:
            queries = [q for q in queries if q["split"] == args.split]
        scored = []
        timings = []
        for q in queries:
            began = time.perf_counter()
            result, _ = gw.request("tools/call", {"name": "search_tools",
                                                  "arguments": {"query": q["query"], "limit": 5}})
            timings.append((time.perf_counter() - began) * 1000)
            names = [t["name"] for t in result["structuredContent"]["tools"]]
            scored.append((q, names))
        gw.close()
    known = {t["name"] for t in tools}
    unknown = [q["tool"] for q in queries if q["tool"] not in known]
    if unknown:
        sys.exit(f"queries name tools the gateway does not route: {unknown}")

    def recall(group):
        n = len(group)
        at1 = sum(bool(names) and names[0] == q["tool"] for q, names in group)
        at5 = sum(q["tool"] in names for q, names in group)
        return {"queries": n, "recall_at_1": round(at1 / n, 3), "recall_at_5": round(at5 / n, 3)}

    by = lambda key: {v: recall([s for s in scored if s[0][key] == v])
                      for v in sorted({q[key] for q in queries})}
    report = {
        "tools": len(tools),
        "never": {"tools_listed": len(tools), "bytes": never_bytes, "tokens_est": never_bytes // 4},
        "always": {"tools_listed": len(listed), "bytes": always_bytes, "tokens_est": always_bytes // 4},
        **recall(scored),
        "by_split": by("split"),
        "by_class": by("class"),
        "search_ms_median": round(statistics.median(timings), 2),
        "misses_at_1": [{"query": q["query"], "split": q["split"], "expected": q["tool"], "got": names}
                        for q, names in scored if not names or names[0] != q["tool"]],
    }
    print(json.dumps(report, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
