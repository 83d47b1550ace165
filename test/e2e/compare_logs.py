"""Compares the losses of the steps two JSONL metric logs share: prints the
steps compared and the largest relative difference; exits 1 above --rtol
(0: bitwise equal). --fields F,G also compares those fields of every shared
step exactly (e.g. loss_scale, skipped_steps) and prints their values at the
first and the last shared step and the values taken."""
import argparse
import json
import sys

p = argparse.ArgumentParser()
p.add_argument("a")
p.add_argument("b")
p.add_argument("--rtol", type=float, default=0.0)
p.add_argument("--fields", default="")
args = p.parse_args()

def records(path):
    return {r["step"]: r for r in map(json.loads, open(path))}

ra, rb = records(args.a), records(args.b)
a = {s: r["loss"] for s, r in ra.items()}
b = {s: r["loss"] for s, r in rb.items()}
steps = sorted(set(a) & set(b))
worst = max((abs(a[s] - b[s]) / abs(a[s]) for s in steps), default=1.0)
ok = bool(steps) and worst <= args.rtol
print(f"steps {steps[0] if steps else '-'}..{steps[-1] if steps else '-'}: "
      f"largest relative difference {worst:.2e}: {'SAME' if ok else 'DIFFERENT'}")
for field in filter(None, args.fields.split(",")):
    va = [ra[s].get(field) for s in steps]
    vb = [rb[s].get(field) for s in steps]
    same = bool(steps) and va == vb and None not in va
    ok &= same
    seen = sorted({v for v in va if v is not None})
    print(f"{field}: steps {steps[0] if steps else '-'}..{steps[-1] if steps else '-'}"
          f" from {va[0] if va else '-'} to {va[-1] if va else '-'}, values "
          f"{', '.join(f'{v:g}' for v in seen)}: {'SAME' if same else 'DIFFERENT'}")
sys.exit(0 if ok else 1)
