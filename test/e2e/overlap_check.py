"""Compiles MODEL with FLAGS twice, with and without
sp-overlap-grad-reductions, counts the async buckets of the first, runs
both on RANKS ranks for 4 AdamW steps (with the model's dropout), and
compares the losses, gradient norms and dumped parameters bit for bit.
With micro-batches (sp-micro-batches peels the last one out of the loop
when the reductions overlap) it also counts the async buckets that start
inside the last micro-batch's backward: after its seed
(tfm.backward_begins) and before its last op.

  overlap_check.py WORKDIR MODEL "FLAGS" RANKS
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqpar_e2e import read_safetensors, tool  # noqa: E402

work, model, flags, ranks = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
tag = re.sub(r"[^a-z0-9]+", "-", flags).strip("-")


def run(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build(overlap):
    exe = os.path.join(work, f"{tag}-{overlap}")
    run([tool("sp-compile"), model, "--train", "--optimizer", "adamw", "--lr", "3e-3",
         f"--overlap-grad-reductions={overlap}", "-o", exe] + flags.split())
    ir = subprocess.run(
        [tool("sp-compile"), model, "--train", "--optimizer", "adamw", "--emit",
         "mlir", f"--overlap-grad-reductions={overlap}"] + flags.split(),
        check=True, capture_output=True, text=True).stdout
    log, params = exe + ".jsonl", exe + ".safetensors"
    run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", ranks, exe,
         "--steps", "4", "--log", log, "--dump-params", params],
        stdout=subprocess.DEVNULL)
    return ir, [json.loads(l) for l in open(log)], \
        read_safetensors(params)


ir_on, log_on, p_on = build("true")
ir_off, log_off, p_off = build("false")
coalesced = re.compile(r"dist\.(all_reduce|reduce_scatter)_coalesced .* on @\w+\[\"\w+\"\]( sum)?( async)?")
on = [m.group(3) is not None for m in coalesced.finditer(ir_on)]
if any(m.group(3) for m in coalesced.finditer(ir_off)):
    sys.exit("--overlap-grad-reductions=false left an async bucket")
same = lambda f: all(a[f] == b[f] for a, b in zip(log_on, log_off)) and \
    len(log_on) == len(log_off) == 4
params_same = p_on.keys() == p_off.keys() and all(
    p_on[k][1] == p_off[k][1] for k in p_on)
print(f"{sum(on)} async buckets, {len(on) - sum(on)} without; 4 steps: "
      f"losses {'SAME' if same('loss') else 'DIFFERENT'}, grad_norm "
      f"{'SAME' if same('grad_norm') else 'DIFFERENT'}, parameters "
      f"{'SAME' if params_same else 'DIFFERENT'}")

last = [int(m) for m in re.findall(r"tfm\.in_micro_batch = (\d+)", ir_on)]
if last:
    mb = max(last)
    lines = ir_on.splitlines()
    mine = [i for i, l in enumerate(lines) if f"tfm.in_micro_batch = {mb} " in l]
    seed = next(i for i in mine if "tfm.backward_begins" in lines[i])
    inside = [i for i in range(seed, mine[-1])
              if coalesced.search(lines[i]) and coalesced.search(lines[i]).group(3)]
    print(f"{len(inside)} async buckets start inside micro-batch {mb}'s backward")
