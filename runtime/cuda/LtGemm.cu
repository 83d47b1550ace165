//===- LtGemm.cu - a linear's GEMM with its epilogue (cuBLASLt) -----------===//
//
// ltLinear (LtGemm.cuh): one cublasLtMatmul whose epilogue applies the bias
// (CUBLASLT_EPILOGUE_BIAS) or the bias and a tanh GELU (GELU_AUX_BIAS, the
// pre-activation as its auxiliary output; GELU_BIAS where nothing reads it;
// GELU_AUX / GELU without a bias) to the f32 sum, as the GEMM writes its
// output. The products accumulate in f32 (CUBLAS_COMPUTE_32F, no TF32), x,
// w, the bias, y and pre share one type (the bias and the auxiliary output
// take D's type, cuBLASLt's default), and each output is rounded once.
// Split-K partial sums stay in f32 (the reduction-scheme mask), as
// LinearTyped.cu's FullPrecisionReduction.
//
// Each shape's descriptors and algorithm are chosen once (the heuristic's
// first) and kept. A shape cuBLASLt declines is said once on stderr and left
// to the caller's other path. SPRT_CUBLASLT=0 in the environment turns it
// off.
//
// sprt_linear_gelu_typed (tfm.linear_gelu) is here too: ltLinear with the
// GELU epilogue for a tanh GELU of one type, else sprt_linear_typed then
// sprt_gelu_typed (the two ops' bits).
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "LtGemm.cuh"
#include "sprt/dtype.h"
#include "sprt/kernels.h"

#include <cublasLt.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
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

/// The largest power of two up to 256 dividing the address (cuBLASLt's
/// heuristics assume 256-byte aligned operands unless told; the arena
/// aligns its values to 64 bytes).
uint32_t alignmentOf(const void *p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p) | 256;
  return uint32_t(a & (~a + 1));
}

/// One shape's call: its descriptors and algorithm, or why there is none.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  std::string declined; // non-empty: no cuBLASLt call for this shape
};

/// What one call's plan depends on: the shape, the type, the weight layout,
/// which epilogue with which optional operands, and the alignments of w
/// (cuBLASLt's A), x (B) and y (D).
struct Key {
  int64_t M, K, N;
  int32_t dtype;
  bool inOut, hasBias, hasPre;
  LtEpilogue kind;
  uint32_t alignA, alignB, alignD;

  auto tie() const {
    return std::tie(M, K, N, dtype, inOut, hasBias, hasPre, kind, alignA,
                    alignB, alignD);
  }
  bool operator<(const Key &o) const { return tie() < o.tie(); }
};

#define SPRT_LT_TRY(expr, plan)                                                \
  do {                                                                         \
    cublasStatus_t st_ = (expr);                                               \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                        \
      (plan).declined = std::string(#expr) + ": " + cublasGetStatusName(st_);  \
      return plan;                                                             \
    }                                                                          \
  } while (0)

/// The cuBLASLt call of column-major D [N, M] = op(W) X^T with the
/// epilogue (as LinearTyped.cu maps row-major y = x W).
Plan makePlan(const Key &key) {
  const auto [M, K, N, dtype, inOut, hasBias, hasPre, kind, alignA, alignB,
              alignD] = key;
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
      kind == LtEpilogue::Bias ? CUBLASLT_EPILOGUE_BIAS
      : hasBias
          ? (hasPre ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS
                    : CUBLASLT_EPILOGUE_GELU_BIAS)
          : (hasPre ? CUBLASLT_EPILOGUE_GELU_AUX : CUBLASLT_EPILOGUE_GELU);
  SPRT_LT_TRY(cublasLtMatmulDescSetAttribute(p.desc,
                                             CUBLASLT_MATMUL_DESC_EPILOGUE,
                                             &epilogue, sizeof epilogue),
              p);
  // The bias and the auxiliary output are of D's type (the defaults).
  if (hasPre) {
    const int64_t ld = N;
    SPRT_LT_TRY(
        cublasLtMatmulDescSetAttribute(
            p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld),
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
  // Only algorithms for the operands' actual alignments (C is D).
  const std::pair<cublasLtMatmulPreferenceAttributes_t, uint32_t> aligns[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, alignA},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, alignB},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, alignD},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, alignD}};
  for (const auto &[attr, bytes] : aligns)
    if (st == CUBLAS_STATUS_SUCCESS)
      st = cublasLtMatmulPreferenceSetAttribute(pref, attr, &bytes,
                                                sizeof bytes);
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

/// Says once per shape why its epilogue runs as separate kernels.
void sayDeclined(const Key &key, const std::string &why) {
  std::fprintf(stderr,
               "sprt cuda: the %s epilogue of a [%lld x %lld] x [%lld x %lld] "
               "GEMM runs as separate kernels: cuBLASLt declined (%s)\n",
               key.kind == LtEpilogue::Bias ? "bias" : "GELU", (long long)key.M,
               (long long)key.K, (long long)key.K, (long long)key.N,
               why.c_str());
}

/// The kept plan of one shape (made on first use).
Plan &planFor(const Key &key) {
  static std::mutex mutex;
  static std::map<Key, Plan> plans;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = plans.find(key);
  if (it == plans.end()) {
    Plan p = makePlan(key);
    if (!p.declined.empty())
      sayDeclined(key, p.declined);
    it = plans.emplace(key, std::move(p)).first;
  }
  return it->second;
}

} // namespace

bool &sprt::cuda::ltEnabled() {
  static bool enabled = [] {
    const char *v = std::getenv("SPRT_CUBLASLT");
    return !(v && std::string(v) == "0");
  }();
  return enabled;
}

bool sprt::cuda::ltLinear(const void *x, const void *w, const void *bias,
                          void *pre, void *y, int32_t dtype, int64_t M,
                          int64_t K, int64_t N, bool inOut,
                          LtEpilogue epilogue) {
  if (!ltEnabled() || (epilogue == LtEpilogue::Bias && !bias))
    return false;
  if (epilogue == LtEpilogue::Bias)
    pre = nullptr;
  const Key key{M,
                K,
                N,
                dtype,
                inOut,
                bias != nullptr,
                pre != nullptr,
                epilogue,
                alignmentOf(w),
                alignmentOf(x),
                alignmentOf(y)};
  Plan &p = planFor(key);
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
  // A call cuBLASLt refuses (before it launches anything) is a declined
  // shape: the caller's other path computes it, now and after.
  const cublasStatus_t st =
      cublasLtMatmul(lt(), p.desc, &alpha, w, p.a, x, p.b, &beta, y, p.d, y,
                     p.d, &p.algo, workspace, kWorkspaceBytes, stream());
  if (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_INVALID_VALUE) {
    p.declined = std::string("cublasLtMatmul: ") + cublasGetStatusName(st);
    sayDeclined(key, p.declined);
    return false;
  }
  SPRT_CUBLAS_CHECK(st);
  return true;
}

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
      ltLinear(x, w, bias, pre, y, y_dtype, M, K, N, weight_in_out != 0,
               LtEpilogue::Gelu))
    return;
  void *h = pre ? pre : y;
  sprt_linear_typed(x, x_dtype, w, w_dtype, bias, bias_dtype, h, y_dtype, M, K,
                    N, weight_in_out);
  sprt_gelu_typed(h, y, M * N, tanh_approx, y_dtype);
}
