//===- KernelsTest.cpp - libsprt CPU kernels vs reference loops -----------===//
//
// Every kernel of sprt/kernels.h except attention (AttentionTest.cpp),
// dropout (DropoutTest.cpp) and the random numbers (PhiloxTest.cpp) against
// a straightforward reference written here, in double where arithmetic is
// involved.
//
// Tolerances. f32 has unit roundoff u = 2^-24 ~ 6e-8.
// - Kernels that only move data (embedding, qkv_split, repeat_heads,
//   position ids, dropout's selection) and single f32 operations (mul, add,
//   bias_add) must be bitwise equal to the same operation done here.
// - Elementwise transcendental kernels (gelu, silu) are a handful of f32
//   operations plus a libm call (<= 2 ulp): |err| <= 1e-6 |ref| + 1e-6. The
//   absolute term covers gelu's 1 + erf(x) cancellation for x << 0, which
//   torch's formula shares.
// - Norms and the loss reduce in double and round once, so 1e-6 relative
//   (plus 1e-6 absolute for outputs near zero) is ~16 u of headroom.
// - A length-K f32 dot product has error <= K u sum_k |x_k w_k| in the worst
//   case and ~sqrt(K) u sum|x w| in practice; the linear tests scale the
//   tolerance by sum_k |x_k w_k| + |b| with rtol 1e-5 (K <= 70: sqrt(K) u
//   ~ 5e-7, so the bound holds with 20x margin while still catching a wrong
//   layout, which gives O(1) errors).
//
//===----------------------------------------------------------------------===//

#include "sprt/kernels.h"
#include "../cpu/Exp.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace sprt_test;

namespace {

//===------------------------------ linear -------------------------------===//

void checkLinear(int64_t M, int64_t K, int64_t N, bool inOut, bool withBias) {
  auto x = randomFloats(size_t(M * K), 1);
  auto w = randomFloats(size_t(N * K), 2);
  auto b = randomFloats(size_t(N), 3);
  std::vector<float> y(size_t(M * N), std::nanf(""));
  sprt_linear_f32(x.data(), w.data(), withBias ? b.data() : nullptr, y.data(),
                  M, K, N, inOut);
  std::vector<double> ref(size_t(M * N)), scale(size_t(M * N));
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = withBias ? b[n] : 0.0;
      double mag = withBias ? std::fabs(b[n]) : 0.0;
      for (int64_t k = 0; k < K; ++k) {
        double wv = inOut ? w[k * N + n] : w[n * K + k];
        acc += double(x[m * K + k]) * wv;
        mag += std::fabs(double(x[m * K + k]) * wv);
      }
      ref[m * N + n] = acc;
      scale[m * N + n] = mag;
    }
  char what[96];
  std::snprintf(what, sizeof what, "linear M=%ld K=%ld N=%ld %s %s", long(M),
                long(K), long(N), inOut ? "[K,N]" : "[N,K]",
                withBias ? "bias" : "no bias");
  expectClose(what, y, ref, 1e-5, 0.0, &scale);
}

TEST(Linear, WeightOutInNoBias) {
  checkLinear(5, 7, 3, false, false);
  checkLinear(33, 70, 19, false, false);
}
TEST(Linear, WeightOutInBias) {
  checkLinear(5, 7, 3, false, true);
  checkLinear(33, 70, 19, false, true);
}
TEST(Linear, WeightInOutNoBias) {
  checkLinear(5, 7, 3, true, false);
  checkLinear(33, 70, 19, true, false);
}
TEST(Linear, WeightInOutBias) {
  checkLinear(5, 7, 3, true, true);
  checkLinear(33, 70, 19, true, true);
}
TEST(Linear, SingleRowAndColumn) {
  checkLinear(1, 9, 4, false, true);
  checkLinear(6, 9, 1, true, true);
}

//===----------------------------- embedding -----------------------------===//

TEST(Embedding, UnsplitLookup) {
  const int64_t V = 11, H = 6;
  std::vector<int64_t> ids = {0, 3, 10, 3, 7, 1, 9, 0, 5};
  const int64_t T = int64_t(ids.size());
  auto table = randomFloats(size_t(V * H), 4);
  std::vector<float> y(size_t(T * H), std::nanf("")), ref(size_t(T * H));
  sprt_embedding_f32(ids.data(), table.data(), y.data(), T, V, H, 0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < H; ++i)
      ref[t * H + i] = table[ids[t] * H + i];
  expectBitwiseEqual("embedding", y, ref);
}

TEST(Embedding, VocabParallelShardsSumToUnsplit) {
  const int64_t V = 11, H = 5;
  std::vector<int64_t> ids = {0, 3, 10, 3, 7, 4, 6, 9, 0, 5, 8, 2};
  const int64_t T = int64_t(ids.size());
  auto table = randomFloats(size_t(V * H), 5);
  std::vector<float> full(size_t(T * H));
  sprt_embedding_f32(ids.data(), table.data(), full.data(), T, V, H, 0);

  // Uneven shards [0,4) [4,7) [7,11).
  const int64_t bounds[] = {0, 4, 7, 11};
  std::vector<float> sum(size_t(T * H), 0.0f);
  for (int s = 0; s < 3; ++s) {
    const int64_t lo = bounds[s], Vs = bounds[s + 1] - lo;
    std::vector<float> y(size_t(T * H), std::nanf(""));
    sprt_embedding_f32(ids.data(), table.data() + lo * H, y.data(), T, Vs, H,
                       lo);
    for (int64_t t = 0; t < T; ++t) {
      bool local = ids[t] >= lo && ids[t] < lo + Vs;
      for (int64_t i = 0; i < H; ++i) {
        if (!local) {
          EXPECT_EQ(y[t * H + i], 0.0f) << "shard " << s << " token " << t;
        }
        sum[t * H + i] += y[t * H + i];
      }
    }
  }
  // Exactly one shard contributes a non-zero row per token: x + 0 = x.
  expectBitwiseEqual("embedding shards summed", sum, full);
}

//===------------------------------- norms -------------------------------===//

// Rows with different scales, one with |mean| >> std to catch cancellation
// in the variance.
std::vector<float> normInput(int64_t T, int64_t H) {
  auto x = randomNormals(size_t(T * H), 6);
  for (int64_t i = 0; i < H; ++i) {
    x[1 * H + i] = 1000.0f + x[1 * H + i];
    x[2 * H + i] *= 1e-3f;
    x[3 * H + i] = 50.0f * x[3 * H + i] - 20.0f;
  }
  return x;
}

void checkLayerNorm(bool withBias) {
  const int64_t T = 5, H = 37;
  const double eps = 1e-5;
  auto x = normInput(T, H);
  auto w = randomFloats(size_t(H), 7, 0.5f, 1.5f);
  auto b = randomFloats(size_t(H), 8);
  std::vector<float> y(size_t(T * H), std::nanf(""));
  sprt_layer_norm_f32(x.data(), w.data(), withBias ? b.data() : nullptr,
                      y.data(), T, H, eps);
  std::vector<double> ref(size_t(T * H));
  for (int64_t t = 0; t < T; ++t) {
    double mean = 0.0, var = 0.0;
    for (int64_t i = 0; i < H; ++i)
      mean += x[t * H + i];
    mean /= H;
    for (int64_t i = 0; i < H; ++i)
      var += (x[t * H + i] - mean) * (x[t * H + i] - mean);
    var /= H; // biased, as torch
    for (int64_t i = 0; i < H; ++i)
      ref[t * H + i] = (x[t * H + i] - mean) / std::sqrt(var + eps) * w[i] +
                       (withBias ? b[i] : 0.0);
  }
  expectClose(withBias ? "layer_norm with bias" : "layer_norm no bias", y, ref,
              1e-6, 1e-6);
}

TEST(LayerNorm, WithBias) { checkLayerNorm(true); }
TEST(LayerNorm, WithoutBias) { checkLayerNorm(false); }

TEST(RmsNorm, MatchesReference) {
  const int64_t T = 5, H = 37;
  const double eps = 1e-6;
  auto x = normInput(T, H);
  auto w = randomFloats(size_t(H), 9, 0.5f, 1.5f);
  std::vector<float> y(size_t(T * H), std::nanf(""));
  sprt_rms_norm_f32(x.data(), w.data(), y.data(), T, H, eps);
  std::vector<double> ref(size_t(T * H));
  for (int64_t t = 0; t < T; ++t) {
    double ms = 0.0;
    for (int64_t i = 0; i < H; ++i)
      ms += double(x[t * H + i]) * x[t * H + i];
    ms /= H;
    for (int64_t i = 0; i < H; ++i)
      ref[t * H + i] = x[t * H + i] / std::sqrt(ms + eps) * w[i];
  }
  expectClose("rms_norm", y, ref, 1e-6, 1e-6);
}

//===---------------------------- elementwise ----------------------------===//

std::vector<float> activationInput() {
  auto x = randomFloats(4000, 15, -8.0f, 8.0f);
  for (float v : {0.0f, -0.0f, 1e-4f, -1e-4f, 30.0f, -30.0f, 1.0f, -1.0f})
    x.push_back(v);
  return x;
}

// The vectorisable exp behind GELU's tanh: within 2 ulp (2^-23 relative)
// of exp in double over the range the kernels use, exact at 0, and finite
// and tiny/huge at the clamps.
TEST(Elementwise, VectorisableExpWithin2Ulp) {
  double worst = 0.0;
  for (int64_t i = 0; i <= 2000000; ++i) {
    float x = -87.0f + float(i) * (175.0f / 2000000.0f); // [-87, 88]
    double want = std::exp(double(x));
    worst = std::max(worst, std::abs(double(sprt::cpu::vexp(x)) - want) / want);
  }
  EXPECT_LE(worst, 2.0 * std::ldexp(1.0, -23)) << "worst relative error";
  EXPECT_EQ(sprt::cpu::vexp(0.0f), 1.0f);
  EXPECT_EQ(sprt::cpu::vexp(-1000.0f), 0.0f);
  EXPECT_TRUE(std::isfinite(sprt::cpu::vexp(1000.0f)));
}

TEST(Elementwise, GeluExact) {
  auto x = activationInput();
  std::vector<float> y(x.size());
  sprt_gelu_f32(x.data(), y.data(), int64_t(x.size()), 0);
  std::vector<double> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    ref[i] = 0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0)));
  expectClose("gelu exact", y, ref, 1e-6, 1e-6);
}

TEST(Elementwise, GeluTanh) {
  auto x = activationInput();
  std::vector<float> y(x.size());
  sprt_gelu_f32(x.data(), y.data(), int64_t(x.size()), 1);
  std::vector<double> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double v = x[i];
    ref[i] =
        0.5 * v *
        (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
  }
  expectClose("gelu tanh", y, ref, 1e-6, 1e-6);
}

TEST(Elementwise, Silu) {
  auto x = activationInput();
  std::vector<float> y(x.size());
  sprt_silu_f32(x.data(), y.data(), int64_t(x.size()));
  std::vector<double> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    ref[i] = x[i] / (1.0 + std::exp(-double(x[i])));
  expectClose("silu", y, ref, 1e-6, 1e-6);
}

TEST(Elementwise, Relu) {
  // Exact: max(x, 0) per element; the input has 0, -0, +-1e-4 and negatives.
  auto x = activationInput();
  std::vector<float> y(x.size(), std::nanf(""));
  sprt_relu_f32(x.data(), y.data(), int64_t(x.size()));
  int negatives = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    float ref = x[i] > 0.0f ? x[i] : 0.0f;
    negatives += x[i] < 0.0f;
    EXPECT_EQ(y[i], ref) << "relu at x=" << x[i];
  }
  EXPECT_GT(negatives, 100);
  // NaN propagates, as torch.relu.
  const float nan = std::nanf("");
  float out = 0.0f;
  sprt_relu_f32(&nan, &out, 1);
  EXPECT_TRUE(std::isnan(out));
}

TEST(Elementwise, MulAddBiasAdd) {
  const int64_t T = 7, H = 13;
  auto a = randomFloats(size_t(T * H), 16);
  auto b = randomFloats(size_t(T * H), 17);
  auto bias = randomFloats(size_t(H), 18);
  std::vector<float> y(size_t(T * H)), ref(size_t(T * H));
  sprt_mul_f32(a.data(), b.data(), y.data(), T * H);
  for (int64_t i = 0; i < T * H; ++i)
    ref[i] = a[i] * b[i];
  expectBitwiseEqual("mul", y, ref);
  sprt_add_f32(a.data(), b.data(), y.data(), T * H);
  for (int64_t i = 0; i < T * H; ++i)
    ref[i] = a[i] + b[i];
  expectBitwiseEqual("add", y, ref);
  sprt_bias_add_f32(a.data(), bias.data(), y.data(), T, H);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < H; ++i)
      ref[t * H + i] = a[t * H + i] + bias[i];
  expectBitwiseEqual("bias_add", y, ref);
}

//===--------------------------- head reshaping --------------------------===//

void checkQkvSplit(int64_t heads, int64_t kvHeads, int32_t packing) {
  const int64_t T = 5, D = 3;
  const int64_t W = (heads + 2 * kvHeads) * D;
  auto qkv = randomFloats(size_t(T * W), 19);
  std::vector<float> q(size_t(T * heads * D), std::nanf("")),
      k(size_t(T * kvHeads * D), std::nanf("")),
      v(size_t(T * kvHeads * D), std::nanf(""));
  sprt_qkv_split(qkv.data(), q.data(), k.data(), v.data(), T, heads, kvHeads, D,
                 packing, 4);
  std::vector<float> rq(q.size()), rk(k.size()), rv(v.size());
  const int64_t factor = heads / kvHeads;
  for (int64_t t = 0; t < T; ++t) {
    const float *row = qkv.data() + t * W;
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t d = 0; d < D; ++d) {
        // packing 0: [q | k | v]; packing 1: per kv group [q.. k v].
        int64_t col = packing
                          ? ((h / factor) * (factor + 2) + h % factor) * D + d
                          : h * D + d;
        rq[(t * heads + h) * D + d] = row[col];
      }
    for (int64_t g = 0; g < kvHeads; ++g)
      for (int64_t d = 0; d < D; ++d) {
        int64_t kc = packing ? (g * (factor + 2) + factor) * D + d
                             : heads * D + g * D + d;
        int64_t vc = packing ? (g * (factor + 2) + factor + 1) * D + d
                             : (heads + kvHeads) * D + g * D + d;
        rk[(t * kvHeads + g) * D + d] = row[kc];
        rv[(t * kvHeads + g) * D + d] = row[vc];
      }
  }
  expectBitwiseEqual("q", q, rq);
  expectBitwiseEqual("k", k, rk);
  expectBitwiseEqual("v", v, rv);
}

TEST(QkvSplit, PackedQKV) {
  checkQkvSplit(4, 4, 0);
  checkQkvSplit(4, 2, 0); // GQA
  checkQkvSplit(4, 1, 0); // MQA
}

TEST(QkvSplit, PackedPerHead) {
  checkQkvSplit(3, 3, 1); // GPT-NeoX: per head [q k v]
}

TEST(QkvSplit, PackedPerHeadGrouped) {
  // Beyond the header's heads == kv_heads: Megatron's per-group packing.
  checkQkvSplit(4, 2, 1);
}

TEST(QkvSplit, NeoXLayoutExplicit) {
  // heads = 2, head_dim = 2: row = [q0 q0 k0 k0 v0 v0 q1 q1 k1 k1 v1 v1].
  const float row[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  float q[4], k[4], v[4];
  sprt_qkv_split(row, q, k, v, 1, 2, 2, 2, 1, 4);
  EXPECT_EQ(std::vector<float>(q, q + 4), (std::vector<float>{1, 2, 7, 8}));
  EXPECT_EQ(std::vector<float>(k, k + 4), (std::vector<float>{3, 4, 9, 10}));
  EXPECT_EQ(std::vector<float>(v, v + 4), (std::vector<float>{5, 6, 11, 12}));
}

TEST(RepeatHeads, MatchesDefinition) {
  const int64_t T = 4, heads = 3, D = 5, factor = 4;
  auto x = randomFloats(size_t(T * heads * D), 20);
  std::vector<float> y(size_t(T * heads * factor * D), std::nanf("")),
      ref(y.size());
  sprt_repeat_heads(x.data(), y.data(), T, heads, D, factor, 4);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t r = 0; r < factor; ++r)
        for (int64_t d = 0; d < D; ++d)
          ref[(t * heads * factor + h * factor + r) * D + d] =
              x[(t * heads + h) * D + d];
  expectBitwiseEqual("repeat_heads", y, ref);
}

TEST(PositionIds, SequenceFirst) {
  const int64_t S = 5, B = 3;
  std::vector<int64_t> out(size_t(S * B), -1);
  sprt_position_ids_i64(out.data(), S, B, 40);
  for (int64_t s = 0; s < S; ++s)
    for (int64_t b = 0; b < B; ++b)
      EXPECT_EQ(out[s * B + b], 40 + s);
}

//===--------------------------- cross-entropy ---------------------------===//

constexpr int64_t kIgnore = -100;

struct CeProblem {
  int64_t T = 9, V = 13;
  std::vector<float> logits;
  std::vector<int64_t> labels = {3, 0, kIgnore, 12, 7, 7, kIgnore, 5, 11};
  CeProblem() {
    logits = randomNormals(size_t(T * V), 21, 3.0f);
    for (int64_t v = 0; v < V; ++v)
      logits[4 * V + v] += 1000.0f; // needs the max subtraction
  }
};

// Double log-softmax loss, mean over non-ignored labels.
double referenceLoss(const CeProblem &p) {
  double acc = 0.0;
  int count = 0;
  for (int64_t t = 0; t < p.T; ++t) {
    if (p.labels[t] == kIgnore)
      continue;
    const float *row = p.logits.data() + t * p.V;
    double m = row[0];
    for (int64_t v = 1; v < p.V; ++v)
      m = std::max(m, double(row[v]));
    double s = 0.0;
    for (int64_t v = 0; v < p.V; ++v)
      s += std::exp(row[v] - m);
    acc += std::log(s) + m - row[p.labels[t]];
    ++count;
  }
  return count ? acc / count : 0.0;
}

TEST(CrossEntropy, PiecesMatchReference) {
  CeProblem p;
  std::vector<float> mx(size_t(p.T)), se(size_t(p.T)), ll(size_t(p.T));
  sprt_logits_max_f32(p.logits.data(), mx.data(), p.T, p.V);
  sprt_logits_sumexp_f32(p.logits.data(), mx.data(), se.data(), p.T, p.V);
  sprt_label_logit_f32(p.logits.data(), p.labels.data(), ll.data(), p.T, p.V, 0,
                       kIgnore);
  std::vector<double> rse(size_t(p.T));
  for (int64_t t = 0; t < p.T; ++t) {
    const float *row = p.logits.data() + t * p.V;
    float m = row[0];
    for (int64_t v = 1; v < p.V; ++v)
      m = std::max(m, row[v]);
    EXPECT_EQ(mx[t], m) << t;
    double s = 0.0;
    for (int64_t v = 0; v < p.V; ++v)
      s += std::exp(double(row[v]) - m);
    rse[t] = s;
    EXPECT_EQ(ll[t], p.labels[t] == kIgnore ? 0.0f : row[p.labels[t]]) << t;
  }
  expectClose("logits_sumexp", se, rse, 1e-6, 0.0);
}

TEST(CrossEntropy, UnsplitMatchesReference) {
  CeProblem p;
  float loss = std::nanf("");
  sprt_cross_entropy_f32(p.logits.data(), p.labels.data(), nullptr, &loss, p.T,
                         p.V, kIgnore);
  double ref = referenceLoss(p);
  expectClose("cross_entropy", &loss, &ref, 1, 1e-6, 1e-6);
}

TEST(CrossEntropy, AllIgnoredIsZero) {
  CeProblem p;
  std::vector<int64_t> labels(size_t(p.T), kIgnore);
  float loss = std::nanf("");
  sprt_cross_entropy_f32(p.logits.data(), labels.data(), nullptr, &loss, p.T,
                         p.V, kIgnore);
  EXPECT_EQ(loss, 0.0f);
  std::vector<float> mx(size_t(p.T), 0.0f), se(size_t(p.T), 1.0f),
      ll(size_t(p.T), 0.0f);
  loss = std::nanf("");
  sprt_cross_entropy_from_stats_f32(mx.data(), se.data(), ll.data(),
                                    labels.data(), nullptr, &loss, p.T,
                                    kIgnore);
  EXPECT_EQ(loss, 0.0f);
}

// Megatron's vocabulary-parallel loss: the global max is the max of the shard
// maxes; with it every shard's sumexp is a partial sum of the unsplit one;
// the label logit lives on exactly one shard (zeros elsewhere).
TEST(CrossEntropy, VocabParallelPiecesCombineToUnsplit) {
  CeProblem p;
  const int64_t bounds[] = {0, 5, 9, 13};
  const int nShards = 3;
  std::vector<std::vector<float>> shards(nShards);
  std::vector<float> gmax(size_t(p.T), -INFINITY);
  for (int s = 0; s < nShards; ++s) {
    const int64_t lo = bounds[s], Vs = bounds[s + 1] - lo;
    shards[s].resize(size_t(p.T * Vs));
    for (int64_t t = 0; t < p.T; ++t)
      for (int64_t v = 0; v < Vs; ++v)
        shards[s][t * Vs + v] = p.logits[t * p.V + lo + v];
    std::vector<float> mx(size_t(p.T));
    sprt_logits_max_f32(shards[s].data(), mx.data(), p.T, Vs);
    for (int64_t t = 0; t < p.T; ++t)
      gmax[t] = std::max(gmax[t], mx[t]); // all_reduce(max)
  }
  std::vector<float> sumexp(size_t(p.T), 0.0f), label(size_t(p.T), 0.0f);
  for (int s = 0; s < nShards; ++s) {
    const int64_t lo = bounds[s], Vs = bounds[s + 1] - lo;
    std::vector<float> se(size_t(p.T)), ll(size_t(p.T), std::nanf(""));
    sprt_logits_sumexp_f32(shards[s].data(), gmax.data(), se.data(), p.T, Vs);
    sprt_label_logit_f32(shards[s].data(), p.labels.data(), ll.data(), p.T, Vs,
                         lo, kIgnore);
    for (int64_t t = 0; t < p.T; ++t) {
      bool local = p.labels[t] >= lo && p.labels[t] < lo + Vs;
      if (!local) {
        EXPECT_EQ(ll[t], 0.0f) << "shard " << s << " token " << t;
      }
      sumexp[t] += se[t]; // all_reduce(sum)
      label[t] += ll[t];  // all_reduce(sum)
    }
  }

  // The combined pieces against the unsplit ones.
  std::vector<float> fmax(size_t(p.T)), fse(size_t(p.T)), fll(size_t(p.T));
  sprt_logits_max_f32(p.logits.data(), fmax.data(), p.T, p.V);
  sprt_logits_sumexp_f32(p.logits.data(), fmax.data(), fse.data(), p.T, p.V);
  sprt_label_logit_f32(p.logits.data(), p.labels.data(), fll.data(), p.T, p.V,
                       0, kIgnore);
  expectBitwiseEqual("vocab-parallel max", gmax, fmax);
  expectBitwiseEqual("vocab-parallel label logit", label, fll);
  // Only the order (and roundings) of the additions differ: a few u.
  std::vector<double> fseD(fse.begin(), fse.end());
  expectClose("vocab-parallel sumexp", sumexp, fseD, 1e-6, 0.0);

  float lossSplit = std::nanf(""), lossFull = std::nanf("");
  sprt_cross_entropy_from_stats_f32(gmax.data(), sumexp.data(), label.data(),
                                    p.labels.data(), nullptr, &lossSplit, p.T,
                                    kIgnore);
  sprt_cross_entropy_f32(p.logits.data(), p.labels.data(), nullptr, &lossFull,
                         p.T, p.V, kIgnore);
  double full = lossFull, ref = referenceLoss(p);
  expectClose("vocab-parallel loss vs unsplit", &lossSplit, &full, 1, 1e-6,
              1e-6);
  expectClose("vocab-parallel loss vs reference", &lossSplit, &ref, 1, 1e-6,
              1e-6);
}

} // namespace
