#!/usr/bin/env bash
# Writes every output a speed change must leave byte-identical into OUT, so that two builds can
# be compared with `diff -r OUT_BEFORE OUT_AFTER`:
#
#   bash benches/refcorpus/oracle.sh OUT [CORPUS]
#
# It uses the release binaries in target/release (build them first:
# `cargo build --release --bin mcp-veil --example tokenize_digest --example eval
# --example names_dump --example eval_corpus`). CORPUS is the reference corpus directory
# (`run.py` generates it; default /tmp/refcorpus). Outputs: `redact` of the three reference
# files, `tokenize_digest`, the whole `eval` output, `names_dump` of the development spans, and
# `eval_corpus` on the reference prose with its timing removed.
set -euo pipefail
out=${1:?usage: oracle.sh OUT [CORPUS]}
corpus=${2:-/tmp/refcorpus}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=$root/target/release
shared=$root/../shared
mkdir -p "$out"
for f in mcp_contacts.json prose.txt clean.txt; do
  "$bin/mcp-veil" redact < "$corpus/$f" > "$out/redact_$f"
done
(cd "$root" && "$bin/examples/tokenize_digest") > "$out/tokenize_digest.txt"
(cd "$root" && "$bin/examples/eval") > "$out/eval.txt"
"$bin/examples/names_dump" "$shared/eval/spans_dev.jsonl" > "$out/names_dump.jsonl"
"$bin/examples/eval_corpus" "$corpus/prose.txt" | grep -v -i 'MB/s' | sed 's/| [0-9.]* |$/|/' > "$out/eval_corpus.txt"
sha1sum "$out"/* | sed "s#$out/##"
