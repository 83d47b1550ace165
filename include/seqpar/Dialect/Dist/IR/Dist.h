//===- Dist.h - the dist dialect --------------------------------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_DIST_IR_DIST_H
#define SEQPAR_DIALECT_DIST_IR_DIST_H

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace seqpar::dist {

/// How a value is spread over one mesh axis.
struct Sharding {
  enum class Kind { Replicated, Split, Partial };
  Kind kind = Kind::Replicated;
  int64_t dim = 0; // meaningful for Split only

  static Sharding replicated() { return {}; }
  static Sharding split(int64_t d) { return {Kind::Split, d}; }
  static Sharding partial() { return {Kind::Partial, 0}; }
  bool isReplicated() const { return kind == Kind::Replicated; }
  bool isSplit() const { return kind == Kind::Split; }
  bool isPartial() const { return kind == Kind::Partial; }
  bool operator==(const Sharding &o) const {
    return kind == o.kind && (kind != Kind::Split || dim == o.dim);
  }
  bool operator!=(const Sharding &o) const { return !(*this == o); }
  /// "R", "P" or "S(d)", as written in #dist.layout.
  std::string str() const {
    if (isSplit())
      return "S(" + std::to_string(dim) + ")";
    return isPartial() ? "P" : "R";
  }
};

} // namespace seqpar::dist

#include "seqpar/Dialect/Dist/IR/DistEnums.h.inc"
#include "seqpar/Dialect/Dist/IR/DistOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "seqpar/Dialect/Dist/IR/DistAttrs.h.inc"

#include "seqpar/Dialect/Dist/IR/DistInterfaces.h.inc"

namespace seqpar::dist {
/// The checks shared by every collective: the mesh and axis exist and every
/// layout of the op's types names only axes of the mesh; then the op's own
/// shape and layout checks for the axis size.
mlir::LogicalResult
verifyCollectiveSymbolUses(CollectiveOpInterface op,
                           mlir::SymbolTableCollection &symbolTable);
} // namespace seqpar::dist

#define GET_OP_CLASSES
#include "seqpar/Dialect/Dist/IR/DistOps.h.inc"

#endif // SEQPAR_DIALECT_DIST_IR_DIST_H
