"""What a compiled seqpar program reads and writes, in plain Python (the
standard library only, so that it also runs where neither numpy nor torch
is installed):

- the batches of a tokenized dataset (--data FILE with FILE.json, written by
  scripts/prepare-data.py), in the order runtime/driver/Batch.cpp and
  runtime/driver/SampleOrder.cpp read them: the file is cut into N windows of
  S + 1 tokens, window j being tokens [j S, j S + S] (N = (tokens - 1) / S,
  neighbouring windows share a token); global sample k = (step - 1) B + b
  (b the row of the step's batch of B sequences) is window perm_e[k mod N]
  with e = k / N and perm_e the Fisher-Yates shuffle of 0..N-1 over
  splitmix64 seeded from the data seed and e. The row's input ids are the
  window's first S tokens and its labels the last S;
- safetensors files (the dumps of --dump-outputs / --dump-grads / --log
  companions, and the F32 initial weights handed to --init-from).
"""

import array
import json
import struct
import sys

MASK = (1 << 64) - 1


def _splitmix64(state):
    """splitmix64: (the next state, its 64 random bits)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return state, z ^ (z >> 31)


def permutation(n, seed, epoch):
    """SampleOrder::permutation: epoch `epoch`'s order of n samples."""
    perm = list(range(n))
    state = (seed ^ ((epoch * 0xD1B54A32D192ED03) & MASK)) & MASK
    state, _ = _splitmix64(state)
    for i in range(n - 1, 0, -1):
        rng = i + 1
        limit = MASK - MASK % rng  # unbiased draw in [0, i] by rejection
        while True:
            state, r = _splitmix64(state)
            if r < limit:
                break
        j = r % rng
        perm[i], perm[j] = perm[j], perm[i]
    return perm


class TokenData:
    """A tokenized dataset and seqpar's order of its windows."""

    def __init__(self, path, seq, data_seed):
        with open(path + ".json") as f:
            meta = json.load(f)
        if meta.get("format") != "seqpar-tokens":
            raise ValueError(f"{path}.json is not a seqpar-tokens sidecar")
        self.tokens = array.array({"uint16": "H", "uint32": "I"}[meta["dtype"]])
        with open(path, "rb") as f:
            self.tokens.frombytes(f.read())
        if sys.byteorder != "little":
            self.tokens.byteswap()
        if len(self.tokens) != meta["num_tokens"]:
            raise ValueError(f"{path}: {len(self.tokens)} tokens, the sidecar "
                             f"says {meta['num_tokens']}")
        self.vocab = meta["vocab_size"]
        self.seq = seq
        self.seed = data_seed
        self.windows = (len(self.tokens) - 1) // seq
        self._epoch, self._perm = -1, None

    def window(self, k):
        """The window global sample k reads (S + 1 tokens)."""
        epoch = k // self.windows
        if epoch != self._epoch:
            self._epoch, self._perm = epoch, permutation(self.windows, self.seed, epoch)
        j = self._perm[k % self.windows]
        return self.tokens[j * self.seq: j * self.seq + self.seq + 1]

    def batch(self, step, batch):
        """Step `step`'s (1-based) input ids and labels: two lists of
        `batch` rows of S ids."""
        ids, labels = [], []
        for b in range(batch):
            w = self.window((step - 1) * batch + b)
            ids.append(list(w[:-1]))
            labels.append(list(w[1:]))
        return ids, labels


_FORMATS = {"F32": "f", "F64": "d", "I64": "q", "I32": "i"}


def read_safetensors(path, names=None):
    """{name: (dtype, shape, flat values)} of a safetensors file (F32, F64,
    I64, I32 as numbers; BF16 widened to float). `names` limits what is
    decoded."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or (names is not None and name not in names):
            continue
        b, e = info["data_offsets"]
        dtype = info["dtype"]
        if dtype == "BF16":
            raw = array.array("H", data[b:e])
            if sys.byteorder != "little":
                raw.byteswap()
            values = array.array("f", struct.pack(f"<{len(raw)}I", *(x << 16 for x in raw)))
        else:
            values = array.array(_FORMATS[dtype], data[b:e])
            if sys.byteorder != "little":
                values.byteswap()
        out[name] = (dtype, info["shape"], values)
    return out


def write_safetensors(path, tensors):
    """Writes {name: (dtype, shape, raw little-endian bytes)}."""
    header, offset, blobs = {}, 0, []
    for name, (dtype, shape, raw) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for raw in blobs:
            f.write(raw)


def check_batch(data, dump, step, batch):
    """Compares the input ids and labels a program dumped (--dump-outputs,
    the last step's batch) with this module's order; returns "" or what
    differs."""
    t = read_safetensors(dump, {"input_ids", "labels"})
    ids, labels = data.batch(step, batch)
    got_ids = [int(x) for x in t["input_ids"][2]]
    got_labels = [int(x) for x in t["labels"][2]]
    want_ids = [x for row in ids for x in row]
    want_labels = [x for row in labels for x in row]
    if got_ids != want_ids:
        first = next(i for i, (a, b) in enumerate(zip(got_ids, want_ids)) if a != b) \
            if len(got_ids) == len(want_ids) else -1
        return f"step {step}: input ids differ (first at flat index {first})"
    if got_labels != want_labels:
        return f"step {step}: labels differ"
    return ""


if __name__ == "__main__":
    # seqdata.py TOKENS SEQ BATCH DATA_SEED STEP DUMP: checks a dump.
    tokens, seq, batch, seed, step, dump = sys.argv[1:7]
    d = TokenData(tokens, int(seq), int(seed))
    problem = check_batch(d, dump, int(step), int(batch))
    print(problem or f"step {step}: the batch is the dumped one ({d.windows} windows)")
    sys.exit(1 if problem else 0)
