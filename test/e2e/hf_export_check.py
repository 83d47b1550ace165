"""--export-hf against Hugging Face transformers (run with the test-only
virtualenv's python, scripts/hf-venv.sh). For GPT-2 (tp=2 + SP, sharded with
an index), NeoX (one rank) and Llama (tp=2; exported again from its
checkpoint, over the first export): trains 3 steps, exports, and checks

- the directory: config.json is the config sp-import read with torch_dtype
  "float32" (an f32 program); the shards, or one model.safetensors, and the index's
  total_size and weight_map; every tensor equal (bitwise) to --dump-params
  of the same run; GPT-2's tied lm_head not written;
- transformers' AutoModelForCausalLM.from_pretrained loads it with no
  missing or unexpected key, and its loss on the tokens of a seqpar forward
  of the exported parameters (--init-from the export, --dump-outputs;
  labels already shifted) equals seqpar's to 1e-5 relative;
- GPT-2: the base model GPT2Model.save_pretrained writes (no
  "transformer." prefix) loads with --init-from to the same loss; a file
  with both names is refused as ambiguous; a non-empty directory that is
  not an export is refused;
- a bf16 GPT-2 (tp=2 + SP): every exported tensor is bf16 (= its
  --dump-params), config.json's torch_dtype is "bfloat16", transformers
  loads it as bfloat16 with torch_dtype="auto", and in float32 (the bf16
  values widened exactly) its loss equals seqpar's f32 forward of the
  export (--init-from widens them the same way) to 1e-5.

  hf_export_check.py WORKDIR
"""
import json
import os
import sys

import numpy as np
import torch
from safetensors.numpy import load_file, save_file
from safetensors.torch import load_file as load_torch
from transformers import AutoModelForCausalLM
from transformers.utils import logging as hf_logging

hf_logging.disable_progress_bar()

sys.path.insert(0, os.path.dirname(__file__))
import seqpar_e2e as e2e

CONFIGS = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "configs")
failed = False


def check(ok, what):
    global failed
    if not ok:
        failed = True
        print(f"FAILED: {what}")


def hf_loss(directory, outputs):
    model, info = AutoModelForCausalLM.from_pretrained(
        directory, output_loading_info=True)
    check(not info["missing_keys"] and not info["unexpected_keys"],
          f"{directory}: loading info {info}")
    check(model.dtype == torch.float32, f"{directory}: loaded as {model.dtype}")
    model.eval()
    t = load_file(outputs)
    ids = torch.from_numpy(t["input_ids"].astype(np.int64))
    labels = torch.from_numpy(t["labels"].astype(np.int64))
    with torch.no_grad():
        logits = model(input_ids=ids).logits.double()
    valid = labels != -100
    logp = torch.log_softmax(logits, dim=-1)[valid]
    loss = -logp.gather(-1, labels[valid].unsqueeze(-1)).mean()
    return float(loss), float(t["loss"])


def case(work, name, config, tp, sp, shard_bytes=None, resume=False,
         bf16=False):
    d = os.path.join(work, name)
    os.makedirs(d)
    cfg_path = e2e.without_dropout(os.path.join(CONFIGS, config), d)
    source = json.load(open(cfg_path))
    e2e.import_model(cfg_path, f"{d}/model.mlir")
    e2e.compile_model(f"{d}/model.mlir", f"{d}/train", tp=tp, sp=sp,
                      extra=["--train"] +
                      (["--precision", "bf16"] if bf16 else []))
    e2e.compile_model(f"{d}/model.mlir", f"{d}/fwd")
    out = f"{d}/hf"
    train = ["--steps", "3", "--seed", "5", "--export-hf", out,
             "--dump-params", f"{d}/params.safetensors"]
    if shard_bytes:
        train += ["--export-shard-bytes", str(shard_bytes)]
    if resume:
        train += ["--checkpoint-dir", f"{d}/ckpt"]
    e2e.launch(f"{d}/train", tp, *train)
    if resume:
        # The checkpoint's parameters again, over the previous export.
        e2e.launch(f"{d}/train", tp, "--steps", "3", "--checkpoint-dir",
                   f"{d}/ckpt", "--resume", "--export-hf", out)
    files = sorted(os.listdir(out))
    config = json.load(open(f"{out}/config.json"))
    dtype = "bfloat16" if bf16 else "float32"
    check(config == dict(source, torch_dtype=dtype),
          f"{name}: config.json {config}")
    shards = [f for f in files if f.endswith(".safetensors")]
    exported = {}
    for f in shards:
        for k, v in load_torch(f"{out}/{f}").items():
            exported[k] = (f, v)
    dumped = load_torch(f"{d}/params.safetensors")
    check(sorted(exported) == sorted(dumped), f"{name}: tensors {sorted(exported)}")
    same = all(torch.equal(exported[k][1], v) and exported[k][1].dtype == v.dtype
               for k, v in dumped.items() if k in exported)
    check(same, f"{name}: the export differs from --dump-params")
    if bf16:
        check(all(v.dtype == torch.bfloat16 for _, v in exported.values()),
              f"{name}: not every exported tensor is bf16")
        auto = AutoModelForCausalLM.from_pretrained(out, torch_dtype="auto")
        check(auto.dtype == torch.bfloat16, f"{name}: auto dtype {auto.dtype}")
    if len(shards) > 1:
        index = json.load(open(f"{out}/model.safetensors.index.json"))
        total = sum(v.numel() * v.element_size() for _, v in exported.values())
        check(index["metadata"]["total_size"] == total, f"{name}: total_size")
        check(index["weight_map"] == {k: f for k, (f, _) in exported.items()},
              f"{name}: weight_map")
        check(shards == [f"model-{i:05d}-of-{len(shards):05d}.safetensors"
                         for i in range(1, len(shards) + 1)], f"{name}: {shards}")
        init = f"{out}/model.safetensors.index.json"
    else:
        check(files == ["config.json", "model.safetensors"], f"{name}: {files}")
        init = f"{out}/model.safetensors"
    e2e.launch(f"{d}/fwd", 1, "--seed", "5", "--init-from", init,
               "--dump-outputs", f"{d}/fwd.out")
    hf, mine = hf_loss(out, f"{d}/fwd.out")
    err = e2e.rel_err(hf, mine)
    check(err < 1e-5, f"{name}: loss {hf} vs {mine}")
    print(f"{name}: {len(shards)} file{'s' if len(shards) > 1 else ''}, "
          f"{len(exported)} tensors = --dump-params; transformers loss "
          f"{hf:.6f} seqpar {mine:.6f} relative {err:.1e}")
    return d, out


work = sys.argv[1]
d, out = case(work, "gpt2", "gpt2-tiny.json", 2, True, shard_bytes=40000)
check("lm_head.weight" not in json.load(
    open(f"{out}/model.safetensors.index.json"))["weight_map"], "gpt2: lm_head written")
# The base model's names, as GPT2Model.save_pretrained writes them.
base = AutoModelForCausalLM.from_pretrained(out).transformer
base.save_pretrained(f"{d}/base")
names = sorted(load_file(f"{d}/base/model.safetensors"))
check(names and not any(n.startswith("transformer.") for n in names), f"base names {names}")
e2e.launch(f"{d}/fwd", 1, "--seed", "5", "--init-from",
           f"{d}/base/model.safetensors", "--dump-outputs", f"{d}/base.out")
base_loss, fwd_loss = e2e.dumped_loss(f"{d}/base.out"), e2e.dumped_loss(f"{d}/fwd.out")
check(base_loss == fwd_loss, f"base model loss {base_loss} vs {fwd_loss}")
print(f"gpt2 base model (GPT2Model names, e.g. {names[0]}): --init-from loss "
      f"{base_loss:.6f} {'EQUAL' if base_loss == fwd_loss else 'DIFFERENT'}")
both = dict(load_file(f"{d}/base/model.safetensors"))
both.update(load_file(f"{d}/params.safetensors"))
save_file(both, f"{d}/both.safetensors", metadata={"format": "pt"})
p = e2e.launch(f"{d}/fwd", 1, "--init-from", f"{d}/both.safetensors", check=False)
print("both names:", "refused" if p.returncode else "ACCEPTED",
      *[l for l in (p.stdout + p.stderr).splitlines() if "ambiguous" in l][:1])
os.makedirs(f"{d}/other")
open(f"{d}/other/notes.txt", "w").close()
p = e2e.launch(f"{d}/train", 2, "--export-hf", f"{d}/other", check=False)
print("non-empty directory:", "refused" if p.returncode else "ACCEPTED",
      *[l for l in (p.stdout + p.stderr).splitlines() if "not empty" in l][:1])
check(os.listdir(f"{d}/other") == ["notes.txt"], "other directory changed")

case(work, "neox", "neox-tiny.json", 1, False)
case(work, "llama", "llama-tiny.json", 2, False, resume=True)
# A bf16 program (tp=2 + SP): its export is all BF16, config.json says
# bfloat16, transformers loads it (as bfloat16 with torch_dtype="auto");
# in float32 its loss equals the f32 forward's of the same exported values.
case(work, "gpt2-bf16", "gpt2-tiny.json", 2, True, bf16=True)
print("FAILED" if failed else "ALL OK")
sys.exit(1 if failed else 0)
