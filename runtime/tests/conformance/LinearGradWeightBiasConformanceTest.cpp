//===- LinearGradWeightBiasConformanceTest.cpp - dW and db in one call ----===//
//
// sprt_linear_grad_weight_bias_typed (tfm.linear_grad_weight_bias) against
// double references: dw = dy^T x ([N, K]; x^T dy, [K, N], for in_out) and
// db = the column sums of dy, in f32, bf16 and f16, both weight layouts, db
// of dy's type or f32, dw and db both f32 (a master weight's gradients,
// written unrounded), at widths cuBLASLt's bias-gradient epilogues take
// (64, 96) and ones they may not (20, 40), with no rows (dw and db zero).
//
// Tolerances. dw: TypedLinearConformanceTest's GEMM bound, u |ref| + (1 +
// u) 1e-5 sum|x dy|, u the unit roundoff of dw's type (0 for f32). db: its
// f32 sum of M terms, 1e-6 sum|dy| + u |ref|. On the CPU backend the call
// must also be sprt_linear_grad_weight_typed then sprt_bias_grad_typed (the
// _f32 kernels where the tensors are f32) bit for bit: the program's
// results do not change with tfm-fuse-epilogues.
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "sprt/grad_kernels.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

using namespace sprt_conformance;
using sprt_test::expectBitwiseEqual;
using sprt_test::expectClose;
using sprt_test::randomFloats;

namespace {

using LinearGradWeightBias = DeviceTest;

struct Case {
  int64_t M, K, N;
};

void check(const Case &c, int32_t t, bool inOut, int32_t dwType,
           int32_t dbType) {
  const int64_t M = c.M, K = c.K, N = c.N;
  const std::string what =
      std::string("linear_grad_weight_bias ") + nameOf(t) +
      " M=" + std::to_string(M) + " K=" + std::to_string(K) +
      " N=" + std::to_string(N) + (inOut ? " in_out" : " out_in") + " dw " +
      nameOf(dwType) + " db " + nameOf(dbType);
  // At least one row allocated (no zero-byte buffers): M = 0 reads none.
  const int64_t rows = std::max<int64_t>(M, 1);
  const auto x = asStored(randomFloats(size_t(rows * K), 31, -1.0f, 1.0f), t),
             dy = asStored(randomFloats(size_t(rows * N), 32, -1.0f, 1.0f), t);
  const double u = unitRoundoff(dwType);
  std::vector<double> dw(size_t(K * N)), dwTol(dw.size());
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0.0, mag = 0.0;
      for (int64_t m = 0; m < M; ++m) {
        const double p = double(x[m * K + k]) * dy[m * N + n];
        s += p;
        mag += std::fabs(p);
      }
      const size_t i = size_t(inOut ? k * N + n : n * K + k);
      dw[i] = s;
      dwTol[i] = u * std::fabs(s) + (1.0 + u) * 1e-5 * mag;
    }
  std::vector<double> db(static_cast<size_t>(N)), dbTol(db.size());
  for (int64_t n = 0; n < N; ++n) {
    double s = 0.0, mag = 0.0;
    for (int64_t m = 0; m < M; ++m) {
      s += dy[m * N + n];
      mag += std::fabs(dy[m * N + n]);
    }
    db[n] = s;
    dbTol[n] = unitRoundoff(dbType) * std::fabs(s) + 1e-6 * mag;
  }
  TypedBuffer dX(x, t), dDy(dy, t), dDw(nans(dw.size()), dwType),
      dDb(nans(db.size()), dbType);
  sprt_linear_grad_weight_bias_typed(dX.get(), t, dDy.get(), t, dDw.get(),
                                     dwType, dDb.get(), dbType, M, K, N, inOut);
  const std::vector<float> gotDw = dDw.download(), gotDb = dDb.download();
  expectClose(what + " dw", gotDw, dw, 1.0, 0.0, &dwTol);
  expectClose(what + " db", gotDb, db, 1.0, 0.0, &dbTol);
  if (!onCpuBackend())
    return;
  // The two ops' calls, as the unfused program makes them.
  TypedBuffer wantDw(nans(dw.size()), dwType), wantDb(nans(db.size()), dbType);
  if (t == kF32)
    sprt_linear_grad_weight_f32(static_cast<const float *>(dX.get()),
                                static_cast<const float *>(dDy.get()),
                                static_cast<float *>(wantDw.get()), M, K, N,
                                inOut);
  else
    sprt_linear_grad_weight_typed(dX.get(), t, dDy.get(), t, wantDw.get(),
                                  dwType, M, K, N, inOut, 0);
  if (t == kF32 && dbType == kF32)
    sprt_bias_grad_f32(static_cast<const float *>(dDy.get()),
                       static_cast<float *>(wantDb.get()), M, N);
  else
    sprt_bias_grad_typed(dDy.get(), t, wantDb.get(), dbType, M, N);
  expectBitwiseEqual(what + " dw as the ops", gotDw, wantDw.download());
  expectBitwiseEqual(what + " db as the ops", gotDb, wantDb.download());
}

TEST_F(LinearGradWeightBias, IsTheWeightAndBiasGradients) {
  for (const Case &c :
       {Case{37, 96, 64}, Case{256, 64, 96}, Case{5, 20, 40}, Case{0, 8, 16}})
    for (int32_t t : {kBf16, kF16, kF32})
      for (bool inOut : {false, true})
        for (auto [dwType, dbType] :
             {std::pair<int32_t, int32_t>{t, t}, {t, kF32}, {kF32, kF32}})
          check(c, t, inOut, dwType, dbType);
}

} // namespace
