//===- Passes.h - tfm passes ------------------------------------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_H
#define SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace seqpar::tfm {

#define GEN_PASS_DECL
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"

} // namespace seqpar::tfm

#endif // SEQPAR_DIALECT_TFM_TRANSFORMS_PASSES_H
