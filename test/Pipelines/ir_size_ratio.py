"""Compares the sizes of two emitted programs (bytes of their IR): prints
the ratio of the second to the first and OK when it is within the given
relative tolerance of 1, MISMATCH (exit 1) otherwise."""
import os
import sys

small, large, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
a, b = os.path.getsize(small), os.path.getsize(large)
ratio = b / a
good = abs(ratio - 1) <= tolerance
print(f"{a} -> {b} bytes, ratio {ratio:.4f} (within {tolerance:.0%}): "
      f"{'OK' if good else 'MISMATCH'}")
sys.exit(0 if good else 1)
