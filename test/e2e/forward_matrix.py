"""The loss of every partitioning equals the single-rank loss.

For one model config: tp in {1, 2, 4} x sequence parallelism on/off x dp in
{1, 2} (at most 4 ranks), same seed (so the same initial weights, the same
tokens and the same dropout masks, all keyed by global index). Prints one
line per configuration and exits 1 if any relative error exceeds 1e-5."""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--seq", type=int, default=16)
p.add_argument("--batch", type=int, default=2)
p.add_argument("--rtol", type=float, default=1e-5)
args = p.parse_args()

configs = [(1, 1, False), (2, 1, False), (2, 1, True), (4, 1, False),
           (4, 1, True), (1, 2, False), (2, 2, False), (2, 2, True)]
name = os.path.basename(args.config).replace(".json", "")
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model.mlir")
    e2e.import_model(args.config, model, args.seq, args.batch)
    base = None
    ok = True
    for tp, dp, sp in configs:
        prog = os.path.join(tmp, f"prog-{tp}-{dp}-{int(sp)}")
        out = prog + ".outputs.safetensors"
        e2e.compile_model(model, prog, tp, dp, sp)
        e2e.launch(prog, tp * dp, "--steps", "2", "--seed", "7",
                   "--dump-outputs", out)
        loss = e2e.dumped_loss(out)
        if base is None:
            base = loss
        err = e2e.rel_err(loss, base)
        good = err <= args.rtol
        ok &= good
        print(f"{name} tp={tp} dp={dp} sp={'on' if sp else 'off'}: "
              f"loss {loss:.7f} rel err {err:.1e} {'OK' if good else 'MISMATCH'}")
print("all configurations match" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
