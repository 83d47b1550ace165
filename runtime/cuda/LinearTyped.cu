//===- LinearTyped.cu - GEMMs of mixed precision (cuBLAS) -----------------===//
//
// sprt_linear_typed and its gradients: tensors of any SPRT_DTYPE_*, products
// accumulated in f32, the result rounded once to its dtype. Every operand in
// f32 is Linear.cu's cublasSgemm path (the same bits). Otherwise the two GEMM
// operands are brought to one type: kept as stored when they share a 16-bit
// type (cublasGemmEx reads them as they are, on tensor cores), else the
// 16-bit one(s) widened to f32 in device scratch (exact, so the same maths).
// cublasGemmEx with CUBLAS_COMPUTE_32F then takes
//
//   A, B   16BF  ->  C 16BF or 32F
//   A, B   16F   ->  C 16F or 32F
//   A, B   32F   ->  C 32F (cublasSgemm)
//
// and computes alpha AB + beta C in f32, C read and written in its type:
// one rounding. By default cuBLAS may sum split-K partial products in a
// 16-bit output type (torch's allow_bf16_reduced_precision_reduction), so
// these calls set CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION (for the
// call only: the f32 GEMMs keep the handle's mode as it is). A result type
// outside that table (a 16-bit result of f32 or other-16-bit operands) goes to
// an f32 scratch C, narrowed once after. A linear whose x, w, bias and y
// share one 16-bit type adds the bias in cuBLASLt's epilogue
// (CUBLASLT_EPILOGUE_BIAS, LtGemm.cu: onto the f32 sum, one rounding, in the
// GEMM's pass over its output). Otherwise (or where cuBLASLt declines) a bias
// is broadcast into C and added by beta = 1, as sprt_linear_f32; when C is
// 16-bit and the bias of another dtype, broadcasting would round the bias
// first, so C is the f32 scratch then too.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "LtGemm.cuh"
#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

#include <cstdio>
#include <cstdlib>

using namespace sprt::cuda;
using namespace sprt::dtype;

namespace {

/// Aborts on an element type code this backend does not know, as
/// sprt_convert.
void checkCode(int32_t t, const char *what) {
  if (t == SPRT_DTYPE_F32 || t == SPRT_DTYPE_BF16 || t == SPRT_DTYPE_F16)
    return;
  std::fprintf(stderr, "%s: unknown element type code %d\n", what, int(t));
  std::abort();
}

size_t elementBytes(int32_t t) { return t == SPRT_DTYPE_F32 ? 4 : 2; }

cudaDataType cudaTypeOf(int32_t t) {
  return t == SPRT_DTYPE_F32    ? CUDA_R_32F
         : t == SPRT_DTYPE_BF16 ? CUDA_R_16BF
                                : CUDA_R_16F;
}

int toInt(int64_t v, const char *what) {
  if (v > int64_t(0x7fffffff))
    throw std::runtime_error(std::string("sprt cuda backend: ") + what +
                             ": GEMM dimension exceeds INT_MAX");
  return int(v);
}

__device__ inline float loadAs(const void *p, int32_t t, int64_t i) {
  if (t == SPRT_DTYPE_F32)
    return static_cast<const float *>(p)[i];
  const uint16_t h = static_cast<const uint16_t *>(p)[i];
  return t == SPRT_DTYPE_BF16 ? bf16ToF32(h) : f16ToF32(h);
}

__device__ inline void storeAs(void *p, int32_t t, int64_t i, float v) {
  if (t == SPRT_DTYPE_F32)
    static_cast<float *>(p)[i] = v;
  else
    static_cast<uint16_t *>(p)[i] =
        t == SPRT_DTYPE_BF16 ? f32ToBf16(v) : f32ToF16(v);
}

/// Column-major c[rows, cols] (ld rows) = bias[row], each in its dtype.
__global__ void broadcastBias(const void *__restrict__ bias, int32_t biasType,
                              void *__restrict__ c, int32_t cType, int64_t rows,
                              int64_t cols) {
  SPRT_FOR_EACH(e, rows * cols) {
    storeAs(c, cType, e, loadAs(bias, biasType, e % rows));
  }
}

void zero(void *p, int32_t t, int64_t n) {
  SPRT_CUDA_CHECK(cudaMemsetAsync(p, 0, size_t(n) * elementBytes(t), stream()));
}

/// Adds CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION to the handle's math
/// mode while alive: split-K partial sums stay f32 (the compute type) rather
/// than being rounded to a 16-bit C.
class FullPrecisionReduction {
public:
  FullPrecisionReduction() {
    SPRT_CUBLAS_CHECK(cublasGetMathMode(cublas(), &saved));
    SPRT_CUBLAS_CHECK(cublasSetMathMode(
        cublas(),
        cublasMath_t(saved |
                     CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  }
  FullPrecisionReduction(const FullPrecisionReduction &) = delete;
  FullPrecisionReduction &operator=(const FullPrecisionReduction &) = delete;
  ~FullPrecisionReduction() { cublasSetMathMode(cublas(), saved); }

private:
  cublasMath_t saved = CUBLAS_DEFAULT_MATH;
};

/// A GEMM operand as stored: n elements of dtype t.
struct Operand {
  const void *p;
  int32_t t;
  int64_t n;
};

/// The operand in `type` (t itself or f32): p, or p widened into `slot`.
const void *asType(const Operand &a, int32_t type, Scratch slot) {
  if (a.t == type)
    return a.p;
  void *wide = scratch(slot, size_t(a.n) * sizeof(float));
  sprt_convert(a.p, a.t, wide, SPRT_DTYPE_F32, a.n);
  return wide;
}

/// Column-major C[m, n] (ld m) = op(A) op(B) + beta C, or op(A) op(B) +
/// the broadcast bias (of m elements) when bias is not null; A, B, C and the
/// bias each in its own dtype, f32 accumulation, C rounded once.
void typedGemm(cublasOperation_t opA, cublasOperation_t opB, int64_t m,
               int64_t n, int64_t k, Operand A, int64_t lda, Operand B,
               int64_t ldb, const void *bias, int32_t biasType, float beta,
               void *C, int32_t cType, const char *what) {
  // The operands' common type: as stored if they agree, else f32.
  const int32_t abType = A.t == B.t ? A.t : SPRT_DTYPE_F32;
  const void *a = asType(A, abType, Scratch::GemmA);
  const void *b = asType(B, abType, Scratch::GemmB);
  const bool viaF32 = !(cType == abType || cType == SPRT_DTYPE_F32) ||
                      (bias && cType != SPRT_DTYPE_F32 && biasType != cType);
  void *c = C;
  int32_t ct = cType;
  if (viaF32) {
    c = scratch(Scratch::GemmC, size_t(m * n) * sizeof(float));
    ct = SPRT_DTYPE_F32;
  }
  if (bias) {
    SPRT_LAUNCH(broadcastBias, m * n, bias, biasType, c, ct, m, n);
    beta = 1.0f;
  } else if (beta != 0.0f && viaF32) {
    sprt_convert(C, cType, c, SPRT_DTYPE_F32, m * n);
  }
  const float alpha = 1.0f;
  if (abType == SPRT_DTYPE_F32 && ct == SPRT_DTYPE_F32) {
    SPRT_CUBLAS_CHECK(cublasSgemm(
        cublas(), opA, opB, toInt(m, what), toInt(n, what), toInt(k, what),
        &alpha, static_cast<const float *>(a), toInt(lda, what),
        static_cast<const float *>(b), toInt(ldb, what), &beta,
        static_cast<float *>(c), toInt(m, what)));
  } else {
    FullPrecisionReduction fullPrecision;
    SPRT_CUBLAS_CHECK(cublasGemmEx(
        cublas(), opA, opB, toInt(m, what), toInt(n, what), toInt(k, what),
        &alpha, a, cudaTypeOf(abType), toInt(lda, what), b, cudaTypeOf(abType),
        toInt(ldb, what), &beta, c, cudaTypeOf(ct), toInt(m, what),
        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
  if (viaF32)
    sprt_convert(c, SPRT_DTYPE_F32, C, cType, m * n);
}

} // namespace

extern "C" {

void sprt_linear_typed(const void *x, int32_t x_dtype, const void *w,
                       int32_t w_dtype, const void *bias, int32_t bias_dtype,
                       void *y, int32_t y_dtype, int64_t M, int64_t K,
                       int64_t N, int32_t weight_in_out) {
  const char *what = "sprt_linear_typed";
  checkCode(x_dtype, what);
  checkCode(w_dtype, what);
  checkCode(y_dtype, what);
  if (bias)
    checkCode(bias_dtype, what);
  if (x_dtype == SPRT_DTYPE_F32 && w_dtype == SPRT_DTYPE_F32 &&
      y_dtype == SPRT_DTYPE_F32 && (!bias || bias_dtype == SPRT_DTYPE_F32)) {
    sprt_linear_f32(static_cast<const float *>(x),
                    static_cast<const float *>(w),
                    static_cast<const float *>(bias), static_cast<float *>(y),
                    M, K, N, weight_in_out);
    return;
  }
  if (M <= 0 || N <= 0)
    return;
  if (K <= 0) { // y = the bias, rounded once to y's dtype, or 0
    if (bias)
      SPRT_LAUNCH(broadcastBias, M * N, bias, bias_dtype, y, y_dtype, N, M);
    else
      zero(y, y_dtype, M * N);
    return;
  }
  // The bias in the GEMM's epilogue: one 16-bit type throughout.
  if (bias && y_dtype != SPRT_DTYPE_F32 && x_dtype == y_dtype &&
      w_dtype == y_dtype && bias_dtype == y_dtype &&
      ltLinear(x, w, bias, nullptr, y, y_dtype, M, K, N, weight_in_out != 0,
               LtEpilogue::Bias))
    return;
  // Row-major y[M, N] = x[M, K] op(W): column-major y^T = op(W)^T x^T, as
  // sprt_linear_f32.
  const Operand X{x, x_dtype, M * K}, W{w, w_dtype, K * N};
  if (weight_in_out)
    typedGemm(CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, W, N, X, K, bias, bias_dtype,
              0.0f, y, y_dtype, what);
  else
    typedGemm(CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, W, K, X, K, bias, bias_dtype,
              0.0f, y, y_dtype, what);
}

void sprt_linear_grad_input_typed(const void *dy, int32_t dy_dtype,
                                  const void *w, int32_t w_dtype, void *dx,
                                  int32_t dx_dtype, int64_t M, int64_t K,
                                  int64_t N, int32_t weight_in_out) {
  const char *what = "sprt_linear_grad_input_typed";
  checkCode(dy_dtype, what);
  checkCode(w_dtype, what);
  checkCode(dx_dtype, what);
  if (dy_dtype == SPRT_DTYPE_F32 && w_dtype == SPRT_DTYPE_F32 &&
      dx_dtype == SPRT_DTYPE_F32) {
    sprt_linear_grad_input_f32(
        static_cast<const float *>(dy), static_cast<const float *>(w),
        static_cast<float *>(dx), M, K, N, weight_in_out);
    return;
  }
  if (M <= 0 || K <= 0)
    return;
  if (N <= 0) {
    zero(dx, dx_dtype, M * K);
    return;
  }
  // Column-major dx^T [K, M] = W^T dy^T or W dy^T, as
  // sprt_linear_grad_input_f32.
  const Operand DY{dy, dy_dtype, M * N}, W{w, w_dtype, K * N};
  if (weight_in_out)
    typedGemm(CUBLAS_OP_T, CUBLAS_OP_N, K, M, N, W, N, DY, N, nullptr, 0, 0.0f,
              dx, dx_dtype, what);
  else
    typedGemm(CUBLAS_OP_N, CUBLAS_OP_N, K, M, N, W, K, DY, N, nullptr, 0, 0.0f,
              dx, dx_dtype, what);
}

void sprt_linear_grad_weight_typed(const void *x, int32_t x_dtype,
                                   const void *dy, int32_t dy_dtype, void *dw,
                                   int32_t dw_dtype, int64_t M, int64_t K,
                                   int64_t N, int32_t weight_in_out,
                                   int32_t accumulate) {
  const char *what = "sprt_linear_grad_weight_typed";
  checkCode(x_dtype, what);
  checkCode(dy_dtype, what);
  checkCode(dw_dtype, what);
  if (x_dtype == SPRT_DTYPE_F32 && dy_dtype == SPRT_DTYPE_F32 &&
      dw_dtype == SPRT_DTYPE_F32) {
    (accumulate ? sprt_linear_grad_weight_acc_f32
                : sprt_linear_grad_weight_f32)(
        static_cast<const float *>(x), static_cast<const float *>(dy),
        static_cast<float *>(dw), M, K, N, weight_in_out);
    return;
  }
  if (K <= 0 || N <= 0)
    return;
  if (M <= 0) { // no rows: dw += 0 leaves it, dw = 0 zeroes it
    if (!accumulate)
      zero(dw, dw_dtype, K * N);
    return;
  }
  // dw [K, N] = x^T dy (column-major dw^T = dy^T x) or dw [N, K] = dy^T x
  // (column-major dw^T = x^T dy), as sprt_linear_grad_weight_f32.
  const Operand X{x, x_dtype, M * K}, DY{dy, dy_dtype, M * N};
  const float beta = accumulate ? 1.0f : 0.0f;
  if (weight_in_out)
    typedGemm(CUBLAS_OP_N, CUBLAS_OP_T, N, K, M, DY, N, X, K, nullptr, 0, beta,
              dw, dw_dtype, what);
  else
    typedGemm(CUBLAS_OP_N, CUBLAS_OP_T, K, N, M, X, K, DY, N, nullptr, 0, beta,
              dw, dw_dtype, what);
}

} // extern "C"
