"""The model side of the PyTorch reference (reference.py): the HF config,
the float64 building blocks, the tfm ops of the forward with their
low-precision rounding points, and the GPT-2, GPT-NeoX and Llama
families."""

import json
import math
import sys

try:
    import torch
except ImportError:  # pragma: no cover
    sys.stderr.write("error: PyTorch is required (Debian: apt-get install python3-torch)\n")
    sys.exit(2)

from reference_io import RefError


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
