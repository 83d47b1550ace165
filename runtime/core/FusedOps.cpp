//===- FusedOps.cpp - collectives fused with the GEMMs they feed ----------===//
//
// all_gather + linear along the leading dimension, in chunks: chunk i + 1 of
// every rank is in flight while the GEMMs of chunk i run. The gathered rows
// of each rank go straight to their place in the output, so the fused op
// needs a workspace of two chunks, not the whole gathered input (device
// memory from the workspace pool, Staging.h).
//
// linear + reduce_scatter, the other way round: the GEMMs of chunk i + 1
// (the rows of chunk i + 1 of every rank's block) run while the partial sums
// of chunk i are being reduced.
//
// The overlap comes from the communication layer's start / wait: on a GPU
// the collective runs on the communication stream while the GEMMs run on
// the compute stream.
//
//===----------------------------------------------------------------------===//

#include "Staging.h"

#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <stdexcept>
#include <string>

using namespace sprt;

static void checkChunks(const char *op, int64_t rows, int64_t chunks) {
  if (chunks < 1 || rows % chunks != 0)
    throw std::invalid_argument("sprt: " + std::string(op) + " of " +
                                std::to_string(rows) + " rows in " +
                                std::to_string(chunks) + " chunks");
}

extern "C" void sprt_all_gather_linear_f32(const float *x, const float *w,
                                           const float *bias, float *y,
                                           int64_t rows, int64_t K, int64_t N,
                                           int32_t weight_in_out,
                                           int64_t chunks, int32_t axis) {
  checkChunks("all_gather_linear", rows, chunks);
  int64_t n = sprt_axis_size(axis), chunkRows = rows / chunks;
  int64_t chunkElems = chunkRows * K;
  // Two chunks of every rank's rows: one being gathered, one being used.
  StagingBuffer staged(2 * n * chunkElems * int64_t(sizeof(float)),
                       workspaces());
  float *workspace = staged.as<float>();
  auto start = [&](int64_t i) {
    return sprt_all_gather_start(x + i * chunkElems,
                                 workspace + (i % 2) * n * chunkElems,
                                 sizeof(float), 2, chunkRows, K, 1, 1, 0, axis);
  };
  int64_t pending = start(0);
  for (int64_t i = 0; i < chunks; ++i) {
    sprt_wait(pending);
    if (i + 1 < chunks)
      pending = start(i + 1);
    const float *gathered = workspace + (i % 2) * n * chunkElems;
    // Rank r's chunk i is rows [r * rows + i * chunkRows, ...) of the
    // gathered input, and of the output.
    for (int64_t r = 0; r < n; ++r)
      sprt_linear_f32(gathered + r * chunkElems, w, bias,
                      y + (r * rows + i * chunkRows) * N, chunkRows, K, N,
                      weight_in_out);
  }
}

extern "C" void sprt_linear_reduce_scatter_f32(const float *x, const float *w,
                                               const float *bias, float *y,
                                               int64_t rows, int64_t K,
                                               int64_t N, int32_t weight_in_out,
                                               int64_t chunks, int32_t axis) {
  checkChunks("linear_reduce_scatter", rows, chunks);
  int64_t n = sprt_axis_size(axis), chunkRows = rows / chunks;
  int64_t chunkElems = chunkRows * N;
  // Two chunks of partial sums for every rank: one being reduced, one
  // being computed.
  StagingBuffer staged(2 * n * chunkElems * int64_t(sizeof(float)),
                       workspaces());
  float *workspace = staged.as<float>();
  int64_t pending = -1;
  for (int64_t i = 0; i < chunks; ++i) {
    float *partial = workspace + (i % 2) * n * chunkElems;
    // Rank r's chunk i: rows [r * rows + i * chunkRows, ...) of the input.
    for (int64_t r = 0; r < n; ++r)
      sprt_linear_f32(x + (r * rows + i * chunkRows) * K, w, nullptr,
                      partial + r * chunkElems, chunkRows, K, N, weight_in_out);
    if (pending >= 0)
      sprt_wait(pending);
    pending = sprt_reduce_scatter_start_f32(partial, y + i * chunkElems,
                                            n * chunkElems, axis);
  }
  sprt_wait(pending);
  if (bias)
    sprt_bias_add_f32(y, bias, y, rows, N);
}
