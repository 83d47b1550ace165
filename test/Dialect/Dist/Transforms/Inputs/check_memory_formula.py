"""Checks sp-report=memory against Korthikanti et al. 2022 (arXiv 2205.05198).

Per layer, the activation bytes each rank keeps (16-bit activations, 1-byte
dropout masks) must equal
  TP:     s*b*h*(10 + 24/t + 5*a*s/(h*t))            (eq. 2)
  TP+SP:  s*b*h/t*(34 + 5*a*s/h)                     (eq. 4)
for the model's s, b, h, a and the report's t ("paper_bytes"). With
--policy, the report's paper column under that recompute policy
("paper_bytes_recompute", the report's "paper_recompute") must equal
  selective (the attention core recomputed: no 5*a*s/h term)
          TP: s*b*h*(10 + 24/t)     TP+SP: 34*s*b*h/t   (eq. 5 / section 5)
  full    (only the layer's input kept, 2 bytes an element)
          TP: 2*s*b*h               TP+SP: 2*s*b*h/t
  none    the no-recompute figure above.
Prints one line per check; exits 1 on a mismatch.
"""
import argparse
import json
import sys
from fractions import Fraction

p = argparse.ArgumentParser()
p.add_argument("--config", required=True)
p.add_argument("--seq", type=int, required=True)
p.add_argument("--batch", type=int, default=1)
p.add_argument("--mode", choices=["tp", "sp"], required=True)
p.add_argument("--policy", choices=["none", "selective", "full"])
p.add_argument("report")
args = p.parse_args()

cfg = json.load(open(args.config))
report = json.load(open(args.report))
s, b, h, a = args.seq, args.batch, cfg["n_embd"], cfg["n_head"]
L = cfg["n_layer"]
t = report["mesh"]["tp"]
if args.mode == "tp":
    want = s * b * h * (10 + Fraction(24, t) + Fraction(5 * a * s, h * t))
else:
    want = Fraction(s * b * h, t) * (34 + Fraction(5 * a * s, h))
assert want.denominator == 1, want
want = int(want)


def check(key, want, what):
    layers = report["layers"]
    ok = len(layers) == L
    for layer in layers:
        if layer[key] != want:
            print(f"layer {layer['layer']}: {layer[key]} bytes, formula {want}")
            ok = False
    print(f"{what} t={t} a={a} h={h} L={L}: {len(layers)} layers of "
          f"{layers[0][key] if layers else 0} bytes, formula {want}: "
          f"{'MATCH' if ok else 'MISMATCH'}")
    return ok


ok = check("paper_bytes", want, args.mode)
if args.policy:
    split = t if args.mode == "sp" else 1
    if args.policy == "selective":
        keep = (s * b * h * (10 + Fraction(24, t)) if args.mode == "tp"
                else Fraction(34 * s * b * h, t))
    elif args.policy == "full":
        keep = Fraction(2 * s * b * h, split)
    else:
        keep = want
    assert keep.denominator == 1 if isinstance(keep, Fraction) else True
    ok = ok and report["paper_recompute"] == args.policy
    ok = check("paper_bytes_recompute", int(keep),
               f"{args.mode} {args.policy}") and ok
sys.exit(0 if ok else 1)
