//===- OptimizerTest.cpp - libsprt optimizer kernels vs double references -===//
//
// AdamW and SGD against independent double-precision transcriptions of
// torch.optim's single-tensor update rules, run for several steps with all
// state kept in double; the squared norm and the scale against long double
// and double arithmetic; the clipping factor's application (an f32 multiply
// of each gradient element) and its NaN skip; the clipping factor.
//
// Tolerances. The kernels compute each element in double and store f32
// parameters and moments once per step, so after n steps the parameter is
// off the all-double reference by at most ~n rounding errors of |p| plus
// the effect of the rounded moments on the update (relative ~u, the update
// being ~lr): |err| <= 1e-6 (|p| + lr) per check (3 steps: 3 u = 1.8e-7,
// 5x margin). The moments get 1e-6 of the magnitude of their terms (m's
// terms can cancel: the scale is the same recursion on |m|, |g|). Getting the
// bias corrections, the order of the decoupled decay or eps's placement wrong
// moves the parameters by >= 1e-4 with the hyper-parameters used here.
//
//===----------------------------------------------------------------------===//

#include "sprt/grad_kernels.h"

#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace sprt_test;

namespace {

using Vec = std::vector<double>;

/// The clipping factor of an unclipped step.
const float kOne = 1.0f;

struct AdamWHyper {
  double lr, beta1, beta2, eps, wd;
};

// torch/optim/adamw.py, _single_tensor_adamw (no amsgrad, no maximize):
//   param.mul_(1 - lr * weight_decay)
//   exp_avg.lerp_(grad, 1 - beta1)
//   exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
//   bias_correction1 = 1 - beta1 ** step
//   bias_correction2 = 1 - beta2 ** step
//   step_size = lr / bias_correction1
//   denom = (exp_avg_sq.sqrt() / sqrt(bias_correction2)).add_(eps)
//   param.addcdiv_(exp_avg, denom, value=-step_size)
void adamwRef(Vec &p, const std::vector<float> &g, Vec &m, Vec &v,
              const AdamWHyper &hp, int step) {
  for (size_t i = 0; i < p.size(); ++i) {
    p[i] *= 1.0 - hp.lr * hp.wd;
    m[i] += (double(g[i]) - m[i]) * (1.0 - hp.beta1); // lerp
    v[i] = v[i] * hp.beta2 + (1.0 - hp.beta2) * double(g[i]) * g[i];
    const double bc1 = 1.0 - std::pow(hp.beta1, step);
    const double bc2 = 1.0 - std::pow(hp.beta2, step);
    const double denom = std::sqrt(v[i]) / std::sqrt(bc2) + hp.eps;
    p[i] -= hp.lr / bc1 * m[i] / denom;
  }
}

void checkAdamW(const AdamWHyper &hp, const std::string &what) {
  const size_t n = 1000;
  auto p = randomNormals(n, 60);
  std::vector<float> m(n, 0.0f), v(n, 0.0f);
  Vec pRef(p.begin(), p.end()), mRef(n, 0.0), vRef(n, 0.0);
  // m = b1 m + (1 - b1) g cancels when g and m have opposite signs; the
  // scale of its error is the same recursion on magnitudes.
  Vec mMag(n, 0.0);
  for (int step = 1; step <= 3; ++step) {
    // Gradients of varying scale, a few exact zeros (denominator = eps
    // on the first step).
    auto g = randomNormals(n, 61 + step, step == 2 ? 10.0f : 1.0f);
    for (size_t i = 0; i < n; i += 97)
      g[i] = 0.0f;
    sprt_adamw_f32(p.data(), g.data(), m.data(), v.data(), &kOne, int64_t(n),
                   sprt_test::lrPtr(hp.lr), hp.beta1, hp.beta2, hp.eps, hp.wd,
                   sprt_test::stepPtr(step));
    adamwRef(pRef, g, mRef, vRef, hp, step);
    Vec scale(n);
    for (size_t i = 0; i < n; ++i) {
      scale[i] = std::fabs(pRef[i]) + hp.lr;
      mMag[i] = hp.beta1 * mMag[i] + (1.0 - hp.beta1) * std::fabs(g[i]);
    }
    const std::string tag = what + " step " + std::to_string(step);
    expectClose(tag + " param", p, pRef, 1e-6, 0.0, &scale);
    expectClose(tag + " exp_avg", m, mRef, 1e-6, 0.0, &mMag);
    expectClose(tag + " exp_avg_sq", v, vRef, 1e-6, 0.0);
  }
}

TEST(AdamW, ThreeStepsMatchTorchFormula) {
  checkAdamW({1e-2, 0.9, 0.999, 1e-8, 0.1}, "adamw lr 1e-2 wd 0.1");
}

TEST(AdamW, LargeDecayAndEps) {
  // A large lr * wd makes the order of decay and update visible
  // (p (1 - lr wd) - lr u vs (p - lr u)(1 - lr wd) differ by lr^2 wd u =
  // 5e-3 u), a large eps its placement outside the square root.
  checkAdamW({0.1, 0.8, 0.95, 1e-2, 0.5}, "adamw lr 0.1 wd 0.5 eps 1e-2");
}

TEST(AdamW, FirstStepIsSignDescentPlusDecay) {
  // Step 1 from zero moments: m_hat = g, v_hat = g^2, so
  // p1 = p0 (1 - lr wd) - lr g / (|g| + eps).
  const double lr = 1e-3, wd = 0.01, eps = 1e-8;
  std::vector<float> p = {1.0f, -2.0f, 0.5f, 3.0f},
                     g = {0.3f, -1e-3f, 0.0f, 7.0f};
  std::vector<float> m(4, 0.0f), v(4, 0.0f);
  Vec ref(4);
  for (size_t i = 0; i < 4; ++i)
    ref[i] = p[i] * (1 - lr * wd) - lr * g[i] / (std::fabs(g[i]) + eps);
  sprt_adamw_f32(p.data(), g.data(), m.data(), v.data(), &kOne, 4,
                 sprt_test::lrPtr(lr), 0.9, 0.999, eps, wd,
                 sprt_test::stepPtr(1));
  expectClose("adamw first step", p, ref, 1e-7, 0.0);
}

TEST(Sgd, MatchesTorchFormula) {
  const size_t n = 1000;
  for (double wd : {0.0, 0.05}) {
    auto p = randomNormals(n, 70);
    auto g = randomNormals(n, 71);
    Vec ref(n), scale(n);
    for (size_t i = 0; i < n; ++i) {
      // torch: d_p = grad.add(param, alpha=weight_decay);
      //        param.add_(d_p, alpha=-lr)
      ref[i] = p[i] - 0.1 * (double(g[i]) + wd * p[i]);
      scale[i] = std::fabs(ref[i]);
    }
    sprt_sgd_f32(p.data(), g.data(), &kOne, int64_t(n), sprt_test::lrPtr(0.1),
                 wd);
    // One rounding of the stored result: <= u |ref|.
    expectClose(wd == 0.0 ? "sgd" : "sgd wd 0.05", p, ref, 1e-7, 0.0, &scale);
  }
}

float sumSquares(const std::vector<float> &x) {
  float out = -1.0f;
  sprt_sum_squares_f32(x.data(), int64_t(x.size()), &out);
  return out;
}

TEST(SumSquares, MatchesLongDouble) {
  auto x = randomNormals(100003, 80, 3.0f);
  long double ref = 0.0L;
  for (float v : x)
    ref += (long double)v * v;
  float got = sumSquares(x);
  std::printf("[ accuracy ] sum_squares n=100003 rel err %.3g\n",
              double(std::fabs(got - ref) / ref));
  // Exact squares, n double additions (<= n eps ~ 1e-11 worst case), then
  // one rounding to f32 (<= 2^-24).
  EXPECT_LE(std::fabs((long double)got - ref), (0x1p-24L + 1e-11L) * ref);
  EXPECT_EQ(sumSquares({}), 0.0f);
  EXPECT_EQ(sumSquares({1.0f, -2.0f, 3.0f}), 14.0f);
}

TEST(SumSquares, AccumulatesInDouble) {
  // 4096^2 = 2^24, then 2^20 ones: an f32 accumulator stops at 2^24
  // (2^24 + 1 rounds to even); the exact sum is an f32.
  std::vector<float> x((1u << 20) + 1, 1.0f);
  x[0] = 4096.0f;
  EXPECT_EQ(sumSquares(x), float((1u << 24) + (1u << 20)));
  // 1e6 squares of 0.1f: f32 accumulation would be off by ~1e-3 relative,
  // one rounding of the double sum by <= 2^-24.
  std::vector<float> y(1000000, 0.1f);
  const double sq = double(0.1f) * double(0.1f);
  EXPECT_NEAR(sumSquares(y), 1e6 * sq, 0x1p-24 * 1e6 * sq);
}

TEST(SumSquares, ListIsEachSumThenF32AddsInOrder) {
  // 300 tensors cross the GPU's launch chunks (128 tensors), with empty,
  // one-element and multi-block sizes among them.
  std::vector<std::vector<float>> xs;
  for (int t = 0; t < 300; ++t) {
    const size_t n = t % 7 == 0 ? 0 : t % 5 == 0 ? 1 : 37 * t + (t % 3) * 4099;
    xs.push_back(randomNormals(n, 1000 + t, 1.0f + t % 4));
  }
  std::vector<const float *> ptrs;
  std::vector<int64_t> sizes;
  for (auto &x : xs) {
    ptrs.push_back(x.data());
    sizes.push_back(int64_t(x.size()));
  }
  for (int32_t count : {1, 2, 128, 129, 300}) {
    float want = 0.0f;
    for (int32_t t = 0; t < count; ++t)
      want = t == 0 ? sumSquares(xs[t]) : want + sumSquares(xs[t]);
    float got = -1.0f;
    sprt_sum_squares_list_f32(count, ptrs.data(), sizes.data(), &got);
    // The bits of the chain: a clip decision never depends on grouping.
    EXPECT_EQ(got, want) << count << " tensors";
  }
}

TEST(ClipScale, NormAndFactor) {
  // torch.nn.utils.clip_grad_norm_: coef = max_norm / (norm + 1e-6), <= 1.
  float sumsq = 25.0f, scale = 0.0f, norm = 0.0f;
  sprt_clip_scale_f32(&sumsq, 1.0, 1.0, &scale, &norm);
  EXPECT_EQ(norm, 5.0f);
  EXPECT_EQ(scale, float(1.0 / (5.0 + 1e-6)));
  sprt_clip_scale_f32(&sumsq, 10.0, 1.0, &scale, &norm);
  EXPECT_EQ(scale, 1.0f);
  sprt_clip_scale_f32(&sumsq, 0.0, 1.0, &scale, &norm); // clipping off
  EXPECT_EQ(scale, 1.0f);
  for (float bad : {INFINITY, NAN}) {
    sprt_clip_scale_f32(&bad, 0.0, 1.0, &scale, &norm);
    EXPECT_TRUE(std::isnan(scale)) << bad;
    EXPECT_FALSE(std::isfinite(norm)) << bad;
    sprt_clip_scale_f32(&bad, 1.0, 1.0, &scale, &norm);
    EXPECT_TRUE(std::isnan(scale)) << bad;
  }
}

TEST(ClipScale, LossScaleGivesTheTrueNormAndUnscales) {
  // Gradients of the loss times S: the sum of squares is S^2 times the
  // true one; the norm is the true one and the factor is divided by S.
  float scale = 0.0f, norm = 0.0f;
  for (double s : {1024.0, 3.0, 0.5}) {
    float sumsq = float(25.0 * s * s);
    sprt_clip_scale_f32(&sumsq, 1.0, s, &scale, &norm);
    EXPECT_EQ(norm, float(std::sqrt(double(sumsq)) / s)) << s;
    EXPECT_FLOAT_EQ(norm, 5.0f) << s;
    EXPECT_EQ(scale, float(1.0 / (double(norm) + 1e-6) / s)) << s;
    sprt_clip_scale_f32(&sumsq, 10.0, s, &scale, &norm);
    EXPECT_EQ(scale, float(1.0 / s)) << s;
    sprt_clip_scale_f32(&sumsq, 0.0, s, &scale, &norm); // clipping off
    EXPECT_EQ(scale, float(1.0 / s)) << s;
  }
  // An overflow of the scaled gradients: NaN factor, non-finite norm.
  for (float bad : {INFINITY, NAN}) {
    sprt_clip_scale_f32(&bad, 1.0, 65536.0, &scale, &norm);
    EXPECT_TRUE(std::isnan(scale)) << bad;
    EXPECT_FALSE(std::isfinite(norm)) << bad;
  }
}

TEST(Optimizers, ScaleMultipliesEachGradientInF32) {
  // Updating with *scale gives the bits of scaling the gradient first (f32
  // multiply) and updating with a factor of 1.
  const size_t n = 1000;
  const float scale = 0.3183099f;
  auto p0 = randomNormals(n, 100);
  auto g = randomNormals(n, 101, 5.0f);
  std::vector<float> gScaled(n);
  for (size_t i = 0; i < n; ++i)
    gScaled[i] = g[i] * scale;
  auto p = p0, pRef = p0;
  sprt_sgd_f32(p.data(), g.data(), &scale, int64_t(n), sprt_test::lrPtr(0.1),
               0.01);
  sprt_sgd_f32(pRef.data(), gScaled.data(), &kOne, int64_t(n),
               sprt_test::lrPtr(0.1), 0.01);
  EXPECT_EQ(p, pRef);
  p = p0;
  pRef = p0;
  std::vector<float> m(n, 0.1f), v(n, 0.2f), mRef = m, vRef = v;
  for (int step = 1; step <= 2; ++step) {
    sprt_adamw_f32(p.data(), g.data(), m.data(), v.data(), &scale, int64_t(n),
                   sprt_test::lrPtr(1e-2), 0.9, 0.999, 1e-8, 0.1,
                   sprt_test::stepPtr(step));
    sprt_adamw_f32(pRef.data(), gScaled.data(), mRef.data(), vRef.data(), &kOne,
                   int64_t(n), sprt_test::lrPtr(1e-2), 0.9, 0.999, 1e-8, 0.1,
                   sprt_test::stepPtr(step));
  }
  EXPECT_EQ(p, pRef);
  EXPECT_EQ(m, mRef);
  EXPECT_EQ(v, vRef);
  // And the factor is applied: a different one moves the parameters.
  EXPECT_NE(p, p0);
}

TEST(Optimizers, NaNScaleSkipsTheUpdate) {
  // The factor of a step whose gradient norm is not finite: parameters and
  // moments stay as they were, even where the gradient itself is finite.
  const size_t n = 257;
  const float nan = NAN;
  auto p0 = randomNormals(n, 110);
  auto g = randomNormals(n, 111);
  g[3] = INFINITY;
  g[7] = NAN;
  auto p = p0;
  sprt_sgd_f32(p.data(), g.data(), &nan, int64_t(n), sprt_test::lrPtr(0.1),
               0.01);
  EXPECT_EQ(p, p0);
  std::vector<float> m(n, 0.1f), v(n, 0.2f), m0 = m, v0 = v;
  sprt_adamw_f32(p.data(), g.data(), m.data(), v.data(), &nan, int64_t(n),
                 sprt_test::lrPtr(1e-2), 0.9, 0.999, 1e-8, 0.1,
                 sprt_test::stepPtr(1));
  EXPECT_EQ(p, p0);
  EXPECT_EQ(m, m0);
  EXPECT_EQ(v, v0);
  // A factor of 1 with the same gradients does update (and spreads NaN).
  sprt_adamw_f32(p.data(), g.data(), m.data(), v.data(), &kOne, int64_t(n),
                 sprt_test::lrPtr(1e-2), 0.9, 0.999, 1e-8, 0.1,
                 sprt_test::stepPtr(1));
  EXPECT_NE(p[0], p0[0]);
  EXPECT_TRUE(std::isnan(p[7]));
}

TEST(Scale, MultipliesInPlace) {
  auto x = randomNormals(1000, 90);
  for (double s : {0.5, 0.123456789, 3.0, 0.0}) {
    auto y = x;
    sprt_scale_f32(y.data(), int64_t(y.size()), s);
    Vec ref(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      ref[i] = double(x[i]) * s;
    // One rounding: <= u |ref|.
    expectClose("scale by " + std::to_string(s), y, ref, 1e-7, 0.0);
  }
}

} // namespace
