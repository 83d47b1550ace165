"""Counts an op in @train_step of a compiled module, and how many carry a
residual operand (norm-residual-fusion.test)."""
import sys

text = open(sys.argv[1]).read()
step = text[text.index("func.func @train_step"):]
op = sys.argv[2]
lines = [l for l in step.splitlines() if " = " + op + " " in l]
print("%s: %d, with a residual: %d" %
      (op, len(lines), sum(" residual %" in l for l in lines)))
