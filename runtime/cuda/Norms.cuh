//===- Norms.cuh - row statistics of the normalisations ---------*- CUDA
//-*-===//
//
// Shared by the forward (Norms.cu) and backward (NormsGrad.cu) kernels, so
// the backward recomputes exactly the forward's statistics. Called by every
// thread of a block that owns one row.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_NORMS_CUH
#define SPRT_CUDA_NORMS_CUH

#include "Common.cuh"

namespace sprt::cuda {

/// Mean and 1 / sqrt(biased variance + eps) of row xr[H], in double, two
/// passes.
__device__ inline void layerNormStats(const float *xr, int64_t H, double eps,
                                      double *red, double &mean, double &rstd) {
  double s = 0.0;
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x)
    s += double(xr[i]);
  mean = blockSum(s, red) / double(H);
  double sq = 0.0;
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double d = double(xr[i]) - mean;
    sq += d * d;
  }
  rstd = 1.0 / sqrt(blockSum(sq, red) / double(H) + eps);
}

/// 1 / sqrt(mean(x^2) + eps) of row xr[H], in double.
__device__ inline double rmsNormScale(const float *xr, int64_t H, double eps,
                                      double *red) {
  double sq = 0.0;
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x)
    sq += double(xr[i]) * double(xr[i]);
  return 1.0 / sqrt(blockSum(sq, red) / double(H) + eps);
}

} // namespace sprt::cuda

#endif // SPRT_CUDA_NORMS_CUH
