//===- FuseEpilogues.cpp - a GEMM and its GELU (tfm-fuse-epilogues) -------===//
//
// Each tfm.gelu of a tfm.linear's result becomes, with the linear, one
// tfm.linear_gelu; each tfm.gelu_grad of a tfm.linear_grad_input's result
// (with the bias gradient of the result) one tfm.linear_gelu_grad; each
// tfm.linear_grad_weight with a tfm.bias_grad of its dy one
// tfm.linear_grad_weight_bias; each tfm.gelu of a dist.all_gather_matmul's
// result (SP's gathered column GEMM) one dist.all_gather_matmul_gelu. See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"
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

/// The fused all-gather + GEMM whose result `gelu` maps, when the two fuse.
static dist::AllGatherMatmulOp fusableGather(GeluOp gelu) {
  auto gemm = gelu.getInput().getDefiningOp<dist::AllGatherMatmulOp>();
  return gemm && sameContext(gemm, gelu) ? gemm : dist::AllGatherMatmulOp();
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

/// The bias gradient of `gw`'s dy that fuses with it: the first in program
/// order not `claimed`, in its block and context (either may be tagged as a
/// gradient contribution), that can take the earlier place of the two (the
/// input defined before it). GPT-NeoX's parallel residual has two of each
/// on one dy (the attention's and the MLP's output linears).
static BiasGradOp fusableBiasGrad(LinearGradWeightOp gw,
                                  const DenseSet<Operation *> &claimed) {
  Operation *def = gw.getInput().getDefiningOp();
  BiasGradOp first;
  for (Operation *user : gw.getDy().getUsers()) {
    auto bias = dyn_cast<BiasGradOp>(user);
    if (!bias || claimed.contains(bias) || bias->getBlock() != gw->getBlock() ||
        contextOf(bias) != contextOf(gw))
      continue;
    bool placeable = gw->isBeforeInBlock(bias) || !def ||
                     def->getBlock() != bias->getBlock() ||
                     def->isBeforeInBlock(bias);
    if (placeable && (!first || bias->isBeforeInBlock(first)))
      first = bias;
  }
  return first;
}

/// linear_grad_weight(x, dy) and bias_grad(dy) as one
/// tfm.linear_grad_weight_bias at the earlier of the two, each result keeping
/// its contribution tag.
static void fuseWeightGrad(OpBuilder &b, LinearGradWeightOp gw,
                           BiasGradOp bias) {
  b.setInsertionPoint(gw->isBeforeInBlock(bias) ? gw.getOperation()
                                                : bias.getOperation());
  auto fused = b.create<LinearGradWeightBiasOp>(
      b.getFusedLoc({gw.getLoc(), bias.getLoc()}),
      TypeRange{gw.getType(), bias.getType()}, gw.getInput(), gw.getDy(),
      gw.getWeightLayoutAttr());
  fused->setDiscardableAttrs(contextOf(gw));
  for (auto [from, to] :
       {std::pair<OpResult, OpResult>{gw->getResult(0), fused->getResult(0)},
        {bias->getResult(0), fused->getResult(1)}}) {
    if (StringAttr tag = getContributionTag(from))
      setContributionTag(to, tag);
    from.replaceAllUsesWith(to);
  }
  gw.erase();
  bias.erase();
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

/// gelu(all_gather_matmul(x, w, b)) as one dist.all_gather_matmul_gelu at
/// the GEMM, as fuseForward.
static void fuseGathered(OpBuilder &b, dist::AllGatherMatmulOp gemm,
                         GeluOp gelu) {
  b.setInsertionPoint(gemm);
  auto fused = b.create<dist::AllGatherMatmulGeluOp>(
      b.getFusedLoc({gemm.getLoc(), gelu.getLoc()}), gemm.getType(),
      gelu.getType(), gemm.getInput(), gemm.getWeight(), gemm.getBias(),
      gemm.getMeshAttr(), gemm.getAxisAttr(), gemm.getDimAttr(),
      gemm.getChunksAttr(), gemm.getWeightLayoutAttr(),
      gelu.getApproximateAttr());
  fused->setDiscardableAttrs(gemm->getDiscardableAttrDictionary());
  gelu.getResult().replaceAllUsesWith(fused.getResult());
  gelu.erase();
  gemm.getResult().replaceAllUsesWith(fused.getPre());
  gemm.erase();
}

namespace {
struct TfmFuseEpiloguesPass
    : tfm::impl::TfmFuseEpiloguesPassBase<TfmFuseEpiloguesPass> {
  void runOnOperation() override {
    // A GEMM fuses with one GELU, the first; another GELU of its result
    // reads the fused op's pre.
    SmallVector<std::pair<LinearOp, GeluOp>> pairs;
    SmallVector<std::pair<dist::AllGatherMatmulOp, GeluOp>> gathered;
    DenseSet<Operation *> gemms;
    getOperation().walk([&](GeluOp gelu) {
      if (LinearOp linear = fusableLinear(gelu)) {
        if (gemms.insert(linear).second)
          pairs.push_back({linear, gelu});
      } else if (dist::AllGatherMatmulOp gemm = fusableGather(gelu)) {
        if (gemms.insert(gemm).second)
          gathered.push_back({gemm, gelu});
      }
    });
    SmallVector<std::pair<LinearGradInputOp, GeluGradOp>> grads;
    getOperation().walk([&](GeluGradOp grad) {
      if (LinearGradInputOp gi = fusableGradInput(grad))
        grads.push_back({gi, grad});
    });
    OpBuilder b(&getContext());
    for (auto [gi, grad] : grads)
      fuseBackward(b, gi, grad);
    // After them, the bias gradients left (those of GELU gradients are in
    // their tfm.linear_gelu_grad).
    SmallVector<std::pair<LinearGradWeightOp, BiasGradOp>> weightGrads;
    DenseSet<Operation *> claimed;
    getOperation().walk([&](LinearGradWeightOp gw) {
      if (BiasGradOp bias = fusableBiasGrad(gw, claimed)) {
        claimed.insert(bias);
        weightGrads.push_back({gw, bias});
      }
    });
    for (auto [gw, bias] : weightGrads)
      fuseWeightGrad(b, gw, bias);
    // After the backward's: a fused gradient reads the linear's result
    // (pre), which becomes the fused forward op's.
    for (auto [linear, gelu] : pairs)
      fuseForward(b, linear, gelu);
    for (auto [gemm, gelu] : gathered)
      fuseGathered(b, gemm, gelu);
  }
};
} // namespace
