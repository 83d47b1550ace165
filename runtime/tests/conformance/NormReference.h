//===- NormReference.h - layer / RMS norm references in double --*- C++ -*-===//
//
// The forward and backward of both normalisations over rows of x [T, H], in
// double, with the sums of magnitudes the weight and bias gradients'
// tolerances scale with. Shared by LinearNormConformanceTest.cpp and
// NormShapesConformanceTest.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_TESTS_NORMREFERENCE_H
#define SPRT_TESTS_NORMREFERENCE_H

#include <cmath>
#include <cstdint>
#include <vector>

namespace sprt_conformance {

struct NormRef {
  std::vector<double> y, dx, dw, db, dwMag, dbMag;
};

// Layer norm (rms = false) or RMS norm over rows of x [T, H].
inline NormRef normRef(bool rms, const std::vector<float> &x,
                       const std::vector<float> &w, const std::vector<float> &b,
                       const std::vector<float> &dy, int64_t T, int64_t H,
                       double eps) {
  NormRef r;
  r.y.assign(size_t(T * H), 0.0);
  r.dx = r.y;
  r.dw.assign(size_t(H), 0.0);
  r.db = r.dwMag = r.dbMag = r.dw;
  for (int64_t t = 0; t < T; ++t) {
    const float *xr = &x[t * H];
    double mean = 0.0;
    if (!rms) {
      for (int64_t i = 0; i < H; ++i)
        mean += xr[i];
      mean /= double(H);
    }
    double var = 0.0;
    for (int64_t i = 0; i < H; ++i)
      var += (xr[i] - mean) * (xr[i] - mean);
    const double rstd = 1.0 / std::sqrt(var / double(H) + eps);
    // dx = rstd (g - mean(g) - xhat mean(g xhat)) (layer), or
    // rstd (g - xhat mean(g xhat)) (rms, where xhat = x rstd), g = dy w.
    double mg = 0.0, mgx = 0.0;
    for (int64_t i = 0; i < H; ++i) {
      const double xh = (xr[i] - mean) * rstd, g = double(dy[t * H + i]) * w[i];
      r.y[t * H + i] = xh * w[i] + (rms ? 0.0 : double(b[i]));
      mg += g / double(H);
      mgx += g * xh / double(H);
      r.dw[i] += dy[t * H + i] * xh;
      r.db[i] += dy[t * H + i];
      r.dwMag[i] += std::fabs(dy[t * H + i] * xh);
      r.dbMag[i] += std::fabs(dy[t * H + i]);
    }
    for (int64_t i = 0; i < H; ++i) {
      const double xh = (xr[i] - mean) * rstd, g = double(dy[t * H + i]) * w[i];
      r.dx[t * H + i] = rstd * (g - (rms ? 0.0 : mg) - xh * mgx);
    }
  }
  return r;
}

} // namespace sprt_conformance

#endif // SPRT_TESTS_NORMREFERENCE_H
