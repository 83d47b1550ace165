"""Runs each layout of an sp-plan JSON under mpirun and checks that its
planned per-rank peak equals the allocator's measurement of the categories
the compiler plans (plan-calibrate.test). Every layout runs twice, waiting
by yielding and by spinning (--wait spin, as bench/plan-vs-measured.sh
runs): the losses must be the same.

usage: plan_calibrate_check.py PLAN.json CONFIG SEQ_LEN WORKDIR
"""
import json
import os
import subprocess
import sys

plan_path, config, seq_len, work = sys.argv[1:5]
bin_dir = os.environ["SEQPAR_BIN"]
plan = json.load(open(plan_path))
gpus = plan["gpus"]
os.makedirs(work, exist_ok=True)
env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
for i, row in enumerate(plan["ranked"]):
    model = os.path.join(work, "model%d.mlir" % i)
    prog = os.path.join(work, "step%d" % i)
    subprocess.run([os.path.join(bin_dir, "sp-import"), "--hf-config", config,
                    "--seq-len", seq_len, "--batch", str(row["import_batch"]),
                    "-o", model], check=True)
    subprocess.run([os.path.join(bin_dir, "sp-compile"), model] +
                   row["sp_compile_flags"] + ["-o", prog], check=True)
    losses = []
    for wait in ("yield", "spin"):
        log = os.path.join(work, "log%d-%s.jsonl" % (i, wait))
        subprocess.run(["mpirun", "--allow-run-as-root", "--oversubscribe",
                        "-np", str(gpus), prog, "--steps", "2", "--log", log,
                        "--wait", wait],
                       check=True, env=env, stdout=subprocess.DEVNULL)
        losses.append([json.loads(l)["loss"] for l in open(log)])
    if losses[0] != losses[1]:
        sys.exit("%s: losses %s waiting by yielding, %s by spinning" %
                 (row["layout"], losses[0], losses[1]))
    memory = json.loads(open(log).readlines()[-1])["memory"]
    measured = sum(v for k, v in memory["by_category"].items()
                   if k != "scratch")
    # The log is rank 0's: the first pipeline stage's.
    planned = row["stage_peak_bytes"][0]
    if measured != planned:
        sys.exit("%s: planned %d bytes, measured %d" %
                 (row["layout"], planned, measured))
    print("equal: %s: %d bytes planned and measured" % (row["layout"], planned))
print("%d layouts" % len(plan["ranked"]))
