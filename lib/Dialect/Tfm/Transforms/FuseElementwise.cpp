//===- FuseElementwise.cpp - dropout + residual add (tfm-fuse-elementwise) ===//
//
// Each tfm.dropout whose only use is a tfm.add becomes, with it, one
// tfm.dropout_add. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace seqpar::tfm {
#define GEN_PASS_DEF_TFMFUSEELEMENTWISEPASS
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace seqpar::tfm

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

/// The add `dropout` feeds alone, when the two fuse.
static AddOp fusableAdd(DropoutOp dropout) {
  if (!dropout->hasOneUse() || dropout.getType().getRank() > 3)
    return {};
  auto add = dyn_cast<AddOp>(*dropout->getUsers().begin());
  // An add of the dropout with itself keeps the dropout's tensor.
  if (!add || add.getLhs() == add.getRhs() ||
      add->getBlock() != dropout->getBlock() ||
      add.getType() != dropout.getType() ||
      add->getDiscardableAttrDictionary() !=
          dropout->getDiscardableAttrDictionary())
    return {};
  return add;
}

namespace {
struct TfmFuseElementwisePass
    : tfm::impl::TfmFuseElementwisePassBase<TfmFuseElementwisePass> {
  void runOnOperation() override {
    SmallVector<std::pair<DropoutOp, AddOp>> pairs;
    getOperation().walk([&](DropoutOp dropout) {
      if (AddOp add = fusableAdd(dropout))
        pairs.push_back({dropout, add});
    });
    OpBuilder b(&getContext());
    for (auto [dropout, add] : pairs) {
      Value residual =
          add.getLhs() == dropout.getResult() ? add.getRhs() : add.getLhs();
      // At the add: the residual is defined before it, the dropout's input
      // before the dropout.
      b.setInsertionPoint(add);
      auto fused = b.create<DropoutAddOp>(add.getLoc(), dropout.getInput(),
                                          residual, dropout.getRateAttr(),
                                          dropout.getStreamAttr());
      fused->setDiscardableAttrs(dropout->getDiscardableAttrDictionary());
      add.getResult().replaceAllUsesWith(fused.getResult());
      add.erase();
      dropout.erase();
    }
  }
};
} // namespace
