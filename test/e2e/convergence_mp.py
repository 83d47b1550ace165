"""Convergence in mixed precision: 300 steps of the GPL-3 byte-level training
of convergence.py in bf16 and fp16 (with dynamic loss scaling) follow the
fp32 curve.

Trains the tiny GPT-2 on one rank with convergence.py's train(): in fp32
(seed 1), in fp32 from another seed (seed 2: the spread of an unrelated run,
which the band must be tighter than), and in each --precision (seed 1, same
data, dropout masks and configuration as the fp32 run). For fp16 it also
trains with --loss-scale-window WINDOW, so that the scale grows until the
gradients overflow: steps are skipped and the scaler backs off. Checks:
  - the final loss (mean of the last 10 steps) is within --final-rtol (2%)
    of fp32's;
  - every step's loss of a run that skipped no step is within --step-rtol of
    the fp32 loss of that step;
  - every step of the 10-step trailing mean of the curve (every run, also
    the one with skipped steps: a skipped step withholds one update, which
    shifts single steps but not the trend) is within --smooth-rtol of the
    fp32 one's, and the seed-2 run is not (the band is tighter than seed
    noise);
  - the loss falls below 3/4 of its start;
  - fp16: the program's `loss scaling: N steps skipped (overflow), final
    scale S` agrees with its JSONL: N is the number of steps whose
    grad_norm is null (not finite) and the last step's skipped_steps, S is
    the scale after the last step's update; the window run skipped steps.
Writes the curves to a PNG when --plot is given."""
import argparse
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import convergence as conv

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--precision", nargs="+", choices=("bf16", "fp16"),
               required=True)
p.add_argument("--steps", type=int, default=300)
p.add_argument("--final-rtol", type=float, default=0.02)
p.add_argument("--step-rtol", type=float, default=0.08)
p.add_argument("--smooth-rtol", type=float, default=0.03)
p.add_argument("--smooth", type=int, default=10,
               help="steps of the trailing mean")
p.add_argument("--window", type=int, default=20,
               help="--loss-scale-window of the fp16 run that overflows")
p.add_argument("--plot", help="write the curves to this PNG")
args = p.parse_args()


def trailing_mean(losses):
    out = []
    for k in range(len(losses)):
        w = losses[max(0, k - args.smooth + 1):k + 1]
        out.append(sum(w) / len(w))
    return out


def final(losses):
    return sum(losses[-10:]) / 10


def max_rel(losses, ref):
    return max(abs(a - b) / b for a, b in zip(losses, ref))


def scaler_consistent(name, records, stdout, scale_growth=2.0, backoff=0.5):
    """Checks the program's loss-scaling line against its JSONL; returns
    (skipped steps, final scale, consistent)."""
    m = re.search(r"loss scaling: (\d+) steps skipped \(overflow\), final "
                  r"scale (\S+)", stdout)
    if not m:
        print(f"{name}: no 'loss scaling:' line in the program's output")
        return 0, 0.0, False
    skipped, scale = int(m.group(1)), float(m.group(2))
    nulls = sum(r["grad_norm"] is None for r in records)
    last = records[-1]
    # The logged scale is the one the step used; the printed one is after
    # the last step's update: backed off on an overflow, else the same or
    # grown at the end of a window.
    after = (last["loss_scale"] * backoff if last["grad_norm"] is None
             else last["loss_scale"])
    ok = (skipped == nulls == last["skipped_steps"] and
          sum(r["skipped"] for r in records) == nulls and
          scale in (after, after * scale_growth))
    return skipped, scale, ok


ok = True
with tempfile.TemporaryDirectory() as tmp:
    model = conv.import_model(args.config, tmp)
    runs = [("fp32", [], [], 1), ("fp32 seed 2", [], [], 2)]
    for prec in args.precision:
        runs.append((prec, ["--precision", prec], [], 1))
        if prec == "fp16":
            runs.append((f"fp16 window {args.window}", ["--precision", prec],
                         ["--loss-scale-window", str(args.window)], 1))
    curves, scalers = {}, {}
    for name, cflags, rflags, seed in runs:
        records, stdout = conv.train(model, tmp, name, steps=args.steps,
                                     seed=seed, compile_extra=cflags,
                                     run_extra=rflags)
        curves[name] = [r["loss"] for r in records]
        if name.startswith("fp16"):
            scalers[name] = scaler_consistent(name, records, stdout)
        if len(records) != args.steps:
            print(f"{name}: {len(records)} steps logged, not {args.steps}")
            ok = False

base = curves["fp32"]
base_smooth = trailing_mean(base)
print(f"{args.steps} steps, one rank: fp32 loss {base[0]:.4f} -> "
      f"{final(base):.4f} (mean of the last 10 steps)")
seed2 = curves["fp32 seed 2"]
seed_step = max_rel(seed2, base)
seed_smooth = max_rel(trailing_mean(seed2), base_smooth)
seed_tighter = seed_smooth > args.smooth_rtol and seed_step > args.step_rtol
print(f"fp32 seed 2: final {final(seed2):.4f}; largest per-step relative "
      f"difference {seed_step:.2%}, of the {args.smooth}-step mean "
      f"{seed_smooth:.2%}: band {'TIGHTER' if seed_tighter else 'NOT TIGHTER'}"
      f" than seed noise")
ok &= seed_tighter
for name, losses in curves.items():
    if name.startswith("fp32"):
        continue
    fin = (final(losses) - final(base)) / final(base)
    step = max_rel(losses, base)
    smooth = max_rel(trailing_mean(losses), base_smooth)
    skipped = scalers.get(name, (0,))[0]
    # A skipped step withholds an update: its run is held to the trend only.
    good = (abs(fin) <= args.final_rtol and smooth <= args.smooth_rtol and
            (skipped > 0 or step <= args.step_rtol) and
            final(losses) < 0.75 * losses[0])
    print(f"{name}: final {final(losses):.4f} ({fin:+.2%} of fp32); largest "
          f"per-step relative difference {step:.2%}, of the {args.smooth}-step "
          f"mean {smooth:.2%}: {'WITHIN' if good else 'OUTSIDE'} the band; "
          f"loss {'FALLS' if final(losses) < 0.75 * losses[0] else 'STAYS'}")
    ok &= good
    if name in scalers:
        skipped, scale, consistent = scalers[name]
        # A power of two: whole digits where it is whole (2097152, not
        # 2.09715e+06).
        shown = f"{scale:.0f}" if scale.is_integer() else f"{scale:g}"
        print(f"{name}: loss scaling: {skipped} steps skipped (overflow), "
              f"final scale {shown}; "
              f"{'CONSISTENT' if consistent else 'INCONSISTENT'} with the "
              f"JSONL")
        ok &= consistent
        if name != "fp16":
            ok &= skipped > 0
if args.plot:
    conv.plot({k: v for k, v in curves.items() if k != "fp32 seed 2"},
              args.plot, "GPL-3, tiny GPT-2, one rank: fp32 vs " +
              " / ".join(args.precision))
    print(f"wrote {args.plot}")
sys.exit(0 if ok else 1)
