#!/usr/bin/python3
"""Counts the tfm.convert ops of each function of a compiled program's IR
(train_step: one training step; eval_step: one evaluation) and the bytes
they move (each element read in its input type and written in its result
type); converts inside a micro-batch loop count once.

usage: sp-compile ... --emit mlir -o step.mlir; bench/converts.py step.mlir
"""
import re
import sys

BYTES = {"f32": 4, "bf16": 2, "f16": 2, "f64": 8, "i64": 8}
CONVERT = re.compile(
    r"tfm\.convert .*: tensor<([0-9x]+)x([a-z0-9]+)[,>].* -> "
    r"tensor<[0-9x]+x([a-z0-9]+)[,>]")


def main(path):
    counts = {}  # function -> [converts, bytes]
    function = None
    with open(path) as f:
        for line in f:
            fn = re.search(r"func\.func @([A-Za-z0-9_]+)", line)
            if fn:
                function = fn.group(1)
                counts.setdefault(function, [0, 0])
            m = CONVERT.search(line)
            if not m:
                continue
            n = 1
            for d in m.group(1).split("x"):
                n *= int(d)
            c = counts.setdefault(function, [0, 0])
            c[0] += 1
            c[1] += n * (BYTES[m.group(2)] + BYTES[m.group(3)])
    for function, (count, moved) in counts.items():
        print(f"{function}: {count} converts moving {moved / 1e9:.2f} GB")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
