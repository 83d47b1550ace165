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
import json
import math
import os
import re
import struct
import sys

import numpy as np

try:
    import torch
except ImportError:  # pragma: no cover
    sys.stderr.write("error: PyTorch is required (Debian: apt-get install python3-torch)\n")
    sys.exit(2)


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


# ----------------------------------------------------------------------------
# config
# ----------------------------------------------------------------------------

class Config:
    """Typed access to an HF config.json: required fields raise RefError
    naming the field; optional ones take the Hugging Face default."""

    def __init__(self, d, path):
        self.d = d
        self.path = path

    def has(self, key):
        return key in self.d and self.d[key] is not None

    def _fail(self, key, what):
        raise RefError(f"{self.path}: field '{key}' {what}")

    def int(self, key, default=None, minimum=1):
        if not self.has(key):
            if default is None:
                self._fail(key, "is missing")
            return default
        v = self.d[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or int(v) != v:
            self._fail(key, f"must be an integer, got {v!r}")
        v = int(v)
        if v < minimum:
            self._fail(key, f"must be >= {minimum}, got {v}")
        return v

    def float(self, key, default=None, positive=False):
        if not self.has(key):
            if default is None:
                self._fail(key, "is missing")
            return float(default)
        v = self.d[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            self._fail(key, f"must be a number, got {v!r}")
        if positive and v <= 0:
            self._fail(key, f"must be > 0, got {v}")
        return float(v)

    def bool(self, key, default):
        if not self.has(key):
            return default
        v = self.d[key]
        if not isinstance(v, bool):
            self._fail(key, f"must be true or false, got {v!r}")
        return v

    def str(self, key, default):
        if not self.has(key):
            return default
        v = self.d[key]
        if not isinstance(v, str):
            self._fail(key, f"must be a string, got {v!r}")
        return v

    def require_null(self, key, why):
        if self.has(key):
            self._fail(key, f"is {self.d[key]!r}: {why}")

    def require_value(self, key, default, expected, why):
        v = self.bool(key, default)
        if v != expected:
            self._fail(key, f"is {v!r}: {why}")


def load_config(path):
    try:
        with open(path) as f:
            d = json.load(f)
    except OSError as e:
        raise RefError(f"cannot read '{path}': {e.strerror}")
    except json.JSONDecodeError as e:
        raise RefError(f"{path}: bad JSON: {e}")
    if not isinstance(d, dict):
        raise RefError(f"{path}: not a JSON object")
    cfg = Config(d, path)
    mt = cfg.str("model_type", None)
    if mt is None:
        raise RefError(f"{path}: field 'model_type' is missing")
    if mt not in FAMILIES:
        raise RefError(f"{path}: field 'model_type' is '{mt}': supported are {', '.join(sorted(FAMILIES))}")
    return FAMILIES[mt](cfg)


# ----------------------------------------------------------------------------
# building blocks (float64)
# ----------------------------------------------------------------------------

def activation(name, where):
    """transformers.activations.ACT2FN, for the activations used here."""
    if name in ("gelu", "gelu_python"):
        return lambda x: 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    if name in ("gelu_new", "gelu_fast", "gelu_pytorch_tanh"):
        c = math.sqrt(2.0 / math.pi)
        return lambda x: 0.5 * x * (1.0 + torch.tanh(c * (x + 0.044715 * x * x * x)))
    if name == "quick_gelu":
        return lambda x: x * torch.sigmoid(1.702 * x)
    if name in ("silu", "swish"):
        return lambda x: x * torch.sigmoid(x)
    if name == "relu":
        return torch.relu
    if name == "tanh":
        return torch.tanh
    raise RefError(f"{where}: activation '{name}' is not supported by the reference")


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps) * w + b


def rms_norm(x, w, eps):
    var = (x * x).mean(-1, keepdim=True)
    return x * torch.rsqrt(var + eps) * w


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rope_cos_sin(dim, base, seq, positions=None):
    """cos, sin of shape [seq, dim] (HF rotary embedding, rotate-half), or
    [b, 1, seq, dim] at the position ids POSITIONS [b, seq] (packed
    documents)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    if positions is not None:
        freqs = positions.to(torch.float64).unsqueeze(-1) * inv_freq
        emb = torch.cat((freqs, freqs), dim=-1).unsqueeze(1)
        return emb.cos(), emb.sin()
    t = torch.arange(seq, dtype=torch.float64)
    freqs = torch.outer(t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def apply_rope(x, cos, sin):
    """x [b, heads, s, dim]; cos/sin [s, dim]."""
    return x * cos + rotate_half(x) * sin


def causal_attention(q, k, v, scale, positions=None):
    """q [b, h, s, d], k/v [b, h, s, d] -> [b, h, s, d]. With POSITIONS
    [b, s] (packed documents) the mask is document-causal: query i sees keys
    i - positions[i] .. i."""
    s = q.shape[-2]
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    mask = torch.ones(s, s, dtype=torch.bool).triu(1)
    if positions is not None:
        i = torch.arange(s)
        start = i.unsqueeze(0) - positions  # [b, s]: each query's document start
        before = i.view(1, 1, s) < start.unsqueeze(-1)  # [b, s(query), s(key)]
        mask = (mask.unsqueeze(0) | before).unsqueeze(1)
    scores = scores.masked_fill(mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v)


def split_heads(x, heads, hd):
    b, s, _ = x.shape
    return x.view(b, s, heads, hd).transpose(1, 2)


def merge_heads(x):
    b, h, s, d = x.shape
    return x.transpose(1, 2).reshape(b, s, h * d)


def linear(x, w, b=None):
    """nn.Linear: w [out, in]."""
    y = torch.matmul(x, w.t())
    return y + b if b is not None else y


def conv1d(x, w, b):
    """GPT-2 Conv1D: w [in, out]."""
    return torch.matmul(x, w) + b


# ----------------------------------------------------------------------------
# the ops of the forward, and where a low precision rounds
# ----------------------------------------------------------------------------

LOW_DTYPES = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


class Ops:
    """The tfm ops of the forward as sp-import emits them, each computed in
    float64. The one place that decides where a low-precision run rounds
    (see "Precision" in the module docstring): r() on every parameter an op
    reads and on every op's result. With fp32 r() is the identity and the
    ops are today's float64 math, bit for bit."""

    def __init__(self, precision="fp32"):
        if precision not in LOW_DTYPES:
            raise RefError(f"unknown precision '{precision}' (fp32, bf16, fp16)")
        self.precision = precision
        self.low = LOW_DTYPES[precision]
        # Position ids [b, s] of packed documents (the outputs dump's
        # "position_ids"), or None: 0..s-1.
        self.positions = None

    def r(self, t):
        """Rounds to the low precision and back; autograd's backward of the
        two casts rounds the cotangent the same way."""
        if self.low is None or t is None:
            return t
        return t.to(self.low).to(torch.float64)

    def embedding(self, w, ids):  # tfm.embedding (also the position one)
        return self.r(self.r(w)[ids])

    def add(self, a, b):  # tfm.add
        return self.r(a + b)

    def dropout(self, x):  # tfm.dropout at rate 0: the identity
        return self.r(x)

    def layer_norm(self, x, w, b, eps):  # tfm.layer_norm: statistics in float64
        return self.r(layer_norm(x, self.r(w), self.r(b), eps))

    def rms_norm(self, x, w, eps):  # tfm.rms_norm
        return self.r(rms_norm(x, self.r(w), eps))

    def linear(self, x, w, b=None):  # tfm.linear, w [out, in], bias inside
        return self.r(linear(x, self.r(w), self.r(b)))

    def conv1d(self, x, w, b):  # tfm.linear weight_layout in_out
        return self.r(conv1d(x, self.r(w), self.r(b)))

    def act(self, f, x):  # tfm.gelu, tfm.silu
        return self.r(f(x))

    def mul(self, a, b):  # tfm.mul
        return self.r(a * b)

    def attention(self, q, k, v, scale, rope=None, rep=1):
        """tfm.attention on q/k/v [b, heads, s, d] (their split is no
        arithmetic): rotary on the first rope[2] dims of q and k (rope =
        (cos, sin, dims)), kv heads repeated rep times (GQA), causal softmax
        attention, all in float64; the merged [b, s, heads * d] result is
        rounded once."""
        if rope is not None:
            cos, sin, dims = rope
            if dims == q.shape[-1]:
                q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
            elif dims > 0:
                q = torch.cat((apply_rope(q[..., :dims], cos, sin), q[..., dims:]), dim=-1)
                k = torch.cat((apply_rope(k[..., :dims], cos, sin), k[..., dims:]), dim=-1)
        if rep > 1:
            # repeat_kv: kv head j serves query heads j*rep .. j*rep+rep-1.
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
        return self.r(merge_heads(causal_attention(q, k, v, scale, self.positions)))

    def parallel_residual(self, x, attn, mlp):
        """GPT-NeoX's x + attn + mlp(): seqpar adds (mlp + attn) + x, two
        rounded tfm.add; fp32 keeps the Hugging Face order (x + attn first,
        then the MLP branch: autograd then sums x's cotangents as before)."""
        if self.low is None:
            return x + attn + mlp()
        return self.add(self.add(mlp(), attn), x)


# ----------------------------------------------------------------------------
# model families
# ----------------------------------------------------------------------------

class Family:
    """A model: its parameter list (HF names, shapes, init kind, in the order
    of named_parameters()) and its forward pass to logits."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.init_std = cfg.float("initializer_range", 0.02, positive=True)
        self.ops = Ops("fp32")  # main() sets the --precision

    # [(name, shape, kind)] with kind in {"normal", "ones", "zeros"}
    def param_specs(self):
        raise NotImplementedError

    def head_names(self):
        """(embedding name, head name) for tied-embedding handling."""
        raise NotImplementedError

    def dropout_fields(self):
        return {}

    def check_seq(self, seq):
        pass

    def logits(self, p, ids):
        raise NotImplementedError


class GPT2(Family):
    name = "gpt2"

    def __init__(self, cfg):
        super().__init__(cfg)
        self.vocab = cfg.int("vocab_size")
        self.n_pos = cfg.int("n_positions")
        self.hidden = cfg.int("n_embd")
        self.layers = cfg.int("n_layer")
        self.heads = cfg.int("n_head")
        self.inner = cfg.int("n_inner", 4 * self.hidden)
        self.eps = cfg.float("layer_norm_epsilon", 1e-5, positive=True)
        self.act_name = cfg.str("activation_function", "gelu_new")
        self.act = activation(self.act_name, f"{cfg.path}: field 'activation_function'")
        self.tied = cfg.bool("tie_word_embeddings", True)
        self.scale_weights = cfg.bool("scale_attn_weights", True)
        self.scale_by_layer = cfg.bool("scale_attn_by_inverse_layer_idx", False)
        cfg.require_value("add_cross_attention", False, False, "cross-attention is not a causal LM")
        if self.hidden % self.heads:
            raise RefError(f"{cfg.path}: field 'n_embd' ({self.hidden}) is not a multiple of 'n_head' ({self.heads})")
        self.hd = self.hidden // self.heads

    def dropout_fields(self):
        c = self.cfg
        return {k: c.float(k, 0.1) for k in ("resid_pdrop", "embd_pdrop", "attn_pdrop")}

    def param_specs(self):
        h, i, v = self.hidden, self.inner, self.vocab
        s = [("transformer.wte.weight", [v, h], "normal"),
             ("transformer.wpe.weight", [self.n_pos, h], "normal")]
        for l in range(self.layers):
            pre = f"transformer.h.{l}."
            s += [(pre + "ln_1.weight", [h], "ones"), (pre + "ln_1.bias", [h], "zeros"),
                  (pre + "attn.c_attn.weight", [h, 3 * h], "normal"),
                  (pre + "attn.c_attn.bias", [3 * h], "zeros"),
                  (pre + "attn.c_proj.weight", [h, h], "normal"),
                  (pre + "attn.c_proj.bias", [h], "zeros"),
                  (pre + "ln_2.weight", [h], "ones"), (pre + "ln_2.bias", [h], "zeros"),
                  (pre + "mlp.c_fc.weight", [h, i], "normal"), (pre + "mlp.c_fc.bias", [i], "zeros"),
                  (pre + "mlp.c_proj.weight", [i, h], "normal"), (pre + "mlp.c_proj.bias", [h], "zeros")]
        s += [("transformer.ln_f.weight", [h], "ones"), ("transformer.ln_f.bias", [h], "zeros")]
        if not self.tied:
            s.append(("lm_head.weight", [v, h], "normal"))
        return s

    def head_names(self):
        return "transformer.wte.weight", "lm_head.weight"

    def check_seq(self, seq):
        if seq > self.n_pos:
            raise RefError(f"sequence length {seq} exceeds n_positions {self.n_pos}")

    def logits(self, p, ids):
        o = self.ops
        b, s = ids.shape
        x = o.dropout(o.add(o.embedding(p["transformer.wte.weight"], ids),
                            o.embedding(p["transformer.wpe.weight"],
                                        torch.arange(s) if o.positions is None else o.positions)))
        for l in range(self.layers):
            pre = f"transformer.h.{l}."
            a = o.layer_norm(x, p[pre + "ln_1.weight"], p[pre + "ln_1.bias"], self.eps)
            qkv = o.conv1d(a, p[pre + "attn.c_attn.weight"], p[pre + "attn.c_attn.bias"])
            q, k, v = qkv.split(self.hidden, dim=-1)
            q, k, v = (split_heads(t, self.heads, self.hd) for t in (q, k, v))
            scale = 1.0 / math.sqrt(self.hd) if self.scale_weights else 1.0
            if self.scale_by_layer:
                scale /= float(l + 1)
            att = o.attention(q, k, v, scale)
            x = o.add(x, o.dropout(o.conv1d(att, p[pre + "attn.c_proj.weight"], p[pre + "attn.c_proj.bias"])))
            m = o.layer_norm(x, p[pre + "ln_2.weight"], p[pre + "ln_2.bias"], self.eps)
            m = o.act(self.act, o.conv1d(m, p[pre + "mlp.c_fc.weight"], p[pre + "mlp.c_fc.bias"]))
            x = o.add(x, o.dropout(o.conv1d(m, p[pre + "mlp.c_proj.weight"], p[pre + "mlp.c_proj.bias"])))
        x = o.layer_norm(x, p["transformer.ln_f.weight"], p["transformer.ln_f.bias"], self.eps)
        return o.linear(x, p["transformer.wte.weight"] if self.tied else p["lm_head.weight"])


class GPTNeoX(Family):
    name = "gpt_neox"

    def __init__(self, cfg):
        super().__init__(cfg)
        self.vocab = cfg.int("vocab_size")
        self.hidden = cfg.int("hidden_size")
        self.layers = cfg.int("num_hidden_layers")
        self.heads = cfg.int("num_attention_heads")
        self.inter = cfg.int("intermediate_size")
        self.max_pos = cfg.int("max_position_embeddings", 0, minimum=0)
        self.act = activation(cfg.str("hidden_act", "gelu"), f"{cfg.path}: field 'hidden_act'")
        self.eps = cfg.float("layer_norm_eps", 1e-5, positive=True)
        self.parallel = cfg.bool("use_parallel_residual", True)
        self.tied = cfg.bool("tie_word_embeddings", False)
        self.bias = cfg.bool("attention_bias", True)
        rotary_pct = cfg.float("rotary_pct", cfg.float("partial_rotary_factor", 0.25))
        if not (0.0 <= rotary_pct <= 1.0):
            raise RefError(f"{cfg.path}: field 'rotary_pct' must be in [0, 1], got {rotary_pct}")
        self.base = cfg.float("rotary_emb_base", cfg.float("rope_theta", 10000), positive=True)
        cfg.require_null("rope_scaling", "rotary scaling is not implemented in the reference")
        if self.hidden % self.heads:
            raise RefError(f"{cfg.path}: field 'hidden_size' ({self.hidden}) is not a multiple of "
                           f"'num_attention_heads' ({self.heads})")
        self.hd = self.hidden // self.heads
        self.rot = int(self.hd * rotary_pct)
        if self.rot % 2:
            raise RefError(f"{cfg.path}: rotary dims int(head_dim * rotary_pct) = {self.rot} is odd")

    def dropout_fields(self):
        c = self.cfg
        return {k: c.float(k, 0.0) for k in ("hidden_dropout", "attention_dropout")}

    def param_specs(self):
        h, i, v = self.hidden, self.inter, self.vocab
        s = [("gpt_neox.embed_in.weight", [v, h], "normal")]
        for l in range(self.layers):
            pre = f"gpt_neox.layers.{l}."
            s += [(pre + "input_layernorm.weight", [h], "ones"),
                  (pre + "input_layernorm.bias", [h], "zeros"),
                  (pre + "post_attention_layernorm.weight", [h], "ones"),
                  (pre + "post_attention_layernorm.bias", [h], "zeros"),
                  (pre + "attention.query_key_value.weight", [3 * h, h], "normal")]
            if self.bias:
                s.append((pre + "attention.query_key_value.bias", [3 * h], "zeros"))
            s.append((pre + "attention.dense.weight", [h, h], "normal"))
            if self.bias:
                s.append((pre + "attention.dense.bias", [h], "zeros"))
            s += [(pre + "mlp.dense_h_to_4h.weight", [i, h], "normal"),
                  (pre + "mlp.dense_h_to_4h.bias", [i], "zeros"),
                  (pre + "mlp.dense_4h_to_h.weight", [h, i], "normal"),
                  (pre + "mlp.dense_4h_to_h.bias", [h], "zeros")]
        s += [("gpt_neox.final_layer_norm.weight", [h], "ones"),
              ("gpt_neox.final_layer_norm.bias", [h], "zeros")]
        if not self.tied:
            s.append(("embed_out.weight", [v, h], "normal"))
        return s

    def head_names(self):
        return "gpt_neox.embed_in.weight", "embed_out.weight"

    def logits(self, p, ids):
        o = self.ops
        b, s = ids.shape
        rope = rope_cos_sin(self.rot, self.base, s, o.positions) + (self.rot,)
        x = o.embedding(p["gpt_neox.embed_in.weight"], ids)
        hd = self.hd
        for l in range(self.layers):
            pre = f"gpt_neox.layers.{l}."
            a = o.layer_norm(x, p[pre + "input_layernorm.weight"], p[pre + "input_layernorm.bias"], self.eps)
            qkv = o.linear(a, p[pre + "attention.query_key_value.weight"],
                           p.get(pre + "attention.query_key_value.bias"))
            qkv = qkv.view(b, s, self.heads, 3 * hd).permute(0, 2, 1, 3)  # [b, heads, s, 3hd]
            q, k, v = qkv[..., :hd], qkv[..., hd:2 * hd], qkv[..., 2 * hd:]
            att = o.attention(q, k, v, 1.0 / math.sqrt(hd), rope)
            attn = o.linear(att, p[pre + "attention.dense.weight"], p.get(pre + "attention.dense.bias"))

            def mlp(y):
                y = o.act(self.act, o.linear(y, p[pre + "mlp.dense_h_to_4h.weight"],
                                             p[pre + "mlp.dense_h_to_4h.bias"]))
                return o.linear(y, p[pre + "mlp.dense_4h_to_h.weight"], p[pre + "mlp.dense_4h_to_h.bias"])

            ln2w, ln2b = p[pre + "post_attention_layernorm.weight"], p[pre + "post_attention_layernorm.bias"]
            if self.parallel:
                x = o.parallel_residual(x, attn, lambda: mlp(o.layer_norm(x, ln2w, ln2b, self.eps)))
            else:
                x1 = o.add(x, attn)
                x = o.add(x1, mlp(o.layer_norm(x1, ln2w, ln2b, self.eps)))
        x = o.layer_norm(x, p["gpt_neox.final_layer_norm.weight"], p["gpt_neox.final_layer_norm.bias"], self.eps)
        return o.linear(x, p["gpt_neox.embed_in.weight"] if self.tied else p["embed_out.weight"])


class Llama(Family):
    name = "llama"

    def __init__(self, cfg):
        super().__init__(cfg)
        self.vocab = cfg.int("vocab_size")
        self.hidden = cfg.int("hidden_size")
        self.layers = cfg.int("num_hidden_layers")
        self.heads = cfg.int("num_attention_heads")
        self.kv_heads = cfg.int("num_key_value_heads", self.heads)
        self.inter = cfg.int("intermediate_size")
        self.max_pos = cfg.int("max_position_embeddings", 0, minimum=0)
        self.act = activation(cfg.str("hidden_act", "silu"), f"{cfg.path}: field 'hidden_act'")
        self.eps = cfg.float("rms_norm_eps", 1e-6, positive=True)
        self.theta = cfg.float("rope_theta", 10000.0, positive=True)
        self.tied = cfg.bool("tie_word_embeddings", False)
        self.attn_bias = cfg.bool("attention_bias", False)
        self.mlp_bias = cfg.bool("mlp_bias", False)
        cfg.require_null("rope_scaling", "rotary scaling is not implemented in the reference")
        if self.heads % self.kv_heads:
            raise RefError(f"{cfg.path}: field 'num_attention_heads' ({self.heads}) is not a multiple of "
                           f"'num_key_value_heads' ({self.kv_heads})")
        if cfg.has("head_dim"):
            self.hd = cfg.int("head_dim")
        else:
            if self.hidden % self.heads:
                raise RefError(f"{cfg.path}: field 'hidden_size' ({self.hidden}) is not a multiple of "
                               f"'num_attention_heads' ({self.heads})")
            self.hd = self.hidden // self.heads
        if self.hd % 2:
            raise RefError(f"{cfg.path}: head_dim {self.hd} is odd (rotary needs pairs)")

    def dropout_fields(self):
        return {"attention_dropout": self.cfg.float("attention_dropout", 0.0)}

    def param_specs(self):
        h, i, v = self.hidden, self.inter, self.vocab
        qd, kvd = self.heads * self.hd, self.kv_heads * self.hd
        s = [("model.embed_tokens.weight", [v, h], "normal")]
        for l in range(self.layers):
            pre = f"model.layers.{l}."
            for proj, shape in (("q_proj", [qd, h]), ("k_proj", [kvd, h]), ("v_proj", [kvd, h]),
                                ("o_proj", [h, qd])):
                s.append((pre + f"self_attn.{proj}.weight", shape, "normal"))
                if self.attn_bias:
                    s.append((pre + f"self_attn.{proj}.bias", [shape[0]], "zeros"))
            for proj, shape in (("gate_proj", [i, h]), ("up_proj", [i, h]), ("down_proj", [h, i])):
                s.append((pre + f"mlp.{proj}.weight", shape, "normal"))
                if self.mlp_bias:
                    s.append((pre + f"mlp.{proj}.bias", [shape[0]], "zeros"))
            s += [(pre + "input_layernorm.weight", [h], "ones"),
                  (pre + "post_attention_layernorm.weight", [h], "ones")]
        s.append(("model.norm.weight", [h], "ones"))
        if not self.tied:
            s.append(("lm_head.weight", [v, h], "normal"))
        return s

    def head_names(self):
        return "model.embed_tokens.weight", "lm_head.weight"

    def logits(self, p, ids):
        o = self.ops
        b, s = ids.shape
        rope = rope_cos_sin(self.hd, self.theta, s, o.positions) + (self.hd,)
        x = o.embedding(p["model.embed_tokens.weight"], ids)
        for l in range(self.layers):
            pre = f"model.layers.{l}."
            a = o.rms_norm(x, p[pre + "input_layernorm.weight"], self.eps)
            q = o.linear(a, p[pre + "self_attn.q_proj.weight"], p.get(pre + "self_attn.q_proj.bias"))
            k = o.linear(a, p[pre + "self_attn.k_proj.weight"], p.get(pre + "self_attn.k_proj.bias"))
            v = o.linear(a, p[pre + "self_attn.v_proj.weight"], p.get(pre + "self_attn.v_proj.bias"))
            att = o.attention(split_heads(q, self.heads, self.hd), split_heads(k, self.kv_heads, self.hd),
                              split_heads(v, self.kv_heads, self.hd), 1.0 / math.sqrt(self.hd), rope,
                              self.heads // self.kv_heads)
            x = o.add(x, o.linear(att, p[pre + "self_attn.o_proj.weight"], p.get(pre + "self_attn.o_proj.bias")))
            m = o.rms_norm(x, p[pre + "post_attention_layernorm.weight"], self.eps)
            g = o.linear(m, p[pre + "mlp.gate_proj.weight"], p.get(pre + "mlp.gate_proj.bias"))
            u = o.linear(m, p[pre + "mlp.up_proj.weight"], p.get(pre + "mlp.up_proj.bias"))
            x = o.add(x, o.linear(o.mul(o.act(self.act, g), u), p[pre + "mlp.down_proj.weight"],
                                  p.get(pre + "mlp.down_proj.bias")))
        x = o.rms_norm(x, p["model.norm.weight"], self.eps)
        return o.linear(x, p["model.embed_tokens.weight"] if self.tied else p["lm_head.weight"])


FAMILIES = {"gpt2": GPT2, "gpt_neox": GPTNeoX, "llama": Llama}

# Buffers that some Hugging Face checkpoints carry but that are not parameters.
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
