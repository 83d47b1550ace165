#!/usr/bin/env bash
# Compares two builds of seqpar bit for bit: each imports and compiles the
# same tiny models under the same layouts, trains 3 AdamW/SGD steps with
# dropout (seed 7) on CPU ranks, and the step lines and the dumped
# parameters must be identical. For a change that must not alter numerics
# (a refactoring of the lowering or the runtime's ABI).
#
#   scripts/bitwise-builds.sh OLD_BUILD_DIR NEW_BUILD_DIR
#
# (e.g. a `git worktree add /tmp/old HEAD~3` built with
# SEQPAR_BUILD_DIR=/tmp/old/build scripts/build.sh sp-import sp-compile
# sprt_main sprt_core sprt_comm_mpi sprt_cpu). Prints SAME or DIFF per
# configuration; exits 1 on any difference.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 OLD_BUILD_DIR NEW_BUILD_DIR" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
configs=(
  "gpt2-tiny|1|"
  "gpt2-tiny|2|--tp 2 --sp"
  "gpt2-tiny|2|--cp 2"
  "gpt2-tiny|2|--cp 2 --cp-attention ring"
  "llama-tiny|2|--tp 2 --sp --precision bf16"
  "llama-tiny|4|--cp 2 --cp-attention ring --dp 2 --recompute full"
  "neox-tiny|2|--dp 2 --micro-batches 2"
  "gpt2-tiny|2|--optimizer sgd --recompute selective --dp 2 --zero 1"
  "gpt2-tiny|2|--pp 2 --micro-batches 2 --precision fp16"
)
fail=0
for c in "${configs[@]}"; do
  IFS='|' read -r model np flags <<<"$c"
  for side in old new; do
    bin=$old/bin
    [ "$side" = new ] && bin=$new/bin
    # shellcheck disable=SC2086
    "$bin/sp-import" --hf-config "$root/examples/configs/$model.json" \
      --seq-len 32 --batch 4 -o "m-$side.mlir" &&
      "$bin/sp-compile" "m-$side.mlir" --train $flags -o "prog-$side" &&
      OPENBLAS_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe \
        -np "$np" "./prog-$side" --steps 3 --seed 7 \
        --dump-params "params-$side.safetensors" 2>/dev/null |
      grep '^step' | sed 's/\[.*//' >"out-$side.txt"
  done
  if [ -s out-new.txt ] && cmp -s out-old.txt out-new.txt &&
    cmp -s params-old.safetensors params-new.safetensors; then
    echo "SAME  $model $flags: $(tail -1 out-new.txt)"
  else
    echo "DIFF  $model $flags"
    diff out-old.txt out-new.txt
    fail=1
  fi
  rm -f out-*.txt params-*.safetensors prog-* m-*.mlir
done
exit $fail
