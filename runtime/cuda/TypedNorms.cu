//===- TypedNorms.cu - the norms on stored dtypes (CUDA) ------------------===//
//
// sprt_*norm*_typed (sprt/kernels.h, sprt/grad_kernels.h). Where every
// activation and weight tensor has one type and the rows fit the registers
// (NormRows.cuh), the fused kernels run instantiated for that type: each
// row read once as stored and widened, the f32 kernel's arithmetic, each
// result rounded once from its f32 value. The weight gradients are summed
// in f32 and rounded to their type at the end. Any other case (mixed
// types, rows too wide) converts the operands that are not f32 into f32
// scratch, runs the f32 kernel and converts the results: the same numbers,
// with the f32 copies the conversions around the op used to make.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "Elementwise.cuh"
#include "NormPaths.h"
#include "Quad.cuh"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <utility>

using namespace sprt::cuda;

namespace {

/// `p` as f32: itself, or widened into the scratch slot.
const float *asF32(const void *p, int32_t dtype, int64_t n, Scratch slot) {
  if (!p || dtype == SPRT_DTYPE_F32)
    return static_cast<const float *>(p);
  auto *f = static_cast<float *>(scratch(slot, size_t(n) * sizeof(float)));
  sprt_convert(p, dtype, f, SPRT_DTYPE_F32, n);
  return f;
}

/// Where an f32 kernel writes a result of `dtype`: in place, or the slot
/// (rounded into place by finish()).
float *f32Out(void *p, int32_t dtype, int64_t n, Scratch slot) {
  if (!p || dtype == SPRT_DTYPE_F32)
    return static_cast<float *>(p);
  return static_cast<float *>(scratch(slot, size_t(n) * sizeof(float)));
}

/// Where the weight gradients dw and db (each H, either may be null) are
/// summed in f32: in place, or the two halves of one slot.
std::pair<float *, float *> f32Columns(void *dw, int32_t dw_dtype, void *db,
                                       int32_t db_dtype, int64_t H) {
  const bool stageW = dw && dw_dtype != SPRT_DTYPE_F32,
             stageB = db && db_dtype != SPRT_DTYPE_F32;
  float *cols = stageW || stageB
                    ? static_cast<float *>(scratch(
                          Scratch::NormColumns, 2 * size_t(H) * sizeof(float)))
                    : nullptr;
  return {stageW ? cols : static_cast<float *>(dw),
          stageB ? cols + H : static_cast<float *>(db)};
}

void finish(const float *f, void *p, int32_t dtype, int64_t n) {
  if (p && dtype != SPRT_DTYPE_F32)
    sprt_convert(f, SPRT_DTYPE_F32, p, dtype, n);
}

void checkDtypes(std::initializer_list<int32_t> ts, const char *fn) {
  for (int32_t t : ts)
    checkDtypeCode(t, fn);
}

/// Whether every tensor present has type `t`.
bool allOf(int32_t t,
           std::initializer_list<std::pair<const void *, int32_t>> tensors) {
  for (auto [p, d] : tensors)
    if (p && d != t)
      return false;
  return true;
}

/// Aborts unless the residual has dx's element type.
void checkResidual(int32_t residual_dtype, int32_t dx_dtype, const char *fn) {
  if (residual_dtype == dx_dtype)
    return;
  std::fprintf(stderr, "%s: the residual's element type %d is not dx's (%d)\n",
               fn, int(residual_dtype), int(dx_dtype));
  std::abort();
}

/// Aborts unless x, the residual and the sum have one element type.
void checkSum(int32_t x_dtype, int32_t residual_dtype, int32_t sum_dtype,
              const char *fn) {
  if (x_dtype == residual_dtype && x_dtype == sum_dtype)
    return;
  std::fprintf(stderr,
               "%s: x, the residual and the sum have element types %d, %d "
               "and %d; they must have one\n",
               fn, int(x_dtype), int(residual_dtype), int(sum_dtype));
  std::abort();
}

/// The rows (dims 0..rank-2) and row width (the last dimension) of a
/// dropout's local tensor, and the dropout for the fused kernels.
struct DropoutRows {
  int64_t T = 1, H = 0;
  SumDropout drop;
};

DropoutRows dropoutRows(int32_t rank, const int64_t *shape,
                        const int64_t *global_shape, const int64_t *offset,
                        double rate, uint64_t seed, uint64_t stream,
                        const char *fn) {
  if (rank < 1 || rank > 3) {
    std::fprintf(stderr, "%s: rank %d is not 1..3\n", fn, int(rank));
    std::abort();
  }
  DropoutRows r;
  r.H = shape[rank - 1];
  r.drop.rank = rank;
  r.drop.rate = rate < 0.0 ? 0.0 : rate;
  // rate >= 1 drops everything; the scale is then never used.
  r.drop.scale = rate < 1.0 ? float(1.0 / (1.0 - rate)) : 0.0f;
  r.drop.seed = seed;
  r.drop.stream = stream;
  int64_t stride = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    r.drop.shape[d] = shape[d];
    r.drop.offset[d] = offset[d];
    r.drop.gstride[d] = stride;
    stride *= global_shape[d];
    if (d != rank - 1)
      r.T *= shape[d];
  }
  return r;
}

void zero(float *p, int64_t H) {
  if (p)
    SPRT_CUDA_CHECK(cudaMemsetAsync(p, 0, size_t(H) * sizeof(float), stream()));
}

} // namespace

extern "C" {

void sprt_layer_norm_typed(const void *x, int32_t x_dtype, const void *weight,
                           int32_t weight_dtype, const void *bias,
                           int32_t bias_dtype, void *y, int32_t y_dtype,
                           int64_t T, int64_t H, double eps) {
  checkDtypes(
      {x_dtype, y_dtype, weight ? weight_dtype : 0, bias ? bias_dtype : 0},
      "sprt_layer_norm_typed");
  if (H <= 0 || T <= 0)
    return;
  checkRows(T, "sprt_layer_norm_typed");
  if (allOf(x_dtype,
            {{y, y_dtype}, {weight, weight_dtype}, {bias, bias_dtype}}) &&
      layerNormFusedStored(x_dtype, x, weight, bias, y, T, H, eps))
    return;
  const int64_t n = T * H;
  float *fy = f32Out(y, y_dtype, n, Scratch::NormOut);
  sprt_layer_norm_f32(asF32(x, x_dtype, n, Scratch::NormX),
                      asF32(weight, weight_dtype, H, Scratch::NormWeight),
                      asF32(bias, bias_dtype, H, Scratch::NormBias), fy, T, H,
                      eps);
  finish(fy, y, y_dtype, n);
}

void sprt_rms_norm_typed(const void *x, int32_t x_dtype, const void *weight,
                         int32_t weight_dtype, void *y, int32_t y_dtype,
                         int64_t T, int64_t H, double eps) {
  checkDtypes({x_dtype, y_dtype, weight ? weight_dtype : 0},
              "sprt_rms_norm_typed");
  if (H <= 0 || T <= 0)
    return;
  checkRows(T, "sprt_rms_norm_typed");
  if (allOf(x_dtype, {{y, y_dtype}, {weight, weight_dtype}}) &&
      rmsNormFusedStored(x_dtype, x, weight, y, T, H, eps))
    return;
  const int64_t n = T * H;
  float *fy = f32Out(y, y_dtype, n, Scratch::NormOut);
  sprt_rms_norm_f32(asF32(x, x_dtype, n, Scratch::NormX),
                    asF32(weight, weight_dtype, H, Scratch::NormWeight), fy, T,
                    H, eps);
  finish(fy, y, y_dtype, n);
}

// The fused kernels with the sum stored where they run (every tensor of one
// type, rows in registers), else sprt_add_typed and then the norm above:
// the same bits either way.
void sprt_add_layer_norm_typed(const void *x, int32_t x_dtype,
                               const void *residual, int32_t residual_dtype,
                               const void *weight, int32_t weight_dtype,
                               const void *bias, int32_t bias_dtype, void *sum,
                               int32_t sum_dtype, void *y, int32_t y_dtype,
                               int64_t T, int64_t H, double eps) {
  const char *fn = "sprt_add_layer_norm_typed";
  checkDtypes(
      {x_dtype, y_dtype, weight ? weight_dtype : 0, bias ? bias_dtype : 0}, fn);
  checkSum(x_dtype, residual_dtype, sum_dtype, fn);
  if (H <= 0 || T <= 0)
    return;
  checkRows(T, fn);
  if (allOf(x_dtype,
            {{y, y_dtype}, {weight, weight_dtype}, {bias, bias_dtype}}) &&
      addLayerNormFusedStored(x_dtype, x, residual, weight, bias, sum, y, T, H,
                              eps))
    return;
  sprt_add_typed(x, residual, sum, T * H, x_dtype);
  sprt_layer_norm_typed(sum, sum_dtype, weight, weight_dtype, bias, bias_dtype,
                        y, y_dtype, T, H, eps);
}

void sprt_add_rms_norm_typed(const void *x, int32_t x_dtype,
                             const void *residual, int32_t residual_dtype,
                             const void *weight, int32_t weight_dtype,
                             void *sum, int32_t sum_dtype, void *y,
                             int32_t y_dtype, int64_t T, int64_t H,
                             double eps) {
  const char *fn = "sprt_add_rms_norm_typed";
  checkDtypes({x_dtype, y_dtype, weight ? weight_dtype : 0}, fn);
  checkSum(x_dtype, residual_dtype, sum_dtype, fn);
  if (H <= 0 || T <= 0)
    return;
  checkRows(T, fn);
  if (allOf(x_dtype, {{y, y_dtype}, {weight, weight_dtype}}) &&
      addRmsNormFusedStored(x_dtype, x, residual, weight, sum, y, T, H, eps))
    return;
  sprt_add_typed(x, residual, sum, T * H, x_dtype);
  sprt_rms_norm_typed(sum, sum_dtype, weight, weight_dtype, y, y_dtype, T, H,
                      eps);
}

// With dropout: the fused kernels drawing the dropout's mask per element
// where they run, else sprt_dropout_add_typed and then the norm: the same
// bits either way.
void sprt_dropout_add_layer_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, const void *bias, int32_t bias_dtype, void *sum,
    void *y, int32_t y_dtype, int32_t rank, const int64_t *shape,
    const int64_t *global_shape, const int64_t *offset, double rate,
    uint64_t seed, uint64_t stream, int32_t dtype, double eps) {
  const char *fn = "sprt_dropout_add_layer_norm_typed";
  checkDtypes(
      {dtype, y_dtype, weight ? weight_dtype : 0, bias ? bias_dtype : 0}, fn);
  const DropoutRows r =
      dropoutRows(rank, shape, global_shape, offset, rate, seed, stream, fn);
  if (r.H <= 0 || r.T <= 0)
    return;
  checkRows(r.T, fn);
  if (allOf(dtype,
            {{y, y_dtype}, {weight, weight_dtype}, {bias, bias_dtype}}) &&
      addLayerNormFusedStored(dtype, x, residual, weight, bias, sum, y, r.T,
                              r.H, eps, r.drop))
    return;
  sprt_dropout_add_typed(x, residual, sum, rank, shape, global_shape, offset,
                         rate, seed, stream, dtype);
  sprt_layer_norm_typed(sum, dtype, weight, weight_dtype, bias, bias_dtype, y,
                        y_dtype, r.T, r.H, eps);
}

void sprt_dropout_add_rms_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, void *sum, void *y, int32_t y_dtype, int32_t rank,
    const int64_t *shape, const int64_t *global_shape, const int64_t *offset,
    double rate, uint64_t seed, uint64_t stream, int32_t dtype, double eps) {
  const char *fn = "sprt_dropout_add_rms_norm_typed";
  checkDtypes({dtype, y_dtype, weight ? weight_dtype : 0}, fn);
  const DropoutRows r =
      dropoutRows(rank, shape, global_shape, offset, rate, seed, stream, fn);
  if (r.H <= 0 || r.T <= 0)
    return;
  checkRows(r.T, fn);
  if (allOf(dtype, {{y, y_dtype}, {weight, weight_dtype}}) &&
      addRmsNormFusedStored(dtype, x, residual, weight, sum, y, r.T, r.H, eps,
                            r.drop))
    return;
  sprt_dropout_add_typed(x, residual, sum, rank, shape, global_shape, offset,
                         rate, seed, stream, dtype);
  sprt_rms_norm_typed(sum, dtype, weight, weight_dtype, y, y_dtype, r.T, r.H,
                      eps);
}

void sprt_layer_norm_grad_typed(const void *dy, int32_t dy_dtype, const void *x,
                                int32_t x_dtype, const void *weight,
                                int32_t weight_dtype, void *dx,
                                int32_t dx_dtype, void *dw, int32_t dw_dtype,
                                void *db, int32_t db_dtype, int64_t T,
                                int64_t H, double eps) {
  checkDtypes({dy_dtype, x_dtype, dx_dtype, weight ? weight_dtype : 0,
               dw ? dw_dtype : 0, db ? db_dtype : 0},
              "sprt_layer_norm_grad_typed");
  if (H <= 0)
    return;
  auto [fdw, fdb] = f32Columns(dw, dw_dtype, db, db_dtype, H);
  if (T <= 0) {
    zero(fdw, H);
    zero(fdb, H);
  } else {
    checkRows(T, "sprt_layer_norm_grad_typed");
    const int64_t n = T * H;
    if (!allOf(x_dtype,
               {{dy, dy_dtype}, {dx, dx_dtype}, {weight, weight_dtype}}) ||
        !layerNormGradFusedStored(x_dtype, dy, x, weight, nullptr, dx, fdw, fdb,
                                  T, H, eps)) {
      float *fdx = f32Out(dx, dx_dtype, n, Scratch::NormOut);
      sprt_layer_norm_grad_f32(
          asF32(dy, dy_dtype, n, Scratch::NormDy),
          asF32(x, x_dtype, n, Scratch::NormX),
          asF32(weight, weight_dtype, H, Scratch::NormWeight), fdx, fdw, fdb, T,
          H, eps);
      finish(fdx, dx, dx_dtype, n);
    }
  }
  finish(fdw, dw, dw_dtype, H);
  finish(fdb, db, db_dtype, H);
}

void sprt_rms_norm_grad_typed(const void *dy, int32_t dy_dtype, const void *x,
                              int32_t x_dtype, const void *weight,
                              int32_t weight_dtype, void *dx, int32_t dx_dtype,
                              void *dw, int32_t dw_dtype, int64_t T, int64_t H,
                              double eps) {
  checkDtypes({dy_dtype, x_dtype, dx_dtype, weight ? weight_dtype : 0,
               dw ? dw_dtype : 0},
              "sprt_rms_norm_grad_typed");
  if (H <= 0)
    return;
  float *fdw = f32Columns(dw, dw_dtype, nullptr, 0, H).first;
  if (T <= 0) {
    zero(fdw, H);
  } else {
    checkRows(T, "sprt_rms_norm_grad_typed");
    const int64_t n = T * H;
    if (!allOf(x_dtype,
               {{dy, dy_dtype}, {dx, dx_dtype}, {weight, weight_dtype}}) ||
        !rmsNormGradFusedStored(x_dtype, dy, x, weight, nullptr, dx, fdw, T, H,
                                eps)) {
      float *fdx = f32Out(dx, dx_dtype, n, Scratch::NormOut);
      sprt_rms_norm_grad_f32(
          asF32(dy, dy_dtype, n, Scratch::NormDy),
          asF32(x, x_dtype, n, Scratch::NormX),
          asF32(weight, weight_dtype, H, Scratch::NormWeight), fdx, fdw, T, H,
          eps);
      finish(fdx, dx, dx_dtype, n);
    }
  }
  finish(fdw, dw, dw_dtype, H);
}

// The fused kernels with the residual added where they run (every tensor of
// one type, rows in registers), else the backward above and then
// sprt_add_typed: the same bits either way.
void sprt_layer_norm_grad_add_typed(
    const void *dy, int32_t dy_dtype, const void *x, int32_t x_dtype,
    const void *weight, int32_t weight_dtype, const void *residual,
    int32_t residual_dtype, void *dx, int32_t dx_dtype, void *dw,
    int32_t dw_dtype, void *db, int32_t db_dtype, int64_t T, int64_t H,
    double eps) {
  const char *fn = "sprt_layer_norm_grad_add_typed";
  checkDtypes({dy_dtype, x_dtype, dx_dtype, weight ? weight_dtype : 0,
               dw ? dw_dtype : 0, db ? db_dtype : 0},
              fn);
  checkResidual(residual_dtype, dx_dtype, fn);
  if (H <= 0)
    return;
  if (T > 0 && allOf(x_dtype, {{dy, dy_dtype},
                               {dx, dx_dtype},
                               {weight, weight_dtype},
                               {residual, residual_dtype}})) {
    checkRows(T, fn);
    auto [fdw, fdb] = f32Columns(dw, dw_dtype, db, db_dtype, H);
    if (layerNormGradFusedStored(x_dtype, dy, x, weight, residual, dx, fdw, fdb,
                                 T, H, eps)) {
      finish(fdw, dw, dw_dtype, H);
      finish(fdb, db, db_dtype, H);
      return;
    }
  }
  sprt_layer_norm_grad_typed(dy, dy_dtype, x, x_dtype, weight, weight_dtype, dx,
                             dx_dtype, dw, dw_dtype, db, db_dtype, T, H, eps);
  if (T > 0)
    sprt_add_typed(residual, dx, dx, T * H, dx_dtype);
}

void sprt_rms_norm_grad_add_typed(const void *dy, int32_t dy_dtype,
                                  const void *x, int32_t x_dtype,
                                  const void *weight, int32_t weight_dtype,
                                  const void *residual, int32_t residual_dtype,
                                  void *dx, int32_t dx_dtype, void *dw,
                                  int32_t dw_dtype, int64_t T, int64_t H,
                                  double eps) {
  const char *fn = "sprt_rms_norm_grad_add_typed";
  checkDtypes({dy_dtype, x_dtype, dx_dtype, weight ? weight_dtype : 0,
               dw ? dw_dtype : 0},
              fn);
  checkResidual(residual_dtype, dx_dtype, fn);
  if (H <= 0)
    return;
  if (T > 0 && allOf(x_dtype, {{dy, dy_dtype},
                               {dx, dx_dtype},
                               {weight, weight_dtype},
                               {residual, residual_dtype}})) {
    checkRows(T, fn);
    float *fdw = f32Columns(dw, dw_dtype, nullptr, 0, H).first;
    if (rmsNormGradFusedStored(x_dtype, dy, x, weight, residual, dx, fdw, T, H,
                               eps)) {
      finish(fdw, dw, dw_dtype, H);
      return;
    }
  }
  sprt_rms_norm_grad_typed(dy, dy_dtype, x, x_dtype, weight, weight_dtype, dx,
                           dx_dtype, dw, dw_dtype, T, H, eps);
  if (T > 0)
    sprt_add_typed(residual, dx, dx, T * H, dx_dtype);
}

} // extern "C"
