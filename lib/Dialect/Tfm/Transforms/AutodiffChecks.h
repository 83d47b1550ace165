//===- AutodiffChecks.h - tfm-autodiff's checks ----------------*- C++ -*-===//
//
// The checks of tfm-autodiff (AutodiffChecks.cpp) for the pass (Autodiff.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_LIB_DIALECT_TFM_TRANSFORMS_AUTODIFFCHECKS_H
#define SEQPAR_LIB_DIALECT_TFM_TRANSFORMS_AUTODIFFCHECKS_H

#include "mlir/IR/Block.h"
#include "mlir/IR/BuiltinOps.h"

namespace seqpar::tfm {

/// What the backward of `body` (from `begin`, its first op) reads from the
/// forward must be what the forward ops declare they keep
/// (SavedForBackwardOpInterface); else a diagnostic at the reader.
mlir::LogicalResult checkKeptValues(mlir::Block &body, mlir::Operation *begin);

/// With several forward functions (pipeline stages), every parameter of
/// `module`, or a member of its tie group, is read by one of `forwards`.
mlir::LogicalResult
checkEveryParameterRead(mlir::ModuleOp module,
                        llvm::ArrayRef<mlir::Operation *> forwards);

} // namespace seqpar::tfm

#endif // SEQPAR_LIB_DIALECT_TFM_TRANSFORMS_AUTODIFFCHECKS_H
