//===- ImportGPT2.cpp - model_type "gpt2" ---------------------------------===//
//
// Mirrors transformers' GPT2LMHeadModel: learned positions, pre-LayerNorm
// blocks, Conv1D weights stored [in, out], a fused c_attn ordered [q | k | v],
// and an LM head tied to the token embedding unless tie_word_embeddings is
// false.
//
//===----------------------------------------------------------------------===//

#include "Families.h"
#include "ModelBuilder.h"

#include <cmath>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

bool seqpar::importGPT2(ConfigReader &cfg, const ImportTarget &target) {
  int64_t vocab = cfg.positiveInt("vocab_size");
  int64_t positions = cfg.positiveInt("n_positions");
  int64_t hidden = cfg.positiveInt("n_embd");
  int64_t layers = cfg.layerCount("n_layer");
  int64_t heads = cfg.positiveInt("n_head");
  // n_inner defaults to 4 * n_embd (0 stands for absent: it is positive).
  int64_t inner = cfg.positiveInt("n_inner", 0);
  double eps = cfg.positive("layer_norm_epsilon", 1e-5);
  double std = cfg.positive("initializer_range", 0.02);
  double residDrop = cfg.probability("resid_pdrop", 0.1);
  double embdDrop = cfg.probability("embd_pdrop", 0.1);
  double attnDrop = cfg.probability("attn_pdrop", 0.1);
  bool tied = cfg.boolean("tie_word_embeddings", true);
  std::string act = cfg.string("activation_function").value_or("gelu_new");
  cfg.requireBool("scale_attn_weights", true,
                  "attention scores are always scaled by 1/sqrt(head_dim)");
  cfg.requireBool("scale_attn_by_inverse_layer_idx", false,
                  "per-layer attention scaling is not implemented");
  cfg.requireBool("add_cross_attention", false,
                  "seqpar builds decoder-only models");
  GeluApproximation approx = GeluApproximation::tanh;
  bool relu = act == "relu";
  if (act == "gelu")
    approx = GeluApproximation::none;
  else if (act != "gelu_new" && act != "gelu_pytorch_tanh" &&
           act != "gelu_fast" && !relu)
    cfg.fail("activation_function",
             "= \"" + act +
                 "\" is not supported (gelu, gelu_new, gelu_pytorch_tanh, "
                 "relu)");
  int64_t dim = headDim(cfg, hidden, "n_embd", heads, "n_head");
  Dim seq = target.seqLen(cfg, "n_positions", positions,
                          /*learnedPositions=*/true);
  Dim V = cfg.dim("vocab_size", vocab), P = cfg.dim("n_positions", positions);
  Dim H = cfg.dim("n_embd", hidden), QKV = cfg.scaled(3, H);
  Dim I = inner ? cfg.dim("n_inner", inner) : cfg.scaled(4, H);
  Dim L = cfg.dim("n_layer", layers), N = cfg.dim("n_head", heads);
  if (cfg.failed())
    return false;

  ModelBuilder m(target.module, target.elementType, cfg, seq, target.batch());
  m.checkpointNames("transformer.", {".attn.bias", ".attn.masked_bias"});
  // GPT-2 scales the residual projections by 1/sqrt(2 * n_layer).
  double projStd = std / std::sqrt(2.0 * layers);

  m.at("transformer.wte");
  Value wte = m.param("transformer.wte.weight", {V, H}, InitKind::normal, std);
  Value h = m.embedding(m.inputIds(), wte, H);
  m.at("transformer.wpe");
  Value wpe = m.param("transformer.wpe.weight", {P, H}, InitKind::normal, std);
  h = m.add(h, m.embedding(m.positionIds(), wpe, H));
  m.at("transformer.drop");
  h = m.dropout(h, embdDrop);

  m.beginLayers();
  for (int64_t i = 0; i < layers && !cfg.failed(); ++i) {
    std::string p = "transformer.h." + std::to_string(i);
    m.at(p + ".ln_1");
    Value a = m.layerNorm(h, p + ".ln_1", H, eps);
    m.at(p + ".attn");
    Value qkv = m.linear(a, p + ".attn.c_attn", H, QKV, true,
                         WeightLayout::in_out, std);
    Value k, v;
    Value q =
        m.qkvSplit(qkv, QkvPacking::blocks, heads, heads, dim, H, H, k, v);
    a = m.attention(q, k, v, N, heads, dim, /*rotaryDim=*/0, 10000.0, attnDrop);
    a = m.linear(a, p + ".attn.c_proj", H, H, true, WeightLayout::in_out,
                 projStd);
    a = m.dropout(a, residDrop);
    h = m.add(h, a);

    m.at(p + ".ln_2");
    Value f = m.layerNorm(h, p + ".ln_2", H, eps);
    m.at(p + ".mlp");
    f = m.linear(f, p + ".mlp.c_fc", H, I, true, WeightLayout::in_out, std);
    f = relu ? m.relu(f) : m.gelu(f, approx);
    f = m.linear(f, p + ".mlp.c_proj", I, H, true, WeightLayout::in_out,
                 projStd);
    f = m.dropout(f, residDrop);
    h = m.add(h, f);
    if (i == 0)
      m.checkLayerCount(L);
  }
  if (cfg.failed())
    return false;

  m.at("transformer.ln_f");
  h = m.layerNorm(h, "transformer.ln_f", H, eps);
  m.at("lm_head");
  Value logits =
      tied ? m.linearWith(h, wte, V)
           : m.linear(h, "lm_head", H, V, false, WeightLayout::out_in, std);
  m.finish(logits);
  return !cfg.failed();
}
