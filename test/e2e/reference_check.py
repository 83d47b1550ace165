"""seqpar's loss equals an independent PyTorch implementation's.

For one config (dropout forced to 0): the reference writes scrambled
parameters (reference.py --init --scramble), a seqpar program compiled for
each of a few partitionings loads them (--init-from), runs a step and dumps
its parameters and outputs; the reference recomputes the loss in float64
from the dumped parameters and tokens and compares."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

TORCH_PYTHON = "/usr/bin/python3"
REFERENCE = os.path.join(os.path.dirname(__file__), "reference.py")

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--rtol", type=float, default=1e-6)
p.add_argument("--batch", type=int, default=2)
p.add_argument("--configs", nargs="+", metavar="TP,DP,SP",
               help="the partitionings to run, e.g. 1,1,0 2,1,1 "
               "(default: those below)")
args = p.parse_args()

configs = [(1, 1, False), (2, 1, True), (4, 1, False), (2, 2, True)]
if args.configs:
    configs = [(int(tp), int(dp), sp == "1")
               for tp, dp, sp in (c.split(",") for c in args.configs)]
name = os.path.basename(args.config).replace(".json", "")
with tempfile.TemporaryDirectory() as tmp:
    config = e2e.without_dropout(args.config, tmp)
    init = os.path.join(tmp, "init.safetensors")
    e2e.run([TORCH_PYTHON, REFERENCE, "--config", config, "--init", init,
             "--seed", "3", "--scramble", "0.3"])
    model = os.path.join(tmp, "model.mlir")
    e2e.import_model(config, model, 16, args.batch)
    ok = True
    for tp, dp, sp in configs:
        prog = os.path.join(tmp, f"prog-{tp}-{dp}-{int(sp)}")
        e2e.compile_model(model, prog, tp, dp, sp)
        params, outputs = prog + ".params.safetensors", prog + ".out.safetensors"
        e2e.launch(prog, tp * dp, "--init-from", init, "--seed", "11",
                   "--dump-params", params, "--dump-outputs", outputs)
        r = e2e.run([TORCH_PYTHON, REFERENCE, "--config", config, "--params",
                     params, "--outputs", outputs, "--rtol", str(args.rtol)],
                    check=False)
        good = r.returncode == 0
        ok &= good
        print(f"{name} tp={tp} dp={dp} sp={'on' if sp else 'off'}: "
              f"{r.stdout.strip()} {'OK' if good else 'MISMATCH'}")
        if not good:
            print(r.stderr)
    # The dumped parameters are the loaded ones, bit for bit.
    dumped = e2e.read_safetensors(params)
    loaded = e2e.read_safetensors(init)
    same = dumped == loaded
    ok &= same
    print("dumped parameters equal the loaded ones" if same
          else "dumped parameters DIFFER from the loaded ones")
print("all configurations match the reference" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
