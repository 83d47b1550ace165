//===- CrossEntropyGradTest.cpp - the loss's gradients -------------------===//
//
// The cross-entropy's backward kernels (whole vocabulary and
// vocabulary-parallel from the reduced statistics) against the gradient of
// a double log-softmax loss by finite differences (FiniteDifferences.h).
// Tolerance: exp of an f32 logit - max (relative error <= (|logit - max| +
// 1) u, u = 2^-24) times dloss / count; since p |logit - max| <= 1/e the
// absolute error is <= ~4 u dloss / count: atol 1e-6 dloss / count.
//
//===----------------------------------------------------------------------===//

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include "FiniteDifferences.h"
#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace sprt_test;

namespace {

//===--------------------------- cross-entropy ---------------------------===//

constexpr int64_t kIgnore = -100;

struct CeProblem {
  int64_t T = 9, V = 13;
  std::vector<float> logits;
  std::vector<int64_t> labels = {3, 0, kIgnore, 12, 7, 7, kIgnore, 5, 11};
  int64_t count = 7;
  CeProblem() {
    logits = randomNormals(size_t(T * V), 54, 3.0f);
    for (int64_t v = 0; v < V; ++v)
      logits[4 * V + v] += 1000.0f; // needs the max subtraction
  }
};

// Double log-softmax loss, mean over non-ignored labels.
double lossRef(const Vec &logits, const std::vector<int64_t> &labels, int64_t T,
               int64_t V) {
  double acc = 0.0;
  int count = 0;
  for (int64_t t = 0; t < T; ++t) {
    if (labels[t] == kIgnore)
      continue;
    const double *row = logits.data() + t * V;
    double m = row[0];
    for (int64_t v = 1; v < V; ++v)
      m = std::max(m, row[v]);
    double s = 0.0;
    for (int64_t v = 0; v < V; ++v)
      s += std::exp(row[v] - m);
    acc += std::log(s) + m - row[labels[t]];
    ++count;
  }
  return count ? acc / count : 0.0;
}

TEST(CrossEntropyGrad, MatchesFiniteDifferences) {
  CeProblem p;
  const float dloss = 0.7f;
  std::vector<float> dl(size_t(p.T * p.V), std::nanf(""));
  sprt_cross_entropy_grad_f32(p.logits.data(), p.labels.data(), &dloss, nullptr,
                              dl.data(), p.T, p.V, kIgnore);
  Vec ref = fdGradient(
      [&](const Vec &lg) { return Vec{lossRef(lg, p.labels, p.T, p.V)}; },
      toDouble(p.logits), Vec{double(dloss)}, 1e-3);
  expectClose("cross_entropy grad", dl, ref, 0.0, 1e-6 * dloss / p.count);
  for (int64_t t : {2, 6}) // ignored tokens
    for (int64_t v = 0; v < p.V; ++v)
      EXPECT_EQ(dl[t * p.V + v], 0.0f) << t;

  // Linear in dloss: a power of two scales exactly.
  const float dloss2 = 2.0f * dloss;
  std::vector<float> dl2(dl.size());
  sprt_cross_entropy_grad_f32(p.logits.data(), p.labels.data(), &dloss2,
                              nullptr, dl2.data(), p.T, p.V, kIgnore);
  for (float &x : dl)
    x *= 2.0f;
  expectBitwiseEqual("cross_entropy grad, 2 dloss", dl2, dl);
}

TEST(CrossEntropyGrad, AllIgnoredIsZero) {
  CeProblem p;
  std::vector<int64_t> labels(size_t(p.T), kIgnore);
  const float dloss = 1.0f;
  std::vector<float> dl(size_t(p.T * p.V), std::nanf(""));
  sprt_cross_entropy_grad_f32(p.logits.data(), labels.data(), &dloss, nullptr,
                              dl.data(), p.T, p.V, kIgnore);
  for (float x : dl)
    ASSERT_EQ(x, 0.0f);
  std::vector<float> stat(size_t(p.T), std::nanf("")); // must not be read
  std::fill(dl.begin(), dl.end(), std::nanf(""));
  sprt_vocab_parallel_cross_entropy_grad_f32(p.logits.data(), stat.data(),
                                             stat.data(), labels.data(), &dloss,
                                             dl.data(), p.T, p.V, 0, kIgnore);
  for (float x : dl)
    ASSERT_EQ(x, 0.0f);
}

// Each shard's gradient, from the global max and sumexp, is its columns of
// the unsplit gradient.
TEST(CrossEntropyGrad, VocabParallelShardsConcatenateToUnsplit) {
  CeProblem p;
  const float dloss = 0.7f;
  std::vector<float> full(size_t(p.T * p.V), std::nanf(""));
  sprt_cross_entropy_grad_f32(p.logits.data(), p.labels.data(), &dloss, nullptr,
                              full.data(), p.T, p.V, kIgnore);

  const int64_t bounds[] = {0, 5, 9, 13};
  const int nShards = 3;
  std::vector<std::vector<float>> shards(nShards);
  // The forward pieces, combined as the all-reduces would.
  std::vector<float> gmax(size_t(p.T), -INFINITY), gsum(size_t(p.T), 0.0f);
  for (int s = 0; s < nShards; ++s) {
    const int64_t lo = bounds[s], Vs = bounds[s + 1] - lo;
    shards[s].resize(size_t(p.T * Vs));
    for (int64_t t = 0; t < p.T; ++t)
      for (int64_t v = 0; v < Vs; ++v)
        shards[s][t * Vs + v] = p.logits[t * p.V + lo + v];
    std::vector<float> mx(size_t(p.T));
    sprt_logits_max_f32(shards[s].data(), mx.data(), p.T, Vs);
    for (int64_t t = 0; t < p.T; ++t)
      gmax[t] = std::max(gmax[t], mx[t]);
  }
  for (int s = 0; s < nShards; ++s) {
    const int64_t Vs = bounds[s + 1] - bounds[s];
    std::vector<float> se(size_t(p.T));
    sprt_logits_sumexp_f32(shards[s].data(), gmax.data(), se.data(), p.T, Vs);
    for (int64_t t = 0; t < p.T; ++t)
      gsum[t] += se[t];
  }
  // The unsplit pieces.
  std::vector<float> fmax(size_t(p.T)), fsum(size_t(p.T));
  sprt_logits_max_f32(p.logits.data(), fmax.data(), p.T, p.V);
  sprt_logits_sumexp_f32(p.logits.data(), fmax.data(), fsum.data(), p.T, p.V);
  // Ignored tokens' statistics are not read.
  for (int64_t t : {2, 6})
    gmax[t] = gsum[t] = fmax[t] = fsum[t] = std::nanf("");

  auto run = [&](const std::vector<float> &mx, const std::vector<float> &se) {
    std::vector<float> cat(size_t(p.T * p.V), std::nanf(""));
    for (int s = 0; s < nShards; ++s) {
      const int64_t lo = bounds[s], Vs = bounds[s + 1] - lo;
      std::vector<float> dl(size_t(p.T * Vs), std::nanf(""));
      sprt_vocab_parallel_cross_entropy_grad_f32(
          shards[s].data(), mx.data(), se.data(), p.labels.data(), &dloss,
          dl.data(), p.T, Vs, lo, kIgnore);
      for (int64_t t = 0; t < p.T; ++t)
        for (int64_t v = 0; v < Vs; ++v)
          cat[t * p.V + lo + v] = dl[t * Vs + v];
    }
    return cat;
  };
  // With the unsplit statistics the arithmetic is the same: bitwise.
  expectBitwiseEqual("vocab-parallel CE grad, unsplit stats", run(fmax, fsum),
                     full);
  // With the all-reduced ones, sumexp differs by the order of its additions
  // (a few u): within the same tolerance as the unsplit grad.
  expectClose("vocab-parallel CE grad, reduced stats", run(gmax, gsum),
              Vec(full.begin(), full.end()), 0.0, 1e-6 * dloss / p.count);
}

} // namespace
