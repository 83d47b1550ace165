"""sp-compile --grad-reduce-dtype bf16 (Megatron-LM's bf16 gradient
reduction): a tiny model in --precision bf16 at dp=2 (2 ranks) reduces its
gradient buckets in bf16, and trains.

Gradients: one SGD step from the same scrambled parameters and tokens,
compiled with --grad-reduce-dtype f32 (the default) and bf16, each run
dumping its reduced gradients as F32 (--dump-dtype f32). Checks:
  - both runs' tokens and losses are equal (the forward is the same);
  - every gradient element of the bf16 run is a bf16 value (its low 16 bits
    are 0): each replica's f32 contribution was rounded to bf16 and their
    sum rounded to bf16 (dp=2: one addition, x + y added in f32 and rounded
    to nearest even), and nothing after the reduction rounds it otherwise;
    the f32 run has gradient elements that are not bf16 values;
  - the runs are not bit-identical (an ignored option fails here);
  - ||g_bf16 - g_f32|| / ||g_f32|| (Frobenius) over all gradients together
    <= --rtol (default 2^-8), and per tensor <= --rtol-tensor (default
    2^-7): each of the three roundings (two contributions, one sum) is at
    most 2^-9 relative to what it rounds, so an element is off by at most
    2^-9 (|g0| + |g1| + |g0 + g1|), 2^-8 of the sum when the replicas'
    contributions g0 and g1 have one sign; where they partly cancel (a
    small tensor, such as a LayerNorm weight's gradient) the error relative
    to the sum is larger, hence the looser per-tensor bound.
With --zero 1 the same with a distributed optimizer: the gradients whose
first dimension dp divides are reduce-scattered (in bf16 too).
Training: --steps AdamW steps of both programs on the same data and seed,
from the metrics JSONL: every loss finite, the bf16-reduced run's last loss
below its first, step 1's losses equal, later ones within --loss-rtol of the
f32 reduction's, and the data-parallel axis (the mesh axis with role "data"
in the compiled IR) sends at most --max-ratio of the f32 run's bytes per step
(the gradients, half the bytes in bf16, are nearly all of them).
Prints the figures; exits 1 on failure."""
import argparse
import json
import math
import os
import re
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import grads_check as gc  # noqa: E402
import seqpar_e2e as e2e  # noqa: E402

DP = 2


def is_bf16(x):
    """Whether the f32 value x is a bf16 value (its low 16 bits are 0)."""
    return struct.unpack("<I", struct.pack("<f", x))[0] & 0xFFFF == 0


def data_axis(step_ir):
    """The name of the mesh axis whose role is data, from the dist.mesh of
    the compiled step's IR (sp-compile --emit mlir)."""
    for line in open(step_ir):
        m = re.search(r'dist\.mesh @\S+ \[(.*)\] roles \[(.*)\]', line)
        if m:
            names = re.findall(r'"([^"]+)" = \d+', m.group(1))
            roles = [r.strip() for r in m.group(2).split(",")]
            if "data" in roles:
                return names[roles.index("data")]
    sys.exit(f"no data axis in {step_ir}")


def check_gradients(args, tmp):
    config, init, init_t, model = gc.scrambled_model(args.config, tmp, 16, 2)
    runs = {}
    for dtype in ("f32", "bf16"):
        d = os.path.join(tmp, f"grads-{dtype}")
        os.makedirs(d)
        grads, outs, _, _, _ = gc.run_step(
            model, d, 1, DP, False, args.zero, init,
            compile_extra=["--precision", "bf16", "--grad-reduce-dtype", dtype],
            launch_extra=["--dump-dtype", "f32"])
        runs[dtype] = (grads, outs)
    (g32, o32), (g16, o16) = runs["f32"], runs["bf16"]
    ok = True
    same_fwd = (o32["input_ids"] == o16["input_ids"]
                and o32["loss"] == o16["loss"])
    ok &= same_fwd
    print(f"step 1 loss: f32 reduction {o32['loss'][1][0]:.7f}, bf16 "
          f"reduction {o16['loss'][1][0]:.7f} "
          f"{'OK' if same_fwd else 'MISMATCH'}")
    names = sorted(init_t)
    if set(g32) != set(names) or set(g16) != set(names):
        print("gradient names differ from the parameters' MISMATCH")
        return False
    values16 = [x for n in names for x in g16[n][1]]
    values32 = [x for n in names for x in g32[n][1]]
    not16_in16 = sum(not is_bf16(x) for x in values16)
    not16_in32 = sum(not is_bf16(x) for x in values32)
    good = not16_in16 == 0 and not16_in32 > 0
    ok &= good
    print(f"elements that are not bf16 values: bf16 reduction {not16_in16} of "
          f"{len(values16)}, f32 reduction {not16_in32} "
          f"{'OK' if good else 'MISMATCH'}")
    differ = sum(a != b for a, b in zip(values16, values32))
    good = differ > 0
    ok &= good
    print(f"elements that differ: {differ} of {len(values16)} "
          f"{'OK' if good else 'MISMATCH (bit-identical: option ignored?)'}")
    total = e2e.frob_rel_err(values16, values32)
    good = total <= args.rtol
    ok &= good
    print(f"all {len(names)} gradients: rel err bf16 vs f32 reduction "
          f"{total:.2e} (tolerance {args.rtol:.2e}) "
          f"{'OK' if good else 'MISMATCH'}")
    errs = {n: e2e.frob_rel_err(g16[n][1], g32[n][1]) for n in names}
    worst = max(errs.values())
    good = worst <= args.rtol_tensor
    ok &= good
    print(f"per tensor: max rel err {worst:.2e} (tolerance "
          f"{args.rtol_tensor:.2e}; worst: {gc.worst(errs)}) "
          f"{'OK' if good else 'MISMATCH'}")
    return ok


def check_training(args, tmp):
    config = e2e.without_dropout(args.config, tmp)
    model = os.path.join(tmp, "train-model.mlir")
    e2e.import_model(config, model)
    runs = {}
    for dtype in ("f32", "bf16"):
        flags = ["--precision", "bf16", "--train", "--lr", str(args.lr),
                 "--zero", str(args.zero), "--grad-reduce-dtype", dtype]
        prog = os.path.join(tmp, f"prog-{dtype}")
        e2e.compile_model(model, prog, dp=DP, extra=flags)
        log = os.path.join(tmp, f"metrics-{dtype}.jsonl")
        e2e.launch(prog, DP, "--steps", str(args.steps), "--seed", "5",
                   "--data", "/usr/share/common-licenses/GPL-3", "--log", log)
        step_ir = os.path.join(tmp, f"step-{dtype}.mlir")
        e2e.compile_model(model, step_ir, dp=DP, extra=flags + ["--emit", "mlir"])
        runs[dtype] = ([json.loads(line) for line in open(log)],
                       data_axis(step_ir))
    (f32, axis), (bf16, _) = runs["f32"], runs["bf16"]
    ok = len(f32) == len(bf16) == args.steps
    for a, b in zip(f32, bf16):
        err = e2e.rel_err(b["loss"], a["loss"])
        finite = math.isfinite(a["loss"]) and math.isfinite(b["loss"])
        good = finite and (err == 0 if a["step"] == 1 else err <= args.loss_rtol)
        ok &= good
        print(f"step {a['step']}: loss f32 reduction {a['loss']:.7f} bf16 "
              f"reduction {b['loss']:.7f} rel err {err:.2e} "
              f"{'OK' if good else 'MISMATCH'}")
    good = bool(bf16) and bf16[-1]["loss"] < bf16[0]["loss"]
    ok &= good
    print(f"bf16 reduction trains: loss {bf16[0]['loss']:.4f} -> "
          f"{bf16[-1]['loss']:.4f} {'OK' if good else 'MISMATCH'}")
    sent32, sent16 = f32[-1]["bytes_sent"][axis], bf16[-1]["bytes_sent"][axis]
    ratio = sent16 / sent32
    good = ratio <= args.max_ratio
    ok &= good
    print(f"data axis bytes per step: f32 reduction {sent32}, bf16 reduction "
          f"{sent16}, ratio {ratio:.3f} {'OK' if good else 'MISMATCH'}")
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("config")
    p.add_argument("--rtol", type=float, default=2.0 ** -8,
                   help="all gradients' relative error (default 2^-8)")
    p.add_argument("--rtol-tensor", type=float, default=2.0 ** -7,
                   help="each gradient's relative error (default 2^-7)")
    p.add_argument("--zero", type=int, default=0,
                   help="1: a distributed optimizer (the gradients "
                   "reduce-scattered, in bf16 too)")
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--loss-rtol", type=float, required=True)
    p.add_argument("--max-ratio", type=float, required=True)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ok = check_gradients(args, tmp)
        ok &= check_training(args, tmp)
    print("bf16 gradient reduction agrees" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
