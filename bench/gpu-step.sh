#!/usr/bin/env bash
# Training step on one GPU: the GPT-2 124M shape (examples/configs/gpt2-124m.json,
# seq 1024, BATCH sequences, default 8), compiled with --target cuda and
# --target cpu, one rank each, side by side. Prints the median step time of
# each, tokens/s, the model FLOPs utilisation of the GPU run (6 * parameters *
# tokens + attention 12 * layers * seq * hidden * tokens, against PEAK_TFLOPS,
# default 67: H100 SXM fp32 without tensor cores) and the ratio cpu / cuda.
# Needs a GPU (build/bin/sp-device-probe says why not); the cpu run uses
# CPU_STEPS steps (default 2), as many BLAS threads as cores.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
steps=${STEPS:-10}
cpu_steps=${CPU_STEPS:-2}
batch=${BATCH:-8}
peak=${PEAK_TFLOPS:-67}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$bin/sp-device-probe"; then
  echo "gpu-step: no usable GPU; nothing measured" >&2
  exit 1
fi
config="$root/examples/configs/gpt2-124m.json"
"$bin/sp-import" --hf-config "$config" --seq-len 1024 --batch "$batch" -o "$tmp/model.mlir"
for target in cuda cpu; do
  "$bin/sp-compile" "$tmp/model.mlir" --train --optimizer adamw --lr 1e-4 \
    --target "$target" -o "$tmp/step-$target"
done
mpirun --allow-run-as-root -np 1 "$tmp/step-cuda" --steps "$steps" --log "$tmp/cuda.jsonl" > /dev/null
mpirun --allow-run-as-root -np 1 "$tmp/step-cpu" --steps "$cpu_steps" --log "$tmp/cpu.jsonl" > /dev/null
/usr/bin/python3 - "$config" "$tmp" "$batch" "$peak" <<'PY'
import json, statistics, sys
config, tmp, batch, peak = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
c = json.load(open(config))
L, h, V, n_pos = c["n_layer"], c["n_embd"], c["vocab_size"], c["n_positions"]
params = V * h + n_pos * h + L * (12 * h * h + 13 * h) + 2 * h
tokens = 1024 * batch
flops = 6 * params * tokens + 12 * L * 1024 * h * tokens
def median(path, skip):
    t = [json.loads(l)["step_time_s"] for l in open(path)]
    return statistics.median(t[skip:] or t)
gpu, cpu = median(f"{tmp}/cuda.jsonl", 2), median(f"{tmp}/cpu.jsonl", 0)
print(f"{'GPT-2 124M, seq 1024, batch':32s} {batch}")
print(f"{'cuda step (median)':32s} {gpu:10.4f} s   {tokens / gpu:10.0f} tokens/s")
print(f"{'cpu step (median)':32s} {cpu:10.4f} s   {tokens / cpu:10.0f} tokens/s")
print(f"{'model FLOPs per step':32s} {flops / 1e12:10.2f} TFLOP")
print(f"{'cuda MFU vs ' + str(peak) + ' TFLOP/s':32s} {flops / gpu / 1e12 / peak:10.1%}")
print(f"{'ratio cpu / cuda':32s} {cpu / gpu:10.1f}")
PY
