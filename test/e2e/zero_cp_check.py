"""Checks for zero-cp.test (ZeRO-1 over the data and context axes):

  tensors A B --rtol R [--noise SUFFIX:START:END:ABS]
      A's and B's tensors (safetensors dumps: parameters or gradients) have
      the same names and shapes and, per tensor, a relative error
      ||a - b|| / ||b|| (Frobenius) of at most R; prints the largest and
      the tensor it is in, "SAME" or "DIFFERENT"; exits 1 on a difference.
      With --noise, elements [START, END) of the tensors whose names end
      with SUFFIX are held to |a - b| <= ABS instead (and left out of their
      relative error): GPT-2's key bias (the middle third of c_attn.bias),
      whose gradient is zero in exact arithmetic (softmax is invariant to a
      shift of a query's scores), so what AdamW does with its rounding noise
      depends on the order of every sum; the largest such difference is
      printed too.
  state A.jsonl B.jsonl --ratio K
      the optimizer-state bytes rank 0 measured (the last JSONL line's
      memory "by_category" optimizer_state) in A are K times those in B,
      exactly; prints both and the ratio; exits 1 otherwise.
  comm REPORT.json METRICS.jsonl
      the bytes per mesh axis that `--report comm` gives the step (every
      collective, in and outside the layers) equal those rank 0 measured
      (each JSONL line's "bytes_sent"); prints both per axis and the bytes
      of the ZeRO collectives (the gradients' reduce-scatters and the
      parameters' all-gathers, each over all of their axes); exits 1 on a
      difference.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e


def tensors(args):
    a, b = e2e.read_safetensors(args.a), e2e.read_safetensors(args.b)
    if sorted(a) != sorted(b):
        print(f"DIFFERENT names: {sorted(set(a) ^ set(b))}")
        return 1
    suffix, start, end, bound = None, 0, 0, 0.0
    if args.noise:
        suffix, start, end, bound = args.noise.split(":")
        start, end, bound = int(start), int(end), float(bound)
    worst, where, noise, noisy = 0.0, "-", 0.0, 0
    for name in sorted(a):
        if a[name][0] != b[name][0]:
            print(f"DIFFERENT shapes of {name}: {a[name][0]} vs {b[name][0]}")
            return 1
        x, y = a[name][1], b[name][1]
        if suffix and name.endswith(suffix):
            noisy += 1
            noise = max([noise] + [abs(p - q) for p, q in
                                   zip(x[start:end], y[start:end])])
            x, y = x[:start] + x[end:], y[:start] + y[end:]
        err = e2e.frob_rel_err(x, y)
        if err > worst or where == "-":
            worst, where = err, name
    ok = worst <= args.rtol and noise <= bound
    extra = (f"; elements {start}..{end - 1} of {noisy} *{suffix}: largest "
             f"absolute difference {noise:.2e}" if suffix else "")
    print(f"{len(a)} tensors: largest relative difference {worst:.2e} "
          f"({where}){extra}: {'SAME' if ok else 'DIFFERENT'}")
    return 0 if ok else 1


def state_bytes(path):
    with open(path) as f:
        lines = [l for l in f if l.strip()]
    return json.loads(lines[-1])["memory"]["by_category"]["optimizer_state"]


def state(args):
    a, b = state_bytes(args.a), state_bytes(args.b)
    ok = a == args.ratio * b
    print(f"optimizer_state {a} vs {b} bytes: ratio {a / b:g} "
          f"{'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


def comm(args):
    report = json.load(open(args.report))
    collectives = [c for layer in report["layers"] for c in layer["collectives"]]
    collectives += report["outside_layers"]["collectives"]
    planned, zero = {}, {}
    for c in collectives:
        planned[c["axis"]] = planned.get(c["axis"], 0) + c["bytes_sent"]
        if c["op"] in ("dist.reduce_scatter_coalesced", "dist.all_gather_param"):
            zero[c["op"]] = zero.get(c["op"], 0) + c["bytes_sent"]
    with open(args.metrics) as f:
        steps = [json.loads(l) for l in f if l.strip()]
    ok = bool(steps)
    for s in steps:
        measured = {a: b for a, b in s["bytes_sent"].items() if b}
        ok &= measured == {a: b for a, b in planned.items() if b}
    print(f"report {dict(sorted(planned.items()))}, measured "
          f"{dict(sorted(steps[0]['bytes_sent'].items())) if steps else '-'} "
          f"per step ({len(steps)} steps); zero collectives "
          f"{dict(sorted(zero.items()))}: {'ok' if ok else 'MISMATCH'}")
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("tensors")
    t.add_argument("a")
    t.add_argument("b")
    t.add_argument("--rtol", type=float, required=True)
    t.add_argument("--noise", default="")
    s = sub.add_parser("state")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("--ratio", type=int, required=True)
    c = sub.add_parser("comm")
    c.add_argument("report")
    c.add_argument("metrics")
    args = p.parse_args()
    return {"tensors": tensors, "state": state, "comm": comm}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
