"""reference.py --precision: what can be checked of the mixed-precision
reference without seqpar running bf16 or fp16.

Run with a Python that has torch (/usr/bin/python3). For one config
(dropout forced to 0), scrambled parameters (reference.py's own init,
seed 3, scramble 0.3) and fixed tokens, through the command line:
  fp32   the loss of the default and of --precision fp32 (printed to 12
         digits, for the lit test to compare with the figure the reference
         printed before --precision existed);
  bf16   the loss differs from fp32's by more than float32's rounding (2^-24
         relative: the rounding happens) and by at most 2^-8 relative, one
         bf16 rounding (8-bit significand): the op results' rounding errors
         are independent and mostly cancel in the mean over tokens;
  fp16   the same with 2^-11 (11-bit significand), and closer to fp32 than
         bf16 is;
and for the gradients (computed with the reference module, stored as
float32 like seqpar's --dump-dtype f32, compared by reference.py --grads):
  self   the bf16 reference's own gradients pass against it at --rtol 1e-6;
  gross  the fp32 gradients are caught (exit 1) against the bf16 reference
         at --rtol 1e-3;
  scale  fp16 with --loss-scale 1024 equals --loss-scale 4096 to 1e-6 (a
         power-of-two scale commutes with every rounding while no cotangent
         is subnormal or overflows: the float64 values are identical, the
         rest is float32 storage) and --loss-scale 1 to 2e-3 (at scale 1
         the smallest cotangents, ~1e-5 here, fall below fp16's smallest
         normal 2^-14 and lose bits: what loss scaling is for);
  limits --loss-scale without a low precision is a bad input (exit 2).
Prints one line per check and a summary; exits 1 on any failure."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
import reference as ref  # noqa: E402
import seqpar_e2e as e2e  # noqa: E402

REFERENCE = os.path.join(os.path.dirname(__file__), "reference.py")
BOUNDS = {"bf16": 2.0 ** -8, "fp16": 2.0 ** -11}
FLOOR = 2.0 ** -24


def cli(*args):
    p = subprocess.run([sys.executable, REFERENCE, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def make_inputs(config, tmp, batch=2, seq=16):
    """Scrambled float32 parameters and fixed tokens (some labels -100):
    returns (model, params path, outputs path)."""
    model = ref.load_config(config)
    params = os.path.join(tmp, "params.safetensors")
    ref.write_safetensors(params, ref.init_params(model, 3, 0.3))
    g = np.random.default_rng(5)
    ids = g.integers(0, model.vocab, (batch, seq))
    labels = g.integers(0, model.vocab, (batch, seq))
    labels[0, :3] = -100
    outputs = os.path.join(tmp, "outputs.safetensors")
    ref.write_safetensors(outputs, {"input_ids": ids, "labels": labels})
    return model, params, outputs


def grads_file(model, params, outputs, precision, scale, path):
    """The reference's gradients at PRECISION and loss SCALE, as float32."""
    model.ops = ref.Ops(precision)
    p = ref.load_params(model, params)
    t = ref.load_ids(outputs)
    _, g = ref.reference_grads(model, p, t["input_ids"], t["labels"], scale)
    ref.write_safetensors(path, {n: v.numpy().astype(np.float32) for n, v in g.items()})
    return path


def max_err(out):
    lines = [l for l in out.splitlines() if l.startswith("max relative gradient error ")]
    return float(lines[-1].split()[4]) if lines else float("inf")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    a = ap.parse_args()
    name = os.path.basename(a.config).replace(".json", "")
    ok = True

    def report(what, good):
        nonlocal ok
        ok &= good
        print(f"{name} {what} {'OK' if good else 'MISMATCH'}")

    with tempfile.TemporaryDirectory() as tmp:
        config = e2e.without_dropout(a.config, tmp)
        model, params, outputs = make_inputs(config, tmp)
        base = ["--config", config, "--params", params]

        losses = {}
        for flags in ([], ["--precision", "fp32"], ["--precision", "bf16"], ["--precision", "fp16"]):
            rc, out = cli(*base, "--ids-from", outputs, "--dump-loss", *flags)
            if rc != 0:
                report(f"loss {' '.join(flags) or 'default'}: reference.py failed: {out.strip()}", False)
                return 1
            losses[flags[1] if flags else "default"] = float(out)
            if flags and flags[1] != "fp32":
                continue
            print(f"{name} loss {' '.join(flags) or '(default)'} {out.strip()}")
        l32 = losses["fp32"]
        report(f"fp32 equals the default: {losses['default'] == l32}", losses["default"] == l32)
        rel = {p: abs(losses[p] - l32) / l32 for p in BOUNDS}
        for p, bound in BOUNDS.items():
            report(f"{p} loss {losses[p]:.9g} relative to fp32 {rel[p]:.2e} in ({FLOOR:.1e}, {bound:.1e}]",
                   FLOOR < rel[p] <= bound)
        report(f"fp16 closer to fp32 than bf16: {rel['fp16']:.2e} < {rel['bf16']:.2e}",
               rel["fp16"] < rel["bf16"])

        g = {k: grads_file(model, params, outputs, p, s, os.path.join(tmp, f"g-{k}.safetensors"))
             for k, p, s in (("fp32", "fp32", 1.0), ("bf16", "bf16", 1.0),
                             ("fp16-1", "fp16", 1.0), ("fp16-4096", "fp16", 4096.0))}

        def compare(grads, precision, rtol, scale=None, expect=0):
            flags = ["--grads", grads, "--outputs", outputs, "--precision", precision, "--rtol", str(rtol)]
            if scale:
                flags += ["--loss-scale", str(scale)]
            rc, out = cli(*base, *flags)
            return rc == expect, max_err(out), out

        good, e, out = compare(g["bf16"], "bf16", 1e-6)
        report(f"bf16 reference gradients against --precision bf16: max rel err {e:.1e} <= 1e-6", good)
        good, e, out = compare(g["fp32"], "bf16", 1e-3, expect=1)
        report(f"fp32 gradients against --precision bf16 --rtol 1e-3: max rel err {e:.1e}, "
               f"{'caught' if good else 'NOT caught'}", good and e > 1e-3)
        good, e, _ = compare(g["fp16-4096"], "fp16", 1e-6, scale=1024)
        report(f"fp16 --loss-scale 4096 against 1024: max rel err {e:.1e} <= 1e-6", good)
        good, e, _ = compare(g["fp16-1"], "fp16", 2e-3, scale=1024)
        report(f"fp16 --loss-scale 1 against 1024: max rel err {e:.1e} <= 2e-3", good)

        rc, out = cli(*base, "--ids-from", outputs, "--loss-scale", "8")
        report(f"--loss-scale in fp32 rejected: {out.strip()}", rc == 2)
    print("mixed-precision reference checks pass" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
