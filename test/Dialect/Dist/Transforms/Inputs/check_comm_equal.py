"""Checks that two sp-report=comm reports move the same bytes in every layer
(TP's all-reduces vs TP+SP's all-gathers and reduce-scatters), and prints
what each layer sends."""
import json
import sys

tp, sp = (json.load(open(f)) for f in sys.argv[1:3])
ok = len(tp["layers"]) == len(sp["layers"]) > 0
for a, b in zip(tp["layers"], sp["layers"]):
    kinds_a = sorted(c["op"] for c in a["collectives"])
    kinds_b = sorted(c["op"] for c in b["collectives"])
    same = a["bytes_sent"] == b["bytes_sent"]
    ok = ok and same
    print(f"layer {a['layer']}: tp {a['bytes_sent']} bytes {kinds_a}, "
          f"tp+sp {b['bytes_sent']} bytes {kinds_b}: {'EQUAL' if same else 'DIFFERENT'}")
print("all layers equal" if ok else "MISMATCH")
sys.exit(0 if ok else 1)
