//===- Norms.cu - CUDA layer and RMS normalisation ------------------------===//
//
// One block per row (token). Where the row fits NormRows.cuh's register
// layout (H % 4 == 0 and 16-byte aligned rows: float4 loads; H <= 4096, or
// H <= 2048 with scalar loads) the row is read from memory once into
// registers and the output written from them; otherwise a block of
// kThreads threads strides over the row, reading it twice. The fused
// kernels are instantiated for f32, bf16 and f16 rows (the typed entry
// points, TypedNorms.cu): loads widen, stores round the f32 value once.
// With a residual (sprt_add_*norm_typed, sprt_dropout_add_*norm_typed) the
// fused forward first forms each row's residual sum in registers (with
// the dropout's mask drawn per element as Dropout.cu draws it), stores it
// rounded and normalises the rounded values.
// Statistics are accumulated in double (block reductions through warp
// shuffles), the layer norm's variance in a second pass over the row (biased,
// as torch), so no cancellation when |mean| >> std; the CPU backend does the
// same in Kernels.cpp and the results differ only in summation order.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "NormPaths.h"
#include "NormRows.cuh"
#include "Norms.cuh"
#include "sprt/device.h"
#include "sprt/kernels.h"
#include "sprt/philox.h"

using namespace sprt::cuda;

namespace {

/// Row t's dropout applied to its elements in registers as
/// sprt_dropout_typed stores them (kept: scaled in f32; dropped: zero).
template <int32_t D, int C, int V>
__device__ void dropRow(RowRegs<C, V> &xr, const SumDropout &drop,
                        const uint64_t *__restrict__ salt, int64_t t,
                        int64_t nVec) {
  // The row's first element's global index: its index in dims 0..rank-2
  // plus the shard's offsets, against the global strides.
  int64_t rest = t, base = drop.offset[drop.rank - 1];
  for (int32_t d = drop.rank - 2; d >= 0; --d) {
    base += (drop.offset[d] + rest % drop.shape[d]) * drop.gstride[d];
    rest /= drop.shape[d];
  }
  const uint64_t key = drop.seed ^ *salt;
#pragma unroll
  for (int k = 0; k < C; ++k) {
    if (!xr.inRow(k, nVec))
      continue;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const int64_t i = xr.vecIndex(k) * V + e;
      const bool keep = drop.rate <= 0.0 ||
                        sprt::philox::dropoutKeep(
                            key, drop.stream, uint64_t(base + i), drop.rate);
      xr.v[k][e] = keep ? __fmul_rn(xr.v[k][e], drop.scale) : 0.0f;
    }
  }
}

/// Row t of x into registers; with a residual, x + residual (sprt_add_typed's
/// sum; with `drop`, residual + dropout(x), sprt_dropout_add_typed's) stored
/// into `sum` and kept as stored.
template <int32_t D, int C, int V>
__device__ void loadNormInput(RowRegs<C, V> &xr, const void *__restrict__ x,
                              const void *__restrict__ residual,
                              void *__restrict__ sum, const SumDropout &drop,
                              const uint64_t *__restrict__ salt, int64_t t,
                              int64_t H) {
  const int64_t nVec = H / V;
  xr.template load<D>(elementAt<D>(x, t * H), nVec);
  if (!residual)
    return;
  if (drop.rate >= 0.0)
    dropRow<D>(xr, drop, salt, t, nVec);
  // (addRow rounds the dropped element to D first, as the dropout stores it.)
  xr.template addRow<D>(elementAt<D>(residual, t * H), nVec);
  xr.template roundToStored<D>();
  xr.template store<D>(elementAt<D>(sum, t * H), nVec);
}

template <int32_t D, int C, int V>
__global__ void __launch_bounds__(kMaxRowThreads)
    layerNormFused(const void *__restrict__ x,
                   const void *__restrict__ residual,
                   const void *__restrict__ weight,
                   const void *__restrict__ bias, void *__restrict__ sum,
                   void *__restrict__ y, int64_t H, double eps, SumDropout drop,
                   const uint64_t *__restrict__ salt) {
  __shared__ double red[32];
  const int64_t nVec = H / V, t = blockIdx.x;
  RowRegs<C, V> xr, w, b;
  loadNormInput<D>(xr, x, residual, sum, drop, salt, t, H);
  w.template loadOr<D>(weight, nVec, 1.0f);
  b.template loadOr<D>(bias, nVec, 0.0f);
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
  xr.template store<D>(elementAt<D>(y, t * H), nVec);
}

template <int32_t D, int C, int V>
__global__ void __launch_bounds__(kMaxRowThreads)
    rmsNormFused(const void *__restrict__ x, const void *__restrict__ residual,
                 const void *__restrict__ weight, void *__restrict__ sum,
                 void *__restrict__ y, int64_t H, double eps, SumDropout drop,
                 const uint64_t *__restrict__ salt) {
  __shared__ double red[32];
  const int64_t nVec = H / V, t = blockIdx.x;
  RowRegs<C, V> xr, w;
  loadNormInput<D>(xr, x, residual, sum, drop, salt, t, H);
  w.template loadOr<D>(weight, nVec, 1.0f);
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
  xr.template store<D>(elementAt<D>(y, t * H), nVec);
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

/// The step's dropout salt on the device, where the sum has a dropout.
const uint64_t *saltFor(const SumDropout &drop) {
  return drop.rate >= 0.0 ? &sprt_step_values_device()->dropout_salt : nullptr;
}

/// The fused forward on rows of type D (with the residual's sum where
/// `residual` is not null), or false where they do not fit (fusedRowShape:
/// the norm's own rows are those of the sum it reads back when unfused).
template <int32_t D>
bool layerNormFusedAs(const void *x, const void *residual, const void *weight,
                      const void *bias, void *sum, void *y, int64_t T,
                      int64_t H, double eps, const SumDropout &drop) {
  const RowShape s = fusedRowShape<D>(H, {residual ? sum : x, weight, bias, y},
                                      {residual ? x : nullptr, residual});
  if (!s.fused)
    return false;
  dispatchRowShape(s, [&](auto c, auto v) {
    layerNormFused<D, decltype(c)::value, decltype(v)::value>
        <<<unsigned(T), unsigned(s.threads), 0, stream()>>>(
            x, residual, weight, bias, sum, y, H, eps, drop, saltFor(drop));
  });
  SPRT_CUDA_CHECK_LAUNCH("layerNormFused");
  return true;
}

template <int32_t D>
bool rmsNormFusedAs(const void *x, const void *residual, const void *weight,
                    void *sum, void *y, int64_t T, int64_t H, double eps,
                    const SumDropout &drop) {
  const RowShape s = fusedRowShape<D>(H, {residual ? sum : x, weight, y},
                                      {residual ? x : nullptr, residual});
  if (!s.fused)
    return false;
  dispatchRowShape(s, [&](auto c, auto v) {
    rmsNormFused<D, decltype(c)::value, decltype(v)::value>
        <<<unsigned(T), unsigned(s.threads), 0, stream()>>>(
            x, residual, weight, sum, y, H, eps, drop, saltFor(drop));
  });
  SPRT_CUDA_CHECK_LAUNCH("rmsNormFused");
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

bool sprt::cuda::addLayerNormFusedStored(int32_t dtype, const void *x,
                                         const void *residual,
                                         const void *weight, const void *bias,
                                         void *sum, void *y, int64_t T,
                                         int64_t H, double eps,
                                         const SumDropout &drop) {
  switch (dtype) {
  case SPRT_DTYPE_F32:
    return layerNormFusedAs<SPRT_DTYPE_F32>(x, residual, weight, bias, sum, y,
                                            T, H, eps, drop);
  case SPRT_DTYPE_BF16:
    return layerNormFusedAs<SPRT_DTYPE_BF16>(x, residual, weight, bias, sum, y,
                                             T, H, eps, drop);
  case SPRT_DTYPE_F16:
    return layerNormFusedAs<SPRT_DTYPE_F16>(x, residual, weight, bias, sum, y,
                                            T, H, eps, drop);
  }
  return false;
}

bool sprt::cuda::layerNormFusedStored(int32_t dtype, const void *x,
                                      const void *weight, const void *bias,
                                      void *y, int64_t T, int64_t H,
                                      double eps) {
  return addLayerNormFusedStored(dtype, x, nullptr, weight, bias, nullptr, y, T,
                                 H, eps);
}

bool sprt::cuda::addRmsNormFusedStored(int32_t dtype, const void *x,
                                       const void *residual, const void *weight,
                                       void *sum, void *y, int64_t T, int64_t H,
                                       double eps, const SumDropout &drop) {
  switch (dtype) {
  case SPRT_DTYPE_F32:
    return rmsNormFusedAs<SPRT_DTYPE_F32>(x, residual, weight, sum, y, T, H,
                                          eps, drop);
  case SPRT_DTYPE_BF16:
    return rmsNormFusedAs<SPRT_DTYPE_BF16>(x, residual, weight, sum, y, T, H,
                                           eps, drop);
  case SPRT_DTYPE_F16:
    return rmsNormFusedAs<SPRT_DTYPE_F16>(x, residual, weight, sum, y, T, H,
                                          eps, drop);
  }
  return false;
}

bool sprt::cuda::rmsNormFusedStored(int32_t dtype, const void *x,
                                    const void *weight, void *y, int64_t T,
                                    int64_t H, double eps) {
  return addRmsNormFusedStored(dtype, x, nullptr, weight, nullptr, y, T, H,
                               eps);
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
  if (!layerNormFusedStored(SPRT_DTYPE_F32, x, weight, bias, y, T, H, eps))
    layerNormRowPerBlock(x, weight, bias, y, T, H, eps);
}

void sprt_rms_norm_f32(const float *x, const float *weight, float *y, int64_t T,
                       int64_t H, double eps) {
  if (H <= 0 || T <= 0)
    return;
  checkRows(T, "sprt_rms_norm_f32");
  if (!rmsNormFusedStored(SPRT_DTYPE_F32, x, weight, y, T, H, eps))
    rmsNormRowPerBlock(x, weight, y, T, H, eps);
}

} // extern "C"
