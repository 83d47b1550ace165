#!/usr/bin/env bash
# Issue 32's search at scale: the GPT-3 175B shape (Korthikanti et al. 2022)
# on 1,024 A100-80GB GPUs (128 DGX nodes of 8), sequence 2048, global batch
# 1536, bf16. Prints how long sp-plan's whole search took on this machine
# (its own "planned in" figure and the wall clock) and what it compiled and
# pruned, then checks the answer the other way: the winner imported and
# compiled in full by sp-import and sp-compile --report memory, whose
# per-rank peak must equal sp-plan's to the byte and fit in the GPU's
# memory.
#   bench/plan-1024.sh [BUILD_DIR] [extra sp-plan flags, e.g. --jobs 1]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build}/bin
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed 's/"nodes": 1,/"nodes": 128,/' "$root/examples/clusters/a100-80gb.json" \
  >"$work/cluster.json"
start=$(date +%s.%N)
"$bin/sp-plan" --hf-config "$root/examples/configs/paper-175b.json" \
  --seq-len 2048 --global-batch 1536 --cluster "$work/cluster.json" \
  --max-compiles 100000 --json "$@" >"$work/plan.json"
end=$(date +%s.%N)
/usr/bin/python3 - "$work/plan.json" "$start" "$end" >"$work/winner.sh" <<'PY'
import json, shlex, sys
j = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
print("# planned in %.1f s (wall clock %.1f s): %d candidates compiled, %d fit, "
      "%d variants not compiled by the bound (%d bound compiles), %d rejected "
      "by a probe (%d probe compiles), %d dominated" % (
          j["planning_seconds"], wall, j["compiled"], j["fit"],
          j["bounded_not_compiled"], j["bound_compiles"],
          j["rejected_by_probe"], j["probe_compiles"],
          j["dominated_not_compiled"]), file=sys.stderr)
for i, r in enumerate(j["ranked"][:3]):
    print("# %d. %-32s %.3f s/step  MFU %.1f%%  peak %d bytes" % (
        i + 1, r["layout"], r["step_seconds"], 100 * r["mfu"],
        r["per_rank_peak_bytes"]["total"]), file=sys.stderr)
w = j["ranked"][0]
print("batch=%d" % w["import_batch"])
print("flags=(%s)" % " ".join(shlex.quote(f) for f in w["sp_compile_flags"]))
print("planned=%d" % w["per_rank_peak_bytes"]["total"])
print("memory=%d" % j["memory_bytes"])
PY
# shellcheck disable=SC1091
source "$work/winner.sh"
"$bin/sp-import" --hf-config "$root/examples/configs/paper-175b.json" \
  --seq-len 2048 --batch "$batch" -o "$work/model.mlir"
"$bin/sp-compile" "$work/model.mlir" "${flags[@]}" --report memory \
  -o "$work/memory.json"
/usr/bin/python3 - "$work/memory.json" "$planned" "$memory" <<'PY'
import json, sys
whole = json.load(open(sys.argv[1]))["per_rank_peak_bytes"]["total"]
planned, memory = int(sys.argv[2]), int(sys.argv[3])
print("winner compiled in full: %d bytes per rank (sp-plan: %d, %s), %s in %d"
      % (whole, planned, "equal" if whole == planned else "DIFFERENT",
         "fits" if whole <= memory else "DOES NOT FIT", memory))
sys.exit(0 if whole == planned and whole <= memory else 1)
PY
