//===- LtGemm.cuh - a linear's GEMM with its epilogue (cuBLASLt) -*- CUDA
//-*-===//
//
// The GEMMs whose neighbours cuBLASLt applies in the GEMM's own pass over its
// output: the bias of sprt_linear_typed (LinearTyped.cu), the bias and GELU
// of sprt_linear_gelu_typed (tfm.linear_gelu), the GELU's gradient and the
// bias gradient of sprt_linear_gelu_grad_typed (tfm.linear_gelu_grad). See
// LtGemm.cu.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CUDA_LTGEMM_CUH
#define SPRT_CUDA_LTGEMM_CUH

#include <cstdint>

namespace sprt::cuda {

/// What the GEMM's epilogue applies to the f32 sum: the bias, or GELU (tanh)
/// after the bias where one is given.
enum class LtEpilogue { Bias, Gelu };

/// Row-major y[M, N] = epilogue(x[M, K] op(W) + bias[N]) for W [N, K] (or
/// [K, N] with inOut), every tensor of `dtype` (f32, bf16 or f16), f32
/// accumulation, one rounding of y; with Gelu, `pre` (if not null) receives
/// x op(W) + bias rounded once. False where cuBLASLt declines the shape
/// (said once per shape on stderr) or SPRT_CUBLASLT=0 is set: the caller
/// then computes it another way. Nothing is written then.
bool ltLinear(const void *x, const void *w, const void *bias, void *pre,
              void *y, int32_t dtype, int64_t M, int64_t K, int64_t N,
              bool inOut, LtEpilogue epilogue);

/// Row-major dx[M, K] = gelu'(pre) (dy[M, N] op(W)) for W [N, K] (or [K, N]
/// with inOut), and, if dbias is not null, dbias[K] = the column sums of dx
/// (f32 sums of the unrounded products), every tensor of `dtype`. False,
/// having written nothing, as ltLinear.
bool ltLinearGeluGrad(const void *dy, const void *w, const void *pre, void *dx,
                      void *dbias, int32_t dtype, int64_t M, int64_t K,
                      int64_t N, bool inOut);

/// dw = the weight gradient of x [M, K] and dy [M, N] ([N, K] = dy^T x, or
/// [K, N] = x^T dy with inOut) and db[N] = the column sums of dy, summed by
/// the GEMM's epilogue (BGRADB, or BGRADA with inOut), x and dy of `dtype`,
/// dw and db of `dwDtype` (`dtype`, or f32). False, having written nothing,
/// as ltLinear.
bool ltLinearGradWeightBias(const void *x, const void *dy, void *dw, void *db,
                            int32_t dtype, int32_t dwDtype, int64_t M,
                            int64_t K, int64_t N, bool inOut);

/// Whether ltLinear, ltLinearGeluGrad and ltLinearGradWeightBias may call
/// cuBLASLt (the environment's
/// SPRT_CUBLASLT, default on); kernel benches set it to time what it replaced.
bool &ltEnabled();
/// Allocates cuBLASLt's workspace now where cuBLASLt is enabled.
void ltReserveWorkspace();

} // namespace sprt::cuda

#endif // SPRT_CUDA_LTGEMM_CUH
