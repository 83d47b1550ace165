//===- Elementwise.cu - CUDA forward kernels that move or map elements ----===//
//
// Activations, elementwise arithmetic, head reshaping, position ids and the
// embedding lookup of sprt/kernels.h, plus sprt_fill_f32 and sprt_scale_f32:
// one thread per element (grid-stride loops), the same formulas as the CPU
// backend's Kernels.cpp.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "DeviceMath.cuh"
#include "Elementwise.cuh"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

using namespace sprt::cuda;

namespace {

__global__ void geluKernel(const float *__restrict__ x, float *__restrict__ y,
                           int64_t n, int32_t tanhApprox) {
  SPRT_FOR_EACH(i, n) { y[i] = geluOf(x[i], tanhApprox); }
}

__global__ void siluKernel(const float *__restrict__ x, float *__restrict__ y,
                           int64_t n) {
  SPRT_FOR_EACH(i, n) { y[i] = siluOf(x[i]); }
}

__global__ void reluKernel(const float *__restrict__ x, float *__restrict__ y,
                           int64_t n) {
  SPRT_FOR_EACH(i, n) { y[i] = reluOf(x[i]); }
}

__global__ void mulKernel(const float *a, const float *b, float *y, int64_t n) {
  SPRT_FOR_EACH(i, n) { y[i] = a[i] * b[i]; }
}

__global__ void addKernel(const float *a, const float *b, float *y, int64_t n) {
  SPRT_FOR_EACH(i, n) { y[i] = a[i] + b[i]; }
}

__global__ void biasAddKernel(const float *x, const float *__restrict__ bias,
                              float *y, int64_t T, int64_t H) {
  SPRT_FOR_EACH(e, T * H) { y[e] = x[e] + bias[e % H]; }
}

__global__ void fillKernel(float *x, int64_t n, float value) {
  SPRT_FOR_EACH(i, n) { x[i] = value; }
}

/// x *= s, or *sAt (device memory) when given.
__global__ void scaleKernel(float *x, int64_t n, double s, const double *sAt) {
  if (sAt)
    s = *sAt;
  SPRT_FOR_EACH(i, n) { x[i] = float(double(x[i]) * s); }
}

// The head reshapes move elements of E (float, or uint16_t for bf16 / f16).
template <typename E>
__global__ void qkvSplitKernel(const E *__restrict__ qkv, E *__restrict__ q,
                               E *__restrict__ k, E *__restrict__ v, int64_t T,
                               int64_t heads, int64_t kvHeads, int64_t headDim,
                               int32_t packingHeads) {
  const int64_t qW = heads * headDim, kvW = kvHeads * headDim;
  const int64_t rowW = qW + 2 * kvW;
  SPRT_FOR_EACH(e, T * rowW) {
    const int64_t t = e / rowW, c = e % rowW;
    QkvSlot s = qkvSlot(c, heads, kvHeads, headDim, packingHeads);
    E *dst = s.part == 0 ? q + t * qW : (s.part == 1 ? k : v) + t * kvW;
    dst[s.col] = qkv[e];
  }
}

template <typename E>
__global__ void repeatHeadsKernel(const E *__restrict__ x, E *__restrict__ y,
                                  int64_t T, int64_t heads, int64_t headDim,
                                  int64_t factor) {
  // y[t, (h * factor + r) * headDim + d] = x[t, h * headDim + d].
  const int64_t rowW = heads * factor * headDim;
  SPRT_FOR_EACH(e, T * rowW) {
    const int64_t t = e / rowW, c = e % rowW;
    const int64_t d = c % headDim, h = c / headDim / factor;
    y[e] = x[t * heads * headDim + h * headDim + d];
  }
}

__global__ void positionIdsKernel(int64_t *out, int64_t S, int64_t B,
                                  int64_t seqOffset) {
  SPRT_FOR_EACH(e, S * B) { out[e] = seqOffset + e / B; }
}

} // namespace

extern "C" {

void sprt_gelu_f32(const float *x, float *y, int64_t n, int32_t tanh_approx) {
  SPRT_LAUNCH(geluKernel, n, x, y, n, tanh_approx);
}

void sprt_silu_f32(const float *x, float *y, int64_t n) {
  SPRT_LAUNCH(siluKernel, n, x, y, n);
}

void sprt_relu_f32(const float *x, float *y, int64_t n) {
  SPRT_LAUNCH(reluKernel, n, x, y, n);
}

void sprt_mul_f32(const float *a, const float *b, float *y, int64_t n) {
  SPRT_LAUNCH(mulKernel, n, a, b, y, n);
}

void sprt_add_f32(const float *a, const float *b, float *y, int64_t n) {
  SPRT_LAUNCH(addKernel, n, a, b, y, n);
}

void sprt_bias_add_f32(const float *x, const float *bias, float *y, int64_t T,
                       int64_t H) {
  SPRT_LAUNCH(biasAddKernel, T * H, x, bias, y, T, H);
}

void sprt_fill_f32(float *x, int64_t n, double value) {
  SPRT_LAUNCH(fillKernel, n, x, n, float(value));
}

void sprt_scale_f32(float *x, int64_t n, double s) {
  SPRT_LAUNCH(scaleKernel, n, x, n, s, nullptr);
}

void sprt_scale_by_f32(float *x, int64_t n, const double *s) {
  SPRT_LAUNCH(scaleKernel, n, x, n, 1.0, s);
}

void sprt_qkv_split(const void *qkv, void *q, void *k, void *v, int64_t T,
                    int64_t heads, int64_t kv_heads, int64_t head_dim,
                    int32_t packing_heads, int32_t elem_bytes) {
  const int64_t n = T * (heads + 2 * kv_heads) * head_dim;
  if (kv_heads <= 0 || head_dim <= 0)
    return;
  if (elem_bytes == 4)
    SPRT_LAUNCH(qkvSplitKernel<float>, n, static_cast<const float *>(qkv),
                static_cast<float *>(q), static_cast<float *>(k),
                static_cast<float *>(v), T, heads, kv_heads, head_dim,
                packing_heads);
  else
    SPRT_LAUNCH(qkvSplitKernel<uint16_t>, n, static_cast<const uint16_t *>(qkv),
                static_cast<uint16_t *>(q), static_cast<uint16_t *>(k),
                static_cast<uint16_t *>(v), T, heads, kv_heads, head_dim,
                packing_heads);
}

void sprt_repeat_heads(const void *x, void *y, int64_t T, int64_t heads,
                       int64_t head_dim, int64_t factor, int32_t elem_bytes) {
  if (head_dim <= 0 || factor <= 0)
    return;
  const int64_t n = T * heads * factor * head_dim;
  if (elem_bytes == 4)
    SPRT_LAUNCH(repeatHeadsKernel<float>, n, static_cast<const float *>(x),
                static_cast<float *>(y), T, heads, head_dim, factor);
  else
    SPRT_LAUNCH(repeatHeadsKernel<uint16_t>, n,
                static_cast<const uint16_t *>(x), static_cast<uint16_t *>(y), T,
                heads, head_dim, factor);
}

void sprt_position_ids_i64(int64_t *out, int64_t S, int64_t B,
                           int64_t seq_offset) {
  SPRT_LAUNCH(positionIdsKernel, S * B, out, S, B, seq_offset);
}

} // extern "C"
