//===- DistDialect.cpp - the dist dialect ---------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace seqpar::dist;

#include "seqpar/Dialect/Dist/IR/DistEnums.cpp.inc"
#include "seqpar/Dialect/Dist/IR/DistInterfaces.cpp.inc"
#include "seqpar/Dialect/Dist/IR/DistOpsDialect.cpp.inc"
#include "seqpar/Dialect/Dist/IR/ShardingInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "seqpar/Dialect/Dist/IR/DistAttrs.cpp.inc"

void DistDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "seqpar/Dialect/Dist/IR/DistAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "seqpar/Dialect/Dist/IR/DistOps.cpp.inc"
      >();
}

LogicalResult DistDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == ArenaOffsetsAttrHelper::getNameStr()) {
    auto offsets = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!offsets || offsets.size() != int64_t(op->getNumResults()))
      return op->emitOpError()
             << "'" << name << "' must be an array<i64> of one offset per "
             << "result (" << op->getNumResults() << ")";
    if (llvm::any_of(offsets.asArrayRef(), [](int64_t o) { return o < 0; }))
      return op->emitOpError() << "'" << name << "' has a negative offset";
    return success();
  }
  if (name == ArenaBytesAttrHelper::getNameStr() ||
      name == ArenaMaxLiveAttrHelper::getNameStr()) {
    auto bytes = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError()
             << "carries '" << name << "', which belongs on a function";
    if (!bytes || bytes.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative integer";
    return success();
  }
  if (name == WorkspaceOffsetAttrHelper::getNameStr()) {
    auto offset = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<WorkspaceOpInterface>(op))
      return op->emitOpError()
             << "carries '" << name
             << "', but its runtime kernel has no workspace to place";
    if (!offset || !offset.getType().isSignlessInteger(64) ||
        offset.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative i64 offset";
    return success();
  }
  return op->emitOpError() << "carries the unknown attribute '" << name
                           << "' (see the dist dialect's attributes)";
}
