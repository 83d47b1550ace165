"""seqpar's parameter gradients are the same in every partitioning, equal
an independent PyTorch autograd's, and SGD applies them.

For one config (dropout forced to 0): the reference writes scrambled
parameters (reference.py --init --scramble 0.3); for each (tp, dp, sp) a
training program (--train --optimizer sgd --lr 0.1, no weight decay, no
clipping) loads them (--init-from), runs one step and dumps its gradients
(before the update), its tokens and loss, and its parameters (after the
update). Checks, per tensor, with relative error ||a - b|| / ||b||
(Frobenius):
  (a) every configuration's loss and gradients equal the first
      configuration's (tp=1 dp=1 sp=off; same tokens) to --rtol;
  (b) the tp=1 dp=1 sp=off gradients, and those of one sequence-parallel
      configuration, equal torch autograd's in float64 (reference.py
      --grads) to --rtol;
  (c) the dumped parameters equal init - lr * grad to --update-rtol.
A configuration may add M micro-batches (a sixth field, TP,DP,SP,ZERO,CP,M):
the model is then imported with --batch / M and compiled with
--micro-batches M, so every configuration trains on the same global batch
of --batch sequences (its dumped tokens are checked equal). A seventh field
PP > 1 compiles it with --pp PP pipeline stages (TP x DP x CP x PP ranks;
printed "pp=PP"); each gradient is dumped from the stage owning it.
--run-flags passes flags through to every run of the program (e.g.
--run-flags="--data FILE --pack-documents"); the dumped position_ids then
reach the torch reference. --compile-flags passes flags to the compiles of
every configuration but the first, which stays the plain base (e.g.
--compile-flags="--recompute full": the recomputing programs must equal the
one-rank run without it; printed after the configuration).
--expect-spanning-document asserts from them that some document crosses a
cp chunk boundary of every cp in the configurations (a chunk starting
inside a document).
Prints one line per configuration and a final summary line; exits 1 on any
failure."""
import argparse
import json
import os
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

TORCH_PYTHON = "/usr/bin/python3"
REFERENCE = os.path.join(os.path.dirname(__file__), "reference.py")
LR = 0.1

# (tp, dp, sequence parallel, zero, cp, micro-batches, pipeline stages):
# zero=1 is the distributed optimizer, cp > 1 context parallelism
# (allgather), pp > 1 pipeline parallelism.
CONFIGS = [(1, 1, False, 0, 1, 1, 1), (2, 1, False, 0, 1, 1, 1),
           (2, 1, True, 0, 1, 1, 1), (4, 1, False, 0, 1, 1, 1),
           (4, 1, True, 0, 1, 1, 1), (1, 2, False, 0, 1, 1, 1),
           (2, 2, False, 0, 1, 1, 1), (2, 2, True, 0, 1, 1, 1),
           (2, 2, False, 1, 1, 1, 1), (2, 2, True, 1, 1, 1, 1),
           (1, 2, False, 1, 1, 1, 1)]
TORCH_CONFIGS = {(1, 1, False, 0, 1, 1, 1), (2, 2, True, 0, 1, 1, 1)}


def label(tp, dp, sp, zero=0, cp=1, mb=1, pp=1):
    return ((f"pp={pp} " if pp > 1 else "")
            + (f"cp={cp} " if cp > 1 else "")
            + f"tp={tp} dp={dp} sp={'on' if sp else 'off'}"
            + (f" zero={zero}" if zero else "")
            + (f" micro-batches={mb}" if mb > 1 else ""))


def worst(errs, n=3):
    top = sorted(errs.items(), key=lambda x: -x[1])[:n]
    return ", ".join(f"{k} {v:.2e}" for k, v in top)


def scrambled_model(config_path, tmp, seq, batch, keep_dropout=False):
    """The config without dropout (or with it: KEEP_DROPOUT), scrambled
    parameters written by the reference and the imported model: (config,
    init file, its tensors, model.mlir)."""
    config = config_path if keep_dropout else e2e.without_dropout(config_path, tmp)
    init = os.path.join(tmp, "init.safetensors")
    e2e.run([TORCH_PYTHON, REFERENCE, "--config", config, "--init", init,
             "--seed", "3", "--scramble", "0.3"])
    model = os.path.join(tmp, "model.mlir")
    e2e.import_model(config, model, seq, batch)
    return config, init, e2e.read_safetensors(init), model


def run_step(model, tmp, tp, dp, sp, zero, init, compile_extra=(), launch_extra=(),
             cp=1, mb=1, pp=1):
    """Compiles a one-step SGD training program for (tp, dp, sp, zero, cp)
    over MB micro-batches and PP pipeline stages, runs it from INIT and
    returns (grads, outputs, params) as read back, and the gradients' and
    outputs' files."""
    prog = os.path.join(tmp, f"prog-{tp}-{dp}-{int(sp)}-{zero}-{cp}-{mb}-{pp}")
    e2e.compile_model(model, prog, tp, dp, sp,
                      ["--train", "--optimizer", "sgd", "--lr", str(LR),
                       "--zero", str(zero), "--cp", str(cp),
                       "--micro-batches", str(mb),
                       *(["--pp", str(pp)] if pp > 1 else []), *compile_extra])
    grads_f, out_f, params_f = (prog + ".grads.safetensors", prog + ".out.safetensors",
                                prog + ".params.safetensors")
    e2e.launch(prog, tp * dp * cp * pp, "--steps", "1", "--seed", "11", "--init-from", init,
               "--dump-grads", grads_f, "--dump-outputs", out_f,
               "--dump-params", params_f, *launch_extra)
    return (e2e.read_safetensors(grads_f), e2e.read_safetensors(out_f),
            e2e.read_safetensors(params_f), grads_f, out_f)


def spanning_documents(outs, seq, batch, cp):
    """How many (sequence, cp chunk boundary) pairs fall inside a document
    (the chunk's first token does not start one), from the dumped
    position_ids [batch, seq]; None without them."""
    if "position_ids" not in outs:
        return None
    pos = outs["position_ids"][1]
    chunk = seq // (2 * cp)
    return sum(1 for b in range(batch) for k in range(1, 2 * cp)
               if pos[b * seq + k * chunk] != 0)


def check_names(init_t, grads, params, problems):
    """Every parameter has a gradient and an updated value, nothing more;
    returns the names present in all three."""
    if set(grads) != set(init_t):
        problems.append(f"gradient names differ from the parameters': missing "
                        f"{sorted(set(init_t) - set(grads))[:5]}, extra "
                        f"{sorted(set(grads) - set(init_t))[:5]}")
    if set(params) != set(init_t):
        problems.append(f"dumped parameter names differ from the loaded ones")
    shared = [n for n in init_t if n in grads and n in params]
    for n in shared:
        if grads[n][0] != init_t[n][0] or params[n][0] != init_t[n][0]:
            problems.append(f"{n}: shape {init_t[n][0]}, gradient {grads[n][0]}, "
                            f"dumped {params[n][0]}")
    return shared


def grads_vs(grads, base_grads, shared):
    """{name: relative error} of GRADS against BASE_GRADS."""
    return {n: e2e.frob_rel_err(grads[n][1], base_grads[n][1])
            for n in shared if n in base_grads}


def sgd_update_errors(init_t, grads, params, shared):
    """{name: relative error} of the dumped parameters against init - lr * grad."""
    uerrs = {}
    for n in shared:
        expect = [w - LR * g for w, g in zip(init_t[n][1], grads[n][1])]
        uerrs[n] = e2e.frob_rel_err(params[n][1], expect)
    return uerrs


def torch_compare(config, init, grads_f, out_f, rtol, extra=()):
    """reference.py --grads on the parameters the step used: (passed, max
    relative gradient error or None, its output)."""
    r = e2e.run([TORCH_PYTHON, REFERENCE, "--config", config, "--params", init,
                 "--grads", grads_f, "--outputs", out_f, "--rtol", str(rtol), *extra],
                check=False)
    last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
    err = float(last.split()[4]) if last.startswith("max relative gradient error ") else None
    return r.returncode == 0, err, r.stdout + r.stderr


def main():
    p = argparse.ArgumentParser()
    p.add_argument("config")
    p.add_argument("--seq", type=int, default=16)
    p.add_argument("--batch", type=int, default=2,
                   help="the global batch of a step (a configuration of M "
                   "micro-batches imports the model with --batch / M)")
    p.add_argument("--rtol", type=float, default=1e-5,
                   help="gradients: between configurations and against torch")
    p.add_argument("--update-rtol", type=float, default=1e-6,
                   help="parameters after the SGD step against init - lr * grad")
    p.add_argument("--keep-dropout", action="store_true",
                   help="keep the config's dropout: configurations must draw "
                   "the same masks (no torch comparison: its masks differ)")
    p.add_argument("--torch-all", action="store_true",
                   help="compare every configuration with torch, not just two")
    p.add_argument("--configs", nargs="+", metavar="TP,DP,SP,ZERO[,CP[,M[,PP]]]",
                   help="the configurations to run, the first being the base of "
                   "(a), e.g. 1,1,0,0 2,1,1,0 2,1,1,0,2 (default: all of those "
                   "below)")
    p.add_argument("--torch", nargs="*", default=None,
                   metavar="TP,DP,SP,ZERO[,CP[,M[,PP]]]",
                   help="the configurations compared with torch (default: "
                   "tp=1 dp=1 sp=off and tp=2 dp=2 sp=on)")
    p.add_argument("--run-flags", default="",
                   help="flags for every run of the program, one string "
                   "(--run-flags=\"--data FILE --pack-documents\")")
    p.add_argument("--compile-flags", default="",
                   help="flags for the compiles of every configuration but "
                   "the first (the base), one string "
                   "(--compile-flags=\"--recompute full\")")
    p.add_argument("--cp-attention", default="allgather",
                   choices=["allgather", "ring"],
                   help="context parallelism's attention variant for the "
                   "configurations with cp > 1")
    p.add_argument("--expect-uneven-ignored", action="store_true",
                   help="fail unless the sequences of the batch hold different "
                   "numbers of ignored (-100) labels, some none (printed for "
                   "the first configuration)")
    p.add_argument("--expect-spanning-document", action="store_true",
                   help="fail unless the dumped position_ids hold a document "
                   "crossing a cp chunk boundary for every cp of the configurations")
    args = p.parse_args()

    def parse(c):
        f = c.split(",")
        return (int(f[0]), int(f[1]), f[2] == "1", int(f[3]),
                int(f[4]) if len(f) > 4 else 1, int(f[5]) if len(f) > 5 else 1,
                int(f[6]) if len(f) > 6 else 1)

    configs = [parse(c) for c in args.configs] if args.configs else CONFIGS
    torch_configs = ({parse(c) for c in args.torch} if args.torch is not None
                     else TORCH_CONFIGS)
    if args.keep_dropout:
        torch_configs, args.torch_all = set(), False
    name = os.path.basename(args.config).replace(".json", "")

    with tempfile.TemporaryDirectory() as tmp:
        config, init, init_t, model = scrambled_model(args.config, tmp, args.seq, args.batch,
                                                      args.keep_dropout)
        ok = True
        base = None  # (tokens, grads) of the first configuration
        models = {1: model}  # by micro-batches: imported with --batch / M
        for i, (tp, dp, sp, zero, cp, mb, pp) in enumerate(configs):
            if args.batch % mb:
                print(f"--batch {args.batch} is not a multiple of {mb} micro-batches")
                return 1
            if mb not in models:
                models[mb] = os.path.join(tmp, f"model-mb{mb}.mlir")
                e2e.import_model(config, models[mb], args.seq, args.batch // mb)
            grads, outs, params, grads_f, out_f = run_step(
                models[mb], tmp, tp, dp, sp, zero, init, cp=cp, mb=mb, pp=pp,
                compile_extra=(["--cp-attention", args.cp_attention]
                               if cp > 1 else [])
                + (shlex.split(args.compile_flags) if i else []),
                launch_extra=shlex.split(args.run_flags))
            problems = []
            parts = [f"loss {outs['loss'][1][0]:.7f}"]
            if args.expect_spanning_document:
                spans = spanning_documents(outs, args.seq, args.batch, cp)
                if spans is None:
                    problems.append("no position_ids in the outputs dump")
                elif cp > 1 and not spans:
                    problems.append(f"no document crosses a cp={cp} chunk boundary")
                elif cp > 1:
                    parts.append(f"{spans} cp chunk boundaries inside documents")
            shared = check_names(init_t, grads, params, problems)

            # (a) the same gradients as tp=1 dp=1 sp=off, on the same tokens.
            tokens = (outs["input_ids"], outs["labels"])
            if base is None:
                base = (tokens, grads, outs["loss"][1][0])
                parts.append(f"{len(grads)} gradients")
                if args.expect_uneven_ignored:
                    labels = outs["labels"][1]
                    ignored = [sum(1 for t in labels[b * args.seq:(b + 1) * args.seq]
                                   if t == -100) for b in range(args.batch)]
                    parts.append(f"ignored labels per sequence {ignored}")
                    if len(set(ignored)) < 2 or min(ignored) != 0:
                        problems.append("the sequences' ignored labels are not "
                                        f"uneven: {ignored}")
            else:
                if tokens != base[0]:
                    problems.append("its tokens differ from the first configuration's")
                lerr = e2e.rel_err(outs["loss"][1][0], base[2])
                parts.append(f"loss vs {label(*configs[0])} rel err {lerr:.1e}")
                if not lerr <= args.rtol:
                    problems.append(f"the loss differs from {label(*configs[0])}'s by {lerr:.1e}")
                errs = grads_vs(grads, base[1], shared)
                m = max(errs.values()) if errs else float("inf")
                parts.append(f"grads vs {label(*configs[0])} max rel err {m:.1e}")
                if not m <= args.rtol:
                    problems.append(f"gradients differ from {label(*configs[0])}'s: {worst(errs)}")

            # (c) one SGD step: init - lr * grad.
            uerrs = sgd_update_errors(init_t, grads, params, shared)
            um = max(uerrs.values()) if uerrs else float("inf")
            parts.append(f"sgd update rel err {um:.1e}")
            if not um <= args.update_rtol:
                problems.append(f"parameters after the step are not init - {LR} * grad: {worst(uerrs)}")

            # (b) torch autograd on the parameters the step used.
            if args.torch_all or (tp, dp, sp, zero, cp, mb, pp) in torch_configs:
                good, err, out = torch_compare(config, init, grads_f, out_f, args.rtol)
                if err is not None:
                    parts.append(f"torch max rel err {err:.1e}")
                if not good:
                    problems.append("gradients differ from torch autograd's:\n" + out)

            ok &= not problems
            flags = f" {args.compile_flags}" if i and args.compile_flags else ""
            print(f"{name} {label(tp, dp, sp, zero, cp, mb, pp)}{flags}: {', '.join(parts)} "
                  f"{'OK' if not problems else 'MISMATCH'}")
            for prob in problems:
                print(f"  {prob.rstrip()}")
    print("all gradients match" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
