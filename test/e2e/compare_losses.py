"""Prints whether the losses of several --dump-outputs files agree to 1e-5
relative; exits 1 if not."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

losses = [e2e.dumped_loss(f) for f in sys.argv[1:]]
worst = max(e2e.rel_err(l, losses[0]) for l in losses)
print(f"{len(losses)} losses, largest relative difference {worst:.1e}: "
      f"{'EQUAL' if worst <= 1e-5 else 'DIFFERENT'} ({losses})")
sys.exit(0 if worst <= 1e-5 else 1)
