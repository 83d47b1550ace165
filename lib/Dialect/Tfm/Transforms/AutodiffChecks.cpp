//===- AutodiffChecks.cpp - tfm-autodiff's checks on what it builds -------===//
//
// The checks of tfm-autodiff that are not the differentiation itself: the
// backward reads only what the forward declares it keeps, and with pipeline
// stages every parameter is read (has a gradient) on some stage.
//
//===----------------------------------------------------------------------===//

#include "AutodiffChecks.h"

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

/// What the backward reads from the forward must be what the forward ops
/// declare they keep (SavedForBackwardOpInterface), the declaration the
/// memory report counts: a backward rule reading anything else is a bug
/// here, not a silent difference between the report and the run.
LogicalResult tfm::checkKeptValues(Block &body, Operation *begin) {
  DenseSet<Value> declared;
  for (Operation &op : body) {
    if (&op == begin)
      break;
    auto decl = dyn_cast<SavedForBackwardOpInterface>(op);
    if (!decl)
      continue;
    SmallVector<SavedTensor> saved;
    decl.getSavedForBackward(saved);
    for (const SavedTensor &t : saved)
      if (t.value) {
        declared.insert(t.value);
        // An all-gathered value is kept as its shard (gathered again).
        if (auto gather = t.value.getDefiningOp<AllGatherOp>())
          declared.insert(gather.getInput());
      }
  }
  bool backward = false;
  for (Operation &op : body) {
    backward |= &op == begin;
    if (!backward || isa<func::ReturnOp>(op))
      continue;
    for (Value v : op.getOperands()) {
      Operation *def = v.getDefiningOp();
      // Parameters (their copies in the model's precision included) and
      // host scalars are not activations.
      if (!def || !def->isBeforeInBlock(begin) || isParameterRead(v) ||
          isa<HyperparameterOp>(def) || declared.contains(v))
        continue;
      return op.emitOpError()
             << "reads a forward value (from " << def->getName()
             << ") that no op declares it keeps for the backward";
    }
  }
  return success();
}

/// With pipeline stages, each stage's step has the gradients of the
/// parameters it reads: every parameter (or a member of its tie group) must
/// be read on some stage. (One forward checks it in Autodiff::run.)
LogicalResult tfm::checkEveryParameterRead(ModuleOp module,
                                           ArrayRef<Operation *> forwards) {
  if (forwards.size() < 2)
    return success();
  DenseSet<Attribute> read;
  for (Operation *forward : forwards)
    forward->walk(
        [&](GetParamOp get) { read.insert(get.getNameAttr().getAttr()); });
  DenseSet<Attribute> groupsRead;
  for (ParamOp p : module.getOps<ParamOp>())
    if (read.contains(p.getSymNameAttr()) && p.getTieGroupAttr())
      groupsRead.insert(p.getTieGroupAttr());
  for (ParamOp p : module.getOps<ParamOp>())
    if (!read.contains(p.getSymNameAttr()) &&
        !(p.getTieGroupAttr() && groupsRead.contains(p.getTieGroupAttr())))
      return p.emitOpError() << "is never read by any pipeline stage of "
                                "the forward: it has no gradient (remove it "
                                "from the model)";
  return success();
}
