"""Checks the memory report of a pipelined step (sp-compile --pp P) against
the same model without stages: one entry per stage, the stages' parameter
bytes and FLOPs summing to the unstaged step's (an untied model holds each
parameter on one stage), the top level being the stage with the largest
total, and under 1F1B the first stage's activation peak growing with the
micro-batches in flight (at most P of them) while the last stage's stays
one micro-batch's."""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


one, staged, staged_m = (load(p) for p in sys.argv[1:4])
stages = int(sys.argv[4])
ok = True


def check(cond, what):
    global ok
    print(("OK " if cond else "FAIL ") + what)
    ok &= cond


s1, sm = staged["stages"], staged_m["stages"]
check(len(s1) == stages and [s["stage"] for s in s1] == list(range(stages)),
      f"{len(s1)} stages")
params = sum(s["per_rank_peak_bytes"]["parameters"] for s in s1)
check(params == one["per_rank_peak_bytes"]["parameters"],
      f"parameters {params} = unstaged {one['per_rank_peak_bytes']['parameters']}")
flops = sum(s["flops"]["step"] for s in s1)
check(flops == one["flops"]["step"], f"step FLOPs {flops} = unstaged {one['flops']['step']}")
worst = max(s1, key=lambda s: s["per_rank_peak_bytes"]["total"])
check(staged["per_rank_peak_bytes"] == worst["per_rank_peak_bytes"],
      f"top level = stage {worst['stage']}")
first1 = s1[0]["per_rank_peak_bytes"]["activations_peak_bytes"]
firstm = sm[0]["per_rank_peak_bytes"]["activations_peak_bytes"]
check(first1 < firstm <= stages * first1,
      f"first stage activations {first1} -> {firstm} (at most {stages} micro-batches)")
last1 = s1[-1]["per_rank_peak_bytes"]["activations_peak_bytes"]
lastm = sm[-1]["per_rank_peak_bytes"]["activations_peak_bytes"]
check(last1 <= lastm <= last1 + 16,
      f"last stage activations {last1} -> {lastm} (one micro-batch)")
sys.exit(0 if ok else 1)
