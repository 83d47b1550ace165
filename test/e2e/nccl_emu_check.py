"""Several ranks of the cuda program over NCCL, on the CPU emulator.

The program compiled with --target cuda-emu communicates through
runtime/comm/NcclComm.cpp, as the cuda target's does, over the emulator's
NCCL (runtime/cuda-emu/lib/Nccl.cpp: MPI underneath, each operation stream
work that a captured step records and each replay runs). For one layout it
trains --steps AdamW steps with clipping and dropout from the same seed
four ways: the cpu target; the cuda program over NCCL (its steps captured
as a CUDA graph after the first, then replayed, where nothing rules graphs
out); the same with --cuda-graph=false; and over --comm mpi (staged
through host memory). Checks:
  - the steps ran eager, captured, then replayed (--graphs), or all eager;
  - the replayed steps log what the eager steps do, bit for bit (loss and
    gradient norm);
  - the NCCL and --comm mpi runs agree with the cpu target's to --rtol
    (relative, per step: the backends sum in different orders, and the
    emulator's NCCL sums the ranks in rank order, MPI in its own).
Prints one line, exits 1 on a failure."""
import argparse
import json
import os
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--ranks", type=int, required=True)
p.add_argument("--tp", type=int, default=1)
p.add_argument("--dp", type=int, default=1)
p.add_argument("--sp", action="store_true")
p.add_argument("--layout", default="",
               help="sp-compile's other flags, e.g. '--cp 2 --zero 1'")
p.add_argument("--graphs", action="store_true",
               help="expect steps 2.. to be captured and replayed")
p.add_argument("--seq", type=int, default=16)
p.add_argument("--batch", type=int, default=2)
p.add_argument("--steps", type=int, default=4)
p.add_argument("--rtol", type=float, default=1e-5)
args = p.parse_args()
name = os.path.basename(args.config).replace(".json", "")
KEYS = ("loss", "grad_norm")


def run(tmp, prog, side, *flags):
    log = os.path.join(tmp, side + ".jsonl")
    e2e.launch(prog, args.ranks, "--steps", str(args.steps), "--seed", "5",
               "--log", log, *flags)
    with open(log) as f:
        return [r for r in map(json.loads, f) if "loss" in r]


def worst(got, ref, what, rtol, problems):
    err = 0.0
    for a, b in zip(got, ref):
        for key in KEYS:
            e = e2e.rel_err(a[key], b[key])
            err = max(err, e)
            if not e <= rtol:
                problems.append(f"step {a['step']} {key}: {a[key]} vs "
                                f"{b[key]} ({what})")
    return err


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model.mlir")
    e2e.import_model(args.config, model, args.seq, args.batch)
    layout = shlex.split(args.layout)
    progs = {}
    for target in ("cpu", "cuda-emu"):
        progs[target] = os.path.join(tmp, "prog-" + target)
        e2e.compile_model(model, progs[target], args.tp, args.dp, args.sp,
                          target=target,
                          extra=["--train", "--grad-clip", "1.0", *layout])
    logs = {
        "cpu": run(tmp, progs["cpu"], "cpu"),
        "nccl": run(tmp, progs["cuda-emu"], "nccl"),
        "eager": run(tmp, progs["cuda-emu"], "eager", "--cuda-graph=false"),
        "mpi": run(tmp, progs["cuda-emu"], "mpi", "--comm", "mpi"),
    }
    problems = []
    if any(len(v) != args.steps for v in logs.values()):
        problems.append(f"logged {[len(v) for v in logs.values()]} steps")
    graphs = [r.get("graph") for r in logs["nccl"]]
    want = (["eager", "captured"] + ["replayed"] * (args.steps - 2)
            if args.graphs else ["eager"] * args.steps)
    if graphs != want:
        problems.append(f"steps ran {graphs}, not {want}")
    worst(logs["nccl"], logs["eager"], "over NCCL, graphs vs eager", 0.0,
          problems)
    vs_cpu = worst(logs["nccl"], logs["cpu"], "NCCL vs cpu", args.rtol,
                   problems)
    mpi = worst(logs["mpi"], logs["cpu"], "--comm mpi vs cpu", args.rtol,
                problems)
    status = "OK" if not problems else "FAILED: " + "; ".join(problems[:4])
    desc = " ".join([f"tp {args.tp}", f"dp {args.dp}"] +
                    (["sp"] if args.sp else []) + layout)
    print(f"{name} {desc} on {args.ranks} emulated ranks over NCCL: "
          f"steps {'/'.join((g or '?')[0] for g in graphs)}, equal to "
          f"--cuda-graph=false, vs cpu {vs_cpu:.1e}, --comm mpi vs cpu "
          f"{mpi:.1e} {status}")
    sys.exit(1 if problems else 0)
