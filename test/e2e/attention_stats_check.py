"""Compiles MODEL with FLAGS twice, with tfm-save-attention-stats
(sp-compile's default: each attention keeps its softmax statistics and its
backward reads them and the forward's result) and without it
(--save-attention-stats=false: the backward runs the forward again), runs
both on RANKS ranks for 4 AdamW steps with the model's dropout, and prints:
the attentions and backwards of each program's train step (and how many
read saved statistics), the largest relative difference of step 1's
gradient norm (one set of parameters: the two backwards' gradients differ
by f32 rounding only) and of the 4 steps' losses, and the planned arena of
each on rank 0. Each difference is followed by "ok" when it is within
GRAD_RTOL (step 1's gradient norm) or LOSS_RTOL (the losses), else "TOO
FAR".

  attention_stats_check.py WORKDIR MODEL "FLAGS" RANKS GRAD_RTOL LOSS_RTOL
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqpar_e2e import tool  # noqa: E402

work, model, flags, ranks = sys.argv[1:5]
grad_rtol, loss_rtol = float(sys.argv[5]), float(sys.argv[6])
tag = "stats-" + (re.sub(r"[^a-z0-9]+", "-", flags).strip("-") or "default")


def build(save):
    exe = os.path.join(work, f"{tag}-{save}")
    common = [model, "--train", "--optimizer", "adamw", "--lr", "3e-3",
              f"--save-attention-stats={save}"] + flags.split()
    subprocess.run([tool("sp-compile")] + common + ["-o", exe], check=True)
    ir = subprocess.run([tool("sp-compile")] + common + ["--emit", "mlir"],
                        check=True, capture_output=True, text=True).stdout
    step = ir[ir.index("@train_step"):]
    step = step[:step.index("\n  }\n")]
    log = exe + ".jsonl"
    subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np",
                    ranks, exe, "--steps", "4", "--log", log],
                   check=True, stdout=subprocess.DEVNULL)
    counts = (len(re.findall(r"= tfm\.attention ", step)),
              len(re.findall(r"= tfm\.attention_grad ", step)),
              len(re.findall(r"= tfm\.attention_grad [^\n]* saved\(", step)))
    return counts, [json.loads(l) for l in open(log)]


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-30)


on, off = build("true"), build("false")
for name, (counts, recs) in (("saved", on), ("recomputed", off)):
    print(f"{name}: {counts[0]} tfm.attention, {counts[1]} tfm.attention_grad,"
          f" {counts[2]} reading saved statistics; arena planned "
          f"{recs[-1]['memory']['planned']['by_category']['arena']} B")
if len(on[1]) != 4 or len(off[1]) != 4:
    sys.exit("expected 4 steps from each program")
grad = rel(on[1][0]["grad_norm"], off[1][0]["grad_norm"])
loss = max(rel(a["loss"], b["loss"]) for a, b in zip(on[1], off[1]))
verdict = lambda d, tol: "ok" if d <= tol else "TOO FAR"
print(f"step 1 grad_norm: relative difference {grad:.1e}: "
      f"{verdict(grad, grad_rtol)}")
print(f"losses, steps 1..4: largest relative difference {loss:.1e}: "
      f"{verdict(loss, loss_rtol)}")
