"""The safetensors reader and writer of the PyTorch reference (reference.py),
in json + numpy, and its error type."""

import json
import os
import struct

import numpy as np


class RefError(Exception):
    """A bad input: printed as one line, exit status 2."""


# ----------------------------------------------------------------------------
# safetensors (json + numpy)
# ----------------------------------------------------------------------------

_ST_DTYPES = {
    "F64": np.dtype("<f8"),
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype("<u2"),  # converted to float32 below
    "I64": np.dtype("<i8"),
    "I32": np.dtype("<i4"),
    "I16": np.dtype("<i2"),
    "I8": np.dtype("i1"),
    "U8": np.dtype("u1"),
    "BOOL": np.dtype("?"),
}

_NP_TO_ST = {
    np.dtype("float64"): "F64",
    np.dtype("float32"): "F32",
    np.dtype("float16"): "F16",
    np.dtype("int64"): "I64",
    np.dtype("int32"): "I32",
}


def read_safetensors(path):
    """Returns {name: numpy array} (BF16 widened to float32)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RefError(f"cannot read '{path}': {e.strerror}")
    if len(data) < 8:
        raise RefError(f"{path}: not a safetensors file (shorter than 8 bytes)")
    (n,) = struct.unpack("<Q", data[:8])
    if 8 + n > len(data):
        raise RefError(f"{path}: header length {n} runs past the end of the file ({len(data)} bytes)")
    try:
        header = json.loads(data[8:8 + n].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RefError(f"{path}: bad JSON header: {e}")
    if not isinstance(header, dict):
        raise RefError(f"{path}: the header is not a JSON object")
    body = memoryview(data)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype_name = info["dtype"]
            shape = [int(d) for d in info["shape"]]
            begin, end = (int(x) for x in info["data_offsets"])
        except (KeyError, TypeError, ValueError):
            raise RefError(f"{path}: tensor '{name}': header entry needs dtype, shape and data_offsets")
        if dtype_name not in _ST_DTYPES:
            raise RefError(f"{path}: tensor '{name}': unsupported dtype {dtype_name}")
        dt = _ST_DTYPES[dtype_name]
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if any(d < 0 for d in shape):
            raise RefError(f"{path}: tensor '{name}': negative dimension in shape {shape}")
        if not (0 <= begin <= end <= len(body)):
            raise RefError(f"{path}: tensor '{name}': data_offsets [{begin}, {end}] outside the data ({len(body)} bytes)")
        if end - begin != count * dt.itemsize:
            raise RefError(f"{path}: tensor '{name}': {end - begin} bytes for shape {shape} of {dtype_name} "
                           f"(expected {count * dt.itemsize})")
        arr = np.frombuffer(body[begin:end], dtype=dt, count=count).reshape(shape)
        if dtype_name == "BF16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        out[name] = arr.copy()
    return out


def write_safetensors(path, tensors, metadata=None):
    """tensors: {name: numpy array}; written in the given order, header padded
    with spaces to a multiple of 8."""
    header = {}
    offset = 0
    blobs = []
    for name, arr in tensors.items():
        arr = np.ascontiguousarray(arr)
        dt = arr.dtype.newbyteorder("<") if arr.dtype.byteorder == ">" else arr.dtype
        if np.dtype(dt.name) not in _NP_TO_ST:
            raise RefError(f"cannot write tensor '{name}' of dtype {arr.dtype}")
        blob = arr.astype(dt.newbyteorder("<"), copy=False).tobytes()
        header[name] = {
            "dtype": _NP_TO_ST[np.dtype(dt.name)],
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(blob)],
        }
        offset += len(blob)
        blobs.append(blob)
    if metadata:
        header = {"__metadata__": {str(k): str(v) for k, v in metadata.items()}, **header}
    hbytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hbytes += b" " * ((8 - len(hbytes) % 8) % 8)
    tmp = path + ".tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(struct.pack("<Q", len(hbytes)))
            f.write(hbytes)
            for b in blobs:
                f.write(b)
        os.replace(tmp, path)
    except OSError as e:
        raise RefError(f"cannot write '{path}': {e.strerror}")
