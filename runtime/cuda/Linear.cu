//===- Linear.cu - GEMMs of the CUDA backend (cuBLAS) ---------------------===//
//
// sprt_linear_f32 and its gradients (the weight's also accumulating into dw,
// beta = 1) through cublasSgemm on the compute stream, in fp32 with fp32
// accumulation (the handle's math mode is CUBLAS_DEFAULT_MATH: no TF32).
// cuBLAS is column-major: a row-major [R, C] matrix is its column-major
// [C, R] transpose, so a row-major product Y = A B is computed as the
// column-major Y^T = B^T A^T, swapping the operands.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "sprt/grad_kernels.h"
#include "sprt/kernels.h"

using namespace sprt::cuda;

namespace {

int toInt(int64_t v, const char *what) {
  if (v > int64_t(0x7fffffff))
    throw std::runtime_error(std::string("sprt cuda backend: ") + what +
                             ": GEMM dimension exceeds INT_MAX");
  return int(v);
}

// Column-major C[m, n] = alpha op(A) op(B) + beta C.
void sgemm(cublasOperation_t opA, cublasOperation_t opB, int64_t m, int64_t n,
           int64_t k, const float *A, int64_t lda, const float *B, int64_t ldb,
           float beta, float *C, int64_t ldc, const char *what) {
  const float alpha = 1.0f;
  SPRT_CUBLAS_CHECK(cublasSgemm(cublas(), opA, opB, toInt(m, what),
                                toInt(n, what), toInt(k, what), &alpha, A,
                                toInt(lda, what), B, toInt(ldb, what), &beta, C,
                                toInt(ldc, what)));
}

__global__ void broadcastRows(const float *__restrict__ bias,
                              float *__restrict__ y, int64_t M, int64_t N) {
  const int64_t n = M * N;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < n;
       e += int64_t(gridDim.x) * blockDim.x)
    y[e] = bias[e % N];
}

void zero(float *p, int64_t n) {
  SPRT_CUDA_CHECK(cudaMemsetAsync(p, 0, size_t(n) * sizeof(float), stream()));
}

// dw (= or +=, by beta) dy^T x for W [N, K], x^T dy for W [K, N].
void gradWeightGemm(const float *x, const float *dy, float *dw, int64_t M,
                    int64_t K, int64_t N, int32_t weight_in_out, float beta,
                    const char *what) {
  if (weight_in_out) // dw [K, N] = x^T dy: column-major dw^T = dy^T x.
    sgemm(CUBLAS_OP_N, CUBLAS_OP_T, N, K, M, dy, N, x, K, beta, dw, N, what);
  else // dw [N, K] = dy^T x: column-major dw^T = x^T dy.
    sgemm(CUBLAS_OP_N, CUBLAS_OP_T, K, N, M, x, K, dy, N, beta, dw, K, what);
}

} // namespace

extern "C" {

void sprt_linear_f32(const float *x, const float *w, const float *bias,
                     float *y, int64_t M, int64_t K, int64_t N,
                     int32_t weight_in_out) {
  if (M <= 0 || N <= 0)
    return;
  // With a bias, y starts as the broadcast bias and the GEMM accumulates
  // into it (beta = 1), as the CPU backend and torch's addmm do.
  float beta = 0.0f;
  if (bias) {
    broadcastRows<<<gridFor(M * N), kThreads, 0, stream()>>>(bias, y, M, N);
    SPRT_CUDA_CHECK_LAUNCH("broadcastRows");
    beta = 1.0f;
  }
  if (K <= 0) {
    if (!bias)
      zero(y, M * N);
    return;
  }
  // Row-major y[M, N] = x[M, K] op(W); column-major y^T = op(W)^T x^T.
  // W [N, K] (row-major) is column-major W^T with ld K: transpose it.
  // W [K, N] is column-major W^T [N, K] with ld N: use it as it is.
  if (weight_in_out)
    sgemm(CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, w, N, x, K, beta, y, N,
          "sprt_linear_f32");
  else
    sgemm(CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, w, K, x, K, beta, y, N,
          "sprt_linear_f32");
}

void sprt_linear_grad_input_f32(const float *dy, const float *w, float *dx,
                                int64_t M, int64_t K, int64_t N,
                                int32_t weight_in_out) {
  if (M <= 0 || K <= 0)
    return;
  if (N <= 0) {
    zero(dx, M * K);
    return;
  }
  // dx[M, K] = dy[M, N] W (W [N, K]) or dy W^T (W [K, N]); column-major
  // dx^T [K, M] = W^T dy^T or W dy^T, dy^T being dy as stored (ld N).
  if (weight_in_out) // W [K, N] stored: column-major W^T, ld N; transpose.
    sgemm(CUBLAS_OP_T, CUBLAS_OP_N, K, M, N, w, N, dy, N, 0.0f, dx, K,
          "sprt_linear_grad_input_f32");
  else // W [N, K] stored: column-major W^T [K, N], ld K; as it is.
    sgemm(CUBLAS_OP_N, CUBLAS_OP_N, K, M, N, w, K, dy, N, 0.0f, dx, K,
          "sprt_linear_grad_input_f32");
}

void sprt_linear_grad_weight_f32(const float *x, const float *dy, float *dw,
                                 int64_t M, int64_t K, int64_t N,
                                 int32_t weight_in_out) {
  if (K <= 0 || N <= 0)
    return;
  if (M <= 0) {
    zero(dw, K * N);
    return;
  }
  gradWeightGemm(x, dy, dw, M, K, N, weight_in_out, 0.0f,
                 "sprt_linear_grad_weight_f32");
}

void sprt_linear_grad_weight_acc_f32(const float *x, const float *dy, float *dw,
                                     int64_t M, int64_t K, int64_t N,
                                     int32_t weight_in_out) {
  if (K <= 0 || N <= 0 || M <= 0)
    return;
  gradWeightGemm(x, dy, dw, M, K, N, weight_in_out, 1.0f,
                 "sprt_linear_grad_weight_acc_f32");
}

} // extern "C"
