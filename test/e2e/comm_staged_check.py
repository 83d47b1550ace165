"""MPI through host staging computes what MPI on the buffers computes (issue
30: --comm mpi runs a GPU program's ranks over MPI with host copies, so that
several ranks share one GPU; --comm mpi-staged takes that path on CPU
ranks).

For each layout: the same training program (AdamW, dropout kept, gradient
clipping) runs --steps steps twice from the same seed, with the default
communication and with --comm mpi-staged, dumping its last step's
gradients, its parameters and its outputs in f32. Every loss, gradient and
parameter must be equal bit for bit: the staged path hands MPI the same
bytes, and MPI reduces them in the same order.

  comm_staged_check.py CONFIG --ranks N [--steps K] [-- SP-COMPILE FLAGS]

Prints one line; exits 1 naming the first tensor that differs."""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--ranks", type=int, required=True)
p.add_argument("--steps", type=int, default=3)
p.add_argument("--seq", type=int, default=16)
p.add_argument("--batch", type=int, default=4)
argv = sys.argv[1:]
cut = argv.index("--") if "--" in argv else len(argv)
args = p.parse_args(argv[:cut])
flags = argv[cut + 1:]

with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "model.mlir")
    e2e.import_model(args.config, model, args.seq, args.batch)
    prog = os.path.join(tmp, "prog")
    e2e.run([e2e.tool("sp-compile"), model, "--train", "--optimizer", "adamw",
             "--grad-clip", "1.0", "--target", e2e.TARGET, "-o", prog, *flags])
    dumps = {}
    for comm in ("default", "mpi-staged"):
        out = {k: os.path.join(tmp, f"{comm}.{k}") for k in ("grads", "params", "outputs")}
        extra = [] if comm == "default" else ["--comm", comm]
        e2e.launch(prog, args.ranks, "--steps", str(args.steps), "--seed", "7",
                   "--data", "/usr/share/common-licenses/GPL-3",
                   "--dump-grads", out["grads"], "--dump-params", out["params"],
                   "--dump-outputs", out["outputs"], "--dump-dtype", "f32", *extra)
        dumps[comm] = {k: e2e.read_safetensors(v) for k, v in out.items()}
    tensors = 0
    for kind in ("outputs", "grads", "params"):
        a, b = dumps["default"][kind], dumps["mpi-staged"][kind]
        if sorted(a) != sorted(b):
            sys.exit(f"FAIL {kind}: the two runs dumped different tensors")
        for name in sorted(a):
            if a[name] != b[name]:
                sys.exit(f"FAIL {kind} {name}: differs with --comm mpi-staged")
            tensors += 1
    name = os.path.basename(args.config).replace(".json", "")
    print(f"{name} {' '.join(flags)}: {tensors} tensors bit for bit equal with --comm mpi-staged")
