"""Prints the per-stage entries of a comm report, one line per collective
group and per point-to-point record, and whether the stages' bytes sum to
the program's total (each rank runs one stage's function).

usage: pp_comm.py REPORT.json"""
import json
import sys

r = json.load(open(sys.argv[1]))
if "stages" not in r:
    print("no stages")
    sys.exit(0)
for s in r["stages"]:
    k = s["stage"]
    print(f"stage {k}: bytes_sent {s['bytes_sent']}")
    for c in s["collectives"]:
        print(f"stage {k}: {c['op']} {c['axis']} x{c['count']} {c['bytes_sent']}")
    p = s["point_to_point"]
    for t in p["micro_batches"]:
        print(f"stage {k}: {p['axis']} micro-batch {t['micro_batch']}: "
              f"send {t['send_bytes']} bytes ({t['sends']} sends), "
              f"recv {t['recv_bytes']} bytes ({t['recvs']} recvs)")
    if "weight_exchange" in p:
        t = p["weight_exchange"]
        print(f"stage {k}: {p['axis']} weight exchange: "
              f"send {t['send_bytes']} bytes ({t['sends']} sends), "
              f"recv {t['recv_bytes']} bytes ({t['recvs']} recvs)")
total = sum(s["bytes_sent"] for s in r["stages"])
print(f"stages sum {total}, total {r['total_bytes_sent']}: "
      + ("EQUAL" if total == r["total_bytes_sent"] else "DIFFER"))
