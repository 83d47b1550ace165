#!/usr/bin/env bash
# Longer fuzzing than the test command's bounded run: each fuzz target
# (sp-fuzz-import: importHFConfig on arbitrary bytes; sp-fuzz-opt: parse,
# verify, sp-partition, sp-verify) for SECONDS seconds (default 600) with a
# random seed, on the ASan + UBSan libFuzzer build (scripts/build-sanitized.sh).
# New inputs go to a scratch corpus (printed); crash reproducers to
# build-asan/fuzz-out/<target>/crashes/. Add a reproducer to fuzz/regressions/<target>/
# (test/fuzz replays it) once the bug is fixed, to .../open/ until then.
#   bench/fuzz.sh [SECONDS] [import|opt ...]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
asan=${SEQPAR_ASAN_BUILD_DIR:-$root/build-asan}
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(import opt)

"$root/scripts/build-sanitized.sh" sp-fuzz-import sp-fuzz-opt || exit 1
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-19/bin/llvm-symbolizer
# allow_user_poisoning=0: see scripts/test.sh (a false positive otherwise).
export ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for t in "${targets[@]}"; do
  out=$asan/fuzz-out/$t
  corpus=$out/corpus
  mkdir -p "$corpus" "$out/crashes"
  echo "== sp-fuzz-$t: ${seconds}s, corpus $corpus (+ fuzz/corpus/$t)"
  "$asan/bin/sp-fuzz-$t" -max_total_time="$seconds" -timeout=20 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/crashes/" \
    "$corpus" "$root/fuzz/corpus/$t" 2>&1 | tee "$out/log" |
    grep -E '^#[0-9]+.*(pulse|DONE)|^Done |ERROR|SUMMARY|stat::'
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    status=1
    echo "sp-fuzz-$t found a bug: $(ls "$out/crashes")  (log: $out/log)"
  fi
done
exit $status
