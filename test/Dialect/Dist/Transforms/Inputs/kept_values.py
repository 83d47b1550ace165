"""Lists the forward values a train step's backward reads: what stays live
from the forward to the backward (parameters and the function's arguments
left out, as sp-report's train_step_kept_bytes leaves them out).

    sp-opt ... -mlir-print-debuginfo -mlir-print-local-scope | kept_values.py

Reads the printed module (one op per line, locations inline), takes the
function marked tfm.train_step, and prints one line per kept value in
forward order, `<where>: <op> <type>`, where is `layer N` (from the Hugging
Face location, as sp-report reads it) or `outside`; then one line per layer
`layer N keeps K values` and `recomputed ops: R` (ops marked
tfm.recomputed)."""
import re
import sys

LAYER = re.compile(r'\.(?:h|layers)\.([0-9]+)(?:\.|")')
DEF = re.compile(r'^\s*((?:%[\w.$-]+(?::\d+)?)(?:\s*,\s*%[\w.$-]+)*)\s*=\s*'
                 r'"?([\w.]+)"?')
USE = re.compile(r'%([\w.$-]+)(?:#\d+)?')


def split_types(line):
    """The result types of an op line (what follows the last ' -> ' or
    ' : ', without the location), split at the commas between types."""
    body = line.split(" loc(")[0]
    text = ""
    for sep in (" -> ", " : "):
        if sep in body:
            text = body.rsplit(sep, 1)[1].strip()
            break
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    types, depth, cur = [], 0, ""
    for c in text:
        depth += c in "<(["
        depth -= c in ">)]"
        if c == "," and depth == 0:
            types.append(cur.strip())
            cur = ""
        else:
            cur += c
    return types + [cur.strip()]


def main():
    lines = sys.stdin.read().splitlines()
    start = next(i for i, l in enumerate(lines)
                 if "func.func" in l and "tfm.train_step" in l)
    defs = {}  # name -> (index, op, type, layer)
    forward = True
    kept = {}
    recomputed = 0
    for i in range(start + 1, len(lines)):
        line = lines[i]
        if line.strip().startswith("}"):
            break
        m = LAYER.search(line.split(" loc(", 1)[1] if " loc(" in line else "")
        layer = int(m.group(1)) if m else -1
        if "tfm.backward_begins" in line:
            forward = False
        if "tfm.recomputed" in line:
            recomputed += 1
        d = DEF.match(line)
        names = []
        if d:
            names = [n.strip().lstrip("%").split(":")[0]
                     for n in d.group(1).split(",")]
        op = d.group(2) if d else line.split()[0]
        if forward:
            types = split_types(line)
            for k, n in enumerate(names):
                label = f"{op} #{k}" if len(names) > 1 else op
                defs[n] = (i + k / 100, label,
                           types[k] if k < len(types) else "?", layer)
            continue
        if op == "return" or op == "func.return":
            continue
        operands = line.split(" loc(")[0]
        operands = operands.split("=", 1)[1] if d else operands
        for u in USE.findall(operands.split(" : ")[0]):
            if u in defs and defs[u][1] != "tfm.get_param":
                kept[u] = defs[u]
    per_layer = {}
    for name, (i, op, ty, layer) in sorted(kept.items(), key=lambda x: x[1][0]):
        where = f"layer {layer}" if layer >= 0 else "outside"
        print(f"{where}: {op} {ty}")
        per_layer[layer] = per_layer.get(layer, 0) + 1
    for layer in sorted(per_layer):
        if layer >= 0:
            print(f"layer {layer} keeps {per_layer[layer]} values")
    print(f"recomputed ops: {recomputed}")


if __name__ == "__main__":
    main()
