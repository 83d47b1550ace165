#!/usr/bin/env bash
# Regenerates the dialect and pass reference from ODS (the `mlir-doc` target)
# and copies it into docs/dialects/, replacing what was there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEQPAR_BUILD_DIR:-$root/build}
"$root/scripts/build.sh" mlir-doc
rm -f "$root"/docs/dialects/*.md
find "$build/docs" -name '*.md' -type f -exec cp {} "$root/docs/dialects/" \;
"$root/scripts/check-docs.sh" "$build"
