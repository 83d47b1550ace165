//===- Passes.h - tfm passes ------------------------------------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_H
#define SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace seqpar::tfm {

#define GEN_PASS_DECL
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"

/// The element type of `precision` (null for imported: none is imposed).
mlir::FloatType precisionType(mlir::MLIRContext *ctx, Precision precision);
/// The name tfm.precision records for an element type: bf16, f16 or f32.
llvm::StringRef precisionName(mlir::Type t);

#define GEN_PASS_REGISTRATION
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"

} // namespace seqpar::tfm

#endif // SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_H
