"""Initial parameters are the draws of the original host loop, bit for bit
(issue 30: drawn on every core, or on the GPU, with the same values).

The original runtime drew element e of parameter p as
  float(std) * float(sqrt(-2 log u1) cos(2 pi u2)),
u1 = (w0 + 1) 2^-32, u2 = w1 2^-32, (w0, w1) the first two words of
Philox4x32-10 with counter (global index of e, FNV-1a hash of p's name) and
key (seed), and norms' weights and biases 1 and 0. This script is that loop,
independently written: Philox in numpy's uint64 arithmetic, log and cos from
Python's math module (the C library's, as the original called them), the
products in float32.

  init_values_check.py MODEL.mlir DUMP.safetensors --seed S

MODEL.mlir is sp-import's output (each tfm.param's name, shape and init:
'normal(STD)', 'ones', 'zeros'); DUMP is a program's --dump-params with
--dump-dtype f32 taken before any update. Prints the number of parameters
and elements compared; exits 1 naming the first parameter that differs."""
import argparse
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e  # noqa: E402

MASK = np.uint64(0xFFFFFFFF)


def fnv1a(name):
    h = 0xCBF29CE484222325
    for b in name.encode():
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def philox_words(seed, stream, index):
    """Words 0 and 1 of Philox4x32-10 for counters (index, stream)."""
    idx = index.astype(np.uint64)
    c0, c1 = idx & MASK, idx >> np.uint64(32)
    c2 = np.full_like(idx, stream & 0xFFFFFFFF)
    c3 = np.full_like(idx, stream >> 32)
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    for r in range(10):
        if r:
            k0 = (k0 + 0x9E3779B9) & 0xFFFFFFFF
            k1 = (k1 + 0xBB67AE85) & 0xFFFFFFFF
        p0 = np.uint64(0xD2511F53) * c0
        p1 = np.uint64(0xCD9E8D57) * c2
        n0 = (p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0)
        n2 = (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1)
        c0, c1, c2, c3 = n0, p1 & MASK, n2, p0 & MASK
    return c0, c1


def normals(seed, stream, n):
    w0, w1 = philox_words(seed, stream, np.arange(n, dtype=np.uint64))
    two_pi = 6.283185307179586476925286766559
    out = np.empty(n, dtype=np.float32)
    for i, (a, b) in enumerate(zip(w0.tolist(), w1.tolist())):
        u1 = (a + 1.0) * (1.0 / 4294967296.0)
        u2 = b * (1.0 / 4294967296.0)
        out[i] = math.sqrt(-2.0 * math.log(u1)) * math.cos(two_pi * u2)
    return out


def bf16_round(x):
    """float32 values rounded to bf16 (nearest even), widened back."""
    u = x.view(np.uint32).astype(np.uint64)
    r = (u + np.uint64(0x7FFF) + ((u >> np.uint64(16)) & np.uint64(1))) & np.uint64(0xFFFF0000)
    return r.astype(np.uint32).view(np.float32)


def params_of(model):
    pat = re.compile(r"tfm\.param @(\S+) : tensor<([0-9x]+)x[a-z0-9]+> "
                     r"init (normal\(([^)]*)\)|ones|zeros)")
    out = []
    for line in open(model):
        m = pat.search(line)
        if m:
            shape = [int(d) for d in m.group(2).split("x")]
            std = float(m.group(4)) if m.group(4) else None
            out.append((m.group(1), shape, m.group(3), std))
    return out


def read_f32(path):
    out = {}
    for name, (shape, values) in e2e.read_safetensors(path).items():
        out[name] = np.array(values, dtype=np.float32)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("dump")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--stored", choices=["f32", "bf16"], default="f32",
                    help="the parameters' stored type: bf16 compares the "
                    "dump with the draws rounded to bf16 (nearest even)")
    a = ap.parse_args()
    dump = read_f32(a.dump)
    params = params_of(a.model)
    if not params or len(params) != len(dump):
        sys.exit(f"{len(params)} parameters in {a.model}, {len(dump)} in {a.dump}")
    elements = 0
    for name, shape, init, std in params:
        n = int(np.prod(shape))
        if init == "ones":
            want = np.ones(n, dtype=np.float32)
        elif init == "zeros":
            want = np.zeros(n, dtype=np.float32)
        else:
            want = np.float32(std) * normals(a.seed, fnv1a(name), n)
        if a.stored == "bf16":
            want = bf16_round(want)
        got = dump[name]
        if got.tobytes() != want.tobytes():
            bad = int(np.flatnonzero(got.view(np.uint32) != want.view(np.uint32))[0])
            print(f"FAIL {name}: element {bad} is {got[bad]!r}, the host loop drew {want[bad]!r}")
            return 1
        elements += n
    print(f"{len(params)} parameters, {elements} elements: bit for bit the host loop's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
