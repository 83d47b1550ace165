"""Counts an op in @train_step of a compiled module (the last function)
and, for a norm's backward, how many carry a residual operand
(norm-residual-fusion.test)."""
import sys

text = open(sys.argv[1]).read()
step = text[text.index("func.func @train_step"):]
op = sys.argv[2]
lines = [l for l in step.splitlines() if " = " + op + " " in l]
line = "%s: %d" % (op, len(lines))
if op.endswith("_grad"):
    line += ", with a residual: %d" % sum(" residual %" in l for l in lines)
print(line)
