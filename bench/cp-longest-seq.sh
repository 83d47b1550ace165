#!/usr/bin/env bash
# Context parallelism's reach: the longest Llama-3-8B sequence whose
# activations fit a per-rank budget (default 80 GB) at cp in {1, 2, 4, 8}
# with tp=8 + SP, from sp-compile's memory report, and the bytes each rank
# sends per layer, for both cp-attention variants (bench/cp_longest_seq.py:
# what it measures and how).
#   bench/cp-longest-seq.sh [--budget-gb N] [--tp T] [--cps 1 2 4 8]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec /usr/bin/python3 "$root/bench/cp_longest_seq.py" "$@"
