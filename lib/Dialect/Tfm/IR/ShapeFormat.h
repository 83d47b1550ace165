//===- ShapeFormat.h - shapes in tfm diagnostics ----------------*- C++ -*-===//

#ifndef SEQPAR_LIB_DIALECT_TFM_IR_SHAPEFORMAT_H
#define SEQPAR_LIB_DIALECT_TFM_IR_SHAPEFORMAT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace seqpar::tfm {

/// "[a, b, c]", as tfm's verifiers print shapes.
inline std::string shapeStr(llvm::ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleave(shape, os, ", ");
  os << ']';
  return s;
}

} // namespace seqpar::tfm

#endif // SEQPAR_LIB_DIALECT_TFM_IR_SHAPEFORMAT_H
