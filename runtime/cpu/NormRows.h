//===- NormRows.h - one row of the norms and their backward -----*- C++ -*-===//
//
// The arithmetic of the CPU norm kernels, one row at a time, shared by the
// f32 kernels (Kernels.cpp, GradKernels.cpp), which pass their rows as
// they are, and the typed kernels (TypedNorms.cpp), which widen each row
// into f32 first: both compute the same bits. Statistics in double, two
// passes over the row (no cancellation when |mean| >> std); the weight and
// bias gradients are added to double accumulators the caller rounds once.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CPU_NORMROWS_H
#define SPRT_CPU_NORMROWS_H

#include <cmath>
#include <cstdint>

namespace sprt::cpu {

/// Sum / H: the forward divides, the backward multiplies by 1 / H (as
/// each always has; the two may differ in the last bit).
template <bool kByInverse> double meanOf(double sum, int64_t H) {
  if constexpr (kByInverse)
    return sum * (1.0 / double(H));
  else
    return sum / double(H);
}

/// The layer norm's mean and 1 / sqrt(biased variance + eps) of xr[H].
template <bool kByInverse = false>
void layerNormStats(const float *xr, int64_t H, double eps, double &mean,
                    double &rstd) {
  double sum = 0.0;
  for (int64_t i = 0; i < H; ++i)
    sum += xr[i];
  mean = meanOf<kByInverse>(sum, H);
  double sq = 0.0;
  for (int64_t i = 0; i < H; ++i) {
    double d = double(xr[i]) - mean;
    sq += d * d;
  }
  rstd = 1.0 / std::sqrt(meanOf<kByInverse>(sq, H) + eps);
}

/// yr = (xr - mean) * rstd * weight + bias; weight and bias may be null.
inline void layerNormRow(const float *xr, const float *weight,
                         const float *bias, float *yr, int64_t H, double eps) {
  double mean, rstd;
  layerNormStats(xr, H, eps, mean, rstd);
  for (int64_t i = 0; i < H; ++i) {
    double v = (double(xr[i]) - mean) * rstd;
    if (weight)
      v *= double(weight[i]);
    if (bias)
      v += double(bias[i]);
    yr[i] = float(v);
  }
}

/// 1 / sqrt(mean(x^2) + eps) of xr[H].
template <bool kByInverse = false>
double rmsNormScale(const float *xr, int64_t H, double eps) {
  double sq = 0.0;
  for (int64_t i = 0; i < H; ++i)
    sq += double(xr[i]) * double(xr[i]);
  return 1.0 / std::sqrt(meanOf<kByInverse>(sq, H) + eps);
}

inline void rmsNormRow(const float *xr, const float *weight, float *yr,
                       int64_t H, double eps) {
  const double r = rmsNormScale(xr, H, eps);
  for (int64_t i = 0; i < H; ++i) {
    double v = double(xr[i]) * r;
    if (weight)
      v *= double(weight[i]);
    yr[i] = float(v);
  }
}

// y = xhat * w + b with xhat = (x - mean) * rstd. With g = dy * w:
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
//   dw = sum_t dy * xhat, db = sum_t dy.
/// One row's dx, its dw / db terms added to dwAcc / dbAcc (each may be
/// null); xhat and g are H doubles of workspace.
inline void layerNormGradRow(const float *dyr, const float *xr,
                             const float *weight, float *dxr, double *dwAcc,
                             double *dbAcc, int64_t H, double eps, double *xhat,
                             double *g) {
  const double invH = 1.0 / double(H);
  double mean, rstd;
  layerNormStats<true>(xr, H, eps, mean, rstd);
  double sumG = 0.0, sumGX = 0.0;
  for (int64_t i = 0; i < H; ++i) {
    xhat[i] = (double(xr[i]) - mean) * rstd;
    g[i] = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    sumG += g[i];
    sumGX += g[i] * xhat[i];
  }
  const double meanG = sumG * invH, meanGX = sumGX * invH;
  for (int64_t i = 0; i < H; ++i)
    dxr[i] = float(rstd * (g[i] - meanG - xhat[i] * meanGX));
  if (dwAcc)
    for (int64_t i = 0; i < H; ++i)
      dwAcc[i] += double(dyr[i]) * xhat[i];
  if (dbAcc)
    for (int64_t i = 0; i < H; ++i)
      dbAcc[i] += double(dyr[i]);
}

// y = x * r * w with r = 1 / sqrt(mean(x^2) + eps). With g = dy * w:
//   dx = r * (g - x * r^2 * mean(g * x)), dw = sum_t dy * x * r.
inline void rmsNormGradRow(const float *dyr, const float *xr,
                           const float *weight, float *dxr, double *dwAcc,
                           int64_t H, double eps) {
  const double invH = 1.0 / double(H);
  const double r = rmsNormScale<true>(xr, H, eps);
  double sumGX = 0.0;
  for (int64_t i = 0; i < H; ++i) {
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    sumGX += g * double(xr[i]);
  }
  const double c = r * r * sumGX * invH;
  for (int64_t i = 0; i < H; ++i) {
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    dxr[i] = float(r * (g - double(xr[i]) * c));
  }
  if (dwAcc)
    for (int64_t i = 0; i < H; ++i)
      dwAcc[i] += double(dyr[i]) * double(xr[i]) * r;
}

} // namespace sprt::cpu

#endif // SPRT_CPU_NORMROWS_H
