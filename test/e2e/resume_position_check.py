"""A resumed run reads on at the first sequence its checkpoint did not read,
whatever its own sequences per step.

A one-rank program with batch 2 and 2 micro-batches (4 sequences a step)
trains 3 steps and saves (sequences_consumed 12). Resumed by a program with
4 micro-batches, or by one imported with batch 8 and run with dp 2 (8
sequences a step), step 4 must read sequences 12..19: exactly what the
uninterrupted 4-sequence run reads in its steps 4 and 5 (input ids, labels
and, for packed documents, position ids, from --dump-outputs), and its
checkpoint must record 20.

usage: resume_position_check.py CONFIG WORKDIR MODE [run flags...]
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from seqpar_e2e import (compile_model, import_model, launch,  # noqa: E402
                        read_safetensors)

config, work, mode = sys.argv[1], sys.argv[2], sys.argv[3]
flags = sys.argv[4:]
os.makedirs(work, exist_ok=True)
train = ["--train", "--optimizer", "adamw", "--lr", "1e-3"]


def program(name, batch, dp, micro):
    prog = os.path.join(work, name)
    if not os.path.exists(prog):
        model = os.path.join(work, f"{name}.mlir")
        import_model(config, model, seq=32, batch=batch)
        compile_model(model, prog, dp=dp,
                      extra=train + ["--micro-batches", str(micro)])
    return prog


base = program("m2", 2, 1, 2)
layouts = [("micro-batches 2->4", program("m4", 2, 1, 4), 1),
           ("batch 4->8, dp 1->2", program("b8dp2", 8, 2, 1), 2)]


def path(name):
    return os.path.join(work, f"{mode}-{name}")


def batch(name):
    dump = read_safetensors(path(name))
    return {k: v for k, v in dump.items() if k != "loss"}


def consumed(ck):
    with open(os.path.join(ck, open(os.path.join(ck, "latest")).read().strip(),
                           "checkpoint.json")) as f:
        return json.load(f)["data_position"]["sequences_consumed"]


ck = path("ck")
shutil.rmtree(ck, ignore_errors=True)
launch(base, 1, "--steps", "3", "--checkpoint-dir", ck, *flags)
launch(base, 1, "--steps", "4", "--dump-outputs", path("s4"), *flags)
launch(base, 1, "--steps", "5", "--dump-outputs", path("s5"), *flags)
s4, s5 = batch("s4"), batch("s5")
expected = {k: ([8, s4[k][0][1]], s4[k][1] + s5[k][1]) for k in s4}
failed = False
for what, prog, ranks in layouts:
    copy = path("ck-" + prog.split("/")[-1])
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(ck, copy)
    launch(prog, ranks, "--steps", "4", "--resume", "--checkpoint-dir", copy,
           "--dump-outputs", path("r"), *flags)
    got = batch("r")
    same = got == expected
    # Sequences of the uninterrupted run's steps 4 and 5 that the resumed
    # step holds (each sequence matched as a whole).
    seq = s4["input_ids"][0][1]
    rows = lambda d: [tuple(d["input_ids"][1][i:i + seq])
                      for i in range(0, len(d["input_ids"][1]), seq)]
    held = sum(r in rows(got) for r in rows(expected))
    ok = same and consumed(ck) == 12 and consumed(copy) == 20
    failed |= not ok
    print(f"{mode}: {what}: resumed step 4 holds {held} of the uninterrupted "
          f"steps 4-5's 8 sequences ({', '.join(sorted(got))} "
          f"{'equal' if same else 'differ'}), sequences_consumed "
          f"{consumed(ck)} -> {consumed(copy)}: {'OK' if ok else 'MISMATCH'}")
sys.exit(1 if failed else 0)
