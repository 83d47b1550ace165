"""How long a sequence context parallelism trains: for the Llama-3-8B shape
(examples/configs/llama-3-8b.json, bf16, batch 1) at tp=8 + SP and cp in
{1, 2, 4, 8} (cp-attention=allgather), the longest sequence whose
activations fit a per-rank budget, found by bisection on what sp-compile's
memory report (--report memory) gives one rank's training step:

  kept   the activations the step keeps for its backward (the report's
         total ir_bytes: the IR accounting, attention scores recomputed)
  peak   the planned activation peak (per_rank_peak_bytes'
         activations_peak_bytes: kept plus the transients live at the peak,
         the whole-sequence K/V gathered over cp among them)

and the bytes each rank sends per layer at that length (--report comm,
layer 0: the cp collectives, all-gathers of K/V and reduce-scatters of
their gradients, and the total with tp's; and, at the same length, the cp
bytes of the ring variant (cp-attention=ring: dist.ring_attention and its
backward pass K/V, and dK/dV, around the ring; the memory columns are the
allgather variant's). In this bf16 program the ring op is legalized to f32
like every op that computes (its kernels are f32), so it moves f32 blocks
where the allgather variant's collectives move bf16: per layer the ring
sends 2 (cp - 1) (k + v + positions) + cp (k + v) in f32, the allgather
variant 3 (cp - 1) (k + v) in bf16. The ratio column is the longest
sequence over cp=1's: with activations linear in the sequence it should be
about cp. Sequences are multiples of 2 x cp x tp (the zigzag split, then
SP). No execution: each probe compiles in a fraction of a second.
"""
import argparse
import json
import os
import subprocess
import tempfile

GB = 1e9


def report(bin_dir, tmp, cfg, seq, tp, cp, kind, attention="allgather"):
    model = os.path.join(tmp, f"m-{seq}.mlir")
    if not os.path.exists(model):
        subprocess.run([os.path.join(bin_dir, "sp-import"), "--hf-config", cfg,
                        "--seq-len", str(seq), "--batch", "1", "--dtype", "bf16",
                        "-o", model], check=True)
    out = os.path.join(tmp, f"r-{seq}-{cp}-{kind}-{attention}.json")
    subprocess.run([os.path.join(bin_dir, "sp-compile"), model, "--train",
                    "--tp", str(tp), "--sp", "--cp", str(cp), "--report", kind,
                    "--cp-attention", attention, "-o", out], check=True)
    return json.load(open(out))


def activations(r):
    return r["total"]["ir_bytes"], r["per_rank_peak_bytes"]["activations_peak_bytes"]


def longest(fits, unit):
    """The largest multiple of `unit` that fits: doubling, then bisection."""
    lo, hi = 0, 1
    while fits(hi * unit):
        lo, hi = hi, hi * 2
    hi -= 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid * unit):
            lo = mid
        else:
            hi = mid - 1
    return lo * unit


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget-gb", type=float, default=80.0,
                    help="per-rank activation budget in GB (1e9 bytes)")
    ap.add_argument("--tp", type=int, default=8)
    ap.add_argument("--cps", type=int, nargs="+", default=[1, 2, 4, 8])
    ap.add_argument("--config", default=os.path.join(root, "examples", "configs",
                                                     "llama-3-8b.json"))
    ap.add_argument("--bin", default=os.path.join(
        os.environ.get("SEQPAR_BUILD_DIR", os.path.join(root, "build")), "bin"))
    args = ap.parse_args()
    budget = args.budget_gb * GB

    print(f"Llama-3-8B shape, bf16, batch 1, tp={args.tp} + SP, "
          f"cp-attention=allgather (and ring's cp bytes); per-rank activation budget "
          f"{args.budget_gb:g} GB")
    print(f"{'cp':>3} {'longest s (kept)':>17} {'ratio':>6} {'longest s (peak)':>17} "
          f"{'ratio':>6} {'kept GB':>8} {'peak GB':>8} {'cp MB/layer':>12} "
          f"{'all MB/layer':>13} {'ring cp MB/layer':>17}")
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for cp in args.cps:
            unit = 2 * cp * args.tp
            cache = {}

            def acts(seq):
                if seq not in cache:
                    cache[seq] = activations(report(args.bin, tmp, args.config,
                                                    seq, args.tp, cp, "memory"))
                return cache[seq]

            s_kept = longest(lambda s: acts(s)[0] <= budget, unit)
            s_peak = longest(lambda s: acts(s)[1] <= budget, unit)
            kept, peak = acts(s_kept) if s_kept else (0, 0)
            comm = report(args.bin, tmp, args.config, s_kept, args.tp, cp, "comm")
            layer = comm["layers"][0]
            def cp_bytes_of(layer):
                return sum(c["bytes_sent"] for c in layer["collectives"]
                           if c["axis"] == "cp")

            cp_bytes = cp_bytes_of(layer)
            ring = report(args.bin, tmp, args.config, s_kept, args.tp, cp,
                          "comm", "ring")
            ring_bytes = cp_bytes_of(ring["layers"][0])
            if base is None:
                base = (s_kept, s_peak)
            print(f"{cp:>3} {s_kept:>17,} {s_kept / base[0]:>6.2f} {s_peak:>17,} "
                  f"{s_peak / base[1]:>6.2f} {kept / GB:>8.2f} {peak / GB:>8.2f} "
                  f"{cp_bytes / 1e6:>12.1f} {layer['bytes_sent'] / 1e6:>13.1f} "
                  f"{ring_bytes / 1e6:>17.1f}")


if __name__ == "__main__":
    main()
