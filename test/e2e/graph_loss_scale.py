"""A loss scale that changes from step to step replays one CUDA graph.

fp16's dynamic loss scale (from 65536 with --loss-scale-window 1: every
step without an overflow doubles it, an overflow skips the step and halves
it) is read on the device by the compiled step (sprt_op_scale_by,
sprt_op_clip_scale_by), so after step 1 (eager) and step 2 (captured) every
step replays the capture, whatever the scale. Checked:
  - the steps ran eager, captured, then replayed, with 3 or more scales;
  - the same run with --cuda-graph=false logs the same losses, gradient
    norms, loss scales and skipped steps, bit for bit (a replay computes
    what the eager step does);
  - the cpu target's run agrees to --rtol (default 2e-3: the backends sum
    the fp16 GEMMs in different orders, and fp16's unit roundoff is
    4.9e-4), skipping the same steps.
Prints one line, exits 1 on a failure."""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--target", default="cuda")
p.add_argument("--steps", type=int, default=8)
p.add_argument("--rtol", type=float, default=2e-3)
args = p.parse_args()

KEYS = ("loss", "grad_norm", "loss_scale", "skipped")


def compare(got, ref, rtol, what, problems):
    """The worst relative difference of got's steps from ref's."""
    worst = 0.0
    for a, b in zip(got, ref):
        for key in KEYS:
            if a.get(key) is None or b.get(key) is None or key == "skipped":
                if a.get(key) != b.get(key):
                    problems.append(f"step {a['step']} {key}: {a.get(key)} "
                                    f"vs {b.get(key)} ({what})")
                continue
            err = e2e.rel_err(a[key], b[key])
            worst = max(worst, err)
            if not err <= rtol:
                problems.append(f"step {a['step']} {key}: {a[key]} vs "
                                f"{b[key]} ({what})")
    return worst


with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model.mlir")
    # Without attention dropout: an fp16 cuda program runs attention on
    # cuDNN, whose dropout masks are not the cpu target's.
    e2e.import_model(e2e.without_dropout(args.config, tmp, attention_only=True),
                     model)
    logs = {}
    for side, target, flags in (("cpu", "cpu", []),
                                ("graph", args.target, []),
                                ("eager", args.target,
                                 ["--cuda-graph=false"])):
        prog = os.path.join(tmp, "prog-" + target)
        if not os.path.exists(prog):
            e2e.compile_model(model, prog, target=target,
                              extra=["--train", "--precision", "fp16"])
        log = os.path.join(tmp, side + ".jsonl")
        e2e.launch(prog, 1, "--steps", str(args.steps), "--seed", "3",
                   "--loss-scale", "65536", "--loss-scale-window", "1",
                   "--log", log, *flags)
        with open(log) as f:
            logs[side] = [r for r in map(json.loads, f) if "loss" in r]
    got = logs["graph"]
    problems = []
    if any(len(v) != args.steps for v in logs.values()):
        problems.append(f"logged {[len(v) for v in logs.values()]} steps")
    scales = [r["loss_scale"] for r in got]
    if len(set(scales)) < 3:
        problems.append(f"the loss scale hardly changed: {scales}")
    graphs = [r.get("graph") for r in got]
    if graphs[:2] != ["eager", "captured"] or set(graphs[2:]) != {"replayed"}:
        problems.append(f"steps ran {graphs}, not eager, captured, replayed...")
    compare(got, logs["eager"], 0.0, "replayed vs eager", problems)
    worst = compare(got, logs["cpu"], args.rtol, "vs cpu", problems)
    status = "OK" if not problems else "FAILED: " + "; ".join(problems[:4])
    print(f"{args.target} fp16, loss scales {min(scales):g}..{max(scales):g}, "
          f"steps {'/'.join((g or '?')[0] for g in graphs)}: equal to "
          f"--cuda-graph=false, max rel err vs cpu {worst:.1e} {status}")
    sys.exit(1 if problems else 0)
