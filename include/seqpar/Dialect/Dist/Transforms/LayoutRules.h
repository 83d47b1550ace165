//===- LayoutRules.h - result layouts from operand layouts ------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_DIST_TRANSFORMS_LAYOUTRULES_H
#define SEQPAR_DIALECT_DIST_TRANSFORMS_LAYOUTRULES_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/BuiltinOps.h"

namespace seqpar::dist {

/// The sharding of `v` on `axis`, read from its type (no layout: replicated).
Sharding shardingOf(mlir::Value v, llvm::StringRef axis);

/// The layout rule of a tfm op on one mesh axis: the shardings its results
/// must have given its operands' shardings. If the operands are not an
/// acceptable combination (a norm of a partial value, a GEMM contracting a
/// split dimension against a whole weight, attention over a split sequence,
/// ...), emits a diagnostic at the op naming the operand and the axis and
/// fails. Ops of other dialects are not handled here (collectives check
/// themselves): for them the result is an empty vector.
mlir::FailureOr<llvm::SmallVector<Sharding>>
inferResultShardings(mlir::Operation *op, llvm::StringRef axis);

/// The same for the backward and optimizer ops of a train step
/// (GradLayoutRules.cpp); an empty vector for the ops it does not know.
mlir::FailureOr<llvm::SmallVector<Sharding>>
inferGradResultShardings(mlir::Operation *op, llvm::StringRef axis);

/// sp-verify: every layout names axes of the module's mesh, parameter shards
/// have the size the mesh gives them, every op's results have the layouts
/// its rule derives from its operands on every axis, and functions return
/// replicated values.
mlir::LogicalResult verifyLayouts(mlir::ModuleOp module);

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_TRANSFORMS_LAYOUTRULES_H
