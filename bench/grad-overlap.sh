#!/usr/bin/env bash
# Gradient buckets overlapping the backward (sp-overlap-grad-reductions)
# against the same program reducing every bucket at the end
# (--overlap-grad-reductions=false), side by side: a 6-layer GPT-2 with
# h=512 (bench/gpt2-small-bench.json widened: 19M parameters, 76 MB of f32
# gradients, so sp-sync-grads' 25 MB buckets make several) trained at dp=2
# (one rank per core, 1 BLAS thread each), both programs run alternately
# ROUNDS times; prints each one's median step time and their ratio.
# On CPU ranks the non-blocking MPI collective progresses inside MPI calls
# (Open MPI has no progress thread by default): the overlap there is mostly
# the bucket's packing and the reduction's start moving into the backward,
# so expect a ratio near 1; on GPUs (NCCL on its own stream) the reduction
# runs while the backward computes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
steps=${STEPS:-6}
rounds=${ROUNDS:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

sed -e 's/"n_embd": 256/"n_embd": 512/' -e 's/"n_layer": 4/"n_layer": 6/' \
  "$root/bench/gpt2-small-bench.json" > "$tmp/config.json"
"$bin/sp-import" --hf-config "$tmp/config.json" --seq-len 128 --batch 4 \
  -o "$tmp/model.mlir"
for overlap in true false; do
  "$bin/sp-compile" "$tmp/model.mlir" --train --dp 2 \
    --overlap-grad-reductions="$overlap" -o "$tmp/prog-$overlap"
  "$bin/sp-compile" "$tmp/model.mlir" --train --dp 2 --emit mlir \
    --overlap-grad-reductions="$overlap" -o "$tmp/prog-$overlap.mlir"
done
echo "dp buckets: $(grep -c 'all_reduce_coalesced.*"dp".*async' \
  "$tmp/prog-true.mlir") async of $(grep -c 'all_reduce_coalesced.*"dp"' \
  "$tmp/prog-false.mlir")"
for r in $(seq "$rounds"); do
  for overlap in true false; do
    mpirun --allow-run-as-root --oversubscribe -np 2 "$tmp/prog-$overlap" \
      --steps "$steps" --log "$tmp/log-$overlap-$r.jsonl" > /dev/null
  done
done
/usr/bin/python3 - "$tmp" "$rounds" <<'PY'
import glob, json, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])
med = {}
for overlap in ("true", "false"):
    times = []
    for r in range(1, rounds + 1):
        times += [json.loads(l)["step_time_s"]
                  for l in open(f"{tmp}/log-{overlap}-{r}.jsonl")][1:]
    med[overlap] = statistics.median(times)
    print(f"overlap={overlap:5}: median step {1e3 * med[overlap]:8.1f} ms "
          f"({len(times)} steps)")
print(f"overlapped / at the end: {med['true'] / med['false']:.3f}")
PY
