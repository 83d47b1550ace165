"""The cuda target computes what the cpu target computes.

For one config (dropout kept: both backends draw the same Philox masks), the
same training program (--train, AdamW, gradient clipping) is compiled for
--target cpu and --target cuda at tp=1 dp=1 (one GPU), runs --steps steps
from the same seed, and dumps its gradients and parameters. Checks, with
relative error ||a - b|| / ||b|| per tensor (Frobenius):
  - the loss of every step to --rtol;
  - every gradient of the last step and every parameter after it to --rtol.
The two backends sum in different orders (cuBLAS vs OpenBLAS GEMM blocking,
tree reductions in the norms and the loss, the online softmax of the fused
attention), fp32 throughout: the same kind of difference as between tensor
parallel layouts, which test/e2e/grads.test bounds by 1e-5.
Prints one line and exits 1 on any failure."""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--seq", type=int, default=16)
p.add_argument("--batch", type=int, default=2)
p.add_argument("--steps", type=int, default=2)
p.add_argument("--rtol", type=float, default=1e-5)
args = p.parse_args()
name = os.path.basename(args.config).replace(".json", "")

with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model.mlir")
    e2e.import_model(args.config, model, args.seq, args.batch)
    runs = {}
    for target in ("cpu", "cuda"):
        prog = os.path.join(tmp, f"prog-{target}")
        e2e.compile_model(model, prog, extra=["--train", "--grad-clip", "1.0"],
                          target=target)
        e2e.launch(prog, 1, "--steps", str(args.steps), "--seed", "5",
                   "--log", prog + ".jsonl", "--dump-grads", prog + ".grads",
                   "--dump-params", prog + ".params")
        with open(prog + ".jsonl") as f:
            losses = [r["loss"] for r in map(json.loads, f) if "loss" in r]
        runs[target] = (losses, e2e.read_safetensors(prog + ".grads"),
                        e2e.read_safetensors(prog + ".params"))
    (lc, gc, pc), (lg, gg, pg) = runs["cpu"], runs["cuda"]
    problems = []
    if len(lc) != args.steps or len(lg) != args.steps:
        problems.append(f"logged {len(lc)} (cpu) and {len(lg)} (cuda) losses")
    loss_err = max((e2e.rel_err(g, c) for c, g in zip(lc, lg)), default=float("inf"))
    if not loss_err <= args.rtol:
        problems.append(f"losses differ: cpu {lc}, cuda {lg}")
    worst = 0.0
    for ref, got, what in ((gc, gg, "gradient"), (pc, pg, "parameter")):
        if set(ref) != set(got):
            problems.append(f"{what} names differ")
            continue
        for n in ref:
            err = e2e.frob_rel_err(got[n][1], ref[n][1])
            worst = max(worst, err)
            if not err <= args.rtol:
                problems.append(f"{what} {n}: rel err {err:.1e}")
    status = "OK" if not problems else "FAILED: " + "; ".join(problems[:5])
    print(f"{name} cuda vs cpu, {args.steps} steps: loss rel err {loss_err:.1e}, "
          f"grads/params max rel err {worst:.1e} {status}")
    sys.exit(1 if problems else 0)
