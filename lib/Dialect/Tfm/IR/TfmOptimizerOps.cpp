//===- TfmOptimizerOps.cpp - verifiers of the optimizer ops ---------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include <cmath>

using namespace mlir;
using namespace seqpar::tfm;

void HyperparameterOp::getAsmResultNames(OpAsmSetValueNameFn setName) {
  setName(getResult(), stringifyHyperparameterKind(getKind()));
}

LogicalResult HyperparameterOp::verify() {
  double v = getDefaultValue().convertToDouble();
  HyperparameterKind kind = getKind();
  StringRef range;
  switch (kind) {
  case HyperparameterKind::lr:
  case HyperparameterKind::eps:
  case HyperparameterKind::loss_scale:
    range = v > 0.0 && std::isfinite(v) ? "" : "finite and > 0";
    break;
  case HyperparameterKind::beta1:
  case HyperparameterKind::beta2:
    range = v >= 0.0 && v < 1.0 ? "" : "in [0, 1)";
    break;
  case HyperparameterKind::weight_decay:
  case HyperparameterKind::grad_clip:
    range = v >= 0.0 && std::isfinite(v) ? "" : "finite and >= 0";
    break;
  }
  if (!range.empty())
    return emitOpError() << "default of " << stringifyHyperparameterKind(kind)
                         << " must be " << range << ", got " << v;
  // One read per hyperparameter: two could give one name two defaults. The
  // ops before this one are scanned, so the second read is the one named.
  for (Operation *o = getOperation()->getPrevNode(); o; o = o->getPrevNode())
    if (auto other = dyn_cast<HyperparameterOp>(o);
        other && other.getKind() == kind) {
      InFlightDiagnostic diag = emitOpError()
                                << "reads hyperparameter "
                                << stringifyHyperparameterKind(kind)
                                << " a second time in its block";
      diag.attachNote(other.getLoc()) << "the first read";
      return diag;
    }
  return success();
}

/// `value`, operand `what` of `op`, is read by tfm.hyperparameter `kind`.
static LogicalResult verifyHyperparameter(Operation *op, Value value,
                                          StringRef what,
                                          HyperparameterKind kind) {
  auto def = value.getDefiningOp<HyperparameterOp>();
  if (def && def.getKind() == kind)
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "'" << what
                            << "' must be read by tfm.hyperparameter "
                            << stringifyHyperparameterKind(kind) << ", got ";
  if (def)
    diag << "hyperparameter " << stringifyHyperparameterKind(def.getKind());
  else if (Operation *other = value.getDefiningOp())
    diag << "a result of '" << other->getName() << "'";
  else
    diag << "a block argument";
  return diag;
}

LogicalResult SumSquaresOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "sums the squares of at least one tensor, got none";
  return success();
}

LogicalResult ClipScaleOp::verify() {
  if (failed(verifyHyperparameter(*this, getMaxNorm(), "max_norm",
                                  HyperparameterKind::grad_clip)))
    return failure();
  if (Value s = getLossScale())
    return verifyHyperparameter(*this, s, "loss_scale",
                                HyperparameterKind::loss_scale);
  return success();
}

// tfm.fill is a backward op (TfmGradOps.td); its `times` is a hyperparameter.
LogicalResult FillOp::verify() {
  if (Value s = getTimes())
    return verifyHyperparameter(*this, s, "times",
                                HyperparameterKind::loss_scale);
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

/// The parameter exists and this function reads it with the gradient's type
/// (with `master`: the gradient's shape and the parameter's bf16 / f16 type,
/// the gradient in f32).
static LogicalResult verifyUpdatedParam(Operation *op, FlatSymbolRefAttr name,
                                        Type gradType, bool master,
                                        SymbolTableCollection &symbolTable) {
  auto param = symbolTable.lookupNearestSymbolFrom<ParamOp>(op, name);
  if (!param)
    return op->emitOpError() << name << " does not name a tfm.param";
  auto g = cast<RankedTensorType>(gradType);
  Type stored = param.getType().getElementType();
  bool low = stored.isBF16() || stored.isF16();
  if (master && !low)
    return op->emitOpError() << "keeps an f32 master weight of " << name
                             << ", which is stored in " << stored
                             << ": `master` needs a bf16 or f16 parameter";
  if (master && !g.getElementType().isF32())
    return op->emitOpError() << "updates the f32 master weight of " << name
                             << " with a gradient of type " << gradType
                             << ": `master` needs an f32 gradient";
  // The type the function reads the parameter with, for this gradient.
  Type readElement = master ? stored : g.getElementType();
  bool read = false;
  // The gradient has the type the parameter is read with, or is a slice of
  // it along the first dimension (a distributed optimizer's shard).
  for (RankedTensorType t : readsOf(op).types.lookup(name)) {
    if (t.getElementType() != readElement)
      continue;
    if (t.getShape() == g.getShape() && t.getEncoding() == g.getEncoding())
      read = true;
    else if (t.getRank() == g.getRank() && t.getRank() >= 1 &&
             t.getDimSize(0) != g.getDimSize(0) &&
             t.getShape().drop_front() == g.getShape().drop_front() &&
             g.getDimSize(0) > 0 && t.getDimSize(0) % g.getDimSize(0) == 0)
      read = true;
  }
  if (!read) {
    InFlightDiagnostic diag =
        op->emitOpError() << "updates " << name << " with a gradient of type "
                          << gradType << ", which is not how the function "
                          << "reads it";
    if (!master && low && g.getElementType().isF32())
      diag << " (a " << stored << " parameter updated from an f32 gradient "
           << "needs `master`: the optimizer's f32 master weight)";
    return diag;
  }
  return success();
}

LogicalResult SgdUpdateOp::verifySymbolUses(SymbolTableCollection &table) {
  return verifyUpdatedParam(*this, getParamAttr(), getGrad().getType(),
                            getMaster(), table);
}

LogicalResult AdamWUpdateOp::verifySymbolUses(SymbolTableCollection &table) {
  return verifyUpdatedParam(*this, getParamAttr(), getGrad().getType(),
                            getMaster(), table);
}

LogicalResult SgdUpdateOp::verify() {
  using K = HyperparameterKind;
  return success(
      succeeded(verifyHyperparameter(*this, getLr(), "lr", K::lr)) &&
      succeeded(verifyHyperparameter(*this, getWeightDecay(), "weight_decay",
                                     K::weight_decay)));
}

LogicalResult AdamWUpdateOp::verify() {
  using K = HyperparameterKind;
  std::pair<Value, K> operands[] = {{getLr(), K::lr},
                                    {getBeta1(), K::beta1},
                                    {getBeta2(), K::beta2},
                                    {getEps(), K::eps},
                                    {getWeightDecay(), K::weight_decay}};
  for (auto [value, kind] : operands)
    if (failed(verifyHyperparameter(*this, value,
                                    stringifyHyperparameterKind(kind), kind)))
      return failure();
  return success();
}

ParamOp SgdUpdateOp::getParamOp(SymbolTableCollection &table) {
  return table.lookupNearestSymbolFrom<ParamOp>(*this, getParamAttr());
}

ParamOp AdamWUpdateOp::getParamOp(SymbolTableCollection &table) {
  return table.lookupNearestSymbolFrom<ParamOp>(*this, getParamAttr());
}
