#!/usr/bin/env bash
# The pipeline bubble, measured: a 4-layer GPT-2 (bench/gpt2-small-bench.json,
# h=256, s=128, global batch 8) trained at pp = 2 and pp = 4 (one rank per
# stage, 1 BLAS thread each) with M in {1, 2, 4, 8} micro-batches. Each run's
# summary line gives the fraction of the step time its ranks spent waiting in
# pipeline recvs and send completion (mean over the ranks, the first step
# left out); printed next to the 1F1B theory (P-1)/(M+P-1) and their ratio.
# Ranks beyond the machine's cores share them: their waits then include
# time descheduled, and the measured bubble is larger than the schedule's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
steps=${STEPS:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

"$bin/sp-import" --hf-config "$root/bench/gpt2-small-bench.json" \
  --seq-len 128 --batch 8 -o "$tmp/model.mlir"
printf "%-4s %-4s %10s %10s %8s %12s\n" P M measured theory ratio "step (ms)"
for pp in 2 4; do
  for m in 1 2 4 8; do
    "$bin/sp-compile" "$tmp/model.mlir" --train --pp "$pp" \
      --micro-batches "$m" -o "$tmp/prog"
    mpirun --allow-run-as-root --oversubscribe -np "$pp" "$tmp/prog" \
      --steps "$steps" --log "$tmp/log.jsonl" > "$tmp/out.txt"
    /usr/bin/python3 - "$pp" "$m" "$tmp/out.txt" "$tmp/log.jsonl" <<'PY'
import json, re, statistics, sys
pp, m, out, log = sys.argv[1:5]
line = next(l for l in open(out) if l.startswith("pipeline bubble:"))
measured = float(re.search(r"measured ([0-9.]+)", line).group(1))
theory = float(re.search(r"= ([0-9.]+)", line).group(1))
times = [json.loads(l)["step_time_s"] for l in open(log)][1:]
print(f"{pp:<4} {m:<4} {measured:10.3f} {theory:10.3f} "
      f"{measured / theory:8.2f} {1e3 * statistics.median(times):12.1f}")
PY
  done
done
