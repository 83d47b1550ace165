#!/usr/bin/env bash
# The main job on a small example: install what is missing, build, import the
# tiny GPT-2 config into tfm IR, verify it with sp-opt and print it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEQPAR_BUILD_DIR:-$root/build}
config=${1:-$root/examples/configs/gpt2-tiny.json}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" sp-opt sp-import
out=$(mktemp -d)
"$build/bin/sp-import" --hf-config "$config" --seq-len 16 --batch 2 -o "$out/model.mlir"
"$build/bin/sp-opt" "$out/model.mlir"
echo "imported $(grep -c 'tfm.param' "$out/model.mlir") parameters from $config" >&2
rm -rf "$out"
