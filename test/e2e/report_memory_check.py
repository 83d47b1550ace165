"""Checks sp-compile --report memory's per_rank_peak_bytes for a training
step against figures computed here, not read from the report:

    report_memory_check.py CONFIG.json REPORT.json STEP.mlir --tp T [--dp D]
                           [--zero Z] --batch B --seq S

STEP.mlir is the same program printed in MLIR's generic form after
sp-plan-buffers (sp-opt --sp-train-pipeline=... --mlir-print-op-generic).

- parameters: 4 bytes x this rank's parameter count (hf_params.py, from the
  Hugging Face config);
- optimizer_state: AdamW's two fp32 moments of every local element, each
  parameter's divided over dp with --zero 1;
- tokens: input ids and labels, int64, of this replica's batch rows;
- activations / gradients: the arena liveness of @train_step recomputed
  from STEP.mlir (each result live from its op to its last use, parameter
  reads excluded, a result of an in-place op - all_reduce, scale, the
  coalesced all-reduce - sharing the bytes of the operand that dies there),
  at the first op where the most bytes are live, split into values defined
  before the tfm.backward_begins op and after it; their sum is the
  function's dist.arena_max_live; activations_peak_bytes: the most bytes
  of forward values live at any op;
- arena_bytes: the function's dist.arena_bytes; total: parameters +
  optimizer_state + tokens + arena_bytes.

Prints one line per check ("ok" or "MISMATCH") and exits 1 on a mismatch."""
import argparse
import json
import re
import sys

from hf_params import local_params

ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i64": 8, "i32": 4, "i1": 1}


def split_top(text):
    """Splits at commas outside <>, () and []."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def tensor_bytes(t):
    m = re.match(r"tensor<([^,>]*)", t)
    dims = m.group(1).split("x")
    n = 1
    for d in dims[:-1]:
        n *= int(d)
    return n * ELEMENT_BYTES[dims[-1]]


OP = re.compile(r'^\s*(?:(%[\w]+)(?::(\d+))? = )?"([\w.]+)"\(([^)]*)\)')


def liveness(path):
    """(ops, values, backward index, arena bytes, max live) of @train_step."""
    text = open(path).read()
    body = text[text.index('sym_name = "train_step"'):]
    ops, values = [], []
    index_of = {}
    backward = -1
    for line in body[body.index("^bb0"):].splitlines()[1:]:
        m = OP.match(line)
        if not m:
            continue
        name, count, op, operands = m.groups()
        i = len(ops)
        if "tfm.backward_begins" in line and backward < 0:
            backward = i
        uses = re.findall(r"%[\w]+(?:#\d+)?", operands)
        ops.append((op, uses))
        if op == "func.return":
            break
        # Parameters have their own buffers; hyperparameters are host
        # scalars (f64) the runtime passes to the step.
        if not name or op in ("tfm.get_param", "tfm.hyperparameter"):
            continue
        results = split_top(line[line.rindex("->") + 2:].strip().strip("()"))
        keys = ([f"{name}#{k}" for k in range(int(count))] if count
                else [name])
        for key, t in zip(keys, results):
            index_of[key] = len(values)
            values.append({"key": key, "op": op, "start": i, "end": i,
                           "bytes": tensor_bytes(t), "uses": uses})
    for i, (op, uses) in enumerate(ops):
        for u in uses:
            if u in index_of:
                v = values[index_of[u]]
                v["end"] = max(v["end"], i)
            elif u + "#0" in index_of and "#" not in u:
                v = values[index_of[u + "#0"]]
                v["end"] = max(v["end"], i)
    arena = int(re.search(r"dist.arena_bytes = (\d+)", body).group(1))
    max_live = int(re.search(r"dist.arena_max_live = (\d+)", body).group(1))
    return ops, values, index_of, backward, arena, max_live


def in_place_operand(v, values, index_of, result_number):
    if v["op"] in ("dist.all_reduce", "tfm.scale"):
        k = 0
    elif v["op"] == "dist.all_reduce_coalesced":
        k = result_number
    else:
        return None
    u = v["uses"][k]
    if u not in index_of:
        return None
    o = values[index_of[u]]
    return o if o["bytes"] == v["bytes"] else None


def buffers(values, index_of):
    """Values grouped as sp-plan-buffers groups them (in-place take-overs)."""
    groups, group_of, taken = [], {}, set()
    for v in values:
        number = int(v["key"].split("#")[1]) if "#" in v["key"] else 0
        o = in_place_operand(v, values, index_of, number)
        if (o is not None and o["end"] == v["start"] and o["key"] in group_of
                and o["key"] not in taken):
            taken.add(o["key"])
            g = groups[group_of[o["key"]]]
            g["end"] = max(g["end"], v["end"])
            group_of[v["key"]] = group_of[o["key"]]
            continue
        group_of[v["key"]] = len(groups)
        groups.append(dict(v))
    return groups


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("report")
    ap.add_argument("step")
    ap.add_argument("--tp", type=int, required=True)
    ap.add_argument("--dp", type=int, default=1)
    ap.add_argument("--zero", type=int, default=0)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--seq", type=int, required=True)
    args = ap.parse_args()
    config = json.load(open(args.config))
    got = json.load(open(args.report))["per_rank_peak_bytes"]

    sizes = local_params(config, args.tp)
    state_div = args.dp if args.zero else 1
    ops, values, index_of, backward, arena, max_live = liveness(args.step)
    groups = buffers(values, index_of)
    live = [0] * len(ops)
    for g in groups:
        for i in range(g["start"], g["end"] + 1):
            live[i] += g["bytes"]
    peak = max(live)
    at = live.index(peak)
    forward = sum(g["bytes"] for g in groups
                  if g["start"] <= at <= g["end"] and g["start"] < backward)
    forward_live = [0] * len(ops)
    for g in groups:
        if g["start"] < backward:
            for i in range(g["start"], g["end"] + 1):
                forward_live[i] += g["bytes"]
    want = {
        "function": "train_step",
        "arena_planned_by": "sp-plan-buffers",
        "parameters": 4 * sum(sizes),
        "optimizer_state": 2 * 4 * sum(n // state_div for n in sizes),
        "tokens": 2 * 8 * args.batch * args.seq // args.dp,
        "activations": forward,
        "activations_peak_bytes": max(forward_live),
        "gradients": peak - forward,
        "workspaces": 0,
        "peak_live_bytes": peak,
        "arena_bytes": arena,
    }
    want["total"] = (want["parameters"] + want["optimizer_state"] +
                     want["tokens"] + arena)
    ok = True

    def check(what, good, detail):
        nonlocal ok
        ok = ok and good
        print(f"{what}: {'ok' if good else 'MISMATCH'} ({detail})")

    for key, value in want.items():
        check(key, got.get(key) == value, f"report {got.get(key)}, want {value}")
    check("peak = the plan's max live", peak == max_live,
          f"{peak} at op {at} ({ops[at][0]}), dist.arena_max_live {max_live}")
    check("arena >= peak", arena >= peak, f"{arena} >= {peak}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
