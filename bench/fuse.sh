#!/usr/bin/env bash
# Training step time at tp=2 + SP (2 ranks, one BLAS thread each) with the
# sequence collectives fused into their GEMMs (sp-fuse-collective-matmul, 2
# and 4 chunks) against the unfused pipeline (--fuse-chunks 0), same model
# as bench/step-time.sh (GPT-2 shape, 4 layers, h=256, s=128, b=8), side by
# side in one run. Prints the median step time of each and the ratio
# unfused / fused (> 1: fusion is faster). The bytes sent are equal.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
steps=${STEPS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

"$bin/sp-import" --hf-config "$root/bench/gpt2-small-bench.json" --seq-len 128 --batch 8 -o "$tmp/model.mlir"
median() {
  /usr/bin/python3 -c "
import json, statistics
t = [json.loads(l)['step_time_s'] for l in open('$1')][2:]
print(f'{statistics.median(t):.6f}')"
}
printf "%-26s %12s %8s\n" "tp=2+SP, 2 ranks" "median s" "ratio"
base=""
for chunks in 0 2 4; do
  "$bin/sp-compile" "$tmp/model.mlir" --tp 2 --sp --train --fuse-chunks "$chunks" -o "$tmp/step$chunks"
done
# Interleaved rounds so that machine noise hits every variant alike.
for round in 1 2 3; do
  for chunks in 0 2 4; do
    mpirun --allow-run-as-root -np 2 "$tmp/step$chunks" --steps "$steps" \
      --log "$tmp/log$chunks.$round.jsonl" > /dev/null
  done
done
for chunks in 0 2 4; do
  cat "$tmp"/log$chunks.*.jsonl > "$tmp/all$chunks.jsonl"
  t=$(median "$tmp/all$chunks.jsonl")
  [ -z "$base" ] && base=$t
  name=$([ "$chunks" = 0 ] && echo "unfused" || echo "fused, $chunks chunks")
  printf "%-26s %12s %8s\n" "$name" "$t" \
    "$(/usr/bin/python3 -c "print(f'{$base / $t:.2f}')")"
done
