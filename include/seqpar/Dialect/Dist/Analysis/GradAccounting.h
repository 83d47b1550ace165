//===- GradAccounting.h - the gradient-accounting proof ---------*- C++ -*-===//
//
// sp-verify's proof that every parameter's gradient, as it reaches the
// optimizer update, is the sum of all of its contributions (those of every
// member of its tie group included), each counted exactly once per
// micro-batch, summed over every mesh axis on which it was partial, and
// that tie groups (and the copies of a parameter on several pipeline
// stages) are summed before any data-parallel reduction. See
// docs/design.md, "Gradient accounting proof".
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_DIST_ANALYSIS_GRADACCOUNTING_H
#define SEQPAR_DIALECT_DIST_ANALYSIS_GRADACCOUNTING_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace seqpar::dist {
/// Whether `func` carries tfm-autodiff's record of its contributions
/// (`tfm.grad_uses`), which the proof needs.
bool hasGradientRecord(mlir::func::FuncOp func);

/// Proves the gradient accounting of `func` (which has the record) up to
/// its return; `mesh` is the module's (null for one device). Emits an error
/// naming the parameter (at the return) or the op where contributions are
/// combined wrongly, and fails, if the proof does not go through.
mlir::LogicalResult proveGradientAccounting(mlir::func::FuncOp func,
                                            MeshOp mesh);

class PipelineSchedule;
/// The proof for the step functions of a pipeline (`stages`, each with the
/// record), run in `schedule`'s order: a dist.recv on the pipeline axis
/// carries what its matched send sent, each stage's contributions are told
/// apart, and a parameter read by several stages expects the contributions
/// of its uses in all of them.
mlir::LogicalResult
proveGradientAccounting(llvm::ArrayRef<mlir::func::FuncOp> stages, MeshOp mesh,
                        const PipelineSchedule &schedule);
} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_ANALYSIS_GRADACCOUNTING_H
