//===- LayoutRules.h - result layouts from operand layouts ------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_DIST_EXTENSIONS_LAYOUTRULES_H
#define SEQPAR_DIALECT_DIST_EXTENSIONS_LAYOUTRULES_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/BuiltinOps.h"

namespace seqpar::dist {

/// The sharding of `v` on `axis`, read from its type (no layout: replicated).
Sharding shardingOf(mlir::Value v, llvm::StringRef axis);

/// The layout rule of an op on one mesh axis (its ShardingRuleOpInterface:
/// the tfm ops get theirs from registerTfmShardingRuleModels): the shardings
/// its results must have given its operands' shardings. If the operands are
/// not an acceptable combination (a norm of a partial value, a GEMM
/// contracting a split dimension against a whole weight, attention over a
/// split sequence, ...), emits a diagnostic at the op naming the operand and
/// the axis and fails. Ops without a rule (collectives check themselves) get
/// an empty vector.
mlir::FailureOr<llvm::SmallVector<Sharding>>
inferResultShardings(mlir::Operation *op, llvm::StringRef axis);

/// sp-verify: every layout names axes of the module's mesh, parameter shards
/// have the size the mesh gives them, every op's results have the layouts
/// its rule derives from its operands on every axis, and functions return
/// replicated values.
mlir::LogicalResult verifyLayouts(mlir::ModuleOp module);

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_EXTENSIONS_LAYOUTRULES_H
