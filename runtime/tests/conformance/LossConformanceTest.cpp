//===- LossConformanceTest.cpp - vocabulary-parallel cross-entropy --------===//
//
// Logits [T, V] split into two vocabulary shards; the pieces of each shard
// (max, sumexp, label logit with its vocab offset and ignore_index), the
// combined loss and every gradient against double loops over the full
// vocabulary. Bound: 2e-6 relative + 1e-7 absolute (f32 exp of O(1)
// arguments, sums of <= 96 positive terms in double).
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

using namespace sprt_conformance;
using sprt_test::expectClose;

namespace {

using Loss = DeviceTest;

constexpr int64_t kT = 24, kV = 96, kShard = 40, kIgnore = -100;

struct LossCase {
  std::vector<float> logits =
      sprt_test::randomFloats(size_t(kT * kV), 81, -4.0f, 4.0f);
  std::vector<int64_t> labels = randomLabels(size_t(kT), 0, kV, 82, kIgnore, 5);
  // Per token: max, sumexp over the full row, softmax, loss term.
  std::vector<double> max, sumexp, term;
  double loss = 0.0;
  int64_t count = 0;

  LossCase() {
    for (int64_t t = 0; t < kT; ++t) {
      double m = -INFINITY, s = 0.0;
      for (int64_t v = 0; v < kV; ++v)
        m = std::max(m, double(logits[t * kV + v]));
      for (int64_t v = 0; v < kV; ++v)
        s += std::exp(logits[t * kV + v] - m);
      max.push_back(m);
      sumexp.push_back(s);
      const bool used = labels[t] != kIgnore;
      term.push_back(used ? std::log(s) + m - logits[t * kV + labels[t]] : 0);
      loss += term.back();
      count += used;
    }
    loss /= double(count);
  }

  // Columns [lo, lo + n) of the logits.
  std::vector<float> shard(int64_t lo, int64_t n) const {
    std::vector<float> s(size_t(kT * n));
    for (int64_t t = 0; t < kT; ++t)
      for (int64_t v = 0; v < n; ++v)
        s[t * n + v] = logits[t * kV + lo + v];
    return s;
  }

  // dlogits[t, v] for columns [lo, lo + n) with dloss.
  std::vector<double> grad(int64_t lo, int64_t n, double dloss) const {
    std::vector<double> g(size_t(kT * n), 0.0);
    for (int64_t t = 0; t < kT; ++t) {
      if (labels[t] == kIgnore)
        continue;
      for (int64_t v = 0; v < n; ++v) {
        double p = std::exp(logits[t * kV + lo + v] - max[t]) / sumexp[t];
        g[t * n + v] = (p - (lo + v == labels[t])) * dloss / double(count);
      }
    }
    return g;
  }
};

TEST_F(Loss, ShardPiecesAndLossFromStats) {
  LossCase c;
  DeviceBuffer<int64_t> dLabels(c.labels);
  for (int64_t lo : {int64_t(0), kShard}) {
    const int64_t n = lo ? kV - kShard : kShard;
    auto sh = c.shard(lo, n);
    std::vector<double> refMax(static_cast<size_t>(kT)),
        refSum(static_cast<size_t>(kT)), refLabel(size_t(kT), 0.0);
    for (int64_t t = 0; t < kT; ++t) {
      double m = -INFINITY, s = 0.0;
      for (int64_t v = 0; v < n; ++v)
        m = std::max(m, double(sh[t * n + v]));
      for (int64_t v = 0; v < n; ++v)
        s += std::exp(sh[t * n + v] - m);
      refMax[t] = m;
      refSum[t] = s;
      const int64_t col = c.labels[t] - lo;
      if (c.labels[t] != kIgnore && col >= 0 && col < n)
        refLabel[t] = sh[t * n + col];
    }
    DeviceBuffer<float> dLogits(sh), dMax(nans(static_cast<size_t>(kT))),
        dSum(nans(static_cast<size_t>(kT))),
        dLabel(nans(static_cast<size_t>(kT)));
    sprt_logits_max_f32(dLogits, dMax, kT, n);
    sprt_logits_sumexp_f32(dLogits, dMax, dSum, kT, n);
    sprt_label_logit_f32(dLogits, dLabels, dLabel, kT, n, lo, kIgnore);
    const std::string what = " shard at " + std::to_string(lo);
    expectClose("logits_max" + what, dMax.download(), refMax, 0.0, 0.0);
    expectClose("logits_sumexp" + what, dSum.download(), refSum, 2e-6, 0.0);
    expectClose("label_logit" + what, dLabel.download(), refLabel, 0.0, 0.0);
  }
  // The loss from global statistics (as the all-reduces would give them).
  std::vector<float> gMax(static_cast<size_t>(kT)),
      gSum(static_cast<size_t>(kT)), gLabel(static_cast<size_t>(kT));
  for (int64_t t = 0; t < kT; ++t) {
    gMax[t] = float(c.max[t]);
    gSum[t] = float(c.sumexp[t]);
    gLabel[t] = c.labels[t] == kIgnore ? 0.0f : c.logits[t * kV + c.labels[t]];
  }
  DeviceBuffer<float> dMax(gMax), dSum(gSum), dLabel(gLabel), dLoss(nans(1));
  sprt_cross_entropy_from_stats_f32(dMax, dSum, dLabel, dLabels, nullptr, dLoss,
                                    kT, kIgnore);
  expectClose("cross_entropy_from_stats", dLoss.download(), {c.loss}, 2e-6,
              0.0);
  DeviceBuffer<float> dLogits(c.logits);
  sprt_cross_entropy_f32(dLogits, dLabels, nullptr, dLoss, kT, kV, kIgnore);
  expectClose("cross_entropy", dLoss.download(), {c.loss}, 2e-6, 0.0);
}

TEST_F(Loss, AllIgnoredGivesZeroLossAndGradient) {
  LossCase c;
  std::vector<int64_t> ignored(size_t(kT), kIgnore);
  DeviceBuffer<int64_t> dLabels(ignored);
  DeviceBuffer<float> dLogits(c.logits), dLoss(nans(1)),
      dDloss(std::vector<float>{1.0f}), dGrad(nans(c.logits.size()));
  sprt_cross_entropy_f32(dLogits, dLabels, nullptr, dLoss, kT, kV, kIgnore);
  EXPECT_EQ(dLoss.download()[0], 0.0f);
  sprt_cross_entropy_grad_f32(dLogits, dLabels, dDloss, nullptr, dGrad, kT, kV,
                              kIgnore);
  for (float g : dGrad.download())
    ASSERT_EQ(g, 0.0f);
}

TEST_F(Loss, GradientsFullAndVocabParallel) {
  LossCase c;
  const double dloss = 0.7;
  DeviceBuffer<int64_t> dLabels(c.labels);
  DeviceBuffer<float> dDloss(std::vector<float>{float(dloss)});
  DeviceBuffer<float> dLogits(c.logits), dGrad(nans(c.logits.size()));
  sprt_cross_entropy_grad_f32(dLogits, dLabels, dDloss, nullptr, dGrad, kT, kV,
                              kIgnore);
  expectClose("cross_entropy_grad", dGrad.download(), c.grad(0, kV, dloss),
              2e-6, 1e-8);

  std::vector<float> gMax(static_cast<size_t>(kT)),
      gSum(static_cast<size_t>(kT));
  for (int64_t t = 0; t < kT; ++t) {
    gMax[t] = float(c.max[t]);
    gSum[t] = float(c.sumexp[t]);
  }
  DeviceBuffer<float> dMax(gMax), dSum(gSum);
  for (int64_t lo : {int64_t(0), kShard}) {
    const int64_t n = lo ? kV - kShard : kShard;
    DeviceBuffer<float> dSh(c.shard(lo, n)), dG(nans(size_t(kT * n)));
    sprt_vocab_parallel_cross_entropy_grad_f32(dSh, dMax, dSum, dLabels, dDloss,
                                               dG, kT, n, lo, kIgnore);
    expectClose("vocab_parallel_cross_entropy_grad at " + std::to_string(lo),
                dG.download(), c.grad(lo, n, dloss), 2e-6, 1e-8);
  }
}

TEST_F(Loss, PieceGradients) {
  LossCase c;
  const double dloss = 1.3;
  const int64_t lo = kShard, n = kV - kShard;
  auto sh = c.shard(lo, n);
  std::vector<float> gMax(static_cast<size_t>(kT)),
      gSum(static_cast<size_t>(kT)), dz(static_cast<size_t>(kT));
  for (int64_t t = 0; t < kT; ++t) {
    gMax[t] = float(c.max[t]);
    gSum[t] = float(c.sumexp[t]);
    dz[t] = float(0.1 * double(t) - 1.0);
  }
  std::vector<double> dSumRef(size_t(kT), 0.0), dLabelRef(size_t(kT), 0.0);
  for (int64_t t = 0; t < kT; ++t)
    if (c.labels[t] != kIgnore) {
      dSumRef[t] = dloss / double(c.count) / double(gSum[t]);
      dLabelRef[t] = -dloss / double(c.count);
    }
  std::vector<double> sumexpGrad(size_t(kT * n)), labelGrad(size_t(kT * n), 0);
  for (int64_t t = 0; t < kT; ++t)
    for (int64_t v = 0; v < n; ++v) {
      sumexpGrad[t * n + v] =
          std::exp(double(sh[t * n + v]) - gMax[t]) * double(dz[t]);
      if (c.labels[t] != kIgnore && c.labels[t] - lo == v)
        labelGrad[t * n + v] = dz[t];
    }
  DeviceBuffer<int64_t> dLabels(c.labels);
  DeviceBuffer<float> dDloss(std::vector<float>{float(dloss)}), dSum(gSum),
      dMax(gMax), dDz(dz), dSh(sh), dDsum(nans(static_cast<size_t>(kT))),
      dDlabel(nans(static_cast<size_t>(kT))), dG(nans(size_t(kT * n)));
  sprt_cross_entropy_from_stats_grad_f32(dSum, dLabels, dDloss, nullptr, dDsum,
                                         dDlabel, kT, kIgnore);
  expectClose("cross_entropy_from_stats_grad dsumexp", dDsum.download(),
              dSumRef, 2e-6, 0.0);
  expectClose("cross_entropy_from_stats_grad dlabel", dDlabel.download(),
              dLabelRef, 2e-6, 0.0);
  sprt_logits_sumexp_grad_f32(dSh, dMax, dDz, dG, kT, n);
  expectClose("logits_sumexp_grad", dG.download(), sumexpGrad, 2e-6, 1e-7);
  sprt_label_logit_grad_f32(dLabels, dDz, dG, kT, n, lo, kIgnore);
  expectClose("label_logit_grad", dG.download(), labelGrad, 0.0, 0.0);
}

// The tokens split in two uneven shards (as dp / cp split them), ignored
// labels falling unevenly: each shard's label_count, their sum as the global
// count, each shard's loss divided by it (full and from statistics) sums to
// the one-device mean, and each shard's gradients are the one-device rows.
TEST_F(Loss, GlobalCountSharesSumToTheMean) {
  LossCase c;
  const double dloss = 0.9;
  constexpr int64_t kCut = 7;
  std::vector<int64_t> labels = c.labels;
  for (int64_t t = 0; t < kCut; t += 2) // more ignored labels in shard 0
    labels[t] = kIgnore;
  int64_t count = 0;
  double sum = 0.0;
  for (int64_t t = 0; t < kT; ++t)
    if (labels[t] != kIgnore) {
      ++count;
      sum += c.term[t];
    }
  ASSERT_GT(count, 0);
  std::vector<float> counts;
  for (auto [lo, n] :
       {std::pair<int64_t, int64_t>{0, kCut}, {kCut, kT - kCut}}) {
    DeviceBuffer<int64_t> dLabels(
        std::vector<int64_t>(labels.begin() + lo, labels.begin() + lo + n));
    DeviceBuffer<float> dCount(nans(1));
    sprt_label_count_f32(dLabels, dCount, n, kIgnore);
    counts.push_back(dCount.download()[0]);
    int64_t want = 0;
    for (int64_t t = lo; t < lo + n; ++t)
      want += labels[t] != kIgnore;
    expectClose("label_count at " + std::to_string(lo), {counts.back()},
                {double(want)}, 0.0, 0.0);
  }
  DeviceBuffer<float> dGlobal(std::vector<float>{counts[0] + counts[1]}),
      dDloss(std::vector<float>{float(dloss)});
  double full = 0.0, fromStats = 0.0;
  for (auto [lo, n] :
       {std::pair<int64_t, int64_t>{0, kCut}, {kCut, kT - kCut}}) {
    std::vector<int64_t> l(labels.begin() + lo, labels.begin() + lo + n);
    std::vector<float> logits(c.logits.begin() + lo * kV,
                              c.logits.begin() + (lo + n) * kV),
        gMax(static_cast<size_t>(n)), gSum(static_cast<size_t>(n)),
        gLabel(static_cast<size_t>(n));
    std::vector<double> ref(size_t(n * kV), 0.0), dSumRef(size_t(n), 0.0),
        dLabelRef(size_t(n), 0.0);
    for (int64_t t = 0; t < n; ++t) {
      const int64_t g = lo + t;
      gMax[t] = float(c.max[g]);
      gSum[t] = float(c.sumexp[g]);
      gLabel[t] = l[t] == kIgnore ? 0.0f : c.logits[g * kV + l[t]];
      if (l[t] == kIgnore)
        continue;
      for (int64_t v = 0; v < kV; ++v) {
        double p = std::exp(c.logits[g * kV + v] - c.max[g]) / c.sumexp[g];
        ref[t * kV + v] = (p - (v == l[t])) * dloss / double(count);
      }
      dSumRef[t] = dloss / double(count) / double(gSum[t]);
      dLabelRef[t] = -dloss / double(count);
    }
    DeviceBuffer<int64_t> dLabels(l);
    DeviceBuffer<float> dLogits(logits), dLoss(nans(1)), dMax(gMax), dSum(gSum),
        dLabel(gLabel), dGrad(nans(logits.size())), dDsum(nans(size_t(n))),
        dDlabel(nans(size_t(n)));
    sprt_cross_entropy_f32(dLogits, dLabels, dGlobal, dLoss, n, kV, kIgnore);
    full += dLoss.download()[0];
    sprt_cross_entropy_from_stats_f32(dMax, dSum, dLabel, dLabels, dGlobal,
                                      dLoss, n, kIgnore);
    fromStats += dLoss.download()[0];
    const std::string at = " at " + std::to_string(lo);
    sprt_cross_entropy_grad_f32(dLogits, dLabels, dDloss, dGlobal, dGrad, n, kV,
                                kIgnore);
    expectClose("cross_entropy_grad with count" + at, dGrad.download(), ref,
                2e-6, 1e-8);
    sprt_cross_entropy_from_stats_grad_f32(dSum, dLabels, dDloss, dGlobal,
                                           dDsum, dDlabel, n, kIgnore);
    expectClose("cross_entropy_from_stats_grad dsumexp with count" + at,
                dDsum.download(), dSumRef, 2e-6, 0.0);
    expectClose("cross_entropy_from_stats_grad dlabel with count" + at,
                dDlabel.download(), dLabelRef, 2e-6, 0.0);
  }
  const double mean = sum / double(count);
  expectClose("cross_entropy shares", {float(full)}, {mean}, 4e-6, 0.0);
  expectClose("cross_entropy_from_stats shares", {float(fromStats)}, {mean},
              4e-6, 0.0);
}

} // namespace
