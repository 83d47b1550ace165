#!/usr/bin/python3
"""Tokenizes text files into seqpar's tokenized dataset format.

    prepare-data.py [--tokenizer PATH/tokenizer.json | --train-bpe VOCAB]
                    [--documents paragraphs|files] [--eos-id N]
                    [--valid-fraction F] [--dtype uint16|uint32]
                    -o OUT INPUT...

writes OUT (a flat file of little-endian token ids) and OUT.json (its
sidecar: format "seqpar-tokens", format_version 1, dtype, vocab_size, eos_id,
num_tokens, num_documents, tokenizer), the format the compiled program maps
with --data OUT (runtime/core/TokenData.h). Every document is followed by
the EOS id, which is how the runtime finds the documents (--pack-documents).

Tokenizers:
  (default)        byte level: ids are the bytes, vocabulary 256, EOS 0 (the
                   NUL byte, which a text holding one is refused for).
  --tokenizer T    a Hugging Face `tokenizers` tokenizer.json; EOS is its
                   "<|endoftext|>" (or --eos-id).
  --train-bpe V    trains a byte-level BPE of V entries with the `tokenizers`
                   package on the inputs themselves ("<|endoftext|>" is id 0)
                   and saves it as OUT.tokenizer.json.

Documents are paragraphs (runs of non-blank lines, blank lines between them;
the default) or whole files. With --valid-fraction F the last documents, a
fraction F of them (at least one), go to OUT.valid (and OUT.valid.json) and
the others to OUT.
"""

import argparse
import json
import os
import sys

import numpy as np

EOS_TEXT = "<|endoftext|>"


def documents(paths, unit):
    """The documents of the inputs, in order, as str."""
    docs = []
    for path in paths:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="surrogateescape")
        if unit == "files":
            if text.strip():
                docs.append(text)
            continue
        # Paragraphs: maximal runs of non-blank lines, newlines included
        # (the runtime's raw-text packer cuts the same way).
        current = []
        for line in text.splitlines(keepends=True):
            if line.strip(" \t\r\n"):
                current.append(line)
            elif current:
                docs.append("".join(current))
                current = []
        if current:
            docs.append("".join(current))
    return docs


def byte_level(docs, eos):
    ids = []
    for i, d in enumerate(docs):
        data = d.encode("utf-8", errors="surrogateescape")
        if eos < 256 and bytes([eos]) in data:
            sys.exit("prepare-data: document %d holds the byte %d, which is "
                     "the EOS id of the byte-level tokenizer (give another "
                     "--eos-id)" % (i, eos))
        ids.append(list(data) + [eos])
    return ids, 256 if eos < 256 else eos + 1, "byte-level"


def hf_tokenizer(docs, tokenizer, eos, name):
    if eos is None:
        eos = tokenizer.token_to_id(EOS_TEXT)
        if eos is None:
            sys.exit("prepare-data: the tokenizer has no '%s' token: give "
                     "--eos-id" % EOS_TEXT)
    ids = [enc.ids + [eos] for enc in tokenizer.encode_batch(docs)]
    return ids, tokenizer.get_vocab_size(), name


def load_tokenizers():
    try:
        import tokenizers
    except ImportError:
        sys.exit("prepare-data: the 'tokenizers' package is not importable "
                 "(scripts/hf-venv.sh makes a virtualenv that has it; the "
                 "byte-level tokenizer needs nothing)")
    return tokenizers


def write(path, ids, vocab, eos, name, dtype):
    flat = np.concatenate([np.asarray(d, dtype=np.int64) for d in ids]) \
        if ids else np.zeros(0, np.int64)
    if dtype is None:
        dtype = "uint16" if vocab <= 65536 else "uint32"
    if dtype == "uint16" and vocab > 65536:
        sys.exit("prepare-data: a vocabulary of %d does not fit uint16" % vocab)
    if flat.size and int(flat.max()) >= vocab:
        sys.exit("prepare-data: token id %d is not below the vocabulary %d"
                 % (int(flat.max()), vocab))
    flat.astype("<u2" if dtype == "uint16" else "<u4").tofile(path)
    meta = {"format": "seqpar-tokens", "format_version": 1, "dtype": dtype,
            "vocab_size": int(vocab), "eos_id": int(eos),
            "num_tokens": int(flat.size), "num_documents": len(ids),
            "tokenizer": name}
    with open(path + ".json", "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    print("prepare-data: %s: %d documents, %d tokens (%s, vocabulary %d, "
          "EOS %d)" % (path, len(ids), flat.size, dtype, vocab, eos))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("inputs", nargs="+")
    p.add_argument("-o", "--output", required=True)
    g = p.add_mutually_exclusive_group()
    g.add_argument("--tokenizer")
    g.add_argument("--train-bpe", type=int, metavar="VOCAB")
    p.add_argument("--documents", choices=["paragraphs", "files"],
                   default="paragraphs")
    p.add_argument("--eos-id", type=int)
    p.add_argument("--valid-fraction", type=float, default=0.0)
    p.add_argument("--dtype", choices=["uint16", "uint32"])
    a = p.parse_args()
    if not 0.0 <= a.valid_fraction < 1.0:
        sys.exit("prepare-data: --valid-fraction must be in [0, 1)")
    docs = documents(a.inputs, a.documents)
    if not docs:
        sys.exit("prepare-data: the inputs hold no document")
    if a.tokenizer:
        tok = load_tokenizers().Tokenizer.from_file(a.tokenizer)
        ids, vocab, name = hf_tokenizer(docs, tok, a.eos_id,
                                        os.path.basename(a.tokenizer))
    elif a.train_bpe:
        t = load_tokenizers()
        tok = t.Tokenizer(t.models.BPE())
        tok.pre_tokenizer = t.pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = t.decoders.ByteLevel()
        trainer = t.trainers.BpeTrainer(
            vocab_size=a.train_bpe, special_tokens=[EOS_TEXT],
            initial_alphabet=t.pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False)
        tok.train_from_iterator(docs, trainer=trainer)
        tok.save(a.output + ".tokenizer.json")
        ids, vocab, name = hf_tokenizer(docs, tok, a.eos_id,
                                        "byte-level BPE %d" % a.train_bpe)
    else:
        ids, vocab, name = byte_level(docs, 0 if a.eos_id is None
                                      else a.eos_id)
    if a.valid_fraction > 0:
        if len(docs) < 2:
            sys.exit("prepare-data: --valid-fraction needs two documents")
        n = min(len(docs) - 1, max(1, int(round(len(docs) * a.valid_fraction))))
        write(a.output + ".valid", ids[-n:], vocab, ids[0][-1], name, a.dtype)
        ids = ids[:-n]
    write(a.output, ids, vocab, ids[0][-1], name, a.dtype)


if __name__ == "__main__":
    main()
