#!/usr/bin/env bash
# Fails (listing the files) if any tracked C/C++ file is not clang-formatted.
set -uo pipefail
cd "$(dirname "$0")/.."
bad=()
while IFS= read -r f; do
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files '*.cpp' '*.h' '*.c' '*.cu' '*.cuh')
if [ ${#bad[@]} -ne 0 ]; then
  echo "not clang-formatted (run clang-format -i): ${bad[*]}"
  exit 1
fi
echo "clang-format: all files formatted"
