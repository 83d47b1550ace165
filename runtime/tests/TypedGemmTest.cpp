//===- TypedGemmTest.cpp - the CPU GEMM on bf16 / f16 / f32 storage -------===//
//
// sprt::cpu::typedGemm's panels (the conformance suite checks the typed
// linear kernels against a reference on both backends):
//  - in one panel, the typed kernels give the bits of the f32 kernels on the
//    operands widened by sprt_convert, rounded once by sprt_convert: the
//    same cblas_sgemm call on the same numbers;
//  - split into panels of a few elements along M and N (every layout, every
//    dtype of operands and result, with a bias and accumulating), the result
//    is within f32 rounding of the one-panel result: each element is still
//    one dot product of length K, which OpenBLAS may block differently. The
//    bound is 1e-5 of sum_k |a_k b_k| (the conformance suite's GEMM bound)
//    before the result's own rounding, plus one ulp of a 16-bit result (a
//    value near a rounding boundary may round either way).
//
//===----------------------------------------------------------------------===//

#include "../cpu/TypedGemm.h"
#include "KernelTestUtil.h"
#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using sprt_test::randomFloats;

namespace {

const int32_t kDtypes[] = {SPRT_DTYPE_F32, SPRT_DTYPE_BF16, SPRT_DTYPE_F16};

/// A buffer holding `v` rounded to `dtype`.
struct Typed {
  int32_t dtype;
  std::vector<char> bytes;
  Typed(const std::vector<float> &v, int32_t dtype) : dtype(dtype) {
    bytes.resize(v.size() * (dtype == SPRT_DTYPE_F32 ? 4 : 2));
    sprt_convert(v.data(), SPRT_DTYPE_F32, bytes.data(), dtype,
                 int64_t(v.size()));
  }
  int64_t size() const {
    return int64_t(bytes.size()) / (dtype == SPRT_DTYPE_F32 ? 4 : 2);
  }
  std::vector<float> widened() const {
    std::vector<float> out(static_cast<size_t>(size()));
    sprt_convert(bytes.data(), dtype, out.data(), SPRT_DTYPE_F32, size());
    return out;
  }
};

std::string name(int32_t d) {
  return d == SPRT_DTYPE_F32 ? "f32" : d == SPRT_DTYPE_BF16 ? "bf16" : "f16";
}

TEST(TypedGemm, OnePanelIsTheF32KernelOnWidenedOperandsRoundedOnce) {
  const int64_t M = 19, K = 33, N = 27;
  auto x = randomFloats(size_t(M * K), 1), w = randomFloats(size_t(N * K), 2),
       bias = randomFloats(size_t(N), 3), dy = randomFloats(size_t(M * N), 4);
  for (int32_t in : kDtypes)
    for (int32_t out : kDtypes)
      for (int inOut = 0; inOut < 2; ++inOut) {
        std::string what =
            name(in) + "->" + name(out) + " in_out=" + std::to_string(inOut);
        Typed tx(x, in), tw(w, in), tb(bias, in), tdy(dy, in);
        auto wx = tx.widened(), ww = tw.widened(), wb = tb.widened(),
             wdy = tdy.widened();
        // Forward with a bias.
        std::vector<float> y32(size_t(M * N));
        sprt_linear_f32(wx.data(), ww.data(), wb.data(), y32.data(), M, K, N,
                        inOut);
        Typed want(y32, out), got(std::vector<float>(size_t(M * N)), out);
        sprt_linear_typed(tx.bytes.data(), in, tw.bytes.data(), in,
                          tb.bytes.data(), in, got.bytes.data(), out, M, K, N,
                          inOut);
        EXPECT_EQ(got.bytes, want.bytes) << "linear " << what;
        // Input gradient.
        std::vector<float> dx32(size_t(M * K));
        sprt_linear_grad_input_f32(wdy.data(), ww.data(), dx32.data(), M, K, N,
                                   inOut);
        Typed wantDx(dx32, out), gotDx(std::vector<float>(size_t(M * K)), out);
        sprt_linear_grad_input_typed(tdy.bytes.data(), in, tw.bytes.data(), in,
                                     gotDx.bytes.data(), out, M, K, N, inOut);
        EXPECT_EQ(gotDx.bytes, wantDx.bytes) << "grad_input " << what;
        // Weight gradient, then accumulated a second time.
        std::vector<float> dw32(size_t(N * K));
        sprt_linear_grad_weight_f32(wx.data(), wdy.data(), dw32.data(), M, K, N,
                                    inOut);
        Typed wantDw(dw32, out), gotDw(std::vector<float>(size_t(N * K)), out);
        sprt_linear_grad_weight_typed(tx.bytes.data(), in, tdy.bytes.data(), in,
                                      gotDw.bytes.data(), out, M, K, N, inOut,
                                      0);
        EXPECT_EQ(gotDw.bytes, wantDw.bytes) << "grad_weight " << what;
        auto acc32 = wantDw.widened();
        sprt_linear_grad_weight_acc_f32(wx.data(), wdy.data(), acc32.data(), M,
                                        K, N, inOut);
        Typed wantAcc(acc32, out);
        sprt_linear_grad_weight_typed(tx.bytes.data(), in, tdy.bytes.data(), in,
                                      gotDw.bytes.data(), out, M, K, N, inOut,
                                      1);
        EXPECT_EQ(gotDw.bytes, wantAcc.bytes) << "grad_weight acc " << what;
      }
}

/// |got - want| <= 1e-5 * mag + one ulp of `dtype` at |want|.
void expectWithinPanelRounding(const std::string &what, const Typed &got,
                               const Typed &want,
                               const std::vector<double> &mag) {
  auto g = got.widened(), w = want.widened();
  double ulp = got.dtype == SPRT_DTYPE_BF16  ? std::ldexp(1.0, -7)
               : got.dtype == SPRT_DTYPE_F16 ? std::ldexp(1.0, -10)
                                             : 0.0;
  int bad = 0;
  for (size_t i = 0; i < g.size(); ++i) {
    double bound = 1e-5 * mag[i] + ulp * std::fabs(double(w[i]));
    if (std::fabs(double(g[i]) - double(w[i])) > bound && ++bad <= 3)
      ADD_FAILURE() << what << " element " << i << ": " << g[i] << " vs "
                    << w[i] << " (bound " << bound << ")";
  }
}

TEST(TypedGemm, PanelsAgreeWithOnePanelInEveryLayoutAndDtype) {
  const int64_t M = 23, N = 17, K = 29;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb)
      for (int32_t da : kDtypes)
        for (int32_t db : kDtypes)
          for (int32_t dc : kDtypes)
            for (int mode = 0; mode < 3; ++mode) { // 0: =, 1: +bias, 2: +=C
              uint32_t seed = uint32_t(ta * 1000 + tb * 100 + da * 27 + db * 9 +
                                       dc * 3 + mode);
              auto a = randomFloats(size_t(M * K), seed),
                   b = randomFloats(size_t(K * N), seed + 7),
                   bias = randomFloats(size_t(N), seed + 11),
                   c0 = randomFloats(size_t(M * N), seed + 13);
              Typed A(a, da), B(b, db), Bias(bias, db);
              sprt::cpu::TypedMatrix mA{A.bytes.data(), da, ta ? M : K,
                                        bool(ta)},
                  mB{B.bytes.data(), db, tb ? K : N, bool(tb)};
              const void *biasPtr = mode == 1 ? Bias.bytes.data() : nullptr;
              float beta = mode == 2 ? 1.0f : 0.0f;
              Typed whole(c0, dc), panels(c0, dc);
              sprt::cpu::typedGemm(M, N, K, mA, mB, biasPtr, db, beta,
                                   whole.bytes.data(), dc, N);
              // Panels of 40 elements: 1 row or column of K at a time for a
              // widened operand, a few rows of the result.
              sprt::cpu::typedGemm(M, N, K, mA, mB, biasPtr, db, beta,
                                   panels.bytes.data(), dc, N, 40);
              auto wa = A.widened(), wb = B.widened(), wc = whole.widened();
              std::vector<double> mag(size_t(M * N), 0.0);
              for (int64_t m = 0; m < M; ++m)
                for (int64_t n = 0; n < N; ++n)
                  for (int64_t k = 0; k < K; ++k)
                    mag[m * N + n] +=
                        std::fabs(double(ta ? wa[k * M + m] : wa[m * K + k]) *
                                  double(tb ? wb[n * K + k] : wb[k * N + n]));
              expectWithinPanelRounding(
                  "ta=" + std::to_string(ta) + " tb=" + std::to_string(tb) +
                      " " + name(da) + "x" + name(db) + "->" + name(dc) +
                      " mode " + std::to_string(mode),
                  panels, whole, mag);
            }
}

TEST(TypedGemm, WidenedPanelOfBServesEveryPanelOfM) {
  // K in one piece (256 rows of K fit the budget) and M in three panels:
  // the widened panels of B are made once per panel of N and read by
  // every panel of M.
  const int64_t M = 600, N = 300, K = 29, P = 8192;
  auto a = randomFloats(size_t(M * K), 21), b = randomFloats(size_t(K * N), 22);
  for (int tb = 0; tb < 2; ++tb) {
    Typed A(a, SPRT_DTYPE_BF16), B(b, SPRT_DTYPE_BF16);
    Typed whole(std::vector<float>(size_t(M * N)), SPRT_DTYPE_F32),
        panels(std::vector<float>(size_t(M * N)), SPRT_DTYPE_F32);
    sprt::cpu::TypedMatrix mA{A.bytes.data(), SPRT_DTYPE_BF16, K, false},
        mB{B.bytes.data(), SPRT_DTYPE_BF16, tb ? K : N, bool(tb)};
    sprt::cpu::typedGemm(M, N, K, mA, mB, nullptr, 0, 0.0f, whole.bytes.data(),
                         SPRT_DTYPE_F32, N);
    sprt::cpu::typedGemm(M, N, K, mA, mB, nullptr, 0, 0.0f, panels.bytes.data(),
                         SPRT_DTYPE_F32, N, P);
    auto wa = A.widened(), wb = B.widened();
    std::vector<double> mag(size_t(M * N), 0.0);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        for (int64_t k = 0; k < K; ++k)
          mag[m * N + n] +=
              std::fabs(double(wa[m * K + k]) *
                        double(tb ? wb[n * K + k] : wb[k * N + n]));
    expectWithinPanelRounding("tb=" + std::to_string(tb), panels, whole, mag);
  }
}

TEST(TypedGemm, PanelledStridedResultLeavesTheRestOfTheRowsAlone) {
  // C is a [M, N] block of a wider [M, 2N] matrix (ldc = 2N): the panels
  // write that block and nothing else.
  const int64_t M = 9, N = 5, K = 7;
  auto a = randomFloats(size_t(M * K), 5), b = randomFloats(size_t(K * N), 6);
  Typed A(a, SPRT_DTYPE_BF16), B(b, SPRT_DTYPE_BF16);
  std::vector<float> sentinel(size_t(M * 2 * N), 42.0f);
  Typed C(sentinel, SPRT_DTYPE_BF16);
  sprt::cpu::typedGemm(M, N, K, {A.bytes.data(), SPRT_DTYPE_BF16, K, false},
                       {B.bytes.data(), SPRT_DTYPE_BF16, N, false}, nullptr,
                       SPRT_DTYPE_F32, 0.0f, C.bytes.data(), SPRT_DTYPE_BF16,
                       2 * N, 8);
  auto c = C.widened();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = N; n < 2 * N; ++n)
      EXPECT_EQ(c[m * 2 * N + n], 42.0f) << m << "," << n;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      EXPECT_NE(c[m * 2 * N + n], 42.0f) << m << "," << n;
}

TEST(TypedGemm, EmptyInnerDimensionGivesTheBiasOrZeros) {
  const int64_t M = 3, N = 4;
  auto bias = randomFloats(size_t(N), 9);
  Typed Bias(bias, SPRT_DTYPE_F32),
      y(std::vector<float>(M * N, 7.0f), SPRT_DTYPE_BF16);
  sprt_linear_typed(nullptr, SPRT_DTYPE_BF16, nullptr, SPRT_DTYPE_BF16,
                    Bias.bytes.data(), SPRT_DTYPE_F32, y.bytes.data(),
                    SPRT_DTYPE_BF16, M, 0, N, 0);
  auto got = y.widened();
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      EXPECT_EQ(got[m * N + n],
                sprt::dtype::bf16ToF32(sprt::dtype::f32ToBf16(bias[n])));
  sprt_linear_typed(nullptr, SPRT_DTYPE_BF16, nullptr, SPRT_DTYPE_BF16, nullptr,
                    0, y.bytes.data(), SPRT_DTYPE_BF16, M, 0, N, 0);
  for (float v : y.widened())
    EXPECT_EQ(v, 0.0f);
}

} // namespace
