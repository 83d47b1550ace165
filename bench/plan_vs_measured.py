"""sp-plan's predictions against measured CPU-rank steps (bench/plan-vs-measured.sh).

For each rank count: the layouts sp-plan ranks with this machine's
calibration (its default search, and restricted to full and selective
recompute and to several micro-batches, so that every dimension appears),
each compiled with the flags sp-plan prints, run under mpirun, its median
step time and its measured memory set beside the prediction. Prints a table
per rank count, Spearman's rank correlation of predicted and measured step
times, the largest relative error, and whether every layout's planned peak
(rank 0's: its pipeline stage's) equals the allocator's measurement of
what the plan covers.

usage: plan_vs_measured.py CONFIG SEQ GLOBAL_BATCH STEPS WORKDIR R...
"""
import json
import os
import statistics
import subprocess
import sys

config, seq, batch, steps, work = sys.argv[1:6]
rank_counts = [int(r) for r in sys.argv[6:]]
bin_dir = os.environ["SEQPAR_BIN"]


def wait_mode(ranks):
    """How a waiting rank waits. spin (Open MPI's waits and the runtime's,
    --wait spin) keeps its core: each rank then runs at a constant speed, as
    a device of its own does, while every rank has a core. With more ranks
    than cores a spinning rank takes time slices its peers need, so there
    it yields (the runtime's default), and an idle pipeline stage lends its
    core to the busy ones. WAIT=spin|yield overrides."""
    return os.environ.get("WAIT") or ("spin" if ranks <= os.cpu_count()
                                      else "yield")


def mpirun(wait):
    cmd = ["mpirun", "--allow-run-as-root", "--oversubscribe"]
    return cmd + (["--mca", "mpi_yield_when_idle", "0"]
                  if wait == "spin" else [])
env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")


def run(args, **kw):
    return subprocess.run(args, check=True, env=env, **kw)


def ranks_of(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(a, b):
    ra, rb = ranks_of(a), ranks_of(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5


failed = False
for r in rank_counts:
    wait = wait_mode(r)
    cal = os.path.join(work, "cal%d" % r)
    run([os.path.join(bin_dir, "sp-plan"), "--calibrate", cal, "--ranks",
         str(r), "--launcher", " ".join(mpirun(wait))],
        stdout=subprocess.DEVNULL)
    rows = {}
    for extra in ([], ["--recompute", "full"], ["--recompute", "selective"],
                  ["--micro-batches", "2,4"]):
        out = run([os.path.join(bin_dir, "sp-plan"), "--hf-config", config,
                   "--seq-len", seq, "--global-batch", batch, "--precision",
                   "fp32", "--cluster", os.path.join(cal, "cluster.json"),
                   "--calibration", os.path.join(cal, "calibration.json"),
                   "--top", "1000", "--json"] + extra,
                  stdout=subprocess.PIPE, text=True).stdout
        for row in json.loads(out)["ranked"]:
            rows.setdefault(row["layout"], row)
    results = []
    for i, (name, row) in enumerate(sorted(rows.items())):
        d = os.path.join(work, "r%d-%d" % (r, i))
        os.makedirs(d, exist_ok=True)
        model, prog = os.path.join(d, "model.mlir"), os.path.join(d, "step")
        log = os.path.join(d, "log.jsonl")
        run([os.path.join(bin_dir, "sp-import"), "--hf-config", config,
             "--seq-len", seq, "--batch", str(row["import_batch"]), "-o",
             model])
        run([os.path.join(bin_dir, "sp-compile"), model] +
            row["sp_compile_flags"] + ["-o", prog])
        run(mpirun(wait) + ["-np", str(r), prog, "--steps", steps, "--log", log,
                      "--wait", wait],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        lines = [json.loads(l) for l in open(log)]
        measured = statistics.median(l["step_time_s"] for l in lines[2:])
        # The log is rank 0's, of the first pipeline stage.
        mem = lines[-1]["memory"]
        planned = row["stage_peak_bytes"][0]
        # What the compiler plans, as the allocator measured it: every
        # category but the CPU kernels' own scratch.
        covered = sum(v for k, v in mem["by_category"].items()
                      if k != "scratch")
        results.append((name, row["step_seconds"], measured, planned,
                        covered, mem["by_category"].get("scratch", 0),
                        row["pp"] > 1))
    print("\n%d ranks (calibration: %s, --wait %s)" % (r, cal, wait))
    print("%-34s %10s %10s %7s %12s %12s %9s" %
          ("layout", "predicted", "measured", "error", "planned B",
           "measured B", "scratch"))
    for name, p, m, pb, mb, scratch, _ in results:
        err = p / m - 1
        print("%-34s %10.4f %10.4f %+6.1f%% %12d %12d %9d%s" %
              (name, p, m, 100 * err, pb, mb, scratch,
               "" if pb == mb else "  MEMORY DIFFERS"))
        failed |= pb != mb
    print("%d layouts, planned peak %s" %
          (len(results), "equal for all" if all(x[3] == x[4] for x in results)
           else "DIFFERS"))
    for label, subset in (("all", results),
                          ("without a pipeline",
                           [x for x in results if not x[6]]),
                          ("with a pipeline", [x for x in results if x[6]])):
        if len(subset) < 2:
            continue
        rho = spearman([x[1] for x in subset], [x[2] for x in subset])
        largest = max(abs(x[1] / x[2] - 1) for x in subset)
        print("  %-20s %3d layouts: Spearman %.3f, largest error %.1f%%" %
              (label, len(subset), rho, 100 * largest))
sys.exit(1 if failed else 0)
