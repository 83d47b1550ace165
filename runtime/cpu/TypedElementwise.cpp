//===- TypedElementwise.cpp - elementwise maps on stored dtypes (CPU) -----===//
//
// sprt_*_typed of the elementwise maps (sprt/kernels.h) and of the
// activations' gradients (sprt/grad_kernels.h): blocks of the
// bf16 / f16 operands are widened into stack buffers, the f32 kernel maps
// each block and the block is rounded once into the result. The maps are
// elementwise, so the f32 kernel on a block gives the bits it gives on the
// whole tensor: the result is the f32 kernel on the widened tensors,
// converted (ElementwiseTypedConformanceTest). No scratch is allocated.
//
//===----------------------------------------------------------------------===//

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace {

/// Elements per block: 3 blocks of f32 on the stack are 24 KiB.
constexpr int64_t kBlock = 2048;

/// `p` advanced by `i` elements of `dtype`.
template <typename T> T *at(T *p, int64_t i, int32_t dtype) {
  using Byte = std::conditional_t<std::is_const_v<T>, const char, char>;
  return reinterpret_cast<Byte *>(p) + i * (dtype == SPRT_DTYPE_F32 ? 4 : 2);
}

/// y = f(x) (f an f32 kernel of (x, y, n)) on `dtype` storage.
template <typename F>
void mapUnary(const void *x, void *y, int64_t n, int32_t dtype, F f) {
  if (dtype == SPRT_DTYPE_F32) {
    f(static_cast<const float *>(x), static_cast<float *>(y), n);
    return;
  }
  float in[kBlock], out[kBlock];
  // An unknown dtype aborts in sprt_convert, before anything is written.
  sprt_convert(x, dtype, in, SPRT_DTYPE_F32, 0);
  for (int64_t i = 0; i < n; i += kBlock) {
    int64_t m = std::min(kBlock, n - i);
    sprt_convert(at(x, i, dtype), dtype, in, SPRT_DTYPE_F32, m);
    f(in, out, m);
    sprt_convert(out, SPRT_DTYPE_F32, at(y, i, dtype), dtype, m);
  }
}

/// y = f(a, b) (f an f32 kernel of (a, b, y, n)) on `dtype` storage.
template <typename F>
void mapBinary(const void *a, const void *b, void *y, int64_t n, int32_t dtype,
               F f) {
  if (dtype == SPRT_DTYPE_F32) {
    f(static_cast<const float *>(a), static_cast<const float *>(b),
      static_cast<float *>(y), n);
    return;
  }
  float wa[kBlock], wb[kBlock], out[kBlock];
  sprt_convert(a, dtype, wa, SPRT_DTYPE_F32, 0);
  for (int64_t i = 0; i < n; i += kBlock) {
    int64_t m = std::min(kBlock, n - i);
    sprt_convert(at(a, i, dtype), dtype, wa, SPRT_DTYPE_F32, m);
    sprt_convert(at(b, i, dtype), dtype, wb, SPRT_DTYPE_F32, m);
    f(wa, wb, out, m);
    sprt_convert(out, SPRT_DTYPE_F32, at(y, i, dtype), dtype, m);
  }
}

/// Rounds each of the m f32 values of `v` to `dtype` and widens it back
/// (what storing it and reading it again gives).
void roundTo(float *v, int64_t m, int32_t dtype) {
  if (dtype == SPRT_DTYPE_F32)
    return;
  uint16_t stored[kBlock];
  sprt_convert(v, SPRT_DTYPE_F32, stored, dtype, m);
  sprt_convert(stored, dtype, v, SPRT_DTYPE_F32, m);
}

/// Widens m elements of `x` (`dtype`) from element i into `out`.
void widen(const void *x, int64_t i, int64_t m, int32_t dtype, float *out) {
  sprt_convert(at(x, i, dtype), dtype, out, SPRT_DTYPE_F32, m);
}

/// Stores m f32 values rounded to `dtype` at element i of `y`.
void store(const float *v, void *y, int64_t i, int64_t m, int32_t dtype) {
  sprt_convert(v, SPRT_DTYPE_F32, at(y, i, dtype), dtype, m);
}

} // namespace

extern "C" {

void sprt_gelu_typed(const void *x, void *y, int64_t n, int32_t tanh_approx,
                     int32_t dtype) {
  mapUnary(x, y, n, dtype, [&](const float *in, float *out, int64_t m) {
    sprt_gelu_f32(in, out, m, tanh_approx);
  });
}

void sprt_silu_typed(const void *x, void *y, int64_t n, int32_t dtype) {
  mapUnary(x, y, n, dtype, sprt_silu_f32);
}

void sprt_relu_typed(const void *x, void *y, int64_t n, int32_t dtype) {
  mapUnary(x, y, n, dtype, sprt_relu_f32);
}

void sprt_mul_typed(const void *a, const void *b, void *y, int64_t n,
                    int32_t dtype) {
  mapBinary(a, b, y, n, dtype, sprt_mul_f32);
}

void sprt_add_typed(const void *a, const void *b, void *y, int64_t n,
                    int32_t dtype) {
  mapBinary(a, b, y, n, dtype, sprt_add_f32);
}

void sprt_gelu_grad_typed(const void *dy, const void *x, void *dx, int64_t n,
                          int32_t tanh_approx, int32_t dtype) {
  mapBinary(dy, x, dx, n, dtype,
            [&](const float *d, const float *v, float *out, int64_t m) {
              sprt_gelu_grad_f32(d, v, out, m, tanh_approx);
            });
}

void sprt_silu_grad_typed(const void *dy, const void *x, void *dx, int64_t n,
                          int32_t dtype) {
  mapBinary(dy, x, dx, n, dtype, sprt_silu_grad_f32);
}

void sprt_relu_grad_typed(const void *dy, const void *x, void *dx, int64_t n,
                          int32_t dtype) {
  mapBinary(dy, x, dx, n, dtype, sprt_relu_grad_f32);
}

// The SiLU (and the product dy * up) rounded to dtype before the next map
// reads it, as the unfused calls store and read them.
void sprt_swiglu_typed(const void *gate, const void *up, void *y, int64_t n,
                       int32_t dtype) {
  float g[kBlock], u[kBlock], s[kBlock];
  sprt_convert(gate, dtype, g, SPRT_DTYPE_F32, 0);
  for (int64_t i = 0; i < n; i += kBlock) {
    int64_t m = std::min(kBlock, n - i);
    widen(gate, i, m, dtype, g);
    widen(up, i, m, dtype, u);
    sprt_silu_f32(g, s, m);
    roundTo(s, m, dtype);
    sprt_mul_f32(s, u, g, m);
    store(g, y, i, m, dtype);
  }
}

void sprt_swiglu_grad_typed(const void *dy, const void *gate, const void *up,
                            void *dgate, void *dup, int64_t n, int32_t dtype) {
  float d[kBlock], g[kBlock], u[kBlock], t[kBlock];
  sprt_convert(dy, dtype, d, SPRT_DTYPE_F32, 0);
  for (int64_t i = 0; i < n; i += kBlock) {
    int64_t m = std::min(kBlock, n - i);
    widen(dy, i, m, dtype, d);
    widen(gate, i, m, dtype, g);
    widen(up, i, m, dtype, u);
    sprt_mul_f32(d, u, t, m); // dy * up
    roundTo(t, m, dtype);
    sprt_silu_grad_f32(t, g, u, m); // u is free: dgate
    store(u, dgate, i, m, dtype);
    sprt_silu_f32(g, t, m);
    roundTo(t, m, dtype);
    sprt_mul_f32(d, t, u, m); // dy * silu(gate)
    store(u, dup, i, m, dtype);
  }
}

} // extern "C"
