//===- Passes.h - seqpar distribution passes --------------------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_DIST_TRANSFORMS_PASSES_H
#define SEQPAR_DIALECT_DIST_TRANSFORMS_PASSES_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace seqpar::dist {

#define GEN_PASS_DECL
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"

} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_TRANSFORMS_PASSES_H
