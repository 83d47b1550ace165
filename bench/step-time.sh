#!/usr/bin/env bash
# Training step time on one CPU thread: seqpar's compiled step (forward,
# backward, AdamW) against PyTorch eager on the same model (GPT-2 shape,
# 4 layers, h=256, s=128, b=8), measured side by side in one run. Prints the
# median step time of each and the ratio (PyTorch / seqpar: > 1 means
# seqpar is faster).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
steps=${STEPS:-20}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

config="$root/bench/gpt2-small-bench.json"
"$bin/sp-import" --hf-config "$config" --seq-len 128 --batch 8 -o "$tmp/model.mlir"
"$bin/sp-compile" "$tmp/model.mlir" --train --optimizer adamw --lr 1e-3 -o "$tmp/step"
mpirun --allow-run-as-root -np 1 "$tmp/step" --steps "$steps" --log "$tmp/log.jsonl" > /dev/null
seqpar=$(/usr/bin/python3 -c "
import json, statistics, sys
t = [json.loads(l)['step_time_s'] for l in open('$tmp/log.jsonl')][2:]
print(f'{statistics.median(t):.6f}')")
torch=$(/usr/bin/python3 "$root/bench/torch_step.py" "$config" --steps "$steps")
printf "%-28s %12s\n" "median step time (1 thread)" "seconds"
printf "%-28s %12s\n" "seqpar (compiled, tp=1)" "$seqpar"
printf "%-28s %12s\n" "PyTorch 1.13 eager" "$torch"
printf "%-28s %12s\n" "ratio PyTorch / seqpar" \
  "$(/usr/bin/python3 -c "print(f'{$torch / $seqpar:.2f}')")"
