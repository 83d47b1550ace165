#!/usr/bin/env bash
# Installs every Debian package seqpar needs; skips what is already there.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache git python3
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  libgtest-dev clang-format
  clang-19 libclang-rt-19-dev libfuzzer-19-dev
  libopenmpi-dev openmpi-bin libopenblas-dev nlohmann-json3-dev libxxhash-dev
  python3-torch python3-numpy python3-matplotlib python3-venv python3-pip
)

# cudnn-frontend, the header-only C++ graph API over cuDNN that the CUDA
# backend's fused attention is built on (runtime/cuda/Cudnn*.cpp), from its
# PyPI wheel (nvidia-cudnn-frontend: include/ holds the headers; no Python is
# needed at run time). Only where a CUDA toolkit with cuDNN is installed; a
# failed download leaves the build without it (cmake/SeqparCuda.cmake), never
# fails this script.
cudnn_frontend_version=1.32.0
cudnn_frontend_dir=${SEQPAR_CUDNN_FRONTEND_DIR:-/usr/local/share/cudnn-frontend}
install_cudnn_frontend() {
  local cuda=${CUDA_HOME:-/usr/local/cuda}
  [ -f "$cuda/include/cudnn.h" ] || return 0
  if [ "$(cat "$cudnn_frontend_dir/VERSION" 2>/dev/null)" = "$cudnn_frontend_version" ]; then
    return 0
  fi
  local tmp
  tmp=$(mktemp -d)
  if python3 -m pip download --quiet --no-deps --only-binary=:all: \
      -d "$tmp" "nvidia-cudnn-frontend==$cudnn_frontend_version" </dev/null &&
    python3 -m zipfile -e "$tmp"/nvidia_cudnn_frontend-*.whl "$tmp/whl" &&
    [ -f "$tmp/whl/include/cudnn_frontend.h" ]; then
    rm -rf "$cudnn_frontend_dir"
    mkdir -p "$cudnn_frontend_dir"
    cp -r "$tmp/whl/include" "$cudnn_frontend_dir/"
    echo "$cudnn_frontend_version" >"$cudnn_frontend_dir/VERSION"
    echo "install-deps: cudnn-frontend $cudnn_frontend_version in $cudnn_frontend_dir"
  else
    echo "install-deps: cudnn-frontend unavailable: the CUDA backend builds without cuDNN attention"
  fi
  rm -rf "$tmp"
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  install_cudnn_frontend || true
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
install_cudnn_frontend || true
