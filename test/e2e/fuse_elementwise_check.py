"""Compiles MODEL with FLAGS twice, with tfm-fuse-elementwise (the default:
each dropout fused with the residual add it feeds, tfm.dropout_add) and
without (--fuse-elementwise=false), runs both on RANKS ranks for 4 AdamW
steps with the model's dropout, and compares the losses, gradient norms and
dumped parameters bit for bit. Prints the fused ops and each program's
planned and measured arena on rank 0.

  fuse_elementwise_check.py WORKDIR MODEL "FLAGS" RANKS
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqpar_e2e import tool  # noqa: E402

work, model, flags, ranks = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
tag = re.sub(r"[^a-z0-9]+", "-", flags).strip("-") or "default"


def run(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build(fuse):
    exe = os.path.join(work, f"{tag}-fuse-{fuse}")
    common = [model, "--train", "--optimizer", "adamw", "--lr", "3e-3",
              f"--fuse-elementwise={fuse}"] + flags.split()
    run([tool("sp-compile")] + common + ["-o", exe])
    ir = subprocess.run([tool("sp-compile")] + common + ["--emit", "mlir"],
                        check=True, capture_output=True, text=True).stdout
    log, params = exe + ".jsonl", exe + ".safetensors"
    run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", ranks, exe,
         "--steps", "4", "--log", log, "--dump-params", params],
        stdout=subprocess.DEVNULL)
    fused = len(re.findall(r"= tfm\.dropout_add ", ir))
    dropouts = len(re.findall(r"= tfm\.dropout ", ir))
    return (fused, dropouts, [json.loads(l) for l in open(log)],
            open(params, "rb").read())


on, off = build("true"), build("false")
same = lambda f: len(on[2]) == len(off[2]) == 4 and \
    all(a[f] == b[f] for a, b in zip(on[2], off[2]))
for name, r in (("fused", on), ("unfused", off)):
    mem = r[2][-1]["memory"]
    print(f"{name}: {r[0]} tfm.dropout_add, {r[1]} tfm.dropout; arena "
          f"planned {mem['planned']['by_category']['arena']} B, measured "
          f"{mem['by_category']['arena']} B")
print(f"4 steps: losses {'SAME' if same('loss') else 'DIFFERENT'}, grad_norm "
      f"{'SAME' if same('grad_norm') else 'DIFFERENT'}, parameters "
      f"{'SAME' if on[3] == off[3] else 'DIFFERENT'}")
if on[0] == 0 or off[0] != 0:
    sys.exit("expected fused dropouts with the default only")
