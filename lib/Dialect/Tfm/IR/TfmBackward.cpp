//===- TfmBackward.cpp - the backward rule of each tfm forward op ---------===//
//
// DifferentiableOpInterface for tfm's forward ops: each reads the gradient of
// its results from the BackwardContext (tfm-autodiff) and contributes the
// gradients of its operands, creating tfm's backward ops (TfmGradOps.td).
// Where a gradient's layout depends on the layouts of the forward values (a
// weight gradient summed over sequence shards is partial), the context
// gives the type. The dist collectives' transposes are in dist
// (DistBackward.cpp).
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

using namespace mlir;
using namespace seqpar::tfm;

BackwardContext::~BackwardContext() = default;

//===----------------------------------------------------------------------===//
// Shared rules
//===----------------------------------------------------------------------===//

/// y = f(x) elementwise: dx = GradOp(dy, x, attrs...), the op's own
/// attributes passed on (gelu's approximation).
template <typename GradOp, typename OpT, typename... Attrs>
static LogicalResult unaryBackward(OpT op, BackwardContext &ctx,
                                   Attrs... attrs) {
  ctx.contribute(op.getInput(), ctx.getBuilder().create<GradOp>(
                                    op.getLoc(), ctx.gradient(op.getResult()),
                                    op.getInput(), attrs...));
  return success();
}

/// y = f(a, b) elementwise, same types: the gradient of each operand is
/// `operandGrad(dy, operand, other)`, built for lhs then rhs.
template <typename OpT, typename Fn>
static LogicalResult binaryBackward(OpT op, BackwardContext &ctx,
                                    Fn operandGrad) {
  Value dy = ctx.gradient(op.getResult());
  ctx.contribute(op.getLhs(), operandGrad(dy, op.getLhs(), op.getRhs()));
  ctx.contribute(op.getRhs(), operandGrad(dy, op.getRhs(), op.getLhs()));
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult GeluOp::buildBackward(BackwardContext &ctx) {
  return unaryBackward<GeluGradOp>(*this, ctx, getApproximateAttr());
}

LogicalResult SiluOp::buildBackward(BackwardContext &ctx) {
  return unaryBackward<SiluGradOp>(*this, ctx);
}

LogicalResult ReluOp::buildBackward(BackwardContext &ctx) {
  return unaryBackward<ReluGradOp>(*this, ctx);
}

/// Each contribution goes back to the operand's element type as it is
/// (partial ones stay partial: a parameter's gradient is converted to f32
/// before sp-sync-grads reduces it), summed at the operand.
LogicalResult ConvertOp::buildBackward(BackwardContext &ctx) {
  Type element = getInput().getType().getElementType();
  for (Value dy : ctx.getContributions(getResult())) {
    auto dyType = cast<RankedTensorType>(dy.getType());
    auto type =
        RankedTensorType::get(dyType.getShape(), element, dyType.getEncoding());
    ctx.contribute(getInput(),
                   ctx.getBuilder().create<ConvertOp>(getLoc(), type, dy));
  }
  return success();
}

LogicalResult AddOp::buildBackward(BackwardContext &ctx) {
  return binaryBackward(*this, ctx, [](Value dy, Value, Value) { return dy; });
}

LogicalResult MulOp::buildBackward(BackwardContext &ctx) {
  return binaryBackward(*this, ctx, [&](Value dy, Value, Value other) {
    return ctx.getBuilder().create<MulOp>(getLoc(), dy, other).getResult();
  });
}

LogicalResult BiasAddOp::buildBackward(BackwardContext &ctx) {
  Value dy = ctx.gradient(getResult());
  ctx.contribute(getInput(), dy);
  ctx.contribute(getBias(), ctx.getBuilder().create<BiasGradOp>(
                                getLoc(),
                                ctx.partialOverTokens(getBias().getType(), dy,
                                                      getType().getRank() - 1),
                                dy));
  return success();
}

LogicalResult DropoutOp::buildBackward(BackwardContext &ctx) {
  // The same mask, regenerated from the counter-based generator.
  ctx.contribute(getInput(), ctx.getBuilder().create<DropoutOp>(
                                 getLoc(), ctx.gradient(getResult()),
                                 getRateAttr(), getStreamAttr()));
  return success();
}

//===----------------------------------------------------------------------===//
// GEMMs, norms, embedding
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::buildBackward(BackwardContext &ctx) {
  OpBuilder &b = ctx.getBuilder();
  Location loc = getLoc();
  Value dy = ctx.gradient(getResult());
  bool outIn = getWeightLayout() == WeightLayout::out_in;
  int64_t outDim = outIn ? 0 : 1;
  auto xType = cast<RankedTensorType>(getInput().getType());
  // Contracting over output features split across ranks: partial.
  ctx.contribute(getInput(),
                 b.create<LinearGradInputOp>(
                     loc, ctx.partialWhereSplit(xType, getWeight(), outDim), dy,
                     getWeight(), getWeightLayoutAttr()));
  int64_t last = xType.getRank() - 1;
  auto wType = cast<RankedTensorType>(getWeight().getType());
  // The input as the backward reads it: an all-gathered input is kept as
  // its shard and gathered again (Korthikanti et al. 2022, 4.2.2), as the
  // memory report says.
  Value x = ctx.reread(getInput());
  ctx.contribute(getWeight(), b.create<LinearGradWeightOp>(
                                  loc, ctx.partialOverTokens(wType, x, last), x,
                                  dy, getWeightLayoutAttr()));
  if (Value bias = getBias())
    ctx.contribute(
        bias, b.create<BiasGradOp>(
                  loc,
                  ctx.partialOverTokens(cast<RankedTensorType>(bias.getType()),
                                        dy, last),
                  dy));
  return success();
}

LogicalResult LayerNormOp::buildBackward(BackwardContext &ctx) {
  Value dy = ctx.gradient(getResult());
  int64_t last = getType().getRank() - 1;
  auto wType = ctx.partialOverTokens(getWeight().getType(), getInput(), last);
  auto grad = ctx.getBuilder().create<LayerNormGradOp>(
      getLoc(), TypeRange{ctx.gradType(getInput().getType()), wType, wType}, dy,
      getInput(), getWeight(), /*residual=*/Value(), getEpsAttr());
  ctx.contribute(getInput(), grad.getDx());
  ctx.contribute(getWeight(), grad.getDweight());
  if (getBias())
    ctx.contribute(getBias(), grad.getDbias());
  return success();
}

LogicalResult RmsNormOp::buildBackward(BackwardContext &ctx) {
  Value dy = ctx.gradient(getResult());
  auto wType = ctx.partialOverTokens(getWeight().getType(), getInput(),
                                     getType().getRank() - 1);
  auto grad = ctx.getBuilder().create<RmsNormGradOp>(
      getLoc(), TypeRange{ctx.gradType(getInput().getType()), wType}, dy,
      getInput(), getWeight(), /*residual=*/Value(), getEpsAttr());
  ctx.contribute(getInput(), grad.getDx());
  ctx.contribute(getWeight(), grad.getDweight());
  return success();
}

LogicalResult EmbeddingOp::buildBackward(BackwardContext &ctx) {
  Value dy = ctx.gradient(getResult());
  int64_t last = getType().getRank() - 1;
  ctx.contribute(getTable(),
                 ctx.getBuilder().create<EmbeddingGradOp>(
                     getLoc(),
                     ctx.partialOverTokens(getTable().getType(), dy, last),
                     getIds(), dy));
  return success();
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

LogicalResult QkvSplitOp::buildBackward(BackwardContext &ctx) {
  Value dq = ctx.gradientOrZeros(getQ()), dk = ctx.gradientOrZeros(getK()),
        dv = ctx.gradientOrZeros(getV());
  ctx.contribute(getInput(),
                 ctx.getBuilder().create<QkvConcatOp>(
                     getLoc(), ctx.gradType(getInput().getType()), dq, dk, dv,
                     getPackingAttr(), getNumHeadsAttr(), getNumKvHeadsAttr(),
                     getHeadDimAttr()));
  return success();
}

LogicalResult RepeatHeadsOp::buildBackward(BackwardContext &ctx) {
  ctx.contribute(getInput(), ctx.getBuilder().create<RepeatHeadsGradOp>(
                                 getLoc(), ctx.gradType(getInput().getType()),
                                 ctx.gradient(getResult()), getNumHeadsAttr(),
                                 getHeadDimAttr(), getFactorAttr()));
  return success();
}

LogicalResult AttentionOp::buildBackward(BackwardContext &ctx) {
  // Keys and values whole where the queries are split along the sequence
  // (context parallelism) get this rank's queries' contributions: partial.
  auto kvGrad = [&](Value kv) {
    return ctx.partialWhereSplit(ctx.gradType(kv.getType()), getQ(), 0);
  };
  // Position ids from tfm.position_ids are computed again (nothing to
  // keep); others are the forward's (kept, SavedForBackward).
  Value positions = getPositions();
  if (auto ids = dyn_cast_or_null<PositionIdsOp>(
          positions ? positions.getDefiningOp() : nullptr))
    positions = ctx.getBuilder().clone(*ids)->getResult(0);
  auto grad = ctx.getBuilder().create<AttentionGradOp>(
      getLoc(),
      TypeRange{ctx.gradType(getQ().getType()), kvGrad(getK()), kvGrad(getV())},
      // Keys, values and positions all-gathered over cp are kept as this
      // rank's part and gathered again here (BackwardContext::reread), so
      // the step keeps no whole-sequence tensor.
      ctx.gradient(getResult()), getQ(), ctx.reread(getK()), ctx.reread(getV()),
      positions ? ctx.reread(positions) : Value(), /*out=*/Value(),
      /*lse=*/Value(), getNumHeadsAttr(), getNumKvHeadsAttr(), getHeadDimAttr(),
      getCausalAttr(), getRotaryDimAttr(), getRotaryThetaAttr(),
      getDropoutRateAttr(), getDropoutStreamAttr(), getDocumentCausalAttr());
  ctx.contribute(getQ(), grad.getDq());
  ctx.contribute(getK(), grad.getDk());
  ctx.contribute(getV(), grad.getDv());
  return success();
}

//===----------------------------------------------------------------------===//
// Loss
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyOp::buildBackward(BackwardContext &ctx) {
  ctx.contribute(getLogits(),
                 ctx.getBuilder().create<CrossEntropyGradOp>(
                     getLoc(), ctx.gradType(getLogits().getType()), getLogits(),
                     getLabels(), ctx.gradient(getResult()), getCount(),
                     getIgnoreIndexAttr()));
  return success();
}

LogicalResult CrossEntropyFromStatsOp::buildBackward(BackwardContext &ctx) {
  auto grad = ctx.getBuilder().create<CrossEntropyFromStatsGradOp>(
      getLoc(),
      TypeRange{ctx.gradType(getSumexp().getType()),
                ctx.gradType(getLabelLogit().getType())},
      getSumexp(), getLabels(), ctx.gradient(getResult()), getCount(),
      getIgnoreIndexAttr());
  ctx.contribute(getSumexp(), grad.getDsumexp());
  ctx.contribute(getLabelLogit(), grad.getDlabelLogit());
  return success();
}

LogicalResult LogitsSumExpOp::buildBackward(BackwardContext &ctx) {
  ctx.contribute(getLogits(),
                 ctx.getBuilder().create<LogitsSumExpGradOp>(
                     getLoc(), ctx.gradType(getLogits().getType()), getLogits(),
                     getMax(), ctx.gradient(getResult())));
  return success();
}

LogicalResult LabelLogitOp::buildBackward(BackwardContext &ctx) {
  ctx.contribute(getLogits(),
                 ctx.getBuilder().create<LabelLogitGradOp>(
                     getLoc(), ctx.gradType(getLogits().getType()), getLabels(),
                     ctx.gradient(getResult()), getIgnoreIndexAttr()));
  return success();
}
