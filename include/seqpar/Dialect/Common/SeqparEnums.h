//===- SeqparEnums.h - enums shared by tfm and dist -------------*- C++ -*-===//
//
// Defined in lib/Dialect/Tfm/IR/TfmDialect.cpp (dist depends on tfm's C++,
// not on its ODS).
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_COMMON_SEQPARENUMS_H
#define SEQPAR_DIALECT_COMMON_SEQPARENUMS_H

#include "mlir/IR/BuiltinAttributes.h"

#include "seqpar/Dialect/Common/SeqparEnums.h.inc"

#endif // SEQPAR_DIALECT_COMMON_SEQPARENUMS_H
