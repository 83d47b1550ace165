"""What the GPU stage driver (driver.py) computes from its runs: device
peaks, parameter counts and model FLOPs, and the readers of its logs,
traces and dumps (error lines, attention and start-up lines, op tables,
loss curves, gtest summaries, the cuda-vs-cpu comparison)."""

import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import seqdata  # noqa: E402


# Dense peak TFLOP/s by device name (NVIDIA's data sheets): (name contains,
# bf16 tensor core, fp32 without tensor cores). First match wins.
PEAKS = [
    ("H100 NVL", 835.0, 60.0),
    ("H100 PCIe", 756.0, 51.0),
    ("H100", 989.4, 66.9),      # SXM5, e.g. "NVIDIA H100 80GB HBM3"
    ("H200 NVL", 835.0, 60.0),
    ("H200", 989.4, 66.9),      # the H100 SXM's chip and clocks, more memory
    ("GH200", 989.4, 66.9),
    ("A100", 312.0, 19.5),
]


def peaks_for(name):
    """{"bf16": TFLOP/s, "fp32": TFLOP/s, "source": ...}; the environment's
    SEQPAR_PEAK_BF16_TFLOPS / SEQPAR_PEAK_FP32_TFLOPS win."""
    out = {"bf16": None, "fp32": None, "source": "unknown device"}
    for key, bf16, fp32 in PEAKS:
        if key in (name or ""):
            out = {"bf16": bf16, "fp32": fp32, "source": f"data sheet ({key})"}
            break
    for p in ("bf16", "fp32"):
        v = os.environ.get(f"SEQPAR_PEAK_{p.upper()}_TFLOPS")
        if v:
            out[p] = float(v)
            out["source"] = "environment"
    return out


def param_count(c):
    """Parameters of a Hugging Face config (gpt2, llama, gpt_neox), a tied
    embedding once; (count, layers, attention width)."""
    t = c["model_type"]
    if t == "gpt2":
        h, L, V = c["n_embd"], c["n_layer"], c["vocab_size"]
        inner = c.get("n_inner") or 4 * h
        layer = 4 * h + 3 * h * h + 3 * h + h * h + h + 2 * h * inner + inner + h
        n = V * h + c["n_positions"] * h + L * layer + 2 * h
        if not c.get("tie_word_embeddings", True):
            n += V * h
        return n, L, h
    if t == "llama":
        h, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
        nq = c["num_attention_heads"]
        nkv = c.get("num_key_value_heads") or nq
        hd = c.get("head_dim") or h // nq
        inter = c["intermediate_size"]
        layer = h * nq * hd + 2 * h * nkv * hd + nq * hd * h + 3 * h * inter + 2 * h
        if c.get("attention_bias"):
            layer += nq * hd + 2 * nkv * hd + h
        if c.get("mlp_bias"):
            layer += 2 * inter + h
        n = V * h + L * layer + h
        if not c.get("tie_word_embeddings", True):
            n += V * h
        return n, L, nq * hd
    if t == "gpt_neox":
        h, L, V = c["hidden_size"], c["num_hidden_layers"], c["vocab_size"]
        inter = c["intermediate_size"]
        layer = 4 * h + 3 * h * h + 3 * h + h * h + h + 2 * h * inter + inter + h
        n = V * h + L * layer + 2 * h
        if not c.get("tie_word_embeddings", False):
            n += V * h
        return n, L, h
    raise ValueError(f"no parameter count for model_type {t}")


def model_flops(config, seq, batch):
    n, L, w = param_count(config)
    tokens = seq * batch
    return {"params": n, "flops_per_step": 6 * n * tokens + 12 * L * seq * w * tokens}




def describe(rc):
    if rc == "timeout":
        return "timed out"
    return f"exit {rc}"


def log_error(path):
    """The first line of a log that reads like the error, for the report."""
    if not os.path.exists(path):
        return ""
    with open(path, errors="replace") as f:
        lines = [x.strip() for x in f]
    for x in lines:
        if re.search(r"error|cannot|failed|abort|killed|out of memory", x, re.I) \
                and not x.startswith(("$", "#", "[hwloc")):
            return x[:300]
    return ""


def attention_line(path):
    """The program's start-up line naming its attention kernel."""
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("attention: "):
                return line[len("attention: "):].strip()
    return None


def startup_line(path):
    """startup_s and init_params_s from a program's `start-up 3.21 s to step 1
    (parameters drawn 1.05 s)` line in a log, or {}."""
    if not os.path.exists(path):
        return {}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"start-up ([0-9.]+) s to step \d+ \(parameters \w+ ([0-9.]+) s\)", line)
            if m:
                return {"startup_s": float(m.group(1)), "init_params_s": float(m.group(2))}
    return {}


def graph_line(path):
    """A program's `cuda graph: off, ...` line in a log (why its steps ran
    eagerly), or None."""
    if not os.path.exists(path):
        return None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("cuda graph: off"):
                return line.strip()
    return None


def op_table(trace, first_step):
    """Per-op device time from a trace recorded with CUDA_LAUNCH_BLOCKING=1
    (each op's span then includes its kernels): the steps from first_step
    on, averaged per step, by op kind and by op and module (layer numbers
    folded into '*')."""
    with open(trace) as f:
        events = json.load(f)["traceEvents"]
    steps = [e for e in events if e.get("cat") == "step" and e["args"]["step"] >= first_step]
    if not steps:
        steps = [e for e in events if e.get("cat") == "step"]
    if not steps:
        return {}
    spans = [(e["ts"], e["ts"] + e["dur"]) for e in steps]
    kinds, where = {}, {}
    op_total = 0.0
    for e in events:
        if e.get("cat") != "op" or e.get("ph") != "X":
            continue
        if not any(a <= e["ts"] <= b for a, b in spans):
            continue
        dur = e["dur"]
        op_total += dur
        k = kinds.setdefault(e["name"], [0.0, 0])
        k[0] += dur
        k[1] += 1
        module = re.sub(r"\.\d+(?=\.|$)", ".*", (e.get("args") or {}).get("where", ""))
        w = where.setdefault(f"{e['name']} {module}".strip(), [0.0, 0])
        w[0] += dur
        w[1] += 1
    n = len(steps)
    step_ms = sum(e["dur"] for e in steps) / n / 1e3

    def rows(table):
        return sorted(([k, v[0] / n / 1e3, v[1] / n] for k, v in table.items()),
                      key=lambda r: -r[1])
    return {"steps": n, "step_ms": step_ms, "op_ms": op_total / n / 1e3,
            "by_kind": rows(kinds), "by_op": rows(where)[:25]}


def curve_table(sp, pt, d):
    steps = sorted(set(sp) | set(pt))
    if not steps:
        return {}
    rows, diffs = [], []
    with open(os.path.join(d, "curve.tsv"), "w") as f:
        f.write("step\tseqpar_loss\ttorch_loss\trel_diff\tseqpar_grad_norm\ttorch_grad_norm\n")
        for s in steps:
            a, b = sp.get(s, {}), pt.get(s, {})
            la, lb = a.get("loss"), b.get("loss")
            rel = abs(la - lb) / abs(lb) if la is not None and lb is not None and lb else None
            if rel is not None:
                diffs.append((s, rel))
            rows.append([s, la, lb, rel, a.get("grad_norm"), b.get("grad_norm")])
            f.write("\t".join("" if v is None else f"{v:.6g}" if isinstance(v, float) else str(v)
                              for v in rows[-1]) + "\n")
    out = {"rows": rows}
    if diffs:
        worst = max(diffs, key=lambda x: x[1])
        last = [r for r in rows if r[1] is not None and r[2] is not None][-10:]
        out.update(max_rel_diff=worst[1], max_rel_diff_step=worst[0],
                   last10_mean_seqpar=statistics.mean(r[1] for r in last),
                   last10_mean_torch=statistics.mean(r[2] for r in last))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for col, label in ((1, "seqpar"), (2, "PyTorch")):
            pts = [(r[0], r[col]) for r in rows if r[col] is not None]
            if pts:
                ax.plot(*zip(*pts), label=label)
        ax.set_xlabel("step")
        ax.set_ylabel("loss")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(d, "curve.png"), dpi=100)
        out["plot"] = "curve/curve.png"
    except Exception:  # no matplotlib: the table is the result
        pass
    return out


def gtest_summary(path, log):
    """Counts of a gtest run: from its JSON report, or, when it was killed
    before writing one, from the per-test lines of its log."""
    counts = {"tests": 0, "failed": 0, "skipped": 0, "failed_names": []}
    if os.path.exists(path):
        with open(path) as f:
            g = json.load(f)
        for suite in g.get("testsuites", []):
            for t in suite.get("testsuite", []):
                counts["tests"] += 1
                if t.get("failures"):
                    counts["failed"] += 1
                    counts["failed_names"].append(f"{suite['name']}.{t['name']}")
                elif t.get("result") == "SKIPPED" or t.get("status") == "NOTRUN":
                    counts["skipped"] += 1
    elif os.path.exists(log):
        counts["from"] = "log (no JSON report)"
        with open(log, errors="replace") as f:
            for line in f:
                m = re.match(r"\[\s*(OK|FAILED|SKIPPED)\s*\] (\S+\.\S+) \(", line)
                if m:
                    counts["tests"] += 1
                    if m.group(1) == "FAILED":
                        counts["failed"] += 1
                        counts["failed_names"].append(m.group(2))
                    elif m.group(1) == "SKIPPED":
                        counts["skipped"] += 1
    else:
        return {}
    counts["passed"] = counts["tests"] - counts["failed"] - counts["skipped"]
    counts["failed_names"] = counts["failed_names"][:20]
    return counts


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-30)


def frob_rel(got, ref):
    diff = sum((g - r) ** 2 for g, r in zip(got, ref))
    den = sum(r * r for r in ref)
    if len(got) != len(ref) or diff != diff or diff == float("inf"):
        return float("inf")
    return (diff / den) ** 0.5 if den > 0 else diff ** 0.5


def read_losses(path):
    with open(path) as f:
        rows = [json.loads(x) for x in f if x.strip()]
    return [r["loss"] for r in rows if "loss" in r], (rows[0] if rows else {})


def compare_case(w, ref, rc_grads, rc_losses, rtol, steps):
    """A program's runs in w against its cpu reference ref (grads1.safetensors,
    losses.jsonl): step 1's gradients, each tensor's ||dev - ref|| / ||ref||,
    to rtol["grads"], and each step's loss to rtol["loss"] (AdamW's sign-like
    first updates amplify summation-order differences in later steps'
    gradients, so those are not compared)."""
    out, problems = {}, []
    for run, rc in (("grads", rc_grads), ("losses", rc_losses)):
        if rc == "not started":
            return {"status": "skipped: out of time"}
        if rc == "timeout":
            return {"status": f"skipped: the {run} run was still going at the stage's end "
                              "(killed)", "error": log_error(os.path.join(w, run + ".log"))}
        if rc != 0:
            problems.append(f"{run} run: {describe(rc)} "
                            f"({log_error(os.path.join(w, run + '.log'))})")
    if problems:
        return {"status": "FAILED: " + "; ".join(problems)}
    gd = seqdata.read_safetensors(os.path.join(w, "grads1.safetensors"))
    gr = seqdata.read_safetensors(os.path.join(ref, "grads1.safetensors"))
    worst, worst_name = 0.0, ""
    if set(gd) != set(gr):
        problems.append(f"gradient names differ ({len(gd)} against the reference's {len(gr)})")
    for n in sorted(set(gd) & set(gr)):
        e = frob_rel(list(gd[n][2]), list(gr[n][2]))
        if e > worst or e != e:
            worst, worst_name = e, n
        if not e <= rtol["grads"]:
            problems.append(f"step 1 gradient {n}: {e:.1e}")
    dev, first = read_losses(os.path.join(w, "losses.jsonl"))
    ref_losses, _ = read_losses(os.path.join(ref, "losses.jsonl"))
    if len(dev) != steps or len(ref_losses) != steps:
        problems.append(f"logged {len(dev)} losses, the reference {len(ref_losses)}")
    loss_errs = [rel(a, b) for a, b in zip(dev, ref_losses)]
    for i, e in enumerate(loss_errs):
        if not e <= rtol["loss"]:
            problems.append(f"step {i + 1} loss: {e:.1e}")
    out.update(grad_max_rel=worst, grad_worst=worst_name, grads_compared=len(set(gd) & set(gr)),
               loss_rel=loss_errs, losses_dev=dev, losses_ref=ref_losses,
               startup_s=first.get("startup_s"), init_params_s=first.get("init_params_s"),
               status="OK" if not problems else "FAILED: " + "; ".join(problems[:5]))
    return out
