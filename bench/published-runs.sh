#!/usr/bin/env bash
# sp-plan against the published runs of Korthikanti et al. 2022 (arXiv
# 2205.05198, Table 3, as in Megatron-LM's README): GPT 22B, 175B, 530B and
# 1T on A100-80GB, tp 8 with SP and selective recompute, pp 1 / 8 / 35 / 64,
# data-parallel size 1, micro-batch size 1 (22B: 4), sequence 2048. For each:
# whether sp-plan's compiled plan fits, its predicted MFU against the
# reported one, and sp-plan's own best layout over every pp, SP, ZeRO and
# recompute choice at tp 8 with the published micro-batch count.
#   bench/published-runs.sh [BUILD_DIR] [extra sp-plan flags, e.g. --fuse-chunks 1]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build}/bin
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-6s %-28s %6s %9s %9s %7s   %-28s %9s\n' model published fits \
  predicted reported ratio "sp-plan's best (tp 8)" MFU
# name tp pp gpus global-batch micro-batches reported-MFU
while read -r name tp pp gpus batch micro reported; do
  sed "s/\"nodes\": 1,/\"nodes\": $((gpus / 8)),/" \
    "$root/examples/clusters/a100-80gb.json" >"$work/cluster.json"
  common=(--hf-config "$root/examples/configs/paper-$name.json" --seq-len 2048
    --global-batch "$batch" --cluster "$work/cluster.json" --tp "$tp"
    --micro-batches "$micro" --json "$@")
  "$bin/sp-plan" "${common[@]}" --pp "$pp" --recompute selective \
    --top 100 >"$work/published.json" || true
  "$bin/sp-plan" "${common[@]}" --top 1 >"$work/best.json" || true
  /usr/bin/python3 - "$work/published.json" "$work/best.json" "$name" "$tp" \
    "$pp" "$micro" "$reported" <<'PY'
import json, sys
published, best = (json.load(open(p)) for p in sys.argv[1:3])
name, tp, pp, micro, reported = sys.argv[3:8]
want = "tp%s sp%s dp1 mb%s sel" % (tp, "" if pp == "1" else " pp" + pp, micro)
row = next((r for r in published["ranked"] if r["layout"] == want), None)
reported = float(reported) / 100
top = best["ranked"][0] if best["ranked"] else None
print("%-6s %-28s %6s %8.1f%% %8.1f%% %7.3f   %-28s %8.1f%%" % (
    name, want, "yes" if row else "NO",
    100 * row["mfu"] if row else 0, 100 * reported,
    row["mfu"] / reported if row else 0,
    top["layout"] if top else "-", 100 * top["mfu"] if top else 0))
PY
done <<'TABLE'
22b 8 1 8 4 1 41.5
175b 8 8 64 64 64 51.4
530b 8 35 280 280 280 56.0
1t 8 64 512 512 512 56.3
TABLE
