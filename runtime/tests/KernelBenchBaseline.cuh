//===- KernelBenchBaseline.cuh - the kernels KernelBench compares with -*-
// CUDA -*-===//
//
// The CUDA backend's norm-backward column kernels and bias gradient as they
// were before the two-stage column sums (commit 02ec4d5): one thread per
// column walking all T rows in order; the embedding gradient's atomics. Kept
// here, not in the backend, only so that KernelBench.cu times the old and new
// kernels side by side on the same device. The row kernels they follow are the
// backend's row-per-block path (NormPaths.h's *TwoPass, whose statistics
// scratch this reads).
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_TESTS_KERNELBENCHBASELINE_CUH
#define SPRT_TESTS_KERNELBENCHBASELINE_CUH

#include <cstdint>

namespace sprt_bench {

__global__ void baselineBiasGrad(const float *__restrict__ dy,
                                 float *__restrict__ db, int64_t T, int64_t H) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < H;
       i += int64_t(gridDim.x) * blockDim.x) {
    double acc = 0.0;
    for (int64_t t = 0; t < T; ++t)
      acc += double(dy[t * H + i]);
    db[i] = float(acc);
  }
}

__global__ void baselineLayerNormGradColumns(const float *__restrict__ dy,
                                             const float *__restrict__ x,
                                             const double2 *__restrict__ stats,
                                             float *__restrict__ dw,
                                             float *__restrict__ db, int64_t T,
                                             int64_t H) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < H;
       i += int64_t(gridDim.x) * blockDim.x) {
    double accW = 0.0, accB = 0.0;
    for (int64_t t = 0; t < T; ++t) {
      const double d = double(dy[t * H + i]);
      const double2 st = stats[t];
      accW += d * ((double(x[t * H + i]) - st.x) * st.y);
      accB += d;
    }
    dw[i] = float(accW);
    db[i] = float(accB);
  }
}

/// The embedding gradient before Embedding.cu's sorted row sums: one
/// atomicAdd per element of dy into a zeroed table (tokens sharing a row
/// contend, and their order varies run to run).
__global__ void baselineEmbeddingGrad(const int64_t *__restrict__ ids,
                                      const float *__restrict__ dy,
                                      float *__restrict__ dtable, int64_t T,
                                      int64_t V, int64_t H) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < T * H;
       e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = ids[e / H];
    if (r >= 0 && r < V)
      atomicAdd(dtable + r * H + e % H, dy[e]);
  }
}

} // namespace sprt_bench

#endif // SPRT_TESTS_KERNELBENCHBASELINE_CUH
