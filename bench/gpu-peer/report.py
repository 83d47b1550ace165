"""results.json of a bundle's run (driver.py) as markdown.

    report.py OUTDIR      rewrites OUTDIR/results.md from OUTDIR/results.json

Standard library only; every figure comes from results.json, which holds
what the run measured (and nothing when a stage did not measure it).
"""

import json
import os
import sys
import time


def gib(b):
    """Bytes in GiB, or MiB below one GiB."""
    if b is None:
        return ""
    return f"{b / 2**30:.2f} GiB" if b >= 2**30 else f"{b / 2**20:.1f} MiB"


def num(x, fmt="{:.4f}"):
    return "" if x is None else fmt.format(x)


def si(x):
    if x is None:
        return ""
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.1f}{unit}"
    return f"{x:.0f}"


def pct(x):
    return "" if x is None else f"{100 * x:.1f}%"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def mfu(flops, seconds, peak):
    if not flops or not seconds or not peak:
        return None
    return flops / seconds / (peak * 1e12)


def bench_rows(name, s):
    """The rows of one benchmark stage: seqpar, torch eager, torch.compile."""
    shape = f"{s.get('model', name)} s{s.get('seq')} b{s.get('batch')}"
    flops, peak = s.get("flops_per_step"), s.get("peak_tflops")
    rows = []
    sp = s.get("seqpar", {})
    if "median_step_s" in sp:
        notes = [f"{sp['timed_steps']} steps timed"]
        if sp.get("startup_s") is not None:
            notes.append(f"start-up {sp['startup_s']:.1f} s")
        if sp.get("own_flops_per_step"):
            notes.append(f"own FLOP count {sp['own_flops_per_step'] / 1e9:,.1f} G/step")
        if sp.get("own_mfu") is not None:
            notes.append(f"own MFU {pct(sp['own_mfu'])}")
        if sp.get("graph_steps"):
            notes.append("steps " + ", ".join(f"{n} {k}" for k, n in sp["graph_steps"].items()))
        if sp.get("graph_off"):
            notes.append(sp["graph_off"])
        rows.append([shape, s.get("precision"), "seqpar", num(sp["median_step_s"]),
                     si(sp["tokens_per_s"]), pct(mfu(flops, sp["median_step_s"], peak)),
                     gib(sp.get("peak_bytes")) + " (allocator)",
                     gib(sp["device_memory_used_mib"] * 2**20)
                     if sp.get("device_memory_used_mib") is not None else "",
                     "; ".join(notes)])
    else:
        why = f"exit {sp['exit']}" if "exit" in sp else s.get("status", "not run")
        if sp.get("exit") == "timeout":
            why = "timed out"
        rows.append([shape, s.get("precision"), "seqpar", "", "", "", "", "",
                     f"no result ({why}{': ' + sp['error'] if sp.get('error') else ''})"])
    eager = s.get("seqpar_eager", {})
    if "median_step_s" in eager:
        rows.append(["", "", "seqpar --cuda-graph=false", num(eager["median_step_s"]),
                     si(eager["tokens_per_s"]), pct(mfu(flops, eager["median_step_s"], peak)),
                     gib(eager.get("peak_bytes")) + " (allocator)", "",
                     f"{eager['timed_steps']} steps timed; graph / eager "
                     f"{sp['median_step_s'] / eager['median_step_s']:.2f}x time"
                     if "median_step_s" in sp else f"{eager['timed_steps']} steps timed"])
    elif eager:
        rows.append(["", "", "seqpar --cuda-graph=false", "", "", "", "", "",
                     f"no result (exit {eager.get('exit')})"])
    t = s.get("torch", {})
    modes = t.get("modes", {})
    if not modes:
        why = t.get("status") or f"exit {t.get('exit')}"
        if t.get("error"):
            why += ": " + t["error"]
        rows.append(["", "", "PyTorch", "", "", "", "", "", why])
    for mode, m in modes.items():
        label = "PyTorch eager" if mode == "eager" else "torch.compile"
        if m.get("status") != "ok":
            extra = f"; first step {m['first_step_s']:.1f} s" if "first_step_s" in m else ""
            if t.get("error"):
                extra += "; " + t["error"]
            rows.append(["", "", label, "", "", "", "", "", m.get("status", "") + extra])
            continue
        notes = [f"{len(m['step_times_s']) - m['warmup_steps']} steps timed",
                 f"{t.get('attn_implementation')} attention", t.get("optimizer", ""),
                 t.get("tf32", "")]
        if mode == "compile":
            notes.append(f"first step (compiling) {m['first_step_s']:.1f} s")
        mem = gib(m.get("peak_allocated_bytes"))
        if mem:
            mem += f" (allocated; reserved {gib(m.get('peak_reserved_bytes'))})"
        rows.append(["", "", label, num(m["median_step_s"]), si(m["tokens_per_s"]),
                     pct(mfu(flops, m["median_step_s"], peak)), mem,
                     gib(t["device_memory_used_mib"] * 2**20)
                     if t.get("device_memory_used_mib") is not None else "",
                     "; ".join(n for n in notes if n)])
    if "median_step_s" in sp:
        for mode, m in modes.items():
            if m.get("status") == "ok":
                rows.append(["", "", f"seqpar / {'eager' if mode == 'eager' else 'compile'}",
                             f"{sp['median_step_s'] / m['median_step_s']:.2f}x time",
                             "", "", "", "", ""])
    return rows


def startup_section(benches, made, stages):
    """Each benchmark program's start-up: process start to step 1, and the
    part of it that drew the parameters (startup_s and init_params_s of its
    timed run), the Llama-3.2-1B shape's on a line of its own, or why it
    has none."""
    rows, lines = [], []
    for n, s in benches:
        sp = s.get("seqpar", {})
        shape = f"{s.get('model', n)} s{s.get('seq')} b{s.get('batch')}"
        llama = str(s.get("model", "")).startswith("llama")
        who = ("the Llama-3.2-1B shape" if not made.get("small")
               else f"{s.get('model')} (standing in for the Llama-3.2-1B shape)")
        if sp.get("startup_s") is None:
            if llama:
                why = s.get("status", "not run")
                if sp.get("error"):
                    why += ": " + sp["error"]
                lines.append(f"Start-up of {who} ({shape}, {s.get('precision')}): not measured "
                             f"({why}).\n")
            continue
        note = sp.get("startup_from", "the first record of its --log")
        rows.append([shape, s.get("precision"), f"{sp['startup_s']:.2f}",
                     num(sp.get("init_params_s"), "{:.2f}"), note])
        if llama:
            lines.append(f"Start-up of {who} ({shape}, {s.get('precision')}): "
                         f"**{sp['startup_s']:.2f} s** from process start to step 1, of which "
                         f"**{num(sp.get('init_params_s'), '{:.2f}')} s** drawing the parameters "
                         f"(startup_s / init_params_s, {note}).\n")
    for n, s in stages.items():  # a Llama stage that did not run at all
        if n.startswith("llama") and all(n != b for b, _ in benches):
            lines.append(f"Start-up of the {n} program: not measured ({s.get('status')}).\n")
    if not rows and not lines:
        return []
    out = ["\n## Start-up\n"] + lines
    if rows:
        out.append(table(["shape", "precision", "process start to step 1 (s)",
                          "parameters drawn (s)", "from"], rows))
    return out


def vs_cpu_section(st, title, made, explained=False):
    """The tiny or multirank stage: each program against its cpu reference
    (`explained`: an earlier section said how they are compared)."""
    if not st or not st.get("cases"):
        return []
    rt = st.get("rtol", {})
    tol = "; ".join(f"{p}: gradients {v['grads']:g}, losses {v['loss']:g}" for p, v in rt.items())
    ref = st.get("reference", {})
    out = [f"\n## {title} ({st.get('steps')} steps)\n"]
    width = st.get("parallel", 1)
    run = (f"Each program runs as {st.get('what')} ({width} job{'s' if width != 1 else ''} at a "
           f"time{'; ' + st['shm'] if st.get('shm') else ''}). ")
    if explained:
        out.append(run + f"Compared as above; tolerances (relative): {tol}.\n")
    else:
        out.append(run + "Its reference is the same program compiled for the cpu target and "
                   "run when the bundle was made (default communication: MPI on the host "
                   f"buffers; on {ref.get('made_on') or '?'}), its dumps and logs in the "
                   "bundle: step 1's gradients per tensor (||run - cpu|| / ||cpu||) and every "
                   "step's loss; later steps' gradients are not compared (AdamW's first updates "
                   f"amplify summation-order differences). Tolerances (relative): {tol}. Why: "
                   f"{st.get('rtol_note')}.\n")
    rows = []
    for n, x in st["cases"].items():
        rows.append([n, x.get("layout") or "-", x.get("ranks"), x.get("precision"), x.get("status"),
                     num(x.get("grad_max_rel"), "{:.1e}") +
                     (f" ({x['grad_worst']})" if x.get("grad_worst") else ""),
                     ", ".join(f"{e:.1e}" for e in x.get("loss_rel", [])),
                     num(x.get("startup_s"), "{:.2f}")])
    out.append(table(["case", "layout", "ranks", "precision", "status",
                      "step-1 gradients, max rel err", "losses rel err", "start-up (s)"], rows))
    return out


def render(r):
    dev = r.get("device", {})
    made = r.get("bundle", {})
    out = [f"# seqpar vs PyTorch on one GPU: {dev.get('name', '?')}\n"]
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(r.get("started_epoch_s", 0)))
    out.append(f"Bundle: commit {made.get('commit')}{' (with local changes)' if made.get('dirty') else ''}, "
               f"programs `--target {made.get('target')}`"
               f"{', small stand-in shapes' if made.get('small') else ''}, made {made.get('date')}. "
               f"Run started {started}, {r.get('elapsed_s', 0):.0f} s so far "
               f"(deadline {r.get('deadline_epoch_s', 0) - r.get('started_epoch_s', 0):.0f} s "
               "after the driver's start).\n")
    if dev:
        bits = []
        if dev.get("total_memory_bytes"):
            bits.append(f"{gib(dev['total_memory_bytes'])}")
        if dev.get("d2d_copy_GBps"):
            bits.append(f"device copy {dev['d2d_copy_GBps']:.0f} GB/s (read + write)")
        if dev.get("h2d_copy_GBps"):
            bits.append(f"host to device {dev['h2d_copy_GBps']:.1f} GB/s (pinned)")
        p = dev.get("peaks_tflops", {})
        bits.append(f"peaks used for MFU: bf16 {p.get('bf16')} / fp32 {p.get('fp32')} TFLOP/s "
                    f"({p.get('source')})")
        if dev.get("torch"):
            bits.append(f"PyTorch {dev['torch']}, transformers {dev.get('transformers')}")
        else:
            bits.append(f"PyTorch peer: {dev.get('peer')}")
        out.append("Device: " + "; ".join(bits) + ".\n")
        if dev.get("probe"):
            out.append(f"sp-device-probe: `{dev['probe'].splitlines()[0]}`\n")
    stages = r.get("stages", {})
    benches = [(n, s) for n, s in stages.items() if "flops_per_step" in s]
    if benches:
        out.append("## Training step: seqpar against PyTorch (transformers, AdamW)\n")
        out.append("Median step time after warm-up steps; MFU = (6 N T + 12 L S W T) / step "
                   "time / peak, the same count for both (N parameters, T tokens per step, L "
                   "layers, W attention width); peak memory as each framework's allocator "
                   "counts it, device memory = nvidia-smi's largest `memory.used` during the "
                   "process less the idle figure (the PyTorch process runs eager, then "
                   "torch.compile).\n")
        rows = []
        for n, s in benches:
            rows += bench_rows(n, s)
        out.append(table(["shape", "precision", "run", "median step (s)", "tokens/s", "MFU",
                          "peak memory", "device memory", "notes"], rows))
        notes = []
        for n, s in benches:
            line = (f"{n}: {s['params']:,} parameters, {s['flops_per_step'] / 1e9:,.1f} GFLOP per "
                    "step")
            counted = s.get("torch", {}).get("num_params")
            if counted is not None and counted != s["params"]:
                line += f" (transformers' model has {counted:,} parameters)"
            notes.append(line)
        out.append("\nModel FLOPs: " + "; ".join(notes) + ".\n")
        for n, s in benches:
            ops = s.get("seqpar_ops", {})
            if not ops.get("by_kind"):
                if ops:
                    why = ops.get("status") or ("timed out" if ops.get("exit") == "timeout"
                                                else f"exit {ops.get('exit')}")
                    out.append(f"\n### seqpar per-op time: {n}\n\nNo table ({why}"
                               f"{': ' + ops['error'] if ops.get('error') else ''}).\n")
                continue
            out.append(f"\n### seqpar per-op time: {n}\n")
            out.append(f"A run with CUDA_LAUNCH_BLOCKING=1 and `--trace` (each op's span then "
                       f"holds its device work), {ops['steps']} step(s) after the first: a step "
                       f"takes {ops['step_ms']:.1f} ms so, {ops['op_ms']:.1f} ms of it in ops.\n")
            total = ops["op_ms"] or 1
            out.append(table(["op", "ms / step", "calls / step", "share of op time"],
                             [[k, f"{ms:.2f}", f"{c:.0f}", pct(ms / total)]
                              for k, ms, c in ops["by_kind"]]))
            out.append("\nLargest by op and module (layers folded):\n")
            out.append(table(["op, module", "ms / step", "calls / step", "share"],
                             [[k, f"{ms:.2f}", f"{c:.0f}", pct(ms / total)]
                              for k, ms, c in ops["by_op"][:12]]))
    out += startup_section(benches, made, stages)
    c = stages.get("curve")
    if c:
        out.append(f"\n## {c.get('steps')} training steps side by side ({c.get('model')}, "
                   f"{c.get('precision')}, s{c.get('seq')} b{c.get('batch')}, dropout 0)\n")
        h = c.get("hyper", {})
        out.append(f"Initial weights: {c.get('init')}. Data: {c.get('data')}. AdamW lr "
                   f"{h.get('lr')} (linear warm-up over {c.get('warmup_steps')} steps from 0), "
                   f"betas {h.get('beta1')}/{h.get('beta2')}, eps {h.get('adam_eps')}, weight "
                   f"decay {h.get('weight_decay')}, gradient clipping {h.get('grad_clip')}. "
                   f"seqpar: {c.get('seqpar', {}).get('status')}"
                   f"{' (' + c['seqpar']['error'] + ')' if c.get('seqpar', {}).get('error') else ''}"
                   f"; PyTorch: {c.get('torch', {}).get('status')}"
                   f"{' (' + c['torch']['error'] + ')' if c.get('torch', {}).get('error') else ''}.\n")
        if c.get("data_order"):
            out.append(f"Data order: {c['data_order']}.\n")
        if c.get("max_rel_diff") is not None:
            out.append(f"Largest relative loss difference {c['max_rel_diff']:.2e} (step "
                       f"{c['max_rel_diff_step']}); mean loss of the last 10 steps: seqpar "
                       f"{c['last10_mean_seqpar']:.4f}, PyTorch {c['last10_mean_torch']:.4f}.\n")
        rows = [row for row in c.get("rows", []) if row[0] in (1, 2, 5) or row[0] % 10 == 0]
        if rows:
            out.append(table(["step", "seqpar loss", "PyTorch loss", "rel diff",
                              "seqpar grad norm", "PyTorch grad norm"],
                             [[x[0], num(x[1]), num(x[2]), num(x[3], "{:.1e}"), num(x[4]),
                               num(x[5])] for x in rows]))
            out.append("\nEvery step: curve/curve.tsv" +
                       (f", plot {c['plot']}" if c.get("plot") else "") + ".\n")
    kern = stages.get("kernels")
    if kern and kern.get("results"):
        out.append("\n## Memory-bound kernels against copy bandwidth\n")
        out.append(f"{kern.get('device')}, median of {kern.get('reps')} calls. Bytes: what "
                   "the kernel must read and write (inputs once, outputs once); copy: "
                   "cudaMemcpy device to device moving the same bytes; ratio = kernel GB/s "
                   "/ copy GB/s (aim: 0.7). Paths: fused / two-stage = what the backend "
                   "runs; two-pass = its fallback for rows too wide for registers; before "
                   "= the kernels these replaced (for the bf16 kernels: converts around the "
                   "f32 kernel); convert: vector = four elements a thread, "
                   "scalar = the one-element kernel (before, and still for unaligned buffers); "
                   "embedding_grad: sorted = tokens sorted by row, each row summed in token "
                   "order, before = one atomicAdd per element (bf16: converts around it); "
                   "attention: stored = bf16 q, k, v as stored; linear, linear_gelu, "
                   "linear_gelu_grad: epilogue = one cuBLASLt GEMM with the bias, the GELU, "
                   "or the GELU's gradient and the bias gradient as its epilogue, before = "
                   "the kernels it replaced (SPRT_CUBLASLT=0) (all compute-bound: the time "
                   "against before is the figure, not the ratio); adamw, adamw_master bf16 "
                   "(f32 master weights writing the bf16 parameter): per-tensor = one call "
                   "per parameter tensor over GPT-2 124M's 148 (the step's optimizer as the "
                   "program runs it) or on wte alone; sum_squares (the gradient norm): "
                   "list = the multi-tensor sum the program calls, before = one call per "
                   "tensor.\n")
        out.append(table(["kernel", "shape", "path", "MB", "median us", "GB/s", "copy GB/s",
                          "ratio"],
                         [[x["kernel"], x["shape"], x["path"], num(x["bytes"] / 1e6, "{:.1f}"),
                           num(x["median_us"], "{:.1f}"), num(x["gbps"], "{:.0f}"),
                           num(x["copy_gbps"], "{:.0f}"), num(x["ratio"], "{:.3f}")]
                          for x in kern["results"]]))
    conf = stages.get("conformance")
    if conf and conf.get("binaries"):
        out.append("\n## Conformance suite and nvcc tests\n")
        out.append(table(["binary", "status", "tests", "passed", "failed", "skipped", "failing"],
                         [[n, b.get("status") + (": " + b["error"] if b.get("error") else ""),
                           b.get("tests", ""), b.get("passed", ""),
                           b.get("failed", ""), b.get("skipped", ""),
                           ", ".join(b.get("failed_names", []))]
                          for n, b in conf["binaries"].items()]))
    explained = False
    for name, title in (("tiny", "tiny configs, one rank"),
                        ("multirank", "several ranks on one device")):
        st = stages.get(name)
        out += vs_cpu_section(st, f"`--target {made.get('target')}` against `--target cpu`, "
                              f"{title}", made, explained)
        explained = explained or bool(st and st.get("cases"))
    cal = stages.get("calibrate")
    if cal and cal.get("gemm_tflops"):
        out.append("\n## The planner's rates on this device (sp-calibrate)\n")
        peaks = ", ".join(f"{p} {v / 1e12:.1f}" for p, v in cal.get("peak_flops", {}).items())
        out.append(f"One rank, backend {cal.get('backend')}; published peaks given (TFLOP/s): "
                   f"{peaks or 'none'}. Fit them on the development machine: `sp-plan "
                   f"--calibrate DIR --measured OUTDIR/{cal.get('measured')} --cluster BASE` "
                   "(BASE: the description of a cluster of this device, examples/clusters).\n")
        rows = [[f"{p} GEMM (median, fastest)", f"{v['median']:.3g}, {v['fastest']:.3g} TFLOP/s"]
                for p, v in cal["gemm_tflops"].items()]
        if cal.get("attention_tflops") is not None:
            rows.append([f"{cal.get('attention_dtype')} causal attention, forward + backward",
                         f"{cal['attention_tflops']:.3g} TFLOP/s"])
        rows += [[op, f"{gbps:.0f} GB/s"] for op, gbps in cal.get("memory_gbps", {}).items()]
        out.append(table(["measured", "rate"], rows))
    out.append("\n## Stages\n")
    out.append(table(["stage", "status", "seconds", "budget (s)"],
                     [[n, s.get("status"), num(s.get("seconds"), "{:.0f}"),
                       num(s.get("budget_s"), "{:.0f}")] for n, s in stages.items()]))
    return "\n".join(out)


def summary_lines(r):
    """A few lines for the terminal."""
    lines = ["== summary"]
    for n, s in r.get("stages", {}).items():
        line = f"{n}: {s.get('status')}"
        sp = s.get("seqpar", {})
        if "median_step_s" in sp:
            line += f"; seqpar {sp['median_step_s'] * 1e3:.1f} ms"
            for mode, m in s.get("torch", {}).get("modes", {}).items():
                if m.get("status") == "ok":
                    line += f", torch {mode} {m['median_step_s'] * 1e3:.1f} ms"
        if sp.get("startup_s") is not None:
            line += (f"; start-up {sp['startup_s']:.2f} s (parameters "
                     f"{num(sp.get('init_params_s'), '{:.2f}')} s)")
        if s.get("cases"):
            worst = {}
            for x in s["cases"].values():
                if x.get("grad_max_rel") is not None:
                    p = x.get("precision")
                    worst[p] = max(worst.get(p, 0.0), x["grad_max_rel"])
            if worst:
                line += "; worst step-1 gradient rel err " + ", ".join(
                    f"{p} {e:.1e}" for p, e in worst.items())
        if n == "curve" and s.get("max_rel_diff") is not None:
            line += f"; max rel loss diff {s['max_rel_diff']:.1e}"
        lines.append(line)
    return "\n".join(lines)


if __name__ == "__main__":
    d = sys.argv[1]
    with open(os.path.join(d, "results.json")) as f:
        res = json.load(f)
    with open(os.path.join(d, "results.md"), "w") as f:
        f.write(render(res))
