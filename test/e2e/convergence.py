"""Convergence: byte-level training on real text with and without sequence
parallelism gives the same loss curve.

Trains the tiny GPT-2 (dropout on) for STEPS steps with SGD (lr 0.3, gradient
norm clipped to 1) on
/usr/share/common-licenses/GPL-3, once on one rank and once with tensor +
sequence parallelism over 2 ranks, from the same seed. Every step's loss
must agree to 1e-4 relative, and the loss must fall well below its start.
Writes both curves to a PNG (matplotlib, Debian's python3) when --plot is
given. train() and plot() are shared with convergence_mp.py."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

TEXT = "/usr/share/common-licenses/GPL-3"


def import_model(config, tmp):
    """The model every convergence run trains (64 bytes x 8 sequences)."""
    model = os.path.join(tmp, "model.mlir")
    e2e.import_model(config, model, seq=64, batch=8)
    return model


def train(model, tmp, name, tp=1, sp=False, steps=300, seed=1,
          compile_extra=(), run_extra=(), cp=1, pp=1, micro_batches=1):
    """Compiles `model` for pp x cp x tp ranks (SGD, lr 0.3, clip 1; with
    pp > 1, `micro_batches` micro-batches in the 1F1B schedule) and trains
    it for `steps` steps on TEXT; returns (JSONL records, the program's
    stdout)."""
    prog = os.path.join(tmp, f"prog-{name.replace(' ', '-')}")
    e2e.run([e2e.tool("sp-compile"), model, "--train", "--optimizer",
             "sgd", "--lr", "0.3", "--grad-clip", "1.0", "--tp",
             str(tp), "--cp", str(cp), "--target", e2e.TARGET, "-o", prog] +
            (["--sp"] if sp else []) +
            (["--pp", str(pp)] if pp > 1 else []) +
            (["--micro-batches", str(micro_batches)]
             if micro_batches > 1 else []) + list(compile_extra))
    log = prog + ".jsonl"
    out = e2e.launch(prog, tp * cp * pp, "--steps", str(steps), "--seed", str(seed),
                     "--data", TEXT, "--log", log, *run_extra)
    return [json.loads(line) for line in open(log)], out.stdout


def plot(curves, png, title=None):
    """Writes curves {name: [loss per step]} to `png` with plot_curves.py."""
    data = os.path.join(os.path.dirname(png) or ".", "curves.json")
    json.dump(curves, open(data, "w"))
    subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__),
                    "plot_curves.py"), data, png] + ([title] if title else []),
                   check=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("config")
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--plot", help="write the curves to this PNG")
    p.add_argument("--cp", type=int, default=1,
                   help="the parallel run adds context parallelism over this "
                   "many ranks (tp=2 + SP inside each)")
    p.add_argument("--cp-attention", default="allgather",
                   choices=["allgather", "ring"],
                   help="context parallelism's attention variant of the "
                   "parallel run (with --cp)")
    p.add_argument("--pp", type=int, default=1,
                   help="the parallel run adds pipeline parallelism over this "
                   "many stages (tp=2 + SP inside each)")
    p.add_argument("--micro-batches", type=int, default=1,
                   help="micro-batches of both runs (1F1B in the pipelined "
                   "one; gradient accumulation on one rank): the global batch "
                   "is the same")
    args = p.parse_args()
    ring = args.cp > 1 and args.cp_attention == "ring"
    other = ((f"pp={args.pp} M={args.micro_batches} " if args.pp > 1 else "") +
             (f"cp={args.cp} " if args.cp > 1 else "") +
             ("ring " if ring else "") + "tp=2 sp")
    what = ((f"pp={args.pp} ({args.micro_batches} micro-batches) + "
             if args.pp > 1 else "") +
            (f"cp={args.cp} " + ("(ring) " if ring else "") + "+ "
             if args.cp > 1 else "") + "tp=2 + SP")

    with tempfile.TemporaryDirectory() as tmp:
        model = import_model(args.config, tmp)
        curves, norms = {}, {}
        for name, tp, sp, cp, pp in (("tp=1", 1, False, 1, 1),
                                     (other, 2, True, args.cp, args.pp)):
            extra = (["--cp-attention", args.cp_attention]
                     if cp > 1 else [])
            records, _ = train(model, tmp, name, tp, sp, args.steps, cp=cp,
                               pp=pp, micro_batches=args.micro_batches,
                               compile_extra=extra)
            curves[name] = [r["loss"] for r in records]
            norms[name] = [r["grad_norm"] for r in records]

    base, sp = curves["tp=1"], curves[other]
    worst = max(e2e.rel_err(a, b) for a, b in zip(sp, base))
    # The global gradient norm (clipped to 1) counts every element once
    # whatever its layout, so it is the same in both runs too.
    worst_norm = max(e2e.rel_err(a, b)
                     for a, b in zip(norms[other], norms["tp=1"]))
    worst = max(worst, worst_norm)
    first, last = base[0], sum(base[-10:]) / 10
    agree = len(base) == len(sp) == args.steps and worst <= args.rtol
    falls = last < 0.75 * first
    print(f"{args.steps} steps: loss {first:.4f} -> {last:.4f} (mean of the "
          f"last 10 steps) on one rank; largest per-step relative difference "
          f"with {what} {worst:.2e} (losses and gradient norms)")
    print(f"curves {'AGREE' if agree else 'DIFFER'}; loss "
          f"{'FALLS' if falls else 'DOES NOT FALL'}")
    if args.plot:
        plot(curves, args.plot, f"GPL-3, tiny GPT-2: one rank vs {what}")
        print(f"wrote {args.plot}")
    sys.exit(0 if agree and falls else 1)


if __name__ == "__main__":
    main()
