#!/usr/bin/env bash
# Configures (once) and builds the ASan + UBSan build of seqpar into
# build-asan/ with clang-19: the compiler libraries, the runtime, the tools and
# the unit tests with -fsanitize=address,undefined (UBSan findings abort),
# programs linked by this build's sp-compile carrying the same sanitizers, and
# the libFuzzer drivers (fuzz/, coverage-instrumented lib/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEQPAR_ASAN_BUILD_DIR:-$root/build-asan}
llvm=/usr/lib/llvm-19

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
export CCACHE_BASEDIR=$root

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=$llvm/bin/clang \
    -DCMAKE_CXX_COMPILER=$llvm/bin/clang++ \
    -DSEQPAR_SANITIZE=ON -DSEQPAR_FUZZ=ON \
    -DMLIR_DIR=$llvm/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=$llvm/build/utils/lit/lit.py \
    "${launcher[@]}"
fi
ninja -C "$build" "$@"
