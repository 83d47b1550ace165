//===- PipelineStages.h - sp-pipeline's stage assignment --------*- C++ -*-===//
//
// Which pipeline stage each op of a partitioned forward runs on
// (PipelineStages.cpp), for the pass that splits the forward
// (SpPipeline.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_PIPELINESTAGES_H
#define SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_PIPELINESTAGES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace seqpar::dist {

/// The layer number of parameter `name`: its first path component made of
/// digits only (`transformer.h.3.ln_1.weight`: 3), if any.
std::optional<int64_t> parameterLayer(llvm::StringRef name);

/// How the ops of a forward are placed on the stages.
struct StageAssignment {
  /// The stage of each op that runs on one stage (ops absent here are
  /// shared: parameter reads and values that read only arguments and other
  /// shared values, cloned into each stage that reads them).
  llvm::DenseMap<mlir::Operation *, int64_t> stageOf;
  /// The number of layers (distinct layer numbers of the parameters) and the
  /// layers of each stage.
  int64_t numLayers = 0;
  llvm::SmallVector<int64_t> layersPerStage;
};

/// Assigns the ops of `forward` to `stages` pipeline stages, the layers split
/// as `layers` says (one count per stage) or, if it is empty, balanced; fails
/// with a diagnostic at `forward` when the split is impossible or `layers`
/// does not describe one.
mlir::FailureOr<StageAssignment> assignStages(mlir::func::FuncOp forward,
                                              int64_t stages,
                                              llvm::ArrayRef<int64_t> layers);

} // namespace seqpar::dist

#endif // SEQPAR_LIB_DIALECT_DIST_TRANSFORMS_PIPELINESTAGES_H
