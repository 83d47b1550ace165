#!/usr/bin/env bash
# Compile time and peak memory of `sp-compile --train --micro-batches M` to
# an executable, and the size of the emitted IR (--emit=mlir: the planned
# step), for the tiny GPT-2 (seq 64, batch 2) without and with
# pipeline parallelism (pp 2), for M in MS (default "4 50 200 1000"). Without
# pp the micro-batches are one loop in the IR (sp-micro-batches): time and
# size do not grow with M; with pp a stage's 1F1B order is a loop too.
# Prints one line per (pp, M); not a timed test.
# SP_COMPILE names another sp-compile binary (e.g. an older build).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
compile=${SP_COMPILE:-$bin/sp-compile}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin/sp-import" --hf-config "$root/examples/configs/gpt2-tiny.json" \
  --seq-len 64 --batch 2 -o "$tmp/m.mlir"
printf "%-4s %-6s %10s %12s %14s\n" pp M seconds max_rss_MB ir_bytes
for pp in 1 2; do
  for m in ${MS:-4 50 200 1000}; do
    /usr/bin/time -f "%e %M" -o "$tmp/time" timeout 300 "$compile" \
      "$tmp/m.mlir" --train --pp $pp --micro-batches "$m" \
      -o "$tmp/step" >/dev/null 2>"$tmp/err" ||
      { printf "%-4s %-6s failed: %s\n" $pp "$m" "$(tail -1 "$tmp/err")"; continue; }
    "$compile" "$tmp/m.mlir" --train --pp $pp --micro-batches "$m" \
      --emit=mlir -o "$tmp/out.mlir"
    read -r secs rss <"$tmp/time"
    printf "%-4s %-6s %10s %12d %14d\n" $pp "$m" "$secs" $((rss / 1024)) \
      "$(stat -c %s "$tmp/out.mlir")"
  done
done
