//===- SpOverlapGradReductions.cpp - start gradient buckets early ---------===//
//
// Moves each gradient bucket's reduction of a train step to right after its
// last gradient is computed and makes it async. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPOVERLAPGRADREDUCTIONSPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// Moves `op` up to right after the last definition of its operands in
/// `block` (or to the block's start).
static void hoist(Operation *op, Block &block) {
  Operation *after = nullptr;
  for (Value v : op->getOperands()) {
    Operation *def = v.getDefiningOp();
    Operation *at = def ? block.findAncestorOpInBlock(*def) : nullptr;
    if (at && (!after || after->isBeforeInBlock(at)))
      after = at;
  }
  if (after)
    op->moveAfter(after);
  else
    op->moveBefore(&block, block.begin());
}

/// Moves the bucket `op` up and makes it async.
static void overlap(Operation *op) {
  Block &block = *op->getBlock();
  // The narrowing of an operand for a bf16 reduction moves with it.
  for (Value v : op->getOperands())
    if (auto narrow = v.getDefiningOp<tfm::ConvertOp>())
      if (narrow->hasOneUse() && narrow->getBlock() == &block)
        hoist(narrow, block);
  hoist(op, block);
  if (auto all = dyn_cast<AllReduceCoalescedOp>(op))
    all.setAsync(true);
  else
    cast<ReduceScatterCoalescedOp>(op).setAsync(true);
}

namespace {
struct SpOverlapGradReductionsPass
    : dist::impl::SpOverlapGradReductionsPassBase<SpOverlapGradReductionsPass> {
  using SpOverlapGradReductionsPassBase::SpOverlapGradReductionsPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<SmallVector<Operation *>> steps =
        tfm::TfmDialect::getMarkedFunctions(
            module, tfm::TfmDialect::TrainStepAttrHelper::getNameStr(),
            "sp-overlap-grad-reductions");
    if (failed(steps))
      return signalPassFailure();
    for (Operation *step : *steps) {
      SmallVector<Operation *> buckets;
      // Every sum bucket whose results some op reads (its wait point).
      step->walk([&](Operation *op) {
        auto all = dyn_cast<AllReduceCoalescedOp>(op);
        if (((all && all.getKind() == ReductionKind::sum) ||
             isa<ReduceScatterCoalescedOp>(op)) &&
            llvm::any_of(op->getResults(),
                         [](Value r) { return !r.use_empty(); }))
          buckets.push_back(op);
      });
      for (Operation *op : buckets)
        overlap(op);
    }
  }
};
} // namespace
