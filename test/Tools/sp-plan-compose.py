"""Checks sp-plan's composition of deep models from shallow compiles
against whole compiles (sp-plan-compose.test): FLOPs and bytes per axis
equal, every composed peak at most the whole compile's plus the arena's
noise (under the near-limit margin, 10%), and some equal to the byte.

usage: sp-plan-compose.py PLAN.json
"""
import json
import sys

plan = json.load(open(sys.argv[1]))
checked = plan["composition_checked"]
if not checked:
    sys.exit("no candidate was composed")
if plan["composition_mismatches"]:
    sys.exit("%d composed FLOPs, bytes or rejections unlike the whole "
             "compile's" % plan["composition_mismatches"])
if plan["composition_max_over"] >= 0.10:
    sys.exit("a composed peak exceeds the whole compile's by %.3f%%" %
             (100 * plan["composition_max_over"]))
print("composed %d, checked %d: %d equal to the byte, %d below, %d above"
      % (plan["composed"], checked, plan["composition_equal"],
         plan["composition_under"], plan["composition_over"]))
