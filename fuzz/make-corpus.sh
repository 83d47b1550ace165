#!/usr/bin/env bash
# Regenerates the seed corpora under fuzz/corpus/ from the repository's own
# inputs with the tools of build/ (scripts/build.sh first):
#   import/: examples/configs/*.json and the configs of test/Import/errors.test
#   opt/:    every test .mlir split at "// -----", the tiny GPT-2 / NeoX / Llama
#            models imported (seq 8, batch 2) and partitioned (tp=2 + SP).
# The corpora are committed; a fuzz run adds what it finds to a copy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
llvm=/usr/lib/llvm-19/bin
corpus=$root/fuzz/corpus
rm -rf "$corpus"
mkdir -p "$corpus/import" "$corpus/opt"

cp "$root"/examples/configs/*.json "$corpus/import/"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$llvm/split-file" "$root/test/Import/errors.test" "$tmp/errors"
for f in "$tmp"/errors/*.json; do
  cp "$f" "$corpus/import/errors-$(basename "$f")"
done

cd "$root/test"
for f in $(find . -name '*.mlir' | sort); do
  name=$(echo "${f#./}" | sed 's|/|-|g; s|\.mlir$||')
  awk -v out="$corpus/opt/$name" '
    BEGIN { n = 0; file = sprintf("%s-%02d.mlir", out, n) }
    /^\/\/ -----/ { close(file); n++; file = sprintf("%s-%02d.mlir", out, n); next }
    { print > file }' "$f"
done
for model in gpt2-tiny neox-tiny llama-tiny; do
  "$bin/sp-import" --hf-config "$root/examples/configs/$model.json" \
    --seq-len 8 --batch 2 | "$bin/sp-opt" >"$corpus/opt/model-$model.mlir"
  "$bin/sp-opt" "$corpus/opt/model-$model.mlir" \
    --sp-partition="tp=2 sequence-parallel=true" \
    >"$corpus/opt/model-$model-tp2-sp.mlir"
done
# A seed that crashes a target reproduces an open bug (its reduced reproducer
# is in fuzz/regressions/<target>/open/): remove it here until it is fixed,
# since libFuzzer stops on a crashing seed. None at present.
echo "corpus: $(ls "$corpus/import" | wc -l) import, $(ls "$corpus/opt" | wc -l) opt inputs"
