//===- FusedOps.cpp - collectives fused with the GEMMs they feed ----------===//
//
// all_gather + linear along the leading dimension, in chunks: chunk i + 1 of
// every rank is in flight while the GEMMs of chunk i run. The gathered rows
// of each rank go straight to their place in the output, so the fused op
// needs a workspace of min(chunks, 2) chunks of every rank's rows (one being
// gathered, one being used), not the whole gathered input: with one chunk
// that is the gathered input, with c >= 2 chunks 2 / c of it.
//
// linear + reduce_scatter, the other way round: the GEMMs of chunk i + 1
// (the rows of chunk i + 1 of every rank's block) run while the partial sums
// of chunk i are being reduced, in a workspace of min(chunks, 2) chunks of
// partial sums of every rank's block.
//
// all_gather + the weight gradients of the GEMMs that read the gathered
// input (the backward of a column-parallel linear re-gathers its saved
// sequence shard), in chunks as the first: chunk i + 1 of every rank is in
// flight while each weight gradient accumulates the contribution of chunk i
// (those rows of the gathered input against the same rows of its dy), in
// the same min(chunks, 2) chunks of workspace. One gathered stream feeds
// every GEMM (Llama's q, k and v).
//
// The workspace is the caller's (planned in the arena: WorkspaceOpInterface
// of dist.all_gather_matmul / dist.matmul_reduce_scatter computes the same
// bytes); each function computes what it needs and checks it (Workspace.h).
//
// The overlap comes from the communication layer's start / wait: on a GPU
// the collective runs on the communication stream while the GEMMs run on
// the compute stream. A chunk buffer is written again only by work ordered
// after the last use of its previous chunk (a gather started after that
// chunk's GEMMs were issued; GEMMs issued after that chunk's reduction was
// waited for).
//
//===----------------------------------------------------------------------===//

#include "Trace.h"
#include "Workspace.h"

#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"
#include "sprt/runtime.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

using namespace sprt;

[[noreturn]] static void invalid(const std::string &message) {
  throw std::invalid_argument("sprt: " + message);
}

static void checkChunks(const char *op, int64_t rows, int64_t chunks) {
  if (chunks < 1 || rows % chunks != 0)
    throw std::invalid_argument("sprt: " + std::string(op) + " of " +
                                std::to_string(rows) + " rows in " +
                                std::to_string(chunks) + " chunks");
}

/// The chunk buffers: min(chunks, 2) of `chunkElems` f32 for each of `n`
/// ranks.
static int64_t chunkBufferBytes(int64_t chunks, int64_t n, int64_t chunkElems) {
  return std::min<int64_t>(chunks, 2) * n * chunkElems * int64_t(sizeof(float));
}

/// The bytes of one element of SPRT_DTYPE_* `dtype`.
static int64_t dtypeBytes(int32_t dtype) {
  return dtype == SPRT_DTYPE_F32 ? 4 : 2;
}

/// The workspace of gatherInChunks: min(chunks, 2) slots of one chunk of
/// every rank's rows in `dtype`, and, for a bf16 / f16 input, one chunk of
/// every rank widened to f32.
static int64_t gatherBufferBytes(int64_t chunks, int64_t n, int64_t chunkElems,
                                 int32_t dtype) {
  int64_t slots = std::min<int64_t>(chunks, 2) * n * chunkElems;
  int64_t widened = dtype == SPRT_DTYPE_F32 ? 0 : n * chunkElems;
  return slots * dtypeBytes(dtype) + widened * int64_t(sizeof(float));
}

/// Gathers this rank's rows `x` (`chunks` chunks of `chunkRows` x `K`
/// elements of `dtype`) along the leading dimension into `buffers`
/// (gatherBufferBytes), chunk i + 1 in flight while `use(i, gathered)`
/// reads chunk i of every rank in f32 (rank r's at gathered + r *
/// chunkRows * K). A bf16 / f16 input travels in its own precision (half
/// the bytes of f32) and each gathered chunk is widened (exactly) to f32.
template <typename Use>
static void gatherInChunks(const void *x, int32_t dtype, void *buffers,
                           int64_t chunks, int64_t n, int64_t chunkRows,
                           int64_t K, int32_t axis, Use use) {
  if (dtype != SPRT_DTYPE_F32 && dtype != SPRT_DTYPE_BF16 &&
      dtype != SPRT_DTYPE_F16)
    invalid("all_gather of an input of unknown dtype " + std::to_string(dtype));
  int64_t chunkElems = chunkRows * K, elem = dtypeBytes(dtype);
  int64_t slots = std::min<int64_t>(chunks, 2);
  auto *bytes = static_cast<char *>(buffers);
  auto slot = [&](int64_t i) {
    return bytes + (i % slots) * n * chunkElems * elem;
  };
  auto *widened =
      reinterpret_cast<float *>(bytes + slots * n * chunkElems * elem);
  auto start = [&](int64_t i) {
    // Along the leading dimension: contiguous, no workspace of its own.
    return sprt_all_gather_start(
        static_cast<const char *>(x) + i * chunkElems * elem, slot(i), elem, 2,
        chunkRows, K, 1, 1, 0, axis, nullptr, 0);
  };
  int64_t pending = start(0);
  for (int64_t i = 0; i < chunks; ++i) {
    sprt_wait(pending);
    const float *gathered = reinterpret_cast<const float *>(slot(i));
    if (dtype != SPRT_DTYPE_F32) {
      sprt_convert(slot(i), dtype, widened, SPRT_DTYPE_F32, n * chunkElems);
      gathered = widened;
    }
    if (i + 1 < chunks)
      pending = start(i + 1);
    use(i, gathered);
  }
}

/// all_gather + linear (sprt_all_gather_linear_f32) of an input of `dtype`.
static void allGatherLinear(const char *fn, const void *x, int32_t dtype,
                            const float *w, const float *bias, float *y,
                            int64_t rows, int64_t K, int64_t N,
                            int32_t weight_in_out, int64_t chunks, int32_t axis,
                            void *workspace, int64_t workspace_bytes) {
  TraceSpan span("all_gather_linear", axis);
  checkChunks("all_gather_linear", rows, chunks);
  int64_t n = sprt_axis_size(axis), chunkRows = rows / chunks;
  int64_t chunkElems = chunkRows * K;
  void *buffers =
      takeWorkspace("all_gather_matmul", fn, workspace, workspace_bytes,
                    gatherBufferBytes(chunks, n, chunkElems, dtype));
  gatherInChunks(x, dtype, buffers, chunks, n, chunkRows, K, axis,
                 [&](int64_t i, const float *gathered) {
                   // Rank r's chunk i is rows [r * rows + i * chunkRows, ...)
                   // of the gathered input, and of the output.
                   for (int64_t r = 0; r < n; ++r)
                     sprt_linear_f32(gathered + r * chunkElems, w, bias,
                                     y + (r * rows + i * chunkRows) * N,
                                     chunkRows, K, N, weight_in_out);
                 });
}

extern "C" void
sprt_all_gather_linear_f32(const float *x, const float *w, const float *bias,
                           float *y, int64_t rows, int64_t K, int64_t N,
                           int32_t weight_in_out, int64_t chunks, int32_t axis,
                           void *workspace, int64_t workspace_bytes) {
  allGatherLinear("sprt_all_gather_linear_f32", x, SPRT_DTYPE_F32, w, bias, y,
                  rows, K, N, weight_in_out, chunks, axis, workspace,
                  workspace_bytes);
}

extern "C" void sprt_all_gather_linear_widened_f32(
    const void *x, int32_t x_dtype, const float *w, const float *bias, float *y,
    int64_t rows, int64_t K, int64_t N, int32_t weight_in_out, int64_t chunks,
    int32_t axis, void *workspace, int64_t workspace_bytes) {
  allGatherLinear("sprt_all_gather_linear_widened_f32", x, x_dtype, w, bias, y,
                  rows, K, N, weight_in_out, chunks, axis, workspace,
                  workspace_bytes);
}

extern "C" void sprt_linear_reduce_scatter_f32(
    const float *x, const float *w, const float *bias, float *y, int64_t rows,
    int64_t K, int64_t N, int32_t weight_in_out, int64_t chunks, int32_t axis,
    void *workspace, int64_t workspace_bytes) {
  TraceSpan span("linear_reduce_scatter", axis);
  checkChunks("linear_reduce_scatter", rows, chunks);
  int64_t n = sprt_axis_size(axis), chunkRows = rows / chunks;
  int64_t chunkElems = chunkRows * N;
  int64_t slots = std::min<int64_t>(chunks, 2);
  auto *partials = reinterpret_cast<float *>(takeWorkspace(
      "matmul_reduce_scatter", "sprt_linear_reduce_scatter_f32", workspace,
      workspace_bytes, chunkBufferBytes(chunks, n, chunkElems)));
  int64_t pending = -1;
  for (int64_t i = 0; i < chunks; ++i) {
    float *partial = partials + (i % slots) * n * chunkElems;
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

/// The weight gradients of GEMMs reading all_gather(x)
/// (sprt_all_gather_linear_grad_weight_f32) for an input of `dtype`.
static void allGatherLinearGradWeight(
    const char *fn, const void *x, int32_t dtype, int32_t count,
    const float *const *dys, float *const *dws, const int64_t *dy_sizes,
    int64_t rows, int64_t K, int32_t weight_in_out, int64_t chunks,
    int32_t axis, void *workspace, int64_t workspace_bytes) {
  TraceSpan span("all_gather_linear_grad_weight", axis);
  checkChunks("all_gather_linear_grad_weight", rows, chunks);
  int64_t n = sprt_axis_size(axis), chunkRows = rows / chunks;
  if (count < 1)
    invalid("all_gather_linear_grad_weight of " + std::to_string(count) +
            " GEMMs");
  // The output features of each GEMM, from its dy's elements.
  std::vector<int64_t> outs(size_t(count), 0);
  for (int32_t j = 0; j < count; ++j) {
    int64_t gatheredRows = n * rows;
    if (gatheredRows > 0 && dy_sizes[j] % gatheredRows != 0)
      invalid("all_gather_linear_grad_weight: dy " + std::to_string(j) +
              " has " + std::to_string(dy_sizes[j]) +
              " elements, not a multiple of the " +
              std::to_string(gatheredRows) + " gathered rows");
    outs[size_t(j)] = gatheredRows > 0 ? dy_sizes[j] / gatheredRows : 0;
  }
  int64_t chunkElems = chunkRows * K;
  void *buffers = takeWorkspace(
      "all_gather_matmul_grad_weight", fn, workspace, workspace_bytes,
      gatherBufferBytes(chunks, n, chunkElems, dtype));
  gatherInChunks(
      x, dtype, buffers, chunks, n, chunkRows, K, axis,
      [&](int64_t i, const float *gathered) {
        // Rank r's chunk i is rows [r * rows + i * chunkRows, ...) of the
        // gathered input, and of every dy. The first contribution
        // overwrites dw, the others add to it.
        for (int64_t r = 0; r < n; ++r)
          for (int32_t j = 0; j < count; ++j) {
            int64_t N = outs[size_t(j)];
            const float *dyRows = dys[j] + (r * rows + i * chunkRows) * N;
            if (i == 0 && r == 0)
              sprt_linear_grad_weight_f32(gathered, dyRows, dws[j], chunkRows,
                                          K, N, weight_in_out);
            else
              sprt_linear_grad_weight_acc_f32(gathered + r * chunkElems, dyRows,
                                              dws[j], chunkRows, K, N,
                                              weight_in_out);
          }
      });
}

extern "C" void sprt_all_gather_linear_grad_weight_f32(
    const float *x, int32_t count, const float *const *dys, float *const *dws,
    const int64_t *dy_sizes, int64_t rows, int64_t K, int32_t weight_in_out,
    int64_t chunks, int32_t axis, void *workspace, int64_t workspace_bytes) {
  allGatherLinearGradWeight("sprt_all_gather_linear_grad_weight_f32", x,
                            SPRT_DTYPE_F32, count, dys, dws, dy_sizes, rows, K,
                            weight_in_out, chunks, axis, workspace,
                            workspace_bytes);
}

extern "C" void sprt_all_gather_linear_grad_weight_widened_f32(
    const void *x, int32_t x_dtype, int32_t count, const float *const *dys,
    float *const *dws, const int64_t *dy_sizes, int64_t rows, int64_t K,
    int32_t weight_in_out, int64_t chunks, int32_t axis, void *workspace,
    int64_t workspace_bytes) {
  allGatherLinearGradWeight("sprt_all_gather_linear_grad_weight_widened_f32", x,
                            x_dtype, count, dys, dws, dy_sizes, rows, K,
                            weight_in_out, chunks, axis, workspace,
                            workspace_bytes);
}
