"""The fused collective GEMMs' workspace, measured, against what it must be,
and fused training against unfused:

    fuse_workspace_check.py CONFIG.json --tp T [--dp D --zero Z] --seq S
                            --batch B --chunks 1 2 4 8 [--steps K] [--rtol R]
                            [--optimizer adamw|sgd]

For a GPT-2, GPT-NeoX or Llama config (sp-compile --tp T --dp D --zero Z
--sp --train): one program without fusion (--fuse-chunks 0) and one per
chunk count, each run K steps with the same seed and data, its metrics
logged and its last step's gradients dumped. Checks, per chunk count c:
  - losses of every step and every gradient (Frobenius, per tensor) equal
    the unfused run's to --rtol;
  - the workspace the runtime measured for each fused op ("workspace_used_by_op"
    of the JSONL "memory" object: all_gather_matmul, matmul_reduce_scatter,
    the backward's all_gather_matmul_grad_weight and, but for Llama's
    SwiGLU, all_gather_matmul_gelu) is min(c, 2) / c of
    the gathered input of the largest fused GEMM input, computed here from
    the config: every fused GEMM gathers an [s, b, H] input (the column
    GEMMs' forward and weight gradient, the LM head) or reduce-scatters an
    [s, b, H] partial output (the row GEMMs, the column GEMMs' input
    gradient), so each moves s x b x H f32 through its chunks; so it shrinks
    with c and is at most two chunks;
  - with dp = 1, "workspace_used_bytes" is that too (the fused chunks are
    the largest workspace); with dp > 1 the coalesced gradient buckets may
    be larger, and only the fused ops' figures are compared;
  - the measured workspace equals the plan's largest workspace
    ("workspace_bytes", from the compiler), and the measured arena the
    planned "arena_bytes".
Prints one line per chunk count; exits 1 on a mismatch."""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

DATA = "/usr/share/common-licenses/GPL-3"


FUSED_OPS = ("all_gather_matmul", "matmul_reduce_scatter",
             "all_gather_matmul_grad_weight")
# The gathered GEMM with its GELU (GPT-2's and NeoX's MLP; Llama has none):
# the same workspace where the model has it.
GELU_OP = "all_gather_matmul_gelu"


def fused_gemm_bytes(config, seq, batch):
    """Bytes of the gathered input (all_gather_matmul,
    all_gather_matmul_grad_weight) or partial output (matmul_reduce_scatter)
    of each fused GEMM, by name: all are [s, b, H] f32."""
    h = config.get("n_embd", config.get("hidden_size"))
    rows = seq * batch
    return {"column GEMM input": rows * h * 4, "LM head input": rows * h * 4,
            "row GEMM output": rows * h * 4,
            "column GEMM input gradient": rows * h * 4}


def last_record(path):
    with open(path) as f:
        return json.loads([l for l in f if l.strip()][-1])


def losses(path):
    with open(path) as f:
        return {r["step"]: r["loss"] for r in map(json.loads, f)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("config")
    ap.add_argument("--tp", type=int, required=True)
    ap.add_argument("--dp", type=int, default=1)
    ap.add_argument("--zero", type=int, default=0)
    ap.add_argument("--optimizer", default="adamw")
    ap.add_argument("--seq", type=int, required=True)
    ap.add_argument("--batch", type=int, required=True)
    ap.add_argument("--chunks", type=int, nargs="+", required=True)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--rtol", type=float, default=1e-6)
    args = ap.parse_args()
    with open(args.config) as f:
        config = json.load(f)
    act = config.get("activation_function", config.get("hidden_act", ""))
    has_gelu = "gelu" in act
    # The batch is split over dp: each rank's GEMMs see batch / dp.
    gathered = max(fused_gemm_bytes(config, args.seq,
                                    args.batch // args.dp).values())
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model.mlir")
        e2e.import_model(args.config, model, args.seq, args.batch)

        def train(chunks):
            prog = os.path.join(tmp, f"fused{chunks}")
            e2e.compile_model(model, prog, tp=args.tp, dp=args.dp, sp=True,
                              extra=["--train", "--zero", str(args.zero),
                                     "--optimizer", args.optimizer,
                                     "--fuse-chunks", str(chunks)])
            log, grads = prog + ".jsonl", prog + ".grads.safetensors"
            e2e.launch(prog, args.tp * args.dp, "--steps", str(args.steps), "--seed",
                       "5", "--data", DATA, "--log", log, "--dump-grads",
                       grads)
            return losses(log), e2e.read_safetensors(grads), last_record(log)

        base_losses, base_grads, base = train(0)
        print(f"unfused: workspace used {base['memory']['workspace_used_bytes']}"
              f" (coalesced buckets), gathered input {gathered}")
        for c in args.chunks:
            got_losses, got_grads, record = train(c)
            problems = []
            steps = sorted(base_losses)
            loss_err = max(e2e.rel_err(got_losses.get(s, float("nan")),
                                       base_losses[s]) for s in steps)
            if sorted(got_losses) != steps or not loss_err <= args.rtol:
                problems.append(f"losses differ from unfused by {loss_err:.2e}")
            grad_errs = {n: e2e.frob_rel_err(got_grads[n][1], g)
                         for n, (_, g) in base_grads.items() if n in got_grads}
            grad_err = max(grad_errs.values(), default=float("inf"))
            if set(got_grads) != set(base_grads) or not grad_err <= args.rtol:
                problems.append(f"gradients differ from unfused by {grad_err:.2e}")
            memory = record["memory"]
            used, by_op = memory["workspace_used_bytes"], memory["workspace_used_by_op"]
            want = gathered * min(c, 2) // c
            for op in FUSED_OPS + ((GELU_OP,) if GELU_OP in by_op else ()):
                if by_op.get(op) != want:
                    problems.append(f"{op} used {by_op.get(op)} bytes, want {want}")
            if (GELU_OP in by_op) != has_gelu:
                problems.append(f"{GELU_OP} {'ran' if GELU_OP in by_op else 'did not run'}")
            if args.dp == 1 and used != want:
                problems.append(f"workspace_used_bytes {used}, want {want}")
            if used != record["workspace_bytes"]:
                problems.append(f"measured workspace {used} != planned "
                                f"{record['workspace_bytes']}")
            arena = memory["by_category"]["arena"]
            if arena != record["arena_bytes"]:
                problems.append(f"measured arena {arena} != planned "
                                f"{record['arena_bytes']}")
            ok = ok and not problems
            # The fused ops' measured workspace (all equal when OK).
            fused = max((by_op.get(op, 0) for op in FUSED_OPS), default=0)
            share = (f"workspace used {used}" if args.dp == 1 else
                     f"fused ops used {fused}")
            total = ("" if args.dp == 1 else
                     f", workspace used {used} in all (coalesced buckets)")
            print(f"chunks {c}: {share} = {min(c, 2)}/{c} of "
                  f"{gathered}{total} (planned {record['workspace_bytes']}), "
                  f"arena {arena} (planned {record['arena_bytes']}), loss rel "
                  f"{loss_err:.1e}, grads rel {grad_err:.1e}: "
                  + ("OK" if not problems else "MISMATCH: " + "; ".join(problems)))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
