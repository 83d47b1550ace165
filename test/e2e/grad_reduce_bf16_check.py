"""sp-compile --grad-reduce-dtype bf16 (Megatron-LM's bf16 gradient
reduction): tiny GPT-2 in --precision bf16 at tp=2 with SP and dp=2 trains
with the gradient buckets reduced in bf16, as closely as with the default f32
reduction, and sends fewer bytes over the data-parallel axis.

Compiles the config twice (without and with --grad-reduce-dtype bf16), runs
each for --steps steps on the same data and seed under mpirun (4 ranks) and
checks, from the metrics JSONL:
  - step 1's losses are equal (computed before any update);
  - every later step's losses agree to --rtol: the two runs differ by the
    bf16 rounding of the reduced gradients only (each gradient element
    rounded to 8 significant bits, 2^-9 relative, before the sum and once
    per addition), which AdamW turns into a relative change of about that
    size in each update of lr; the bf16 copies of the weights round most of
    such changes away;
  - the data-parallel axis (the mesh axis with role "data" in the compiled
    IR) sends fewer bytes with bf16, by the ratio --max-ratio at most
    (gradients are most of them: half the bytes in bf16).
Prints the losses, the bytes and the ratio; exits 1 on failure."""
import argparse
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e  # noqa: E402


def data_axis(step_ir):
    """The name of the mesh axis whose role is data, from the dist.mesh of
    the compiled step's IR (sp-compile --emit mlir)."""
    for line in open(step_ir):
        m = re.search(r'dist\.mesh @\S+ \[(.*)\] roles \[(.*)\]', line)
        if m:
            names = re.findall(r'"([^"]+)" = \d+', m.group(1))
            roles = [r.strip() for r in m.group(2).split(",")]
            if "data" in roles:
                return names[roles.index("data")]
    sys.exit(f"no data axis in {step_ir}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("config")
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--rtol", type=float, required=True)
    p.add_argument("--max-ratio", type=float, required=True)
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = e2e.without_dropout(args.config, tmp)
        model = os.path.join(tmp, "model.mlir")
        e2e.import_model(config, model)
        runs = {}
        for dtype in ("f32", "bf16"):
            prog = os.path.join(tmp, f"prog-{dtype}")
            e2e.compile_model(model, prog, tp=2, dp=2, sp=True,
                              extra=["--precision", "bf16", "--train",
                                     "--grad-reduce-dtype", dtype])
            log = os.path.join(tmp, f"metrics-{dtype}.jsonl")
            e2e.launch(prog, 4, "--steps", str(args.steps), "--data",
                       "/usr/share/common-licenses/GPL-3", "--log", log)
            step_ir = os.path.join(tmp, f"step-{dtype}.mlir")
            e2e.compile_model(model, step_ir, tp=2, dp=2, sp=True,
                              extra=["--precision", "bf16", "--train",
                                     "--grad-reduce-dtype", dtype,
                                     "--emit", "mlir"])
            runs[dtype] = ([json.loads(line) for line in open(log)],
                           data_axis(step_ir))
        ok = True
        (f32, axis), (bf16, _) = runs["f32"], runs["bf16"]
        for a, b in zip(f32, bf16):
            err = e2e.rel_err(b["loss"], a["loss"])
            good = err == 0 if a["step"] == 1 else err <= args.rtol
            ok &= good
            print(f"step {a['step']}: loss f32 reduction {a['loss']:.7f} "
                  f"bf16 reduction {b['loss']:.7f} rel err {err:.2e} "
                  f"{'OK' if good else 'MISMATCH'}")
        sent_f32 = f32[-1]["bytes_sent"][axis]
        sent_bf16 = bf16[-1]["bytes_sent"][axis]
        ratio = sent_bf16 / sent_f32
        good = ratio <= args.max_ratio
        ok &= good and len(f32) == len(bf16) == args.steps
        print(f"data axis bytes per step: f32 reduction {sent_f32}, bf16 "
              f"reduction {sent_bf16}, ratio {ratio:.3f} "
              f"{'OK' if good else 'MISMATCH'}")
        print("bf16 gradient reduction agrees" if ok else "FAILED")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
