#!/usr/bin/python3
"""Tokenizes text files into seqpar's tokenized dataset format.

    prepare-data.py [--tokenizer PATH/tokenizer.json | --train-bpe VOCAB]
                    [--documents paragraphs|files] [--eos-id N]
                    [--valid-fraction F] [--dtype uint16|uint32]
                    -o OUT INPUT...

writes OUT (a flat file of little-endian token ids) and OUT.json (its
sidecar: format "seqpar-tokens", format_version 1, dtype, vocab_size, eos_id,
num_tokens, num_documents, tokenizer), the format the compiled program maps
with --data OUT (runtime/driver/TokenData.h). Every document is followed by
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

Every error is one line "prepare-data: ..." and exit code 1: an input that
is missing or not a regular file, an output that would replace an input (the
same file, however named), an output directory that does not exist, a
negative --eos-id; the files are written through temporaries renamed into
place, so a failed write leaves no partial OUT.
"""

import argparse
import json
import os
import stat
import sys

import numpy as np

EOS_TEXT = "<|endoftext|>"


def fail(message):
    """Ends the run with one line on stderr, exit code 1."""
    sys.exit("prepare-data: " + message)


class Parser(argparse.ArgumentParser):
    """argparse's errors as one line, as every other error."""

    def error(self, message):
        fail(message)


def check_paths(inputs, outputs):
    """Fails unless every input is a readable regular file, and every
    output's directory exists and no output is an input."""
    for path in inputs:
        try:
            st = os.stat(path)
        except OSError as e:
            fail("cannot read '%s': %s" % (path, e.strerror))
        if not stat.S_ISREG(st.st_mode):
            fail("cannot read '%s': %s" % (
                path, "is a directory" if stat.S_ISDIR(st.st_mode)
                else "is not a regular file"))
        if not os.access(path, os.R_OK):
            fail("cannot read '%s': permission denied" % path)
    for out in outputs:
        folder = os.path.dirname(out) or "."
        if not os.path.isdir(folder):
            fail("cannot write '%s': %s" % (
                out, "directory '%s' does not exist" % folder
                if not os.path.exists(folder)
                else "'%s' is not a directory" % folder))
        if not os.access(folder, os.W_OK | os.X_OK):
            fail("cannot write '%s': cannot create files in '%s'"
                 % (out, folder))
        if not os.path.exists(out):
            continue
        if os.path.isdir(out):
            fail("cannot write '%s': is a directory" % out)
        for path in inputs:
            if os.path.samefile(out, path):
                fail("the output '%s' is the input '%s': it would be "
                     "replaced (give another -o)" % (out, path))


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
            fail("document %d holds the byte %d, which is the EOS id of the "
                 "byte-level tokenizer (give another --eos-id)" % (i, eos))
        ids.append(list(data) + [eos])
    return ids, 256 if eos < 256 else eos + 1, "byte-level"


def hf_tokenizer(docs, tokenizer, eos, name):
    if eos is None:
        eos = tokenizer.token_to_id(EOS_TEXT)
        if eos is None:
            fail("the tokenizer has no '%s' token: give --eos-id" % EOS_TEXT)
    ids = [enc.ids + [eos] for enc in tokenizer.encode_batch(docs)]
    return ids, tokenizer.get_vocab_size(), name


def load_tokenizers():
    try:
        import tokenizers
    except ImportError:
        fail("the 'tokenizers' package is not importable (scripts/hf-venv.sh "
             "makes a virtualenv that has it; the byte-level tokenizer needs "
             "nothing)")
    return tokenizers


def write(path, ids, vocab, eos, name, dtype):
    flat = np.concatenate([np.asarray(d, dtype=np.int64) for d in ids]) \
        if ids else np.zeros(0, np.int64)
    if dtype is None:
        dtype = "uint16" if vocab <= 65536 else "uint32"
    if dtype == "uint16" and vocab > 65536:
        fail("a vocabulary of %d does not fit uint16" % vocab)
    if flat.size and int(flat.max()) >= vocab:
        fail("token id %d is not below the vocabulary %d"
             % (int(flat.max()), vocab))
    meta = {"format": "seqpar-tokens", "format_version": 1, "dtype": dtype,
            "vocab_size": int(vocab), "eos_id": int(eos),
            "num_tokens": int(flat.size), "num_documents": len(ids),
            "tokenizer": name}
    # Both files through temporaries, renamed once both are written.
    temporaries = [path + ".tmp", path + ".json.tmp"]
    try:
        flat.astype("<u2" if dtype == "uint16" else "<u4").tofile(
            temporaries[0])
        with open(temporaries[1], "w") as f:
            json.dump(meta, f, indent=2)
            f.write("\n")
        os.replace(temporaries[0], path)
        os.replace(temporaries[1], path + ".json")
    except OSError as e:
        for t in temporaries:
            if os.path.exists(t):
                os.remove(t)
        fail("cannot write '%s': %s" % (path if e.filename in temporaries
                                        else e.filename or path,
                                        e.strerror or e))
    print("prepare-data: %s: %d documents, %d tokens (%s, vocabulary %d, "
          "EOS %d)" % (path, len(ids), flat.size, dtype, vocab, eos))


def main():
    p = Parser(description=__doc__.split("\n")[0])
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
        fail("--valid-fraction must be in [0, 1)")
    if a.eos_id is not None and a.eos_id < 0:
        fail("--eos-id must be a token id >= 0, got %d" % a.eos_id)
    if a.train_bpe is not None and a.train_bpe < 1:
        fail("--train-bpe must be a vocabulary size >= 1, got %d"
             % a.train_bpe)
    outputs = [a.output, a.output + ".json"]
    if a.valid_fraction > 0:
        outputs += [a.output + ".valid", a.output + ".valid.json"]
    if a.train_bpe:
        outputs.append(a.output + ".tokenizer.json")
    check_paths(a.inputs + ([a.tokenizer] if a.tokenizer else []), outputs)
    docs = documents(a.inputs, a.documents)
    if not docs:
        fail("the inputs hold no document")
    if a.tokenizer:
        try:
            tok = load_tokenizers().Tokenizer.from_file(a.tokenizer)
        except Exception as e:  # the tokenizers package raises its own
            fail("cannot read the tokenizer '%s': %s"
                 % (a.tokenizer, str(e).splitlines()[0] if str(e) else e))
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
        try:
            tok.save(a.output + ".tokenizer.json")
        except Exception as e:  # the tokenizers package raises its own
            fail("cannot write '%s': %s" % (a.output + ".tokenizer.json", e))
        ids, vocab, name = hf_tokenizer(docs, tok, a.eos_id,
                                        "byte-level BPE %d" % a.train_bpe)
    else:
        ids, vocab, name = byte_level(docs, 0 if a.eos_id is None
                                      else a.eos_id)
    if a.valid_fraction > 0:
        if len(docs) < 2:
            fail("--valid-fraction needs two documents")
        n = min(len(docs) - 1, max(1, int(round(len(docs) * a.valid_fraction))))
        write(a.output + ".valid", ids[-n:], vocab, ids[0][-1], name, a.dtype)
        ids = ids[:-n]
    write(a.output, ids, vocab, ids[0][-1], name, a.dtype)


if __name__ == "__main__":
    main()
