"""--init-from-partial: each parameter of DUMP equals the one of the same name
in LOADED when LOADED has it, else the one in DRAWN (the program's own
draw from the same seed). Prints how many came from each."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqpar_e2e import read_safetensors  # noqa: E402

dump, loaded, drawn = (read_safetensors(p) for p in sys.argv[1:4])
counts = {"loaded": 0, "drawn": 0}
bad = []
for name, value in dump.items():
    source = "loaded" if name in loaded else "drawn"
    counts[source] += 1
    if value != (loaded if source == "loaded" else drawn)[name]:
        bad.append(name)
print(f"{counts['loaded']} parameters equal the file's, {counts['drawn']} "
      f"the seed's draws: {'OK' if not bad else 'MISMATCH ' + ', '.join(bad)}")
sys.exit(1 if bad else 0)
