"""Helpers for the end-to-end tests: build a model with sp-import and
sp-compile, run it under mpirun, read the safetensors it dumps.

Used by the lit tests in this directory (run with any python3; the PyTorch
reference has its own script)."""
import json
import os
import struct
import subprocess
import sys

BIN = os.environ.get("SEQPAR_BIN", "")
# The runtime backend programs are compiled for (lit --param target=...).
TARGET = os.environ.get("SEQPAR_TARGET", "cpu")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
ENV = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMPI_MCA_rmaps_base_oversubscribe="1")


def tool(name):
    return os.path.join(BIN, name) if BIN else name


def run(cmd, check=True, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, **kw)
    if check and p.returncode != 0:
        sys.exit(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    return p


def import_model(config, out, seq=16, batch=2):
    run([tool("sp-import"), "--hf-config", config, "--seq-len", str(seq),
         "--batch", str(batch), "-o", out])


def compile_model(model, out, tp=1, dp=1, sp=False, extra=(), target=None):
    cmd = [tool("sp-compile"), model, "--tp", str(tp), "--dp", str(dp),
           "--target", target or TARGET, "-o", out]
    if sp:
        cmd.append("--sp")
    cmd += list(extra)
    run(cmd)


def launch(prog, ranks, *args, check=True):
    return run(MPIRUN + ["-np", str(ranks), prog, *args], check=check)


def read_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        fmt = {"F32": "f", "I64": "q"}[info["dtype"]]
        count = (e - b) // struct.calcsize(fmt)
        values = list(struct.unpack(f"<{count}{fmt}", data[b:e]))
        out[name] = (info["shape"], values)
    return out


def dumped_loss(path):
    return read_safetensors(path)["loss"][1][0]


def without_dropout(config, directory, attention_only=False):
    """A copy of a Hugging Face config with every dropout rate set to 0 (the
    references compute the loss without dropout), or only the attention's
    (cuDNN draws its own masks there, where the other dropouts are the same
    Philox masks on every target); returns its path."""
    cfg = json.load(open(config))
    keys = ("attn_pdrop", "attention_dropout")
    if not attention_only:
        keys += ("resid_pdrop", "embd_pdrop", "hidden_dropout")
    for key in keys:
        if key in cfg:
            cfg[key] = 0.0
    path = os.path.join(directory, "config.json")
    json.dump(cfg, open(path, "w"))
    return path


def rel_err(a, b):
    return abs(a - b) / max(abs(b), 1e-30)


def frob_rel_err(got, ref):
    """||got - ref|| / ||ref|| (Frobenius) of two flat value lists; the
    absolute ||got - ref|| when ref is zero; inf when anything is not finite."""
    diff = sum((g - r) ** 2 for g, r in zip(got, ref))
    den = sum(r * r for r in ref)
    if len(got) != len(ref) or diff != diff or diff == float("inf"):
        return float("inf")
    return (diff / den) ** 0.5 if den > 0 else diff ** 0.5
