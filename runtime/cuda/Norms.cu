//===- Norms.cu - CUDA layer and RMS normalisation ------------------------===//
//
// One block per row (token), kThreads threads striding over the features.
// Statistics are accumulated in double (block reductions through warp
// shuffles), the layer norm's variance in a second pass over the row (biased,
// as torch), so no cancellation when |mean| >> std; the CPU backend does the
// same in Kernels.cpp and the results differ only in summation order.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Norms.cuh"
#include "sprt/kernels.h"

using namespace sprt::cuda;

namespace {

__global__ void layerNormKernel(const float *__restrict__ x,
                                const float *__restrict__ weight,
                                const float *__restrict__ bias,
                                float *__restrict__ y, int64_t H, double eps) {
  __shared__ double red[32];
  const float *xr = x + blockIdx.x * H;
  float *yr = y + blockIdx.x * H;
  double mean, rstd;
  layerNormStats(xr, H, eps, red, mean, rstd);
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double v = (double(xr[i]) - mean) * rstd;
    if (weight)
      v *= double(weight[i]);
    if (bias)
      v += double(bias[i]);
    yr[i] = float(v);
  }
}

__global__ void rmsNormKernel(const float *__restrict__ x,
                              const float *__restrict__ weight,
                              float *__restrict__ y, int64_t H, double eps) {
  __shared__ double red[32];
  const float *xr = x + blockIdx.x * H;
  float *yr = y + blockIdx.x * H;
  const double r = rmsNormScale(xr, H, eps, red);
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double v = double(xr[i]) * r;
    if (weight)
      v *= double(weight[i]);
    yr[i] = float(v);
  }
}

} // namespace

extern "C" {

void sprt_layer_norm_f32(const float *x, const float *weight, const float *bias,
                         float *y, int64_t T, int64_t H, double eps) {
  if (H <= 0 || T <= 0)
    return;
  checkRows(T, "sprt_layer_norm_f32");
  layerNormKernel<<<unsigned(T), kThreads, 0, stream()>>>(x, weight, bias, y, H,
                                                          eps);
  SPRT_CUDA_CHECK_LAUNCH("layerNormKernel");
}

void sprt_rms_norm_f32(const float *x, const float *weight, float *y, int64_t T,
                       int64_t H, double eps) {
  if (H <= 0 || T <= 0)
    return;
  checkRows(T, "sprt_rms_norm_f32");
  rmsNormKernel<<<unsigned(T), kThreads, 0, stream()>>>(x, weight, y, H, eps);
  SPRT_CUDA_CHECK_LAUNCH("rmsNormKernel");
}

} // extern "C"
