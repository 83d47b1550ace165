//===- TfmOptimizerOps.cpp - verifiers of the optimizer ops ---------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

using namespace mlir;
using namespace seqpar::tfm;

LogicalResult ClipScaleOp::verify() {
  if (!(getMaxNorm().convertToDouble() >= 0.0))
    return emitOpError() << "max_norm must be >= 0";
  return success();
}

namespace {
/// The types each parameter is read with (get_param) within one parent op,
/// shared by the update ops of one verification sweep (verifyUpdatedParam).
struct ReadIndex {
  Operation *parent = nullptr;
  /// The update op whose verification used the index last.
  Operation *last = nullptr;
  DenseMap<Attribute, SmallVector<RankedTensorType, 1>> types;
};
} // namespace

static bool isUpdate(Operation &op) {
  return isa<SgdUpdateOp, AdamWUpdateOp>(op);
}

/// The update op before `op` among the ops of `op`'s parent (not nested
/// deeper), in walk order; null if none.
static Operation *previousUpdate(Operation *op) {
  for (Operation *o = op->getPrevNode(); o; o = o->getPrevNode())
    if (isUpdate(*o))
      return o;
  Region *region = op->getParentRegion();
  for (Block *b = op->getBlock()->getPrevNode(); b; b = b->getPrevNode())
    for (Operation &o : llvm::reverse(*b))
      if (isUpdate(o))
        return &o;
  Operation *parent = op->getParentOp();
  for (unsigned r = region->getRegionNumber(); r-- > 0;)
    for (Block &b : llvm::reverse(parent->getRegion(r)))
      for (Operation &o : llvm::reverse(b))
        if (isUpdate(o))
          return &o;
  return nullptr;
}

/// The types `op`'s parent reads each parameter with. Symbol uses are
/// verified in one sweep over the symbol table in walk order, stopping at
/// the first failure, and the IR does not change during a sweep; so when the
/// update op before `op` in its parent is the last one the index served, it
/// was verified just before in this same sweep and the index is current.
/// Otherwise (`op` comes first, or the index is of another parent) the
/// parent is walked again. One walk per parent per sweep, where a walk per
/// update op made verification quadratic in the number of parameters.
static const ReadIndex &readsOf(Operation *op) {
  static thread_local ReadIndex index;
  Operation *parent = op->getParentOp();
  Operation *previous = previousUpdate(op);
  if (index.parent != parent || !previous || index.last != previous) {
    index.parent = parent;
    index.types.clear();
    parent->walk([&](GetParamOp get) {
      index.types[get.getNameAttr()].push_back(get.getType());
    });
  }
  index.last = op;
  return index;
}

/// The parameter exists and this function reads it with the gradient's type.
static LogicalResult verifyUpdatedParam(Operation *op, FlatSymbolRefAttr name,
                                        Type gradType,
                                        SymbolTableCollection &symbolTable) {
  if (!symbolTable.lookupNearestSymbolFrom<ParamOp>(op, name))
    return op->emitOpError() << name << " does not name a tfm.param";
  bool read = false;
  // The gradient has the type the parameter is read with, or is a slice of
  // it along the first dimension (a distributed optimizer's shard).
  auto g = cast<RankedTensorType>(gradType);
  for (RankedTensorType t : readsOf(op).types.lookup(name)) {
    if (t == g)
      read = true;
    else if (t.getRank() == g.getRank() && t.getRank() >= 1 &&
             t.getDimSize(0) != g.getDimSize(0) &&
             t.getElementType() == g.getElementType() &&
             t.getShape().drop_front() == g.getShape().drop_front() &&
             g.getDimSize(0) > 0 && t.getDimSize(0) % g.getDimSize(0) == 0)
      read = true;
  }
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
