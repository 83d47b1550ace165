#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: lit (FileCheck and
# -verify-diagnostics), gtest unit tests through ctest, and the clang-format
# check. Ends with one line "N passed, N failed" counting all of them.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEQPAR_BUILD_DIR:-$root/build}
cd "$root"

"$root/scripts/install-deps.sh" || { echo "0 passed, 1 failed"; exit 1; }
"$root/scripts/build.sh" || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
logs=$(mktemp -d)

echo "== lit"
python3 /usr/lib/llvm-19/build/utils/lit/lit.py -v "$build/test" | tee "$logs/lit.log"
lit_pass=$(grep -cE '^(PASS|XFAIL): ' "$logs/lit.log")
lit_fail=$(grep -cE '^(FAIL|XPASS|UNRESOLVED|TIMEOUT): ' "$logs/lit.log")
passed=$((passed + lit_pass)); failed=$((failed + lit_fail))

echo "== unit tests (ctest)"
ctest --test-dir "$build" --output-on-failure -j2 | tee "$logs/ctest.log"
summary=$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$logs/ctest.log" || true)
if [ -n "$summary" ]; then
  c_fail=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/')
  c_total=$(echo "$summary" | sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\2/')
  passed=$((passed + c_total - c_fail)); failed=$((failed + c_fail))
else
  echo "ctest printed no summary"; failed=$((failed + 1))
fi

echo "== clang-format"
if "$root/scripts/check-format.sh"; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
fi

rm -rf "$logs"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
