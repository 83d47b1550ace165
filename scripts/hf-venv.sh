#!/usr/bin/env bash
# Makes (once) the test-only virtualenv in which test/e2e/hf-export.test
# loads seqpar's exports with Hugging Face transformers:
#   scripts/hf-venv.sh [VENV]      (default build/test-venv)
# torch and numpy come from the system's site packages (python3-torch);
# transformers and safetensors from PyPI, pinned. Quick when the venv
# already imports them. Never interactive; gives up after a short timeout
# without network, exiting non-zero: lit then reports the tests that need
# it UNSUPPORTED (feature "hf-transformers", test/lit.cfg.py).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-${SEQPAR_BUILD_DIR:-$root/build}/test-venv}
probe='import transformers, safetensors, torch'

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$probe" 2>/dev/null; then
  exit 0
fi
rm -rf "$venv"
/usr/bin/python3 -m venv --system-site-packages "$venv" || exit 1
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1
if ! "$venv/bin/pip" install --quiet --timeout 30 --retries 1 \
    "transformers==4.36.2" "safetensors==0.4.1" </dev/null; then
  echo "hf-venv: cannot install transformers into $venv (no network?)" >&2
  rm -rf "$venv"
  exit 1
fi
"$venv/bin/python" -c "$probe"
