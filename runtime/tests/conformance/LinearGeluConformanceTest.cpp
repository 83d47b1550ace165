//===- LinearGeluConformanceTest.cpp - a GEMM with GELU as its epilogue ---===//
//
// sprt_linear_gelu_typed (tfm.linear_gelu) and sprt_linear_gelu_grad_typed
// (tfm.linear_gelu_grad) against double references.
//
// Forward: pre =
// x op(W) + bias, y = gelu(pre), in f32, bf16 and f16, both weight layouts,
// with and without a bias, with pre written and not (NULL), tanh and exact
// GELU, at a width cuBLASLt's GELU epilogue takes (96) and one it may not
// (20, not a multiple of 8: the two-kernel path).
//
// Tolerances. pre: TypedLinearConformanceTest's GEMM bound, u |ref| +
// (1 + u) 1e-5 sum|x w|, u the unit roundoff of the dtype (0 for f32). y:
// |gelu'| <= 1.13, so an error e in the GELU's input moves y by at most
// 1.13 e; the input is the f32 sum (the epilogue) or that sum rounded once
// (the two kernels): e <= u |ref| + (1 + u) 1e-5 sum|x w|; then y is
// rounded once (u |y|) and the f32 GELU formulas are within 1e-6 |pre| +
// 1e-7 of the double ones. On the CPU backend the fused call must also be
// sprt_linear_typed then sprt_gelu_typed bit for bit (the program's results
// do not change with tfm-fuse-epilogues).
//
// Backward: dx = gelu'(pre) (dy op(W)) and dbias = the column sums of dx,
// with dbias absent, of dx's type or f32. |gelu''| <= 1.13 too (tanh and
// exact forms): dx's bound is 1.13 (u |da| + (1 + u) 1e-5 sum|dy w|) +
// u |dx| + 1e-6 |da| + 1e-7 (da the input gradient); dbias's is the sum
// of its column's dx bounds plus its own rounding and 1e-6 sum|dx| (f32
// sums). On the CPU backend it must be sprt_linear_grad_input_typed,
// sprt_gelu_grad_typed and sprt_bias_grad_typed bit for bit.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cmath>
#include <memory>
#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::expectClose;
using sprt_test::randomFloats;

namespace {

using LinearGelu = DeviceTest;

/// d gelu / dx.
double geluGrad(double v, bool tanhForm) {
  if (tanhForm) {
    const double c = std::sqrt(2.0 / M_PI), a = 0.044715;
    const double t = std::tanh(c * (v + a * v * v * v));
    return 0.5 * (1.0 + t) +
           0.5 * v * (1.0 - t * t) * c * (1.0 + 3 * a * v * v);
  }
  return 0.5 * (1.0 + std::erf(v / std::sqrt(2.0))) +
         v * std::exp(-0.5 * v * v) / std::sqrt(2.0 * M_PI);
}

struct Case {
  int64_t M, K, N;
};

void check(const Case &c, int32_t t, bool inOut, bool withBias, bool withPre,
           bool tanhForm) {
  const int64_t M = c.M, K = c.K, N = c.N;
  const std::string what =
      std::string("linear_gelu ") + nameOf(t) + " N=" + std::to_string(N) +
      (inOut ? " in_out" : " out_in") + (withBias ? " bias" : "") +
      (withPre ? " pre" : "") + (tanhForm ? " tanh" : " exact");
  const auto x = asStored(randomFloats(size_t(M * K), 11, -1.0f, 1.0f), t),
             w = asStored(randomFloats(size_t(K * N), 12, -0.5f, 0.5f), t),
             b = asStored(randomFloats(size_t(N), 13, -1.0f, 1.0f), t);
  // The double reference and each output's bound.
  const double u = unitRoundoff(t);
  std::vector<double> pre(size_t(M * N)), y(pre.size()), preTol(pre.size()),
      yTol(pre.size());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = withBias ? double(b[n]) : 0.0, mag = std::fabs(s);
      for (int64_t k = 0; k < K; ++k) {
        const double p =
            double(x[m * K + k]) * (inOut ? w[k * N + n] : w[n * K + k]);
        s += p;
        mag += std::fabs(p);
      }
      const size_t i = size_t(m * N + n);
      pre[i] = s;
      y[i] = geluRef(s, tanhForm);
      preTol[i] = u * std::fabs(s) + (1.0 + u) * 1e-5 * mag;
      yTol[i] =
          1.13 * preTol[i] + u * std::fabs(y[i]) + 1e-6 * std::fabs(s) + 1e-7;
    }
  TypedBuffer dX(x, t), dW(w, t), dB(b, t);
  TypedBuffer dPre(nans(pre.size()), t), dY(nans(pre.size()), t);
  sprt_linear_gelu_typed(
      dX.get(), t, dW.get(), t, withBias ? dB.get() : nullptr, t,
      withPre ? dPre.get() : nullptr, dY.get(), t, M, K, N, inOut, tanhForm);
  const std::vector<float> gotY = dY.download();
  expectClose(what + " y", gotY, y, 1.0, 0.0, &yTol);
  if (withPre)
    expectClose(what + " pre", dPre.download(), pre, 1.0, 0.0, &preTol);
  if (!onCpuBackend())
    return;
  // The two kernels the unfused program calls.
  TypedBuffer wantPre(nans(pre.size()), t), wantY(nans(pre.size()), t);
  sprt_linear_typed(dX.get(), t, dW.get(), t, withBias ? dB.get() : nullptr, t,
                    wantPre.get(), t, M, K, N, inOut);
  sprt_gelu_typed(wantPre.get(), wantY.get(), M * N, tanhForm, t);
  expectBitwiseEqual(what + " y as the two kernels", gotY, wantY.download());
  if (withPre)
    expectBitwiseEqual(what + " pre as the two kernels", dPre.download(),
                       wantPre.download());
}

TEST_F(LinearGelu, IsGeluOfTheLinear) {
  for (const Case &c : {Case{37, 64, 96}, Case{5, 40, 20}})
    for (int32_t t : {kBf16, kF16, kF32})
      for (bool inOut : {false, true})
        for (bool withBias : {false, true})
          for (bool withPre : {false, true})
            for (bool tanhForm : {true, false})
              check(c, t, inOut, withBias, withPre, tanhForm);
}

/// One backward case: dy [M, N], W [N, K] (or [K, N] with inOut), pre and
/// dx [M, K], dbias [K] of dbType (-1: none).
void checkGrad(const Case &c, int32_t t, bool inOut, int32_t dbType,
               bool tanhForm) {
  const int64_t M = c.M, K = c.K, N = c.N;
  const std::string what =
      std::string("linear_gelu_grad ") + nameOf(t) + " K=" + std::to_string(K) +
      (inOut ? " in_out" : " out_in") +
      (dbType < 0 ? "" : std::string(" dbias ") + nameOf(dbType)) +
      (tanhForm ? " tanh" : " exact");
  const auto dy = asStored(randomFloats(size_t(M * N), 21, -1.0f, 1.0f), t),
             w = asStored(randomFloats(size_t(K * N), 22, -0.5f, 0.5f), t),
             pre = asStored(randomFloats(size_t(M * K), 23, -3.0f, 3.0f), t);
  const double u = unitRoundoff(t);
  std::vector<double> dx(size_t(M * K)), dxTol(dx.size());
  std::vector<double> db(static_cast<size_t>(K)), dbTol(db.size()),
      dbMag(db.size());
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k) {
      double s = 0.0, mag = 0.0;
      for (int64_t n = 0; n < N; ++n) {
        const double p =
            double(dy[m * N + n]) * (inOut ? w[k * N + n] : w[n * K + k]);
        s += p;
        mag += std::fabs(p);
      }
      const size_t i = size_t(m * K + k);
      dx[i] = s * geluGrad(pre[i], tanhForm);
      dxTol[i] = 1.13 * (u * std::fabs(s) + (1.0 + u) * 1e-5 * mag) +
                 u * std::fabs(dx[i]) + 1e-6 * std::fabs(s) + 1e-7;
      db[k] += dx[i];
      dbTol[k] += dxTol[i];
      dbMag[k] += std::fabs(dx[i]);
    }
  if (dbType >= 0)
    for (int64_t k = 0; k < K; ++k)
      dbTol[k] += unitRoundoff(dbType) * std::fabs(db[k]) + 1e-6 * dbMag[k];
  TypedBuffer dDy(dy, t), dW(w, t), dPre(pre, t), dDx(nans(dx.size()), t);
  std::unique_ptr<TypedBuffer> dDb;
  if (dbType >= 0)
    dDb = std::make_unique<TypedBuffer>(nans(size_t(K)), dbType);
  sprt_linear_gelu_grad_typed(dDy.get(), t, dW.get(), t, dPre.get(), dDx.get(),
                              t, dDb ? dDb->get() : nullptr,
                              dbType < 0 ? 0 : dbType, M, K, N, inOut,
                              tanhForm);
  const std::vector<float> gotDx = dDx.download();
  expectClose(what + " dx", gotDx, dx, 1.0, 0.0, &dxTol);
  if (dDb)
    expectClose(what + " dbias", dDb->download(), db, 1.0, 0.0, &dbTol);
  if (!onCpuBackend())
    return;
  // The ops' calls, as the unfused program makes them.
  TypedBuffer da(nans(dx.size()), t), want(nans(dx.size()), t);
  sprt_linear_grad_input_typed(dDy.get(), t, dW.get(), t, da.get(), t, M, K, N,
                               inOut);
  sprt_gelu_grad_typed(da.get(), dPre.get(), want.get(), M * K, tanhForm, t);
  expectBitwiseEqual(what + " dx as the ops", gotDx, want.download());
  if (dDb) {
    TypedBuffer wantDb(nans(size_t(K)), dbType);
    sprt_bias_grad_typed(want.get(), t, wantDb.get(), dbType, M, K);
    expectBitwiseEqual(what + " dbias as the ops", dDb->download(),
                       wantDb.download());
  }
}

TEST_F(LinearGelu, GradIsGeluGradOfTheInputGradient) {
  for (const Case &c : {Case{37, 96, 64}, Case{5, 20, 40}})
    for (int32_t t : {kBf16, kF16, kF32})
      for (bool inOut : {false, true})
        for (int32_t dbType : {-1, t, kF32})
          for (bool tanhForm : {true, false})
            checkGrad(c, t, inOut, dbType, tanhForm);
}

TEST_F(LinearGelu, EmptyShapesWriteNothing) {
  // M = 0 or N = 0: nothing to write; K = 0: y = gelu(bias).
  TypedBuffer x(std::vector<float>(8, 1.0f), kBf16),
      w(std::vector<float>(8, 1.0f), kBf16), b({1.0f, -1.0f}, kBf16),
      y(nans(2), kBf16);
  sprt_linear_gelu_typed(x.get(), kBf16, w.get(), kBf16, b.get(), kBf16,
                         nullptr, y.get(), kBf16, 0, 4, 2, 1, 1);
  for (float v : y.download())
    EXPECT_TRUE(std::isnan(v));
  sprt_linear_gelu_typed(x.get(), kBf16, w.get(), kBf16, b.get(), kBf16,
                         nullptr, y.get(), kBf16, 1, 0, 2, 1, 1);
  const std::vector<float> got = y.download();
  EXPECT_NEAR(got[0], geluRef(1.0, true), 4e-3);
  EXPECT_NEAR(got[1], geluRef(-1.0, true), 4e-3);
}

} // namespace
