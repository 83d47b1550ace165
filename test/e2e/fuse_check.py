"""Compiles MODEL with FLAGS twice, with one fusion pass (sp-compile's
default) and without it (--fuse-X=false), runs both on RANKS ranks for 4
AdamW steps with the model's dropout, and compares the losses, gradient
norms and dumped parameters bit for bit. Prints the fused ops, the ops they
replace that are left, and each program's planned and measured arena on
rank 0. FUSION is elementwise (tfm-fuse-elementwise: each dropout with the
residual add it feeds, tfm.dropout_add; SwiGLU's SiLU with its product,
tfm.swiglu, and their gradients, tfm.swiglu_grad; each residual add with
the norm of its sum, tfm.add_layer_norm / add_rms_norm; the default) or
epilogues
(tfm-fuse-epilogues: each GELU with the linear producing its input,
tfm.linear_gelu, or with SP's gathered column GEMM,
dist.all_gather_matmul_gelu; each GELU's gradient with the input gradient it scales and
the bias gradient of its result, tfm.linear_gelu_grad; each weight gradient
with the bias gradient of its dy, tfm.linear_grad_weight_bias).

  fuse_check.py WORKDIR MODEL "FLAGS" RANKS [FUSION]
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqpar_e2e import tool  # noqa: E402

work, model, flags, ranks = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
fusion = sys.argv[5] if len(sys.argv) > 5 else "elementwise"
# The flag, the fused ops and the ops they absorb.
flag, fused_ops, plain_ops = {
    "elementwise": ("fuse-elementwise",
                    ["tfm.dropout_add", "tfm.swiglu", "tfm.swiglu_grad",
                     "tfm.add_layer_norm", "tfm.add_rms_norm"],
                    ["tfm.dropout", "tfm.silu", "tfm.silu_grad",
                     "tfm.layer_norm", "tfm.rms_norm"]),
    "epilogues": ("fuse-epilogues",
                  ["tfm.linear_gelu", "dist.all_gather_matmul_gelu",
                   "tfm.linear_gelu_grad", "tfm.linear_grad_weight_bias"],
                  ["tfm.gelu", "tfm.gelu_grad", "tfm.bias_grad"]),
}[fusion]
tag = fusion + "-" + (re.sub(r"[^a-z0-9]+", "-", flags).strip("-") or "default")


def run(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build(fuse):
    exe = os.path.join(work, f"{tag}-fuse-{fuse}")
    common = [model, "--train", "--optimizer", "adamw", "--lr", "3e-3",
              f"--{flag}={fuse}"] + flags.split()
    run([tool("sp-compile")] + common + ["-o", exe])
    ir = subprocess.run([tool("sp-compile")] + common + ["--emit", "mlir"],
                        check=True, capture_output=True, text=True).stdout
    log, params = exe + ".jsonl", exe + ".safetensors"
    run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", ranks, exe,
         "--steps", "4", "--log", log, "--dump-params", params],
        stdout=subprocess.DEVNULL)
    count = lambda op: len(re.findall(r"= " + re.escape(op) + " ", ir))
    return ([count(op) for op in fused_ops], [count(op) for op in plain_ops],
            [json.loads(l) for l in open(log)],
            open(params, "rb").read())


on, off = build("true"), build("false")
same = lambda f: len(on[2]) == len(off[2]) == 4 and \
    all(a[f] == b[f] for a, b in zip(on[2], off[2]))
for name, r in (("fused", on), ("unfused", off)):
    mem = r[2][-1]["memory"]
    ops = [f"{n} {op}" for n, op in zip(r[0] + r[1], fused_ops + plain_ops)]
    print(f"{name}: {', '.join(ops)}; arena "
          f"planned {mem['planned']['by_category']['arena']} B, measured "
          f"{mem['by_category']['arena']} B")
print(f"4 steps: losses {'SAME' if same('loss') else 'DIFFERENT'}, grad_norm "
      f"{'SAME' if same('grad_norm') else 'DIFFERENT'}, parameters "
      f"{'SAME' if on[3] == off[3] else 'DIFFERENT'}")
if not any(on[0]) or any(off[0]):
    sys.exit(f"expected {' or '.join(fused_ops)} with the default only")
