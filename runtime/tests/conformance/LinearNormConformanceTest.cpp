//===- LinearNormConformanceTest.cpp - GEMMs and normalisations -----------===//
//
// GEMM bound: 1e-5 of sum_k |x_k w_k| per output (fp32 accumulation over
// K <= 200 terms gives <= ~K u ~ 1.2e-5 in the worst order, ~sqrt(K) u in
// practice; cuBLAS and OpenBLAS sum in different orders). Norm bound: 2e-6
// relative + 1e-6 absolute on outputs (statistics in double, one float
// rounding of a product of O(1) factors); weight gradients 1e-6 of the sum of
// magnitudes (column sums over tokens).
//
//===----------------------------------------------------------------------===//

#include "Conformance.h"
#include "NormReference.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

using namespace sprt_conformance;
using sprt_test::expectClose;
using sprt_test::randomFloats;

namespace {

using LinearNorm = DeviceTest;

// Row-major a[R, C] element.
struct Mat {
  const std::vector<float> &v;
  int64_t cols;
  double operator()(int64_t r, int64_t c) const { return v[r * cols + c]; }
};

TEST_F(LinearNorm, LinearBothLayoutsWithAndWithoutBias) {
  const int64_t M = 37, K = 200, N = 29;
  auto x = randomFloats(size_t(M * K), 41), bias = randomFloats(size_t(N), 42);
  for (int inOut = 0; inOut < 2; ++inOut) {
    auto w = randomFloats(size_t(K * N), 43 + inOut);
    // W [N, K] (w[n, k]) or [K, N] (w[k, n]).
    auto W = [&](int64_t k, int64_t n) {
      return inOut ? double(w[k * N + n]) : double(w[n * K + k]);
    };
    for (int withBias = 0; withBias < 2; ++withBias) {
      std::vector<double> ref(size_t(M * N)), mag(size_t(M * N));
      for (int64_t m = 0; m < M; ++m)
        for (int64_t n = 0; n < N; ++n) {
          double s = withBias ? bias[n] : 0.0, a = std::fabs(s);
          for (int64_t k = 0; k < K; ++k) {
            s += Mat{x, K}(m, k) * W(k, n);
            a += std::fabs(Mat{x, K}(m, k) * W(k, n));
          }
          ref[m * N + n] = s;
          mag[m * N + n] = a;
        }
      DeviceBuffer<float> dX(x), dW(w), dB(bias), dY(nans(size_t(M * N)));
      sprt_linear_f32(dX, dW, withBias ? dB.get() : nullptr, dY, M, K, N,
                      inOut);
      expectClose("linear in_out=" + std::to_string(inOut) +
                      " bias=" + std::to_string(withBias),
                  dY.download(), ref, 1e-5, 0.0, &mag);
    }
  }
}

TEST_F(LinearNorm, LinearGradInputAndWeight) {
  const int64_t M = 150, K = 23, N = 31;
  auto x = randomFloats(size_t(M * K), 51),
       dy = randomFloats(size_t(M * N), 52);
  for (int inOut = 0; inOut < 2; ++inOut) {
    auto w = randomFloats(size_t(K * N), 53);
    auto W = [&](int64_t k, int64_t n) {
      return inOut ? double(w[k * N + n]) : double(w[n * K + k]);
    };
    std::vector<double> dx(size_t(M * K), 0.0), dxMag(size_t(M * K), 0.0);
    for (int64_t m = 0; m < M; ++m)
      for (int64_t k = 0; k < K; ++k)
        for (int64_t n = 0; n < N; ++n) {
          dx[m * K + k] += Mat{dy, N}(m, n) * W(k, n);
          dxMag[m * K + k] += std::fabs(Mat{dy, N}(m, n) * W(k, n));
        }
    // dw has W's layout: [N, K] or [K, N].
    std::vector<double> dw(size_t(K * N), 0.0), dwMag(size_t(K * N), 0.0);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) {
        const int64_t idx = inOut ? k * N + n : n * K + k;
        for (int64_t m = 0; m < M; ++m) {
          dw[idx] += Mat{x, K}(m, k) * Mat{dy, N}(m, n);
          dwMag[idx] += std::fabs(Mat{x, K}(m, k) * Mat{dy, N}(m, n));
        }
      }
    DeviceBuffer<float> dX(x), dW(w), dDy(dy), dDx(nans(dx.size())),
        dDw(nans(dw.size()));
    sprt_linear_grad_input_f32(dDy, dW, dDx, M, K, N, inOut);
    expectClose("linear_grad_input in_out=" + std::to_string(inOut),
                dDx.download(), dx, 1e-5, 0.0, &dxMag);
    sprt_linear_grad_weight_f32(dX, dDy, dDw, M, K, N, inOut);
    expectClose("linear_grad_weight in_out=" + std::to_string(inOut),
                dDw.download(), dw, 1e-5, 0.0, &dwMag);
  }
}

// dw += dy^T x (x^T dy for in_out), starting from a dw that is not zero, in
// two calls over halves of the rows: what the fused backward gather does
// chunk by chunk. Reference: the start plus both products, in double.
TEST_F(LinearNorm, LinearGradWeightAccumulates) {
  const int64_t M = 96, K = 27, N = 19;
  auto x = randomFloats(size_t(M * K), 61),
       dy = randomFloats(size_t(M * N), 62),
       start = randomFloats(size_t(K * N), 63);
  for (int inOut = 0; inOut < 2; ++inOut) {
    std::vector<double> dw(start.begin(), start.end()), dwMag(dw.size());
    for (size_t i = 0; i < dw.size(); ++i)
      dwMag[i] = std::fabs(dw[i]);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t n = 0; n < N; ++n) {
        const int64_t idx = inOut ? k * N + n : n * K + k;
        for (int64_t m = 0; m < M; ++m) {
          dw[idx] += Mat{x, K}(m, k) * Mat{dy, N}(m, n);
          dwMag[idx] += std::fabs(Mat{x, K}(m, k) * Mat{dy, N}(m, n));
        }
      }
    DeviceBuffer<float> dX(x), dDy(dy), dDw(start);
    const int64_t half = M / 2;
    sprt_linear_grad_weight_acc_f32(dX, dDy, dDw, half, K, N, inOut);
    sprt_linear_grad_weight_acc_f32(dX.get() + half * K, dDy.get() + half * N,
                                    dDw, M - half, K, N, inOut);
    expectClose("linear_grad_weight_acc in_out=" + std::to_string(inOut),
                dDw.download(), dw, 1e-5, 0.0, &dwMag);
    // No rows: dw is left as it is.
    sprt_linear_grad_weight_acc_f32(dX, dDy, dDw, 0, K, N, inOut);
    expectClose("linear_grad_weight_acc M=0 in_out=" + std::to_string(inOut),
                dDw.download(), dw, 1e-5, 0.0, &dwMag);
  }
}

TEST_F(LinearNorm, LayerNormForwardAndGrad) {
  const int64_t T = 40, H = 300;
  const double eps = 1e-5;
  // An offset mean tests the two-pass variance.
  auto x = randomFloats(size_t(T * H), 61, 2.0f, 4.0f);
  auto w = randomFloats(size_t(H), 62), b = randomFloats(size_t(H), 63),
       dy = randomFloats(size_t(T * H), 64);
  NormRef r = normRef(false, x, w, b, dy, T, H, eps);
  DeviceBuffer<float> dX(x), dW(w), dB(b), dDy(dy), dY(nans(r.y.size())),
      dDx(nans(r.dx.size())), dDw(nans(static_cast<size_t>(H))),
      dDb(nans(static_cast<size_t>(H)));
  sprt_layer_norm_f32(dX, dW, dB, dY, T, H, eps);
  expectClose("layer_norm", dY.download(), r.y, 2e-6, 1e-6);
  sprt_layer_norm_grad_f32(dDy, dX, dW, dDx, dDw, dDb, T, H, eps);
  expectClose("layer_norm_grad dx", dDx.download(), r.dx, 2e-6, 1e-5);
  expectClose("layer_norm_grad dw", dDw.download(), r.dw, 1e-6, 0.0, &r.dwMag);
  expectClose("layer_norm_grad db", dDb.download(), r.db, 1e-6, 0.0, &r.dbMag);

  // No weight and bias: weight 1, bias 0; dw, db not wanted.
  std::vector<float> ones(size_t(H), 1.0f), zeros(size_t(H), 0.0f);
  NormRef r1 = normRef(false, x, ones, zeros, dy, T, H, eps);
  sprt_layer_norm_f32(dX, nullptr, nullptr, dY, T, H, eps);
  expectClose("layer_norm no affine", dY.download(), r1.y, 2e-6, 1e-6);
  sprt_layer_norm_grad_f32(dDy, dX, nullptr, dDx, nullptr, nullptr, T, H, eps);
  expectClose("layer_norm_grad no affine", dDx.download(), r1.dx, 2e-6, 1e-5);
}

TEST_F(LinearNorm, RmsNormForwardAndGrad) {
  const int64_t T = 33, H = 520;
  const double eps = 1e-6;
  auto x = randomFloats(size_t(T * H), 71), w = randomFloats(size_t(H), 72),
       dy = randomFloats(size_t(T * H), 73);
  NormRef r = normRef(true, x, w, {}, dy, T, H, eps);
  DeviceBuffer<float> dX(x), dW(w), dDy(dy), dY(nans(r.y.size())),
      dDx(nans(r.dx.size())), dDw(nans(static_cast<size_t>(H)));
  sprt_rms_norm_f32(dX, dW, dY, T, H, eps);
  expectClose("rms_norm", dY.download(), r.y, 2e-6, 1e-6);
  sprt_rms_norm_grad_f32(dDy, dX, dW, dDx, dDw, T, H, eps);
  expectClose("rms_norm_grad dx", dDx.download(), r.dx, 2e-6, 1e-5);
  expectClose("rms_norm_grad dw", dDw.download(), r.dw, 1e-6, 0.0, &r.dwMag);
  sprt_rms_norm_grad_f32(dDy, dX, dW, dDx, nullptr, T, H, eps);
  expectClose("rms_norm_grad dx (no dw)", dDx.download(), r.dx, 2e-6, 1e-5);
}

} // namespace
