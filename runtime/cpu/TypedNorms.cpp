//===- TypedNorms.cpp - the norms on stored dtypes (CPU) ------------------===//
//
// sprt_*norm*_typed, sprt_add_*norm_typed and sprt_bias_grad_typed
// (sprt/kernels.h, sprt/grad_kernels.h): each bf16 / f16 row is widened into an
// f32 row (WidenedRows, RowOps.h; an f32 tensor is read in place), the row goes
// through the f32 kernels' arithmetic (NormRows.h) and each result row is
// rounded from its f32 value into its type. So the result is the f32 kernel
// between conversions, bit for bit (NormTypedConformanceTest), with a few rows
// of f32 where the conversions held whole tensors.
//
//===----------------------------------------------------------------------===//

#include "NormRows.h"
#include "RowOps.h"
#include "Scratch.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

using namespace sprt::cpu;

namespace {

/// `p` advanced by `i` elements of `dtype`.
template <typename T> T *at(T *p, int64_t i, int32_t dtype) {
  using Byte = std::conditional_t<std::is_const_v<T>, const char, char>;
  return reinterpret_cast<Byte *>(p) + i * (dtype == SPRT_DTYPE_F32 ? 4 : 2);
}

/// Row `t` of an output of `dtype`: written in place when f32, else into
/// `buf` and rounded into place by store().
class RowOut {
public:
  RowOut(void *p, int32_t dtype, int64_t H)
      : p(p), dtype(dtype), H(H), buf(dtype != SPRT_DTYPE_F32 ? size_t(H) : 0) {
    // Refuse an unknown dtype before any row is computed.
    sprt_convert(nullptr, SPRT_DTYPE_F32, nullptr, dtype, 0);
  }
  float *row(int64_t t) {
    return dtype == SPRT_DTYPE_F32 ? static_cast<float *>(p) + t * H
                                   : buf.data();
  }
  void store(int64_t t) {
    if (dtype != SPRT_DTYPE_F32)
      sprt_convert(buf.data(), SPRT_DTYPE_F32, at(p, t * H, dtype), dtype, H);
  }

private:
  void *p;
  int32_t dtype;
  int64_t H;
  ScratchVector<float> buf;
};

/// Rounds double sums to f32 (the f32 kernel's result), then to `dtype`.
void storeSums(const ScratchVector<double> &acc, void *out, int32_t dtype) {
  if (!out)
    return;
  const int64_t H = int64_t(acc.size());
  RowOut o(out, dtype, H);
  float *r = o.row(0);
  for (int64_t i = 0; i < H; ++i)
    r[i] = float(acc[i]);
  o.store(0);
}

/// Widened weight (or bias), or null.
const float *widened(WidenedRows &in) { return in.row(0); }

/// Row t of dx, stored, plus row t of the residual (the sum sprt_add_typed
/// computes, on one row while it is in cache); nothing without a residual.
void addResidualRow(const void *residual, void *dx, int32_t dtype, int64_t t,
                    int64_t H) {
  if (residual)
    sprt_add_typed(at(residual, t * H, dtype), at(dx, t * H, dtype),
                   at(dx, t * H, dtype), H, dtype);
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

/// Row t of x + residual into the sum, as sprt_add_typed computes it.
void addRow(const void *x, const void *residual, void *sum, int32_t dtype,
            int64_t t, int64_t H) {
  sprt_add_typed(at(x, t * H, dtype), at(residual, t * H, dtype),
                 at(sum, t * H, dtype), H, dtype);
}

/// Calls row(t, geometry) for each row t of a dropout's local tensor (the
/// last dimension, of H = shape[rank - 1] elements): the row's own shape
/// ([1, ..., 1, H]) and offsets, for sprt_dropout_add_typed on that row.
template <typename Row>
void forEachDropoutRow(int32_t rank, const int64_t *shape,
                       const int64_t *offset, Row row) {
  constexpr int kMaxRank = 3;
  if (rank < 1 || rank > kMaxRank) {
    std::fprintf(stderr, "sprt_dropout_add_*norm_typed: rank %d is not 1..3\n",
                 int(rank));
    std::abort();
  }
  int64_t rowShape[kMaxRank], rowOffset[kMaxRank], T = 1;
  for (int32_t d = 0; d < rank; ++d) {
    rowShape[d] = d == rank - 1 ? shape[d] : 1;
    T *= d == rank - 1 ? 1 : shape[d];
  }
  for (int64_t t = 0; t < T; ++t) {
    // Row t's index in dims 0..rank-2, the last dimension varying fastest.
    int64_t rest = t;
    for (int32_t d = rank - 1; d >= 0; --d) {
      const int64_t idx = d == rank - 1 ? 0 : rest % shape[d];
      if (d != rank - 1)
        rest /= shape[d];
      rowOffset[d] = offset[d] + idx;
    }
    row(t, rowShape, rowOffset);
  }
}

void layerNormGrad(const void *dy, int32_t dy_dtype, const void *x,
                   int32_t x_dtype, const void *weight, int32_t weight_dtype,
                   const void *residual, void *dx, int32_t dx_dtype, void *dw,
                   int32_t dw_dtype, void *db, int32_t db_dtype, int64_t T,
                   int64_t H, double eps) {
  if (H <= 0)
    return;
  WidenedRows dys(dy, dy_dtype, H), xs(x, x_dtype, H),
      ws(weight, weight_dtype, H);
  RowOut dxs(dx, dx_dtype, H);
  ScratchVector<double> dwAcc(dw ? size_t(H) : 0, 0.0),
      dbAcc(db ? size_t(H) : 0, 0.0), xhat(static_cast<size_t>(H)),
      g(static_cast<size_t>(H));
  const float *w = widened(ws);
  for (int64_t t = 0; t < T; ++t) {
    layerNormGradRow(dys.row(t), xs.row(t), w, dxs.row(t),
                     dw ? dwAcc.data() : nullptr, db ? dbAcc.data() : nullptr,
                     H, eps, xhat.data(), g.data());
    dxs.store(t);
    addResidualRow(residual, dx, dx_dtype, t, H);
  }
  storeSums(dwAcc, dw, dw_dtype);
  storeSums(dbAcc, db, db_dtype);
}

void rmsNormGrad(const void *dy, int32_t dy_dtype, const void *x,
                 int32_t x_dtype, const void *weight, int32_t weight_dtype,
                 const void *residual, void *dx, int32_t dx_dtype, void *dw,
                 int32_t dw_dtype, int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  WidenedRows dys(dy, dy_dtype, H), xs(x, x_dtype, H),
      ws(weight, weight_dtype, H);
  RowOut dxs(dx, dx_dtype, H);
  ScratchVector<double> dwAcc(dw ? size_t(H) : 0, 0.0);
  const float *w = widened(ws);
  for (int64_t t = 0; t < T; ++t) {
    rmsNormGradRow(dys.row(t), xs.row(t), w, dxs.row(t),
                   dw ? dwAcc.data() : nullptr, H, eps);
    dxs.store(t);
    addResidualRow(residual, dx, dx_dtype, t, H);
  }
  storeSums(dwAcc, dw, dw_dtype);
}

} // namespace

extern "C" {

void sprt_layer_norm_typed(const void *x, int32_t x_dtype, const void *weight,
                           int32_t weight_dtype, const void *bias,
                           int32_t bias_dtype, void *y, int32_t y_dtype,
                           int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  WidenedRows xs(x, x_dtype, H), ws(weight, weight_dtype, H),
      bs(bias, bias_dtype, H);
  RowOut ys(y, y_dtype, H);
  const float *w = widened(ws), *b = widened(bs);
  for (int64_t t = 0; t < T; ++t) {
    layerNormRow(xs.row(t), w, b, ys.row(t), H, eps);
    ys.store(t);
  }
}

void sprt_rms_norm_typed(const void *x, int32_t x_dtype, const void *weight,
                         int32_t weight_dtype, void *y, int32_t y_dtype,
                         int64_t T, int64_t H, double eps) {
  if (H <= 0)
    return;
  WidenedRows xs(x, x_dtype, H), ws(weight, weight_dtype, H);
  RowOut ys(y, y_dtype, H);
  const float *w = widened(ws);
  for (int64_t t = 0; t < T; ++t) {
    rmsNormRow(xs.row(t), w, ys.row(t), H, eps);
    ys.store(t);
  }
}

// Row by row: the sum's row stored, then normalised as stored while it is
// in cache.
void sprt_add_layer_norm_typed(const void *x, int32_t x_dtype,
                               const void *residual, int32_t residual_dtype,
                               const void *weight, int32_t weight_dtype,
                               const void *bias, int32_t bias_dtype, void *sum,
                               int32_t sum_dtype, void *y, int32_t y_dtype,
                               int64_t T, int64_t H, double eps) {
  checkSum(x_dtype, residual_dtype, sum_dtype, "sprt_add_layer_norm_typed");
  if (H <= 0)
    return;
  WidenedRows sums(sum, sum_dtype, H), ws(weight, weight_dtype, H),
      bs(bias, bias_dtype, H);
  RowOut ys(y, y_dtype, H);
  const float *w = widened(ws), *b = widened(bs);
  for (int64_t t = 0; t < T; ++t) {
    addRow(x, residual, sum, x_dtype, t, H);
    layerNormRow(sums.row(t), w, b, ys.row(t), H, eps);
    ys.store(t);
  }
}

void sprt_add_rms_norm_typed(const void *x, int32_t x_dtype,
                             const void *residual, int32_t residual_dtype,
                             const void *weight, int32_t weight_dtype,
                             void *sum, int32_t sum_dtype, void *y,
                             int32_t y_dtype, int64_t T, int64_t H,
                             double eps) {
  checkSum(x_dtype, residual_dtype, sum_dtype, "sprt_add_rms_norm_typed");
  if (H <= 0)
    return;
  WidenedRows sums(sum, sum_dtype, H), ws(weight, weight_dtype, H);
  RowOut ys(y, y_dtype, H);
  const float *w = widened(ws);
  for (int64_t t = 0; t < T; ++t) {
    addRow(x, residual, sum, x_dtype, t, H);
    rmsNormRow(sums.row(t), w, ys.row(t), H, eps);
    ys.store(t);
  }
}

// Row by row: the row's dropout and sum (sprt_dropout_add_typed on its
// geometry) stored, then normalised as stored.
void sprt_dropout_add_layer_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, const void *bias, int32_t bias_dtype, void *sum,
    void *y, int32_t y_dtype, int32_t rank, const int64_t *shape,
    const int64_t *global_shape, const int64_t *offset, double rate,
    uint64_t seed, uint64_t stream, int32_t dtype, double eps) {
  const int64_t H = rank > 0 ? shape[rank - 1] : 0;
  if (H <= 0)
    return;
  WidenedRows sums(sum, dtype, H), ws(weight, weight_dtype, H),
      bs(bias, bias_dtype, H);
  RowOut ys(y, y_dtype, H);
  const float *w = widened(ws), *b = widened(bs);
  forEachDropoutRow(
      rank, shape, offset,
      [&](int64_t t, const int64_t *rowShape, const int64_t *rowOffset) {
        sprt_dropout_add_typed(at(x, t * H, dtype), at(residual, t * H, dtype),
                               at(sum, t * H, dtype), rank, rowShape,
                               global_shape, rowOffset, rate, seed, stream,
                               dtype);
        layerNormRow(sums.row(t), w, b, ys.row(t), H, eps);
        ys.store(t);
      });
}

void sprt_dropout_add_rms_norm_typed(
    const void *x, const void *residual, const void *weight,
    int32_t weight_dtype, void *sum, void *y, int32_t y_dtype, int32_t rank,
    const int64_t *shape, const int64_t *global_shape, const int64_t *offset,
    double rate, uint64_t seed, uint64_t stream, int32_t dtype, double eps) {
  const int64_t H = rank > 0 ? shape[rank - 1] : 0;
  if (H <= 0)
    return;
  WidenedRows sums(sum, dtype, H), ws(weight, weight_dtype, H);
  RowOut ys(y, y_dtype, H);
  const float *w = widened(ws);
  forEachDropoutRow(
      rank, shape, offset,
      [&](int64_t t, const int64_t *rowShape, const int64_t *rowOffset) {
        sprt_dropout_add_typed(at(x, t * H, dtype), at(residual, t * H, dtype),
                               at(sum, t * H, dtype), rank, rowShape,
                               global_shape, rowOffset, rate, seed, stream,
                               dtype);
        rmsNormRow(sums.row(t), w, ys.row(t), H, eps);
        ys.store(t);
      });
}

void sprt_layer_norm_grad_typed(const void *dy, int32_t dy_dtype, const void *x,
                                int32_t x_dtype, const void *weight,
                                int32_t weight_dtype, void *dx,
                                int32_t dx_dtype, void *dw, int32_t dw_dtype,
                                void *db, int32_t db_dtype, int64_t T,
                                int64_t H, double eps) {
  layerNormGrad(dy, dy_dtype, x, x_dtype, weight, weight_dtype, nullptr, dx,
                dx_dtype, dw, dw_dtype, db, db_dtype, T, H, eps);
}

void sprt_layer_norm_grad_add_typed(
    const void *dy, int32_t dy_dtype, const void *x, int32_t x_dtype,
    const void *weight, int32_t weight_dtype, const void *residual,
    int32_t residual_dtype, void *dx, int32_t dx_dtype, void *dw,
    int32_t dw_dtype, void *db, int32_t db_dtype, int64_t T, int64_t H,
    double eps) {
  checkResidual(residual_dtype, dx_dtype, "sprt_layer_norm_grad_add_typed");
  layerNormGrad(dy, dy_dtype, x, x_dtype, weight, weight_dtype, residual, dx,
                dx_dtype, dw, dw_dtype, db, db_dtype, T, H, eps);
}

void sprt_rms_norm_grad_typed(const void *dy, int32_t dy_dtype, const void *x,
                              int32_t x_dtype, const void *weight,
                              int32_t weight_dtype, void *dx, int32_t dx_dtype,
                              void *dw, int32_t dw_dtype, int64_t T, int64_t H,
                              double eps) {
  rmsNormGrad(dy, dy_dtype, x, x_dtype, weight, weight_dtype, nullptr, dx,
              dx_dtype, dw, dw_dtype, T, H, eps);
}

void sprt_rms_norm_grad_add_typed(const void *dy, int32_t dy_dtype,
                                  const void *x, int32_t x_dtype,
                                  const void *weight, int32_t weight_dtype,
                                  const void *residual, int32_t residual_dtype,
                                  void *dx, int32_t dx_dtype, void *dw,
                                  int32_t dw_dtype, int64_t T, int64_t H,
                                  double eps) {
  checkResidual(residual_dtype, dx_dtype, "sprt_rms_norm_grad_add_typed");
  rmsNormGrad(dy, dy_dtype, x, x_dtype, weight, weight_dtype, residual, dx,
              dx_dtype, dw, dw_dtype, T, H, eps);
}

// The f32 kernel's column sums (GradKernels.cpp) over widened rows.
void sprt_bias_grad_typed(const void *dy, int32_t dy_dtype, void *db,
                          int32_t db_dtype, int64_t T, int64_t H) {
  if (H <= 0)
    return;
  WidenedRows dys(dy, dy_dtype, H);
  ScratchVector<double> acc(size_t(H), 0.0);
  for (int64_t t = 0; t < T; ++t) {
    const float *r = dys.row(t);
    for (int64_t i = 0; i < H; ++i)
      acc[size_t(i)] += double(r[i]);
  }
  storeSums(acc, db, db_dtype);
}

} // extern "C"
