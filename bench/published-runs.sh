#!/usr/bin/env bash
# sp-plan against the published runs of Korthikanti et al. 2022 (arXiv
# 2205.05198, Table 3, as in Megatron-LM's README): GPT 22B, 175B, 530B and
# 1T on A100-80GB, tp 8 with SP and selective recompute, pp 1 / 8 / 35 / 64,
# data-parallel size 1, micro-batch size 1 (22B: 4), sequence 2048. For each:
# whether sp-plan's compiled plan fits; its predicted MFU against the
# reported one twice: with seqpar's kernels (fused attention, TP collectives
# fused with their GEMMs), and with the kernels Megatron-LM ran them with in
# 2022 (examples/calibrations/megatron-lm-2022.json: attention scores
# materialized; --fuse-chunks 1: every TP collective exposed); and sp-plan's
# own best layout over every pp, SP, ZeRO and recompute choice at tp 8 with
# the published micro-batch count (seqpar's kernels).
#   bench/published-runs.sh [BUILD_DIR] [extra sp-plan flags for every run]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build}/bin
shift || true
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-6s %-28s %5s %9s %7s %9s %7s %9s %7s %9s   %-28s %6s\n' model \
  published fits seqpar ratio megatron ratio "(paper's" "FLOPs)" reported \
  "sp-plan's best (tp 8)" MFU
# name tp pp gpus global-batch micro-batches reported-MFU
while read -r name tp pp gpus batch micro reported; do
  sed "s/\"nodes\": 1,/\"nodes\": $((gpus / 8)),/" \
    "$root/examples/clusters/a100-80gb.json" >"$work/cluster.json"
  common=(--hf-config "$root/examples/configs/paper-$name.json" --seq-len 2048
    --global-batch "$batch" --cluster "$work/cluster.json" --tp "$tp"
    --micro-batches "$micro" --json "$@")
  "$bin/sp-plan" "${common[@]}" --pp "$pp" --recompute selective \
    --top 100 >"$work/published.json" || true
  "$bin/sp-plan" "${common[@]}" --pp "$pp" --recompute selective \
    --top 100 --fuse-chunks 1 \
    --calibration "$root/examples/calibrations/megatron-lm-2022.json" \
    >"$work/megatron.json" || true
  "$bin/sp-plan" "${common[@]}" --top 1 >"$work/best.json" || true
  /usr/bin/python3 - "$work/published.json" "$work/megatron.json" \
    "$work/best.json" "$name" "$tp" "$pp" "$micro" "$reported" \
    "$root/examples/configs/paper-$name.json" "$batch" "$gpus" \
    "$work/cluster.json" <<'PY'
import json, sys
published, megatron, best = (json.load(open(p)) for p in sys.argv[1:4])
name, tp, pp, micro, reported = sys.argv[4:9]
config, batch, gpus = json.load(open(sys.argv[9])), int(sys.argv[10]), int(sys.argv[11])
peak = json.load(open(sys.argv[12]))["peak_flops"]["bf16"]
# The paper's model FLOPs (Korthikanti et al. 2022, section 6.3; Narayanan et
# al. 2021): 72 B s l h^2 (1 + s / 6h + V / 12hl), the whole attention square,
# where sp-plan counts a causal attention's half.
s, h, l, v = 2048, config["n_embd"], config["n_layer"], config["vocab_size"]
paper_flops = 72 * batch * s * l * h * h * (1 + s / (6 * h) + v / (12 * h * l))
want = "tp%s sp%s dp1 mb%s sel" % (tp, "" if pp == "1" else " pp" + pp, micro)
row, meg = (next((r for r in plan["ranked"] if r["layout"] == want), None)
            for plan in (published, megatron))
reported = float(reported) / 100
mfu = lambda r: r["mfu"] if r else 0
top = best["ranked"][0] if best["ranked"] else None
paper = paper_flops / (gpus * meg["step_seconds"] * peak) if meg else 0
print("%-6s %-28s %5s %8.1f%% %7.3f %8.1f%% %7.3f %8.1f%% %7.3f %8.1f%%   %-28s %5.1f%%" % (
    name, want, "yes" if row and meg else "NO",
    100 * mfu(row), mfu(row) / reported, 100 * mfu(meg), mfu(meg) / reported,
    100 * paper, paper / reported,
    100 * reported, top["layout"] if top else "-", 100 * mfu(top)))
PY
done <<'TABLE'
22b 8 1 8 4 1 41.5
175b 8 8 64 64 64 51.4
530b 8 35 280 280 280 56.0
1t 8 64 512 512 512 56.3
TABLE
