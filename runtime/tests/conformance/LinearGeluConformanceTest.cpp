//===- LinearGeluConformanceTest.cpp - a GEMM with GELU as its epilogue ---===//
//
// sprt_linear_gelu_typed (tfm.linear_gelu) against double references: pre =
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
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/kernels.h"

#include <cmath>
#include <string>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::expectClose;
using sprt_test::randomFloats;

namespace {

using LinearGelu = DeviceTest;

double unitRoundoff(int32_t t) {
  return t == kF32    ? 0.0
         : t == kBf16 ? std::ldexp(1.0, -8)
                      : std::ldexp(1.0, -11);
}

double gelu(double v, bool tanhForm) {
  if (tanhForm)
    return 0.5 * v *
           (1.0 +
            std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
  return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
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
      y[i] = gelu(s, tanhForm);
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
  EXPECT_NEAR(got[0], gelu(1.0, true), 4e-3);
  EXPECT_NEAR(got[1], gelu(-1.0, true), 4e-3);
}

} // namespace
