"""Checks the device memory a training program measured (the last line of
its JSONL metrics, rank 0's figures) against what it must be, computed here
from the Hugging Face config (model_type gpt2, gpt_neox or llama) and the
mesh, and against the plan the program carries:

    memory_check.py CONFIG.json METRICS.jsonl --tp T --dp D [--cp C]
                    --zero Z --batch B --seq S [--baseline TINY.jsonl]
                    [--master] [--one-rank]

- arena: exactly the plan's arena_bytes (the arena is one allocation);
- parameters: 4 bytes x this rank's parameter count under Megatron's
  tensor parallelism (hf_params.py: vocabulary-parallel embedding and LM
  head, column- and row-parallel GEMMs, replicated norms);
- optimizer_state: AdamW's two moments of every local element, each
  parameter's divided over dp x cp with --zero 1 (ZeRO-1 shards over the
  data and context axes together);
- with --master (a bf16 / f16 program with --master-weights sharded: f32
  master weights with the optimizer state): parameters 2 bytes per local
  element, optimizer_state 12 bytes (master, exp_avg, exp_avg_sq) per
  element of this rank's slice: 2 + 12/(dp x cp) bytes per parameter at
  --zero 1, 2 + 12 without it;
- tokens: input ids and labels, int64, of this replica's batch rows (and,
  with --cp, this rank's part of the sequence);
- workspace: the most workspace bytes any kernel call needed, measured by
  the runtime ("workspace_used_bytes"), equal to the plan's largest
  workspace ("workspace_bytes"): the kernels' workspaces (fused chunks,
  coalesced buckets, pack buffers) are planned inside the arena, so there
  is no device-memory category for them (with --one-rank, a program
  without collectives: none planned, none used);
- the other categories present, and the total peak at least the largest
  category and at most their sum;
- plan against measurement: each category of the "planned" object equals
  both its measured peak and the figure above; the planned peak is their
  sum; and the measured peak equals the planned peak plus the measured peak
  of the categories the plan does not cover ("unplanned_peak_bytes": the
  largest sum of their live bytes at one moment: the backend's scratch);
- with --baseline (the tiny model's metrics on the same mesh): the peak
  resident set (getrusage) at least the device peak (on the CPU backend
  device memory is host memory, zeroed so resident) and at most the device
  peak + what the tiny program's process holds besides its device memory
  (binary, libraries, MPI's shared-memory transport: measured, not assumed)
  + a slack for host memory that grows with the model: Params::initialize's
  host copy of one parameter shard (the largest), MPI's temporaries for a
  reduction of one workspace bucket (at most the workspace used), and 2 MiB
  for the heap's and pages' rounding.

Prints one line per check ("ok" or "MISMATCH") and exits 1 on a mismatch."""
import argparse
import json
import sys

from hf_params import local_params

CATEGORIES = ["arena", "parameters", "optimizer_state", "tokens", "scratch"]


def last_memory(path):
    with open(path) as f:
        lines = [l for l in f if l.strip()]
    record = json.loads(lines[-1])
    return record["memory"], record["arena_bytes"], record["workspace_bytes"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("metrics")
    ap.add_argument("--tp", type=int, required=True)
    ap.add_argument("--dp", type=int, default=1)
    ap.add_argument("--cp", type=int, default=1)
    ap.add_argument("--zero", type=int, default=0)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--master", action="store_true")
    ap.add_argument("--one-rank", action="store_true")
    args = ap.parse_args()
    with open(args.config) as f:
        config = json.load(f)
    memory, arena_bytes, workspace_bytes = last_memory(args.metrics)
    peaks = memory["by_category"]
    sizes = local_params(config, args.tp)
    state_div = args.dp * args.cp if args.zero else 1
    expected = {
        "arena": arena_bytes,
        "parameters": (2 if args.master else 4) * sum(sizes),
        "optimizer_state": (3 if args.master else 2) * 4 *
        sum(n // state_div for n in sizes),
        "tokens": 2 * 8 * args.batch * args.seq // (args.dp * args.cp),
    }
    ok = True

    def check(what, good, detail):
        nonlocal ok
        ok = ok and good
        print(f"{what}: {'ok' if good else 'MISMATCH'} ({detail})")

    check("categories", sorted(peaks) == sorted(CATEGORIES),
          ", ".join(f"{c} {peaks.get(c)}" for c in CATEGORIES))
    for c, want in expected.items():
        check(c, peaks.get(c) == want, f"measured {peaks.get(c)}, want {want}")
    used = memory["workspace_used_bytes"]
    check("workspace",
          used == workspace_bytes and (used == 0 if args.one_rank else used > 0),
          f"measured {used} bytes used, planned {workspace_bytes}, by op "
          f"{memory['workspace_used_by_op']}")
    total = memory["peak_bytes"]
    check("total peak", max(peaks.values()) <= total <= sum(peaks.values()),
          f"{total} between {max(peaks.values())} and {sum(peaks.values())}")
    if args.baseline:
        base, _, _ = last_memory(args.baseline)
        held = base["max_rss_bytes"] - base["peak_bytes"]
        slack = 4 * max(sizes) + used + (2 << 20)
        rss = memory["max_rss_bytes"]
        check("rss >= device peak", rss >= total,
              f"peak resident {rss}, device peak {total}")
        check("rss <= device peak + baseline + slack",
              rss <= total + held + slack,
              f"peak resident {rss} <= {total} + {held} + {slack}; "
              f"over the device peak by {rss - total}")
    planned = memory["planned"]["by_category"]
    check("planned categories", sorted(planned) == sorted(expected),
          ", ".join(sorted(planned)))
    for c, want in expected.items():
        check(f"planned {c}", planned.get(c) == want == peaks.get(c),
              f"planned {planned.get(c)}, measured {peaks.get(c)}, "
              f"want {want}")
    planned_peak = memory["planned"]["peak_bytes"]
    check("planned peak", planned_peak == sum(planned.values()),
          f"{planned_peak} = {' + '.join(str(v) for v in planned.values())}")
    unplanned = [c for c in peaks if c not in planned]
    extra = memory["unplanned_peak_bytes"]
    check("unplanned peak",
          max(peaks[c] for c in unplanned) <= extra
          <= sum(peaks[c] for c in unplanned),
          f"{extra} of {', '.join(unplanned)} between their largest peak "
          f"and their sum")
    check("measured peak = planned peak + unplanned peak",
          total == planned_peak + extra,
          f"{total} = {planned_peak} + {extra} "
          f"({', '.join(f'{c} {peaks[c]}' for c in unplanned)})")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
