#!/usr/bin/env bash
# Arena per rank of whole train steps (forward, backward, gradient
# reductions, optimizer): sp-plan-buffers' plan against the max-live lower
# bound (target: within 5%, DESIGN.md section 7) and against the arena without
# a plan (one buffer per value, convert-sp-to-runtime's fallback), plus the
# planner's time. Sizes are bytes per rank in the IR's element types (f32).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
printf "%-34s %14s %14s %14s %9s %9s %9s\n" model planned max_live unplanned \
  plan/max unplan/plan plan_s
run() { # name config partition import-flags...
  local name=$1 cfg=$2 part=$3
  shift 3
  "$bin/sp-import" --hf-config "$root/examples/configs/$cfg" "$@" -o "$tmp/m.mlir"
  "$bin/sp-opt" "$tmp/m.mlir" --sp-partition="$part" --tfm-autodiff \
    --sp-sync-grads --sp-optimizer -o "$tmp/train.mlir"
  local t0 t1
  t0=$(now)
  "$bin/sp-opt" "$tmp/train.mlir" --sp-plan-buffers -o "$tmp/plan.mlir"
  t1=$(now)
  "$bin/sp-opt" "$tmp/train.mlir" --convert-sp-to-runtime -o "$tmp/seq.mlir"
  local planned max unplanned
  planned=$(grep -o 'dist.arena_bytes = [0-9]*' "$tmp/plan.mlir" | tail -1 | grep -o '[0-9]*$')
  max=$(grep -o 'dist.arena_max_live = [0-9]*' "$tmp/plan.mlir" | tail -1 | grep -o '[0-9]*$')
  unplanned=$(grep -o 'arena_bytes\\22: *[0-9]*' "$tmp/seq.mlir" | grep -o '[0-9]*$')
  awk -v n="$name" -v p="$planned" -v m="$max" -v u="$unplanned" -v a="$t0" -v b="$t1" \
    'BEGIN{printf "%-34s %14.0f %14.0f %14.0f %9.3f %9.2f %9.2f\n", n, p, m, u, p/m, u/p, b-a}'
}
run "gpt2-124m s=256 b=4" gpt2-124m.json "tp=1" --seq-len 256 --batch 4
run "pythia-1.4b s=512 b=1 tp=2+SP" pythia-1.4b.json "tp=2 sequence-parallel=true" --seq-len 512 --batch 1
run "llama-3-8b s=512 b=1 tp=4+SP" llama-3-8b.json "tp=4 sequence-parallel=true" --seq-len 512 --batch 1
run "llama-3-8b s=512 b=2 tp=4+SP dp=2" llama-3-8b.json "tp=4 dp=2 sequence-parallel=true" --seq-len 512 --batch 2
run "gpt3-175b s=2048 b=1 tp=8+SP" paper-175b.json "tp=8 sequence-parallel=true"
