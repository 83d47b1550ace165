"""Compiles MODEL with FLAGS twice, with the GEMMs, the elementwise maps,
the row ops (norms, cross-entropy) and attention reading and writing
bf16/f16 as stored (--storage-gemms, --storage-elementwise, --storage-rows
and --storage-attention, the defaults) and on f32 copies (all four =false),
runs both on RANKS ranks for 4 AdamW steps (with the model's dropout), and
compares the losses, gradient norms and dumped parameters bit for bit.
Prints, per program, the GEMMs that read a 16-bit tensor, the elementwise
maps, the row ops and the attention ops (forward and backward) on 16-bit
tensors, the tfm.convert ops, and the arena, scratch and total peak bytes
the runtime measured on rank 0.

  storage_gemms_check.py WORKDIR MODEL "FLAGS" RANKS
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqpar_e2e import tool  # noqa: E402

work, model, flags, ranks = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
tag = re.sub(r"[^a-z0-9]+", "-", flags).strip("-")
GEMM = re.compile(r"(tfm\.linear(?:_grad_input|_grad_weight_bias|_grad_weight|"
                  r"_gelu_grad|_gelu)?|dist\."
                  r"(?:all_gather_matmul(?:_grad_weight|_gelu)?|matmul_reduce_scatter))"
                  r" .*: \((.*)\) -> (.*)$")
GATHERS = ("dist.all_gather_matmul", "dist.all_gather_matmul_gelu",
           "dist.all_gather_matmul_grad_weight")
MAP = re.compile(r"= tfm\.(add|mul|(gelu|silu|relu)(_grad)?|dropout) .*: "
                 r"tensor<[0-9x]*x(bf16|f16)\b")
ROWS = re.compile(r"= tfm\.((layer|rms)_norm|cross_entropy)(_grad)? .*: "
                  r"\(tensor<[0-9x]*x(bf16|f16)\b")
ATTENTION = re.compile(r"= tfm\.attention(_grad)? .*: "
                       r"tensor<[0-9x]*x(bf16|f16)\b")


def types(text):
    """The tensor types of a comma-separated list (commas inside <> kept)."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(text + ","):
        depth += c == "<"
        depth -= c == ">"
        if c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    return [t for t in out if t]


def reads_stored(m):
    """Whether a GEMM reads or writes a 16-bit tensor as stored: a fused
    gather's input is gathered in bf16 / f16 either way (and widened for f32
    GEMMs with --storage-gemms=false), so it does not count."""
    ins = types(m.group(2))
    if m.group(1) in GATHERS:
        ins = ins[1:]
    return any(re.search(r"x(bf16|f16)\b", t)
               for t in ins + types(m.group(3).strip("()")))


def run(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build(storage):
    exe = os.path.join(work, f"{tag}-{storage}")
    common = [model, "--train", "--optimizer", "adamw", "--lr", "3e-3",
              f"--storage-gemms={storage}", f"--storage-elementwise={storage}",
              f"--storage-rows={storage}", f"--storage-attention={storage}"
              ] + flags.split()
    run([tool("sp-compile")] + common + ["-o", exe])
    ir = subprocess.run([tool("sp-compile")] + common + ["--emit", "mlir"],
                        check=True, capture_output=True, text=True).stdout
    log, params = exe + ".jsonl", exe + ".safetensors"
    run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", ranks, exe,
         "--steps", "4", "--log", log, "--dump-params", params],
        stdout=subprocess.DEVNULL)
    gemms = [m for m in (GEMM.search(l) for l in ir.splitlines()) if m]
    stored = sum(1 for m in gemms if reads_stored(m))
    fused = sum(1 for m in gemms if m.group(1).startswith("dist."))
    maps = sum(1 for l in ir.splitlines() if MAP.search(l))
    rows = sum(1 for l in ir.splitlines() if ROWS.search(l))
    attention = sum(1 for l in ir.splitlines() if ATTENTION.search(l))
    converts = ir.count("tfm.convert ")
    return (stored, len(gemms), converts, fused, maps,
            [json.loads(l) for l in open(log)], open(params, "rb").read(),
            rows, attention)


on, off = build("true"), build("false")
log_on, log_off = on[5], off[5]
same = lambda f: len(log_on) == len(log_off) == 4 and \
    all(a[f] == b[f] for a, b in zip(log_on, log_off))
# The dumped parameters (in the model's dtype), byte for byte.
params_same = on[6] == off[6]
for name, r in (("stored", on), ("f32 copies", off)):
    mem = r[5][-1]["memory"]
    print(f"{name}: {r[0]} of {r[1]} GEMMs read or write a 16-bit tensor "
          f"({r[3]} fused with a collective), {r[4]} elementwise maps on "
          f"16-bit tensors, {r[7]} row ops on 16-bit tensors, {r[8]} "
          f"attention ops on 16-bit tensors, {r[2]} converts; "
          f"measured arena {mem['by_category']['arena']} B, "
          f"scratch {mem['by_category'].get('scratch', 0)} B, "
          f"peak {mem['peak_bytes']} B")
print(f"4 steps: losses {'SAME' if same('loss') else 'DIFFERENT'}, grad_norm "
      f"{'SAME' if same('grad_norm') else 'DIFFERENT'}, parameters "
      f"{'SAME' if params_same else 'DIFFERENT'}")
if (on[0] == 0 or off[0] != 0 or on[4] == 0 or off[4] != 0 or on[7] == 0
        or off[7] != 0 or on[2] >= off[2]):
    sys.exit("expected 16-bit GEMMs, maps and row ops, and fewer converts, "
             "with the defaults only")
