//===- ImportLlama.cpp - model_type "llama" -------------------------------===//
//
// Mirrors transformers' LlamaForCausalLM: RMSNorm, rotary embeddings on the
// whole head (rope_theta), grouped-query attention with separate q/k/v
// projections, a SwiGLU MLP down(silu(gate(x)) * up(x)), no biases by
// default, and an untied lm_head unless tie_word_embeddings says otherwise.
//
//===----------------------------------------------------------------------===//

#include "Families.h"
#include "ModelBuilder.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

bool seqpar::importLlama(ConfigReader &cfg, const ImportTarget &target) {
  int64_t vocab = cfg.positiveInt("vocab_size");
  int64_t hidden = cfg.positiveInt("hidden_size");
  int64_t layers = cfg.layerCount("num_hidden_layers");
  int64_t heads = cfg.positiveInt("num_attention_heads");
  int64_t kvHeads = cfg.positiveInt("num_key_value_heads", heads);
  int64_t inner = cfg.positiveInt("intermediate_size");
  int64_t positions = cfg.positiveInt("max_position_embeddings", 2048);
  double eps = cfg.positive("rms_norm_eps", 1e-6);
  double theta = cfg.positive("rope_theta", 10000.0);
  double std = cfg.positive("initializer_range", 0.02);
  double attnDrop = cfg.probability("attention_dropout", 0.0);
  bool attnBias = cfg.boolean("attention_bias", false);
  bool mlpBias = cfg.boolean("mlp_bias", false);
  bool tied = cfg.boolean("tie_word_embeddings", false);
  std::string act = cfg.string("hidden_act").value_or("silu");
  cfg.requireNull("rope_scaling", "rotary scaling is not implemented");
  if (act != "silu")
    cfg.fail("hidden_act",
             "= \"" + act + "\" is not supported (silu, for SwiGLU)");
  if (heads % kvHeads != 0)
    cfg.fail("num_attention_heads", "= " + Twine(heads) +
                                        " is not a multiple of "
                                        "'num_key_value_heads' = " +
                                        Twine(kvHeads));
  // head_dim is explicit in newer configs; otherwise hidden / heads.
  int64_t dim = cfg.positiveInt("head_dim", 0);
  Dim D = cfg.dim("head_dim", dim);
  if (dim == 0) {
    dim = headDim(cfg, hidden, "hidden_size", heads, "num_attention_heads");
    D = {dim, "hidden_size / num_attention_heads", "hidden_size", hidden};
  }
  Dim seq = target.seqLen(cfg, "max_position_embeddings", positions,
                          /*learnedPositions=*/false);
  Dim V = cfg.dim("vocab_size", vocab), H = cfg.dim("hidden_size", hidden);
  Dim I = cfg.dim("intermediate_size", inner);
  Dim L = cfg.dim("num_hidden_layers", layers);
  Dim N = cfg.dim("num_attention_heads", heads);
  Dim Q = cfg.product(N, D);
  Dim KV = cfg.product(cfg.dim("num_key_value_heads", kvHeads), D);
  if (cfg.failed())
    return false;

  ModelBuilder m(target.module, target.elementType, cfg, seq, target.batch());
  m.checkpointNames("model.", {".rotary_emb.inv_freq"});
  m.at("model.embed_tokens");
  Value embed =
      m.param("model.embed_tokens.weight", {V, H}, InitKind::normal, std);
  Value h = m.embedding(m.inputIds(), embed, H);

  m.beginLayers();
  for (int64_t i = 0; i < layers && !cfg.failed(); ++i) {
    std::string p = "model.layers." + std::to_string(i);
    m.at(p + ".input_layernorm");
    Value a = m.rmsNorm(h, p + ".input_layernorm", H, eps);
    m.at(p + ".self_attn");
    std::string sa = p + ".self_attn";
    Value q =
        m.linear(a, sa + ".q_proj", H, Q, attnBias, WeightLayout::out_in, std);
    Value k =
        m.linear(a, sa + ".k_proj", H, KV, attnBias, WeightLayout::out_in, std);
    Value v =
        m.linear(a, sa + ".v_proj", H, KV, attnBias, WeightLayout::out_in, std);
    a = m.attention(q, k, v, N, kvHeads, dim, /*rotaryDim=*/dim, theta,
                    attnDrop);
    a = m.linear(a, sa + ".o_proj", Q, H, attnBias, WeightLayout::out_in, std);
    h = m.add(h, a);

    m.at(p + ".post_attention_layernorm");
    Value f = m.rmsNorm(h, p + ".post_attention_layernorm", H, eps);
    m.at(p + ".mlp");
    Value gate = m.linear(f, p + ".mlp.gate_proj", H, I, mlpBias,
                          WeightLayout::out_in, std);
    Value up = m.linear(f, p + ".mlp.up_proj", H, I, mlpBias,
                        WeightLayout::out_in, std);
    f = m.linear(m.mul(m.silu(gate), up), p + ".mlp.down_proj", I, H, mlpBias,
                 WeightLayout::out_in, std);
    h = m.add(h, f);
    if (i == 0)
      m.checkLayerCount(L);
  }
  if (cfg.failed())
    return false;

  m.at("model.norm");
  h = m.rmsNorm(h, "model.norm", H, eps);
  m.at("lm_head");
  Value logits =
      tied ? m.linearWith(h, embed, V)
           : m.linear(h, "lm_head", H, V, false, WeightLayout::out_in, std);
  m.finish(logits);
  return !cfg.failed();
}
