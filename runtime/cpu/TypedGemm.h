//===- TypedGemm.h - GEMMs on bf16 / f16 / f32 storage ----------*- C++ -*-===//
//
// The CPU backend's GEMM of mixed precision: operands of any SPRT_DTYPE_*,
// widened exactly to f32 panel by panel, multiplied by cblas_sgemm, the
// result rounded once to its own type. sprt_linear_typed and its gradients
// (sprt/kernels.h, sprt/grad_kernels.h) are built on it.
//
//===----------------------------------------------------------------------===//

#ifndef SPRT_CPU_TYPEDGEMM_H
#define SPRT_CPU_TYPEDGEMM_H

#include <cstdint>

namespace sprt::cpu {

/// A row-major matrix of element type `dtype` (SPRT_DTYPE_*) with leading
/// dimension `ld` (elements), `trans` when the GEMM reads its transpose.
struct TypedMatrix {
  const void *data;
  int32_t dtype;
  int64_t ld;
  bool trans;
};

/// The largest number of elements of one f32 panel of an operand or of the
/// result: 2^20 (4 MiB). A GEMM whose operands and result fit in one panel
/// each is one cblas_sgemm call on the widened operands.
constexpr int64_t kGemmPanelElems = int64_t(1) << 20;

/// The fewest rows (or columns) of a panel when the budget allows that many
/// elements: a panel of a long operand may exceed the budget to keep this.
constexpr int64_t kMinPanel = 256;

/// Row-major C[M, N] = op(A)[M, K] op(B)[K, N] + beta C, C of `cDtype` with
/// leading dimension ldc (beta is 0 or 1; with beta = 1, C is read as
/// stored), or + bias[N] (of `biasDtype`, added in f32) in every row when
/// `bias` is not null. Operands not of f32 are widened into f32 panels of at
/// most `panelElems` elements, or kMinPanel rows of K (counted scratch), C
/// into an f32 panel when it is not f32, narrowed once after its GEMM. The
/// panels split M and N, never K: every element of C is one dot product of
/// length K, as in one cblas_sgemm (OpenBLAS may block a panel's products
/// differently from the whole matrix's: the sums agree to f32 rounding, not
/// always bitwise).
void typedGemm(int64_t M, int64_t N, int64_t K, TypedMatrix A, TypedMatrix B,
               const void *bias, int32_t biasDtype, float beta, void *C,
               int32_t cDtype, int64_t ldc,
               int64_t panelElems = kGemmPanelElems);

} // namespace sprt::cpu

#endif // SPRT_CPU_TYPEDGEMM_H
