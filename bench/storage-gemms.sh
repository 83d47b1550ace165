#!/usr/bin/env bash
# The GEMMs, the elementwise maps, the norms and attention of a bf16 program
# reading and writing bf16 as stored (the default: sprt_linear_typed with f32
# panels of at most 2^20 elements in scratch, the fused collective GEMMs per
# chunk, sprt_*_typed for add / mul / gelu / silu / relu, sprt_*norm*_typed
# row by row, sprt_attention_typed on widened scratch) against computing on
# f32 copies of their operands and results (--storage-gemms=false
# --storage-elementwise=false --storage-rows=false --storage-attention=false,
# the old wrapping; FLIP="rows" turns off only --storage-rows, any subset
# of "gemms elementwise rows attention" likewise), side by side: a 2-layer
# GPT-2 with h = 256 and GPT-2's 50,257-token vocabulary, sequence 512,
# batch 2, trained with AdamW on one rank (1 BLAS thread), or with TP=2 at
# tp 2 + SP on two ranks (most GEMMs then fused with their collectives; the
# vocabulary padded to 50,304). Prints each program's measured peak bytes on
# rank 0 (arena, scratch, total, from the runtime's allocator) and median
# step time, and the ratios stored / copies.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SEQPAR_BUILD_DIR:-$root/build}/bin
steps=${STEPS:-3}
tp=${TP:-1}
flip=${FLIP:-gemms elementwise rows attention}
parallel=()
launch=()
if [ "$tp" -gt 1 ]; then
  parallel=(--tp "$tp" --sp)
  launch=(mpirun --allow-run-as-root --oversubscribe -np "$tp")
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

# The vocabulary splits over tp: Megatron-LM's padding of GPT-2's to a
# multiple of 128 (50,304) when tp > 1.
vocab=50257
[ "$tp" -gt 1 ] && vocab=50304
/usr/bin/python3 - "$root/examples/configs/gpt2-tiny.json" "$tmp/config.json" \
  "$vocab" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.update(n_embd=256, n_layer=2, n_head=4, vocab_size=int(sys.argv[3]),
         n_positions=512, n_ctx=512)
json.dump(c, open(sys.argv[2], "w"))
PY
"$bin/sp-import" --hf-config "$tmp/config.json" --seq-len 512 --batch 2 \
  -o "$tmp/model.mlir"
for storage in true false; do
  flags=()
  for f in gemms elementwise rows attention; do
    case " $flip " in
    *" $f "*) flags+=(--storage-$f="$storage") ;;
    esac
  done
  "$bin/sp-compile" "$tmp/model.mlir" --train --optimizer adamw \
    --precision bf16 "${flags[@]}" "${parallel[@]}" \
    -o "$tmp/prog-$storage"
  "${launch[@]}" "$tmp/prog-$storage" --steps "$steps" --log "$tmp/log-$storage.jsonl" \
    > /dev/null
done
/usr/bin/python3 - "$tmp" <<'PY'
import json, statistics, sys
tmp = sys.argv[1]
r = {}
for s in ("true", "false"):
    log = [json.loads(l) for l in open(f"{tmp}/log-{s}.jsonl")]
    mem = log[-1]["memory"]
    r[s] = (mem["by_category"]["arena"], mem["by_category"].get("scratch", 0),
            mem["peak_bytes"],
            statistics.median(l["step_time_s"] for l in log[1:] or log))
    name = "stored (default)" if s == "true" else "f32 copies"
    a, sc, p, t = r[s]
    print(f"{name:17s} arena {a / 2**20:7.1f} MiB  scratch {sc / 2**20:6.1f} "
          f"MiB  peak {p / 2**20:7.1f} MiB  step {t * 1e3:7.1f} ms")
on, off = r["true"], r["false"]
print(f"stored / copies: arena {on[0] / off[0]:.3f}x, peak {on[2] / off[2]:.3f}x,"
      f" step time {on[3] / off[3]:.3f}x")
PY
