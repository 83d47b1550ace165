#!/usr/bin/python3
"""Independent PyTorch reference for the forward loss and the parameter
gradients of seqpar programs.

Written from the Hugging Face transformers model definitions
(GPT2LMHeadModel, GPTNeoXForCausalLM, LlamaForCausalLM), not from seqpar's
code, so that seqpar's numbers can be checked against it. Everything is
computed in float64 with dropout off.

Usage:

  reference.py --config CONFIG.json --params PARAMS.safetensors \\
               --outputs OUTPUTS.safetensors [--rtol 1e-5]
      Computes the mean cross-entropy of the model's logits on the
      "input_ids" of OUTPUTS against its "labels" (already shifted:
      labels[b, t] is the target of position t; tokens with label -100 are
      ignored; with "position_ids" (packed documents) those positions drive
      rotary / the position table and attention is document-causal) and
      compares it with the "loss" stored there. Prints
      `reference loss R seqpar loss S relative error E` and exits 0 when
      E <= rtol, 1 otherwise.

  reference.py --config CONFIG.json --params PARAMS.safetensors \\
               --ids-from OUTPUTS.safetensors --dump-loss
      Prints the reference loss only (--dump-loss may be left out when
      --ids-from is given).

  reference.py --config CONFIG.json --params PARAMS.safetensors \\
               --grads GRADS.safetensors --outputs OUTPUTS.safetensors \\
               [--rtol 1e-5] [--per-tensor]
      Gradient mode. PARAMS are the parameters the step used (for a 1-step
      run, its --init-from file), GRADS its --dump-grads file, OUTPUTS its
      --dump-outputs file. Computes with autograd in float64 the gradient of
      the mean loss on OUTPUTS' tokens with respect to every parameter (a
      tied embedding's gradient holds both its uses) and compares it with
      GRADS tensor by tensor: relative error ||g - g_ref|| / ||g_ref||
      (Frobenius; the absolute ||g|| where g_ref is zero; inf when g is not
      finite). Prints the loss, one line per tensor family (the tensors of
      one role across layers, `transformer.h.*.mlp.c_fc.weight`; with
      --per-tensor every tensor too) and finally
      `max relative gradient error E over N tensors`; exits 1 when
      E > rtol. The config must have dropout 0 (exit 2 otherwise).

  The loss and gradient modes take --precision bf16|fp16 (and --loss-scale S):
  the reference then emulates seqpar's mixed precision ("Precision" below).

  reference.py --config CONFIG.json --init OUT.safetensors [--seed N]
      Writes random float32 parameters under their Hugging Face names:
      normal(0, initializer_range) for weights and embeddings (one
      torch.Generator seeded with N, drawn in the order of the model's
      named_parameters()), ones for norm weights, zeros for biases.

Precision (--precision fp32|bf16|fp16, --loss-scale S; default fp32, which is
the plain float64 computation above, bit for bit). bf16 and fp16 emulate
seqpar's mixed-precision training, with r(x) = x.to(low).to(float64):
  - parameters are fp32 master weights; every read of one by an op is
    rounded, once per use (a tied embedding is rounded for the lookup and
    for the LM head);
  - every op of the forward that sp-import emits (embedding, position
    embedding, add, dropout at rate 0, layer_norm / rms_norm, linear with
    its bias, gelu / silu, mul, attention with its scores, softmax and
    rotary inside, the LM head linear) computes in float64 from its rounded
    inputs and its result is rounded once; qkv_split is no arithmetic;
    norm statistics, softmax and the cross-entropy (from the rounded logits)
    are never rounded inside. GPT-NeoX's parallel residual is seqpar's
    (mlp + attn) + x, two rounded adds;
  - the backward goes through the same rounding points: autograd's backward
    of r rounds the cotangent (summed over the uses of the rounded value)
    alike, so each parameter use's gradient contribution is rounded and the
    contributions are summed in float64;
  - with --loss-scale S the backward starts from loss * S (the cotangents
    are rounded at the scaled magnitudes) and the gradients are divided by
    S afterwards. A backward that overflows is a bad input (exit 2).
Every op and the place where it rounds is in class Ops: the families' forward
passes only call it.

Parameters are expected under their Hugging Face names in float32 (F64, F16
and BF16 are accepted too). GPT-2 Conv1D weights are stored [in, out], the
nn.Linear weights of GPT-NeoX and Llama [out, in]. With tied word embeddings
there is no separate head tensor (an extra one is accepted only when it is
identical to the embedding).

Safetensors files are read and written with json + numpy only.

Exit status: 0 success / match, 1 mismatch, 2 bad input (config, file,
parameter), with a one-line error on stderr.
"""

import argparse
import math
import re
import sys

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover
    sys.stderr.write("error: PyTorch is required (Debian: apt-get install python3-torch)\n")
    sys.exit(2)


# The two halves of the reference, re-exported: `import reference` gives
# every name (scripts use reference.write_safetensors, load_config, Ops, ...).
from reference_io import *  # noqa: E402,F401,F403
from reference_io import RefError, _NP_TO_ST, _ST_DTYPES  # noqa: E402,F401
from reference_models import *  # noqa: E402,F401,F403


_IGNORED_SUFFIXES = (".attn.bias", ".attn.masked_bias", ".attention.bias",
                     ".attention.masked_bias", ".rotary_emb.inv_freq")


# ----------------------------------------------------------------------------
# parameters, loss
# ----------------------------------------------------------------------------

def load_params(model, path):
    raw = read_safetensors(path)
    specs = model.param_specs()
    params = {}
    missing = []
    for name, shape, _ in specs:
        if name not in raw:
            missing.append(name)
            continue
        arr = raw[name]
        if list(arr.shape) != list(shape):
            raise RefError(f"{path}: parameter '{name}' has shape {list(arr.shape)}, expected {shape}")
        if arr.dtype.kind != "f":
            raise RefError(f"{path}: parameter '{name}' has dtype {arr.dtype}, expected a float type")
        t = torch.from_numpy(arr.astype(np.float64))
        if not torch.isfinite(t).all():
            raise RefError(f"{path}: parameter '{name}' holds non-finite values")
        params[name] = t
    if missing:
        emb, head = model.head_names()
        hint = ""
        if head in missing and not model.tied:
            hint = f" (the config has tie_word_embeddings false, so '{head}' is a separate tensor)"
        more = f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""
        raise RefError(f"{path}: missing parameter{'s' if len(missing) > 1 else ''} "
                       f"{', '.join(missing[:5])}{more}{hint}")
    expected = {n for n, _, _ in specs}
    emb, head = model.head_names()
    extra = []
    for name in raw:
        if name in expected or name.endswith(_IGNORED_SUFFIXES):
            continue
        if name == head and model.tied:
            if raw[name].shape == raw[emb].shape and np.array_equal(raw[name], raw[emb]):
                continue  # a tied head saved twice
            raise RefError(f"{path}: '{head}' differs from '{emb}' but tie_word_embeddings is true")
        extra.append(name)
    if extra:
        more = f" (and {len(extra) - 5} more)" if len(extra) > 5 else ""
        raise RefError(f"{path}: unexpected tensor{'s' if len(extra) > 1 else ''} "
                       f"{', '.join(sorted(extra)[:5])}{more} for this config")
    return params


def load_ids(path):
    t = read_safetensors(path)
    for k in ("input_ids", "labels"):
        if k not in t:
            raise RefError(f"{path}: tensor '{k}' is missing")
        if t[k].dtype.kind not in "iu":
            raise RefError(f"{path}: tensor '{k}' has dtype {t[k].dtype}, expected an integer type")
        if t[k].ndim != 2:
            raise RefError(f"{path}: tensor '{k}' has shape {list(t[k].shape)}, expected [batch, seq]")
    if t["input_ids"].shape != t["labels"].shape:
        raise RefError(f"{path}: input_ids {list(t['input_ids'].shape)} and labels "
                       f"{list(t['labels'].shape)} differ in shape")
    return t


def _tokens(model, ids, labels):
    """Checks input_ids/labels; returns (ids, valid mask, valid labels)."""
    ids = torch.from_numpy(ids.astype(np.int64))
    labels = torch.from_numpy(labels.astype(np.int64))
    v = model.vocab
    if ids.numel() and (ids.min() < 0 or ids.max() >= v):
        raise RefError(f"input_ids outside [0, {v}): min {int(ids.min())} max {int(ids.max())}")
    valid = labels != -100
    if not valid.any():
        raise RefError("every label is -100: the mean loss is undefined")
    lv = labels[valid]
    if lv.min() < 0 or lv.max() >= v:
        raise RefError(f"labels outside [0, {v}) (other than -100): min {int(lv.min())} max {int(lv.max())}")
    model.check_seq(ids.shape[1])
    return ids, valid, lv


def loss_tensor(model, params, ids, labels, positions=None):
    """The mean cross-entropy over the tokens whose label is not -100, as a
    float64 scalar tensor (differentiable in params). POSITIONS [b, s]: the
    position ids of packed documents (rotary, GPT-2's position table and a
    document-causal mask), None for 0..s-1."""
    ids, valid, lv = _tokens(model, ids, labels)
    if positions is not None:
        positions = torch.from_numpy(np.asarray(positions).astype(np.int64))
        if positions.shape != ids.shape:
            raise RefError(f"position_ids {list(positions.shape)} and input_ids "
                           f"{list(ids.shape)} differ in shape")
        s = torch.arange(ids.shape[1])
        if (positions < 0).any() or (positions > s).any():
            raise RefError("position_ids outside [0, row index]")
    model.ops.positions = positions
    logits = model.logits(params, ids)  # [b, s, v] float64
    logp = torch.log_softmax(logits, dim=-1)
    nll = -logp[valid].gather(-1, lv.unsqueeze(-1)).squeeze(-1)
    return nll.mean()


def reference_loss(model, params, ids, labels, positions=None):
    with torch.no_grad():
        return float(loss_tensor(model, params, ids, labels, positions))


def reference_grads(model, params, ids, labels, loss_scale=1.0, positions=None):
    """(loss, {name: d loss / d param}) by autograd in float64. A tied
    embedding is one leaf used twice, so its gradient holds both uses. With a
    loss scale S the backward starts from loss * S (a low precision rounds
    the scaled cotangents) and the gradients are divided by S."""
    leaves = {n: t.detach().clone().requires_grad_(True) for n, t in params.items()}
    loss = loss_tensor(model, leaves, ids, labels, positions)
    names = list(leaves)
    start = loss * loss_scale if loss_scale != 1.0 else loss
    grads = torch.autograd.grad(start, [leaves[n] for n in names], allow_unused=True)
    out = {}
    for n, g in zip(names, grads):
        g = torch.zeros_like(leaves[n]) if g is None else g.detach()
        if loss_scale != 1.0:
            if not torch.isfinite(g).all():
                raise RefError(f"the reference's {model.ops.precision} backward overflowed at loss scale "
                               f"{loss_scale:g} (gradient of '{n}' not finite): lower --loss-scale")
            g = g / loss_scale
        out[n] = g
    return float(loss.detach()), out


def load_grads(model, path):
    """The gradients in PATH under the parameters' names, float64 tensors.
    Returns (grads, extra) where extra maps a tied head's separately stored
    gradient (if any) to the embedding it must equal."""
    raw = read_safetensors(path)
    specs = model.param_specs()
    emb, head = model.head_names()
    grads, missing = {}, []
    for name, shape, _ in specs:
        if name not in raw:
            missing.append(name)
            continue
        arr = raw[name]
        if list(arr.shape) != list(shape):
            raise RefError(f"{path}: gradient '{name}' has shape {list(arr.shape)}, expected {shape}")
        if arr.dtype.kind != "f":
            raise RefError(f"{path}: gradient '{name}' has dtype {arr.dtype}, expected a float type")
        grads[name] = torch.from_numpy(arr.astype(np.float64))
    if missing:
        more = f" (and {len(missing) - 5} more)" if len(missing) > 5 else ""
        raise RefError(f"{path}: missing gradient{'s' if len(missing) > 1 else ''} "
                       f"{', '.join(missing[:5])}{more}")
    expected = {n for n, _, _ in specs}
    extra, unexpected = {}, []
    for name in raw:
        if name in expected or name.endswith(_IGNORED_SUFFIXES):
            continue
        if name == head and model.tied and list(raw[name].shape) == list(raw[emb].shape) \
                and raw[name].dtype.kind == "f":
            extra[name] = (emb, torch.from_numpy(raw[name].astype(np.float64)))
            continue
        unexpected.append(name)
    if unexpected:
        more = f" (and {len(unexpected) - 5} more)" if len(unexpected) > 5 else ""
        raise RefError(f"{path}: unexpected tensor{'s' if len(unexpected) > 1 else ''} "
                       f"{', '.join(sorted(unexpected)[:5])}{more} for this config")
    return grads, extra


def grad_rel_error(got, ref):
    """||got - ref|| / ||ref|| (Frobenius); ||got - ref|| when ref is zero;
    inf when got is not finite."""
    if not torch.isfinite(got).all():
        return float("inf")
    diff = float(torch.linalg.norm((got - ref).reshape(-1)))
    den = float(torch.linalg.norm(ref.reshape(-1)))
    return diff / den if den > 0 else diff


def tensor_family(name):
    """transformer.h.3.attn.c_attn.weight -> transformer.h.*.attn.c_attn.weight"""
    return re.sub(r"\.\d+\.", ".*.", name)


def compare_grads(model, a, per_tensor=False):
    """The gradient mode: prints a summary per tensor family and the maximum
    error; returns the exit status."""
    drops = {k: v for k, v in model.dropout_fields().items() if v != 0.0}
    if drops:
        raise RefError(f"{a.config} has dropout {', '.join(f'{k}={v:g}' for k, v in drops.items())}: "
                       f"gradients can be compared only without dropout (set it to 0 in the config "
                       f"the program was imported from)")
    if not a.outputs:
        raise RefError("--grads needs --outputs (the step's input_ids and labels)")
    if not (a.rtol >= 0):
        raise RefError(f"--rtol must be >= 0, got {a.rtol}")
    t = load_ids(a.outputs)
    params = load_params(model, a.params)
    got, extra = load_grads(model, a.grads)
    loss, ref = reference_grads(model, params, t["input_ids"], t["labels"], a.loss_scale,
                                t.get("position_ids"))
    if model.ops.low is not None:
        print(f"precision {model.ops.precision} loss scale {a.loss_scale:g}")
    if "loss" in t and t["loss"].size == 1 and t["loss"].dtype.kind == "f":
        s = float(t["loss"].reshape(()))
        lerr = abs(s - loss) / abs(loss) if loss != 0 else abs(s - loss)
        print(f"reference loss {loss:.9g} seqpar loss {s:.9g} relative error {lerr:.3e}")
    else:
        print(f"reference loss {loss:.9g}")
    errs = {}
    for name, _, _ in model.param_specs():
        errs[name] = (grad_rel_error(got[name], ref[name]), float(torch.linalg.norm(ref[name].reshape(-1))))
    for name, (emb, g) in extra.items():
        errs[name] = (grad_rel_error(g, ref[emb]), float(torch.linalg.norm(ref[emb].reshape(-1))))
    families = {}
    for name, e in errs.items():
        families.setdefault(tensor_family(name), []).append((name, e))
    width = max(len(f) for f in families)
    for fam, items in families.items():
        worst_name, (worst, _) = max(items, key=lambda x: x[1][0])
        norms = [n for _, (_, n) in items]
        where = f" (worst {worst_name})" if len(items) > 1 else ""
        span = f"{min(norms):.3e}..{max(norms):.3e}" if len(items) > 1 else f"{norms[0]:.3e}"
        print(f"gradient {fam:<{width}}  {len(items):2d} tensor{'s' if len(items) > 1 else ' '}  "
              f"|g_ref| {span:<20}  max relative error {worst:.3e}{where}")
        if per_tensor and len(items) > 1:
            for name, (e, n) in items:
                print(f"    {name:<{width}}  |g_ref| {n:.3e}  relative error {e:.3e}")
    worst = max(e for e, _ in errs.values())
    print(f"max relative gradient error {worst:.3e} over {len(errs)} tensors")
    return 0 if worst <= a.rtol else 1


def init_params(model, seed, weight_std=None):
    """The model's own initialisation, or with weight_std a scrambled one
    (weights normal(0, weight_std), norm weights 1 + normal(0, 0.2), biases
    normal(0, 0.1)) under which the loss depends strongly on every detail of
    the model, so that a small tolerance can tell implementations apart."""
    g = torch.Generator()
    g.manual_seed(seed)
    out = {}
    for name, shape, kind in model.param_specs():
        t = torch.empty(shape, dtype=torch.float32)
        if weight_std is not None:
            if kind == "normal":
                t.normal_(0.0, weight_std, generator=g)
            elif kind == "ones":
                t.normal_(1.0, 0.2, generator=g)
            else:
                t.normal_(0.0, 0.1, generator=g)
        elif kind == "normal":
            t.normal_(0.0, model.init_std, generator=g)
        elif kind == "ones":
            t.fill_(1.0)
        else:
            t.fill_(0.0)
        out[name] = t.numpy()
    return out


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Independent float64 PyTorch reference for seqpar's forward loss "
                    "(GPT-2, GPT-NeoX, Llama, Hugging Face semantics).")
    ap.add_argument("--config", required=True, help="Hugging Face config.json")
    ap.add_argument("--params", help="parameters (safetensors, Hugging Face names)")
    ap.add_argument("--outputs", help="seqpar --dump-outputs file: input_ids, labels, loss")
    ap.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default 1e-5)")
    ap.add_argument("--ids-from", help="take input_ids/labels from this file and print the reference loss")
    ap.add_argument("--dump-loss", action="store_true", help="print only the reference loss")
    ap.add_argument("--init", metavar="OUT", help="write random parameters to OUT.safetensors")
    ap.add_argument("--seed", type=int, default=0, help="seed of --init (default 0)")
    ap.add_argument("--scramble", type=float, metavar="STD",
                    help="with --init: weights normal(0, STD), norm weights and "
                         "biases perturbed (a loss sensitive to every detail)")
    ap.add_argument("--grads", help="seqpar --dump-grads file: compare every parameter's gradient "
                                    "with autograd's (needs --params and --outputs)")
    ap.add_argument("--per-tensor", action="store_true",
                    help="with --grads: also print every tensor's error")
    ap.add_argument("--precision", choices=sorted(LOW_DTYPES), default="fp32",
                    help="emulate seqpar's mixed precision: round to bf16 or fp16 at every op "
                         "boundary (see the docstring; default fp32: no rounding)")
    ap.add_argument("--loss-scale", type=float, default=1.0, metavar="S",
                    help="with --precision bf16|fp16 and --grads: the backward starts from "
                         "loss * S, the gradients are divided by S (default 1)")
    a = ap.parse_args(argv)

    try:
        model = load_config(a.config)
        model.ops = Ops(a.precision)
        if not (a.loss_scale > 0 and math.isfinite(a.loss_scale)):
            raise RefError(f"--loss-scale must be a finite number > 0, got {a.loss_scale:g}")
        if a.loss_scale != 1.0 and model.ops.low is None:
            raise RefError("--loss-scale needs --precision bf16 or fp16 (in float64 it changes nothing)")
        if a.init:
            if a.params or a.outputs or a.ids_from or a.grads:
                raise RefError("--init does not take --params, --outputs, --ids-from or --grads")
            if a.seed < 0:
                raise RefError(f"--seed must be non-negative, got {a.seed}")
            tensors = init_params(model, a.seed, a.scramble)
            write_safetensors(a.init, tensors, {"format": "pt", "seed": a.seed})
            n = sum(int(np.prod(t.shape)) for t in tensors.values())
            print(f"wrote {len(tensors)} tensors ({n} parameters) to {a.init}")
            return 0

        if not a.params:
            raise RefError("--params is required (or --init to write parameters)")
        if a.grads:
            if a.ids_from or a.dump_loss:
                raise RefError("--grads does not take --ids-from or --dump-loss")
            return compare_grads(model, a, a.per_tensor)
        if a.dump_loss or a.ids_from:
            src = a.ids_from or a.outputs
            if not src:
                raise RefError("--dump-loss needs --ids-from (or --outputs)")
            t = load_ids(src)
            params = load_params(model, a.params)
            print(f"{reference_loss(model, params, t['input_ids'], t['labels'], t.get('position_ids')):.12g}")
            return 0

        if not a.outputs:
            raise RefError("give --outputs (compare), --ids-from (dump the loss) or --init")
        if not (a.rtol >= 0):
            raise RefError(f"--rtol must be >= 0, got {a.rtol}")
        t = load_ids(a.outputs)
        if "loss" not in t:
            raise RefError(f"{a.outputs}: tensor 'loss' is missing")
        if t["loss"].size != 1 or t["loss"].dtype.kind != "f":
            raise RefError(f"{a.outputs}: tensor 'loss' must be a float scalar, got {t['loss'].dtype} "
                           f"of shape {list(t['loss'].shape)}")
        drops = {k: v for k, v in model.dropout_fields().items() if v != 0.0}
        if drops:
            sys.stderr.write(f"warning: {a.config} has dropout "
                             f"{', '.join(f'{k}={v:g}' for k, v in drops.items())}; the reference runs "
                             f"without dropout, so a program trained with it will not match\n")
        params = load_params(model, a.params)
        ref = reference_loss(model, params, t["input_ids"], t["labels"], t.get("position_ids"))
        got = float(t["loss"].reshape(()))
        err = abs(got - ref) / abs(ref) if ref != 0 else abs(got - ref)
        if not math.isfinite(got):
            err = float("inf")
        print(f"reference loss {ref:.9g} seqpar loss {got:.9g} relative error {err:.3e}")
        return 0 if err <= a.rtol else 1
    except RefError as e:
        sys.stderr.write(f"error: {e}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
