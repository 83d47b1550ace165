#!/usr/bin/env bash
# Start-up and checkpoints at real model size (issue 30), on CPU ranks:
#  1. the parameter draws: the original host loop (one sprt_normal per
#     element, one thread) against sprt_init_normal on 1 thread and on every
#     core, on the same 2^26 draws, side by side (build/bin/sprt_init_bench;
#     it checks that all three give the same bits);
#  2. the Llama-3.2-1B shape (examples/configs/llama-3.2-1b.json: 1.24
#     billion parameters) at sequence SEQ (default 2048), batch 2, forward
#     program, one rank: process start to step 1 and the parameters' part of
#     it, as the program measures them (its log's startup_s and
#     init_params_s);
#  3. a checkpoint of that shape: a one-rank SGD training program at
#     sequence 128 (its f32 parameters, 4.9 GB, are the checkpoint) saves
#     step 1 (the program's checkpoint_s and checkpoint_bytes: GB/s of rank 0,
#     which writes), then a run resumes from it (init_params_s: the
#     checkpoint read, checked and scattered).
# Needs about 12 GB of free memory and 10 GB of disk under TMPDIR.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SEQPAR_BUILD_DIR:-$root/build}
bin=$build/bin
seq=${SEQ:-2048}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
run() { mpirun --allow-run-as-root --bind-to none -np 1 "$@"; }
field() { # field FILE KEY: the first log record's KEY
  /usr/bin/python3 -c "import json,sys; print(json.loads(open(sys.argv[1]).readline())[sys.argv[2]])" "$1" "$2"
}

echo "== parameter draws"
"$build/runtime/tests/sprt_init_bench"

config="$root/examples/configs/llama-3.2-1b.json"
echo
echo "== Llama-3.2-1B shape: start-up of a one-rank program (seq $seq, batch 2)"
"$bin/sp-import" --hf-config "$config" --seq-len "$seq" --batch 2 -o "$tmp/infer.mlir"
"$bin/sp-compile" "$tmp/infer.mlir" -o "$tmp/infer"
run "$tmp/infer" --steps 1 --log "$tmp/infer.jsonl" > /dev/null 2>&1
printf "%-40s %8.2f s\n" "process start to step 1" "$(field "$tmp/infer.jsonl" startup_s)"
printf "%-40s %8.2f s\n" "of which parameters drawn" "$(field "$tmp/infer.jsonl" init_params_s)"

echo
echo "== Llama-3.2-1B shape: checkpoint save and resume (SGD, seq 128, one rank)"
"$bin/sp-import" --hf-config "$config" --seq-len 128 --batch 1 -o "$tmp/train.mlir"
"$bin/sp-compile" "$tmp/train.mlir" --train --optimizer sgd -o "$tmp/train"
run "$tmp/train" --steps 1 --checkpoint-dir "$tmp/ckpt" --log "$tmp/save.jsonl" > /dev/null 2>&1
run "$tmp/train" --steps 2 --checkpoint-dir "$tmp/ckpt" --resume --log "$tmp/resume.jsonl" > /dev/null 2>&1
bytes=$(field "$tmp/save.jsonl" checkpoint_bytes)
save=$(field "$tmp/save.jsonl" checkpoint_s)
load=$(field "$tmp/resume.jsonl" init_params_s)
/usr/bin/python3 - "$bytes" "$save" "$load" <<'PY'
import sys
b, save, load = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
print(f"{'checkpoint written by rank 0':40s} {b / 1e9:8.2f} GB")
print(f"{'save (assemble, checksum, write, commit)':40s} {save:8.2f} s  {b / 1e9 / save:6.2f} GB/s")
print(f"{'resume (read, verify, scatter)':40s} {load:8.2f} s  {b / 1e9 / load:6.2f} GB/s")
PY
