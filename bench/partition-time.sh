#!/usr/bin/env bash
# Compile time of sp-partition (tp=8, sequence-parallel) on the GPT-3 175B
# shape of arXiv 2205.05198 at 24, 48, 96 and 192 layers. Prints the best of
# N runs for each, and the time per layer relative to 24 layers: a linear
# pass stays at or below 1.0 (process start-up, ~20 ms, is a fixed part of
# every run and weighs most at 24 layers).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
printf "%8s %8s %12s %12s %14s\n" layers ops import_s partition_s per_layer_ratio
base=""
for layers in 24 48 96 192; do
  sed "s/\"n_layer\": 96/\"n_layer\": $layers/" \
    "$root/examples/configs/paper-175b.json" > "$tmp/cfg.json"
  best_import=1e9; best_part=1e9
  for _ in $(seq "$runs"); do
    t0=$(now)
    "$bin/sp-import" --hf-config "$tmp/cfg.json" -o "$tmp/model.mlir"
    t1=$(now)
    "$bin/sp-opt" "$tmp/model.mlir" --sp-partition="tp=8 sequence-parallel=true" -o "$tmp/out.mlir"
    t2=$(now)
    best_import=$(awk -v a="$t0" -v b="$t1" -v m="$best_import" 'BEGIN{d=b-a; print (d<m)?d:m}')
    best_part=$(awk -v a="$t1" -v b="$t2" -v m="$best_part" 'BEGIN{d=b-a; print (d<m)?d:m}')
  done
  ops=$(grep -c ' = ' "$tmp/out.mlir" || true)
  per_layer=$(awk -v t="$best_part" -v l="$layers" 'BEGIN{print t/l}')
  [ -z "$base" ] && base=$per_layer
  printf "%8d %8d %12.3f %12.3f %14.2f\n" "$layers" "$ops" "$best_import" "$best_part" \
    "$(awk -v p="$per_layer" -v b="$base" 'BEGIN{print p/b}')"
done
