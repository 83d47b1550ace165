//===- Blas.cpp - the cuBLAS and cuBLASLt calls the backend makes, on the CPU //
//
// cublasSgemm and cublasGemmEx as plain loops (column-major, as cuBLAS;
// f32, bf16 and f16 operands; sums in double). cuBLASLt's heuristic finds
// no algorithm, so the backend takes its other path for every epilogue
// (LtGemm.cu declines, and says so).
//
//===----------------------------------------------------------------------===//

#include "Emu.h"

#include <cublasLt.h>
#include <cublas_v2.h>

#include <cstdio>
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
                                        cublasComputeType_t, cudaDataType_t) {
  *d = new cublasLtMatmulDescOpaque_t{};
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t,
                                              cublasLtMatmulDescAttributes_t,
                                              const void *, size_t) {
  return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *l,
                                          cudaDataType, uint64_t, uint64_t,
                                          int64_t) {
  *l = new cublasLtMatrixLayoutOpaque_t{};
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
cublasStatus_t
cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t, cublasLtMatmulDesc_t,
                               cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                               cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,
                               cublasLtMatmulPreference_t, int,
                               cublasLtMatmulHeuristicResult_t *, int *found) {
  *found = 0;
  return CUBLAS_STATUS_NOT_SUPPORTED;
}
cublasStatus_t
cublasLtMatmul(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *,
               const void *, cublasLtMatrixLayout_t, const void *,
               cublasLtMatrixLayout_t, const void *, const void *,
               cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t,
               const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t) {
  return CUBLAS_STATUS_NOT_SUPPORTED;
}

} // extern "C"
