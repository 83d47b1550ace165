"""For pairs (planned IR, lowered IR without a plan): the arena
sp-plan-buffers planned for @train_step against its max-live lower bound and
against the arena convert-sp-to-runtime lays out without a plan (one buffer
per value)."""
import re
import sys


def report(planned_path, unplanned_path):
    step = open(planned_path).read()
    step = step[step.index("func.func @train_step"):]
    planned = int(re.search(r"dist.arena_bytes = (\d+)", step).group(1))
    max_live = int(re.search(r"dist.arena_max_live = (\d+)", step).group(1))
    lowered = open(unplanned_path).read()
    unplanned = int(re.search(r"arena_bytes\\22: ?(\d+)", lowered).group(1))
    ratio = planned / max_live
    print(f"planned {planned} max_live {max_live} unplanned {unplanned} "
          f"ratio {ratio:.3f} reuse {unplanned / planned:.2f}")
    print("within 5% of the lower bound" if ratio <= 1.05 else "MORE THAN 5%",
          end=", ")
    print("reuses memory" if planned < unplanned else "NO REUSE")


for i in range(1, len(sys.argv), 2):
    report(sys.argv[i], sys.argv[i + 1])
