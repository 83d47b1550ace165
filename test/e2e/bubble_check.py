"""Checks the measured pipeline bubble of a run: its metrics log (every step
has pipeline_wait_s >= 0 and 0 <= pipeline_bubble < 1) and its summary line
(every fraction in [0, 1)). Prints "bubble fields OK" or what is wrong; no
timing thresholds.

usage: bubble_check.py LOG.jsonl STDOUT.txt"""
import json
import re
import sys

log, out = sys.argv[1:3]
problems = []
for line in open(log):
    step = json.loads(line)
    wait, bubble = step.get("pipeline_wait_s"), step.get("pipeline_bubble")
    if wait is None or bubble is None:
        problems.append(f"step {step['step']}: no pipeline_wait_s / pipeline_bubble")
    elif not (wait >= 0 and 0 <= bubble < 1):
        problems.append(f"step {step['step']}: wait {wait}, bubble {bubble}")
summary = [l for l in open(out) if l.startswith("pipeline bubble:")]
if len(summary) != 1:
    problems.append(f"{len(summary)} summary lines")
else:
    m = re.match(r"pipeline bubble: measured ([0-9.]+) \(mean of \d+ ranks; "
                 r"min ([0-9.]+), max ([0-9.]+);", summary[0])
    if not m:
        problems.append("summary: " + summary[0])
    elif not all(0 <= float(x) < 1 for x in m.groups()):
        problems.append("summary fractions: " + summary[0])
print("bubble fields OK" if not problems else "\n".join(problems))
