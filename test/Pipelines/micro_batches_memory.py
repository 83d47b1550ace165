"""The memory report of a step over M micro-batches against one micro-batch:
per layer the same kept bytes (one micro-batch's activations are live at a
time), and a peak larger by at most the gradient accumulator (the
parameters' bytes in f32) plus a few scalars (the summed loss). Prints one
line per report; exits 1 on a mismatch."""
import json
import sys

base = json.load(open(sys.argv[1]))
ok = True
for path in sys.argv[2:]:
    r = json.load(open(path))
    kept = [l["kept_bytes"] for l in r["layers"]]
    base_kept = [l["kept_bytes"] for l in base["layers"]]
    extra = r["per_rank_peak_bytes"]["peak_live_bytes"] - \
        base["per_rank_peak_bytes"]["peak_live_bytes"]
    params = base["per_rank_peak_bytes"]["parameters"]
    good = kept == base_kept and 0 <= extra - params <= 16
    ok &= good
    print(f"{path.rsplit('/', 1)[-1]}: layers kept {kept} (one micro-batch: "
          f"{base_kept}), peak +{extra} bytes, parameters {params} "
          f"{'OK' if good else 'MISMATCH'}")
sys.exit(0 if ok else 1)
