//===- FuseElementwise.cpp - elementwise chains (tfm-fuse-elementwise) ----===//
//
// Each tfm.dropout whose only use is a tfm.add becomes, with it, one
// tfm.dropout_add; SwiGLU's product silu(gate) * up one tfm.swiglu and its
// gradients one tfm.swiglu_grad; a residual sum (a tfm.add or the
// tfm.dropout_add just made) and the norm of it one tfm.add_layer_norm or
// add_rms_norm; a norm's backward absorbs the add of its input gradient
// into the residual stream's. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"
#include "seqpar/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

namespace seqpar::tfm {
#define GEN_PASS_DEF_TFMFUSEELEMENTWISEPASS
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

/// The operand of the binary `op` other than `v` (null if both are `v`).
static Value otherOperand(Operation *op, Value v) {
  Value a = op->getOperand(0), b = op->getOperand(1);
  if (a == b)
    return {};
  return a == v ? b : a;
}

/// The add `dropout` feeds alone, when the two fuse.
static AddOp fusableAdd(DropoutOp dropout) {
  if (!dropout->hasOneUse() || dropout.getType().getRank() > 3)
    return {};
  auto add = dyn_cast<AddOp>(*dropout->getUsers().begin());
  // An add of the dropout with itself keeps the dropout's tensor.
  if (!add || !otherOperand(add, dropout) ||
      add.getType() != dropout.getType() || !sameContext(add, dropout))
    return {};
  return add;
}

static void fuseDropoutAdd(OpBuilder &b, DropoutOp dropout, AddOp add) {
  Value residual = otherOperand(add, dropout);
  // At the add: the residual is defined before it, the dropout's input
  // before the dropout.
  b.setInsertionPoint(add);
  auto fused =
      b.create<DropoutAddOp>(add.getLoc(), dropout.getInput(), residual,
                             dropout.getRateAttr(), dropout.getStreamAttr());
  fused->setDiscardableAttrs(dropout->getDiscardableAttrDictionary());
  add.getResult().replaceAllUsesWith(fused.getResult());
  add.erase();
  dropout.erase();
}

namespace {
/// SwiGLU's backward: dgate = silu_grad(dy * up, gate), dup = dy * silu(gate).
struct SwigluGrad {
  SiluGradOp grad;
  MulOp dyUp, dySilu;
  Value dy, up;
  /// Where the fused op goes: the earlier of the two results.
  Operation *at;
};
} // namespace

/// The products around `grad` that fuse with it: its dy a product read by
/// it alone, and a product of the same dy with a SiLU of its input, in its
/// context, whose operands are all defined where the fused op goes (the
/// earlier of the two results).
static std::optional<SwigluGrad> fusableSwigluGrad(SiluGradOp grad,
                                                   DominanceInfo &dom) {
  auto dyUp = grad.getDy().getDefiningOp<MulOp>();
  if (!dyUp || !dyUp->hasOneUse() || !sameContext(dyUp, grad))
    return std::nullopt;
  for (Operation *user : grad.getInput().getUsers()) {
    auto silu = dyn_cast<SiluOp>(user);
    if (!silu)
      continue;
    for (Operation *siluUser : silu->getUsers()) {
      auto dySilu = dyn_cast<MulOp>(siluUser);
      Value dy = dySilu ? otherOperand(dySilu, silu) : Value();
      if (!dy || !sameContext(dySilu, grad))
        continue;
      Value up = otherOperand(dyUp, dy);
      Operation *at = dySilu->isBeforeInBlock(grad) ? dySilu : grad;
      if (up && (dy == dyUp.getLhs() || dy == dyUp.getRhs()) &&
          dom.properlyDominates(up, at) && dom.properlyDominates(dy, at))
        return SwigluGrad{grad, dyUp, dySilu, dy, up, at};
    }
  }
  return std::nullopt;
}

/// The three ops as one tfm.swiglu_grad at the earlier of its two results.
static void fuseSwigluGrad(OpBuilder &b, SwigluGrad g) {
  b.setInsertionPoint(g.at);
  auto fused = b.create<SwigluGradOp>(
      b.getFusedLoc({g.dyUp.getLoc(), g.grad.getLoc(), g.dySilu.getLoc()}),
      g.grad.getType(), g.grad.getType(), g.dy, g.grad.getInput(), g.up);
  fused->setDiscardableAttrs(g.grad->getDiscardableAttrDictionary());
  g.grad.getResult().replaceAllUsesWith(fused.getDgate());
  g.dySilu.getResult().replaceAllUsesWith(fused.getDup());
  g.grad.erase();
  g.dyUp.erase();
  g.dySilu.erase();
}

/// The product `silu` feeds alone, when the two fuse.
static MulOp fusableProduct(SiluOp silu) {
  if (!silu->hasOneUse())
    return {};
  auto mul = dyn_cast<MulOp>(*silu->getUsers().begin());
  return mul && otherOperand(mul, silu) && sameContext(mul, silu) ? mul
                                                                  : MulOp();
}

/// silu(gate) * up as one tfm.swiglu at the product.
static void fuseSwiglu(OpBuilder &b, SiluOp silu, MulOp mul) {
  b.setInsertionPoint(mul);
  auto fused = b.create<SwigluOp>(b.getFusedLoc({silu.getLoc(), mul.getLoc()}),
                                  mul.getType(), silu.getInput(),
                                  otherOperand(mul, silu));
  fused->setDiscardableAttrs(silu->getDiscardableAttrDictionary());
  mul.getResult().replaceAllUsesWith(fused.getResult());
  mul.erase();
  silu.erase();
}

/// The add summing a norm's input gradient, read by it alone, with another
/// gradient defined before the norm's backward (the residual stream's), in
/// the norm's backward's context (which may carry gradient tags on dw, db).
template <typename NormGradOp>
static AddOp fusableResidualAdd(NormGradOp grad, DominanceInfo &dom) {
  Value dx = grad.getDx();
  if (grad.getResidual() || !dx.hasOneUse())
    return {};
  auto add = dyn_cast<AddOp>(*dx.getUsers().begin());
  Value residual = add ? otherOperand(add, dx) : Value();
  // A tagged sum (a gradient contribution) keeps its add.
  if (!residual || add.getType() != dx.getType() ||
      getContributionTag(add->getResult(0)) ||
      add->getBlock() != grad->getBlock() ||
      contextOf(add) != contextOf(grad) ||
      !dom.properlyDominates(residual, grad))
    return {};
  return add;
}

/// The sum as the norm's backward's residual: its dx is the add's result.
template <typename NormGradOp>
static void fuseResidualAdd(NormGradOp grad, AddOp add) {
  grad.getResidualMutable().assign(otherOperand(add, grad.getDx()));
  grad->setLoc(
      FusedLoc::get(grad->getContext(), {grad.getLoc(), add.getLoc()}));
  add.getResult().replaceAllUsesWith(grad.getDx());
  add.erase();
}

template <typename NormGradOp>
static void fuseResidualAdds(Operation *root, DominanceInfo &dom) {
  SmallVector<std::pair<NormGradOp, AddOp>> pairs;
  root->walk([&](NormGradOp grad) {
    if (AddOp add = fusableResidualAdd(grad, dom))
      pairs.push_back({grad, add});
  });
  for (auto [grad, add] : pairs)
    fuseResidualAdd(grad, add);
}

/// Where the residual sum `add` (a tfm.add or tfm.dropout_add) and `norm`
/// (reading it) may become one op: at the add when the norm's weight and
/// bias are defined before it, else at the norm when nothing else reads the
/// sum before the norm; null where neither.
static Operation *addNormSite(Operation *add, Operation *norm,
                              DominanceInfo &dom) {
  if (!sameContext(add, norm) || getContributionTag(add->getResult(0)))
    return nullptr;
  if (llvm::all_of(norm->getOperands().drop_front(),
                   [&](Value v) { return dom.properlyDominates(v, add); }))
    return add;
  for (Operation *user : add->getUsers()) {
    Operation *at = norm->getBlock()->findAncestorOpInBlock(*user);
    if (user != norm && (!at || !norm->isBeforeInBlock(at)))
      return nullptr;
  }
  return norm;
}

/// The sum's operands and dropout: tfm.add's lhs and rhs, or
/// tfm.dropout_add's dropped input and residual with its rate and stream.
struct SumParts {
  Value lhs, rhs;
  FloatAttr dropout;
  IntegerAttr stream;
};

static SumParts sumParts(Operation *add) {
  if (auto d = dyn_cast<DropoutAddOp>(add))
    return {d.getInput(), d.getResidual(), d.getRateAttr(), d.getStreamAttr()};
  return {add->getOperand(0), add->getOperand(1), {}, {}};
}

/// The norms whose input is a residual sum (a tfm.add or tfm.dropout_add in
/// its context, not tagged as a gradient contribution), each with the sum,
/// as one tfm.add_layer_norm or add_rms_norm; a sum fuses with one norm.
static void fuseAddNorms(OpBuilder &b, Operation *root, DominanceInfo &dom) {
  SmallVector<std::tuple<Operation *, Operation *, Operation *>> fusions;
  llvm::SmallPtrSet<Operation *, 16> taken;
  root->walk([&](Operation *norm) {
    if (!isa<LayerNormOp, RmsNormOp>(norm))
      return;
    Operation *add = norm->getOperand(0).getDefiningOp();
    if (!isa_and_nonnull<AddOp, DropoutAddOp>(add) || taken.contains(add))
      return;
    if (Operation *at = addNormSite(add, norm, dom)) {
      taken.insert(add);
      fusions.push_back({add, norm, at});
    }
  });
  for (auto [add, norm, at] : fusions) {
    b.setInsertionPoint(at);
    Location loc = b.getFusedLoc({add->getLoc(), norm->getLoc()});
    Type t = add->getResult(0).getType();
    SumParts s = sumParts(add);
    Operation *fused;
    if (auto ln = dyn_cast<LayerNormOp>(norm))
      fused = b.create<AddLayerNormOp>(loc, t, t, s.lhs, s.rhs, ln.getWeight(),
                                       ln.getBias(), s.dropout, s.stream,
                                       ln.getEpsAttr());
    else
      fused = b.create<AddRmsNormOp>(
          loc, t, t, s.lhs, s.rhs, cast<RmsNormOp>(norm).getWeight(), s.dropout,
          s.stream, cast<RmsNormOp>(norm).getEpsAttr());
    fused->setDiscardableAttrs(add->getDiscardableAttrDictionary());
    norm->getResult(0).replaceAllUsesWith(fused->getResult(1));
    norm->erase();
    add->getResult(0).replaceAllUsesWith(fused->getResult(0));
    add->erase();
  }
}

namespace {
struct TfmFuseElementwisePass
    : tfm::impl::TfmFuseElementwisePassBase<TfmFuseElementwisePass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    SmallVector<std::pair<DropoutOp, AddOp>> pairs;
    getOperation().walk([&](DropoutOp dropout) {
      if (AddOp add = fusableAdd(dropout))
        pairs.push_back({dropout, add});
    });
    for (auto [dropout, add] : pairs)
      fuseDropoutAdd(b, dropout, add);

    // The backward first: once fused, it no longer reads the SiLU's output,
    // and the forward's SiLU is then read by its product alone.
    DominanceInfo dom(getOperation());
    SmallVector<SiluGradOp> grads;
    getOperation().walk([&](SiluGradOp grad) { grads.push_back(grad); });
    for (SiluGradOp grad : grads)
      if (std::optional<SwigluGrad> g = fusableSwigluGrad(grad, dom))
        fuseSwigluGrad(b, *g);
    SmallVector<std::pair<SiluOp, MulOp>> products;
    getOperation().walk([&](SiluOp silu) {
      if (MulOp mul = fusableProduct(silu))
        products.push_back({silu, mul});
    });
    for (auto [silu, mul] : products)
      fuseSwiglu(b, silu, mul);

    // The residual stream's sums with their norms.
    fuseAddNorms(b, getOperation(), dom);
    // The norms' backward with the residual stream's gradient.
    fuseResidualAdds<LayerNormGradOp>(getOperation(), dom);
    fuseResidualAdds<RmsNormGradOp>(getOperation(), dom);
  }
};
} // namespace
