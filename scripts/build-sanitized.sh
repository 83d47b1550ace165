#!/usr/bin/env bash
# Configures (once) and builds the ASan + UBSan build of seqpar into
# build-asan/ with clang-19: the compiler libraries, the runtime, the tools and
# the unit tests with -fsanitize=address,undefined (UBSan findings abort),
# programs linked by this build's sp-compile carrying the same sanitizers, and
# the libFuzzer drivers (fuzz/, coverage-instrumented lib/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
llvm=/usr/lib/llvm-19
export SEQPAR_BUILD_DIR=${SEQPAR_ASAN_BUILD_DIR:-$root/build-asan}
export SEQPAR_CMAKE_ARGS="-DCMAKE_C_COMPILER=$llvm/bin/clang \
-DCMAKE_CXX_COMPILER=$llvm/bin/clang++ -DSEQPAR_SANITIZE=ON -DSEQPAR_FUZZ=ON -DSEQPAR_ENABLE_CUDA=OFF"
exec "$root/scripts/build.sh" "$@"
