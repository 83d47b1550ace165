//===- ElementwiseGrad.cu - CUDA backward kernels of elementwise ops ------===//
//
// Activation derivatives (in double on the forward's formulas, as the CPU
// backend's GradKernels.cpp), the inverse of the qkv split, the sum over
// repeated heads and the bias gradient (column sums in double in token order,
// as the CPU). The embedding's gradient is in Embedding.cu.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "DeviceMath.cuh"
#include "Elementwise.cuh"
#include "Quad.cuh"
#include "sprt/grad_kernels.h"

using namespace sprt::cuda;

namespace {

// The activations' derivatives on dy, x and dx stored as D (SPRT_DTYPE_*):
// each element widened, dx rounded once (F32: the f32 kernels).
template <int32_t D>
__global__ void
geluGradKernel(const void *__restrict__ dy, const void *__restrict__ x,
               void *__restrict__ dx, int64_t n, int32_t tanhApprox) {
  SPRT_FOR_EACH(i, n) {
    const float g = Quad<D>::loadOne(dy, i), xv = Quad<D>::loadOne(x, i);
    if (tanhApprox) {
      // y' = (1 + tanh u)/2 + x/2 (1 - tanh^2 u) beta (1 + 3 kappa x^2).
      const float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
      const float v = xv;
      float th, sech2;
      tanhAndSech2(kBeta * (v + kKappa * v * v * v), th, sech2);
      const float d = 0.5f * (1.0f + th) +
                      0.5f * v * sech2 * kBeta * (1.0f + 3.0f * kKappa * v * v);
      Quad<D>::storeOne(dx, i, g * d);
    } else {
      // y' = (1 + erf(c x))/2 + x c exp(-(c x)^2) / sqrt(pi).
      const double kC = double(0.7071067811865476f);
      const double kRsqrtPi = 0.5641895835477563;
      const double v = xv, cv = kC * v;
      const double d =
          0.5 * (1.0 + erf(cv)) + v * kC * kRsqrtPi * exp(-cv * cv);
      Quad<D>::storeOne(dx, i, float(double(g) * d));
    }
  }
}

template <int32_t D>
__global__ void siluGradKernel(const void *__restrict__ dy,
                               const void *__restrict__ x,
                               void *__restrict__ dx, int64_t n) {
  SPRT_FOR_EACH(i, n) {
    const double v = Quad<D>::loadOne(x, i);
    const double s = 1.0 / (1.0 + exp(-v));
    Quad<D>::storeOne(
        dx, i,
        float(double(Quad<D>::loadOne(dy, i)) * s * (1.0 + v * (1.0 - s))));
  }
}

template <int32_t D>
__global__ void reluGradKernel(const void *__restrict__ dy,
                               const void *__restrict__ x,
                               void *__restrict__ dx, int64_t n) {
  SPRT_FOR_EACH(i, n) {
    Quad<D>::storeOne(
        dx, i, Quad<D>::loadOne(x, i) <= 0.0f ? 0.0f : Quad<D>::loadOne(dy, i));
  }
}

/// Launches Kernel<D> for SPRT_DTYPE_* `dtype` over n elements.
#define SPRT_LAUNCH_TYPED(kernel, fn, dtype, n, ...)                           \
  do {                                                                         \
    checkDtypeCode(dtype, fn);                                                 \
    if ((dtype) == SPRT_DTYPE_F32)                                             \
      SPRT_LAUNCH(kernel<SPRT_DTYPE_F32>, n, __VA_ARGS__);                     \
    else if ((dtype) == SPRT_DTYPE_BF16)                                       \
      SPRT_LAUNCH(kernel<SPRT_DTYPE_BF16>, n, __VA_ARGS__);                    \
    else                                                                       \
      SPRT_LAUNCH(kernel<SPRT_DTYPE_F16>, n, __VA_ARGS__);                     \
  } while (0)

template <typename E>
__global__ void qkvConcatKernel(const E *__restrict__ dq,
                                const E *__restrict__ dk,
                                const E *__restrict__ dv, E *__restrict__ dqkv,
                                int64_t T, int64_t heads, int64_t kvHeads,
                                int64_t headDim, int32_t packingHeads) {
  const int64_t qW = heads * headDim, kvW = kvHeads * headDim;
  const int64_t rowW = qW + 2 * kvW;
  SPRT_FOR_EACH(e, T * rowW) {
    const int64_t t = e / rowW, c = e % rowW;
    QkvSlot s = qkvSlot(c, heads, kvHeads, headDim, packingHeads);
    const E *src =
        s.part == 0 ? dq + t * qW : (s.part == 1 ? dk : dv) + t * kvW;
    dqkv[e] = src[s.col];
  }
}

__global__ void repeatHeadsGradKernel(const float *__restrict__ dy,
                                      float *__restrict__ dx, int64_t T,
                                      int64_t heads, int64_t headDim,
                                      int64_t factor) {
  // dx[t, h, d] = sum over r (increasing, in double) of dy[t, h*factor+r, d].
  const int64_t rowW = heads * headDim;
  SPRT_FOR_EACH(e, T * rowW) {
    const int64_t t = e / rowW, c = e % rowW;
    const int64_t h = c / headDim, d = c % headDim;
    const float *src = dy + t * rowW * factor + h * factor * headDim + d;
    double acc = 0.0;
    for (int64_t r = 0; r < factor; ++r)
      acc += double(src[r * headDim]);
    dx[e] = float(acc);
  }
}

} // namespace

extern "C" {

void sprt_gelu_grad_f32(const float *dy, const float *x, float *dx, int64_t n,
                        int32_t tanh_approx) {
  sprt_gelu_grad_typed(dy, x, dx, n, tanh_approx, SPRT_DTYPE_F32);
}

void sprt_silu_grad_f32(const float *dy, const float *x, float *dx, int64_t n) {
  sprt_silu_grad_typed(dy, x, dx, n, SPRT_DTYPE_F32);
}

void sprt_gelu_grad_typed(const void *dy, const void *x, void *dx, int64_t n,
                          int32_t tanh_approx, int32_t dtype) {
  SPRT_LAUNCH_TYPED(geluGradKernel, "sprt_gelu_grad_typed", dtype, n, dy, x, dx,
                    n, tanh_approx);
}

void sprt_silu_grad_typed(const void *dy, const void *x, void *dx, int64_t n,
                          int32_t dtype) {
  SPRT_LAUNCH_TYPED(siluGradKernel, "sprt_silu_grad_typed", dtype, n, dy, x, dx,
                    n);
}

void sprt_relu_grad_typed(const void *dy, const void *x, void *dx, int64_t n,
                          int32_t dtype) {
  SPRT_LAUNCH_TYPED(reluGradKernel, "sprt_relu_grad_typed", dtype, n, dy, x, dx,
                    n);
}

void sprt_relu_grad_f32(const float *dy, const float *x, float *dx, int64_t n) {
  sprt_relu_grad_typed(dy, x, dx, n, SPRT_DTYPE_F32);
}

void sprt_qkv_concat(const void *dq, const void *dk, const void *dv, void *dqkv,
                     int64_t T, int64_t heads, int64_t kv_heads,
                     int64_t head_dim, int32_t packing_heads,
                     int32_t elem_bytes) {
  if (kv_heads <= 0 || head_dim <= 0)
    return;
  const int64_t n = T * (heads + 2 * kv_heads) * head_dim;
  if (elem_bytes == 4)
    SPRT_LAUNCH(qkvConcatKernel<float>, n, static_cast<const float *>(dq),
                static_cast<const float *>(dk), static_cast<const float *>(dv),
                static_cast<float *>(dqkv), T, heads, kv_heads, head_dim,
                packing_heads);
  else
    SPRT_LAUNCH(qkvConcatKernel<uint16_t>, n, static_cast<const uint16_t *>(dq),
                static_cast<const uint16_t *>(dk),
                static_cast<const uint16_t *>(dv),
                static_cast<uint16_t *>(dqkv), T, heads, kv_heads, head_dim,
                packing_heads);
}

void sprt_repeat_heads_grad_f32(const float *dy, float *dx, int64_t T,
                                int64_t heads, int64_t head_dim,
                                int64_t factor) {
  if (head_dim <= 0)
    return;
  SPRT_LAUNCH(repeatHeadsGradKernel, T * heads * head_dim, dy, dx, T, heads,
              head_dim, factor);
}

} // extern "C"
