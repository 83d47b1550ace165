#!/usr/bin/env bash
# seqpar against PyTorch on one GPU, in two halves (docs/gpu.md, "The GPU peer
# bundle"). Here, on the development machine:
#
#   bench/gpu-peer.sh bundle DIR
#
# gathers into DIR (at most 50 MB) everything a GPU machine without MLIR,
# Open MPI, apt or network needs: the seqpar programs compiled with
# --target cuda (GPT-2 124M at seq 1024 batch 8 and the Llama-3.2-1B shape at
# seq 2048 batch 2, fp32 and bf16; the 100-step curve's bf16 GPT-2 without
# dropout; the tiny configs at one rank and in the multi-rank layouts that
# share one GPU through --comm mpi, fp32 and bf16), the cuda conformance suite
# and the nvcc gtests, sp-device-probe, the planner's calibrator
# (sp-calibrate-cuda), a tokenized data set (this checkout's
# own text, byte-level), the cpu reference of every tiny and multi-rank
# program (the same program compiled for --target cpu and run here, with
# mpirun: its step-1 gradients and its losses), the PyTorch peer and the
# stage driver (bench/gpu-peer/), Open MPI as Debian packages (pack-mpi.sh)
# and run.sh. On the GPU machine `DIR/run.sh OUTDIR` runs it all within 8
# minutes and writes OUTDIR/results.md. Needs mpirun here (the references).
#
# Environment:
#   SEQPAR_BUILD_DIR        the build (default build/); the tools and test
#                           binaries are built there first (scripts/build.sh
#                           with only the targets needed) unless
#   SEQPAR_BUNDLE_NO_BUILD=1  which uses what is built
#   SEQPAR_BUNDLE_TARGET    cuda (default) or cpu: cpu programs stand in for
#                           the cuda ones (for trying run.sh without a GPU;
#                           the multi-rank ones then run with
#                           --comm mpi-staged where cuda ones take --comm mpi)
#   SEQPAR_BUNDLE_SMALL=1   the tiny configs stand in for GPT-2 124M and
#                           Llama-3.2-1B (seq 64), so a CPU runs it in minutes
#   SEQPAR_BUNDLE_DEBS      a folder of the Open MPI .debs to copy instead of
#                           downloading them
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEQPAR_BUILD_DIR:-$root/build}
bin=$build/bin
target=${SEQPAR_BUNDLE_TARGET:-cuda}
small=${SEQPAR_BUNDLE_SMALL:-0}
limit_bytes=$((50 * 1000 * 1000))
py=/usr/bin/python3

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
if [ "${1:-}" != bundle ] || [ -z "${2:-}" ]; then
  usage
fi
dir=$2
case $target in cpu|cuda) ;; *) echo "gpu-peer: SEQPAR_BUNDLE_TARGET must be cpu or cuda" >&2; exit 2 ;; esac

tests=("runtime/tests/conformance/sprt_conformance_$target")
# The kernels stage's microbenchmark (cuda only; not a gtest binary).
kernel_bench=()
if [ "$target" = cuda ]; then
  tests+=(runtime/tests/sprt_philox_nvcc_tests runtime/tests/sprt_dtype_nvcc_tests)
  kernel_bench=(runtime/tests/sprt_kernel_bench)
fi
# The planner's calibrator on the programs' backend (the calibrate stage).
calibrator=sp-calibrate
[ "$target" = cuda ] && calibrator=sp-calibrate-cuda
if [ "${SEQPAR_BUNDLE_NO_BUILD:-0}" != 1 ]; then
  targets=(sp-import sp-compile sp-device-probe "$calibrator")
  for t in "${tests[@]}" "${kernel_bench[@]}"; do targets+=("$(basename "$t")"); done
  SEQPAR_BUILD_DIR=$build "$root/scripts/build.sh" "${targets[@]}"
fi
for f in "$bin/sp-import" "$bin/sp-compile" "$bin/sp-device-probe" "$bin/$calibrator"; do
  [ -x "$f" ] || { echo "gpu-peer: $f is not built" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "gpu-peer: no mpirun here for the cpu references" >&2; exit 1; }
for t in "${tests[@]}" "${kernel_bench[@]}"; do
  [ -x "$build/$t" ] || { echo "gpu-peer: $build/$t is not built (a build with CUDA?)" >&2; exit 1; }
done

# DIR: new, empty, or an earlier bundle (replaced).
if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ] && [ ! -e "$dir/manifest.json" ]; then
  echo "gpu-peer: $dir exists and is not a bundle; give a new or empty folder" >&2
  exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{progs,tests,bin,data,configs} "$stage/ir"

# The shapes: name config seq batch (the small stand-ins keep the names'
# roles: a GPT-2 and a Llama).
cfg=$root/examples/configs
if [ "$small" = 1 ]; then
  gpt2=(gpt2-tiny "$cfg/gpt2-tiny.json" 64 4)
  llama=(llama-tiny "$cfg/llama-tiny.json" 64 2)
else
  gpt2=(gpt2-124m "$cfg/gpt2-124m.json" 1024 8)
  llama=(llama-3.2-1b "$cfg/llama-3.2-1b.json" 2048 2)
fi
# AdamW as the programs' defaults (and passed again at run time).
lr=6e-4 beta1=0.9 beta2=0.95 eps=1e-8 wd=0.1 clip=1.0
hyper=(--optimizer adamw --lr "$lr" --beta1 "$beta1" --beta2 "$beta2" --adam-eps "$eps"
  --weight-decay "$wd" --grad-clip "$clip")

# compile NAME CONFIG SEQ BATCH PRECISION TARGET [sp-compile flags...]
compile() {
  local name=$1 config=$2 seq=$3 batch=$4 precision=$5 tgt=$6
  shift 6
  "$bin/sp-import" --hf-config "$config" --seq-len "$seq" --batch "$batch" -o "$stage/ir/$name.mlir"
  "$bin/sp-compile" "$stage/ir/$name.mlir" --train --precision "$precision" --target "$tgt" \
    "$@" -o "$stage/progs/$name"
  strip -s "$stage/progs/$name"
}
# A model's folder for transformers: its config.json (every dropout 0 with
# "nodrop", the attention's with "noattn").
model_dir() {
  local name=$1 config=$2 drop=${3:-}
  mkdir -p "$stage/configs/$name"
  "$py" - "$config" "$stage/configs/$name/config.json" "$drop" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
attention = ("attn_pdrop", "attention_dropout")
others = ("resid_pdrop", "embd_pdrop", "hidden_dropout", "summary_first_dropout")
zeroed = {"nodrop": attention + others, "noattn": attention}.get(sys.argv[3], ())
for key in zeroed:
    if key in c:
        c[key] = 0.0
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
}

echo "gpu-peer: compiling for --target $target"
benches=()
# The bf16 programs keep their f32 master weights with the optimizer state
# (Megatron-LM's layout: bf16 parameters, no per-step conversion of them;
# the same bits as the default, test/e2e/master-weights.test).
bf16_flags=(--master-weights sharded)
# bench_model NAME CONFIG SEQ BATCH: its folder and its bf16 and fp32 programs.
bench_model() {
  local name=$1 config=$2 seq=$3 batch=$4 p extra
  model_dir "$name" "$config"
  for p in bf16 fp32; do
    extra=()
    [ "$p" = bf16 ] && extra=("${bf16_flags[@]}")
    compile "$name-$p" "$stage/configs/$name/config.json" "$seq" "$batch" "$p" "$target" \
      "${hyper[@]}" "${extra[@]}"
    benches+=("$name $seq $batch $p")
  done
}
bench_model "${gpt2[@]}"
bench_model "${llama[@]}"
# The curve: GPT-2 without dropout, bf16.
model_dir "${gpt2[0]}-nodrop" "${gpt2[1]}" nodrop
compile "curve-${gpt2[0]}-bf16" "$stage/configs/${gpt2[0]}-nodrop/config.json" "${gpt2[2]}" \
  "${gpt2[3]}" bf16 "$target" "${hyper[@]}" "${bf16_flags[@]}"
# The cuda programs against the cpu target: the tiny set at one rank
# (test/e2e/cuda/vs-cpu.test's: seq 16, dropout kept but the attention's,
# clipping) and the
# multi-rank layouts that share the one GPU through --comm mpi
# (test/e2e/comm-staged.test's: seq 16, batch 4, AdamW, clipping), each fp32
# and bf16. The reference is the same program compiled for --target cpu and
# run HERE, with mpirun and the default communication (MPI on the buffers):
# its step-1 gradients (f32) and its losses go into the bundle (ref/NAME/),
# so the GPU machine spends its minutes on the GPU runs only, and the
# reference is the cpu build the tests here check. The run arguments are
# these, on both sides (manifest.json carries them to the driver).
ref_seed=5 ref_steps=3
run_grads=(--steps 1 --seed "$ref_seed" --dump-grads grads1.safetensors --dump-dtype f32)
run_losses=(--steps "$ref_steps" --seed "$ref_seed" --log losses.jsonl)
mpirun=(mpirun --allow-run-as-root --oversubscribe --bind-to none)
mkdir -p "$stage/ref" "$stage/refprogs"
: > "$stage/cases.tsv"
# vs_cpu STAGE NAME CONFIG SEQ BATCH PRECISION RANKS [layout flags...]: the
# program for $target into progs/, its cpu twin run here into ref/NAME/.
# Attention dropout is 0: a bf16 program's attention runs on cuDNN, whose
# dropout masks are its own (docs/gpu.md); the other dropouts draw the same
# Philox masks on both targets and stay.
vs_cpu() {
  local stg=$1 name=$2 config=$3 seq=$4 batch=$5 precision=$6 ranks=$7
  shift 7
  local flags=(--optimizer adamw --grad-clip 1.0 "$@")
  model_dir "vs-$config" "$cfg/$config.json" noattn
  compile "$name" "$stage/configs/vs-$config/config.json" "$seq" "$batch" "$precision" \
    "$target" "${flags[@]}"
  "$bin/sp-compile" "$stage/ir/$name.mlir" --train --precision "$precision" --target cpu \
    "${flags[@]}" -o "$stage/refprogs/$name"
  local out=$stage/ref/$name
  mkdir -p "$out"
  if ! (cd "$out" &&
        OPENBLAS_NUM_THREADS=1 "${mpirun[@]}" -np "$ranks" "$stage/refprogs/$name" "${run_grads[@]}" \
          > run.log 2>&1 &&
        OPENBLAS_NUM_THREADS=1 "${mpirun[@]}" -np "$ranks" "$stage/refprogs/$name" "${run_losses[@]}" \
          >> run.log 2>&1); then
    echo "gpu-peer: the cpu reference of $name failed:" >&2
    cat "$out/run.log" >&2
    exit 1
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$stg" "$name" "$config" "$precision" "$ranks" "$*" \
    >> "$stage/cases.tsv"
}
echo "gpu-peer: the tiny and multi-rank programs, and their cpu references (run here)"
tiny=("gpt2-tiny 2" "neox-tiny 2" "llama-tiny 4")
for p in fp32 bf16; do
  for t in "${tiny[@]}"; do
    read -r name batch <<< "$t"
    vs_cpu tiny "tiny-$name-$p" "$name" 16 "$batch" "$p" 1
  done
done
# name config ranks layout: fp32 first (the driver runs them in this order).
multirank=("gpt2-tiny-tp2-sp gpt2-tiny 2 --tp 2 --sp"
  "llama-tiny-cp2 llama-tiny 2 --cp 2"
  "llama-tiny-cp2-ring llama-tiny 2 --cp 2 --cp-attention ring"
  "gpt2-tiny-pp2-mb2 gpt2-tiny 2 --pp 2 --micro-batches 2"
  "neox-tiny-dp2-tp2-sp-zero1 neox-tiny 4 --dp 2 --tp 2 --sp --zero 1")
for p in fp32 bf16; do
  for t in "${multirank[@]}"; do
    read -r name config ranks layout <<< "$t"
    # shellcheck disable=SC2086 # the layout's flags, one word each
    vs_cpu multirank "mr-$name-$p" "$config" 16 4 "$p" "$ranks" $layout
  done
done
ref_host=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
ref_mpi=$(mpirun --version 2>/dev/null | head -1)
rm -rf "$stage/refprogs"
for t in "${tests[@]}" "${kernel_bench[@]}"; do
  cp "$build/$t" "$stage/tests/"
  strip -s "$stage/tests/$(basename "$t")"
done
for f in sp-device-probe "$calibrator"; do
  cp "$bin/$f" "$stage/bin/"
  strip -s "$stage/bin/$f"
done

# The curve's tokens: this checkout's tracked text, byte level (ids 0..255,
# inside every vocabulary here), enough for the curve's 100 steps without
# repeating a window.
steps=100
need=$((steps * gpt2[3] * gpt2[2] + gpt2[2] + 1))
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=false
[ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ] && dirty=true
git -C "$root" ls-files -- '*.md' '*.cpp' '*.h' '*.td' '*.cu' '*.cuh' '*.py' | LC_ALL=C sort \
  > "$stage/files.txt"
data_note=$("$py" - "$root" "$stage/files.txt" "$stage/curve.txt" "$need" <<'PY'
import os, sys
root, listing, out, need = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
text, files = bytearray(), 0
for name in open(listing).read().split("\n"):
    if not name or len(text) >= need:
        continue
    data = open(os.path.join(root, name), "rb").read()
    if b"\0" in data or not data.strip():
        continue
    text += data + b"\n\n"
    files += 1
open(out, "wb").write(bytes(text[:max(need, 1)]))
print(f"{min(len(text), need)} bytes of {files} of this checkout's tracked text files, "
      "byte-level tokens")
PY
)
"$py" "$root/scripts/prepare-data.py" --documents files -o "$stage/data/curve.tok" "$stage/curve.txt"
rm -f "$stage/curve.txt" "$stage/files.txt"
rm -rf "$stage/ir"

# The manifest: what run.sh's driver runs, and the stages' time limits (s).
SEQPAR_RUN_GRADS="${run_grads[*]}" SEQPAR_RUN_LOSSES="${run_losses[*]}" \
SEQPAR_REF_HOST="$ref_host" SEQPAR_REF_MPI="$ref_mpi" \
SEQPAR_KERNEL_BENCH="${kernel_bench[*]:+tests/$(basename "${kernel_bench[0]}")}" \
SEQPAR_CALIBRATOR="bin/$calibrator" \
"$py" - "$stage/manifest.json" "$target" "$small" "$commit" "$dirty" "$data_note" \
  "${gpt2[0]}" "${gpt2[2]}" "${gpt2[3]}" "$lr" "$beta1" "$beta2" "$eps" "$wd" "$clip" \
  "$stage/cases.tsv" "$ref_steps" "$ref_seed" \
  "${#benches[@]}" "${benches[@]}" "${tests[@]}" <<'PY'
import json, os, sys, time
a = sys.argv[1:]
out, target, small, commit, dirty, data_note, gpt2, gseq, gbatch = a[:9]
lr, beta1, beta2, eps, wd, clip = map(float, a[9:15])
cases_tsv, ref_steps, ref_seed = a[15], int(a[16]), int(a[17])
n = int(a[18])
benches, tests = a[19:19 + n], a[19 + n:]
limits = {"gpt2-bf16": (120, 40), "gpt2-fp32": (100, 40),
          "llama-bf16": (110, 40), "llama-fp32": (110, 40)}
m = {"made": {"commit": commit, "dirty": dirty == "true", "target": target,
              "small": small == "1", "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())},
     "hyper": {"lr": lr, "beta1": beta1, "beta2": beta2, "adam_eps": eps,
               "weight_decay": wd, "grad_clip": clip},
     "device": {"limit_s": 40, "min_s": 10},
     "benchmarks": []}
for b in benches:
    model, seq, batch, precision = b.split()
    kind = "gpt2" if model.startswith("gpt2") else "llama"
    limit, least = limits[f"{kind}-{precision}"]
    m["benchmarks"].append({
        "name": f"{model}-{precision}", "model": model, "model_dir": f"configs/{model}",
        "seq": int(seq), "batch": int(batch), "precision": precision,
        "program": f"progs/{model}-{precision}", "steps": 12, "skip": 2, "trace_steps": 3,
        "peer_steps": 10, "limit_s": limit, "min_s": least})
m["curve"] = {"model": gpt2, "model_dir": f"configs/{gpt2}-nodrop", "seq": int(gseq),
              "batch": int(gbatch), "precision": "bf16", "program": f"progs/curve-{gpt2}-bf16",
              "steps": 100, "warmup_steps": 10, "seed": 1234, "data": "data/curve.tok",
              "data_seed": 2024, "data_note": data_note, "limit_s": 90, "min_s": 50}
m["conformance"] = {"binaries": ["tests/" + os.path.basename(t) for t in tests],
                    "limit_s": 60, "min_s": 20}
# cuDNN attention against the native kernels (SEQPAR_ATTENTION_KERNEL): the
# conformance suite's CudnnAttention tests and the bf16 GPT-2 step with each.
# The memory-bound kernels against copy bandwidth, and attention on bf16 as
# stored against the conversions it replaced (sprt_kernel_bench, ~5 s on an
# H200 by its sizes before attention joined, plus cuDNN's plans; 40 s at
# most, its JSON rewritten after each group).
if os.environ.get("SEQPAR_KERNEL_BENCH"):
    m["kernels"] = {"binary": os.environ["SEQPAR_KERNEL_BENCH"], "reps": 20,
                    "limit_s": 40, "min_s": 10}
# The planner's rates on the device, one rank (sp-calibrate-cuda; ~20 s on
# a GPU by its sizes, unmeasured; the cpu stand-in ~25 s on 2 cores): last,
# in the time the others leave.
m["calibrate"] = {"binary": os.environ["SEQPAR_CALIBRATOR"], "limit_s": 45, "min_s": 25}
conf = [t for t in tests if "conformance" in t]
gpt2_bf16 = [b for b in m["benchmarks"] if b["model"].startswith("gpt2") and
             b["precision"] == "bf16"]
if conf and gpt2_bf16:
    m["attention"] = {"binary": "tests/" + os.path.basename(conf[0]),
                      "program": gpt2_bf16[0]["program"], "steps": 6, "skip": 2,
                      "limit_s": 80, "min_s": 30}
# The programs against their cpu references (ref/NAME, made when the bundle
# was). Tolerances, relative: step 1's gradients per tensor (Frobenius) and
# every step's loss. Later steps' gradients are not compared: AdamW's first,
# sign-like updates amplify summation-order differences (2.7e-4 after 3 fp32
# steps on an H200).
rtol = {"fp32": {"grads": 1e-5, "loss": 1e-5}, "bf16": {"grads": 1e-2, "loss": 1e-3}}
rtol_note = (
    "fp32: 1e-5, test/e2e/cuda/vs-cpu.test's (cuBLAS and OpenBLAS sum in other orders). "
    "bf16 (fp32 master weights, bf16 storage, f32 arithmetic): a different f32 summation "
    "order rounds an element to the other bf16 neighbour now and then (one unit, 2^-8 "
    "relative), which the backward carries on; the same kind of difference, the layouts "
    "here (tp 2 + SP, cp 2 both variants, dp 2 + tp 2 + SP + ZeRO-1) on the cpu target "
    "against their one-rank programs, measured 1.9e-3 to 2.4e-3 on step 1's gradients "
    "(norm weights and biases the worst) and at most 1.2e-5 on 3 steps' losses, so 1e-2 "
    "for gradients (test/e2e/cp-ring-bf16.test allows 4e-3 to 1.5e-2 between layouts) and "
    "1e-3 for losses (test/e2e/grad-reduce-bf16.test's loss bound): room for a GPU's own "
    "rounding, while a wrong transfer moves them far more")
comm = "mpi" if target == "cuda" else "mpi-staged"
reference = {"target": "cpu", "comm": "MPI on the buffers (the default)",
             "made_on": os.environ["SEQPAR_REF_HOST"], "mpirun": os.environ["SEQPAR_REF_MPI"],
             "runs": {"grads": os.environ["SEQPAR_RUN_GRADS"].split(),
                      "losses": os.environ["SEQPAR_RUN_LOSSES"].split()}}
stages = {"tiny": {"limit_s": 45, "min_s": 20, "comm": None,
                   "what": "one rank, the default communication"},
          "multirank": {"limit_s": 90, "min_s": 40, "comm": comm,
                        "what": "N ranks sharing the one GPU, --comm mpi" if target == "cuda"
                        else "N CPU ranks, --comm mpi-staged (the host-staged path of the "
                             "cuda programs' --comm mpi)"}}
for name, st in stages.items():
    st.update(cases=[], steps=ref_steps, seed=ref_seed, rtol=rtol, rtol_note=rtol_note,
              reference=reference, parallel=4)
    m[name] = st
for line in open(cases_tsv):
    stg, name, config, precision, ranks, layout = line.rstrip("\n").split("\t")
    m[stg]["cases"].append({"name": name[len("tiny-"):] if stg == "tiny" else name[len("mr-"):],
                            "config": config, "precision": precision, "ranks": int(ranks),
                            "layout": layout, "program": f"progs/{name}", "ref": f"ref/{name}"})
json.dump(m, open(out, "w"), indent=1)
PY
rm -f "$stage/cases.tsv"
cp "$stage/manifest.json" "$dir/"

echo "gpu-peer: compressing"
XZ_OPT="-9 -T0" tar -C "$stage" -cJf "$dir/payload.tar.xz" .
if [ -n "${SEQPAR_BUNDLE_DEBS:-}" ]; then
  mkdir -p "$dir/debs"
  cp "$SEQPAR_BUNDLE_DEBS"/*.deb "$dir/debs/"
  cp "$root/bench/gpu-peer/setup-mpi.sh" "$dir/"
else
  "$root/bench/gpu-peer/pack-mpi.sh" "$dir" > /dev/null
fi
mkdir -p "$dir/peer"
cp "$root"/bench/gpu-peer/{driver,peer,peerutil,report,seqdata}.py "$dir/peer/"
cp "$root/bench/gpu-peer/run.sh" "$dir/"
chmod +x "$dir/run.sh" "$dir/setup-mpi.sh"

size=$(du -sb "$dir" | cut -f1)
echo "gpu-peer: $dir: $((size / 1000)) kB ($(find "$dir/debs" -name '*.deb' | wc -l) packages," \
  "payload $(($(stat -c %s "$dir/payload.tar.xz") / 1000)) kB: ${#benches[@]} benchmark programs," \
  "the curve's, ${#tiny[@]} x 2 tiny ones, ${#multirank[@]} x 2 multi-rank ones and their cpu" \
  "references, ${#tests[@]} test binaries; target $target)"
if [ "$size" -gt "$limit_bytes" ]; then
  echo "gpu-peer: the bundle is over $((limit_bytes / 1000000)) MB" >&2
  exit 1
fi
echo "gpu-peer: on the GPU machine: $dir/run.sh OUTDIR"
