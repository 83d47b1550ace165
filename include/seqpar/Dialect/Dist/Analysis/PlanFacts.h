//===- PlanFacts.h - in-place results and gradient transfer -----*- C++ -*-===//
//
// InPlaceOpInterface (the buffer plan: which operand a result may be written
// over) and GradTransferOpInterface (the gradient accounting proof: how a
// contribution passes through an op), implemented by every tfm and dist op
// through external models (PlanFacts.cpp, registered by
// registerPlanFactsModels).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_ANALYSIS_PLANFACTS_H
#define SEQPAR_DIALECT_DIST_ANALYSIS_PLANFACTS_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace seqpar::dist {

/// How gradient contributions pass through an op.
struct GradTransfer {
  enum Kind {
    /// The results are no gradient the proof follows.
    opaque,
    /// One operand, one result, the same contributions (its element type,
    /// scale or layout changes).
    same,
    /// The results hold the sum of the operands (tfm.add).
    sum,
    /// Each operand is reduced over mesh axis `axis` into its result.
    reduce,
  } kind = opaque;
  llvm::StringRef axis;
  ReductionKind reduction = ReductionKind::sum;
};

} // namespace seqpar::dist

#include "seqpar/Dialect/Dist/Analysis/PlanFactsInterfaces.h.inc"

namespace seqpar::dist {

/// Attaches InPlaceOpInterface and GradTransferOpInterface to every tfm and
/// dist op.
void registerPlanFactsModels(mlir::DialectRegistry &registry);

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_ANALYSIS_PLANFACTS_H
