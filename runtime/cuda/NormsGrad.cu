//===- NormsGrad.cu - CUDA backward of layer and RMS normalisation --------===//
//
// A row kernel (one block per token) recomputes the forward's statistics,
// writes dx and keeps the row's statistics in a scratch buffer; a column
// kernel (one thread per feature, tokens in order, double sums) then forms
// the weight and bias gradients from dy, x and those statistics. Formulas as
// runtime/cpu/GradKernels.cpp: with g = dy * w,
//   layer norm: dx = rstd (g - mean(g) - xhat mean(g xhat)),
//               dw = sum_t dy xhat, db = sum_t dy;
//   RMS norm:   dx = r (g - x r^2 mean(g x)), dw = sum_t dy x r.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Norms.cuh"
#include "sprt/grad_kernels.h"

using namespace sprt::cuda;

namespace {

__global__ void
layerNormGradRows(const float *__restrict__ dy, const float *__restrict__ x,
                  const float *__restrict__ weight, float *__restrict__ dx,
                  double2 *__restrict__ stats, int64_t H, double eps) {
  __shared__ double red[32];
  const int64_t t = blockIdx.x;
  const float *xr = x + t * H, *dyr = dy + t * H;
  double mean, rstd;
  layerNormStats(xr, H, eps, red, mean, rstd);
  double sumG = 0.0, sumGX = 0.0;
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double xhat = (double(xr[i]) - mean) * rstd;
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    sumG += g;
    sumGX += g * xhat;
  }
  const double meanG = blockSum(sumG, red) / double(H);
  const double meanGX = blockSum(sumGX, red) / double(H);
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double xhat = (double(xr[i]) - mean) * rstd;
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    dx[t * H + i] = float(rstd * (g - meanG - xhat * meanGX));
  }
  if (threadIdx.x == 0 && stats)
    stats[t] = make_double2(mean, rstd);
}

__global__ void
layerNormGradColumns(const float *__restrict__ dy, const float *__restrict__ x,
                     const double2 *__restrict__ stats, float *__restrict__ dw,
                     float *__restrict__ db, int64_t T, int64_t H) {
  SPRT_FOR_EACH(i, H) {
    double accW = 0.0, accB = 0.0;
    for (int64_t t = 0; t < T; ++t) {
      const double d = double(dy[t * H + i]);
      const double2 st = stats[t];
      accW += d * ((double(x[t * H + i]) - st.x) * st.y);
      accB += d;
    }
    if (dw)
      dw[i] = float(accW);
    if (db)
      db[i] = float(accB);
  }
}

__global__ void rmsNormGradRows(const float *__restrict__ dy,
                                const float *__restrict__ x,
                                const float *__restrict__ weight,
                                float *__restrict__ dx, double *__restrict__ rs,
                                int64_t H, double eps) {
  __shared__ double red[32];
  const int64_t t = blockIdx.x;
  const float *xr = x + t * H, *dyr = dy + t * H;
  const double r = rmsNormScale(xr, H, eps, red);
  double sumGX = 0.0;
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    sumGX += g * double(xr[i]);
  }
  const double c = r * r * blockSum(sumGX, red) / double(H);
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    dx[t * H + i] = float(r * (g - double(xr[i]) * c));
  }
  if (threadIdx.x == 0 && rs)
    rs[t] = r;
}

__global__ void rmsNormGradColumns(const float *__restrict__ dy,
                                   const float *__restrict__ x,
                                   const double *__restrict__ rs,
                                   float *__restrict__ dw, int64_t T,
                                   int64_t H) {
  SPRT_FOR_EACH(i, H) {
    double acc = 0.0;
    for (int64_t t = 0; t < T; ++t)
      acc += double(dy[t * H + i]) * double(x[t * H + i]) * rs[t];
    dw[i] = float(acc);
  }
}

} // namespace

extern "C" {

void sprt_layer_norm_grad_f32(const float *dy, const float *x,
                              const float *weight, float *dx, float *dw,
                              float *db, int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  const bool wantColumns = dw || db;
  if (T <= 0) {
    if (dw)
      SPRT_CUDA_CHECK(
          cudaMemsetAsync(dw, 0, size_t(H) * sizeof(float), stream()));
    if (db)
      SPRT_CUDA_CHECK(
          cudaMemsetAsync(db, 0, size_t(H) * sizeof(float), stream()));
    return;
  }
  checkRows(T, "sprt_layer_norm_grad_f32");
  double2 *stats =
      wantColumns ? static_cast<double2 *>(
                        scratch(Scratch::RowStats, size_t(T) * sizeof(double2)))
                  : nullptr;
  layerNormGradRows<<<unsigned(T), kThreads, 0, stream()>>>(dy, x, weight, dx,
                                                            stats, H, eps);
  SPRT_CUDA_CHECK_LAUNCH("layerNormGradRows");
  if (wantColumns)
    SPRT_LAUNCH(layerNormGradColumns, H, dy, x, stats, dw, db, T, H);
}

void sprt_rms_norm_grad_f32(const float *dy, const float *x,
                            const float *weight, float *dx, float *dw,
                            int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  if (T <= 0) {
    if (dw)
      SPRT_CUDA_CHECK(
          cudaMemsetAsync(dw, 0, size_t(H) * sizeof(float), stream()));
    return;
  }
  checkRows(T, "sprt_rms_norm_grad_f32");
  double *rs = dw ? static_cast<double *>(
                        scratch(Scratch::RowStats, size_t(T) * sizeof(double)))
                  : nullptr;
  rmsNormGradRows<<<unsigned(T), kThreads, 0, stream()>>>(dy, x, weight, dx, rs,
                                                          H, eps);
  SPRT_CUDA_CHECK_LAUNCH("rmsNormGradRows");
  if (dw)
    SPRT_LAUNCH(rmsNormGradColumns, H, dy, x, rs, dw, T, H);
}

} // extern "C"
