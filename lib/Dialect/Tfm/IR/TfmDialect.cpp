//===- TfmDialect.cpp - the tfm dialect -----------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

using namespace mlir;
using namespace seqpar::tfm;

#include "seqpar/Dialect/Common/SeqparChoices.cpp.inc"
#include "seqpar/Dialect/Common/SeqparEnums.cpp.inc"
#include "seqpar/Dialect/Tfm/IR/TfmEnums.cpp.inc"
#include "seqpar/Dialect/Tfm/IR/TfmInterfaces.cpp.inc"
#include "seqpar/Dialect/Tfm/IR/TfmOpsDialect.cpp.inc"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#define GET_ATTRDEF_CLASSES
#include "seqpar/Dialect/Tfm/IR/TfmAttrs.cpp.inc"

void TfmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "seqpar/Dialect/Tfm/IR/TfmOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "seqpar/Dialect/Tfm/IR/TfmAttrs.cpp.inc"
      >();
}
