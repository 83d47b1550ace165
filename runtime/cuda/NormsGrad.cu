//===- NormsGrad.cu - CUDA backward of layer and RMS normalisation --------===//
//
// Formulas as runtime/cpu/GradKernels.cpp: with g = dy * w,
//   layer norm: dx = rstd (g - mean(g) - xhat mean(g xhat)),
//               dw = sum_t dy xhat, db = sum_t dy;
//   RMS norm:   dx = r (g - x r^2 mean(g x)), dw = sum_t dy x r.
//
// Fused path (rows that fit NormRows.cuh's registers): G blocks, each over
// a contiguous tile of rows, one row at a time (the next row's x and dy
// loaded while the current one is reduced, where registers allow). A block
// recomputes the row's statistics from x in registers, writes dx, and adds the
// row's dw and db contributions to per-thread double accumulators of its
// columns; at the end it writes them as float partials [G, H]
// (Scratch::ColumnPartials), which sumPartials (ColumnSum.cuh) adds up per
// column. dy and x are read once, dx written once. G is what fits on the device
// at once, and at most one block per kMinRowsPerBlock rows (the partials stay a
// few percent of the traffic).
//
// Two-pass path (other shapes): the row-per-block kernel writes dx and
// each row's statistics (Scratch::RowStats), then two-stage column sums
// over dy, x and the statistics form dw and db.
//
// Both replaced one thread per column walking all T rows for dw and db,
// which ran a handful of blocks (3.7 ms a call for GPT-2 124M's T = 8192,
// H = 768 on an H200, issue 29).
//
//===----------------------------------------------------------------------===//

#include "ColumnSum.cuh"
#include "Common.cuh"
#include "NormPaths.h"
#include "NormRows.cuh"
#include "Norms.cuh"
#include "sprt/grad_kernels.h"

using namespace sprt::cuda;

namespace {

constexpr int64_t kMinRowsPerBlock = 16;

/// Whether the next row's x and dy are loaded while the current row is
/// reduced: where a thread holds at most 4 floats of a row (the registers
/// of a wider row would spill).
template <int C, int V> constexpr bool kPrefetch = C *V <= 4;

/// Writes a thread's column accumulators as row `part` of partials [G, H].
template <int C, int V>
__device__ void writePartials(const double (&acc)[C][V], float *out,
                              int64_t nVec) {
  RowRegs<C, V> r;
#pragma unroll
  for (int k = 0; k < C; ++k)
#pragma unroll
    for (int e = 0; e < V; ++e)
      r.v[k][e] = float(acc[k][e]);
  r.store(out, nVec);
}

template <int32_t D, int C, int V>
__global__ void __launch_bounds__(kMaxRowThreads)
    layerNormGradFused(const void *__restrict__ dy, const void *__restrict__ x,
                       const void *__restrict__ weight,
                       const void *__restrict__ residual, void *__restrict__ dx,
                       float *__restrict__ partW, float *__restrict__ partB,
                       int64_t T, int64_t H, int64_t rowsPerBlock, double eps) {
  __shared__ double red[64];
  const int64_t nVec = H / V;
  const int64_t t0 = int64_t(blockIdx.x) * rowsPerBlock;
  const int64_t t1 = t0 + rowsPerBlock < T ? t0 + rowsPerBlock : T;
  RowRegs<C, V> w, xr, gr;
  w.template loadOr<D>(weight, nVec, 1.0f);
  double accW[C][V] = {}, accB[C][V] = {};
  if (t0 < t1) {
    xr.template load<D>(elementAt<D>(x, t0 * H), nVec);
    gr.template load<D>(elementAt<D>(dy, t0 * H), nVec);
  }
  for (int64_t t = t0; t < t1; ++t) {
    RowRegs<C, V> xn, gn;
    if (kPrefetch<C, V> && t + 1 < t1) {
      xn.template load<D>(elementAt<D>(x, (t + 1) * H), nVec);
      gn.template load<D>(elementAt<D>(dy, (t + 1) * H), nVec);
    }
    double mean, rstd;
    layerNormStatsRegs(xr, nVec, H, eps, red, mean, rstd);
    double sumG = 0.0, sumGX = 0.0;
#pragma unroll
    for (int k = 0; k < C; ++k)
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const double d = double(gr.v[k][e]);
        const double xhat = (double(xr.v[k][e]) - mean) * rstd;
        const double g = weight ? d * double(w.v[k][e]) : d;
        sumG += g;
        sumGX += g * xhat;
        accW[k][e] += d * xhat;
        accB[k][e] += d;
      }
    blockSum2(sumG, sumGX, red);
    const double meanG = sumG / double(H), meanGX = sumGX / double(H);
#pragma unroll
    for (int k = 0; k < C; ++k)
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const double d = double(gr.v[k][e]);
        const double xhat = (double(xr.v[k][e]) - mean) * rstd;
        const double g = weight ? d * double(w.v[k][e]) : d;
        gr.v[k][e] = float(rstd * (g - meanG - xhat * meanGX));
      }
    gr.template addRow<D>(residual ? elementAt<D>(residual, t * H) : nullptr,
                          nVec);
    gr.template store<D>(elementAt<D>(dx, t * H), nVec);
    if (kPrefetch<C, V>) {
      xr = xn;
      gr = gn;
    } else if (t + 1 < t1) {
      xr.template load<D>(elementAt<D>(x, (t + 1) * H), nVec);
      gr.template load<D>(elementAt<D>(dy, (t + 1) * H), nVec);
    }
  }
  if (partW)
    writePartials(accW, partW + int64_t(blockIdx.x) * H, nVec);
  if (partB)
    writePartials(accB, partB + int64_t(blockIdx.x) * H, nVec);
}

template <int32_t D, int C, int V>
__global__ void __launch_bounds__(kMaxRowThreads)
    rmsNormGradFused(const void *__restrict__ dy, const void *__restrict__ x,
                     const void *__restrict__ weight,
                     const void *__restrict__ residual, void *__restrict__ dx,
                     float *__restrict__ partW, int64_t T, int64_t H,
                     int64_t rowsPerBlock, double eps) {
  __shared__ double red[32];
  const int64_t nVec = H / V;
  const int64_t t0 = int64_t(blockIdx.x) * rowsPerBlock;
  const int64_t t1 = t0 + rowsPerBlock < T ? t0 + rowsPerBlock : T;
  RowRegs<C, V> w, xr, gr;
  w.template loadOr<D>(weight, nVec, 1.0f);
  double accW[C][V] = {};
  if (t0 < t1) {
    xr.template load<D>(elementAt<D>(x, t0 * H), nVec);
    gr.template load<D>(elementAt<D>(dy, t0 * H), nVec);
  }
  for (int64_t t = t0; t < t1; ++t) {
    RowRegs<C, V> xn, gn;
    if (kPrefetch<C, V> && t + 1 < t1) {
      xn.template load<D>(elementAt<D>(x, (t + 1) * H), nVec);
      gn.template load<D>(elementAt<D>(dy, (t + 1) * H), nVec);
    }
    const double r = rmsNormScaleRegs(xr, H, eps, red);
    double sumGX = 0.0;
#pragma unroll
    for (int k = 0; k < C; ++k)
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const double d = double(gr.v[k][e]), xv = double(xr.v[k][e]);
        const double g = weight ? d * double(w.v[k][e]) : d;
        sumGX += g * xv;
        accW[k][e] += d * xv * r;
      }
    const double c = r * r * blockSum(sumGX, red) / double(H);
#pragma unroll
    for (int k = 0; k < C; ++k)
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const double d = double(gr.v[k][e]), xv = double(xr.v[k][e]);
        const double g = weight ? d * double(w.v[k][e]) : d;
        gr.v[k][e] = float(r * (g - xv * c));
      }
    gr.template addRow<D>(residual ? elementAt<D>(residual, t * H) : nullptr,
                          nVec);
    gr.template store<D>(elementAt<D>(dx, t * H), nVec);
    if (kPrefetch<C, V>) {
      xr = xn;
      gr = gn;
    } else if (t + 1 < t1) {
      xr.template load<D>(elementAt<D>(x, (t + 1) * H), nVec);
      gr.template load<D>(elementAt<D>(dy, (t + 1) * H), nVec);
    }
  }
  if (partW)
    writePartials(accW, partW + int64_t(blockIdx.x) * H, nVec);
}

__global__ void
layerNormGradRows(const float *__restrict__ dy, const float *__restrict__ x,
                  const float *__restrict__ weight, float *__restrict__ dx,
                  double2 *__restrict__ stats, int64_t H, double eps) {
  __shared__ double red[32];
  const int64_t t = blockIdx.x;
  const float *xr = x + t * H, *dyr = dy + t * H;
  double mean, rstd;
  layerNormStats(xr, H, eps, red, mean, rstd);
  double sumG = 0.0, sumGX = 0.0;
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double xhat = (double(xr[i]) - mean) * rstd;
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    sumG += g;
    sumGX += g * xhat;
  }
  const double meanG = blockSum(sumG, red) / double(H);
  const double meanGX = blockSum(sumGX, red) / double(H);
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double xhat = (double(xr[i]) - mean) * rstd;
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    dx[t * H + i] = float(rstd * (g - meanG - xhat * meanGX));
  }
  if (threadIdx.x == 0 && stats)
    stats[t] = make_double2(mean, rstd);
}

__global__ void rmsNormGradRows(const float *__restrict__ dy,
                                const float *__restrict__ x,
                                const float *__restrict__ weight,
                                float *__restrict__ dx, double *__restrict__ rs,
                                int64_t H, double eps) {
  __shared__ double red[32];
  const int64_t t = blockIdx.x;
  const float *xr = x + t * H, *dyr = dy + t * H;
  const double r = rmsNormScale(xr, H, eps, red);
  double sumGX = 0.0;
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    sumGX += g * double(xr[i]);
  }
  const double c = r * r * blockSum(sumGX, red) / double(H);
  for (int64_t i = threadIdx.x; i < H; i += blockDim.x) {
    double g = weight ? double(dyr[i]) * double(weight[i]) : double(dyr[i]);
    dx[t * H + i] = float(r * (g - double(xr[i]) * c));
  }
  if (threadIdx.x == 0 && rs)
    rs[t] = r;
}

/// Row t's contributions dy xhat and dy to column c (two-pass path).
struct LayerNormColumns {
  const float *__restrict__ dy, *__restrict__ x;
  const double2 *__restrict__ stats;
  int64_t H;
  __device__ void operator()(int64_t t, int64_t c, double *v) const {
    const double d = double(dy[t * H + c]);
    const double2 st = stats[t];
    v[0] = d * ((double(x[t * H + c]) - st.x) * st.y);
    v[1] = d;
  }
};

/// Row t's contribution dy x r to column c (two-pass path).
struct RmsNormColumns {
  const float *__restrict__ dy, *__restrict__ x;
  const double *__restrict__ rs;
  int64_t H;
  __device__ void operator()(int64_t t, int64_t c, double *v) const {
    v[0] = double(dy[t * H + c]) * double(x[t * H + c]) * rs[t];
  }
};

/// Float partials [parts, H] for `count` outputs in the scratch slot.
float *partialsFor(int64_t parts, int64_t H, int count) {
  return static_cast<float *>(
      scratch(Scratch::ColumnPartials,
              size_t(count) * size_t(parts * H) * sizeof(float)));
}

/// Blocks of the fused backward: as many as are resident at once, at most
/// one per kMinRowsPerBlock rows, and the rows each.
template <typename Kernel>
std::pair<int64_t, int64_t> fusedGrid(Kernel kernel, int threads, int64_t T) {
  int perSm = 0;
  SPRT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel,
                                                                threads, 0));
  int64_t blocks = int64_t(perSm > 0 ? perSm : 1) * smCount();
  const int64_t byRows = (T + kMinRowsPerBlock - 1) / kMinRowsPerBlock;
  if (blocks > byRows)
    blocks = byRows;
  const int64_t rows = (T + blocks - 1) / blocks;
  return {(T + rows - 1) / rows, rows};
}

/// Whether one block writes the column sums into dw / db themselves (its
/// float4 stores need them 16-byte aligned); else partials, summed after
/// (one partial's sum is itself: the same bits).
bool writesColumnsDirectly(int64_t blocks,
                           std::initializer_list<const float *> columns) {
  for (const float *p : columns)
    if (!aligned16(p))
      return false;
  return blocks == 1;
}

void zeroColumns(float *p, int64_t H) {
  if (p)
    SPRT_CUDA_CHECK(cudaMemsetAsync(p, 0, size_t(H) * sizeof(float), stream()));
}

} // namespace

void sprt::cuda::layerNormGradTwoPass(const float *dy, const float *x,
                                      const float *weight, float *dx, float *dw,
                                      float *db, int64_t T, int64_t H,
                                      double eps) {
  const bool wantColumns = dw || db;
  double2 *stats =
      wantColumns ? static_cast<double2 *>(
                        scratch(Scratch::RowStats, size_t(T) * sizeof(double2)))
                  : nullptr;
  layerNormGradRows<<<unsigned(T), kThreads, 0, stream()>>>(dy, x, weight, dx,
                                                            stats, H, eps);
  SPRT_CUDA_CHECK_LAUNCH("layerNormGradRows");
  if (!wantColumns)
    return;
  const ColumnTiles tiles = columnTilesFor(T);
  const LayerNormColumns op{dy, x, stats, H};
  if (tiles.tiles == 1 && dw && db) {
    launchColumnPartials<2>(op, T, H, tiles, dw, db, kColumnRowLanes,
                            "layerNormGradColumns launch at " SPRT_CUDA_WHERE);
    return;
  }
  float *parts = partialsFor(tiles.tiles, H, 2);
  float *partB = parts + tiles.tiles * H;
  launchColumnPartials<2>(op, T, H, tiles, parts, partB, kColumnRowLanes,
                          "layerNormGradColumns launch at " SPRT_CUDA_WHERE);
  if (dw)
    sumPartials(parts, tiles.tiles, H, dw);
  if (db)
    sumPartials(partB, tiles.tiles, H, db);
}

void sprt::cuda::rmsNormGradTwoPass(const float *dy, const float *x,
                                    const float *weight, float *dx, float *dw,
                                    int64_t T, int64_t H, double eps) {
  double *rs = dw ? static_cast<double *>(
                        scratch(Scratch::RowStats, size_t(T) * sizeof(double)))
                  : nullptr;
  rmsNormGradRows<<<unsigned(T), kThreads, 0, stream()>>>(dy, x, weight, dx, rs,
                                                          H, eps);
  SPRT_CUDA_CHECK_LAUNCH("rmsNormGradRows");
  if (!dw)
    return;
  const ColumnTiles tiles = columnTilesFor(T);
  const RmsNormColumns op{dy, x, rs, H};
  if (tiles.tiles == 1) {
    launchColumnPartials<1>(op, T, H, tiles, dw, nullptr, kColumnRowLanes,
                            "rmsNormGradColumns launch at " SPRT_CUDA_WHERE);
    return;
  }
  float *parts = partialsFor(tiles.tiles, H, 1);
  launchColumnPartials<1>(op, T, H, tiles, parts, nullptr, kColumnRowLanes,
                          "rmsNormGradColumns launch at " SPRT_CUDA_WHERE);
  sumPartials(parts, tiles.tiles, H, dw);
}

namespace {

/// The fused backward on rows of type D, or false where they do not fit.
template <int32_t D>
bool layerNormGradFusedAs(const void *dy, const void *x, const void *weight,
                          const void *residual, void *dx, float *dw, float *db,
                          int64_t T, int64_t H, double eps) {
  // A residual off the others' alignment: the caller adds it apart.
  const RowShape s = fusedRowShape<D>(H, {dy, x, weight, dx}, {residual});
  if (!s.fused)
    return false;
  dispatchRowShape(s, [&](auto c, auto v) {
    auto kernel = layerNormGradFused<D, decltype(c)::value, decltype(v)::value>;
    const auto [blocks, rows] = fusedGrid(kernel, s.threads, T);
    const bool direct = writesColumnsDirectly(blocks, {dw, db});
    float *partW = dw, *partB = db;
    if (!direct && (dw || db)) {
      float *parts = partialsFor(blocks, H, 2);
      partW = dw ? parts : nullptr;
      partB = db ? parts + blocks * H : nullptr;
    }
    kernel<<<unsigned(blocks), unsigned(s.threads), 0, stream()>>>(
        dy, x, weight, residual, dx, partW, partB, T, H, rows, eps);
    SPRT_CUDA_CHECK_LAUNCH("layerNormGradFused");
    if (!direct && dw)
      sumPartials(partW, blocks, H, dw);
    if (!direct && db)
      sumPartials(partB, blocks, H, db);
  });
  return true;
}

template <int32_t D>
bool rmsNormGradFusedAs(const void *dy, const void *x, const void *weight,
                        const void *residual, void *dx, float *dw, int64_t T,
                        int64_t H, double eps) {
  // A residual off the others' alignment: the caller adds it apart.
  const RowShape s = fusedRowShape<D>(H, {dy, x, weight, dx}, {residual});
  if (!s.fused)
    return false;
  dispatchRowShape(s, [&](auto c, auto v) {
    auto kernel = rmsNormGradFused<D, decltype(c)::value, decltype(v)::value>;
    const auto [blocks, rows] = fusedGrid(kernel, s.threads, T);
    const bool direct = writesColumnsDirectly(blocks, {dw});
    float *partW = dw;
    if (!direct && dw)
      partW = partialsFor(blocks, H, 1);
    kernel<<<unsigned(blocks), unsigned(s.threads), 0, stream()>>>(
        dy, x, weight, residual, dx, partW, T, H, rows, eps);
    SPRT_CUDA_CHECK_LAUNCH("rmsNormGradFused");
    if (!direct && dw)
      sumPartials(partW, blocks, H, dw);
  });
  return true;
}

} // namespace

bool sprt::cuda::layerNormGradFusedStored(int32_t dtype, const void *dy,
                                          const void *x, const void *weight,
                                          const void *residual, void *dx,
                                          float *dw, float *db, int64_t T,
                                          int64_t H, double eps) {
  switch (dtype) {
  case SPRT_DTYPE_F32:
    return layerNormGradFusedAs<SPRT_DTYPE_F32>(dy, x, weight, residual, dx, dw,
                                                db, T, H, eps);
  case SPRT_DTYPE_BF16:
    return layerNormGradFusedAs<SPRT_DTYPE_BF16>(dy, x, weight, residual, dx,
                                                 dw, db, T, H, eps);
  case SPRT_DTYPE_F16:
    return layerNormGradFusedAs<SPRT_DTYPE_F16>(dy, x, weight, residual, dx, dw,
                                                db, T, H, eps);
  }
  return false;
}

bool sprt::cuda::rmsNormGradFusedStored(int32_t dtype, const void *dy,
                                        const void *x, const void *weight,
                                        const void *residual, void *dx,
                                        float *dw, int64_t T, int64_t H,
                                        double eps) {
  switch (dtype) {
  case SPRT_DTYPE_F32:
    return rmsNormGradFusedAs<SPRT_DTYPE_F32>(dy, x, weight, residual, dx, dw,
                                              T, H, eps);
  case SPRT_DTYPE_BF16:
    return rmsNormGradFusedAs<SPRT_DTYPE_BF16>(dy, x, weight, residual, dx, dw,
                                               T, H, eps);
  case SPRT_DTYPE_F16:
    return rmsNormGradFusedAs<SPRT_DTYPE_F16>(dy, x, weight, residual, dx, dw,
                                              T, H, eps);
  }
  return false;
}

extern "C" {

void sprt_layer_norm_grad_f32(const float *dy, const float *x,
                              const float *weight, float *dx, float *dw,
                              float *db, int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  if (T <= 0) {
    zeroColumns(dw, H);
    zeroColumns(db, H);
    return;
  }
  checkRows(T, "sprt_layer_norm_grad_f32");
  if (!layerNormGradFusedStored(SPRT_DTYPE_F32, dy, x, weight, nullptr, dx, dw,
                                db, T, H, eps))
    layerNormGradTwoPass(dy, x, weight, dx, dw, db, T, H, eps);
}

void sprt_rms_norm_grad_f32(const float *dy, const float *x,
                            const float *weight, float *dx, float *dw,
                            int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  if (T <= 0) {
    zeroColumns(dw, H);
    return;
  }
  checkRows(T, "sprt_rms_norm_grad_f32");
  if (!rmsNormGradFusedStored(SPRT_DTYPE_F32, dy, x, weight, nullptr, dx, dw, T,
                              H, eps))
    rmsNormGradTwoPass(dy, x, weight, dx, dw, T, H, eps);
}

} // extern "C"
