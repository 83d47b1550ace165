//===- SaveAttentionStats.cpp - attention's backward from the forward's
//    result and statistics (tfm-save-attention-stats) ----------------===//
//
// Each tfm.attention_grad whose forward is found reads that forward's
// result and its softmax statistics (`lse`, added to it) instead of running
// it again. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace seqpar::tfm {
#define GEN_PASS_DEF_TFMSAVEATTENTIONSTATSPASS
#include "seqpar/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace seqpar::tfm

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;

/// Whether `a` and `b` hold the same data: one value, or the same result of
/// two pure ops of one kind with the same inherent attributes (their
/// discardable tags may differ: a backward's copy) on operands that hold
/// the same data, up to `depth` ops deep (context parallelism's backward
/// gathers k and v again, and converts them again where the attention
/// computes in f32).
static bool sameData(Value a, Value b, int depth = 4) {
  if (a == b)
    return true;
  if (!a || !b || a.getType() != b.getType() || depth == 0)
    return false;
  auto ra = dyn_cast<OpResult>(a), rb = dyn_cast<OpResult>(b);
  if (!ra || !rb || ra.getResultNumber() != rb.getResultNumber())
    return false;
  Operation *x = ra.getOwner(), *y = rb.getOwner();
  std::optional<RegisteredOperationName> info = x->getRegisteredInfo();
  if (x->getName() != y->getName() || !info || x->getNumRegions() != 0 ||
      !isMemoryEffectFree(x) || x->getNumOperands() != y->getNumOperands())
    return false;
  for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands()))
    if (!sameData(u, v, depth - 1))
      return false;
  return llvm::all_of(info->getAttributeNames(), [&](StringAttr name) {
    return x->getInherentAttr(name) == y->getInherentAttr(name);
  });
}

/// Whether `fwd` is the forward `grad` differentiates: the same
/// attributes, and the same queries, keys, values and positions.
static bool isForwardOf(AttentionOp fwd, AttentionGradOp grad) {
  return fwd.getNumHeads() == grad.getNumHeads() &&
         fwd.getNumKvHeads() == grad.getNumKvHeads() &&
         fwd.getHeadDim() == grad.getHeadDim() &&
         fwd.getCausal() == grad.getCausal() &&
         fwd.getRotaryDim() == grad.getRotaryDim() &&
         fwd.getRotaryTheta() == grad.getRotaryTheta() &&
         fwd.getDropoutRate() == grad.getDropoutRate() &&
         fwd.getDropoutStream() == grad.getDropoutStream() &&
         fwd.getDocumentCausal() == grad.getDocumentCausal() &&
         sameData(fwd.getQ(), grad.getQ()) &&
         sameData(fwd.getK(), grad.getK()) &&
         sameData(fwd.getV(), grad.getV()) &&
         sameData(fwd.getPositions(), grad.getPositions());
}

/// Whether keeping `fwd`'s result for the backward costs memory the step
/// does not spend now: its readers only narrow it (an attention computing
/// on f32 copies of bf16 / f16 tensors, whose f32 result is otherwise
/// freed once rounded). Such a backward keeps recomputing the forward.
static bool onlyNarrowed(AttentionOp fwd) {
  return llvm::all_of(fwd.getResult().getUsers(),
                      [](Operation *user) { return isa<ConvertOp>(user); });
}

/// `fwd` with the `lse` result (itself if it has it already).
static AttentionOp withStats(AttentionOp fwd) {
  if (fwd.getLse())
    return fwd;
  OpBuilder b(fwd);
  auto op = b.create<AttentionOp>(
      fwd.getLoc(), fwd.getResult().getType(),
      attentionStatsType(fwd.getQ(), fwd.getNumHeads()), fwd.getQ(), fwd.getK(),
      fwd.getV(), fwd.getPositions(), fwd.getNumHeadsAttr(),
      fwd.getNumKvHeadsAttr(), fwd.getHeadDimAttr(), fwd.getCausalAttr(),
      fwd.getRotaryDimAttr(), fwd.getRotaryThetaAttr(),
      fwd.getDropoutRateAttr(), fwd.getDropoutStreamAttr(),
      fwd.getDocumentCausalAttr());
  op->setDiscardableAttrs(fwd->getDiscardableAttrDictionary());
  fwd.getResult().replaceAllUsesWith(op.getResult());
  fwd.erase();
  return op;
}

/// `grad` reading `fwd`'s result and statistics.
static void readSaved(AttentionGradOp grad, AttentionOp fwd) {
  OpBuilder b(grad);
  auto op = b.create<AttentionGradOp>(
      grad.getLoc(), grad->getResultTypes(), grad.getDout(), grad.getQ(),
      grad.getK(), grad.getV(), grad.getPositions(), fwd.getResult(),
      fwd.getLse(), grad.getNumHeadsAttr(), grad.getNumKvHeadsAttr(),
      grad.getHeadDimAttr(), grad.getCausalAttr(), grad.getRotaryDimAttr(),
      grad.getRotaryThetaAttr(), grad.getDropoutRateAttr(),
      grad.getDropoutStreamAttr(), grad.getDocumentCausalAttr());
  op->setDiscardableAttrs(grad->getDiscardableAttrDictionary());
  grad->replaceAllUsesWith(op->getResults());
  grad.erase();
}

namespace {
struct TfmSaveAttentionStatsPass
    : seqpar::tfm::impl::TfmSaveAttentionStatsPassBase<
          TfmSaveAttentionStatsPass> {
  void runOnOperation() override {
    SmallVector<AttentionGradOp> grads;
    SmallVector<AttentionOp> forwards;
    getOperation()->walk([&](Operation *op) {
      if (auto grad = dyn_cast<AttentionGradOp>(op)) {
        if (!grad.getOut())
          grads.push_back(grad);
      } else if (auto fwd = dyn_cast<AttentionOp>(op)) {
        if (!onlyNarrowed(fwd))
          forwards.push_back(fwd);
      }
    });
    DominanceInfo dominance(getOperation());
    for (AttentionGradOp grad : grads) {
      // The last one before it: a recomputed forward rather than the
      // forward whose result recompute chose not to keep.
      auto found = llvm::find_if(llvm::reverse(forwards), [&](AttentionOp fwd) {
        return isForwardOf(fwd, grad) &&
               dominance.properlyDominates(fwd.getOperation(),
                                           grad.getOperation());
      });
      if (found == llvm::reverse(forwards).end())
        continue;
      *found = withStats(*found); // a new op: the list holds it from now on
      readSaved(grad, *found);
    }
  }
};
} // namespace
