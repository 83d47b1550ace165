//===- Loss.cuh - row pieces of the cross-entropy kernels -------*- CUDA
//-*-===//
//
// Shared by the loss (Loss.cu) and its backward (LossGrad.cu): the row max
// and the row's sum of exp(logit - max) (f32 exp, double sum, rounded to
// float), as runtime/cpu/RowOps.h, each computed by one block per row, on
// logits stored as f32, bf16 or f16 (widened exactly on load).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_LOSS_CUH
#define SPRT_CUDA_LOSS_CUH

#include "Common.cuh"
#include "Quad.cuh"

namespace sprt::cuda {

/// Threads of the one-block reductions over tokens (their kernels are
/// declared with __launch_bounds__(kReduceThreads): at 1024 threads a kernel
/// compiled for more than 64 registers a thread would not launch).
constexpr int kReduceThreads = 1024;

/// The row's max; elements of type D (SPRT_DTYPE_*), widened.
template <int32_t D = SPRT_DTYPE_F32>
__device__ inline float rowMax(const void *row, int64_t V, float *red) {
  float m = -INFINITY;
  for (int64_t v = threadIdx.x; v < V; v += blockDim.x)
    m = fmaxf(m, Quad<D>::loadOne(row, v));
  return blockMax(m, red);
}

template <int32_t D = SPRT_DTYPE_F32>
__device__ inline float rowSumExp(const void *row, float max, int64_t V,
                                  double *red) {
  double s = 0.0;
  for (int64_t v = threadIdx.x; v < V; v += blockDim.x)
    s += double(expf(Quad<D>::loadOne(row, v) - max));
  return float(blockSum(s, red));
}

/// Counts the labels other than ignoreIndex into a device int64_t (a scratch
/// buffer, valid until the next use of Scratch::Reduce on the stream).
int64_t *launchCountLabels(const int64_t *labels, int64_t T,
                           int64_t ignoreIndex);

} // namespace sprt::cuda

#endif // SPRT_CUDA_LOSS_CUH
