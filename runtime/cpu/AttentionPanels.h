//===- AttentionPanels.h - shared pieces of attention and its backward -*- C++
//-*-===//
//
// The forward (Attention.cpp) and backward (AttentionGrad.cpp) kernels must
// recompute exactly the same rotated panels and row blocks.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CPU_ATTENTIONPANELS_H
#define SPRT_CPU_ATTENTIONPANELS_H

#include <cstdint>
#include <cstring>

namespace sprt::cpu {

constexpr int64_t kRowBlock = 128;

// Copies head `h` of batch `b` out of a [S, B, nHeads * headDim] tensor into
// dst [S, headDim], rotating the first 2 * half features of each row
// (rotate-half: x1 = x[:half], x2 = x[half:2 half]; out = x * cos +
// (-x2, x1) * sin).
inline void gatherHead(const float *src, float *dst, int64_t S, int64_t B,
                       int64_t nHeads, int64_t headDim, int64_t b, int64_t h,
                       int64_t half, const float *cosT, const float *sinT) {
  const int64_t rowStride = B * nHeads * headDim;
  const float *base = src + b * nHeads * headDim + h * headDim;
  for (int64_t s = 0; s < S; ++s) {
    const float *in = base + s * rowStride;
    float *o = dst + s * headDim;
    std::memcpy(o, in, size_t(headDim) * sizeof(float));
    if (half == 0)
      continue;
    const float *c = cosT + s * half, *sn = sinT + s * half;
    for (int64_t i = 0; i < half; ++i) {
      float x1 = in[i], x2 = in[i + half];
      o[i] = x1 * c[i] + (-x2) * sn[i];
      o[i + half] = x2 * c[i] + x1 * sn[i];
    }
  }
}

} // namespace sprt::cpu

#endif // SPRT_CPU_ATTENTIONPANELS_H
