#!/usr/bin/env bash
# tfm-fuse-elementwise (the default: each dropout fused with the residual add
# it feeds, one kernel, tfm.dropout_add) against the unfused program
# (--fuse-elementwise=false), side by side: a 4-layer GPT-2 with h = 512,
# sequence 512, batch 4, dropout 0.1, trained with AdamW on one rank (1 BLAS
# thread; PRECISION=bf16 for a bf16 program). Prints each program's planned
# arena, measured peak and median step time (steps after the first), and
# the ratios fused / unfused. The same bits either way (e2e/fuse-elementwise
# .test); this measures time and memory only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
steps=${STEPS:-6}
precision=${PRECISION:-fp32}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

/usr/bin/python3 - "$root/examples/configs/gpt2-tiny.json" "$tmp/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.update(n_embd=512, n_layer=4, n_head=8, vocab_size=8192, n_positions=512,
         n_ctx=512, resid_pdrop=0.1, embd_pdrop=0.1, attn_pdrop=0.1)
json.dump(c, open(sys.argv[2], "w"))
PY
"$bin/sp-import" --hf-config "$tmp/config.json" --seq-len 512 --batch 4 \
  -o "$tmp/model.mlir"
for fuse in true false; do
  "$bin/sp-compile" "$tmp/model.mlir" --train --optimizer adamw \
    --precision "$precision" --fuse-elementwise="$fuse" -o "$tmp/prog-$fuse"
  "$tmp/prog-$fuse" --steps "$steps" --log "$tmp/log-$fuse.jsonl" > /dev/null
done
/usr/bin/python3 - "$tmp" "$precision" <<'PY'
import json, statistics, sys
tmp, precision = sys.argv[1], sys.argv[2]
r = {}
for f in ("true", "false"):
    log = [json.loads(l) for l in open(f"{tmp}/log-{f}.jsonl")]
    mem = log[-1]["memory"]
    r[f] = (mem["planned"]["by_category"]["arena"], mem["peak_bytes"],
            statistics.median(l["step_time_s"] for l in log[1:] or log))
    name = "fused (default)" if f == "true" else "unfused"
    a, p, t = r[f]
    print(f"{precision} {name:15s} arena {a / 2**20:7.1f} MiB  peak "
          f"{p / 2**20:7.1f} MiB  step {t * 1e3:8.1f} ms")
on, off = r["true"], r["false"]
print(f"fused / unfused: arena {on[0] / off[0]:.3f}x, peak {on[1] / off[1]:.3f}x,"
      f" step time {on[2] / off[2]:.3f}x")
PY
