//===- TypedGemm.cpp - CPU GEMMs on bf16 / f16 / f32 storage --------------===//
//
// typedGemm (TypedGemm.h) and the typed linear kernels of sprt/kernels.h and
// sprt/grad_kernels.h on it. A bf16 / f16 operand is widened (exactly) into
// an f32 panel, the panel goes through the same cblas_sgemm call as the f32
// kernel's, and a bf16 / f16 result is rounded once from its f32 panel: the
// numbers are those of the f32 kernel on the widened operands, rounded once,
// with at most a panel of each operand in f32 at a time instead of the
// whole tensor. Each call of sprt_linear_typed maps onto typedGemm with the
// operands and transposes of sprt_linear_f32 (and so for the gradients), so
// one-panel GEMMs give those kernels' bits.
//
//===----------------------------------------------------------------------===//

#include "TypedGemm.h"
#include "Scratch.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace sprt::cpu;

namespace {

void checkDtype(int32_t dtype, const char *what) {
  if (dtype == SPRT_DTYPE_F32 || dtype == SPRT_DTYPE_BF16 ||
      dtype == SPRT_DTYPE_F16)
    return;
  std::fprintf(stderr, "sprt: typed GEMM: unknown element type code %d of %s\n",
               int(dtype), what);
  std::abort();
}

int64_t elemBytes(int32_t dtype) { return dtype == SPRT_DTYPE_F32 ? 4 : 2; }

const char *at(const void *p, int32_t dtype, int64_t elems) {
  return static_cast<const char *>(p) + elems * elemBytes(dtype);
}

/// dst[rows, cols] (contiguous f32) = the block of `src` (row stride ld).
void widenBlock(const void *src, int32_t dtype, int64_t ld, int64_t rows,
                int64_t cols, float *dst) {
  for (int64_t r = 0; r < rows; ++r)
    sprt_convert(at(src, dtype, r * ld), dtype, dst + r * cols, SPRT_DTYPE_F32,
                 cols);
}

/// The block of `dst` (row stride ld) = src[rows, cols] rounded to dtype.
void narrowBlock(const float *src, int64_t rows, int64_t cols, void *dst,
                 int32_t dtype, int64_t ld) {
  for (int64_t r = 0; r < rows; ++r)
    sprt_convert(src + r * cols, SPRT_DTYPE_F32,
                 const_cast<char *>(at(dst, dtype, r * ld)), dtype, cols);
}

/// The f32 panel of op(X) for rows [r0, r0 + rows) and columns [k0, k0 +
/// K) of op(X): X itself when f32, else widened into `panel`. Returns the
/// pointer and sets `ld`.
const float *operandPanel(TypedMatrix X, int64_t r0, int64_t rows, int64_t k0,
                          int64_t K, ScratchVector<float> &panel, int64_t &ld) {
  // op(X)'s rows r are X's rows (trans = false) or X's columns (trans).
  int64_t offset = X.trans ? k0 * X.ld + r0 : r0 * X.ld + k0;
  if (X.dtype == SPRT_DTYPE_F32) {
    ld = X.ld;
    return static_cast<const float *>(X.data) + offset;
  }
  int64_t storedRows = X.trans ? K : rows, storedCols = X.trans ? rows : K;
  panel.resize(size_t(storedRows * storedCols));
  widenBlock(at(X.data, X.dtype, offset), X.dtype, X.ld, storedRows, storedCols,
             panel.data());
  ld = storedCols;
  return panel.data();
}

} // namespace

void sprt::cpu::typedGemm(int64_t M, int64_t N, int64_t K, TypedMatrix A,
                          TypedMatrix B, const void *bias, int32_t biasDtype,
                          float beta, void *C, int32_t cDtype, int64_t ldc,
                          int64_t panelElems) {
  checkDtype(A.dtype, "the first operand");
  checkDtype(B.dtype, "the second operand");
  checkDtype(cDtype, "the result");
  if (bias)
    checkDtype(biasDtype, "the bias");
  if (M <= 0 || N <= 0)
    return;
  const bool wideA = A.dtype != SPRT_DTYPE_F32;
  const bool wideB = B.dtype != SPRT_DTYPE_F32;
  const bool wideC = cDtype != SPRT_DTYPE_F32;
  int64_t P = std::max<int64_t>(panelElems, 1);
  // B's panels split N, A's and C's split M: a panel within P elements, but
  // at least kMinPanel rows or columns (when P allows one), so that each
  // cblas_sgemm stays large enough to run at speed. A K too long for that
  // (the vocabulary of an LM head's input gradient) is split as well, into
  // pieces of kb whose products accumulate in the f32 result panel.
  int64_t minPanel = std::min<int64_t>(kMinPanel, P);
  int64_t kb = std::max<int64_t>(K, 1);
  if ((wideA || wideB) && kb * minPanel > P)
    kb = std::max<int64_t>(P / minPanel, 1);
  auto rowsFor = [&](int64_t perRow) {
    return std::max<int64_t>(P / perRow, minPanel);
  };
  int64_t nb = wideB ? std::min(N, rowsFor(kb)) : N;
  int64_t mb = M;
  if (wideA)
    mb = std::min(mb, rowsFor(kb));
  if (wideC)
    mb = std::min(mb, rowsFor(nb));
  ScratchVector<float> aPanel, bPanel, cPanel, biasRow;
  if (bias) {
    biasRow.resize(size_t(N));
    sprt_convert(bias, biasDtype, biasRow.data(), SPRT_DTYPE_F32, N);
    beta = 1.0f;
  }
  for (int64_t n0 = 0; n0 < N; n0 += nb) {
    int64_t nn = std::min(nb, N - n0);
    // op(B)[K, N]'s columns are op(B)^T's rows.
    TypedMatrix Bt{B.data, B.dtype, B.ld, !B.trans};
    for (int64_t m0 = 0; m0 < M; m0 += mb) {
      int64_t mm = std::min(mb, M - m0), ldcPanel = ldc;
      float *c;
      if (wideC) {
        cPanel.resize(size_t(mm * nn));
        c = cPanel.data();
        ldcPanel = nn;
        if (!bias && beta != 0.0f)
          widenBlock(at(C, cDtype, m0 * ldc + n0), cDtype, ldc, mm, nn, c);
      } else {
        c = static_cast<float *>(C) + m0 * ldc + n0;
      }
      for (int64_t r = 0; r < mm; ++r) {
        if (bias)
          std::memcpy(c + r * ldcPanel, biasRow.data() + n0,
                      size_t(nn) * sizeof(float));
        else if (beta == 0.0f && K <= 0)
          std::fill(c + r * ldcPanel, c + r * ldcPanel + nn, 0.0f);
      }
      for (int64_t k0 = 0; k0 < K; k0 += kb) {
        int64_t kk = std::min(kb, K - k0), lda = 0, ldb = 0;
        // A widened panel of B in one piece of K serves every panel of M.
        const float *b;
        if (!wideB || m0 == 0 || kk < K) {
          b = operandPanel(Bt, n0, nn, k0, kk, bPanel, ldb);
        } else {
          b = bPanel.data();
          ldb = B.trans ? kk : nn;
        }
        const float *a = operandPanel(A, m0, mm, k0, kk, aPanel, lda);
        cblas_sgemm(CblasRowMajor, A.trans ? CblasTrans : CblasNoTrans,
                    B.trans ? CblasTrans : CblasNoTrans, blasint(mm),
                    blasint(nn), blasint(kk), 1.0f, a, blasint(lda), b,
                    blasint(ldb), k0 == 0 ? beta : 1.0f, c, blasint(ldcPanel));
      }
      if (wideC)
        narrowBlock(c, mm, nn, const_cast<char *>(at(C, cDtype, m0 * ldc + n0)),
                    cDtype, ldc);
    }
  }
}

extern "C" {

void sprt_linear_typed(const void *x, int32_t x_dtype, const void *w,
                       int32_t w_dtype, const void *bias, int32_t bias_dtype,
                       void *y, int32_t y_dtype, int64_t M, int64_t K,
                       int64_t N, int32_t weight_in_out) {
  // y = x W^T for W [N, K]; y = x W for W [K, N] (sprt_linear_f32's call).
  const bool inOut = weight_in_out != 0;
  typedGemm(M, N, K, {x, x_dtype, K, false},
            {w, w_dtype, inOut ? N : K, !inOut}, bias, bias_dtype, 0.0f, y,
            y_dtype, N);
}

void sprt_linear_gelu_typed(const void *x, int32_t x_dtype, const void *w,
                            int32_t w_dtype, const void *bias,
                            int32_t bias_dtype, void *pre, void *y,
                            int32_t y_dtype, int64_t M, int64_t K, int64_t N,
                            int32_t weight_in_out, int32_t tanh_approx) {
  // The two ops' calls, as the program makes them unfused (the lowering
  // calls the _f32 kernels where every tensor is f32).
  void *h = pre ? pre : y;
  const auto f32 = SPRT_DTYPE_F32;
  if (x_dtype == f32 && w_dtype == f32 && y_dtype == f32 &&
      (!bias || bias_dtype == f32)) {
    sprt_linear_f32(static_cast<const float *>(x),
                    static_cast<const float *>(w),
                    static_cast<const float *>(bias), static_cast<float *>(h),
                    M, K, N, weight_in_out);
    sprt_gelu_f32(static_cast<const float *>(h), static_cast<float *>(y), M * N,
                  tanh_approx);
    return;
  }
  sprt_linear_typed(x, x_dtype, w, w_dtype, bias, bias_dtype, h, y_dtype, M, K,
                    N, weight_in_out);
  sprt_gelu_typed(h, y, M * N, tanh_approx, y_dtype);
}

/// tfm.bias_grad's call as the program makes it unfused: the _f32 kernel
/// where dy and db are f32.
static void biasGradAsLowered(const void *dy, int32_t dy_dtype, void *db,
                              int32_t db_dtype, int64_t T, int64_t H) {
  if (dy_dtype == SPRT_DTYPE_F32 && db_dtype == SPRT_DTYPE_F32)
    sprt_bias_grad_f32(static_cast<const float *>(dy), static_cast<float *>(db),
                       T, H);
  else
    sprt_bias_grad_typed(dy, dy_dtype, db, db_dtype, T, H);
}

void sprt_linear_gelu_grad_typed(const void *dy, int32_t dy_dtype,
                                 const void *w, int32_t w_dtype,
                                 const void *pre, void *dx, int32_t dx_dtype,
                                 void *dbias, int32_t dbias_dtype, int64_t M,
                                 int64_t K, int64_t N, int32_t weight_in_out,
                                 int32_t tanh_approx) {
  // The ops' calls, as the program makes them unfused (the _f32 kernels
  // where their tensors are all f32); the GELU's gradient in place over the
  // input gradient, element by element.
  const auto f32 = SPRT_DTYPE_F32;
  if (dy_dtype == f32 && w_dtype == f32 && dx_dtype == f32) {
    float *d = static_cast<float *>(dx);
    sprt_linear_grad_input_f32(static_cast<const float *>(dy),
                               static_cast<const float *>(w), d, M, K, N,
                               weight_in_out);
    sprt_gelu_grad_f32(d, static_cast<const float *>(pre), d, M * K,
                       tanh_approx);
  } else {
    sprt_linear_grad_input_typed(dy, dy_dtype, w, w_dtype, dx, dx_dtype, M, K,
                                 N, weight_in_out);
    sprt_gelu_grad_typed(dx, pre, dx, M * K, tanh_approx, dx_dtype);
  }
  if (dbias)
    biasGradAsLowered(dx, dx_dtype, dbias, dbias_dtype, M, K);
}

void sprt_linear_grad_input_typed(const void *dy, int32_t dy_dtype,
                                  const void *w, int32_t w_dtype, void *dx,
                                  int32_t dx_dtype, int64_t M, int64_t K,
                                  int64_t N, int32_t weight_in_out) {
  // dx = dy W for W [N, K]; dy W^T for W [K, N].
  const bool inOut = weight_in_out != 0;
  typedGemm(M, K, N, {dy, dy_dtype, N, false},
            {w, w_dtype, inOut ? N : K, inOut}, nullptr, SPRT_DTYPE_F32, 0.0f,
            dx, dx_dtype, K);
}

void sprt_linear_grad_weight_typed(const void *x, int32_t x_dtype,
                                   const void *dy, int32_t dy_dtype, void *dw,
                                   int32_t dw_dtype, int64_t M, int64_t K,
                                   int64_t N, int32_t weight_in_out,
                                   int32_t accumulate) {
  float beta = accumulate ? 1.0f : 0.0f;
  if (accumulate && M <= 0)
    return;
  if (weight_in_out) // dw [K, N] = x^T dy
    typedGemm(K, N, M, {x, x_dtype, K, true}, {dy, dy_dtype, N, false}, nullptr,
              SPRT_DTYPE_F32, beta, dw, dw_dtype, N);
  else // dw [N, K] = dy^T x
    typedGemm(N, K, M, {dy, dy_dtype, N, true}, {x, x_dtype, K, false}, nullptr,
              SPRT_DTYPE_F32, beta, dw, dw_dtype, K);
}

void sprt_linear_grad_weight_bias_typed(const void *x, int32_t x_dtype,
                                        const void *dy, int32_t dy_dtype,
                                        void *dw, int32_t dw_dtype, void *db,
                                        int32_t db_dtype, int64_t M, int64_t K,
                                        int64_t N, int32_t weight_in_out) {
  // The two ops' calls, as the program makes them unfused.
  const auto f32 = SPRT_DTYPE_F32;
  if (x_dtype == f32 && dy_dtype == f32 && dw_dtype == f32)
    sprt_linear_grad_weight_f32(
        static_cast<const float *>(x), static_cast<const float *>(dy),
        static_cast<float *>(dw), M, K, N, weight_in_out);
  else
    sprt_linear_grad_weight_typed(x, x_dtype, dy, dy_dtype, dw, dw_dtype, M, K,
                                  N, weight_in_out, /*accumulate=*/0);
  biasGradAsLowered(dy, dy_dtype, db, db_dtype, M, N);
}

} // extern "C"
