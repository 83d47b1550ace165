//===- Partitioner.h - sp-partition's placement policy ----------*- C++ -*-===//
//
// The entry point of the Partitioner (Partitioner.cpp), for the pass
// (SpPartition.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_PARTITIONER_H
#define SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_PARTITIONER_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/BuiltinOps.h"

namespace seqpar::dist {

/// The parallel degrees of the mesh sp-partition built.
struct PartitionDegrees {
  int64_t tp = 1, dp = 1, cp = 1;
  bool sequenceParallel = false;
  /// cp-attention=ring.
  bool ringAttention = false;
};

/// Rewrites every function of `module` (one-device IR) into its per-rank
/// program on `mesh`, whose axes have the roles the degrees need; fails with
/// a diagnostic at the op (or function) that cannot be split.
mlir::LogicalResult partitionModule(mlir::ModuleOp module, MeshOp mesh,
                                    const PartitionDegrees &degrees);

} // namespace seqpar::dist

#endif // SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_PARTITIONER_H
