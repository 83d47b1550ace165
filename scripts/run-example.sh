#!/usr/bin/env bash
# The main job on a small example: install what is missing, build, import the
# tiny GPT-2 config, compile a training step with tensor + sequence
# parallelism over 2 ranks, and train it for 40 steps on 2 CPU ranks on
# byte-level text (the loss falls).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEQPAR_BUILD_DIR:-$root/build}
config=${1:-$root/examples/configs/gpt2-tiny.json}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" sp-opt sp-import sp-compile
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/bin/sp-import" --hf-config "$config" --seq-len 32 --batch 4 -o "$out/model.mlir"
"$build/bin/sp-compile" "$out/model.mlir" --tp 2 --sp --emit mlir -o "$out/sp.mlir"
echo "== sp-partition (tp=2, sequence parallel): the collectives of layer 0"
grep -E '= dist\.' "$out/sp.mlir" | sed 's/ loc(#loc[0-9]*)//; s/^ *//' | sed -n '1,5p'
"$build/bin/sp-compile" "$out/model.mlir" --tp 2 --sp --report memory -o "$out/memory.json"
echo "== activation bytes per rank kept for the backward (all layers):"
grep -A2 '"total"' "$out/memory.json" | tail -2
echo "== training, 40 steps on 2 CPU ranks, byte-level GPL-3 text (first and last 3):"
"$build/bin/sp-compile" "$out/model.mlir" --tp 2 --sp --train --optimizer adamw \
  --lr 3e-3 --grad-clip 1.0 -o "$out/step"
export OPENBLAS_NUM_THREADS=1
mpirun --allow-run-as-root --oversubscribe -np 2 "$out/step" --steps 40 \
  --data /usr/share/common-licenses/GPL-3 --log "$out/metrics.jsonl" | sed -n '1,3p;38,40p'

echo "== last metrics line:"
tail -1 "$out/metrics.jsonl"
