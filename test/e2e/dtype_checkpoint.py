"""Checkpoints in other element types, for init-from-dtype.test (json and
struct only: no numpy or safetensors package needed).

  convert SRC --dtype BF16|F16|F64 [--shards N] [--set NAME=VALUE] -o OUT
      SRC's tensors in the dtype (BF16 rounded to nearest even on the uint32
      bits, F16 by Python's struct 'e' (round half to even), F64 exactly),
      as one file, or with
      --shards as a Hugging Face save_pretrained checkpoint: directory OUT
      with model-0000i-of-0000N.safetensors and model.safetensors.index.json
  round SRC --dtype BF16|F16 -o OUT
      the same values (rounded to the dtype) written as F32
  check-dump F32DUMP DUMP --dtype BF16|F16
      DUMP's tensors have the dtype in their header and equal the rounding
      of F32DUMP's (same names and shapes); exits 1 if not
  retype SRC --tensor NAME --dtype I32 -o OUT
      the tensor's header says another dtype (same bytes)
  truncate SRC --drop N -o OUT
      SRC without its last N bytes
  losses EXACT_A EXACT_B OTHER --max-rel R
      whether the losses of two --dump-outputs files are bit for bit equal,
      and their relative difference to a third's is in (0, R] (R = 0: is 0);
      exits 1 if not
"""
import argparse
import json
import os
import struct
import sys

# struct formats of the element types (BF16 as its uint16 bit patterns).
FMT = {"F32": "f", "F16": "e", "F64": "d", "BF16": "H", "I64": "q",
       "I32": "i"}


def read(path):
    """{name: (dtype, shape, values)} and the metadata."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        fmt = FMT[info["dtype"]]
        count = (e - b) // struct.calcsize(fmt)
        out[name] = (info["dtype"], info["shape"],
                     list(struct.unpack(f"<{count}{fmt}", data[b:e])))
    return out, header.get("__metadata__", {})


def pack(dtype, values):
    return struct.pack(f"<{len(values)}{FMT[dtype]}", *values)


def write(path, tensors):
    """tensors: [(name, dtype, shape, values)] in file order."""
    header, chunks, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name, dtype, shape, values in tensors:
        raw = pack(dtype, values)
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)
    return offset


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def to_bf16_bits(x):
    """f32 -> bf16 bit pattern, round to nearest even on the uint32 bits
    (NaN: quiet, sign and upper payload kept)."""
    u = f32_bits(x)
    if x != x:
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


def bf16_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits << 16))[0]


def f16_value(x):
    """x rounded to f16 (Python's struct 'e': round half to even)."""
    return struct.unpack("<e", struct.pack("<e", x))[0]


def narrow(values, dtype):
    """(the values to store in dtype, the f32 values they hold)."""
    if dtype == "BF16":
        bits = [to_bf16_bits(x) for x in values]
        return bits, [bf16_value(b) for b in bits]
    if dtype == "F16":
        h = [f16_value(x) for x in values]
        return h, h
    if dtype == "F64":
        return list(values), list(values)
    sys.exit(f"unknown dtype {dtype}")


def f32_tensors(path):
    tensors, _ = read(path)
    for name, (dtype, _, _) in tensors.items():
        if dtype != "F32":
            sys.exit(f"{path}: tensor {name} is {dtype}, expected F32")
    return tensors


def convert(args):
    tensors = f32_tensors(args.src)
    out = [(name, args.dtype, shape, narrow(arr, args.dtype)[0])
           for name, (_, shape, arr) in tensors.items()]
    for assignment in getattr(args, "set", None) or []:
        target, value = assignment.split("=")
        for name, _, _, arr in out:
            if name == target:
                arr[0] = float(value)
    if not args.shards:
        write(args.o, out)
        return
    os.makedirs(args.o, exist_ok=True)
    weight_map, total = {}, 0
    for i in range(args.shards):
        file = f"model-{i + 1:05d}-of-{args.shards:05d}.safetensors"
        part = out[i::args.shards]
        total += write(os.path.join(args.o, file), part)
        weight_map.update({t[0]: file for t in part})
    with open(os.path.join(args.o, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total},
                   "weight_map": weight_map}, f, indent=2)


def round_(args):
    tensors = f32_tensors(args.src)
    write(args.o, [(name, "F32", shape, narrow(arr, args.dtype)[1])
                   for name, (_, shape, arr) in tensors.items()])


def check_dump(args):
    ref = f32_tensors(args.f32)
    dump, _ = read(args.dump)
    if sorted(ref) != sorted(dump):
        sys.exit(f"{args.dump}: other tensors than {args.f32}")
    elements = changed = 0
    for name, (_, shape, values) in ref.items():
        dtype, dshape, got = dump[name]
        if dtype != args.dtype or dshape != shape:
            sys.exit(f"{args.dump}: {name} is {dtype} {dshape}, expected "
                     f"{args.dtype} {shape}")
        stored, rounded = narrow(values, args.dtype)
        # Compare bit patterns (BF16's are ints; F16 values compare as
        # their packed bytes, so -0.0 differs from 0.0).
        if pack(dtype, got) != pack(dtype, stored):
            bad = [i for i, (a, b) in enumerate(zip(got, stored))
                   if pack(dtype, [a]) != pack(dtype, [b])]
            sys.exit(f"{args.dump}: {name} differs from the reference rounding "
                     f"at {len(bad)} elements (first {bad[0]})")
        elements += len(values)
        changed += sum(1 for a, b in zip(rounded, values) if a != b)
    print(f"{args.dtype} dump equals the round-to-nearest-even of the F32 "
          f"dump: {len(ref)} tensors, {elements} elements, {changed} changed "
          f"by the rounding")


def retype(args):
    tensors, _ = read(args.src)
    out = []
    for name, (dtype, shape, values) in tensors.items():
        if name == args.tensor:  # the same bytes, read as the other dtype
            raw = pack(dtype, values)
            fmt = FMT[args.dtype]
            values = list(struct.unpack(
                f"<{len(raw) // struct.calcsize(fmt)}{fmt}", raw))
            dtype = args.dtype
        out.append((name, dtype, shape, values))
    write(args.o, out)


def truncate(args):
    with open(args.src, "rb") as f:
        raw = f.read()
    with open(args.o, "wb") as f:
        f.write(raw[:-args.drop])


def loss(path):
    tensors, _ = read(path)
    return tensors["loss"][2][0]


def losses(args):
    a, b, other = loss(args.a), loss(args.b), loss(args.other)
    exact = pack("F32", [a]) == pack("F32", [b])
    rel = abs(a - other) / abs(other)
    near = rel <= args.max_rel and (rel > 0) == (args.max_rel > 0)
    print(f"losses {'EXACTLY EQUAL' if exact else 'DIFFERENT'}: "
          f"{float(a):.9g} {float(b):.9g}; relative difference to "
          f"{float(other):.9g}: {rel:.2e} "
          + (f"({'within' if near else 'NOT within'} (0, {args.max_rel:g}])"
             if args.max_rel > 0 else f"({'zero' if near else 'NOT zero'})"))
    sys.exit(0 if exact and near else 1)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("convert", "round", "retype", "truncate"):
        s = sub.add_parser(name)
        s.add_argument("src")
        s.add_argument("-o", required=True)
        if name != "truncate":
            s.add_argument("--dtype", required=True)
        if name == "convert":
            s.add_argument("--shards", type=int, default=0)
            s.add_argument("--set", action="append", help="NAME=VALUE: "
                           "element 0 of the tensor (after the conversion)")
        if name == "retype":
            s.add_argument("--tensor", required=True)
        if name == "truncate":
            s.add_argument("--drop", type=int, required=True)
    s = sub.add_parser("check-dump")
    s.add_argument("f32")
    s.add_argument("dump")
    s.add_argument("--dtype", required=True)
    s = sub.add_parser("losses")
    s.add_argument("a")
    s.add_argument("b")
    s.add_argument("other")
    s.add_argument("--max-rel", type=float, required=True)
    args = p.parse_args()
    {"convert": convert, "round": round_, "check-dump": check_dump,
     "retype": retype, "truncate": truncate, "losses": losses}[args.cmd](args)


if __name__ == "__main__":
    main()
