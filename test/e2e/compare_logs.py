"""Compares the losses of the steps two JSONL metric logs share: prints the
steps compared and the largest relative difference; exits 1 above --rtol
(0: bitwise equal)."""
import argparse
import json
import sys

p = argparse.ArgumentParser()
p.add_argument("a")
p.add_argument("b")
p.add_argument("--rtol", type=float, default=0.0)
args = p.parse_args()

def losses(path):
    return {r["step"]: r["loss"] for r in map(json.loads, open(path))}

a, b = losses(args.a), losses(args.b)
steps = sorted(set(a) & set(b))
worst = max((abs(a[s] - b[s]) / abs(a[s]) for s in steps), default=1.0)
ok = bool(steps) and worst <= args.rtol
print(f"steps {steps[0] if steps else '-'}..{steps[-1] if steps else '-'}: "
      f"largest relative difference {worst:.2e}: {'SAME' if ok else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
