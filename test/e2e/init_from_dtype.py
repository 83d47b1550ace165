"""For one Hugging Face config (init-from-dtype.test): weights trained for a
few steps at tp=1 are dumped in F32 (the model's precision: the default),
BF16 and F16 (--dump-dtype), with their gradients; the narrow dumps must be
the round-to-nearest-even of the F32 dump (dtype_checkpoint.py check-dump).
The F32 weights are then written as Hugging Face sharded checkpoints in BF16
and F16 (2 shards + model.safetensors.index.json), as the same rounded
values in F32, and in F64, and each is loaded with --init-from at tp=2 + SP:
the loss of step 1 from the BF16 (F16) checkpoint must equal the loss from
its values in F32 bit for bit, and differ from the unrounded weights' loss
by a relative amount in (0, --max-rel-bf16] ((0, --max-rel-f16]); F64 gives
the F32 loss exactly.
Prints one line per check; exits 1 at the first failure."""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import dtype_checkpoint as dc  # noqa: E402
import seqpar_e2e as e2e  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("config")
p.add_argument("--dir", required=True)
p.add_argument("--steps", type=int, default=20)
# bf16 keeps 8 significant bits (a weight moves by at most 2^-9 relative),
# f16 11 (2^-12): bounds on the loss's relative change well above what the
# tiny models show (about 4e-5 and 4e-6).
p.add_argument("--max-rel-bf16", type=float, default=1e-3)
p.add_argument("--max-rel-f16", type=float, default=1e-4)
args = p.parse_args()
name = os.path.splitext(os.path.basename(args.config))[0]
d = os.path.join(args.dir, name)
os.makedirs(d, exist_ok=True)


def path(f):
    return os.path.join(d, f)


def ns(**kw):
    return argparse.Namespace(**kw)


def run_check(fn, **kw):
    try:
        fn(ns(**kw))
    except SystemExit as e:
        if e.code not in (None, 0):
            print(f"{name}: FAILED: {e.code}")
            sys.exit(1)


e2e.import_model(args.config, path("model.mlir"))
e2e.compile_model(path("model.mlir"), path("one"), extra=["--train"])
e2e.compile_model(path("model.mlir"), path("two"), tp=2, sp=True,
                  extra=["--train"])

# The same run three times (deterministic): the dumps hold the same values.
common = ["--seed", "5", "--steps", str(args.steps)]
e2e.launch(path("one"), 1, *common, "--dump-params", path("p.f32"),
           "--dump-grads", path("g.f32"))
for flag in ("bf16", "f16"):
    e2e.launch(path("one"), 1, *common, "--dump-dtype", flag,
               "--dump-params", path(f"p.{flag}"),
               "--dump-grads", path(f"g.{flag}"))
for what in ("p", "g"):
    tensors, _ = dc.read(path(f"{what}.f32"))
    kinds = sorted({t[0] for t in tensors.values()})
    print(f"{name}: default dump of {'params' if what == 'p' else 'grads'}:"
          f" {kinds}")
    for flag in ("bf16", "f16"):
        print(f"{name}: {what}: ", end="")
        sys.stdout.flush()
        run_check(dc.check_dump, f32=path(f"{what}.f32"),
                  dump=path(f"{what}.{flag}"), dtype=flag.upper())

# Checkpoints in other dtypes, loaded at tp=2 + SP.
for dtype in ("BF16", "F16"):
    low = dtype.lower()
    dc.convert(ns(src=path("p.f32"), dtype=dtype, shards=2, o=path(low)))
    dc.round_(ns(src=path("p.f32"), dtype=dtype, o=path(f"{low}-as-f32")))
dc.convert(ns(src=path("p.f32"), dtype="F64", shards=0, o=path("f64")))


def loss_from(source, out):
    e2e.launch(path("two"), 2, "--seed", "5", "--init-from", source,
               "--dump-outputs", path(out))
    return path(out)


f32 = loss_from(path("p.f32"), "f32.out")
for dtype in ("BF16", "F16"):
    low = dtype.lower()
    index = os.path.join(path(low), "model.safetensors.index.json")
    print(f"{name}: {dtype} sharded checkpoint vs its values in F32: ", end="")
    sys.stdout.flush()
    run_check(dc.losses, a=loss_from(index, f"{low}.out"),
              b=loss_from(path(f"{low}-as-f32"), f"{low}-as-f32.out"),
              other=f32, max_rel=getattr(args, f"max_rel_{low}"))
print(f"{name}: F64 checkpoint vs F32: ", end="")
sys.stdout.flush()
run_check(dc.losses, a=loss_from(path("f64"), "f64.out"), b=f32, other=f32,
          max_rel=0.0)
