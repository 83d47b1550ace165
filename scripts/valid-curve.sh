#!/usr/bin/env bash
# The validation run of docs/validation.png: the GPL text (the demo data)
# tokenized by scripts/prepare-data.py (byte level, the last 10% of its
# paragraphs for validation), the tiny GPT-2 (examples/configs/gpt2-tiny.json,
# sequence 64, batch 8, AdamW lr 3e-3) trained for STEPS steps on one rank
# with the validation loss (--eval-steps 4 batches) every EVAL_EVERY steps,
# and the plot of the train and validation curves:
#   scripts/valid-curve.sh [WORKDIR [PNG [STEPS [EVAL_EVERY]]]]
# (defaults: a temporary directory, docs/validation.png, 300, 50). Prints
# the validation lines. Needs the build (build/bin, or SEQPAR_BIN) and
# matplotlib in /usr/bin/python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BIN:-$root/build/bin}
work=${1:-$(mktemp -d)}
png=${2:-$root/docs/validation.png}
steps=${3:-300}
every=${4:-50}
mkdir -p "$work"
export OPENBLAS_NUM_THREADS=1
"$root/scripts/prepare-data.py" /usr/share/common-licenses/GPL-3 \
  -o "$work/gpl" --valid-fraction 0.1
"$bin/sp-import" --hf-config "$root/examples/configs/gpt2-tiny.json" \
  --seq-len 64 --batch 8 -o "$work/model.mlir"
"$bin/sp-compile" "$work/model.mlir" --train --optimizer adamw --lr 3e-3 \
  -o "$work/prog"
mpirun --allow-run-as-root --oversubscribe -np 1 "$work/prog" \
  --steps "$steps" --data "$work/gpl" --valid-data "$work/gpl.valid" \
  --eval-every "$every" --eval-steps 4 --log "$work/metrics.jsonl" \
  > "$work/train.out"
grep ' valid loss ' "$work/train.out"
/usr/bin/python3 "$root/scripts/plot-validation.py" "$work/metrics.jsonl" \
  "$work/train.out" "$png"
