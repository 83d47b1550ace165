//===- ColumnSum.cuh - two-stage column sums over rows ----------*- CUDA
//-*-===//
//
// Sums over the rows of a [T, H] matrix (bias gradients, the norms' weight
// and bias gradients) in two stages, so that every SM has work whatever H:
//   1. columnPartials: a 2-D grid; block (bx, by) sums the rows of tile by
//      for 32 columns (one warp reads 32 consecutive floats of a row: one
//      128-byte line), each thread over every blockDim.y-th row of the tile
//      in double, then the block's threads in a fixed order (shared memory),
//      written as one float per column into partials[by, H];
//   2. sumPartials: the same kernel over the [tiles, H] partials with a
//      single tile, in double, rounded once into the output.
// The order of every sum is fixed by the launch geometry, which depends
// only on T and H: results are reproducible run to run. Rounding each
// partial to float costs at most one float ulp of a partial, well inside
// the conformance suite's 1e-6 of the sum of magnitudes.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_COLUMNSUM_CUH
#define SPRT_CUDA_COLUMNSUM_CUH

#include "Common.cuh"

namespace sprt::cuda {

/// Number of multiprocessors of the current device (asked once).
int smCount();

/// The row tiles stage 1 uses for T rows: rowsPerTile rows each (a
/// multiple of the block's 8 row lanes), `tiles` of them.
struct ColumnTiles {
  int64_t rowsPerTile;
  int64_t tiles;
};
ColumnTiles columnTilesFor(int64_t T);

/// out[c] = float(sum over p < parts of partials[p * H + c]), in double, in
/// a fixed order. On the compute stream.
void sumPartials(const float *partials, int64_t parts, int64_t H, float *out);

constexpr int kColumnLanes = 32;   // columns per block (blockDim.x)
constexpr int kColumnRowLanes = 8; // rows summed side by side (blockDim.y)
constexpr int kSumRowLanes = 32;   // blockDim.y of sumPartials

/// Stage 1 (and 2): Op is a device functor; op(t, c, v) sets v[0..kOut) to
/// row t's contributions to column c's kOut sums. Block (32, rowLanes),
/// grid (ceil(H / 32), tiles); out[k] is [gridDim.y, H].
template <int kOut, typename Op>
__global__ void columnPartialsKernel(Op op, int64_t T, int64_t H,
                                     int64_t rowsPerTile, float *out0,
                                     float *out1) {
  __shared__ double red[kOut][32][kColumnLanes + 1];
  const int64_t c = int64_t(blockIdx.x) * kColumnLanes + threadIdx.x;
  const int64_t t0 = int64_t(blockIdx.y) * rowsPerTile;
  const int64_t t1 = t0 + rowsPerTile < T ? t0 + rowsPerTile : T;
  double acc[kOut];
  for (int k = 0; k < kOut; ++k)
    acc[k] = 0.0;
  if (c < H) {
#pragma unroll 4
    for (int64_t t = t0 + threadIdx.y; t < t1; t += blockDim.y) {
      double v[kOut];
      op(t, c, v);
      for (int k = 0; k < kOut; ++k)
        acc[k] += v[k];
    }
  }
  for (int k = 0; k < kOut; ++k)
    red[k][threadIdx.y][threadIdx.x] = acc[k];
  __syncthreads();
  if (threadIdx.y == 0 && c < H) {
    for (int k = 0; k < kOut; ++k) {
      double s = 0.0;
      for (unsigned r = 0; r < blockDim.y; ++r)
        s += red[k][r][threadIdx.x];
      float *out = k == 0 ? out0 : out1;
      out[int64_t(blockIdx.y) * H + c] = float(s);
    }
  }
}

/// Launches stage 1 over T rows with `tiles` tiles (columnTilesFor) into
/// out0 (and out1 when kOut == 2), each [tiles, H].
template <int kOut, typename Op>
void launchColumnPartials(Op op, int64_t T, int64_t H, ColumnTiles tiles,
                          float *out0, float *out1, int rowLanes,
                          const char *what) {
  const dim3 block(kColumnLanes, unsigned(rowLanes));
  const dim3 grid(unsigned((H + kColumnLanes - 1) / kColumnLanes),
                  unsigned(tiles.tiles));
  columnPartialsKernel<kOut>
      <<<grid, block, 0, stream()>>>(op, T, H, tiles.rowsPerTile, out0, out1);
  check(cudaGetLastError(), what);
}

} // namespace sprt::cuda

#endif // SPRT_CUDA_COLUMNSUM_CUH
