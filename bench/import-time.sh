#!/usr/bin/env bash
# Import time of sp-import on the GPT-2 124M shape (examples/configs/
# gpt2-124m.json, --seq-len 1024) at 128, 256, 512, 1024 and 2048 layers.
# Prints the best of N runs (RUNS, default 3) for each, and the ratio to the
# previous row: an import linear in the layer count stays near 2.0 per
# doubling (process start-up, ~20 ms, weighs most at 128 layers).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
printf "%8s %10s %12s %10s\n" layers import_s params ratio
prev=""
for layers in ${LAYERS:-128 256 512 1024 2048}; do
  sed "s/\"n_layer\": 12/\"n_layer\": $layers/" \
    "$root/examples/configs/gpt2-124m.json" > "$tmp/cfg.json"
  best=1e9
  for _ in $(seq "$runs"); do
    t0=$(now)
    "$bin/sp-import" --hf-config "$tmp/cfg.json" --seq-len 1024 -o "$tmp/model.mlir"
    t1=$(now)
    best=$(awk -v a="$t0" -v b="$t1" -v m="$best" 'BEGIN{d=b-a; print (d<m)?d:m}')
  done
  params=$(grep -c 'tfm.param @' "$tmp/model.mlir" || true)
  ratio=-
  [ -n "$prev" ] && ratio=$(awk -v t="$best" -v p="$prev" 'BEGIN{printf "%.2f", t/p}')
  printf "%8d %10.3f %12d %10s\n" "$layers" "$best" "$params" "$ratio"
  prev=$best
done
