"""The winner of sp-plan --max-seq compiled in full by sp-compile at the
answer's length and one block longer (bench/max-seq.sh).

usage: max_seq_check.py MAXSEQ.json CONFIG WORKDIR
"""
import json
import os
import subprocess
import sys

plan_path, config, work = sys.argv[1:4]
bin_dir = os.environ["SEQPAR_BIN"]
plan = json.load(open(plan_path))
winner = plan["layouts"][0]
os.makedirs(work, exist_ok=True)
for seq in (plan["max_seq"], plan["max_seq"] + plan["seq_block"]):
    model = os.path.join(work, "model.mlir")
    report = os.path.join(work, "report.json")
    subprocess.run([os.path.join(bin_dir, "sp-import"), "--hf-config", config,
                    "--seq-len", str(seq), "--batch",
                    str(winner["import_batch"]), "-o", model], check=True)
    subprocess.run([os.path.join(bin_dir, "sp-compile"), model]
                   + winner["sp_compile_flags"]
                   + ["--report", "memory", "-o", report], check=True)
    total = json.load(open(report))["per_rank_peak_bytes"]["total"]
    verdict = "fits" if total <= plan["memory_bytes"] else "does not fit"
    print("sp-compile %s at %d: %d bytes of %d, %s" %
          (winner["layout"], seq, total, plan["memory_bytes"], verdict))
