//===- FuseEpilogues.cpp - a GEMM and its GELU (tfm-fuse-epilogues) -------===//
//
// Each tfm.gelu of a tfm.linear's result becomes, with the linear, one
// tfm.linear_gelu; each tfm.gelu_grad of a tfm.linear_grad_input's result
// (with the bias gradient of the result) one tfm.linear_gelu_grad. See
// Passes.td.
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

/// Whether `a` and `b` may become one op: one block, the same discardable
/// attributes (micro-batch, recompute and gradient tags).
static bool sameContext(Operation *a, Operation *b) {
  return a->getBlock() == b->getBlock() &&
         a->getDiscardableAttrDictionary() == b->getDiscardableAttrDictionary();
}

/// The linear whose result `gelu` maps, when the two fuse.
static LinearOp fusableLinear(GeluOp gelu) {
  auto linear = gelu.getInput().getDefiningOp<LinearOp>();
  return linear && sameContext(linear, gelu) ? linear : LinearOp();
}

/// The input gradient `grad` scales, when the two fuse: read by it alone
/// (its tensor is then never stored).
static LinearGradInputOp fusableGradInput(GeluGradOp grad) {
  auto gi = grad.getDy().getDefiningOp<LinearGradInputOp>();
  return gi && gi->hasOneUse() && grad.getInput() != gi.getDx() &&
                 sameContext(gi, grad)
             ? gi
             : LinearGradInputOp();
}

/// The first bias gradient of `grad`'s result that fuses with it: in its
/// context, though it may be tagged as a parameter's gradient contribution
/// (which the fused op's dbias then is).
static BiasGradOp fusableBiasGrad(GeluGradOp grad) {
  if (getContributionTag(grad->getResult(0)))
    return {};
  for (Operation *user : grad->getUsers())
    if (auto bias = dyn_cast<BiasGradOp>(user))
      if (bias->getBlock() == grad->getBlock() &&
          contextOf(bias) == contextOf(grad))
        return bias;
  return {};
}

/// gelu_grad(linear_grad_input(dy, w), pre) (and its bias gradient) as one
/// tfm.linear_gelu_grad at the GELU's gradient.
static void fuseBackward(OpBuilder &b, LinearGradInputOp gi, GeluGradOp grad) {
  BiasGradOp bias = fusableBiasGrad(grad);
  b.setInsertionPoint(grad);
  SmallVector<Type> types{grad.getType()};
  if (bias)
    types.push_back(bias.getType());
  auto fused = b.create<LinearGeluGradOp>(
      b.getFusedLoc({gi.getLoc(), grad.getLoc()}), types, gi.getDy(),
      gi.getWeight(), grad.getInput(), gi.getWeightLayoutAttr(),
      grad.getApproximateAttr());
  fused->setDiscardableAttrs(grad->getDiscardableAttrDictionary());
  if (bias) {
    if (StringAttr tag = getContributionTag(bias->getResult(0)))
      setContributionTag(fused->getResult(1), tag);
    bias.getResult().replaceAllUsesWith(fused.getDbias());
    bias.erase();
  }
  grad.getResult().replaceAllUsesWith(fused.getDx());
  grad.erase();
  gi.erase();
}

/// gelu(linear(x, w, b)) as one tfm.linear_gelu at the linear: its operands
/// are defined before it, and every reader of the GELU comes after the GELU.
static void fuseForward(OpBuilder &b, LinearOp linear, GeluOp gelu) {
  b.setInsertionPoint(linear);
  auto fused = b.create<LinearGeluOp>(
      b.getFusedLoc({linear.getLoc(), gelu.getLoc()}), linear.getType(),
      gelu.getType(), linear.getInput(), linear.getWeight(), linear.getBias(),
      linear.getWeightLayoutAttr(), gelu.getApproximateAttr());
  fused->setDiscardableAttrs(linear->getDiscardableAttrDictionary());
  gelu.getResult().replaceAllUsesWith(fused.getResult());
  gelu.erase();
  linear.getResult().replaceAllUsesWith(fused.getPre());
  linear.erase();
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
    SmallVector<std::pair<LinearGradInputOp, GeluGradOp>> grads;
    getOperation().walk([&](GeluGradOp grad) {
      if (LinearGradInputOp gi = fusableGradInput(grad))
        grads.push_back({gi, grad});
    });
    OpBuilder b(&getContext());
    for (auto [gi, grad] : grads)
      fuseBackward(b, gi, grad);
    // After the backward's: a fused gradient reads the linear's result
    // (pre), which becomes the fused forward op's.
    for (auto [linear, gelu] : pairs)
      fuseForward(b, linear, gelu);
  }
};
} // namespace
