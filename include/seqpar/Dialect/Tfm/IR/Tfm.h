//===- Tfm.h - the tfm dialect ----------------------------------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_TFM_IR_TFM_H
#define SEQPAR_DIALECT_TFM_IR_TFM_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "seqpar/Dialect/Tfm/IR/TfmEnums.h.inc"
#include "seqpar/Dialect/Tfm/IR/TfmOpsDialect.h.inc"

#define GET_OP_CLASSES
#include "seqpar/Dialect/Tfm/IR/TfmOps.h.inc"

#endif // SEQPAR_DIALECT_TFM_IR_TFM_H
