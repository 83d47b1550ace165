//===- Flops.h - floating-point operations of an op -------------*- C++ -*-===//
//
// The FLOPs one rank's kernel for an op performs, counted as in Korthikanti
// et al. 2022 (and Narayanan et al. 2021): matrix multiplications and the
// attention core only; elementwise ops, norms, embeddings, the loss and the
// optimizer count 0 (they are a few FLOPs per element, not per element times
// a hidden size).
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
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_TRANSFORMS_FLOPS_H
#define SEQPAR_DIALECT_DIST_TRANSFORMS_FLOPS_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace seqpar::dist {

/// The FLOPs of `op` on one rank (0 for the ops not counted), or
/// std::nullopt when the count overflows int64.
std::optional<int64_t> opFlops(mlir::Operation *op);

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_TRANSFORMS_FLOPS_H
