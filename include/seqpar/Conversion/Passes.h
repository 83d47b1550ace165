//===- Passes.h - seqpar conversions ----------------------------*- C++ -*-===//

#ifndef SEQPAR_CONVERSION_PASSES_H
#define SEQPAR_CONVERSION_PASSES_H

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace seqpar {

#define GEN_PASS_DECL
#include "seqpar/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "seqpar/Conversion/Passes.h.inc"

} // namespace seqpar

#endif // SEQPAR_CONVERSION_PASSES_H
