"""The memory report of a step over M micro-batches against one micro-batch:
per layer the same kept bytes (one micro-batch's activations are live at a
time), and a peak larger by at most the gradient accumulator (the
parameters' bytes in f32) plus a few scalars (the summed loss); with
--at-most, larger by at most that (when the gradient buckets' reductions
overlap the backward, their workspaces move the peak). Prints one line per
report; exits 1 on a mismatch."""
import json
import sys

args = [a for a in sys.argv[1:] if a != "--at-most"]
at_most = len(args) < len(sys.argv) - 1
base = json.load(open(args[0]))
ok = True
for path in args[1:]:
    r = json.load(open(path))
    kept = [l["kept_bytes"] for l in r["layers"]]
    base_kept = [l["kept_bytes"] for l in base["layers"]]
    extra = r["per_rank_peak_bytes"]["peak_live_bytes"] - \
        base["per_rank_peak_bytes"]["peak_live_bytes"]
    params = base["per_rank_peak_bytes"]["parameters"]
    good = kept == base_kept and (0 <= extra <= params + 16 if at_most
                                  else 0 <= extra - params <= 16)
    ok &= good
    print(f"{path.rsplit('/', 1)[-1]}: layers kept {kept} (one micro-batch: "
          f"{base_kept}), peak +{extra} bytes, parameters {params} "
          f"{'OK' if good else 'MISMATCH'}")
sys.exit(0 if ok else 1)
