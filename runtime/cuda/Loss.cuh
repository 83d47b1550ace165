//===- Loss.cuh - row pieces of the cross-entropy kernels -------*- CUDA
//-*-===//
//
// Shared by the loss (Loss.cu) and its backward (LossGrad.cu): the row max
// and the row's sum of exp(logit - max) (f32 exp, double sum, rounded to
// float), as runtime/cpu/RowOps.h, each computed by one block per row.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_LOSS_CUH
#define SPRT_CUDA_LOSS_CUH

#include "Common.cuh"

namespace sprt::cuda {

/// Threads of the one-block reductions over tokens (their kernels are
/// declared with __launch_bounds__(kReduceThreads): at 1024 threads a kernel
/// compiled for more than 64 registers a thread would not launch).
constexpr int kReduceThreads = 1024;

__device__ inline float rowMax(const float *row, int64_t V, float *red) {
  float m = -INFINITY;
  for (int64_t v = threadIdx.x; v < V; v += blockDim.x)
    m = fmaxf(m, row[v]);
  return blockMax(m, red);
}

__device__ inline float rowSumExp(const float *row, float max, int64_t V,
                                  double *red) {
  double s = 0.0;
  for (int64_t v = threadIdx.x; v < V; v += blockDim.x)
    s += double(expf(row[v] - max));
  return float(blockSum(s, red));
}

/// Counts the labels other than ignoreIndex into a device int64_t (a scratch
/// buffer, valid until the next use of Scratch::Reduce on the stream).
int64_t *launchCountLabels(const int64_t *labels, int64_t T,
                           int64_t ignoreIndex);

} // namespace sprt::cuda

#endif // SPRT_CUDA_LOSS_CUH
