//===- DistDialect.cpp - the dist dialect ---------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
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
