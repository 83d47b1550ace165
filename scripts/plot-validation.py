#!/usr/bin/python3
"""Plots a run's training loss (its --log metrics, one line per step) and
its validation loss (the "step N valid loss X ppl Y [K batches]" lines of
its output) to a PNG:
    plot-validation.py METRICS.jsonl STDOUT OUT.png [TITLE]"""
import json
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

train = [json.loads(line) for line in open(sys.argv[1])]
valid = [(int(m.group(1)), float(m.group(2)))
         for m in (re.match(r"step (\d+) valid loss (\S+) ppl", line)
                   for line in open(sys.argv[2])) if m]
fig, ax = plt.subplots(figsize=(7, 4))
ax.plot([r["step"] for r in train], [r["loss"] for r in train],
        label="train (each step's batch)", alpha=0.7)
ax.plot([s for s, _ in valid], [l for _, l in valid], "o-",
        label="validation (held-out paragraphs)")
ax.set_xlabel("step")
ax.set_ylabel("loss (byte-level cross-entropy)")
ax.set_title(sys.argv[4] if len(sys.argv) > 4 else
             "GPL-3 (byte level), tiny GPT-2: train and validation loss")
ax.legend()
ax.grid(alpha=0.3)
fig.tight_layout()
fig.savefig(sys.argv[3], dpi=100)
print(f"wrote {sys.argv[3]}: {len(train)} training steps, "
      f"{len(valid)} validation points")
