"""Writes a damaged copy of a safetensors checkpoint (a tensor dropped, its
shape changed or its values set, for the checkpoint error tests; --flip N
copies the file byte for byte, metadata included, except the N-th byte from
the end, which is inverted), or with --shards N splits it
into a Hugging Face sharded checkpoint: model-0000i-of-0000N.safetensors and
model.safetensors.index.json in the directory -o."""
import argparse
import json
import struct

p = argparse.ArgumentParser()
p.add_argument("input")
p.add_argument("--drop", action="append", default=[])
p.add_argument("--reshape", action="append", default=[], help="NAME=d0,d1")
p.add_argument("--fill", action="append", default=[], help="NAME=VALUE (F32)")
p.add_argument("--flip", type=int, default=0)
p.add_argument("--shards", type=int, default=0)
p.add_argument("-o", required=True)
args = p.parse_args()

if args.flip:
    with open(args.input, "rb") as f:
        raw = bytearray(f.read())
    raw[-args.flip] ^= 0xFF
    with open(args.o, "wb") as f:
        f.write(raw)
    raise SystemExit(0)

with open(args.input, "rb") as f:
    (n,) = struct.unpack("<Q", f.read(8))
    header = json.loads(f.read(n))
    data = f.read()
shapes = {k: [int(d) for d in v.split(",")] for k, v in
          (r.split("=") for r in args.reshape)}
fills = {k: float(v) for k, v in (r.split("=") for r in args.fill)}


def write(path, names):
    out_header, chunks, offset = {}, [], 0
    for name in names:
        info = header[name]
        b, e = info["data_offsets"]
        chunk = data[b:e]
        if name in fills:
            chunk = struct.pack("<f", fills[name]) * ((e - b) // 4)
        chunks.append(chunk)
        out_header[name] = {"dtype": info["dtype"],
                            "shape": shapes.get(name, info["shape"]),
                            "data_offsets": [offset, offset + e - b]}
        offset += e - b
    text = json.dumps(out_header).encode()
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)


names = [n for n in header if n != "__metadata__" and n not in args.drop]
if args.shards:
    import os
    os.makedirs(args.o, exist_ok=True)
    weight_map = {}
    for i in range(args.shards):
        file = f"model-{i + 1:05d}-of-{args.shards:05d}.safetensors"
        part = names[i::args.shards]
        write(os.path.join(args.o, file), part)
        weight_map.update({n: file for n in part})
    with open(os.path.join(args.o, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)
else:
    write(args.o, names)
