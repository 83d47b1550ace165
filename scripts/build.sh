#!/usr/bin/env bash
# Configures (once) and builds seqpar into build/ with Ninja.
# SEQPAR_BUILD_DIR names another build directory and SEQPAR_CMAKE_ARGS adds
# configure options (scripts/build-sanitized.sh uses both).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEQPAR_BUILD_DIR:-$root/build}
llvm=/usr/lib/llvm-19

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR=$root

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=$llvm/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=$llvm/build/utils/lit/lit.py \
    "${launcher[@]}" ${SEQPAR_CMAKE_ARGS:-}
fi
ninja -C "$build" "$@"
