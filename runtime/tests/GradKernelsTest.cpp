//===- GradKernelsTest.cpp - backward kernels vs finite differences -------===//
//
// Every backward kernel of sprt/grad_kernels.h except attention's
// (AttentionGradTest.cpp), the cross-entropy's (CrossEntropyGradTest.cpp)
// and the optimizers (OptimizerTest.cpp), checked
// against the gradient of a double-precision re-implementation of the
// corresponding forward kernel, obtained by finite differences: for a random
// cotangent dy and every input coordinate e,
//
//   grad_e = [8 (F(h) - F(-h)) - (F(2h) - F(-2h))] / (12 h),
//   F(s) = <dy, f(x + s e)>,
//
// the fourth-order central difference. Its truncation error is
// h^4 / 30 |F^(5)| and its rounding error ~ eps_double |f| / h; with h = 1e-3
// times the scale on which f varies (the row's standard deviation for the
// norms, 1 elsewhere) both are ~1e-12 relative, five orders below the f32
// errors the tolerances are about, so the differences measure the kernels
// alone. For the data-movement kernels (qkv_concat) the check is a bitwise
// round trip with the forward.
//
// Tolerances (u = 2^-24 ~ 6e-8), each |err| <= atol + rtol * scale with a
// condition-aware scale where cancellation is possible:
// - linear grads are f32 GEMMs of length M, N <= 70: as the forward test,
//   rtol 1e-5 on sum |a b| of the products summed (sqrt(70) u ~ 5e-7 typical,
//   20x margin; a wrong layout gives O(1) errors).
// - Norm, bias and repeat-heads grads are computed in double and rounded
//   once: rtol 1e-6 (16 u) on the sum of the magnitudes of the terms of
//   each formula, which bounds the error even where the terms cancel.
// - gelu/silu grads are double evaluations of the forward's formula (with the
//   forward's f32 constants, ~1e-8 away from the exact ones the reference
//   uses) rounded once: 1e-6 |ref| + 1e-6 |dy|.
// - Embedding grads are f32 sums of at most 3 rows: rtol 1e-6 on the sum of
//   the magnitudes.
//
//===----------------------------------------------------------------------===//

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include "FiniteDifferences.h"
#include "KernelTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <vector>

using namespace sprt_test;

namespace {

//===------------------------------ linear -------------------------------===//

// y[M, N] = x[M, K] W^T (W [N, K]) or x W (W [K, N]), in double.
Vec linearRef(const Vec &x, const Vec &w, int64_t M, int64_t K, int64_t N,
              bool inOut) {
  Vec y(size_t(M * N), 0.0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0.0;
      for (int64_t k = 0; k < K; ++k)
        acc += x[m * K + k] * (inOut ? w[k * N + n] : w[n * K + k]);
      y[m * N + n] = acc;
    }
  return y;
}

void checkLinearGrad(int64_t M, int64_t K, int64_t N, bool inOut) {
  auto x = randomFloats(size_t(M * K), 31);
  auto w = randomFloats(size_t(N * K), 32);
  auto dy = randomNormals(size_t(M * N), 33);
  std::vector<float> dx(size_t(M * K), std::nanf("")),
      dw(size_t(N * K), std::nanf(""));
  sprt_linear_grad_input_f32(dy.data(), w.data(), dx.data(), M, K, N, inOut);
  sprt_linear_grad_weight_f32(x.data(), dy.data(), dw.data(), M, K, N, inOut);

  const Vec xD = toDouble(x), wD = toDouble(w), dyD = toDouble(dy);
  Vec refX = fdGradient(
      [&](const Vec &xv) { return linearRef(xv, wD, M, K, N, inOut); }, xD, dyD,
      1e-3);
  Vec refW = fdGradient(
      [&](const Vec &wv) { return linearRef(xD, wv, M, K, N, inOut); }, wD, dyD,
      1e-3);
  // Condition-aware scales: sum of |products| of each GEMM output.
  Vec scaleX(dx.size(), 0.0), scaleW(dw.size(), 0.0);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t k = 0; k < K; ++k) {
        const int64_t wi = inOut ? k * N + n : n * K + k;
        scaleX[m * K + k] += std::fabs(double(dy[m * N + n]) * w[wi]);
        scaleW[wi] += std::fabs(double(dy[m * N + n]) * x[m * K + k]);
      }
  char what[96];
  std::snprintf(what, sizeof what, "linear dx M=%ld K=%ld N=%ld %s", long(M),
                long(K), long(N), inOut ? "[K,N]" : "[N,K]");
  expectClose(what, dx, refX, 1e-5, 0.0, &scaleX);
  std::snprintf(what, sizeof what, "linear dw M=%ld K=%ld N=%ld %s", long(M),
                long(K), long(N), inOut ? "[K,N]" : "[N,K]");
  expectClose(what, dw, refW, 1e-5, 0.0, &scaleW);
}

TEST(LinearGrad, WeightOutIn) { checkLinearGrad(70, 13, 9, false); }
TEST(LinearGrad, WeightInOut) { checkLinearGrad(70, 13, 9, true); }
TEST(LinearGrad, SquareAndThin) {
  checkLinearGrad(17, 17, 17, false);
  checkLinearGrad(17, 17, 17, true);
  checkLinearGrad(1, 5, 1, false);
  checkLinearGrad(1, 5, 1, true);
}

TEST(LinearGrad, NoTokensGivesZeroWeightGrad) {
  // M = 0: dw = sum over no tokens = 0, and it must still be written.
  const int64_t K = 4, N = 3;
  for (int32_t inOut : {0, 1}) {
    std::vector<float> dw(size_t(K * N), std::nanf(""));
    sprt_linear_grad_weight_f32(nullptr, nullptr, dw.data(), 0, K, N, inOut);
    for (float v : dw)
      EXPECT_EQ(v, 0.0f);
  }
  // N = 0: dx = 0.
  std::vector<float> dx(size_t(2 * K), std::nanf(""));
  sprt_linear_grad_input_f32(nullptr, nullptr, dx.data(), 2, K, 0, 0);
  for (float v : dx)
    EXPECT_EQ(v, 0.0f);
}

TEST(BiasGrad, MatchesFiniteDifferences) {
  const int64_t T = 40, H = 11;
  auto x = randomFloats(size_t(T * H), 34);
  auto bias = randomFloats(size_t(H), 35);
  auto dy = randomNormals(size_t(T * H), 36);
  std::vector<float> db(size_t(H), std::nanf(""));
  sprt_bias_grad_f32(dy.data(), db.data(), T, H);
  const Vec xD = toDouble(x);
  Vec ref = fdGradient(
      [&](const Vec &b) {
        Vec y(size_t(T * H));
        for (int64_t t = 0; t < T; ++t)
          for (int64_t i = 0; i < H; ++i)
            y[t * H + i] = xD[t * H + i] + b[i];
        return y;
      },
      toDouble(bias), toDouble(dy), 1e-3);
  Vec scale(size_t(H), 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t i = 0; i < H; ++i)
      scale[i] += std::fabs(dy[t * H + i]);
  expectClose("bias grad", db, ref, 1e-6, 0.0, &scale);
}

//===------------------------------- norms -------------------------------===//

// Rows with different scales (as the forward test): |mean| >> std, tiny
// values where eps dominates the variance, large ones.
std::vector<float> normInput(int64_t T, int64_t H) {
  auto x = randomNormals(size_t(T * H), 37);
  for (int64_t i = 0; i < H; ++i) {
    x[1 * H + i] = 1000.0f + x[1 * H + i];
    x[2 * H + i] *= 1e-3f;
    x[3 * H + i] = 50.0f * x[3 * H + i] - 20.0f;
  }
  return x;
}

Vec layerNormRef(const Vec &x, const Vec &w, const Vec &b, int64_t T, int64_t H,
                 double eps) {
  Vec y(size_t(T * H));
  for (int64_t t = 0; t < T; ++t) {
    double mean = 0.0, var = 0.0;
    for (int64_t i = 0; i < H; ++i)
      mean += x[t * H + i];
    mean /= double(H);
    for (int64_t i = 0; i < H; ++i)
      var += (x[t * H + i] - mean) * (x[t * H + i] - mean);
    var /= double(H);
    for (int64_t i = 0; i < H; ++i)
      y[t * H + i] = (x[t * H + i] - mean) / std::sqrt(var + eps) * w[i] + b[i];
  }
  return y;
}

// The step for a coordinate of row t: 1e-3 of the row's sqrt(var + eps)
// (the scale on which the normalisation varies).
Vec rowSteps(const std::vector<float> &x, int64_t T, int64_t H, double eps,
             bool centered) {
  Vec h(x.size());
  for (int64_t t = 0; t < T; ++t) {
    double mean = 0.0, var = 0.0;
    if (centered) {
      for (int64_t i = 0; i < H; ++i)
        mean += x[t * H + i];
      mean /= double(H);
    }
    for (int64_t i = 0; i < H; ++i)
      var += (x[t * H + i] - mean) * (x[t * H + i] - mean);
    var /= double(H);
    for (int64_t i = 0; i < H; ++i)
      h[t * H + i] = 1e-3 * std::sqrt(var + eps);
  }
  return h;
}

void checkLayerNormGrad(bool withWeight) {
  const int64_t T = 6, H = 37;
  const double eps = 1e-5;
  auto x = normInput(T, H);
  auto w = withWeight ? randomFloats(size_t(H), 38, 0.5f, 1.5f)
                      : std::vector<float>(size_t(H), 1.0f);
  auto b = randomFloats(size_t(H), 39);
  auto dy = randomNormals(size_t(T * H), 40);
  std::vector<float> dx(size_t(T * H), std::nanf("")),
      dw(size_t(H), std::nanf("")), db(size_t(H), std::nanf(""));
  sprt_layer_norm_grad_f32(dy.data(), x.data(), withWeight ? w.data() : nullptr,
                           dx.data(), dw.data(), db.data(), T, H, eps);

  const Vec xD = toDouble(x), wD = toDouble(w), bD = toDouble(b),
            dyD = toDouble(dy);
  Vec refX = fdGradient(
      [&](const Vec &xv) { return layerNormRef(xv, wD, bD, T, H, eps); }, xD,
      dyD, rowSteps(x, T, H, eps, true));
  Vec refW = fdGradient(
      [&](const Vec &wv) { return layerNormRef(xD, wv, bD, T, H, eps); }, wD,
      dyD, 1e-3);
  Vec refB = fdGradient(
      [&](const Vec &bv) { return layerNormRef(xD, wD, bv, T, H, eps); }, bD,
      dyD, 1e-3);

  // dx = rstd (g - mean(g) - xhat mean(g xhat)), g = dy w: scale by the sum
  // of the magnitudes of the three terms.
  Vec scaleX(dx.size()), scaleW(size_t(H), 0.0), scaleB(size_t(H), 0.0);
  for (int64_t t = 0; t < T; ++t) {
    double mean = 0.0, var = 0.0;
    for (int64_t i = 0; i < H; ++i)
      mean += x[t * H + i];
    mean /= H;
    for (int64_t i = 0; i < H; ++i)
      var += (x[t * H + i] - mean) * (x[t * H + i] - mean);
    const double rstd = 1.0 / std::sqrt(var / H + eps);
    double mg = 0.0, mgx = 0.0;
    for (int64_t i = 0; i < H; ++i) {
      double xh = (x[t * H + i] - mean) * rstd;
      mg += std::fabs(dy[t * H + i] * wD[i]) / H;
      mgx += std::fabs(dy[t * H + i] * wD[i] * xh) / H;
      scaleW[i] += std::fabs(dy[t * H + i] * xh);
      scaleB[i] += std::fabs(dy[t * H + i]);
    }
    for (int64_t i = 0; i < H; ++i) {
      double xh = (x[t * H + i] - mean) * rstd;
      scaleX[t * H + i] =
          rstd * (std::fabs(dy[t * H + i] * wD[i]) + mg + std::fabs(xh) * mgx);
    }
  }
  const std::string tag = withWeight ? "layer_norm" : "layer_norm (no weight)";
  expectClose(tag + " dx", dx, refX, 1e-6, 0.0, &scaleX);
  expectClose(tag + " dw", dw, refW, 1e-6, 0.0, &scaleW);
  expectClose(tag + " db", db, refB, 1e-6, 0.0, &scaleB);

  // Not requesting dw, db changes nothing else.
  std::vector<float> dx2(size_t(T * H), std::nanf(""));
  sprt_layer_norm_grad_f32(dy.data(), x.data(), withWeight ? w.data() : nullptr,
                           dx2.data(), nullptr, nullptr, T, H, eps);
  expectBitwiseEqual(tag + " dx without dw, db", dx2, dx);
  std::vector<float> dx3(size_t(T * H), std::nanf("")),
      dw3(size_t(H), std::nanf(""));
  sprt_layer_norm_grad_f32(dy.data(), x.data(), withWeight ? w.data() : nullptr,
                           dx3.data(), dw3.data(), nullptr, T, H, eps);
  expectBitwiseEqual(tag + " dx without db", dx3, dx);
  expectBitwiseEqual(tag + " dw without db", dw3, dw);
}

TEST(LayerNormGrad, WithWeight) { checkLayerNormGrad(true); }
TEST(LayerNormGrad, NullWeightIsOnes) { checkLayerNormGrad(false); }

Vec rmsNormRef(const Vec &x, const Vec &w, int64_t T, int64_t H, double eps) {
  Vec y(size_t(T * H));
  for (int64_t t = 0; t < T; ++t) {
    double ms = 0.0;
    for (int64_t i = 0; i < H; ++i)
      ms += x[t * H + i] * x[t * H + i];
    ms /= double(H);
    for (int64_t i = 0; i < H; ++i)
      y[t * H + i] = x[t * H + i] / std::sqrt(ms + eps) * w[i];
  }
  return y;
}

TEST(RmsNormGrad, MatchesFiniteDifferences) {
  const int64_t T = 6, H = 37;
  const double eps = 1e-6;
  auto x = normInput(T, H);
  auto w = randomFloats(size_t(H), 41, 0.5f, 1.5f);
  auto dy = randomNormals(size_t(T * H), 42);
  std::vector<float> dx(size_t(T * H), std::nanf("")),
      dw(size_t(H), std::nanf(""));
  sprt_rms_norm_grad_f32(dy.data(), x.data(), w.data(), dx.data(), dw.data(), T,
                         H, eps);
  const Vec xD = toDouble(x), wD = toDouble(w), dyD = toDouble(dy);
  Vec refX =
      fdGradient([&](const Vec &xv) { return rmsNormRef(xv, wD, T, H, eps); },
                 xD, dyD, rowSteps(x, T, H, eps, false));
  Vec refW =
      fdGradient([&](const Vec &wv) { return rmsNormRef(xD, wv, T, H, eps); },
                 wD, dyD, 1e-3);
  // dx = r (g - x r^2 mean(g x)); dw = sum_t dy x r.
  Vec scaleX(dx.size()), scaleW(size_t(H), 0.0);
  for (int64_t t = 0; t < T; ++t) {
    double ms = 0.0, mgx = 0.0;
    for (int64_t i = 0; i < H; ++i)
      ms += xD[t * H + i] * xD[t * H + i] / H;
    const double r = 1.0 / std::sqrt(ms + eps);
    for (int64_t i = 0; i < H; ++i) {
      mgx += std::fabs(dy[t * H + i] * wD[i] * xD[t * H + i]) / H;
      scaleW[i] += std::fabs(dy[t * H + i] * xD[t * H + i]) * r;
    }
    for (int64_t i = 0; i < H; ++i)
      scaleX[t * H + i] = r * (std::fabs(dy[t * H + i] * wD[i]) +
                               std::fabs(xD[t * H + i]) * r * r * mgx);
  }
  expectClose("rms_norm dx", dx, refX, 1e-6, 0.0, &scaleX);
  expectClose("rms_norm dw", dw, refW, 1e-6, 0.0, &scaleW);
  std::vector<float> dx2(size_t(T * H), std::nanf(""));
  sprt_rms_norm_grad_f32(dy.data(), x.data(), w.data(), dx2.data(), nullptr, T,
                         H, eps);
  expectBitwiseEqual("rms_norm dx without dw", dx2, dx);
}

//===---------------------------- activations ----------------------------===//

std::vector<float> activationInput() {
  auto x = randomFloats(4000, 43, -8.0f, 8.0f);
  for (float v : {0.0f, -0.0f, 1e-4f, -1e-4f, 30.0f, -30.0f, 1.0f, -1.0f,
                  -0.7517916f /* gelu' ~ 0 */, 100.0f, -100.0f})
    x.push_back(v);
  return x;
}

double geluExact(double v) { return 0.5 * v * (1.0 + std::erf(v / M_SQRT2)); }
double geluTanh(double v) {
  return 0.5 * v *
         (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
}
double silu(double v) { return v / (1.0 + std::exp(-v)); }

void checkActivationGrad(const char *what, double (*f)(double),
                         void (*grad)(const float *, const float *, float *,
                                      int64_t)) {
  auto x = activationInput();
  auto dy = randomNormals(x.size(), 44);
  std::vector<float> dx(x.size(), std::nanf(""));
  grad(dy.data(), x.data(), dx.data(), int64_t(x.size()));
  Vec ref = fdElementwise(f, x, dy, 1e-3);
  // |err| <= 1e-6 (|ref| + |dy|): the |dy| term is an absolute tolerance on
  // the derivative where it crosses zero.
  Vec scale(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    scale[i] = std::fabs(ref[i]) + std::fabs(dy[i]);
  expectClose(what, dx, ref, 1e-6, 0.0, &scale);
}

TEST(ActivationGrad, GeluExact) {
  checkActivationGrad("gelu exact grad", geluExact,
                      [](const float *dy, const float *x, float *dx,
                         int64_t n) { sprt_gelu_grad_f32(dy, x, dx, n, 0); });
}

TEST(ActivationGrad, GeluTanh) {
  checkActivationGrad("gelu tanh grad", geluTanh,
                      [](const float *dy, const float *x, float *dx,
                         int64_t n) { sprt_gelu_grad_f32(dy, x, dx, n, 1); });
}

TEST(ActivationGrad, Silu) {
  checkActivationGrad("silu grad", silu, sprt_silu_grad_f32);
}

TEST(ActivationGrad, Relu) {
  // Exact: dx = dy where x > 0, else 0, relu'(0) = 0 as torch's
  // threshold_backward; the input has 0, -0, +-1e-4 and negatives.
  auto x = activationInput();
  auto dy = randomNormals(x.size(), 45);
  std::vector<float> dx(x.size(), std::nanf(""));
  sprt_relu_grad_f32(dy.data(), x.data(), dx.data(), int64_t(x.size()));
  int zeros = 0, negatives = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    float ref = x[i] > 0.0f ? dy[i] : 0.0f;
    zeros += x[i] == 0.0f;
    negatives += x[i] < 0.0f;
    EXPECT_EQ(dx[i], ref) << "relu grad at x=" << x[i] << " dy=" << dy[i];
  }
  EXPECT_EQ(zeros, 2);
  EXPECT_GT(negatives, 100);
}

TEST(ActivationGrad, ExtremeInputsAreFinite) {
  // exp(-x) overflows for x << 0 and tanh/erf saturate for |x| >> 0: the
  // derivatives are exactly 0 (left) and 1 (right), never NaN.
  const std::vector<float> x = {-1e4f, -1000.0f, 1000.0f, 1e4f};
  const std::vector<float> dy(x.size(), 1.0f);
  std::vector<float> dx(x.size());
  const float expected[] = {0.0f, 0.0f, 1.0f, 1.0f};
  for (int which = 0; which < 3; ++which) {
    if (which < 2)
      sprt_gelu_grad_f32(dy.data(), x.data(), dx.data(), 4, which);
    else
      sprt_silu_grad_f32(dy.data(), x.data(), dx.data(), 4);
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_EQ(dx[i], expected[i]) << "activation " << which << " x=" << x[i];
  }
}

//===----------------------------- embedding -----------------------------===//

// table [V, H] rows looked up for ids in [offset, offset + V), zeros else.
Vec embeddingRef(const std::vector<int64_t> &ids, const Vec &table, int64_t V,
                 int64_t H, int64_t offset) {
  Vec y(ids.size() * size_t(H), 0.0);
  for (size_t t = 0; t < ids.size(); ++t) {
    int64_t r = ids[t] - offset;
    if (r >= 0 && r < V)
      for (int64_t i = 0; i < H; ++i)
        y[t * H + i] = table[r * H + i];
  }
  return y;
}

TEST(EmbeddingGrad, MatchesFiniteDifferences) {
  const int64_t V = 11, H = 5;
  // Repeated ids (3 x 3, 2 x 0, ...), an id no row of the table holds (15)
  // and ids that never occur (1, 2).
  std::vector<int64_t> ids = {0, 3, 10, 3, 7, 4, 6, 9, 0, 5, 8, 3, 15};
  const int64_t T = int64_t(ids.size());
  auto table = randomFloats(size_t(V * H), 45);
  auto dy = randomNormals(size_t(T * H), 46);
  std::vector<float> dtable(size_t(V * H), std::nanf(""));
  sprt_embedding_grad_f32(ids.data(), dy.data(), dtable.data(), T, V, H, 0);
  Vec ref =
      fdGradient([&](const Vec &tb) { return embeddingRef(ids, tb, V, H, 0); },
                 toDouble(table), toDouble(dy), 1e-3);
  Vec scale(size_t(V * H), 0.0);
  for (int64_t t = 0; t < T; ++t)
    if (ids[t] < V)
      for (int64_t i = 0; i < H; ++i)
        scale[ids[t] * H + i] += std::fabs(dy[t * H + i]);
  expectClose("embedding grad", dtable, ref, 1e-6, 0.0, &scale);
  for (int64_t i = 0; i < H; ++i) {
    EXPECT_EQ(dtable[1 * H + i], 0.0f); // unused rows are zeroed
    EXPECT_EQ(dtable[2 * H + i], 0.0f);
  }
}

TEST(EmbeddingGrad, VocabParallelShardsConcatenateToUnsplit) {
  const int64_t V = 11, H = 5;
  std::vector<int64_t> ids = {0, 3, 10, 3, 7, 4, 6, 9, 0, 5, 8, 2, 3, 6};
  const int64_t T = int64_t(ids.size());
  auto dy = randomNormals(size_t(T * H), 47);
  std::vector<float> full(size_t(V * H), std::nanf(""));
  sprt_embedding_grad_f32(ids.data(), dy.data(), full.data(), T, V, H, 0);
  // Uneven shards [0,4) [4,7) [7,11): shard s's rows are rows [lo, lo + Vs)
  // of the unsplit gradient, summed over the same tokens in the same order.
  const int64_t bounds[] = {0, 4, 7, 11};
  std::vector<float> cat;
  for (int s = 0; s < 3; ++s) {
    const int64_t lo = bounds[s], Vs = bounds[s + 1] - lo;
    std::vector<float> part(size_t(Vs * H), std::nanf(""));
    sprt_embedding_grad_f32(ids.data(), dy.data(), part.data(), T, Vs, H, lo);
    cat.insert(cat.end(), part.begin(), part.end());
  }
  expectBitwiseEqual("embedding grad shards concatenated", cat, full);
}

//===--------------------------- head reshaping --------------------------===//

void checkQkvConcat(int64_t heads, int64_t kvHeads, int32_t packing) {
  const int64_t T = 5, D = 3;
  const int64_t W = (heads + 2 * kvHeads) * D;
  auto qkv = randomFloats(size_t(T * W), 48);
  std::vector<float> q(size_t(T * heads * D)), k(size_t(T * kvHeads * D)),
      v(size_t(T * kvHeads * D));
  // concat(split(x)) = x: concat is split's inverse (and, split being a
  // permutation, its transpose, i.e. its gradient).
  sprt_qkv_split(qkv.data(), q.data(), k.data(), v.data(), T, heads, kvHeads, D,
                 packing, 4);
  std::vector<float> back(qkv.size(), std::nanf(""));
  sprt_qkv_concat(q.data(), k.data(), v.data(), back.data(), T, heads, kvHeads,
                  D, packing, 4);
  char what[64];
  std::snprintf(what, sizeof what, "concat(split) %ld/%ld packing %d",
                long(heads), long(kvHeads), packing);
  expectBitwiseEqual(what, back, qkv);
  // split(concat(dq, dk, dv)) = (dq, dk, dv).
  auto dq = randomFloats(q.size(), 49), dk = randomFloats(k.size(), 50),
       dv = randomFloats(v.size(), 51);
  std::vector<float> dqkv(qkv.size(), std::nanf(""));
  sprt_qkv_concat(dq.data(), dk.data(), dv.data(), dqkv.data(), T, heads,
                  kvHeads, D, packing, 4);
  sprt_qkv_split(dqkv.data(), q.data(), k.data(), v.data(), T, heads, kvHeads,
                 D, packing, 4);
  std::snprintf(what, sizeof what, "split(concat) %ld/%ld packing %d",
                long(heads), long(kvHeads), packing);
  expectBitwiseEqual(std::string(what) + " q", q, dq);
  expectBitwiseEqual(std::string(what) + " k", k, dk);
  expectBitwiseEqual(std::string(what) + " v", v, dv);
}

TEST(QkvConcat, PackedQKVRoundTrip) {
  checkQkvConcat(4, 4, 0);
  checkQkvConcat(4, 2, 0); // GQA
  checkQkvConcat(4, 1, 0); // MQA
}

TEST(QkvConcat, PackedPerHeadRoundTrip) {
  checkQkvConcat(3, 3, 1); // GPT-NeoX
  checkQkvConcat(4, 2, 1); // grouped, as the forward packs it
  checkQkvConcat(4, 1, 1);
}

TEST(QkvConcat, NeoXLayoutExplicit) {
  // heads = 2, head_dim = 2: row = [q0 q0 k0 k0 v0 v0 q1 q1 k1 k1 v1 v1].
  const float q[4] = {1, 2, 7, 8}, k[4] = {3, 4, 9, 10}, v[4] = {5, 6, 11, 12};
  float row[12];
  sprt_qkv_concat(q, k, v, row, 1, 2, 2, 2, 1, 4);
  EXPECT_EQ(std::vector<float>(row, row + 12),
            (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
}

TEST(RepeatHeadsGrad, MatchesFiniteDifferences) {
  const int64_t T = 4, heads = 3, D = 5, factor = 4;
  auto x = randomFloats(size_t(T * heads * D), 52);
  auto dy = randomNormals(size_t(T * heads * factor * D), 53);
  std::vector<float> dx(x.size(), std::nanf(""));
  sprt_repeat_heads_grad_f32(dy.data(), dx.data(), T, heads, D, factor);
  Vec ref = fdGradient(
      [&](const Vec &xv) {
        Vec y(dy.size());
        for (int64_t t = 0; t < T; ++t)
          for (int64_t h = 0; h < heads; ++h)
            for (int64_t r = 0; r < factor; ++r)
              for (int64_t d = 0; d < D; ++d)
                y[((t * heads + h) * factor + r) * D + d] =
                    xv[(t * heads + h) * D + d];
        return y;
      },
      toDouble(x), toDouble(dy), 1e-3);
  Vec scale(x.size(), 0.0);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t r = 0; r < factor; ++r)
        for (int64_t d = 0; d < D; ++d)
          scale[(t * heads + h) * D + d] +=
              std::fabs(dy[((t * heads + h) * factor + r) * D + d]);
  expectClose("repeat_heads grad", dx, ref, 1e-6, 0.0, &scale);

  // factor 1 is the identity.
  std::vector<float> same(x.size(), std::nanf(""));
  sprt_repeat_heads_grad_f32(x.data(), same.data(), T, heads, D, 1);
  expectBitwiseEqual("repeat_heads grad factor 1", same, x);
}

} // namespace
