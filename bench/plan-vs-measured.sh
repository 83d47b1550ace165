#!/usr/bin/env bash
# sp-plan against measured steps on this machine's CPU ranks (issue 32):
# calibrates at 2 and 4 ranks (sp-plan --calibrate), then runs every layout
# sp-plan ranks for a small GPT-2 (bench/gpt2-small-bench.json, seq 128,
# global batch 8, fp32) and prints predicted beside measured step times,
# Spearman's rank correlation, the largest error, and the planned per-rank
# peak beside the allocator's measurement. About 25 minutes on 2 cores.
# RANKS="2 4" (the default) picks the rank counts, STEPS=8 the steps run,
# WAIT=spin|yield how a waiting rank waits (default: spin while every rank
# has a core, else yield; plan_vs_measured.py says why), KEEP=DIR keeps
# everything in DIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export SEQPAR_BIN=${SEQPAR_BUILD_DIR:-$root/build}/bin
# KEEP=DIR keeps the calibrations, programs and logs in DIR.
work=${KEEP:-$(mktemp -d)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$root/bench/plan_vs_measured.py" \
  "$root/bench/gpt2-small-bench.json" 128 8 "${STEPS:-8}" "$work" \
  ${RANKS:-2 4}
