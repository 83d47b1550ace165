#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test:
#   build/       lit (FileCheck, -verify-diagnostics, e2e, fuzz replays),
#                gtest unit tests through ctest, the clang-format check;
#   build-asan/  ctest and lit (less the tests marked "UNSUPPORTED: asan",
#                test/lit.cfg.py) on the ASan + UBSan build
#                (clang-19, scripts/build-sanitized.sh), and a bounded
#                libFuzzer run of each fuzz target (fuzz/, SEQPAR_FUZZ_SECONDS
#                each, default 60).
# Lists every skipped test with its reason, then ends with one line
# "N passed, N failed, N skipped" counting all of them; exits non-zero on any
# failure. SEQPAR_SANITIZE=0 leaves out the build-asan/ steps.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEQPAR_BUILD_DIR:-$root/build}
asan=${SEQPAR_ASAN_BUILD_DIR:-$root/build-asan}
fuzz_seconds=${SEQPAR_FUZZ_SECONDS:-60}
llvm=/usr/lib/llvm-19
cd "$root"

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
passed=0
failed=0
skipped=0
start=$SECONDS

# record LABEL P F S: one step's counts (skip reasons and failures are
# collected in $logs/skips and $logs/failures).
record() {
  passed=$((passed + $2)); failed=$((failed + $3)); skipped=$((skipped + $4))
  printf '%-14s %4d passed  %3d failed  %3d skipped  (%ds)\n' "$1" "$2" "$3" "$4" \
    $((SECONDS - step_start)) >>"$logs/steps"
}

# summarize KIND REPORT LABEL: counts a lit JSON report or a ctest JUnit file.
summarize() {
  local out
  if [ ! -s "$2" ] || ! out=$(/usr/bin/python3 "$root/scripts/test_summary.py" "$@"); then
    echo "$3: no test report ($2)" >>"$logs/failures"
    record "$3" 0 1 0
    return
  fi
  grep '^skipped: ' <<<"$out" >>"$logs/skips"
  grep '^failed: ' <<<"$out" >>"$logs/failures"
  record "$3" $(head -1 <<<"$out")
}

run_lit() { # LABEL BUILD_DIR [LIT ARGS...]
  local label=$1 dir=$2
  shift 2
  echo "== $label"
  step_start=$SECONDS
  python3 $llvm/build/utils/lit/lit.py -v -o "$logs/$label.json" "$@" "$dir/test"
  summarize lit "$logs/$label.json" "$label"
}

run_ctest() { # LABEL BUILD_DIR
  echo "== $1"
  step_start=$SECONDS
  ctest --test-dir "$2" --output-on-failure -j2 --output-junit "$logs/$1.xml"
  summarize ctest "$logs/$1.xml" "$1"
}

# fuzz TARGET: a bounded libFuzzer run from the committed corpus (-seed=1:
# a fixed start, though fork mode's jobs still depend on timing), in fork
# mode so that it goes on after a crash. Each crash is replayed and matched against
# fuzz/known-crashes.txt: a known open bug is listed, any other crash, a
# timeout, a leak or an out-of-memory fails the run and prints the reproducer.
fuzz() {
  local target=$1 label="fuzz-$1" corpus=$logs/corpus-$1 art=$logs/artifacts-$1
  echo "== $label (${fuzz_seconds}s)"
  step_start=$SECONDS
  mkdir -p "$corpus" "$art"
  "$asan/bin/sp-fuzz-$target" -seed=1 -fork=1 -ignore_crashes=1 \
    -max_total_time="$fuzz_seconds" -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$art/" "$corpus" \
    "$root/fuzz/corpus/$target" >"$logs/$label.log" 2>&1
  local rc=$? bad=0 f known
  grep -E '^INFO: (exiting|fuzzed for)|^#[0-9]+: cov' "$logs/$label.log" | tail -2
  [ "$rc" -ne 0 ] && { tail -30 "$logs/$label.log"; bad=1; }
  for f in "$art"/*; do
    [ -f "$f" ] || continue
    timeout 120 "$asan/bin/sp-fuzz-$target-replay" "$f" >"$f.report" 2>&1
    known=""
    case $(basename "$f") in
    crash-*)
      while IFS='|' read -r t re what; do
        [ "$t" = "$target" ] && grep -qE "$re" "$f.report" && { known=$what; break; }
      done < <(grep -v '^#' "$root/fuzz/known-crashes.txt")
      ;;
    esac
    if [ -n "$known" ]; then
      echo "known: $label: $known" >>"$logs/known"
      continue
    fi
    bad=1
    grep -E 'ERROR|runtime error|^ +#[0-9]+ ' "$f.report" | head -30
    echo "reproducer $(basename "$f") ($(stat -c %s "$f") bytes, base64; save it as" \
      "fuzz/regressions/$target/<name>; build/bin/sp-fuzz-$target-replay replays it):"
    head -c 65536 "$f" | base64 -w 76
  done
  if [ "$bad" -eq 0 ]; then
    record "$label" 1 0 0
  else
    echo "$label: a new crash, timeout, leak or out-of-memory (see above)" >>"$logs/failures"
    record "$label" 0 1 0
  fi
}

: >"$logs/steps"; : >"$logs/skips"; : >"$logs/failures"; : >"$logs/known"
step_start=$SECONDS
if ! "$root/scripts/install-deps.sh"; then
  echo "install-deps failed"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
if ! "$root/scripts/build.sh"; then
  echo "build failed"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi

# The test-only virtualenv with Hugging Face transformers (PyPI): without
# network the tests that need it are skipped (feature hf-transformers).
"$root/scripts/hf-venv.sh" "$build/test-venv" ||
  echo "scripts/hf-venv.sh failed: the hf-transformers tests are skipped"
run_lit lit "$build"
# The end-to-end numerics again with programs compiled for the CUDA backend,
# in a build that has it: each is skipped, with the CUDA error as the reason,
# where there is no GPU (test/e2e/lit.local.cfg).
if [ -x "$build/bin/sp-device-probe" ]; then
  run_lit lit-cuda-e2e "$build" --param target=cuda \
    --filter 'e2e/(grads|forward-matrix|reference|relu|convergence)\.test'
fi
run_ctest ctest "$build"

echo "== clang-format"
step_start=$SECONDS
if "$root/scripts/check-format.sh"; then
  record clang-format 1 0 0
else
  echo "clang-format: files not formatted" >>"$logs/failures"
  record clang-format 0 1 0
fi

if [ "${SEQPAR_SANITIZE:-1}" != 0 ]; then
  echo "== build-asan (ASan + UBSan, clang-19)"
  step_start=$SECONDS
  if "$root/scripts/build-sanitized.sh"; then
    # UBSan findings abort (-fno-sanitize-recover) with a stack trace.
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its unused slab
    # space when compiled with ASan (our code's inline copies) but Debian's
    # uninstrumented libMLIR allocates from the same slabs without
    # unpoisoning, a false use-after-poison; this keeps every real check.
    # detect_leaks=0 here: Open MPI leaks from MPI_Init in every MPI program
    # (through dlopened components whose stacks LSan cannot symbolize, so no
    # suppression matches). The fuzz runs below check the compiler for leaks.
    export ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0:strict_string_checks=1
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export ASAN_SYMBOLIZER_PATH=$llvm/bin/llvm-symbolizer
    run_lit asan-lit "$asan"
    run_ctest asan-ctest "$asan"
    ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=1:strict_string_checks=1 fuzz import
    ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=1:strict_string_checks=1 fuzz opt
  else
    echo "build-asan: build failed" >>"$logs/failures"
    record build-asan 0 1 0
  fi
fi

echo "== summary ($((SECONDS - start))s)"
cat "$logs/steps"
if [ -s "$logs/failures" ]; then
  echo "failures:"
  sed 's/^failed: //; s/^/  /' "$logs/failures"
fi
if [ -s "$logs/known" ]; then
  echo "known open bugs the fuzzers reached (fuzz/known-crashes.txt):"
  sort -u "$logs/known" | sed 's/^known: /  /'
fi
if [ -s "$logs/skips" ]; then
  echo "skipped:"
  sed 's/^skipped: /  /' "$logs/skips"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
