//===- TfmOptimizerOps.cpp - verifiers of the optimizer ops ---------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

using namespace mlir;
using namespace seqpar::tfm;

LogicalResult ClipScaleOp::verify() {
  if (!(getMaxNorm().convertToDouble() >= 0.0))
    return emitOpError() << "max_norm must be >= 0";
  return success();
}

/// The parameter exists and this function reads it with the gradient's type.
static LogicalResult verifyUpdatedParam(Operation *op, FlatSymbolRefAttr name,
                                        Type gradType,
                                        SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<ParamOp>(op, name))
    return op->emitOpError() << name << " does not name a tfm.param";
  Operation *func = op->getParentOp();
  bool read = false;
  // The gradient has the type the parameter is read with, or is a slice of
  // it along the first dimension (a distributed optimizer's shard).
  auto g = cast<RankedTensorType>(gradType);
  func->walk([&](GetParamOp get) {
    RankedTensorType t = get.getType();
    if (get.getNameAttr() != name)
      return;
    if (t == g)
      read = true;
    else if (t.getRank() == g.getRank() && t.getRank() >= 1 &&
             t.getDimSize(0) != g.getDimSize(0) &&
             t.getElementType() == g.getElementType() &&
             t.getShape().drop_front() == g.getShape().drop_front() &&
             g.getDimSize(0) > 0 && t.getDimSize(0) % g.getDimSize(0) == 0)
      read = true;
  });
  if (!read)
    return op->emitOpError()
           << "updates " << name << " with a gradient of type " << gradType
           << ", which is not how the function reads it";
  return success();
}

LogicalResult SgdUpdateOp::verifySymbolUses(SymbolTableCollection &table) {
  return verifyUpdatedParam(*this, getParamAttr(), getGrad().getType(), table);
}

LogicalResult AdamWUpdateOp::verifySymbolUses(SymbolTableCollection &table) {
  return verifyUpdatedParam(*this, getParamAttr(), getGrad().getType(), table);
}

LogicalResult SgdUpdateOp::verify() {
  if (!(getLr().convertToDouble() > 0.0) ||
      !(getWeightDecay().convertToDouble() >= 0.0))
    return emitOpError() << "lr must be > 0 and weight_decay >= 0";
  return success();
}

LogicalResult AdamWUpdateOp::verify() {
  double b1 = getBeta1().convertToDouble(), b2 = getBeta2().convertToDouble();
  if (!(getLr().convertToDouble() > 0.0) ||
      !(getWeightDecay().convertToDouble() >= 0.0) ||
      !(getEps().convertToDouble() > 0.0))
    return emitOpError() << "lr and eps must be > 0 and weight_decay >= 0";
  if (!(b1 >= 0.0 && b1 < 1.0 && b2 >= 0.0 && b2 < 1.0))
    return emitOpError() << "betas must be in [0, 1), got " << b1 << ", " << b2;
  return success();
}

ParamOp SgdUpdateOp::getParamOp(SymbolTableCollection &table) {
  return table.lookupNearestSymbolFrom<ParamOp>(*this, getParamAttr());
}

ParamOp AdamWUpdateOp::getParamOp(SymbolTableCollection &table) {
  return table.lookupNearestSymbolFrom<ParamOp>(*this, getParamAttr());
}
