#!/usr/bin/env bash
# The GPU machine's half of bench/gpu-peer.sh (docs/gpu.md, "The GPU peer
# bundle"): DIR/run.sh OUTDIR
#
# Unpacks the bundle's programs into a scratch folder, Open MPI into /opt/dbn
# (setup-mpi.sh; skipped where orterun already runs), points the loader at
# cuBLAS (the CUDA 13 toolkit) and NCCL (PyTorch's venv), then runs
# peer/driver.py: every stage under its own time limit, results.md and
# results.json in OUTDIR rewritten after each stage, per-stage logs in
# OUTDIR/<stage>/. The whole run, unpacking included, ends within
# SEQPAR_PEER_BUDGET_S seconds (default 480).
#
# Environment: SEQPAR_PEER_PYTHON (default python3: the one with torch and
# transformers), SEQPAR_PEER_WORK (scratch, default $TMPDIR/seqpar-peer; the
# curve's initial weights, 0.5 GB, go there, not into OUTDIR),
# SEQPAR_PEAK_BF16_TFLOPS / SEQPAR_PEAK_FP32_TFLOPS (peaks of a device
# driver.py does not know).
set -euo pipefail
start=$(date +%s)
budget=${SEQPAR_PEER_BUDGET_S:-480}
deadline=$((start + budget - 10))
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
python=${SEQPAR_PEER_PYTHON:-python3}
work=${SEQPAR_PEER_WORK:-${TMPDIR:-/tmp}/seqpar-peer}
exec > >(tee -a "$out/run.log") 2>&1

echo "run.sh: bundle $here, results $out, scratch $work, ${budget} s in all"
rm -rf "$work"
mkdir -p "$work"
# Unpacked by Python (xz may be missing where python3 is), else by tar.
if ! "$python" - "$here/payload.tar.xz" "$work" <<'PY'
import sys, tarfile
kw = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
with tarfile.open(sys.argv[1]) as t:
    t.extractall(sys.argv[2], **kw)
PY
then
  tar -C "$work" -xJf "$here/payload.tar.xz"
fi
echo "run.sh: unpacked in $(($(date +%s) - start)) s"

# Debian 12's Open MPI 4.1 (libmpi.so.40, which the programs link).
if command -v orterun >/dev/null 2>&1 && ldconfig -p 2>/dev/null | grep 'libmpi\.so\.40 ' >/dev/null; then
  echo "run.sh: Open MPI is here already: $(command -v orterun)"
else
  if timeout 90 bash "$here/setup-mpi.sh" "$here/debs"; then
    echo "run.sh: Open MPI unpacked into /opt/dbn in $(($(date +%s) - start)) s"
  else
    echo "run.sh: setup-mpi.sh failed (exit $?): seqpar's programs will not start"
  fi
fi

# cuBLAS and cudart from the toolkit, NCCL and cuDNN from PyTorch's wheels.
libs=()
for d in /usr/local/cuda-13.0/targets/x86_64-linux/lib /usr/local/cuda/lib64; do
  if [ -d "$d" ]; then
    libs+=("$d")
  fi
done
roots=$("$python" -c 'import site; print(" ".join(site.getsitepackages()))' 2>/dev/null || true)
for r in $roots /opt/torch/.venv; do
  [ -d "$r" ] || continue
  nccl=$(find "$r" -maxdepth 8 -name 'libnccl.so.2' 2>/dev/null | head -1)
  if [ -n "$nccl" ]; then
    libs+=("$(dirname "$nccl")")
    break
  fi
done
# cuDNN 9 (the cuda programs open libcudnn.so.9 at run time for their fused
# attention, and keep their native kernels without it).
for r in $roots /opt/torch/.venv; do
  [ -d "$r" ] || continue
  cudnn=$(find "$r" -maxdepth 8 -name 'libcudnn.so.9' 2>/dev/null | head -1)
  if [ -n "$cudnn" ]; then
    libs+=("$(dirname "$cudnn")")
    break
  fi
done
# For seqpar's programs only (driver.py puts it before LD_LIBRARY_PATH):
# PyTorch keeps loading its own wheels' CUDA libraries.
SEQPAR_PEER_LIBS=$(IFS=:; echo "${libs[*]}")
export SEQPAR_PEER_LIBS
echo "run.sh: CUDA and NCCL libraries for seqpar's programs: ${SEQPAR_PEER_LIBS:-none found}"
# Ranks launched locally without ssh (orterun), as root.
export OMPI_MCA_plm=isolated OMPI_MCA_mca_base_component_show_load_errors=0 \
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

left=$((deadline - $(date +%s)))
echo "run.sh: the stages have ${left} s"
rc=0
timeout -k 5 $((left + 5)) "$python" "$here/peer/driver.py" "$here" "$work" "$out" "$deadline" || rc=$?
echo "run.sh: done in $(($(date +%s) - start)) s (driver exit $rc); results: $out/results.md"
exit "$rc"
