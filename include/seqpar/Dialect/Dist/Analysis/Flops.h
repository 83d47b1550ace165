//===- Flops.h - floating-point operations of an op -------------*- C++ -*-===//
//
// The FLOPs one rank's kernel for an op performs, counted as in Korthikanti
// et al. 2022 (and Narayanan et al. 2021): matrix multiplications and the
// attention core only; elementwise ops, norms, embeddings, the loss and the
// optimizer count 0 (they are a few FLOPs per element, not per element times
// a hidden size). Each op says its count through CostOpInterface (external
// models in Flops.cpp, registered by registerCostModels):
//
//   GEMM [M, K] x [K, N] (tfm.linear, tfm.linear_grad_input,
//   tfm.linear_grad_weight, dist.all_gather_matmul on the gathered rows,
//   dist.matmul_reduce_scatter on the rows before the scatter):  2·M·N·K
//   tfm.attention (QK^T and PV over this rank's heads): 4·b·heads·s_q·s_k·d
//                 causal: half of that
//   tfm.attention_grad: 2.5 × the forward: it recomputes QK^T (the scores,
//                 never kept) and computes dV = P^T dO, dP = dO V^T,
//                 dQ = dS K and dK = dS^T Q: five [s, s] GEMMs against the
//                 forward's two.
//   dist.ring_attention / dist.ring_attention_grad: tfm.attention's and
//                 tfm.attention_grad's with this rank's queries against
//                 the keys of all n ranks of the ring (s_k = n · s).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_ANALYSIS_FLOPS_H
#define SEQPAR_DIALECT_DIST_ANALYSIS_FLOPS_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace seqpar::dist {

/// Which calibrated rate an op's FLOPs run at.
enum class CostKind { none, gemm, attention };

/// One GEMM of an op: a [rows, cols] output, each element a dot product of
/// `inner` terms (2·rows·cols·inner FLOPs).
struct GemmShape {
  int64_t rows = 0, cols = 0, inner = 0;
};

} // namespace seqpar::dist

#include "seqpar/Dialect/Dist/Analysis/CostOpInterface.h.inc"

namespace seqpar::dist {

/// The FLOPs of `op` on one rank: 0 for an op of another dialect (func.func,
/// func.return: no kernel), its CostOpInterface's count for a tfm or dist op.
/// std::nullopt, with an error at the op, when the count overflows int64 or
/// the op is a tfm or dist op without a cost model.
std::optional<int64_t> opFlops(mlir::Operation *op);

/// The GEMMs of a GEMM op (CostKind::gemm): their FLOPs are its count.
/// Empty for every other op.
llvm::SmallVector<GemmShape> gemmShapes(mlir::Operation *op);

/// Attaches the cost models of every tfm and dist op.
void registerCostModels(mlir::DialectRegistry &registry);

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_ANALYSIS_FLOPS_H
