//===- FuseEpilogues.cpp - a GEMM and its GELU (tfm-fuse-epilogues) -------===//
//
// Each tfm.gelu of a tfm.linear's result becomes, with the linear, one
// tfm.linear_gelu. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace seqpar::tfm {
#define GEN_PASS_DEF_TFMFUSEEPILOGUESPASS
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace seqpar::tfm

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

/// The linear whose result `gelu` maps, when the two fuse.
static LinearOp fusableLinear(GeluOp gelu) {
  auto linear = gelu.getInput().getDefiningOp<LinearOp>();
  if (!linear || linear->getBlock() != gelu->getBlock() ||
      linear->getDiscardableAttrDictionary() !=
          gelu->getDiscardableAttrDictionary())
    return {};
  return linear;
}

namespace {
struct TfmFuseEpiloguesPass
    : tfm::impl::TfmFuseEpiloguesPassBase<TfmFuseEpiloguesPass> {
  void runOnOperation() override {
    SmallVector<std::pair<LinearOp, GeluOp>> pairs;
    getOperation().walk([&](GeluOp gelu) {
      if (LinearOp linear = fusableLinear(gelu))
        pairs.push_back({linear, gelu});
    });
    OpBuilder b(&getContext());
    for (auto [linear, gelu] : pairs) {
      // At the linear: its operands are defined before it, and every reader
      // of the GELU comes after the GELU.
      b.setInsertionPoint(linear);
      auto fused = b.create<LinearGeluOp>(
          b.getFusedLoc({linear.getLoc(), gelu.getLoc()}), linear.getType(),
          gelu.getType(), linear.getInput(), linear.getWeight(),
          linear.getBias(), linear.getWeightLayoutAttr(),
          gelu.getApproximateAttr());
      fused->setDiscardableAttrs(linear->getDiscardableAttrDictionary());
      gelu.getResult().replaceAllUsesWith(fused.getResult());
      gelu.erase();
      linear.getResult().replaceAllUsesWith(fused.getPre());
      linear.erase();
    }
  }
};
} // namespace
