"""Writes a copy of a safetensors file with its layout broken the ways the
safetensors library refuses (for the --init-from strictness tests), or with
an extra tensor:
  --duplicate NAME   NAME's header entry written twice (JSON keeps the last)
  --overlap NAME     NAME's data starts 4 bytes into the tensor before it
  --gap NAME         4 bytes no tensor owns before NAME's data
  --trailing         4 bytes no tensor owns after the last tensor
  --add NAME=d0,d1   an extra F32 tensor of zeros
The metadata (checksums) is dropped: the checks under test are the
layout's, which hold without it."""
import argparse
import json
import struct

p = argparse.ArgumentParser()
p.add_argument("input")
p.add_argument("-o", required=True)
p.add_argument("--duplicate")
p.add_argument("--overlap")
p.add_argument("--gap")
p.add_argument("--trailing", action="store_true")
p.add_argument("--add", action="append", default=[])
args = p.parse_args()

with open(args.input, "rb") as f:
    (n,) = struct.unpack("<Q", f.read(8))
    header = json.loads(f.read(n))
    data = f.read()
header.pop("__metadata__", None)
names = sorted(header, key=lambda k: header[k]["data_offsets"][0])
blobs = {k: data[header[k]["data_offsets"][0]:header[k]["data_offsets"][1]]
         for k in names}
for spec in args.add:
    name, dims = spec.split("=")
    shape = [int(d) for d in dims.split(",")]
    count = 1
    for d in shape:
        count *= d
    header[name] = {"dtype": "F32", "shape": shape}
    blobs[name] = b"\0" * (4 * count)
    names.append(name)
out, at = bytearray(), 0
for k in names:
    if k == args.gap:
        out += b"\0" * 4
        at += 4
    b = blobs[k]
    start = at - 4 if k == args.overlap else at
    if k == args.overlap:
        out = out[:-4]
    header[k]["data_offsets"] = [start, start + len(b)]
    out += b
    at = start + len(b)
if args.trailing:
    out += b"\0" * 4
text = json.dumps(header)
if args.duplicate:
    entry = json.dumps({args.duplicate: header[args.duplicate]})[1:-1]
    text = text[:-1] + ", " + entry + "}"
raw = text.encode()
with open(args.o, "wb") as f:
    f.write(struct.pack("<Q", len(raw)) + raw + bytes(out))
