"""Checks that sp-plan's per-rank peak of each ranked layout equals, by
category and to the byte, what `sp-compile --report memory` prints for the
same model and flags (sp-plan-memory.test).

usage: sp-plan-memory.py PLAN.json CONFIG SEQ_LEN WORKDIR
"""
import json
import os
import subprocess
import sys

plan_path, config, seq_len, work = sys.argv[1:5]
bin_dir = os.environ["SEQPAR_BIN"]
plan = json.load(open(plan_path))
rows = plan["ranked"]
if not rows:
    sys.exit("no ranked layouts to compare")
os.makedirs(work, exist_ok=True)
for i, row in enumerate(rows):
    model = os.path.join(work, "model%d.mlir" % i)
    report = os.path.join(work, "report%d.json" % i)
    subprocess.run([os.path.join(bin_dir, "sp-import"), "--hf-config", config,
                    "--seq-len", seq_len, "--batch", str(row["import_batch"]),
                    "-o", model], check=True)
    subprocess.run([os.path.join(bin_dir, "sp-compile"), model]
                   + row["sp_compile_flags"] + ["--report", "memory",
                                                "-o", report], check=True)
    compiled = json.load(open(report))["per_rank_peak_bytes"]
    planned = row["per_rank_peak_bytes"]
    if compiled != planned:
        sys.exit("%s: sp-plan %s, sp-compile %s" % (row["layout"], planned,
                                                    compiled))
    print("equal: %s: %d bytes" % (row["layout"], planned["total"]))
print("compared %d layouts" % len(rows))
