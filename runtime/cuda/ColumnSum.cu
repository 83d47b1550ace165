//===- ColumnSum.cu - two-stage column sums and the bias gradient ---------===//
//
// sumPartials (stage 2 of ColumnSum.cuh) and sprt_bias_grad_f32 (and
// _typed, on bf16 / f16 rows widened as they are read) on it:
// db[i] = sum over t of dy[t, i], column partials over row tiles into the
// backend's scratch (Scratch::ColumnPartials, counted with the rest of the
// scratch in the measured memory), then one sum over the tiles. It replaced
// one thread per column walking all T rows, which left most of the GPU idle
// (a few blocks for H = 768) and ran at a few percent of HBM bandwidth.
//
//===----------------------------------------------------------------------===//

#include "ColumnSum.cuh"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace sprt::cuda {

int smCount() {
  static const int count = [] {
    int device = 0, n = 0;
    SPRT_CUDA_CHECK(cudaGetDevice(&device));
    SPRT_CUDA_CHECK(
        cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device));
    return n > 0 ? n : 1;
  }();
  return count;
}

ColumnTiles columnTilesFor(int64_t T) {
  // At least 64 rows a tile (8 per thread: loads in flight), at most 256
  // tiles (the partials stay small: 256 H floats, read once by stage 2).
  int64_t rows = (T + 255) / 256;
  if (rows < 64)
    rows = 64;
  rows = (rows + kColumnRowLanes - 1) / kColumnRowLanes * kColumnRowLanes;
  return {rows, T > 0 ? (T + rows - 1) / rows : 1};
}

namespace {

/// Rows of elements of E (float, __nv_bfloat16 or __half), widened.
template <typename E> struct ReadRows {
  const E *__restrict__ m;
  int64_t H;
  __device__ void operator()(int64_t t, int64_t c, double *v) const {
    v[0] = double(float(m[t * H + c]));
  }
};

/// db = the column sums of dy's rows, in f32.
template <typename E>
void biasGrad(const E *dy, float *db, int64_t T, int64_t H) {
  if (T <= 0) {
    SPRT_CUDA_CHECK(
        cudaMemsetAsync(db, 0, size_t(H) * sizeof(float), stream()));
    return;
  }
  const ColumnTiles tiles = columnTilesFor(T);
  if (tiles.tiles == 1) {
    launchColumnPartials<1>(ReadRows<E>{dy, H}, T, H, tiles, db, nullptr,
                            kColumnRowLanes,
                            "biasGrad launch at " SPRT_CUDA_WHERE);
    return;
  }
  float *parts = static_cast<float *>(scratch(
      Scratch::ColumnPartials, size_t(tiles.tiles * H) * sizeof(float)));
  launchColumnPartials<1>(ReadRows<E>{dy, H}, T, H, tiles, parts, nullptr,
                          kColumnRowLanes,
                          "biasGrad launch at " SPRT_CUDA_WHERE);
  sumPartials(parts, tiles.tiles, H, db);
}

} // namespace

void sumPartials(const float *partials, int64_t parts, int64_t H, float *out) {
  if (H <= 0)
    return;
  launchColumnPartials<1>(ReadRows<float>{partials, H}, parts, H,
                          ColumnTiles{parts, 1}, out, nullptr, kSumRowLanes,
                          "sumPartials launch at " SPRT_CUDA_WHERE);
}

} // namespace sprt::cuda

using namespace sprt::cuda;

extern "C" void sprt_bias_grad_f32(const float *dy, float *db, int64_t T,
                                   int64_t H) {
  if (H <= 0)
    return;
  biasGrad(dy, db, T, H);
}

// The f32 kernel's sums in the same order on the widened elements; db
// rounded once from them.
extern "C" void sprt_bias_grad_typed(const void *dy, int32_t dy_dtype, void *db,
                                     int32_t db_dtype, int64_t T, int64_t H) {
  if (H <= 0)
    return;
  // An unknown dtype aborts here, before anything is issued.
  sprt_convert(nullptr, dy_dtype, nullptr, SPRT_DTYPE_F32, 0);
  sprt_convert(nullptr, SPRT_DTYPE_F32, nullptr, db_dtype, 0);
  float *sums = db_dtype == SPRT_DTYPE_F32
                    ? static_cast<float *>(db)
                    : static_cast<float *>(scratch(Scratch::BiasGradSums,
                                                   size_t(H) * sizeof(float)));
  if (dy_dtype == SPRT_DTYPE_F32)
    biasGrad(static_cast<const float *>(dy), sums, T, H);
  else if (dy_dtype == SPRT_DTYPE_BF16)
    biasGrad(static_cast<const __nv_bfloat16 *>(dy), sums, T, H);
  else
    biasGrad(static_cast<const __half *>(dy), sums, T, H);
  if (db_dtype != SPRT_DTYPE_F32)
    sprt_convert(sums, SPRT_DTYPE_F32, db, db_dtype, H);
}
