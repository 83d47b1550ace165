"""Checks the throughput a run logs against its step times and the model.

usage: throughput_check.py CONFIG.json SEQ BATCH TP PEAK REPORT.json METRICS.jsonl STDOUT

- the compiler's FLOPs per rank and step (sp-compile --report memory:
  flops.step, the figure convert-sp-to-runtime embeds as flops_per_step)
  equal a count from the GPT-2 config: GEMMs 2·M·N·K on this rank's shard,
  the causal attention core 4·b·heads·s²·d / 2, the backward twice the
  forward's GEMMs and 2.5 times its attention, plus what full recompute
  repeats (each layer's forward but its last GEMM);
- each metrics line: tokens_per_s · step_time_s is the step's global tokens
  (batch x sequence), flops_per_s · step_time_s the FLOPs per rank and
  step, hfu = flops_per_s / PEAK and mfu the same without the recomputed
  FLOPs (relative 1e-6: the log prints 9 significant digits);
- the progress line of each step shows the same tokens/s, FLOP/s and MFU (at
  the 3 significant digits it prints)."""
import json
import re
import sys

config_path, seq, batch, tp, peak, report_path, metrics_path, stdout_path = sys.argv[1:]
seq, batch, tp, peak = int(seq), int(batch), int(tp), float(peak)
cfg = json.load(open(config_path))
report = json.load(open(report_path))
metrics = [json.loads(line) for line in open(metrics_path)]
progress = [line for line in open(stdout_path) if line.startswith("step ")]


def fail(message):
    sys.exit("throughput_check: " + message)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b))


h, layers, vocab = cfg["n_embd"], cfg["n_layer"], cfg["vocab_size"]
heads, inner = cfg["n_head"], cfg.get("n_inner") or 4 * cfg["n_embd"]
tokens = seq * batch
layer_gemms = 2 * tokens * h * (3 * h + h + 2 * inner) // tp
gemms = layers * layer_gemms + 2 * tokens * h * vocab // tp
attention = layers * 4 * batch * (heads // tp) * seq * seq * (h // heads) // 2
recomputed = report["flops"]["recompute"]
expected = 3 * gemms + 3.5 * attention
if recomputed:
    # Full recompute repeats every layer's forward but its last GEMM (the
    # MLP's output projection: its result, the next layer's input, is kept).
    last = 2 * tokens * inner * h // tp
    if recomputed != layers * (layer_gemms - last) + attention:
        fail(f"recomputed FLOPs {recomputed}, the layers' forward less their "
             f"last GEMM {layers * (layer_gemms - last) + attention}")
    expected += recomputed
flops = report["flops"]["step"]
if flops != expected:
    fail(f"the compiler counts {flops} FLOPs per rank and step, the config gives {expected}")

if len(progress) != len(metrics):
    fail(f"{len(progress)} progress lines, {len(metrics)} metrics lines")
for m, line in zip(metrics, progress):
    t = m["step_time_s"]
    if not close(m["tokens_per_s"] * t, tokens):
        fail(f"step {m['step']}: tokens_per_s {m['tokens_per_s']} x {t} s is not {tokens}")
    if not close(m["flops_per_s"] * t, flops):
        fail(f"step {m['step']}: flops_per_s {m['flops_per_s']} x {t} s is not {flops}")
    if not close(m["hfu"], m["flops_per_s"] / peak):
        fail(f"step {m['step']}: hfu {m['hfu']}")
    if not close(m["mfu"], (flops - recomputed) / t / peak):
        fail(f"step {m['step']}: mfu {m['mfu']}")
    shown = re.search(r"ms, ([0-9.]+)(k?) tok/s, ([0-9.]+)([kMGT]?)FLOP/s/rank, MFU ([0-9.]+)%", line)
    if not shown:
        fail("no throughput in " + line)
    scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
    if not close(float(shown.group(1)) * scale[shown.group(2)], m["tokens_per_s"], 5e-3) or \
            not close(float(shown.group(3)) * scale[shown.group(4)], m["flops_per_s"], 5e-3) or \
            abs(float(shown.group(5)) - 100 * m["mfu"]) > 0.005:
        fail(f"step {m['step']}: the progress line shows {shown.group(0)}, the log {m}")
print(f"{len(metrics)} steps: {flops} FLOPs per rank and step ({recomputed} recomputed), "
      f"{tokens} tokens per step; tokens/s, FLOP/s, MFU and HFU consistent")
