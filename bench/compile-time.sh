#!/usr/bin/env bash
# Compile time of the whole training pipeline (`sp-compile --train --tp 8 --sp
# --emit mlir`) on the GPT-3 175B shape of arXiv 2205.05198 at 24, 48, 96 and
# 192 layers, per step as sp-compile's --mlir-timing reports it (parsing,
# each pass, printing the output), with the ratio per doubling of the layer
# count: a linear step is at about 2.0 (less where fixed costs weigh), a
# quadratic one at 4.0, a cubic one at 8.0.
#
#   bench/compile-time.sh            # best of RUNS=3 runs per layer count
#   LAYERS="24 48" EMIT=llvm bench/compile-time.sh
#
# EMIT=llvm adds convert-sp-to-runtime and the translation to LLVM IR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
runs=${RUNS:-3}
layers_list=${LAYERS:-24 48 96 192}
emit=${EMIT:-mlir}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for layers in $layers_list; do
  sed "s/\"n_layer\": 96/\"n_layer\": $layers/" \
    "$root/examples/configs/paper-175b.json" > "$tmp/cfg.json"
  "$bin/sp-import" --hf-config "$tmp/cfg.json" -o "$tmp/model.mlir"
  best=""
  for _ in $(seq "$runs"); do
    "$bin/sp-compile" "$tmp/model.mlir" --train --tp 8 --sp --emit "$emit" \
      -o "$tmp/out" --mlir-timing 2> "$tmp/timing"
    # The run with the least total time is kept whole.
    total=$(awk '$NF == "Total" {print $1}' "$tmp/timing")
    if [ -z "$best" ] || awk -v a="$total" -v b="$best" 'BEGIN{exit !(a < b)}'; then
      best=$total
      cp "$tmp/timing" "$tmp/best.$layers"
    fi
  done
  ops=$(grep -c ' = ' "$tmp/out" || true)
  echo "$layers $ops" >> "$tmp/ops"
done

# One row per step, one column per layer count, then the ratios.
awk -v layers="$layers_list" '
  FNR == 1 { n = split(FILENAME, parts, "."); l = parts[n] }
  /^ *[0-9.]+ +\( *[0-9.]+%\) +/ {
    name = $0; sub(/^ *[0-9.]+ +\( *[0-9.]+%\) +/, "", name)
    if (name == "root") next
    if (!(name in seen)) { seen[name] = 1; order[++steps] = name }
    t[name, l] = $1
  }
  END {
    nl = split(layers, L, " ")
    printf "%-30s", "seconds / layers"
    for (i = 1; i <= nl; i++) printf " %9s", L[i]
    for (i = 2; i <= nl; i++) printf " %9s", L[i] "/" L[i-1]
    printf "\n"
    for (s = 1; s <= steps; s++) {
      name = order[s]
      printf "%-30s", name
      for (i = 1; i <= nl; i++) printf " %9.3f", t[name, L[i]]
      for (i = 2; i <= nl; i++) {
        a = t[name, L[i-1]]; b = t[name, L[i]]
        if (a >= 0.005) printf " %9.2f", b / a; else printf " %9s", "-"
      }
      printf "\n"
    }
  }' $(for l in $layers_list; do echo "$tmp/best.$l"; done)
printf "%-30s" "ops in the output"
while read -r _ ops; do printf " %9d" "$ops"; done < "$tmp/ops"
printf "\n(ratios of steps under 5 ms are left out: timer noise)\n"
