//===- Norms.cu - CUDA layer and RMS normalisation ------------------------===//
//
// One block per row (token). Where the row fits NormRows.cuh's register
// layout (H % 4 == 0 and 16-byte aligned rows: float4 loads; H <= 4096, or
// H <= 2048 with scalar loads) the row is read from memory once into
// registers and the output written from them; otherwise a block of
// kThreads threads strides over the row, reading it twice. Statistics are
// accumulated in double (block reductions through warp shuffles), the
// layer norm's variance in a second pass over the row (biased, as torch),
// so no cancellation when |mean| >> std; the CPU backend does the same in
// Kernels.cpp and the results differ only in summation order.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "NormPaths.h"
#include "NormRows.cuh"
#include "Norms.cuh"
#include "sprt/kernels.h"

using namespace sprt::cuda;

namespace {

template <int C, int V>
__global__ void __launch_bounds__(kMaxRowThreads)
    layerNormFused(const float *__restrict__ x,
                   const float *__restrict__ weight,
                   const float *__restrict__ bias, float *__restrict__ y,
                   int64_t H, double eps) {
  __shared__ double red[32];
  const int64_t nVec = H / V, t = blockIdx.x;
  RowRegs<C, V> xr, w, b;
  xr.load(x + t * H, nVec);
  w.loadOr(weight, nVec, 1.0f);
  b.loadOr(bias, nVec, 0.0f);
  double mean, rstd;
  layerNormStatsRegs(xr, nVec, H, eps, red, mean, rstd);
#pragma unroll
  for (int k = 0; k < C; ++k)
#pragma unroll
    for (int e = 0; e < V; ++e) {
      double v = (double(xr.v[k][e]) - mean) * rstd;
      if (weight)
        v *= double(w.v[k][e]);
      if (bias)
        v += double(b.v[k][e]);
      xr.v[k][e] = float(v);
    }
  xr.store(y + t * H, nVec);
}

template <int C, int V>
__global__ void __launch_bounds__(kMaxRowThreads)
    rmsNormFused(const float *__restrict__ x, const float *__restrict__ weight,
                 float *__restrict__ y, int64_t H, double eps) {
  __shared__ double red[32];
  const int64_t nVec = H / V, t = blockIdx.x;
  RowRegs<C, V> xr, w;
  xr.load(x + t * H, nVec);
  w.loadOr(weight, nVec, 1.0f);
  const double r = rmsNormScaleRegs(xr, H, eps, red);
#pragma unroll
  for (int k = 0; k < C; ++k)
#pragma unroll
    for (int e = 0; e < V; ++e) {
      double v = double(xr.v[k][e]) * r;
      if (weight)
        v *= double(w.v[k][e]);
      xr.v[k][e] = float(v);
    }
  xr.store(y + t * H, nVec);
}

__global__ void layerNormKernel(const float *__restrict__ x,
                                const float *__restrict__ weight,
                                const float *__restrict__ bias,
                                float *__restrict__ y, int64_t H, double eps) {
  __shared__ double red[32];
  const float *xr = x + blockIdx.x * H;
  float *yr = y + blockIdx.x * H;
  double mean, rstd;
  layerNormStats(xr, H, eps, red, mean, rstd);
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double v = (double(xr[i]) - mean) * rstd;
    if (weight)
      v *= double(weight[i]);
    if (bias)
      v += double(bias[i]);
    yr[i] = float(v);
  }
}

__global__ void rmsNormKernel(const float *__restrict__ x,
                              const float *__restrict__ weight,
                              float *__restrict__ y, int64_t H, double eps) {
  __shared__ double red[32];
  const float *xr = x + blockIdx.x * H;
  float *yr = y + blockIdx.x * H;
  const double r = rmsNormScale(xr, H, eps, red);
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double v = double(xr[i]) * r;
    if (weight)
      v *= double(weight[i]);
    yr[i] = float(v);
  }
}

bool allAligned(std::initializer_list<const void *> ps) {
  for (const void *p : ps)
    if (p && !aligned16(p))
      return false;
  return true;
}

} // namespace

void sprt::cuda::layerNormRowPerBlock(const float *x, const float *weight,
                                      const float *bias, float *y, int64_t T,
                                      int64_t H, double eps) {
  layerNormKernel<<<unsigned(T), kThreads, 0, stream()>>>(x, weight, bias, y, H,
                                                          eps);
  SPRT_CUDA_CHECK_LAUNCH("layerNormKernel");
}

void sprt::cuda::rmsNormRowPerBlock(const float *x, const float *weight,
                                    float *y, int64_t T, int64_t H,
                                    double eps) {
  rmsNormKernel<<<unsigned(T), kThreads, 0, stream()>>>(x, weight, y, H, eps);
  SPRT_CUDA_CHECK_LAUNCH("rmsNormKernel");
}

extern "C" {

void sprt_layer_norm_f32(const float *x, const float *weight, const float *bias,
                         float *y, int64_t T, int64_t H, double eps) {
  if (H <= 0 || T <= 0)
    return;
  checkRows(T, "sprt_layer_norm_f32");
  const RowShape s = rowShapeFor(H, allAligned({x, weight, bias, y}));
  if (!s.fused) {
    layerNormRowPerBlock(x, weight, bias, y, T, H, eps);
    return;
  }
  dispatchRowShape(s, [&](auto c, auto v) {
    layerNormFused<decltype(c)::value, decltype(v)::value>
        <<<unsigned(T), unsigned(s.threads), 0, stream()>>>(x, weight, bias, y,
                                                            H, eps);
  });
  SPRT_CUDA_CHECK_LAUNCH("layerNormFused");
}

void sprt_rms_norm_f32(const float *x, const float *weight, float *y, int64_t T,
                       int64_t H, double eps) {
  if (H <= 0 || T <= 0)
    return;
  checkRows(T, "sprt_rms_norm_f32");
  const RowShape s = rowShapeFor(H, allAligned({x, weight, y}));
  if (!s.fused) {
    rmsNormRowPerBlock(x, weight, y, T, H, eps);
    return;
  }
  dispatchRowShape(s, [&](auto c, auto v) {
    rmsNormFused<decltype(c)::value, decltype(v)::value>
        <<<unsigned(T), unsigned(s.threads), 0, stream()>>>(x, weight, y, H,
                                                            eps);
  });
  SPRT_CUDA_CHECK_LAUNCH("rmsNormFused");
}

} // extern "C"
