#!/usr/bin/env bash
# "Does this configuration fit in 80 GB?" answered before running: the
# per-rank device memory sp-report=memory plans for a training step (the
# program sp-compile builds, fused and planned), by category and recompute
# policy, next to Korthikanti et al. 2022's activation formula per layer
# times the layers. No execution: each configuration compiles in well under
# a second. bf16 activations and parameters (sp-import --dtype bf16); AdamW's
# two moments are fp32 (seqpar keeps no fp32 master copy of the weights).
#
#   GPT-2 124M  s=1024 b=8  tp=1 (its vocabulary, 50257, does not split)
#   Llama-3-8B  s=8192 b=1  tp=4 + SP (examples/configs/llama-3-8b.json:
#               the published config, hidden 4096, 32 layers, 32 heads,
#               8 kv heads, intermediate 14336, vocab 128256, rope 500000)
#   GPT-3 175B  s=2048 b=1  tp=8 + SP (the paper's shape, paper-175b.json)
#
# Each step is compiled under each recompute policy (sp-compile
# --recompute); bench/memory_plan.py prints the tables.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rows=()
run() { # name config seq batch tp sp
  local name=$1 cfg=$2 seq=$3 batch=$4 tp=$5 sp=$6
  "$bin/sp-import" --hf-config "$root/examples/configs/$cfg" --seq-len "$seq" \
    --batch "$batch" --dtype bf16 -o "$tmp/$name.mlir"
  for policy in none selective full; do
    local out="$tmp/$name-$policy.json" t0 t1
    t0=$(date +%s.%N)
    "$bin/sp-compile" "$tmp/$name.mlir" --train --tp "$tp" \
      $([ "$sp" = true ] && echo --sp) --recompute "$policy" \
      --report memory -o "$out"
    t1=$(date +%s.%N)
    rows+=(--row "$name" "$policy" "$root/examples/configs/$cfg" "$seq" \
      "$batch" "$tp" "$out" "$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')")
  done
}
run gpt2-124m gpt2-124m.json 1024 8 1 false
run llama-3-8b llama-3-8b.json 8192 1 4 true
run gpt3-175b paper-175b.json 2048 1 8 true
/usr/bin/python3 "$root/bench/memory_plan.py" "${rows[@]}"
