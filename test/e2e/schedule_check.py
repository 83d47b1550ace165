"""Checks the learning rates a run logged (JSONL metrics, "lr" per step)
against Megatron-LM's schedule written out here (OptimizerParamScheduler.
get_lr: linear warm-up from 0, then cosine / linear decay to min_lr at
decay_steps, min_lr after; or constant), the update of step k (no step
skipped) using the lr after k - 1 updates. Prints one line; exits 1 when a
logged lr differs from the formula by more than --rtol (0: bitwise).

  schedule_check.py LOG --lr X [--min-lr Y] [--warmup N] [--decay D]
                    [--decay-steps M]
  schedule_check.py --differ A B   # same step-1 loss, every later loss and
                                   # every lr after the first different
  schedule_check.py --same A B     # the steps both logged: losses and lrs
                                   # bitwise equal
"""
import argparse
import json
import math
import sys


def records(path):
    return {r["step"]: r for r in map(json.loads, open(path))}


def megatron_lr(n, lr, min_lr, warmup, decay, decay_steps):
    if warmup > 0 and n <= warmup:
        return lr * float(n) / float(warmup)
    if decay == "constant":
        return lr
    if n > decay_steps:
        return min_lr
    ratio = float(n - warmup) / float(decay_steps - warmup)
    if decay == "cosine":
        coeff = 0.5 * (math.cos(math.pi * ratio) + 1.0)
    else:
        coeff = 1.0 - ratio
    return min_lr + coeff * (lr - min_lr)


p = argparse.ArgumentParser()
p.add_argument("logs", nargs="+")
p.add_argument("--lr", type=float)
p.add_argument("--min-lr", type=float, default=0.0)
p.add_argument("--warmup", type=int, default=0)
p.add_argument("--decay", default="constant")
p.add_argument("--decay-steps", type=int, default=0)
p.add_argument("--rtol", type=float, default=0.0)
p.add_argument("--differ", action="store_true")
p.add_argument("--same", action="store_true")
args = p.parse_args()

if args.same:
    a, b = (records(f) for f in args.logs)
    steps = sorted(set(a) & set(b))
    ok = bool(steps) and all(a[s]["loss"] == b[s]["loss"] and
                             a[s]["lr"] == b[s]["lr"] for s in steps)
    lrs = " ".join(f"{b[s]['lr']:g}" for s in steps)
    span = f"{steps[0]}..{steps[-1]}" if steps else "-"
    print(f"steps {span}: lr {lrs}: losses and lrs "
          f"{'SAME' if ok else 'DIFFERENT'}")
    sys.exit(0 if ok else 1)

if args.differ:
    a, b = (records(f) for f in args.logs)
    steps = sorted(set(a) & set(b))
    first = steps[0] == 1 and a[1]["loss"] == b[1]["loss"]
    later = all(a[s]["loss"] != b[s]["loss"] for s in steps[1:])
    lrs = all(a[s]["lr"] != b[s]["lr"] for s in steps[1:])
    ok = len(steps) > 1 and first and later and lrs
    print(f"steps {steps[0]}..{steps[-1]}: step 1 loss "
          f"{'equal' if first else 'DIFFERENT'}, later losses "
          f"{'all different' if later else 'NOT all different'}, lrs "
          f"{'all different' if lrs else 'NOT all different'}: "
          f"{'OK' if ok else 'FAIL'}")
    sys.exit(0 if ok else 1)

log = records(args.logs[0])
worst, logged = 0.0, []
for step in sorted(log):
    want = megatron_lr(step - 1, args.lr, args.min_lr, args.warmup,
                       args.decay, args.decay_steps)
    got = log[step]["lr"]
    logged.append(f"{got:g}")
    worst = max(worst, abs(got - want) / max(abs(want), 1e-300)
                if got != want else 0.0)
ok = worst <= args.rtol
print(f"lr {' '.join(logged)}: largest relative difference from the "
      f"formula {worst:.2e}: {'SAME' if ok else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
