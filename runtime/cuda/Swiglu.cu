//===- Swiglu.cu - SwiGLU's product and its gradients (CUDA) --------------===//
//
// sprt_swiglu_typed (sprt/kernels.h) and sprt_swiglu_grad_typed
// (sprt/grad_kernels.h): each element of the operands read once as stored,
// every intermediate rounded to the element type in registers as the
// unfused kernels (ElementwiseTyped.cu, Elementwise.cu, ElementwiseGrad.cu)
// round it in memory, so the results are theirs bit for bit. Four elements
// per thread where every pointer allows (one 16-byte f32 or 8-byte 16-bit
// access each), the rest one per thread.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Elementwise.cuh"
#include "Quad.cuh"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

using namespace sprt::cuda;

namespace {

/// `v` stored as D and read back.
template <int32_t D> __device__ float rounded(float v) {
  if constexpr (D == SPRT_DTYPE_F32)
    return v;
  else
    return Quad<D>::widen(Quad<D>::narrow(v));
}

/// silu(g) * u before the result's rounding: sprt_silu_typed's result
/// times u (sprt_mul_typed).
template <int32_t D> __device__ float swiglu(float g, float u) {
  return rounded<D>(siluOf(g)) * u;
}

/// dgate = silu_grad(dy * up, gate) (ElementwiseGrad.cu's siluGradKernel,
/// in double) and dup = dy * silu(gate), before their rounding.
template <int32_t D>
__device__ void swigluGrad(float d, float g, float u, float &dg, float &du) {
  const double t = rounded<D>(d * u), v = g;
  const double s = 1.0 / (1.0 + exp(-v));
  dg = float(t * s * (1.0 + v * (1.0 - s)));
  du = d * rounded<D>(siluOf(g));
}

template <int32_t D>
__global__ void swigluQuads(const void *__restrict__ gate,
                            const void *__restrict__ up, void *__restrict__ y,
                            int64_t quads) {
  SPRT_FOR_EACH(j, quads) {
    float g[4], u[4];
    Quad<D>::load(gate, j, g);
    Quad<D>::load(up, j, u);
    for (int k = 0; k < 4; ++k)
      g[k] = swiglu<D>(g[k], u[k]);
    Quad<D>::store(y, j, g);
  }
}

template <int32_t D>
__global__ void swigluOnes(const void *__restrict__ gate,
                           const void *__restrict__ up, void *__restrict__ y,
                           int64_t n) {
  SPRT_FOR_EACH(i, n) {
    Quad<D>::storeOne(
        y, i, swiglu<D>(Quad<D>::loadOne(gate, i), Quad<D>::loadOne(up, i)));
  }
}

template <int32_t D>
__global__ void
swigluGradQuads(const void *__restrict__ dy, const void *__restrict__ gate,
                const void *__restrict__ up, void *__restrict__ dgate,
                void *__restrict__ dup, int64_t quads) {
  SPRT_FOR_EACH(j, quads) {
    float d[4], g[4], u[4], dg[4], du[4];
    Quad<D>::load(dy, j, d);
    Quad<D>::load(gate, j, g);
    Quad<D>::load(up, j, u);
    for (int k = 0; k < 4; ++k)
      swigluGrad<D>(d[k], g[k], u[k], dg[k], du[k]);
    Quad<D>::store(dgate, j, dg);
    Quad<D>::store(dup, j, du);
  }
}

template <int32_t D>
__global__ void
swigluGradOnes(const void *__restrict__ dy, const void *__restrict__ gate,
               const void *__restrict__ up, void *__restrict__ dgate,
               void *__restrict__ dup, int64_t n) {
  SPRT_FOR_EACH(i, n) {
    float dg, du;
    swigluGrad<D>(Quad<D>::loadOne(dy, i), Quad<D>::loadOne(gate, i),
                  Quad<D>::loadOne(up, i), dg, du);
    Quad<D>::storeOne(dgate, i, dg);
    Quad<D>::storeOne(dup, i, du);
  }
}

/// The groups of four elements of type D that every pointer allows.
template <int32_t D>
int64_t quadsOf(int64_t n, std::initializer_list<const void *> ptrs) {
  for (const void *p : ptrs)
    if (reinterpret_cast<uintptr_t>(p) % (4 * elementBytes(D)) != 0)
      return 0;
  return n / 4;
}

template <int32_t D>
void forward(const void *gate, const void *up, void *y, int64_t n) {
  const int64_t quads = quadsOf<D>(n, {gate, up, y}), done = 4 * quads;
  SPRT_LAUNCH(swigluQuads<D>, quads, gate, up, y, quads);
  SPRT_LAUNCH(swigluOnes<D>, n - done, elementAt<D>(gate, done),
              elementAt<D>(up, done), elementAt<D>(y, done), n - done);
}

template <int32_t D>
void backward(const void *dy, const void *gate, const void *up, void *dgate,
              void *dup, int64_t n) {
  const int64_t quads = quadsOf<D>(n, {dy, gate, up, dgate, dup});
  const int64_t done = 4 * quads;
  SPRT_LAUNCH(swigluGradQuads<D>, quads, dy, gate, up, dgate, dup, quads);
  SPRT_LAUNCH(swigluGradOnes<D>, n - done, elementAt<D>(dy, done),
              elementAt<D>(gate, done), elementAt<D>(up, done),
              elementAt<D>(dgate, done), elementAt<D>(dup, done), n - done);
}

} // namespace

extern "C" {

void sprt_swiglu_typed(const void *gate, const void *up, void *y, int64_t n,
                       int32_t dtype) {
  checkDtypeCode(dtype, "sprt_swiglu_typed");
  if (dtype == SPRT_DTYPE_F32)
    forward<SPRT_DTYPE_F32>(gate, up, y, n);
  else if (dtype == SPRT_DTYPE_BF16)
    forward<SPRT_DTYPE_BF16>(gate, up, y, n);
  else
    forward<SPRT_DTYPE_F16>(gate, up, y, n);
}

void sprt_swiglu_grad_typed(const void *dy, const void *gate, const void *up,
                            void *dgate, void *dup, int64_t n, int32_t dtype) {
  checkDtypeCode(dtype, "sprt_swiglu_grad_typed");
  if (dtype == SPRT_DTYPE_F32)
    backward<SPRT_DTYPE_F32>(dy, gate, up, dgate, dup, n);
  else if (dtype == SPRT_DTYPE_BF16)
    backward<SPRT_DTYPE_BF16>(dy, gate, up, dgate, dup, n);
  else
    backward<SPRT_DTYPE_F16>(dy, gate, up, dgate, dup, n);
}

} // extern "C"
