//===- LinearGelu.cu - a GEMM with GELU as its epilogue (cuBLASLt) --------===//
//
// sprt_linear_gelu_typed (tfm.linear_gelu): y = gelu(x W + b), pre = x W + b.
// Where x, w, the bias and y share one type (bf16, f16 or f32) and the GELU
// is the tanh form, one cublasLtMatmul with CUBLASLT_EPILOGUE_GELU_AUX_BIAS
// (GELU_BIAS where nothing reads pre; GELU_AUX / GELU without a bias): the
// products accumulate in f32 (CUBLAS_COMPUTE_32F, no TF32), the bias and the
// GELU are applied to the f32 sum in the GEMM's pass over its output, y and
// the auxiliary pre are each rounded once. Split-K partial sums stay in f32
// (the reduction-scheme mask), as LinearTyped.cu's FullPrecisionReduction.
//
// Each shape's descriptors and algorithm are chosen once (the heuristic's
// first) and kept. Otherwise (the exact GELU, mixed types, a shape cuBLASLt
// declines: said once per shape on stderr) it is sprt_linear_typed and
// sprt_gelu_typed back to back, the two ops' bits.
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <cublasLt.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <tuple>

using namespace sprt::cuda;

namespace {

/// cuBLASLt's workspace: the size cuBLAS recommends for Hopper.
constexpr size_t kWorkspaceBytes = size_t(32) << 20;

cublasLtHandle_t lt() {
  static cublasLtHandle_t handle = [] {
    cublasLtHandle_t h = nullptr;
    SPRT_CUBLAS_CHECK(cublasLtCreate(&h));
    return h;
  }();
  return handle;
}

cudaDataType cudaTypeOf(int32_t t) {
  return t == SPRT_DTYPE_F32    ? CUDA_R_32F
         : t == SPRT_DTYPE_BF16 ? CUDA_R_16BF
                                : CUDA_R_16F;
}

/// One shape's call: its descriptors and algorithm, or why there is none.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  std::string declined; // non-empty: no cuBLASLt call for this shape
};

using Key = std::tuple<int64_t, int64_t, int64_t, int32_t, bool, bool, bool>;

#define SPRT_LT_TRY(expr, plan)                                                \
  do {                                                                         \
    cublasStatus_t st_ = (expr);                                               \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                        \
      (plan).declined = std::string(#expr) + ": " + cublasGetStatusName(st_);  \
      return plan;                                                             \
    }                                                                          \
  } while (0)

/// The cuBLASLt call of column-major D [N, M] = op(W) X^T with the GELU
/// epilogue (as LinearTyped.cu maps row-major y = x W).
Plan makePlan(int64_t M, int64_t K, int64_t N, int32_t dtype, bool inOut,
              bool hasBias, bool hasPre) {
  Plan p;
  const cudaDataType t = cudaTypeOf(dtype);
  SPRT_LT_TRY(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
              p);
  const cublasOperation_t opA = inOut ? CUBLAS_OP_N : CUBLAS_OP_T,
                          opB = CUBLAS_OP_N;
  SPRT_LT_TRY(cublasLtMatmulDescSetAttribute(
                  p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof opA),
              p);
  SPRT_LT_TRY(cublasLtMatmulDescSetAttribute(
                  p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof opB),
              p);
  const cublasLtEpilogue_t epilogue =
      hasBias ? (hasPre ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS
                        : CUBLASLT_EPILOGUE_GELU_BIAS)
              : (hasPre ? CUBLASLT_EPILOGUE_GELU_AUX : CUBLASLT_EPILOGUE_GELU);
  SPRT_LT_TRY(cublasLtMatmulDescSetAttribute(p.desc,
                                             CUBLASLT_MATMUL_DESC_EPILOGUE,
                                             &epilogue, sizeof epilogue),
              p);
  const int32_t typeCode = t;
  if (hasBias)
    SPRT_LT_TRY(cublasLtMatmulDescSetAttribute(
                    p.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &typeCode,
                    sizeof typeCode),
                p);
  if (hasPre) {
    const int64_t ld = N;
    SPRT_LT_TRY(
        cublasLtMatmulDescSetAttribute(
            p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld),
        p);
    SPRT_LT_TRY(cublasLtMatmulDescSetAttribute(
                    p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE,
                    &typeCode, sizeof typeCode),
                p);
  }
  // W as stored: [K, N] row-major is column-major N x K (ld N); [N, K] is
  // K x N (ld K), transposed. x [M, K] is column-major K x M (ld K).
  SPRT_LT_TRY(inOut ? cublasLtMatrixLayoutCreate(&p.a, t, N, K, N)
                    : cublasLtMatrixLayoutCreate(&p.a, t, K, N, K),
              p);
  SPRT_LT_TRY(cublasLtMatrixLayoutCreate(&p.b, t, K, M, K), p);
  SPRT_LT_TRY(cublasLtMatrixLayoutCreate(&p.d, t, N, M, N), p);

  cublasLtMatmulPreference_t pref = nullptr;
  SPRT_LT_TRY(cublasLtMatmulPreferenceCreate(&pref), p);
  const uint64_t ws = kWorkspaceBytes;
  // Partial sums of a split K reduced in f32, never in a 16-bit output.
  const uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
        sizeof schemes);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(lt(), p.desc, p.a, p.b, p.d, p.d, pref,
                                        1, &result, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS) {
    p.declined = std::string("cublasLtMatmulAlgoGetHeuristic: ") +
                 cublasGetStatusName(st);
    return p;
  }
  if (found < 1) {
    p.declined = "no algorithm";
    return p;
  }
  p.algo = result.algo;
  return p;
}

/// The kept plan of one shape (made on first use).
const Plan &planFor(const Key &key) {
  static std::mutex mutex;
  static std::map<Key, Plan> plans;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = plans.find(key);
  if (it == plans.end()) {
    auto [M, K, N, dtype, inOut, hasBias, hasPre] = key;
    Plan p = makePlan(M, K, N, dtype, inOut, hasBias, hasPre);
    if (!p.declined.empty())
      std::fprintf(stderr,
                   "sprt cuda: linear_gelu [%lld x %lld] x [%lld x %lld] on "
                   "the GEMM and the GELU kernel: cuBLASLt declined (%s)\n",
                   (long long)M, (long long)K, (long long)K, (long long)N,
                   p.declined.c_str());
    it = plans.emplace(key, std::move(p)).first;
  }
  return it->second;
}

/// The epilogue's call, when its plan exists. False: use the two kernels.
bool viaEpilogue(const void *x, const void *w, const void *bias, void *pre,
                 void *y, int32_t dtype, int64_t M, int64_t K, int64_t N,
                 bool inOut) {
  const Plan &p =
      planFor(Key{M, K, N, dtype, inOut, bias != nullptr, pre != nullptr});
  if (!p.declined.empty())
    return false;
  // The per-call pointers (the descriptor is this shape's, used in order on
  // the one compute stream).
  if (bias)
    SPRT_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
        p.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  if (pre)
    SPRT_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(
        p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &pre, sizeof pre));
  const float alpha = 1.0f, beta = 0.0f;
  void *workspace = scratch(Scratch::LtWorkspace, kWorkspaceBytes);
  SPRT_CUBLAS_CHECK(cublasLtMatmul(lt(), p.desc, &alpha, w, p.a, x, p.b, &beta,
                                   y, p.d, y, p.d, &p.algo, workspace,
                                   kWorkspaceBytes, stream()));
  return true;
}

} // namespace

extern "C" void sprt_linear_gelu_typed(const void *x, int32_t x_dtype,
                                       const void *w, int32_t w_dtype,
                                       const void *bias, int32_t bias_dtype,
                                       void *pre, void *y, int32_t y_dtype,
                                       int64_t M, int64_t K, int64_t N,
                                       int32_t weight_in_out,
                                       int32_t tanh_approx) {
  const bool oneType =
      x_dtype == y_dtype && w_dtype == y_dtype &&
      (!bias || bias_dtype == y_dtype) &&
      (y_dtype == SPRT_DTYPE_F32 || y_dtype == SPRT_DTYPE_BF16 ||
       y_dtype == SPRT_DTYPE_F16);
  if (M <= 0 || N <= 0)
    return;
  if (tanh_approx && oneType && K > 0 &&
      viaEpilogue(x, w, bias, pre, y, y_dtype, M, K, N, weight_in_out != 0))
    return;
  void *h = pre ? pre : y;
  sprt_linear_typed(x, x_dtype, w, w_dtype, bias, bias_dtype, h, y_dtype, M, K,
                    N, weight_in_out);
  sprt_gelu_typed(h, y, M * N, tanh_approx, y_dtype);
}
