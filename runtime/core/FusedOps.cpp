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
// all_gather + linear + GELU (dist.all_gather_matmul_gelu) is the first with
// each chunk's GEMMs sprt_linear_gelu_typed: the rows get their GELU as
// they are written.
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
// Tensors of any dtype: the _typed entry points read a bf16 / f16 input,
// weight, bias and dy as stored (the input gathered so, in half the bytes
// of f32) and call sprt_linear_typed / sprt_linear_grad_weight_typed per
// chunk, which accumulate in f32 and round once; the partial sums of a
// reduce-scatter and the weight gradients stay f32. The _widened_f32 ones
// gather a bf16 / f16 input as stored and widen each chunk for f32 GEMMs
// (every other tensor f32). All of it is backend-neutral: the per-chunk
// GEMMs are the backend's.
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
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <type_traits>
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

/// Whether every one of `dtypes` is F32: then the f32 kernels run, as they
/// did before the typed entry points existed.
static bool allF32(std::initializer_list<int32_t> dtypes) {
  return std::all_of(dtypes.begin(), dtypes.end(),
                     [](int32_t d) { return d == SPRT_DTYPE_F32; });
}

/// `p` advanced by `elems` elements of `dtype`.
template <typename T> static T *advance(T *p, int64_t elems, int32_t dtype) {
  using Byte = std::conditional_t<std::is_const_v<T>, const char, char>;
  return reinterpret_cast<T *>(reinterpret_cast<Byte *>(p) +
                               elems * dtypeBytes(dtype));
}

/// The workspace of gatherInChunks: min(chunks, 2) slots of one chunk of
/// every rank's rows in `dtype`, and, when a bf16 / f16 input is `widen`ed,
/// one chunk of every rank in f32.
static int64_t gatherBufferBytes(int64_t chunks, int64_t n, int64_t chunkElems,
                                 int32_t dtype, bool widen) {
  int64_t slots = std::min<int64_t>(chunks, 2) * n * chunkElems;
  int64_t widened = widen && dtype != SPRT_DTYPE_F32 ? n * chunkElems : 0;
  return slots * dtypeBytes(dtype) + widened * int64_t(sizeof(float));
}

/// Gathers this rank's rows `x` (`chunks` chunks of `chunkRows` x `K`
/// elements of `dtype`) along the leading dimension into `buffers`
/// (gatherBufferBytes), chunk i + 1 in flight while `use(i, gathered,
/// gatheredDtype)` reads chunk i of every rank (rank r's chunkRows x K
/// elements at r * chunkRows * K). The input travels in its own precision
/// (a bf16 / f16 one in half the bytes of f32); with `widen`, each gathered
/// chunk of a bf16 / f16 input is widened (exactly) to f32 first.
template <typename Use>
static void gatherInChunks(const void *x, int32_t dtype, bool widen,
                           void *buffers, int64_t chunks, int64_t n,
                           int64_t chunkRows, int64_t K, int32_t axis,
                           Use use) {
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
    const void *gathered = slot(i);
    int32_t gatheredDtype = dtype;
    if (widen && dtype != SPRT_DTYPE_F32) {
      sprt_convert(slot(i), dtype, widened, SPRT_DTYPE_F32, n * chunkElems);
      gathered = widened;
      gatheredDtype = SPRT_DTYPE_F32;
    }
    if (i + 1 < chunks)
      pending = start(i + 1);
    use(i, gathered, gatheredDtype);
  }
}

/// Gathers this rank's `rows` rows of K (`x`, of `x_dtype`; widened with
/// `widen`) in `chunks` chunks, in the workspace of dist op `op` (runtime
/// entry point `fn`), and calls `gemm(xr, gd, row)` for each rank's rows of
/// each chunk: xr those gathered rows (chunkRows x K of dtype gd) and `row`
/// the first of them in the gathered input, and in the output (rank r's
/// chunk i is rows [r * rows + i * chunkRows, ...)).
template <typename Gemm>
static void forGatheredRows(const char *op, const char *fn, const void *x,
                            int32_t x_dtype, bool widen, int64_t rows,
                            int64_t K, int64_t chunks, int32_t axis,
                            void *workspace, int64_t workspace_bytes,
                            Gemm gemm) {
  checkChunks(op, rows, chunks);
  int64_t n = sprt_axis_size(axis), chunkRows = rows / chunks;
  int64_t chunkElems = chunkRows * K;
  void *buffers =
      takeWorkspace(op, fn, workspace, workspace_bytes,
                    gatherBufferBytes(chunks, n, chunkElems, x_dtype, widen));
  gatherInChunks(x, x_dtype, widen, buffers, chunks, n, chunkRows, K, axis,
                 [&](int64_t i, const void *gathered, int32_t gd) {
                   for (int64_t r = 0; r < n; ++r)
                     gemm(advance(gathered, r * chunkElems, gd), gd,
                          r * rows + i * chunkRows, chunkRows);
                 });
}

/// all_gather + linear of tensors of any dtype (sprt_all_gather_linear_f32,
/// _widened_f32, _typed): a bf16 / f16 input is gathered as stored and,
/// with `widen`, widened before f32 GEMMs; otherwise each GEMM reads every
/// tensor as stored (sprt_linear_typed) unless all are f32.
static void allGatherLinear(const char *fn, const void *x, int32_t x_dtype,
                            bool widen, const void *w, int32_t w_dtype,
                            const void *bias, int32_t bias_dtype, void *y,
                            int32_t y_dtype, int64_t rows, int64_t K, int64_t N,
                            int32_t weight_in_out, int64_t chunks, int32_t axis,
                            void *workspace, int64_t workspace_bytes) {
  TraceSpan span("all_gather_linear", axis);
  if (!bias)
    bias_dtype = SPRT_DTYPE_F32;
  forGatheredRows("all_gather_matmul", fn, x, x_dtype, widen, rows, K, chunks,
                  axis, workspace, workspace_bytes,
                  [&](const void *xr, int32_t gd, int64_t row, int64_t m) {
                    void *yr = advance(y, row * N, y_dtype);
                    if (allF32({gd, w_dtype, bias_dtype, y_dtype}))
                      sprt_linear_f32(static_cast<const float *>(xr),
                                      static_cast<const float *>(w),
                                      static_cast<const float *>(bias),
                                      static_cast<float *>(yr), m, K, N,
                                      weight_in_out);
                    else
                      sprt_linear_typed(xr, gd, w, w_dtype, bias, bias_dtype,
                                        yr, y_dtype, m, K, N, weight_in_out);
                  });
}

extern "C" void
sprt_all_gather_linear_f32(const float *x, const float *w, const float *bias,
                           float *y, int64_t rows, int64_t K, int64_t N,
                           int32_t weight_in_out, int64_t chunks, int32_t axis,
                           void *workspace, int64_t workspace_bytes) {
  allGatherLinear("sprt_all_gather_linear_f32", x, SPRT_DTYPE_F32, false, w,
                  SPRT_DTYPE_F32, bias, SPRT_DTYPE_F32, y, SPRT_DTYPE_F32, rows,
                  K, N, weight_in_out, chunks, axis, workspace,
                  workspace_bytes);
}

extern "C" void sprt_all_gather_linear_widened_f32(
    const void *x, int32_t x_dtype, const float *w, const float *bias, float *y,
    int64_t rows, int64_t K, int64_t N, int32_t weight_in_out, int64_t chunks,
    int32_t axis, void *workspace, int64_t workspace_bytes) {
  allGatherLinear("sprt_all_gather_linear_widened_f32", x, x_dtype, true, w,
                  SPRT_DTYPE_F32, bias, SPRT_DTYPE_F32, y, SPRT_DTYPE_F32, rows,
                  K, N, weight_in_out, chunks, axis, workspace,
                  workspace_bytes);
}

extern "C" void sprt_all_gather_linear_typed(
    const void *x, int32_t x_dtype, const void *w, int32_t w_dtype,
    const void *bias, int32_t bias_dtype, void *y, int32_t y_dtype,
    int64_t rows, int64_t K, int64_t N, int32_t weight_in_out, int64_t chunks,
    int32_t axis, void *workspace, int64_t workspace_bytes) {
  allGatherLinear("sprt_all_gather_linear_typed", x, x_dtype, false, w, w_dtype,
                  bias, bias_dtype, y, y_dtype, rows, K, N, weight_in_out,
                  chunks, axis, workspace, workspace_bytes);
}

/// all_gather + linear + GELU (dist.all_gather_matmul_gelu): as
/// allGatherLinear, each chunk's GEMMs sprt_linear_gelu_typed, writing
/// those rows of pre (unless null) and y. A bf16 / f16 input of an otherwise
/// f32 op is widened after its gather (widensGatheredInput's rule).
extern "C" void sprt_all_gather_linear_gelu_typed(
    const void *x, int32_t x_dtype, const void *w, int32_t w_dtype,
    const void *bias, int32_t bias_dtype, void *pre, void *y, int32_t y_dtype,
    int64_t rows, int64_t K, int64_t N, int32_t weight_in_out,
    int32_t tanh_approx, int64_t chunks, int32_t axis, void *workspace,
    int64_t workspace_bytes) {
  TraceSpan span("all_gather_linear_gelu", axis);
  if (!bias)
    bias_dtype = SPRT_DTYPE_F32;
  bool widen =
      x_dtype != SPRT_DTYPE_F32 && allF32({w_dtype, bias_dtype, y_dtype});
  forGatheredRows(
      "all_gather_matmul_gelu", "sprt_all_gather_linear_gelu_typed", x, x_dtype,
      widen, rows, K, chunks, axis, workspace, workspace_bytes,
      [&](const void *xr, int32_t gd, int64_t row, int64_t m) {
        sprt_linear_gelu_typed(xr, gd, w, w_dtype, bias, bias_dtype,
                               pre ? advance(pre, row * N, y_dtype) : nullptr,
                               advance(y, row * N, y_dtype), y_dtype, m, K, N,
                               weight_in_out, tanh_approx);
      });
}

/// linear + reduce_scatter (sprt_linear_reduce_scatter_f32, _typed): the
/// GEMMs read x, w and the bias as stored, the partial sums and y are f32.
static void linearReduceScatter(const char *fn, const void *x, int32_t x_dtype,
                                const void *w, int32_t w_dtype,
                                const void *bias, int32_t bias_dtype, float *y,
                                int64_t rows, int64_t K, int64_t N,
                                int32_t weight_in_out, int64_t chunks,
                                int32_t axis, void *workspace,
                                int64_t workspace_bytes) {
  TraceSpan span("linear_reduce_scatter", axis);
  checkChunks("linear_reduce_scatter", rows, chunks);
  int64_t n = sprt_axis_size(axis), chunkRows = rows / chunks;
  int64_t chunkElems = chunkRows * N;
  int64_t slots = std::min<int64_t>(chunks, 2);
  // The partial sums, then (a bf16 / f16 bias) the bias widened to f32.
  bool wideBias = bias && bias_dtype != SPRT_DTYPE_F32;
  int64_t partialBytes = chunkBufferBytes(chunks, n, chunkElems);
  auto *partials = reinterpret_cast<float *>(takeWorkspace(
      "matmul_reduce_scatter", fn, workspace, workspace_bytes,
      partialBytes + (wideBias ? N * int64_t(sizeof(float)) : 0)));
  int64_t pending = -1;
  for (int64_t i = 0; i < chunks; ++i) {
    float *partial = partials + (i % slots) * n * chunkElems;
    // Rank r's chunk i: rows [r * rows + i * chunkRows, ...) of the input.
    for (int64_t r = 0; r < n; ++r) {
      const void *xr = advance(x, (r * rows + i * chunkRows) * K, x_dtype);
      if (allF32({x_dtype, w_dtype}))
        sprt_linear_f32(
            static_cast<const float *>(xr), static_cast<const float *>(w),
            nullptr, partial + r * chunkElems, chunkRows, K, N, weight_in_out);
      else
        sprt_linear_typed(xr, x_dtype, w, w_dtype, nullptr, SPRT_DTYPE_F32,
                          partial + r * chunkElems, SPRT_DTYPE_F32, chunkRows,
                          K, N, weight_in_out);
    }
    if (pending >= 0)
      sprt_wait(pending);
    pending = sprt_reduce_scatter_start_f32(partial, y + i * chunkElems,
                                            n * chunkElems, axis);
  }
  sprt_wait(pending);
  if (!bias)
    return;
  const float *wide = static_cast<const float *>(bias);
  if (wideBias) {
    float *widened = partials + partialBytes / int64_t(sizeof(float));
    sprt_convert(bias, bias_dtype, widened, SPRT_DTYPE_F32, N);
    wide = widened;
  }
  sprt_bias_add_f32(y, wide, y, rows, N);
}

extern "C" void sprt_linear_reduce_scatter_f32(
    const float *x, const float *w, const float *bias, float *y, int64_t rows,
    int64_t K, int64_t N, int32_t weight_in_out, int64_t chunks, int32_t axis,
    void *workspace, int64_t workspace_bytes) {
  linearReduceScatter("sprt_linear_reduce_scatter_f32", x, SPRT_DTYPE_F32, w,
                      SPRT_DTYPE_F32, bias, SPRT_DTYPE_F32, y, rows, K, N,
                      weight_in_out, chunks, axis, workspace, workspace_bytes);
}

extern "C" void sprt_linear_reduce_scatter_typed(
    const void *x, int32_t x_dtype, const void *w, int32_t w_dtype,
    const void *bias, int32_t bias_dtype, float *y, int64_t rows, int64_t K,
    int64_t N, int32_t weight_in_out, int64_t chunks, int32_t axis,
    void *workspace, int64_t workspace_bytes) {
  linearReduceScatter("sprt_linear_reduce_scatter_typed", x, x_dtype, w,
                      w_dtype, bias, bias_dtype, y, rows, K, N, weight_in_out,
                      chunks, axis, workspace, workspace_bytes);
}

/// The weight gradients of GEMMs reading all_gather(x)
/// (sprt_all_gather_linear_grad_weight_f32, _widened_f32, _typed) for an
/// input of `x_dtype` (widened after the gather with `widen`) and dys of
/// `dy_dtype`, read as stored; the dws are f32.
static void allGatherLinearGradWeight(
    const char *fn, const void *x, int32_t x_dtype, bool widen, int32_t count,
    const void *const *dys, int32_t dy_dtype, float *const *dws,
    const int64_t *dy_sizes, int64_t rows, int64_t K, int32_t weight_in_out,
    int64_t chunks, int32_t axis, void *workspace, int64_t workspace_bytes) {
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
      gatherBufferBytes(chunks, n, chunkElems, x_dtype, widen));
  gatherInChunks(
      x, x_dtype, widen, buffers, chunks, n, chunkRows, K, axis,
      [&](int64_t i, const void *gathered, int32_t gd) {
        // Rank r's chunk i is rows [r * rows + i * chunkRows, ...) of the
        // gathered input, and of every dy. The first contribution
        // overwrites dw, the others add to it.
        for (int64_t r = 0; r < n; ++r)
          for (int32_t j = 0; j < count; ++j) {
            int64_t N = outs[size_t(j)];
            const void *xr = advance(gathered, r * chunkElems, gd);
            const void *dyRows =
                advance(dys[j], (r * rows + i * chunkRows) * N, dy_dtype);
            bool first = i == 0 && r == 0;
            if (!allF32({gd, dy_dtype}))
              sprt_linear_grad_weight_typed(xr, gd, dyRows, dy_dtype, dws[j],
                                            SPRT_DTYPE_F32, chunkRows, K, N,
                                            weight_in_out, first ? 0 : 1);
            else if (first)
              sprt_linear_grad_weight_f32(static_cast<const float *>(xr),
                                          static_cast<const float *>(dyRows),
                                          dws[j], chunkRows, K, N,
                                          weight_in_out);
            else
              sprt_linear_grad_weight_acc_f32(
                  static_cast<const float *>(xr),
                  static_cast<const float *>(dyRows), dws[j], chunkRows, K, N,
                  weight_in_out);
          }
      });
}

extern "C" void sprt_all_gather_linear_grad_weight_f32(
    const float *x, int32_t count, const float *const *dys, float *const *dws,
    const int64_t *dy_sizes, int64_t rows, int64_t K, int32_t weight_in_out,
    int64_t chunks, int32_t axis, void *workspace, int64_t workspace_bytes) {
  allGatherLinearGradWeight(
      "sprt_all_gather_linear_grad_weight_f32", x, SPRT_DTYPE_F32, false, count,
      reinterpret_cast<const void *const *>(dys), SPRT_DTYPE_F32, dws, dy_sizes,
      rows, K, weight_in_out, chunks, axis, workspace, workspace_bytes);
}

extern "C" void sprt_all_gather_linear_grad_weight_widened_f32(
    const void *x, int32_t x_dtype, int32_t count, const float *const *dys,
    float *const *dws, const int64_t *dy_sizes, int64_t rows, int64_t K,
    int32_t weight_in_out, int64_t chunks, int32_t axis, void *workspace,
    int64_t workspace_bytes) {
  allGatherLinearGradWeight(
      "sprt_all_gather_linear_grad_weight_widened_f32", x, x_dtype, true, count,
      reinterpret_cast<const void *const *>(dys), SPRT_DTYPE_F32, dws, dy_sizes,
      rows, K, weight_in_out, chunks, axis, workspace, workspace_bytes);
}

extern "C" void sprt_all_gather_linear_grad_weight_typed(
    const void *x, int32_t x_dtype, int32_t count, const void *const *dys,
    int32_t dy_dtype, float *const *dws, const int64_t *dy_sizes, int64_t rows,
    int64_t K, int32_t weight_in_out, int64_t chunks, int32_t axis,
    void *workspace, int64_t workspace_bytes) {
  allGatherLinearGradWeight("sprt_all_gather_linear_grad_weight_typed", x,
                            x_dtype, false, count, dys, dy_dtype, dws, dy_sizes,
                            rows, K, weight_in_out, chunks, axis, workspace,
                            workspace_bytes);
}
