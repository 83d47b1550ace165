#!/usr/bin/env bash
# sp-plan --max-seq on the Llama-3-8B shape (issue 32, item 4): the longest
# sequence that some layout of 8 and of 64 H100-80GB GPUs trains, global
# batch 8, sequence block 1024. For each answer, sp-compile compiles the
# winner in full at that length (its per-rank peak must equal the plan's and
# fit) and one block longer (it must not fit); sp-plan itself has compiled
# every layout one block up.
#   bench/max-seq.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build}/bin
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
config=$root/examples/configs/llama-3-8b.json
for nodes in 1 8; do
  sed "s/\"nodes\": 1,/\"nodes\": $nodes,/" \
    "$root/examples/clusters/h100-80gb.json" >"$work/cluster.json"
  echo "== $((nodes * 8)) GPUs"
  "$bin/sp-plan" --hf-config "$config" --global-batch 8 \
    --cluster "$work/cluster.json" --max-seq --seq-block 1024 \
    --max-micro-batches 8 | tee "$work/plan.txt"
  "$bin/sp-plan" --hf-config "$config" --global-batch 8 \
    --cluster "$work/cluster.json" --max-seq --seq-block 1024 \
    --max-micro-batches 8 --json >"$work/plan.json"
  SEQPAR_BIN=$bin /usr/bin/python3 "$root/bench/max_seq_check.py" \
    "$work/plan.json" "$config" "$work/check"
done
