#!/usr/bin/env bash
# Installs every Debian package seqpar needs; skips what is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache git python3
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  libgtest-dev clang-format
  clang-19 libclang-rt-19-dev libfuzzer-19-dev
  libopenmpi-dev openmpi-bin libopenblas-dev nlohmann-json3-dev libxxhash-dev
  python3-torch python3-numpy python3-matplotlib python3-venv
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
