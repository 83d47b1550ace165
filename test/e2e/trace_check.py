"""Checks the --trace files of a run against each other, the run's metrics
and the compiled step.

usage: trace_check.py STEP.mlir METRICS.jsonl TRACE.rank0.json TRACE.rank1.json ...

- every file is JSON in the Chrome trace event format: metadata, complete
  spans ("ph": "X", ts and dur in microseconds, dur >= 0, pid the rank,
  tid 0) and counter samples ("ph": "C");
- spans nest: any two on the thread are disjoint or one holds the other;
- one step span per step of the metrics, its dur the step's step_time_s;
  every op and collective span lies within a step span;
- each step has one op span per op of the compiled step (STEP.mlir, the
  program's --emit mlir output) that calls the runtime (all but
  tfm.get_param and tfm.hyperparameter, which read a pointer and a host
  scalar), in the program's order, named by the op;
- the collectives' names and axes are the same sequence on every rank, and
  on rank 0 the bytes of the outermost collective spans of a step, per axis,
  are the step's bytes_sent in the metrics;
- the memory counter's largest value on rank 0 is the peak_bytes of the
  metrics' last step (the allocator's measured peak: every change of the
  live bytes is a sample, so equal, not just <=)."""
import collections
import decimal
import json
import re
import sys


def fail(message):
    sys.exit("trace_check: " + message)


step_ir, metrics_path, traces = sys.argv[1], sys.argv[2], sys.argv[3:]
metrics = [json.loads(line) for line in open(metrics_path)]

# The ops of the compiled step that call the runtime, in order.
ops = []
in_step = False
for line in open(step_ir):
    if re.match(r"\s*func\.func @\w+\(.*attributes \{.*tfm\.train_step", line):
        in_step = True
        continue
    if in_step:
        if re.match(r"^  \}$", line):
            break
        m = re.match(r"\s*(?:%[^=]+= )?\"?([a-z_]+\.[a-z_]+|return)\b", line)
        if m and m.group(1) not in ("tfm.get_param", "tfm.hyperparameter"):
            ops.append("func.return" if m.group(1) == "return" else m.group(1))
if not ops or ops[-1] != "func.return":
    fail("no train step found in " + step_ir)

collective_sequences = []
for rank, path in enumerate(traces):
    # Decimal: the times are compared exactly.
    doc = json.load(open(path), parse_float=decimal.Decimal)
    events = doc["traceEvents"]
    spans = [e for e in events if e["ph"] == "X"]
    counters = [e for e in events if e["ph"] == "C"]
    for e in events:
        if e["ph"] not in ("M", "X", "C"):
            fail(f"{path}: an event of phase {e['ph']!r}")
        if e["pid"] != rank or e["tid"] != 0:
            fail(f"{path}: pid {e['pid']} tid {e['tid']} (rank {rank})")
    for e in spans:
        if not (e["dur"] >= 0):
            fail(f"{path}: {e['name']} has dur {e['dur']}")
        e["end"] = e["ts"] + e["dur"]
    # Nesting: sorted by start (the longer first), each span ends before
    # the innermost open span that holds its start.
    stack = []
    for e in sorted(spans, key=lambda e: (e["ts"], -e["dur"])):
        while stack and stack[-1]["end"] <= e["ts"]:
            stack.pop()
        if stack and e["end"] > stack[-1]["end"]:
            fail(f"{path}: {e['name']} at {e['ts']} overlaps "
                 f"{stack[-1]['name']} at {stack[-1]['ts']} without nesting")
        stack.append(e)

    steps = sorted((e for e in spans if e["cat"] == "step"),
                   key=lambda e: e["ts"])
    if [s["args"]["step"] for s in steps] != [m["step"] for m in metrics]:
        fail(f"{path}: step spans {[s['args']['step'] for s in steps]}")
    for s, m in zip(steps, metrics):
        if s["name"] != f"step {m['step']}":
            fail(f"{path}: a step span named {s['name']!r}")
        if rank == 0 and abs(float(s["dur"]) - m["step_time_s"] * 1e6) > 0.01:
            fail(f"{path}: step {m['step']} lasts {s['dur']} us, its "
                 f"step_time_s is {m['step_time_s']}")
    collectives = []
    for s, m in zip(steps, metrics):
        inside = [e for e in spans if e["cat"] in ("op", "collective")
                  and s["ts"] <= e["ts"] and e["end"] <= s["end"]]
        in_order = sorted(inside, key=lambda e: (e["ts"], -e["dur"]))
        names = [e["name"] for e in in_order if e["cat"] == "op"]
        if names != ops:
            counts = collections.Counter(names)
            counts.subtract(collections.Counter(ops))
            fail(f"{path}: step {m['step']} has op spans {len(names)}, the "
                 f"program {len(ops)} ops; differences "
                 f"{ {k: v for k, v in counts.items() if v} }")
        colls = [e for e in in_order if e["cat"] == "collective"]
        collectives += [(e["name"], e["args"]["axis"]) for e in colls]
        if rank == 0:
            sent = collections.Counter()
            for e in colls:
                if not any(o is not e and o["ts"] <= e["ts"] and e["end"] <= o["end"]
                           and (o["ts"], -o["dur"]) < (e["ts"], -e["dur"])
                           for o in colls):
                    sent[e["args"]["axis"]] += e["args"]["bytes"]
            want = {a: b for a, b in m["bytes_sent"].items() if b}
            if dict(sent) != want:
                fail(f"{path}: step {m['step']}: collectives sent {dict(sent)}, "
                     f"the metrics say {want}")
    outside = [e for e in spans if e["cat"] in ("op", "collective") and not any(
        s["ts"] <= e["ts"] and e["end"] <= s["end"] for s in steps)]
    if outside:
        fail(f"{path}: {len(outside)} spans outside every step, e.g. "
             f"{outside[0]['name']}")
    if not collectives:
        fail(f"{path}: no collective")
    collective_sequences.append(collectives)

    live = [e["args"]["live_bytes"] for e in counters]
    if not live:
        fail(f"{path}: no memory counter")
    if rank == 0 and max(live) != metrics[-1]["memory"]["peak_bytes"]:
        fail(f"{path}: the memory counter's largest value is {max(live)}, "
             f"the measured peak {metrics[-1]['memory']['peak_bytes']}")
    print(f"rank {rank}: {len(spans)} spans ({len(steps)} steps, "
          f"{len(ops)} ops and {len(collectives) // len(steps)} collectives "
          f"per step), {len(counters)} memory samples, peak {max(live)} B")

for rank, seq in enumerate(collective_sequences[1:], 1):
    if seq != collective_sequences[0]:
        fail(f"rank {rank}'s collectives differ from rank 0's")
print(f"collectives in the same order on {len(traces)} ranks")
