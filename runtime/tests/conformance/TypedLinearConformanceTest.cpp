//===- TypedLinearConformanceTest.cpp - GEMMs of mixed precision ----------===//
//
// sprt_linear_typed, sprt_linear_grad_input_typed and
// sprt_linear_grad_weight_typed against double references computed on the
// operands as the kernel reads them: bf16 and f16 inputs are random floats
// rounded with sprt/dtype.h (f32ToBf16, f32ToF16), and the reference widens
// them back (exact). 16-bit results are downloaded and widened on the host.
//
// Tolerance: |y - ref| <= u |ref| + (1 + u) 1e-5 sum|x w| per output, u the
// unit roundoff of the result's dtype (2^-8 bf16, 2^-11 f16, 0 f32). The
// kernels accumulate in f32, which LinearNormConformanceTest bounds by
// |y32 - ref| <= 1e-5 sum|x w| (the sum including |bias| or |dw| as stored
// where those are added); the one rounding of y32 to a 16-bit dtype moves it
// by at most half an ulp, u |y32| <= u (|ref| + 1e-5 sum|x w|). With every
// dtype f32 the typed functions must be the _f32 ones bit for bit.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <memory>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::expectClose;
using sprt_test::randomFloats;

namespace {

using TypedLinear = DeviceTest;

/// A reference result and the sum of magnitudes of its terms.
struct Ref {
  std::vector<double> v, mag;
};

/// y[M, N] = x[M, K] op(W) (+ bias): W [N, K], or [K, N] with inOut.
Ref linearRef(const std::vector<float> &x, const std::vector<float> &w,
              const std::vector<float> *bias, int64_t M, int64_t K, int64_t N,
              bool inOut) {
  Ref r{std::vector<double>(size_t(M * N)), std::vector<double>(size_t(M * N))};
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = bias ? double((*bias)[n]) : 0.0, a = std::fabs(s);
      for (int64_t k = 0; k < K; ++k) {
        const double p =
            double(x[m * K + k]) * (inOut ? w[k * N + n] : w[n * K + k]);
        s += p;
        a += std::fabs(p);
      }
      r.v[m * N + n] = s;
      r.mag[m * N + n] = a;
    }
  return r;
}

/// dx[M, K] = dy[M, N] W or dy W^T.
Ref gradInputRef(const std::vector<float> &dy, const std::vector<float> &w,
                 int64_t M, int64_t K, int64_t N, bool inOut) {
  Ref r{std::vector<double>(size_t(M * K)), std::vector<double>(size_t(M * K))};
  for (int64_t m = 0; m < M; ++m)
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) {
        const double p =
            double(dy[m * N + n]) * (inOut ? w[k * N + n] : w[n * K + k]);
        r.v[m * K + k] += p;
        r.mag[m * K + k] += std::fabs(p);
      }
  return r;
}

/// dw (W's layout) = (start +) dy^T x or x^T dy.
Ref gradWeightRef(const std::vector<float> &x, const std::vector<float> &dy,
                  const std::vector<float> *start, int64_t M, int64_t K,
                  int64_t N, bool inOut) {
  Ref r{std::vector<double>(size_t(K * N)), std::vector<double>(size_t(K * N))};
  if (start)
    for (size_t i = 0; i < r.v.size(); ++i) {
      r.v[i] = (*start)[i];
      r.mag[i] = std::fabs(r.v[i]);
    }
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) {
      const int64_t idx = inOut ? k * N + n : n * K + k;
      for (int64_t m = 0; m < M; ++m) {
        const double p = double(x[m * K + k]) * dy[m * N + n];
        r.v[idx] += p;
        r.mag[idx] += std::fabs(p);
      }
    }
  return r;
}

/// The header's bound, u |ref| + (1 + u) 1e-5 sum|terms|, as one scale.
void expectGemmClose(const std::string &what, const std::vector<float> &got,
                     int32_t dtype, const Ref &ref) {
  const double u = unitRoundoff(dtype);
  std::vector<double> tol(ref.v.size());
  for (size_t i = 0; i < tol.size(); ++i)
    tol[i] = u * std::fabs(ref.v[i]) + (1.0 + u) * 1e-5 * ref.mag[i];
  expectClose(what, got, ref.v, 1.0, 0.0, &tol);
}

/// Input, weight (or dy), bias (or start) and result dtypes of one case.
struct Types {
  int32_t a, b, c, out;
};

std::string label(const char *fn, Types t, int inOut, const char *extra) {
  return std::string(fn) + " " + nameOf(t.a) + "," + nameOf(t.b) + "," +
         nameOf(t.c) + "->" + nameOf(t.out) +
         " in_out=" + std::to_string(inOut) + extra;
}

// x, w, bias, y.
const Types kLinearCases[] = {
    {kBf16, kBf16, kBf16, kBf16}, // all bf16 (cublasGemmEx 16BF -> 16BF)
    {kF16, kF16, kF16, kF16},     // all f16
    {kBf16, kBf16, kBf16, kF32},  // bf16 operands, f32 result
    {kF32, kBf16, kF32, kF32},    // mixed operands: w widened
    {kF32, kBf16, kBf16, kBf16},  // mixed operands, 16-bit result
    {kBf16, kBf16, kF32, kBf16},  // bias of another dtype than y
    {kF16, kF16, kBf16, kF16},    // the same, f16
    {kF16, kF16, kF16, kBf16},    // f16 operands, bf16 result
    {kBf16, kBf16, kF16, kF32},   // f32 result, f16 bias
};

TEST_F(TypedLinear, Linear) {
  const int64_t M = 37, K = 200, N = 29;
  const auto x0 = randomFloats(size_t(M * K), 81),
             w0 = randomFloats(size_t(K * N), 82),
             b0 = randomFloats(size_t(N), 83);
  for (const Types &t : kLinearCases) {
    const auto x = asStored(x0, t.a), w = asStored(w0, t.b),
               b = asStored(b0, t.c);
    TypedBuffer dX(x, t.a), dW(w, t.b), dB(b, t.c);
    for (int inOut = 0; inOut < 2; ++inOut)
      for (int withBias = 0; withBias < 2; ++withBias) {
        TypedBuffer dY(nans(size_t(M * N)), t.out);
        sprt_linear_typed(dX.get(), t.a, dW.get(), t.b,
                          withBias ? dB.get() : nullptr, t.c, dY.get(), t.out,
                          M, K, N, inOut);
        expectGemmClose(
            label("linear", t, inOut, withBias ? " bias" : " no bias"),
            dY.download(), t.out,
            linearRef(x, w, withBias ? &b : nullptr, M, K, N, inOut));
      }
  }
}

// dy, w, -, dx.
const Types kGradInputCases[] = {
    {kBf16, kBf16, kF32, kBf16}, {kF16, kF16, kF32, kF16},
    {kBf16, kBf16, kF32, kF32},  {kF32, kBf16, kF32, kF32},
    {kBf16, kF32, kF32, kBf16},  {kBf16, kBf16, kF32, kF16},
};

TEST_F(TypedLinear, GradInput) {
  const int64_t M = 150, K = 23, N = 31;
  const auto dy0 = randomFloats(size_t(M * N), 91),
             w0 = randomFloats(size_t(K * N), 92);
  for (const Types &t : kGradInputCases) {
    const auto dy = asStored(dy0, t.a), w = asStored(w0, t.b);
    TypedBuffer dDy(dy, t.a), dW(w, t.b);
    for (int inOut = 0; inOut < 2; ++inOut) {
      TypedBuffer dDx(nans(size_t(M * K)), t.out);
      sprt_linear_grad_input_typed(dDy.get(), t.a, dW.get(), t.b, dDx.get(),
                                   t.out, M, K, N, inOut);
      expectGemmClose(label("linear_grad_input", t, inOut, ""), dDx.download(),
                      t.out, gradInputRef(dy, w, M, K, N, inOut));
    }
  }
}

// x, dy, -, dw.
const Types kGradWeightCases[] = {
    {kBf16, kBf16, kF32, kBf16}, {kF16, kF16, kF32, kF16},
    {kBf16, kBf16, kF32, kF32},  {kF32, kBf16, kF32, kBf16},
    {kBf16, kF32, kF32, kF32},   {kF16, kF16, kF32, kBf16},
};

// With accumulate, in two calls over halves of the rows from a dw that is
// not zero (as stored in dw's dtype), as the fused backward gather does.
TEST_F(TypedLinear, GradWeight) {
  const int64_t M = 96, K = 27, N = 19;
  const auto x0 = randomFloats(size_t(M * K), 101),
             dy0 = randomFloats(size_t(M * N), 102),
             start0 = randomFloats(size_t(K * N), 103);
  for (const Types &t : kGradWeightCases) {
    const auto x = asStored(x0, t.a), dy = asStored(dy0, t.b),
               start = asStored(start0, t.out);
    TypedBuffer dX(x, t.a), dDy(dy, t.b);
    const size_t xBytes = t.a == kF32 ? 4 : 2, dyBytes = t.b == kF32 ? 4 : 2;
    for (int inOut = 0; inOut < 2; ++inOut) {
      TypedBuffer dDw(nans(size_t(K * N)), t.out);
      sprt_linear_grad_weight_typed(dX.get(), t.a, dDy.get(), t.b, dDw.get(),
                                    t.out, M, K, N, inOut, 0);
      expectGemmClose(label("linear_grad_weight", t, inOut, ""), dDw.download(),
                      t.out, gradWeightRef(x, dy, nullptr, M, K, N, inOut));

      TypedBuffer dAcc(start, t.out);
      const int64_t half = M / 2;
      sprt_linear_grad_weight_typed(dX.get(), t.a, dDy.get(), t.b, dAcc.get(),
                                    t.out, half, K, N, inOut, 1);
      // The second half accumulates onto a dw rounded once already: the
      // reference starts from it.
      const auto mid = dAcc.download();
      const auto *x2 = static_cast<const char *>(dX.get()) + half * K * xBytes;
      const auto *dy2 =
          static_cast<const char *>(dDy.get()) + half * N * dyBytes;
      sprt_linear_grad_weight_typed(x2, t.a, dy2, t.b, dAcc.get(), t.out,
                                    M - half, K, N, inOut, 1);
      const std::vector<float> xHi(x.begin() + half * K, x.end()),
          dyHi(dy.begin() + half * N, dy.end());
      expectGemmClose(label("linear_grad_weight acc", t, inOut, " first half"),
                      mid, t.out,
                      gradWeightRef(x, dy, &start, half, K, N, inOut));
      expectGemmClose(label("linear_grad_weight acc", t, inOut, " second half"),
                      dAcc.download(), t.out,
                      gradWeightRef(xHi, dyHi, &mid, M - half, K, N, inOut));
    }
  }
}

// Every dtype f32: the _f32 functions' bits.
TEST_F(TypedLinear, AllF32IsTheF32Functions) {
  const int64_t M = 37, K = 200, N = 29;
  const auto x = randomFloats(size_t(M * K), 111),
             w = randomFloats(size_t(K * N), 112),
             b = randomFloats(size_t(N), 113),
             dy = randomFloats(size_t(M * N), 114),
             start = randomFloats(size_t(K * N), 115);
  DeviceBuffer<float> dX(x), dW(w), dB(b), dDy(dy);
  for (int inOut = 0; inOut < 2; ++inOut) {
    const std::string io = " in_out=" + std::to_string(inOut);
    for (int withBias = 0; withBias < 2; ++withBias) {
      DeviceBuffer<float> want(nans(size_t(M * N))), got(nans(size_t(M * N)));
      const float *bias = withBias ? dB.get() : nullptr;
      sprt_linear_f32(dX, dW, bias, want, M, K, N, inOut);
      sprt_linear_typed(dX, kF32, dW, kF32, bias, kF32, got, kF32, M, K, N,
                        inOut);
      expectBitwiseEqual("linear f32" + io + (withBias ? " bias" : ""),
                         got.download(), want.download());
    }
    DeviceBuffer<float> wantDx(nans(size_t(M * K))), gotDx(nans(size_t(M * K)));
    sprt_linear_grad_input_f32(dDy, dW, wantDx, M, K, N, inOut);
    sprt_linear_grad_input_typed(dDy, kF32, dW, kF32, gotDx, kF32, M, K, N,
                                 inOut);
    expectBitwiseEqual("linear_grad_input f32" + io, gotDx.download(),
                       wantDx.download());
    for (int acc = 0; acc < 2; ++acc) {
      DeviceBuffer<float> wantDw(start), gotDw(start);
      (acc ? sprt_linear_grad_weight_acc_f32
           : sprt_linear_grad_weight_f32)(dX, dDy, wantDw, M, K, N, inOut);
      sprt_linear_grad_weight_typed(dX, kF32, dDy, kF32, gotDw, kF32, M, K, N,
                                    inOut, acc);
      expectBitwiseEqual("linear_grad_weight f32 acc=" + std::to_string(acc) +
                             io,
                         gotDw.download(), wantDw.download());
    }
  }
}

// M = 0 and K = 0 (and N = 0 for the input gradient), as the _f32 functions:
// y = the bias rounded to y's dtype or 0 when K = 0; dw = 0 for M = 0
// without accumulate and left as it is with; dx = 0 for N = 0; nothing
// written for an empty result.
TEST_F(TypedLinear, EmptyDimensions) {
  const int64_t M = 5, K = 4, N = 3;
  const auto b = randomFloats(size_t(N), 121),
             start = randomFloats(size_t(K * N), 122);
  for (int32_t yt : {kBf16, kF16, kF32}) {
    const std::string ty = std::string(" ") + nameOf(yt);
    TypedBuffer dB(b, kF32), dX(nans(1), kBf16), dW(nans(1), kBf16);
    // K = 0: y = the bias rounded once, or zeros.
    TypedBuffer dY(nans(size_t(M * N)), yt);
    sprt_linear_typed(dX.get(), kBf16, dW.get(), kBf16, dB.get(), kF32,
                      dY.get(), yt, M, 0, N, 0);
    const auto biasAsY = asStored(b, yt);
    std::vector<float> want(size_t(M * N));
    for (int64_t i = 0; i < M * N; ++i)
      want[i] = biasAsY[i % N];
    expectBitwiseEqual("linear K=0 bias" + ty, dY.download(), want);
    sprt_linear_typed(dX.get(), kBf16, dW.get(), kBf16, nullptr, -1, dY.get(),
                      yt, M, 0, N, 1);
    expectBitwiseEqual("linear K=0 no bias" + ty, dY.download(),
                       std::vector<float>(size_t(M * N), 0.0f));
    // M = 0: nothing to write.
    sprt_linear_typed(dX.get(), kBf16, dW.get(), kBf16, dB.get(), kF32,
                      dY.get(), yt, 0, K, N, 0);
    expectBitwiseEqual("linear M=0 leaves y" + ty, dY.download(),
                       std::vector<float>(size_t(M * N), 0.0f));

    // The weight gradient over no rows: 0, or dw as it was.
    for (int inOut = 0; inOut < 2; ++inOut) {
      const std::string io = ty + " in_out=" + std::to_string(inOut);
      TypedBuffer dDw(nans(size_t(K * N)), yt);
      sprt_linear_grad_weight_typed(dX.get(), kBf16, dW.get(), kBf16, dDw.get(),
                                    yt, 0, K, N, inOut, 0);
      expectBitwiseEqual("linear_grad_weight M=0" + io, dDw.download(),
                         std::vector<float>(size_t(K * N), 0.0f));
      TypedBuffer dAcc(start, yt);
      sprt_linear_grad_weight_typed(dX.get(), kBf16, dW.get(), kBf16,
                                    dAcc.get(), yt, 0, K, N, inOut, 1);
      expectBitwiseEqual("linear_grad_weight acc M=0" + io, dAcc.download(),
                         asStored(start, yt));
    }

    // The input gradient with no outputs to sum over: 0.
    TypedBuffer dDx(nans(size_t(M * K)), yt);
    sprt_linear_grad_input_typed(dX.get(), kBf16, dW.get(), kBf16, dDx.get(),
                                 yt, M, K, 0, 0);
    expectBitwiseEqual("linear_grad_input N=0" + ty, dDx.download(),
                       std::vector<float>(size_t(M * K), 0.0f));
  }
}

} // namespace
