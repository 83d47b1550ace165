"""Runs LossScaleProgram (main() with loss scaling) and checks it against a
plain reference of the dynamic loss scaler and the step: the loss scale and
skipped count of every step (exact), the loss, gradient norm and the
unscaled --dump-grads (1e-6 relative), the exit line; a run resumed from a
checkpoint continues the scaler exactly as the uninterrupted run."""
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

prog = sys.argv[1]
tmp = tempfile.mkdtemp()
mpirun = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "1"]


def run(*args):
    out = subprocess.run(mpirun + [prog] + list(args), capture_output=True,
                         text=True)
    if out.returncode != 0:
        sys.exit("run failed: %s\n%s%s" % (args, out.stdout, out.stderr))
    return out.stdout


def log(path):
    return [json.loads(line) for line in open(path)]


def reference(steps, scale, window, growth=2.0, backoff=0.5, min_scale=1.0,
              clip=1.0, lr=0.1):
    w = np.ones(4, np.float32)
    good = skipped = 0
    rows = []
    for _ in range(steps):
        loss = 0.5 * float(np.sum(w.astype(np.float64) ** 2))
        g = (w.astype(np.float64) * scale).astype(np.float32)
        overflow = bool(np.any(np.abs(g) > 1000))
        row = {"loss_scale": scale, "loss": loss, "grads": w.copy()}
        if overflow:
            skipped += 1
            good = 0
            scale = max(min_scale, scale * backoff)
            row.update(norm=None, skipped_steps=skipped)
        else:
            total = np.sqrt(float(np.float32(np.sum(g.astype(np.float64) ** 2))))
            norm = total / row["loss_scale"]
            factor = np.float32(min(1.0, clip / (norm + 1e-6)) / row["loss_scale"])
            w = (w.astype(np.float64) - lr * (g * factor).astype(np.float64)
                 ).astype(np.float32)
            row.update(norm=norm, skipped_steps=skipped)
            good += 1
            if good == window:
                good = 0
                scale *= growth
        rows.append(row)
    return rows, scale, skipped


def close(a, b):
    return abs(a - b) <= 1e-6 * max(abs(b), 1e-30)


failures = []
steps = 9
flags = ["--loss-scale", "4096", "--loss-scale-window", "2"]
out = run("--steps", str(steps), "--log", tmp + "/a.jsonl", "--dump-grads",
          tmp + "/g.safetensors", *flags)
ref, final, skipped = reference(steps, 4096.0, 2)
got = log(tmp + "/a.jsonl")
for i, (r, x) in enumerate(zip(ref, got)):
    if x["loss_scale"] != r["loss_scale"] or \
            x["skipped_steps"] != r["skipped_steps"] or \
            x["skipped"] != (r["norm"] is None) or not close(x["loss"], r["loss"]):
        failures.append("step %d: %s vs reference %s" % (i + 1, x, r))
    if (r["norm"] is None) != (x["grad_norm"] is None) or \
            (r["norm"] is not None and not close(x["grad_norm"], r["norm"])):
        failures.append("step %d: grad_norm %s vs %s" % (i + 1, x["grad_norm"],
                                                          r["norm"]))
if skipped < 3 or len({r["loss_scale"] for r in ref}) < 3:
    failures.append("the reference run has too few overflows to test")
line = "loss scaling: %d steps skipped (overflow), final scale %g" % (skipped, final)
if line not in out:
    failures.append("no line '%s' in:\n%s" % (line, out))
if "loss_scale %g" % ref[0]["loss_scale"] not in out.splitlines()[0]:
    failures.append("step line without the loss scale: " + out.splitlines()[0])
# --dump-grads holds the true gradient (w before the last update).
raw = open(tmp + "/g.safetensors", "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
lo, hi = header["w"]["data_offsets"]
dtype = {"F16": np.float16, "F32": np.float32}[header["w"]["dtype"]]
dumped = np.frombuffer(raw[8 + n + lo:8 + n + hi], dtype).astype(np.float64)
want = ref[-1]["grads"].astype(dtype).astype(np.float64)
if ref[-1]["norm"] is None or not np.allclose(dumped, want, rtol=1e-6, atol=0):
    failures.append("dumped gradient %s, expected %s (last step %s)" %
                    (dumped, want, ref[-1]))
# Resumed at step 5 of a run saving every 5: the same steps 6..9.
ck = tmp + "/ck"
run("--steps", "5", "--checkpoint-dir", ck, "--save-every", "5", *flags)
meta = json.load(open(ck + "/step-00000005/checkpoint.json"))
if meta.get("loss_scale", {}).get("scale") != ref[5]["loss_scale"]:
    failures.append("checkpoint loss_scale %s, expected scale %s" %
                    (meta.get("loss_scale"), ref[5]["loss_scale"]))
run("--steps", str(steps), "--checkpoint-dir", ck, "--resume", "--log",
    tmp + "/b.jsonl", *flags)
resumed = log(tmp + "/b.jsonl")
keys = ("step", "loss", "grad_norm", "loss_scale", "skipped_steps", "lr")
if [{k: x[k] for k in keys} for x in resumed] != \
        [{k: x[k] for k in keys} for x in got[5:]]:
    failures.append("resumed %s\nvs %s" % (resumed, got[5:]))
for f in failures:
    print("FAIL:", f)
print("ok" if not failures else "%d failures" % len(failures))
sys.exit(1 if failures else 0)
