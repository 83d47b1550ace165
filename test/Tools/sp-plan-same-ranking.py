"""Checks that two sp-plan --json runs rank the same layouts with the same
figures (sp-plan-lean.test: pruning and composition change no answer).

usage: sp-plan-same-ranking.py A.json B.json
"""
import json
import sys

a, b = (json.load(open(p))["ranked"] for p in sys.argv[1:3])
keys = ("layout", "per_rank_peak_bytes", "step_seconds")
rows_a = [tuple(json.dumps(r[k], sort_keys=True) for k in keys) for r in a]
rows_b = [tuple(json.dumps(r[k], sort_keys=True) for k in keys) for r in b]
if rows_a != rows_b:
    for x, y in zip(rows_a, rows_b):
        if x != y:
            sys.exit("first difference: %s vs %s" % (x, y))
    sys.exit("%d rows vs %d" % (len(rows_a), len(rows_b)))
print("same %d rows" % len(rows_a))
