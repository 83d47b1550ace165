"""Writes a damaged copy of a safetensors checkpoint: a tensor dropped or
its shape changed (for the checkpoint error tests)."""
import argparse
import json
import struct

p = argparse.ArgumentParser()
p.add_argument("input")
p.add_argument("--drop", action="append", default=[])
p.add_argument("--reshape", action="append", default=[], help="NAME=d0,d1")
p.add_argument("-o", required=True)
args = p.parse_args()

with open(args.input, "rb") as f:
    (n,) = struct.unpack("<Q", f.read(8))
    header = json.loads(f.read(n))
    data = f.read()
shapes = {k: [int(d) for d in v.split(",")] for k, v in
          (r.split("=") for r in args.reshape)}
out_header, chunks, offset = {}, [], 0
for name, info in header.items():
    if name == "__metadata__" or name in args.drop:
        continue
    b, e = info["data_offsets"]
    chunks.append(data[b:e])
    out_header[name] = {"dtype": info["dtype"],
                        "shape": shapes.get(name, info["shape"]),
                        "data_offsets": [offset, offset + e - b]}
    offset += e - b
text = json.dumps(out_header).encode()
text += b" " * ((8 - (8 + len(text)) % 8) % 8)
with open(args.o, "wb") as f:
    f.write(struct.pack("<Q", len(text)))
    f.write(text)
    for c in chunks:
        f.write(c)
