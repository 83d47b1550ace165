"""Checks sp-plan --max-seq's answer independently (sp-plan-max-seq.test):
the winner, imported and compiled in full at the answer's length, has the
planned per-rank peak and fits; sp-plan's whole search (every recompute
policy, micro-batch count, ZeRO stage and attention, each compiled whole and
none skipped for its leanest variant) finds a layout at that length and none
one block up.

usage: sp-plan-max-seq.py MAXSEQ.json CONFIG CLUSTER GLOBAL_BATCH MAX_MB WORKDIR
"""
import json
import os
import subprocess
import sys

plan_path, config, cluster, batch, max_mb, work = sys.argv[1:7]
bin_dir = os.environ["SEQPAR_BIN"]
plan = json.load(open(plan_path))
seq, block = plan["max_seq"], plan["seq_block"]
if not plan["layouts"]:
    sys.exit("no layout reaches a sequence")
os.makedirs(work, exist_ok=True)

winner = plan["layouts"][0]
model = os.path.join(work, "model.mlir")
report = os.path.join(work, "report.json")
subprocess.run([os.path.join(bin_dir, "sp-import"), "--hf-config", config,
                "--seq-len", str(seq), "--batch", str(winner["import_batch"]),
                "-o", model], check=True)
subprocess.run([os.path.join(bin_dir, "sp-compile"), model]
               + winner["sp_compile_flags"] + ["--report", "memory",
                                               "-o", report], check=True)
compiled = json.load(open(report))["per_rank_peak_bytes"]
if compiled != winner["per_rank_peak_bytes"]:
    sys.exit("%s: sp-plan %s, sp-compile %s" % (winner["layout"],
                                                winner["per_rank_peak_bytes"],
                                                compiled))
if compiled["total"] > plan["memory_bytes"]:
    sys.exit("the winner needs %d bytes, more than %d" %
             (compiled["total"], plan["memory_bytes"]))
print("winner %s at %d: %d bytes of %d" % (winner["layout"], seq,
                                          compiled["total"],
                                          plan["memory_bytes"]))


def search(length):
    run = subprocess.run([os.path.join(bin_dir, "sp-plan"), "--hf-config",
                          config, "--cluster", cluster, "--global-batch",
                          batch, "--max-micro-batches", max_mb, "--seq-len",
                          str(length), "--lean-first=false",
                          "--compose-layers", "0", "--json"],
                         capture_output=True,
                         text=True)
    if run.returncode not in (0, 2):
        sys.exit("sp-plan --seq-len %d failed: %s" % (length, run.stderr))
    out = json.loads(run.stdout)
    return out["fit"], out["compiled"]


fit, compiled_count = search(seq)
print("whole search at %d: %d of %d compiled fit" % (seq, fit,
                                                    compiled_count))
fit, compiled_count = search(seq + block)
print("whole search at %d: %d of %d compiled fit" % (seq + block, fit,
                                                    compiled_count))
