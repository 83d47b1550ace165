//===- LtGemm.cu - a linear's GEMM with its epilogue (cuBLASLt) -----------===//
//
// One cublasLtMatmul whose epilogue works on the f32 sum as the GEMM writes
// its output (LtGemm.cuh):
//
//   ltLinear, Bias   y = x op(W) + bias           CUBLASLT_EPILOGUE_BIAS
//   ltLinear, Gelu   y = gelu(x op(W) + bias),    GELU_AUX_BIAS (pre the
//                    pre = x op(W) + bias         auxiliary output), GELU_BIAS
//                                                 without pre, GELU_AUX / GELU
//                                                 without a bias
//   ltLinearGeluGrad dx = gelu'(pre) (dy W),      DGELU_BGRAD (pre the
//                    dbias = column sums of dx    auxiliary input), DGELU
//                                                 without dbias
//   ltLinearGradWeightBias                        BGRADB (dy is B), BGRADA
//                    dw = dy^T x (x^T dy),        for in_out (dy is A)
//                    db = column sums of dy
//
// The products accumulate in f32 (CUBLAS_COMPUTE_32F, no TF32); A and B
// have one type and D, the bias and the auxiliary tensor D's (cuBLASLt's
// default): the inputs' own, or f32 for the weight and bias gradients of a
// master weight (ltLinearGradWeightBias); each output is rounded once. Split-K
// partial sums stay in f32 (the reduction-scheme mask), as LinearTyped.cu's
// FullPrecisionReduction. The GELU is cuBLASLt's, the tanh form, on bf16
// only: whether its tanh is the hardware approximation (about 2^-11 relative)
// is not documented, and f32 and f16 programs are held to their types'
// accuracy (f16's unit roundoff is 2^-11, and the GELU's gradient multiplies
// a tanh error by up to about 5), so their GELUs run the exact kernels (as
// f32 linears keep cublasSgemm, LinearTyped.cu); bf16's 2^-8 has room.
//
// Each call's descriptors and algorithm are chosen once per shape and
// operand alignment (the heuristic's first) and kept. A call cuBLASLt
// declines is said once on stderr and left to the caller's other path.
// SPRT_CUBLASLT=0 in the environment turns it off.
//
// sprt_linear_gelu_typed (tfm.linear_gelu), sprt_linear_gelu_grad_typed
// (tfm.linear_gelu_grad) and sprt_linear_grad_weight_bias_typed
// (tfm.linear_grad_weight_bias) are here too: cuBLASLt where it applies,
// else the calls of the ops they fuse (their bits).
//
//===----------------------------------------------------------------------===//

#include "Common.cuh"
#include "LtGemm.cuh"
#include "sprt/dtype.h"
#include "sprt/grad_kernels.h"
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

bool isKnown(int32_t t) {
  return t == SPRT_DTYPE_F32 || t == SPRT_DTYPE_BF16 || t == SPRT_DTYPE_F16;
}

/// The largest power of two up to 256 dividing the address (cuBLASLt's
/// heuristics assume 256-byte aligned operands unless told; the arena
/// aligns its values to 64 bytes).
uint32_t alignmentOf(const void *p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p) | 256;
  return uint32_t(a & (~a + 1));
}

/// One column-major GEMM D [m, n] (ld ldd) = op(A) [m, k] op(B) [k, n] with
/// an epilogue, A and B each transposed or not (ld lda, ldb); the auxiliary
/// tensor (if the epilogue has one) is laid out as D. What its plan depends
/// on, with the alignments of A, B, D, the bias and the auxiliary tensor
/// (the heuristic reads the last two from their pointers).
struct Key {
  int64_t m, n, k, lda, ldb, ldd;
  bool transA, transB;
  int32_t dtype; // of A and B, and of D unless dDtype says otherwise
  cublasLtEpilogue_t epilogue;
  uint32_t alignA, alignB, alignD, alignBias = 256, alignAux = 256;
  int32_t dDtype = -1; // D's (and the bias's, and aux's) type; -1: dtype

  int32_t outType() const { return dDtype < 0 ? dtype : dDtype; }
  auto tie() const {
    return std::tie(m, n, k, lda, ldb, ldd, transA, transB, dtype, epilogue,
                    alignA, alignB, alignD, alignBias, alignAux, dDtype);
  }
  bool operator<(const Key &o) const { return tie() < o.tie(); }
};

bool hasAux(cublasLtEpilogue_t e) {
  return e == CUBLASLT_EPILOGUE_GELU_AUX_BIAS ||
         e == CUBLASLT_EPILOGUE_GELU_AUX || e == CUBLASLT_EPILOGUE_DGELU ||
         e == CUBLASLT_EPILOGUE_DGELU_BGRAD;
}

/// A call's descriptors and algorithm, or why there is none.
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulAlgo_t algo{};
  std::string declined; // non-empty: no cuBLASLt call for this key
};

#define SPRT_LT_TRY(expr, plan)                                                \
  do {                                                                         \
    cublasStatus_t st_ = (expr);                                               \
    if (st_ != CUBLAS_STATUS_SUCCESS) {                                        \
      (plan).declined = std::string(#expr) + ": " + cublasGetStatusName(st_);  \
      return plan;                                                             \
    }                                                                          \
  } while (0)

/// Sets the per-call pointers of `desc` (bias: the bias, or the bias
/// gradient written; aux: the auxiliary output or input; null: unset).
cublasStatus_t setPointers(cublasLtMatmulDesc_t desc, const void *bias,
                           const void *aux) {
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  if (bias)
    st = cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                        &bias, sizeof bias);
  if (aux && st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux);
  return st;
}

/// The plan of `key`, its heuristic run with the first call's bias and aux
/// pointers set (it reads their alignment from them; a call with others
/// has another key).
Plan makePlan(const Key &key, const void *bias, const void *aux) {
  Plan p;
  // The GELU auxiliary tensor's leading dimension must be a multiple of 8
  // (cublasLt.h, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD).
  if (hasAux(key.epilogue) && key.ldd % 8 != 0) {
    p.declined = "the auxiliary tensor's leading dimension " +
                 std::to_string(key.ldd) + " is not a multiple of 8";
    return p;
  }
  const cudaDataType t = cudaTypeOf(key.dtype);
  SPRT_LT_TRY(cublasLtMatmulDescCreate(&p.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F),
              p);
  const cublasOperation_t opA = key.transA ? CUBLAS_OP_T : CUBLAS_OP_N,
                          opB = key.transB ? CUBLAS_OP_T : CUBLAS_OP_N;
  SPRT_LT_TRY(cublasLtMatmulDescSetAttribute(
                  p.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof opA),
              p);
  SPRT_LT_TRY(cublasLtMatmulDescSetAttribute(
                  p.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof opB),
              p);
  SPRT_LT_TRY(
      cublasLtMatmulDescSetAttribute(p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                     &key.epilogue, sizeof key.epilogue),
      p);
  // The bias and the auxiliary tensor are of D's type (the defaults).
  if (hasAux(key.epilogue)) {
    const int64_t ld = key.ldd;
    SPRT_LT_TRY(
        cublasLtMatmulDescSetAttribute(
            p.desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ld, sizeof ld),
        p);
  }
  SPRT_LT_TRY(key.transA
                  ? cublasLtMatrixLayoutCreate(&p.a, t, key.k, key.m, key.lda)
                  : cublasLtMatrixLayoutCreate(&p.a, t, key.m, key.k, key.lda),
              p);
  SPRT_LT_TRY(key.transB
                  ? cublasLtMatrixLayoutCreate(&p.b, t, key.n, key.k, key.ldb)
                  : cublasLtMatrixLayoutCreate(&p.b, t, key.k, key.n, key.ldb),
              p);
  SPRT_LT_TRY(cublasLtMatrixLayoutCreate(&p.d, cudaTypeOf(key.outType()), key.m,
                                         key.n, key.ldd),
              p);
  SPRT_LT_TRY(setPointers(p.desc, bias, aux), p);

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
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.alignA},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.alignB},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.alignD},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.alignD}};
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

/// Says once per call shape why its epilogue runs as separate kernels.
void sayDeclined(const Key &key, const std::string &why) {
  std::fprintf(stderr,
               "sprt cuda: cuBLASLt epilogue %d of a %lld x %lld x %lld GEMM "
               "runs as separate kernels: cuBLASLt declined (%s)\n",
               int(key.epilogue), (long long)key.m, (long long)key.n,
               (long long)key.k, why.c_str());
}

/// The kept plan of one key (made on first use, with that call's bias and
/// aux pointers).
Plan &planFor(const Key &key, const void *bias, const void *aux) {
  static std::mutex mutex;
  static std::map<Key, Plan> plans;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = plans.find(key);
  if (it == plans.end()) {
    Plan p = makePlan(key, bias, aux);
    if (!p.declined.empty())
      sayDeclined(key, p.declined);
    it = plans.emplace(key, std::move(p)).first;
  }
  return it->second;
}

/// The call of `key` on these pointers (bias: the bias, or the bias
/// gradient written; aux: the auxiliary output or input). False, having
/// written nothing, where cuBLASLt declines it.
bool run(const Key &key, const void *A, const void *B, void *D,
         const void *bias, const void *aux) {
  if (!ltEnabled())
    return false;
  Plan &p = planFor(key, bias, aux);
  if (!p.declined.empty())
    return false;
  // The per-call pointers (the descriptor is this key's, used in order on
  // the one compute stream).
  SPRT_CUBLAS_CHECK(setPointers(p.desc, bias, aux));
  const float alpha = 1.0f, beta = 0.0f;
  void *workspace = scratch(Scratch::LtWorkspace, kWorkspaceBytes);
  // A call cuBLASLt refuses (before it launches anything) is declined: the
  // caller's other path computes it, now and after.
  const cublasStatus_t st =
      cublasLtMatmul(lt(), p.desc, &alpha, A, p.a, B, p.b, &beta, D, p.d, D,
                     p.d, &p.algo, workspace, kWorkspaceBytes, stream());
  if (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_INVALID_VALUE) {
    p.declined = std::string("cublasLtMatmul: ") + cublasGetStatusName(st);
    sayDeclined(key, p.declined);
    return false;
  }
  SPRT_CUBLAS_CHECK(st);
  return true;
}

} // namespace

void sprt::cuda::ltReserveWorkspace() {
  if (ltEnabled())
    scratch(Scratch::LtWorkspace, kWorkspaceBytes);
}

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
  if (epilogue == LtEpilogue::Bias && !bias)
    return false;
  cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_BIAS;
  if (epilogue == LtEpilogue::Gelu)
    e = bias ? (pre ? CUBLASLT_EPILOGUE_GELU_AUX_BIAS
                    : CUBLASLT_EPILOGUE_GELU_BIAS)
             : (pre ? CUBLASLT_EPILOGUE_GELU_AUX : CUBLASLT_EPILOGUE_GELU);
  // Column-major y^T [N, M] = op(W) x^T: W [K, N] row-major is N x K (ld
  // N); [N, K] is K x N (ld K), transposed. x [M, K] is K x M (ld K).
  const Key key{N,
                M,
                K,
                inOut ? N : K,
                K,
                N,
                !inOut,
                false,
                dtype,
                e,
                alignmentOf(w),
                alignmentOf(x),
                alignmentOf(y),
                alignmentOf(bias),
                alignmentOf(hasAux(e) ? pre : nullptr)};
  return run(key, w, x, y, bias, hasAux(e) ? pre : nullptr);
}

bool sprt::cuda::ltLinearGeluGrad(const void *dy, const void *w,
                                  const void *pre, void *dx, void *dbias,
                                  int32_t dtype, int64_t M, int64_t K,
                                  int64_t N, bool inOut) {
  // Column-major dx^T [K, M] = op(W) dy^T: W [N, K] row-major is K x N (ld
  // K); [K, N] is N x K (ld N), transposed. dy [M, N] is N x M (ld N).
  const cublasLtEpilogue_t e =
      dbias ? CUBLASLT_EPILOGUE_DGELU_BGRAD : CUBLASLT_EPILOGUE_DGELU;
  const Key key{K,
                M,
                N,
                inOut ? N : K,
                N,
                K,
                inOut,
                false,
                dtype,
                e,
                alignmentOf(w),
                alignmentOf(dy),
                alignmentOf(dx),
                alignmentOf(dbias),
                alignmentOf(pre)};
  return run(key, w, dy, dx, dbias, pre);
}

bool sprt::cuda::ltLinearGradWeightBias(const void *x, const void *dy, void *dw,
                                        void *db, int32_t dtype,
                                        int32_t dwDtype, int64_t M, int64_t K,
                                        int64_t N, bool inOut) {
  // x [M, K] is K x M column-major (ld K), dy [M, N] is N x M (ld N); the
  // sum runs over the M tokens (the GEMM's k), B's (or A's) bias gradient
  // the column (row) sums of dy.
  if (inOut) {
    // dw [K, N] is N x K column-major: D = dy (N x M) x^T (M x K).
    const Key key{N,
                  K,
                  M,
                  N,
                  K,
                  N,
                  false,
                  true,
                  dtype,
                  CUBLASLT_EPILOGUE_BGRADA,
                  alignmentOf(dy),
                  alignmentOf(x),
                  alignmentOf(dw),
                  alignmentOf(db),
                  256,
                  dwDtype};
    return run(key, dy, x, dw, db, nullptr);
  }
  // dw [N, K] is K x N column-major: D = x (K x M) dy^T (M x N).
  const Key key{K,
                N,
                M,
                K,
                N,
                K,
                false,
                true,
                dtype,
                CUBLASLT_EPILOGUE_BGRADB,
                alignmentOf(x),
                alignmentOf(dy),
                alignmentOf(dw),
                alignmentOf(db),
                256,
                dwDtype};
  return run(key, x, dy, dw, db, nullptr);
}

extern "C" void sprt_linear_gelu_typed(const void *x, int32_t x_dtype,
                                       const void *w, int32_t w_dtype,
                                       const void *bias, int32_t bias_dtype,
                                       void *pre, void *y, int32_t y_dtype,
                                       int64_t M, int64_t K, int64_t N,
                                       int32_t weight_in_out,
                                       int32_t tanh_approx) {
  const bool oneType = x_dtype == y_dtype && w_dtype == y_dtype &&
                       (!bias || bias_dtype == y_dtype) && isKnown(y_dtype);
  if (M <= 0 || N <= 0)
    return;
  // f32 and f16 keep the exact kernels' GELU (above).
  if (tanh_approx && oneType && y_dtype == SPRT_DTYPE_BF16 && K > 0 &&
      ltLinear(x, w, bias, pre, y, y_dtype, M, K, N, weight_in_out != 0,
               LtEpilogue::Gelu))
    return;
  void *h = pre ? pre : y;
  sprt_linear_typed(x, x_dtype, w, w_dtype, bias, bias_dtype, h, y_dtype, M, K,
                    N, weight_in_out);
  sprt_gelu_typed(h, y, M * N, tanh_approx, y_dtype);
}

extern "C" void
sprt_linear_gelu_grad_typed(const void *dy, int32_t dy_dtype, const void *w,
                            int32_t w_dtype, const void *pre, void *dx,
                            int32_t dx_dtype, void *dbias, int32_t dbias_dtype,
                            int64_t M, int64_t K, int64_t N,
                            int32_t weight_in_out, int32_t tanh_approx) {
  const bool oneType = dy_dtype == dx_dtype && w_dtype == dx_dtype &&
                       (!dbias || dbias_dtype == dx_dtype) && isKnown(dx_dtype);
  if (tanh_approx && oneType && dx_dtype == SPRT_DTYPE_BF16 && M > 0 && K > 0 &&
      N > 0 &&
      ltLinearGeluGrad(dy, w, pre, dx, dbias, dx_dtype, M, K, N,
                       weight_in_out != 0))
    return;
  // The ops' calls; the GELU's gradient in place over the input gradient.
  sprt_linear_grad_input_typed(dy, dy_dtype, w, w_dtype, dx, dx_dtype, M, K, N,
                               weight_in_out);
  sprt_gelu_grad_typed(dx, pre, dx, M * K, tanh_approx, dx_dtype);
  if (dbias)
    sprt_bias_grad_typed(dx, dx_dtype, dbias, dbias_dtype, M, K);
}

extern "C" void sprt_linear_grad_weight_bias_typed(
    const void *x, int32_t x_dtype, const void *dy, int32_t dy_dtype, void *dw,
    int32_t dw_dtype, void *db, int32_t db_dtype, int64_t M, int64_t K,
    int64_t N, int32_t weight_in_out) {
  // x and dy of one type; dw and db of it, or both f32 (a master weight's
  // gradients, summed and written in f32 by the epilogue).
  const bool inputs = x_dtype == dy_dtype && isKnown(x_dtype);
  const bool outputs = db_dtype == dw_dtype &&
                       (dw_dtype == x_dtype || dw_dtype == SPRT_DTYPE_F32);
  if (inputs && outputs && M > 0 && K > 0 && N > 0 &&
      ltLinearGradWeightBias(x, dy, dw, db, x_dtype, dw_dtype, M, K, N,
                             weight_in_out != 0))
    return;
  // The ops' calls.
  sprt_linear_grad_weight_typed(x, x_dtype, dy, dy_dtype, dw, dw_dtype, M, K, N,
                                weight_in_out, /*accumulate=*/0);
  sprt_bias_grad_typed(dy, dy_dtype, db, db_dtype, M, N);
}
