"""Plots loss curves {name: [loss per step]} from a JSON file to a PNG:
plot_curves.py CURVES.json OUT.png [TITLE]."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

curves = json.load(open(sys.argv[1]))
fig, ax = plt.subplots(figsize=(7, 4))
for name, losses in curves.items():
    ax.plot(range(1, len(losses) + 1), losses, label=name,
            linestyle="--" if "sp" in name else "-")
ax.set_xlabel("step")
ax.set_ylabel("loss (byte-level cross-entropy)")
ax.set_title(sys.argv[3] if len(sys.argv) > 3 else
             "GPL-3, tiny GPT-2: tp=1 vs tp=2 + sequence parallelism")
ax.legend()
ax.grid(alpha=0.3)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=100)
