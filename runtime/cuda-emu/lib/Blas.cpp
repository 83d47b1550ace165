//===- Blas.cpp - the cuBLAS and cuBLASLt calls the backend makes, on the CPU //
//
// cublasSgemm, cublasGemmEx and cublasLtMatmul as plain loops (column-major,
// as cuBLAS; f32, bf16 and f16 operands; sums in double), cuBLASLt's
// epilogues as its documentation defines them (bias, GELU with and without
// its auxiliary output, GELU's gradient, the bias gradients). The heuristic
// offers one algorithm for any call whose shapes and epilogue it accepts.
//
//===----------------------------------------------------------------------===//

#include "Emu.h"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

struct cublasContext {
  cudaStream_t stream = nullptr;
  cublasMath_t math = CUBLAS_DEFAULT_MATH;
};
struct cublasLtContext {};

namespace {

double load(const void *p, cudaDataType t, size_t i) {
  switch (t) {
  case CUDA_R_32F:
    return static_cast<const float *>(p)[i];
  case CUDA_R_16BF:
    return __bfloat162float(static_cast<const __nv_bfloat16 *>(p)[i]);
  case CUDA_R_16F:
    return __half2float(static_cast<const __half *>(p)[i]);
  default:
    std::fprintf(stderr, "sprt emu: a GEMM operand of type %d\n", int(t));
    std::abort();
  }
}

void store(void *p, cudaDataType t, size_t i, double v) {
  switch (t) {
  case CUDA_R_32F:
    static_cast<float *>(p)[i] = float(v);
    return;
  case CUDA_R_16BF:
    static_cast<__nv_bfloat16 *>(p)[i] = __float2bfloat16_rn(float(v));
    return;
  case CUDA_R_16F:
    static_cast<__half *>(p)[i] = __float2half_rn(float(v));
    return;
  default:
    std::fprintf(stderr, "sprt emu: a GEMM result of type %d\n", int(t));
    std::abort();
  }
}

size_t typeBytes(cudaDataType t) { return t == CUDA_R_32F ? 4 : 2; }

/// C = alpha op(A) op(B) + beta C, column-major, on the handle's stream.
cublasStatus_t gemm(cublasHandle_t h, cublasOperation_t ta,
                    cublasOperation_t tb, int m, int n, int k, double alpha,
                    const void *A, cudaDataType at, int lda, const void *B,
                    cudaDataType bt, int ldb, double beta, void *C,
                    cudaDataType ct, int ldc) {
  if (m < 0 || n < 0 || k < 0 || ldc < std::max(1, m) ||
      lda < std::max(1, ta == CUBLAS_OP_N ? m : k) ||
      ldb < std::max(1, tb == CUBLAS_OP_N ? k : n))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (m == 0 || n == 0)
    return CUBLAS_STATUS_SUCCESS;
  const size_t aCols = ta == CUBLAS_OP_N ? k : m,
               bCols = tb == CUBLAS_OP_N ? n : k;
  if ((k > 0 && !sprt_emu::isDeviceMemory(A, (size_t(lda) * (aCols - 1) +
                                              (ta == CUBLAS_OP_N ? m : k)) *
                                                 typeBytes(at))) ||
      (k > 0 && !sprt_emu::isDeviceMemory(B, (size_t(ldb) * (bCols - 1) +
                                              (tb == CUBLAS_OP_N ? k : n)) *
                                                 typeBytes(bt))) ||
      !sprt_emu::isDeviceMemory(C,
                                (size_t(ldc) * (n - 1) + m) * typeBytes(ct))) {
    std::fprintf(stderr, "sprt emu: a GEMM operand outside memory cudaMalloc "
                         "gave (or past its end)\n");
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  cudaError_t e = sprt_emu::enqueue(h->stream, [=] {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        double s = 0.0;
        for (int p = 0; p < k; ++p) {
          const double a = ta == CUBLAS_OP_N ? load(A, at, size_t(p) * lda + i)
                                             : load(A, at, size_t(i) * lda + p);
          const double b = tb == CUBLAS_OP_N ? load(B, bt, size_t(j) * ldb + p)
                                             : load(B, bt, size_t(p) * ldb + j);
          s += a * b;
        }
        const size_t c = size_t(j) * ldc + i;
        // beta 0: C is not read (it may hold NaNs).
        store(C, ct, c,
              alpha * s + (beta != 0.0 ? beta * load(C, ct, c) : 0.0));
      }
  });
  return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                          : CUBLAS_STATUS_EXECUTION_FAILED;
}

/// cublasLtMatmulDesc_t's attributes that the backend sets.
struct LtDesc {
  cublasOperation_t transA = CUBLAS_OP_N, transB = CUBLAS_OP_N;
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  const void *bias = nullptr; // or the bias gradient written
  void *aux = nullptr;
  int64_t auxLd = 0;
};
struct LtLayout {
  cudaDataType type;
  int64_t rows, cols, ld;
};
LtLayout layout(cublasLtMatrixLayout_t l) {
  return *reinterpret_cast<LtLayout *>(l);
}

bool usesAux(cublasLtEpilogue_t e) {
  return e == CUBLASLT_EPILOGUE_GELU_AUX ||
         e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS || e == CUBLASLT_EPILOGUE_DGELU ||
         e == CUBLASLT_EPILOGUE_DGELU_BGRAD;
}
bool usesBias(cublasLtEpilogue_t e) {
  return e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_GELU_BIAS ||
         e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
         e == CUBLASLT_EPILOGUE_DGELU_BGRAD || e == CUBLASLT_EPILOGUE_BGRADA ||
         e == CUBLASLT_EPILOGUE_BGRADB;
}

/// What cuBLASLt checks of a call: the operands' shapes agree, the
/// epilogue is one of those emulated, its pointers are set, and the
/// auxiliary tensor's leading dimension is a multiple of 8.
cublasStatus_t checkShapes(const LtDesc &d, const LtLayout &a,
                           const LtLayout &b, const LtLayout &c,
                           const LtLayout &out) {
  const int64_t m = out.rows, n = out.cols;
  const int64_t am = d.transA == CUBLAS_OP_N ? a.rows : a.cols,
                ak = d.transA == CUBLAS_OP_N ? a.cols : a.rows,
                bk = d.transB == CUBLAS_OP_N ? b.rows : b.cols,
                bn = d.transB == CUBLAS_OP_N ? b.cols : b.rows;
  if (am != m || bn != n || ak != bk || c.rows != m || c.cols != n)
    return CUBLAS_STATUS_INVALID_VALUE;
  switch (d.epilogue) {
  case CUBLASLT_EPILOGUE_DEFAULT:
  case CUBLASLT_EPILOGUE_BIAS:
  case CUBLASLT_EPILOGUE_GELU:
  case CUBLASLT_EPILOGUE_GELU_BIAS:
  case CUBLASLT_EPILOGUE_GELU_AUX:
  case CUBLASLT_EPILOGUE_GELU_AUX_BIAS:
  case CUBLASLT_EPILOGUE_DGELU:
  case CUBLASLT_EPILOGUE_DGELU_BGRAD:
  case CUBLASLT_EPILOGUE_BGRADA:
  case CUBLASLT_EPILOGUE_BGRADB:
    break;
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
  if (usesAux(d.epilogue) && (!d.aux || d.auxLd < m || d.auxLd % 8 != 0))
    return CUBLAS_STATUS_INVALID_VALUE;
  if (usesBias(d.epilogue) && !d.bias)
    return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

double geluTanh(double x) {
  const double k = 0.7978845608028654; // sqrt(2 / pi)
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}
double geluTanhGrad(double x) {
  const double k = 0.7978845608028654;
  const double t = std::tanh(k * (x + 0.044715 * x * x * x));
  return 0.5 * (1.0 + t) +
         0.5 * x * (1.0 - t * t) * k * (1.0 + 3.0 * 0.044715 * x * x);
}

/// D = epilogue(alpha op(A) op(B) + beta C), column-major, as cuBLASLt's
/// documentation defines each epilogue: the bias (and the bias gradient of
/// DGELU_BGRAD) along D's rows, BGRADA's the sums of op(A)'s rows, BGRADB's
/// of op(B)'s columns; the bias and the auxiliary tensor of D's type.
void ltMatmul(const LtDesc &d, float alpha, const void *A, const LtLayout &a,
              const void *B, const LtLayout &b, float beta, const void *C,
              const LtLayout &c, void *D, const LtLayout &out) {
  const int64_t m = out.rows, n = out.cols;
  const int64_t k = d.transA == CUBLAS_OP_N ? a.cols : a.rows;
  auto opA = [&](int64_t i, int64_t p) {
    return d.transA == CUBLAS_OP_N ? load(A, a.type, size_t(p * a.ld + i))
                                   : load(A, a.type, size_t(i * a.ld + p));
  };
  auto opB = [&](int64_t p, int64_t j) {
    return d.transB == CUBLAS_OP_N ? load(B, b.type, size_t(j * b.ld + p))
                                   : load(B, b.type, size_t(p * b.ld + j));
  };
  const cublasLtEpilogue_t e = d.epilogue;
  const cudaDataType t = out.type;
  std::vector<double> rowSums(size_t(m), 0.0);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) {
      double s = 0.0;
      for (int64_t p = 0; p < k; ++p)
        s += opA(i, p) * opB(p, j);
      double v = double(alpha) * s;
      if (beta != 0.0f)
        v += double(beta) * load(C, c.type, size_t(j * c.ld + i));
      const size_t auxAt = size_t(j * d.auxLd + i);
      if (e == CUBLASLT_EPILOGUE_BIAS || e == CUBLASLT_EPILOGUE_GELU_BIAS ||
          e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS)
        v += load(d.bias, t, size_t(i));
      if (e == CUBLASLT_EPILOGUE_GELU_AUX ||
          e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS)
        store(d.aux, t, auxAt, v);
      if (e == CUBLASLT_EPILOGUE_GELU || e == CUBLASLT_EPILOGUE_GELU_BIAS ||
          e == CUBLASLT_EPILOGUE_GELU_AUX ||
          e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS)
        v = geluTanh(v);
      if (e == CUBLASLT_EPILOGUE_DGELU || e == CUBLASLT_EPILOGUE_DGELU_BGRAD)
        v *= geluTanhGrad(load(d.aux, t, auxAt));
      rowSums[size_t(i)] += v;
      store(D, t, size_t(j * out.ld + i), v);
    }
  void *bias = const_cast<void *>(d.bias);
  if (e == CUBLASLT_EPILOGUE_DGELU_BGRAD)
    for (int64_t i = 0; i < m; ++i)
      store(bias, t, size_t(i), rowSums[size_t(i)]);
  if (e == CUBLASLT_EPILOGUE_BGRADA)
    for (int64_t i = 0; i < m; ++i) {
      double s = 0.0;
      for (int64_t p = 0; p < k; ++p)
        s += opA(i, p);
      store(bias, t, size_t(i), s);
    }
  if (e == CUBLASLT_EPILOGUE_BGRADB)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t p = 0; p < k; ++p)
        s += opB(p, j);
      store(bias, t, size_t(j), s);
    }
}

} // namespace

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t *h) {
  *h = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasDestroy_v2(cublasHandle_t h) {
  delete h;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetStream_v2(cublasHandle_t h, cudaStream_t s) {
  h->stream = s;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t, void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t m) {
  h->math = m;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *m) {
  *m = h->math;
  return CUBLAS_STATUS_SUCCESS;
}
const char *cublasGetStatusName(cublasStatus_t s) {
  switch (s) {
  case CUBLAS_STATUS_SUCCESS:
    return "CUBLAS_STATUS_SUCCESS";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  default:
    return "CUBLAS_STATUS (emulated)";
  }
}
const char *cublasGetStatusString(cublasStatus_t s) {
  return cublasGetStatusName(s);
}

cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta,
                              cublasOperation_t tb, int m, int n, int k,
                              const float *alpha, const float *A, int lda,
                              const float *B, int ldb, const float *beta,
                              float *C, int ldc) {
  return gemm(h, ta, tb, m, n, k, *alpha, A, CUDA_R_32F, lda, B, CUDA_R_32F,
              ldb, *beta, C, CUDA_R_32F, ldc);
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta,
                            cublasOperation_t tb, int m, int n, int k,
                            const void *alpha, const void *A, cudaDataType at,
                            int lda, const void *B, cudaDataType bt, int ldb,
                            const void *beta, void *C, cudaDataType ct, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t) {
  if (compute != CUBLAS_COMPUTE_32F && compute != CUBLAS_COMPUTE_32F_PEDANTIC)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  return gemm(h, ta, tb, m, n, k, *static_cast<const float *>(alpha), A, at,
              lda, B, bt, ldb, *static_cast<const float *>(beta), C, ct, ldc);
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t *h) {
  *h = new cublasLtContext;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *d,
                                        cublasComputeType_t compute,
                                        cudaDataType_t scale) {
  *d = nullptr;
  if (compute != CUBLAS_COMPUTE_32F || scale != CUDA_R_32F)
    return CUBLAS_STATUS_NOT_SUPPORTED;
  *d = reinterpret_cast<cublasLtMatmulDesc_t>(new LtDesc);
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              cublasLtMatmulDescAttributes_t a,
                                              const void *value, size_t bytes) {
  LtDesc &d = *reinterpret_cast<LtDesc *>(desc);
  auto take = [&](auto &field) {
    if (bytes != sizeof field)
      return CUBLAS_STATUS_INVALID_VALUE;
    std::memcpy(&field, value, bytes);
    return CUBLAS_STATUS_SUCCESS;
  };
  switch (a) {
  case CUBLASLT_MATMUL_DESC_TRANSA:
    return take(d.transA);
  case CUBLASLT_MATMUL_DESC_TRANSB:
    return take(d.transB);
  case CUBLASLT_MATMUL_DESC_EPILOGUE:
    return take(d.epilogue);
  case CUBLASLT_MATMUL_DESC_BIAS_POINTER:
    return take(d.bias);
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER:
    return take(d.aux);
  case CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD:
    return take(d.auxLd);
  default:
    return CUBLAS_STATUS_NOT_SUPPORTED;
  }
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l,
                                          cudaDataType type, uint64_t rows,
                                          uint64_t cols, int64_t ld) {
  *l = nullptr;
  if (ld < int64_t(std::max<uint64_t>(rows, 1)))
    return CUBLAS_STATUS_INVALID_VALUE;
  *l = reinterpret_cast<cublasLtMatrixLayout_t>(
      new LtLayout{type, int64_t(rows), int64_t(cols), ld});
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *p) {
  *p = new cublasLtMatmulPreferenceOpaque_t{};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t
cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t,
                                     cublasLtMatmulPreferenceAttributes_t,
                                     const void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t p) {
  delete p;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c,
    cublasLtMatrixLayout_t d, cublasLtMatmulPreference_t, int requested,
    cublasLtMatmulHeuristicResult_t *results, int *found) {
  *found = 0;
  cublasStatus_t st = checkShapes(*reinterpret_cast<LtDesc *>(desc), layout(a),
                                  layout(b), layout(c), layout(d));
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  if (requested < 1)
    return CUBLAS_STATUS_INVALID_VALUE;
  results[0] = cublasLtMatmulHeuristicResult_t{};
  results[0].state = CUBLAS_STATUS_SUCCESS;
  *found = 1;
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t desc,
                              const void *alpha, const void *A,
                              cublasLtMatrixLayout_t a, const void *B,
                              cublasLtMatrixLayout_t b, const void *beta,
                              const void *C, cublasLtMatrixLayout_t c, void *D,
                              cublasLtMatrixLayout_t d,
                              const cublasLtMatmulAlgo_t *, void *, size_t,
                              cudaStream_t stream) {
  const LtDesc ld = *reinterpret_cast<LtDesc *>(desc);
  const LtLayout la = layout(a), lb = layout(b), lc = layout(c),
                 ldd = layout(d);
  if (cublasStatus_t st = checkShapes(ld, la, lb, lc, ldd))
    return st;
  const float al = *static_cast<const float *>(alpha),
              be = *static_cast<const float *>(beta);
  cudaError_t e = sprt_emu::enqueue(
      stream, [=] { ltMatmul(ld, al, A, la, B, lb, be, C, lc, D, ldd); });
  return e == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                          : CUBLAS_STATUS_EXECUTION_FAILED;
}

} // extern "C"
