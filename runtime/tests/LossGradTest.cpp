//===- LossGradTest.cpp - the vocab-parallel loss pieces' backward --------===//
//
// The op-by-op backward of the vocab-parallel cross-entropy (stats grad,
// sum-exp grad, label-logit grad) must add up to the gradient of the whole
// loss, checked against a double-precision softmax reference; and the small
// training helpers (fill, scale, sum of squares, clipping) against their
// definitions.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtil.h"

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

using namespace sprt_test;

namespace {
/// d(mean CE)/d logits in double: (softmax - onehot) * dloss / count.
std::vector<double> referenceGrad(const std::vector<float> &logits,
                                  const std::vector<int64_t> &labels, int64_t T,
                                  int64_t V, double dloss, int64_t ignore) {
  int64_t count = 0;
  for (int64_t l : labels)
    count += l != ignore;
  std::vector<double> g(size_t(T * V), 0.0);
  for (int64_t t = 0; t < T; ++t) {
    if (labels[t] == ignore)
      continue;
    double m = -1e300, s = 0.0;
    for (int64_t v = 0; v < V; ++v)
      m = std::max(m, double(logits[t * V + v]));
    for (int64_t v = 0; v < V; ++v)
      s += std::exp(double(logits[t * V + v]) - m);
    for (int64_t v = 0; v < V; ++v)
      g[t * V + v] = (std::exp(double(logits[t * V + v]) - m) / s -
                      (v == labels[t] ? 1.0 : 0.0)) *
                     dloss / double(count);
  }
  return g;
}
} // namespace

TEST(LossPiecesGrad, VocabShardsAddUpToTheLossGradient) {
  const int64_t T = 7, V = 12, ignore = -100;
  std::vector<float> logits = randomNormals(size_t(T * V), 3, 2.0f);
  std::vector<int64_t> labels{0, 5, ignore, 11, 6, 3, 7};
  float dloss = 0.75f;
  // Global statistics, as the forward's all-reduces leave them.
  std::vector<float> max(T), sumexp(T, 0.0f);
  sprt_logits_max_f32(logits.data(), max.data(), T, V);
  sprt_logits_sumexp_f32(logits.data(), max.data(), sumexp.data(), T, V);
  std::vector<float> dse(T), dz(T);
  sprt_cross_entropy_from_stats_grad_f32(sumexp.data(), labels.data(), &dloss,
                                         nullptr, dse.data(), dz.data(), T,
                                         ignore);
  // Two vocabulary shards, [0, 5) and [5, 12), each rank's pieces.
  std::vector<float> got(size_t(T * V));
  for (auto [v0, v1] : {std::pair<int64_t, int64_t>{0, 5}, {5, 12}}) {
    int64_t Vs = v1 - v0;
    std::vector<float> shard(size_t(T * Vs)), a(size_t(T * Vs)),
        b(size_t(T * Vs));
    for (int64_t t = 0; t < T; ++t)
      for (int64_t v = 0; v < Vs; ++v)
        shard[t * Vs + v] = logits[t * V + v0 + v];
    sprt_logits_sumexp_grad_f32(shard.data(), max.data(), dse.data(), a.data(),
                                T, Vs);
    sprt_label_logit_grad_f32(labels.data(), dz.data(), b.data(), T, Vs, v0,
                              ignore);
    for (int64_t t = 0; t < T; ++t)
      for (int64_t v = 0; v < Vs; ++v)
        got[t * V + v0 + v] = a[t * Vs + v] + b[t * Vs + v];
  }
  std::vector<double> ref = referenceGrad(logits, labels, T, V, dloss, ignore);
  // Each element is one exp times one division: a few ulp of the
  // probability, scaled by dloss / count.
  expectClose("vocab-parallel CE pieces grad", got.data(), ref.data(),
              ref.size(), 1e-5, 1e-7);
  // Ignored tokens get nothing.
  for (int64_t v = 0; v < V; ++v)
    EXPECT_EQ(got[2 * V + v], 0.0f);
}

TEST(LossPiecesGrad, AllIgnoredGivesZero) {
  std::vector<float> sumexp{2.0f, 3.0f}, dse(2, 1.0f), dz(2, 1.0f);
  std::vector<int64_t> labels{-100, -100};
  float dloss = 1.0f;
  sprt_cross_entropy_from_stats_grad_f32(sumexp.data(), labels.data(), &dloss,
                                         nullptr, dse.data(), dz.data(), 2,
                                         -100);
  EXPECT_EQ(dse, (std::vector<float>{0.0f, 0.0f}));
  EXPECT_EQ(dz, (std::vector<float>{0.0f, 0.0f}));
}

TEST(LossPiecesGrad, LabelOutsideTheShardScattersNothing) {
  std::vector<int64_t> labels{3, 9};
  std::vector<float> dz{1.5f, 2.5f}, d(2 * 4, -1.0f);
  sprt_label_logit_grad_f32(labels.data(), dz.data(), d.data(), 2, 4, 2, -100);
  // Shard [2, 6): label 3 is column 1; label 9 is elsewhere.
  EXPECT_EQ(d, (std::vector<float>{0, 1.5f, 0, 0, 0, 0, 0, 0}));
}

TEST(TrainingHelpers, FillScaleSumOfSquaresAndClipping) {
  std::vector<float> x(5);
  sprt_fill_f32(x.data(), 5, 2.5);
  EXPECT_EQ(x, std::vector<float>(5, 2.5f));
  std::vector<float> y(5);
  sprt_op_scale(x.data(), y.data(), 5, 0.5);
  EXPECT_EQ(y, std::vector<float>(5, 1.25f));
  float s = 0.0f;
  const float *xs[] = {x.data(), y.data()};
  const int64_t sizes[] = {5, 5};
  sprt_op_sum_squares(1, xs, sizes, &s);
  EXPECT_FLOAT_EQ(s, 31.25f);
  // Two tensors: 31.25 + 5 * 1.5625.
  sprt_op_sum_squares(2, xs, sizes, &s);
  EXPECT_FLOAT_EQ(s, 39.0625f);
  // torch.nn.utils.clip_grad_norm_: coef = max_norm / (norm + 1e-6), <= 1.
  float sumsq = 25.0f, scale = 0.0f, norm = 0.0f;
  sprt_op_clip_scale(&sumsq, 1.0, 1.0, &scale, &norm);
  EXPECT_FLOAT_EQ(norm, 5.0f);
  EXPECT_FLOAT_EQ(scale, float(1.0 / (5.0 + 1e-6)));
  sprt_op_clip_scale(&sumsq, 10.0, 1.0, &scale, &norm);
  EXPECT_EQ(scale, 1.0f);
  sprt_op_clip_scale(&sumsq, 0.0, 1.0, &scale, &norm); // clipping off
  EXPECT_EQ(scale, 1.0f);
  // Gradients of the loss times 8: the true norm, the factor over 8.
  sumsq = 25.0f * 64.0f;
  sprt_op_clip_scale(&sumsq, 1.0, 8.0, &scale, &norm);
  EXPECT_EQ(norm, 5.0f);
  EXPECT_EQ(scale, float(1.0 / (5.0 + 1e-6) / 8.0));
}
