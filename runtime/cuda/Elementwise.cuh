//===- Elementwise.cuh - helpers of the elementwise kernels -----*- CUDA
//-*-===//

#ifndef SPRT_CUDA_ELEMENTWISE_CUH
#define SPRT_CUDA_ELEMENTWISE_CUH

#include "DeviceMath.cuh"
#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <cstdint>

namespace sprt::cuda {

/// The activations' formulas, one per element, shared by the f32 kernels
/// and the typed ones (ElementwiseTyped.cu), as runtime/cpu/Kernels.cpp.
__device__ inline float geluOf(float v, int32_t tanhApprox) {
  if (tanhApprox) {
    const float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
    float th, sech2;
    tanhAndSech2(kBeta * (v + kKappa * v * v * v), th, sech2);
    return 0.5f * v * (1.0f + th);
  }
  return 0.5f * v * (1.0f + erff(v * 0.7071067811865476f));
}

__device__ inline float siluOf(float v) { return v / (1.0f + vexp(-v)); }

/// v < 0 ? 0 : v, not max: NaN propagates, as torch.relu.
__device__ inline float reluOf(float v) { return v < 0.0f ? 0.0f : v; }

/// Aborts, naming the runtime function `fn`, on an element type code that
/// is not SPRT_DTYPE_F32, _BF16 or _F16 (Convert.cu).
void checkDtypeCode(int32_t t, const char *fn);

/// Element i of `p`, stored in SPRT_DTYPE_* `t`, widened to f32 (exact).
__device__ inline float loadElement(const void *p, int32_t t, int64_t i) {
  if (t == SPRT_DTYPE_F32)
    return static_cast<const float *>(p)[i];
  const uint16_t h = static_cast<const uint16_t *>(p)[i];
  return t == SPRT_DTYPE_BF16 ? sprt::dtype::bf16ToF32(h)
                              : sprt::dtype::f16ToF32(h);
}

/// Stores `x` as element i of `p` in `t`, rounded to nearest even.
__device__ inline void storeElement(void *p, int32_t t, int64_t i, float x) {
  if (t == SPRT_DTYPE_F32)
    static_cast<float *>(p)[i] = x;
  else
    static_cast<uint16_t *>(p)[i] = t == SPRT_DTYPE_BF16
                                        ? sprt::dtype::f32ToBf16(x)
                                        : sprt::dtype::f32ToF16(x);
}

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
