"""Activation recompute (sp-compile --recompute) changes what the backward
keeps, not what it computes, and lowers the memory a step needs.

    recompute_check.py CONFIG.json --tp T [--dp D] [--zero Z] [--cp C
                       [--cp-attention allgather|ring]] [--seq S]
                       [--batch B] [--steps K] [--rtol R]

For each policy (none, selective, full) a training program (tp x dp (x cp)
with sequence parallelism, AdamW) runs K steps from the same seed and dumps its
loss and its gradients (--dump-grads, the last step's, before the update).
Checks:
  (a) every step's loss and every gradient tensor equal policy none's to
      --rtol (largest |a - b| / |b| over elements; printed);
  (b) the arena each program measured (the last JSONL line's "memory"
      by_category arena, rank 0) equals its plan's arena_bytes;
  (c) the arena is strictly lower for selective than for none, and for full
      than for selective.
Prints one line per policy and a summary; exits 1 on any failure."""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

POLICIES = ["none", "selective", "full"]
DATA = "/usr/share/common-licenses/GPL-3"

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--tp", type=int, required=True)
p.add_argument("--dp", type=int, default=1)
p.add_argument("--zero", type=int, default=0)
p.add_argument("--cp", type=int, default=1)
p.add_argument("--cp-attention", default="allgather",
               choices=["allgather", "ring"])
p.add_argument("--seq", type=int, default=32)
p.add_argument("--batch", type=int, default=4)
p.add_argument("--steps", type=int, default=3)
p.add_argument("--rtol", type=float, default=1e-6)
args = p.parse_args()


def max_rel(a, b):
    """Largest elementwise |a - b| / |b| (|a - b| where b is 0); inf when
    the lists differ in length or anything is not finite."""
    if len(a) != len(b):
        return float("inf")
    worst = 0.0
    for x, y in zip(a, b):
        d = abs(x - y)
        if d != d or d == float("inf"):
            return float("inf")
        worst = max(worst, d / abs(y) if y != 0 else d)
    return worst


def metrics(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


name = os.path.basename(args.config).replace(".json", "")
mesh = ((f"cp={args.cp} {args.cp_attention} " if args.cp > 1 else "")
        + f"tp={args.tp}" + (f" dp={args.dp}" if args.dp > 1 else "")
        + " sp" + (f" zero={args.zero}" if args.zero else ""))
ok = True
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model.mlir")
    e2e.import_model(args.config, model, args.seq, args.batch)
    runs = {}
    for policy in POLICIES:
        prog = os.path.join(tmp, f"prog-{policy}")
        extra = ["--train", "--recompute", policy]
        if args.zero:
            extra += ["--zero", str(args.zero)]
        if args.cp > 1:
            extra += ["--cp", str(args.cp), "--cp-attention", args.cp_attention]
        e2e.compile_model(model, prog, args.tp, args.dp, True, extra)
        log = os.path.join(tmp, f"{policy}.jsonl")
        grads = os.path.join(tmp, f"{policy}.safetensors")
        e2e.launch(prog, args.tp * args.dp * args.cp, "--steps", str(args.steps),
                   "--seed", "7", "--data", DATA, "--log", log,
                   "--dump-grads", grads)
        lines = metrics(log)
        runs[policy] = {
            "losses": [r["loss"] for r in lines],
            "grads": e2e.read_safetensors(grads),
            "arena": lines[-1]["memory"]["by_category"]["arena"],
            "planned": lines[-1]["arena_bytes"],
            "memory": lines[-1]["memory"],
        }
    base = runs["none"]
    for policy in POLICIES:
        r = runs[policy]
        loss_err = max_rel(r["losses"], base["losses"])
        names = sorted(base["grads"])
        grad_err = (max(max_rel(r["grads"][n][1], base["grads"][n][1])
                        for n in names)
                    if sorted(r["grads"]) == names else float("inf"))
        same = loss_err <= args.rtol and grad_err <= args.rtol
        planned = r["arena"] == r["planned"]
        ok = ok and same and planned
        print(f"{name} {mesh} recompute={policy}: arena {r['arena']} bytes "
              f"(planned {r['planned']}: {'equal' if planned else 'MISMATCH'}), "
              f"{len(names)} gradients and {len(r['losses'])} losses vs none: "
              f"max rel {max(loss_err, grad_err):.2e} "
              f"{'OK' if same else 'MISMATCH'}")
    # The whole device peak, measured, against the plan the program carries:
    # planned categories equal their measurement, and the measured peak is
    # the planned peak plus the measured peak of what the plan does not
    # cover (the backend's scratch).
    for policy in POLICIES:
        m = runs[policy]["memory"]
        planned = m["planned"]
        cats = all(m["by_category"].get(c) == b
                   for c, b in planned["by_category"].items())
        total = m["peak_bytes"] == (planned["peak_bytes"]
                                    + m["unplanned_peak_bytes"])
        ok = ok and cats and total
        print(f"{name} {mesh} recompute={policy}: peak {m['peak_bytes']} = "
              f"planned {planned['peak_bytes']} + unplanned "
              f"{m['unplanned_peak_bytes']}: "
              f"{'equal' if cats and total else 'MISMATCH'}")
    peaks = [runs[p]["memory"]["peak_bytes"] for p in POLICIES]
    lower = peaks[0] > peaks[1] > peaks[2]
    ok = ok and lower
    print(f"{name} {mesh}: measured peak none > selective > full: "
          f"{' > '.join(map(str, peaks))} "
          f"{'OK' if lower else 'MISMATCH'}")
    arenas = [runs[p]["arena"] for p in POLICIES]
    lower = arenas[0] > arenas[1] > arenas[2]
    ok = ok and lower
    print(f"{name} {mesh}: arena none > selective > full: "
          f"{' > '.join(map(str, arenas))} "
          f"{'OK' if lower else 'MISMATCH'}")
print("all policies match" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
