//===- Elementwise.cuh - helpers of the elementwise kernels -----*- CUDA
//-*-===//

#ifndef SPRT_CUDA_ELEMENTWISE_CUH
#define SPRT_CUDA_ELEMENTWISE_CUH

#include <cstdint>

namespace sprt::cuda {

/// Where column c of a fused qkv row goes: part 0 = q, 1 = k, 2 = v, and the
/// column in that part's row. packingHeads = 0: [q | k | v]; 1: per kv group
/// [q_0 .. q_{factor-1} k v] (per head [q k v] when heads == kvHeads), as
/// runtime/cpu/Kernels.cpp's sprt_qkv_split_f32.
struct QkvSlot {
  int part;
  int64_t col;
};

__device__ inline QkvSlot qkvSlot(int64_t c, int64_t heads, int64_t kvHeads,
                                  int64_t headDim, int32_t packingHeads) {
  const int64_t qW = heads * headDim, kvW = kvHeads * headDim;
  if (!packingHeads) {
    if (c < qW)
      return {0, c};
    if (c < qW + kvW)
      return {1, c - qW};
    return {2, c - qW - kvW};
  }
  const int64_t factor = heads / kvHeads;
  const int64_t groupW = (factor + 2) * headDim;
  const int64_t g = c / groupW, w = c % groupW;
  if (w < factor * headDim)
    return {0, g * factor * headDim + w};
  if (w < (factor + 1) * headDim)
    return {1, g * headDim + (w - factor * headDim)};
  return {2, g * headDim + (w - (factor + 1) * headDim)};
}

} // namespace sprt::cuda

#endif // SPRT_CUDA_ELEMENTWISE_CUH
