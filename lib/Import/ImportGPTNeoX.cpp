//===- ImportGPTNeoX.cpp - model_type "gpt_neox" --------------------------===//
//
// Mirrors transformers' GPTNeoXForCausalLM: rotary embeddings on the first
// int(head_dim * rotary_pct) features of each head, a fused query_key_value
// ordered per head [q k v], LayerNorms with bias, and by default the parallel
// residual x + attn(ln1(x)) + mlp(ln2(x)). The LM head (embed_out) is untied
// unless tie_word_embeddings says otherwise.
//
//===----------------------------------------------------------------------===//

#include "Families.h"
#include "ModelBuilder.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

bool seqpar::importGPTNeoX(ConfigReader &cfg, const ImportTarget &target) {
  int64_t vocab = cfg.positiveInt("vocab_size");
  int64_t hidden = cfg.positiveInt("hidden_size");
  int64_t layers = cfg.layerCount("num_hidden_layers");
  int64_t heads = cfg.positiveInt("num_attention_heads");
  int64_t inner = cfg.positiveInt("intermediate_size");
  int64_t positions = cfg.positiveInt("max_position_embeddings", 2048);
  double rotaryPct = cfg.fraction("rotary_pct", 0.25);
  double theta = cfg.positive("rotary_emb_base", 10000.0);
  double eps = cfg.positive("layer_norm_eps", 1e-5);
  double std = cfg.positive("initializer_range", 0.02);
  double hiddenDrop = cfg.probability("hidden_dropout", 0.0);
  double attnDrop = cfg.probability("attention_dropout", 0.0);
  bool parallel = cfg.boolean("use_parallel_residual", true);
  bool tied = cfg.boolean("tie_word_embeddings", false);
  bool bias = cfg.boolean("attention_bias", true);
  std::string act = cfg.string("hidden_act").value_or("gelu");
  cfg.requireNull("rope_scaling", "rotary scaling is not implemented");
  GeluApproximation approx = GeluApproximation::none;
  bool relu = act == "relu";
  if (act == "gelu_new" || act == "gelu_fast" || act == "gelu_pytorch_tanh")
    approx = GeluApproximation::tanh;
  else if (act != "gelu" && !relu)
    cfg.fail("hidden_act", "= \"" + act +
                               "\" is not supported (gelu, gelu_new, "
                               "gelu_fast, gelu_pytorch_tanh, relu)");
  int64_t dim =
      headDim(cfg, hidden, "hidden_size", heads, "num_attention_heads");
  // transformers: rotary_ndims = int(head_size * rotary_pct).
  int64_t rotaryDim = static_cast<int64_t>(dim * rotaryPct);
  if (rotaryDim % 2 != 0)
    cfg.fail("rotary_pct", "gives an odd number of rotary features (" +
                               Twine(rotaryDim) + " of head_dim " + Twine(dim) +
                               "); rotate-half needs an even number");
  Dim seq = target.seqLen(cfg, "max_position_embeddings", positions,
                          /*learnedPositions=*/false);
  Dim V = cfg.dim("vocab_size", vocab), H = cfg.dim("hidden_size", hidden);
  Dim I = cfg.dim("intermediate_size", inner), QKV = cfg.scaled(3, H);
  Dim L = cfg.dim("num_hidden_layers", layers);
  Dim N = cfg.dim("num_attention_heads", heads);
  if (cfg.failed())
    return false;

  ModelBuilder m(target.module, target.elementType, cfg, seq, target.batch());
  m.checkpointNames("gpt_neox.", {".attention.bias", ".attention.masked_bias",
                                  ".rotary_emb.inv_freq"});
  m.at("gpt_neox.embed_in");
  Value embed =
      m.param("gpt_neox.embed_in.weight", {V, H}, InitKind::normal, std);
  Value h = m.embedding(m.inputIds(), embed, H);
  m.at("gpt_neox.emb_dropout");
  h = m.dropout(h, hiddenDrop);

  m.beginLayers();
  for (int64_t i = 0; i < layers && !cfg.failed(); ++i) {
    std::string p = "gpt_neox.layers." + std::to_string(i);
    m.at(p + ".input_layernorm");
    Value a = m.layerNorm(h, p + ".input_layernorm", H, eps);
    m.at(p + ".attention");
    Value qkv = m.linear(a, p + ".attention.query_key_value", H, QKV, bias,
                         WeightLayout::out_in, std);
    Value k, v;
    Value q = m.qkvSplit(qkv, QkvPacking::heads, heads, heads, dim, H, H, k, v);
    a = m.attention(q, k, v, N, heads, dim, rotaryDim, theta, attnDrop);
    a = m.linear(a, p + ".attention.dense", H, H, bias, WeightLayout::out_in,
                 std);
    m.at(p + ".post_attention_dropout");
    a = m.dropout(a, hiddenDrop);

    // The MLP reads ln2(x) of the block input (parallel) or of x + attn.
    Value mlpIn = parallel ? h : m.add(h, a);
    m.at(p + ".post_attention_layernorm");
    Value f = m.layerNorm(mlpIn, p + ".post_attention_layernorm", H, eps);
    m.at(p + ".mlp");
    f = m.linear(f, p + ".mlp.dense_h_to_4h", H, I, true, WeightLayout::out_in,
                 std);
    f = relu ? m.relu(f) : m.gelu(f, approx);
    f = m.linear(f, p + ".mlp.dense_4h_to_h", I, H, true, WeightLayout::out_in,
                 std);
    m.at(p + ".post_mlp_dropout");
    f = m.dropout(f, hiddenDrop);
    // Summed in the order transformers uses (mlp + attn) + x.
    h = parallel ? m.add(m.add(f, a), h) : m.add(f, mlpIn);
    if (i == 0)
      m.checkLayerCount(L);
  }
  if (cfg.failed())
    return false;

  m.at("gpt_neox.final_layer_norm");
  h = m.layerNorm(h, "gpt_neox.final_layer_norm", H, eps);
  m.at("embed_out");
  Value logits =
      tied ? m.linearWith(h, embed, V)
           : m.linear(h, "embed_out", H, V, false, WeightLayout::out_in, std);
  m.finish(logits);
  return !cfg.failed();
}
