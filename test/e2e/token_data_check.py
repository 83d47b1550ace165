"""Checks for tokenized datasets (scripts/prepare-data.py, the runtime's
--data on them, --valid-data):

  token_data_check.py read FILE [--text T --documents paragraphs|files]
      prints FILE's sidecar and its documents (cut at the EOS id); with
      --text, checks that the byte-level ids are the text's paragraphs (or
      files) each followed by EOS.
  token_data_check.py decode FILE TOKENIZER --text T
      decodes each document of FILE with a tokenizers tokenizer.json and
      checks it equals the paragraph of T.
  token_data_check.py packed OUTPUTS EOS
      from a --dump-outputs of packed tokenized data: every label is -100
      exactly at the EOS ids, and the position ids restart after each EOS
      and at each sequence's start.
  token_data_check.py valid STDOUT [--min-drop D]
      parses the "step N valid loss X ppl Y [K batches]" lines: ppl =
      exp(loss), and with --min-drop the last loss is at least D below the
      first.
  token_data_check.py same-valid STDOUT OTHER [--rtol R]
      the validation losses of two runs at the same steps agree to R
      relative (default 1e-5): SAME, else DIFFERENT (exit 1).
  token_data_check.py write FILE --ids I,J,... [--dtype D] [--vocab V]
                            [--eos E] [--tokens N] [--documents N]
      writes a dataset by hand (its sidecar from the flags, by default the
      truth) for the error tests.
"""
import argparse
import json
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqpar_e2e import read_safetensors  # noqa: E402


def load(path):
    meta = json.load(open(path + ".json"))
    ids = np.fromfile(path, dtype={"uint16": "<u2", "uint32": "<u4"}[meta["dtype"]])
    return meta, ids


def split_docs(ids, eos):
    docs, start = [], 0
    for i in np.flatnonzero(ids == eos):
        docs.append(ids[start:i])
        start = i + 1
    return docs, start == len(ids)


def paragraphs(path, unit):
    text = open(path, "rb").read().decode("utf-8", errors="surrogateescape")
    if unit == "files":
        return [text]
    out, cur = [], []
    for line in text.splitlines(keepends=True):
        if line.strip(" \t\r\n"):
            cur.append(line)
        elif cur:
            out.append("".join(cur))
            cur = []
    if cur:
        out.append("".join(cur))
    return out


def valid_rows(path):
    """The (step, loss) of each "step N valid loss X ppl Y [K batches]"
    line of `path`, checking ppl = exp(loss)."""
    pat = re.compile(r"^step (\d+) valid loss (\S+) ppl (\S+) \[(\d+) batches\]$")
    rows = []
    for l in open(path):
        if " valid loss " not in l:
            continue
        m = pat.match(l.strip())
        if not m:
            sys.exit(f"unparsable validation line: {l!r}")
        step, loss, ppl = int(m.group(1)), float(m.group(2)), float(m.group(3))
        if abs(ppl - math.exp(loss)) > 1e-5 * math.exp(loss):
            sys.exit(f"step {step}: ppl {ppl} != exp({loss})")
        rows.append((step, loss))
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what")
    p.add_argument("file")
    p.add_argument("extra", nargs="?")
    p.add_argument("--text", action="append", default=[])
    p.add_argument("--documents", default="paragraphs")
    p.add_argument("--min-drop", type=float)
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--ids")
    p.add_argument("--dtype", default="uint16")
    p.add_argument("--vocab", type=int, default=256)
    p.add_argument("--eos", type=int, default=0)
    p.add_argument("--tokens", type=int)
    p.add_argument("--num-documents", type=int)
    a = p.parse_args()
    if a.what == "read":
        meta, ids = load(a.file)
        docs, whole = split_docs(ids, meta["eos_id"])
        print("sidecar:", json.dumps(meta, sort_keys=True))
        print(f"{len(ids)} tokens, {len(docs)} documents, every one ended by "
              f"EOS: {whole}, max id {int(ids.max())}")
        if a.text:
            want = [d for t in a.text for d in paragraphs(t, a.documents)]
            got = [bytes(d.astype(np.uint8).tolist()).decode(
                "utf-8", errors="surrogateescape") for d in docs]
            print("documents equal the text's:", got == want)
    elif a.what == "decode":
        from tokenizers import Tokenizer
        meta, ids = load(a.file)
        tok = Tokenizer.from_file(a.extra)
        docs, whole = split_docs(ids, meta["eos_id"])
        want = [d for t in a.text for d in paragraphs(t, a.documents)]
        got = [tok.decode(d.tolist()) for d in docs]
        n = min(len(got), len(want))
        print(f"{len(docs)} documents, ended by EOS: {whole}, vocabulary "
              f"{meta['vocab_size']}, {len(ids)} tokens for "
              f"{sum(len(w.encode()) for w in want[:n])} bytes; decoded equal "
              f"the text's first {n}: {got[:n] == want[:n]}")
    elif a.what == "packed":
        outs = read_safetensors(a.file)
        eos = int(a.extra)
        (B, S), ids = outs["input_ids"][0], np.array(outs["input_ids"][1])
        labels = np.array(outs["labels"][1]).reshape(B, S)
        pos = np.array(outs["position_ids"][1]).reshape(B, S)
        ids = ids.reshape(B, S)
        at_eos = ids == eos
        want = np.zeros_like(pos)
        for b in range(B):
            for s in range(1, S):
                want[b, s] = 0 if ids[b, s - 1] == eos else want[b, s - 1] + 1
        print(f"{B}x{S} tokens, {int(at_eos.sum())} EOS; labels -100 exactly at "
              f"EOS: {bool(np.array_equal(labels == -100, at_eos))}; positions "
              f"restart after each EOS: {bool(np.array_equal(pos, want))}; "
              f"documents continued from the previous sequence: "
              f"{int(sum(1 for b in range(1, B) if ids[b - 1, -1] != eos))}")
    elif a.what == "same-valid":
        mine, other = valid_rows(a.file), valid_rows(a.extra)
        if not mine or [s for s, _ in mine] != [s for s, _ in other]:
            sys.exit(f"validation steps differ: {[s for s, _ in mine]} vs "
                     f"{[s for s, _ in other]}")
        worst = max(abs(x - y) / max(abs(y), 1e-30)
                    for (_, x), (_, y) in zip(mine, other))
        same = worst <= a.rtol
        print(f"validation at steps {','.join(str(s) for s, _ in mine)}: "
              f"largest relative difference {worst:.2e} (rtol {a.rtol:g}): "
              f"{'SAME' if same else 'DIFFERENT'}")
        sys.exit(0 if same else 1)
    elif a.what == "valid":
        rows = valid_rows(a.file)
        print("validation at steps", ",".join(str(s) for s, _ in rows),
              "ppl = exp(loss): OK")
        if a.min_drop is not None:
            drop = rows[0][1] - rows[-1][1]
            print(f"valid loss {rows[0][1]:.3f} at step {rows[0][0]} -> "
                  f"{rows[-1][1]:.3f} at step {rows[-1][0]}: drop {drop:.3f} "
                  f"{'>=' if drop >= a.min_drop else '<'} {a.min_drop}: "
                  f"{'FALLS' if drop >= a.min_drop else 'DOES NOT FALL'}")
            sys.exit(0 if drop >= a.min_drop else 1)
    elif a.what == "write":
        ids = [int(x) for x in a.ids.split(",")]
        np.array(ids, dtype={"uint16": "<u2", "uint32": "<u4"}.get(a.dtype, "<u2")).tofile(a.file)
        meta = {"format": "seqpar-tokens", "format_version": 1, "dtype": a.dtype,
                "vocab_size": a.vocab, "eos_id": a.eos,
                "num_tokens": len(ids) if a.tokens is None else a.tokens,
                "num_documents": ids.count(a.eos) if a.num_documents is None
                else a.num_documents}
        json.dump(meta, open(a.file + ".json", "w"))
    else:
        sys.exit("unknown check " + a.what)


if __name__ == "__main__":
    main()
