//===- TfmPartition.cpp - sp-partition's rewrite of each tfm op -----------===//
//
// The PartitionOpInterface of the tfm ops, attached as external models: how
// each op is rewritten into its per-rank counterpart for the placement that
// sp-partition's policy (the PartitionContext) chooses. The rewrites ask the
// context for their operands in the layouts they need; the context inserts
// the collectives.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"
#include "seqpar/Dialect/Dist/Extensions/TfmModels.h"
#include "seqpar/Dialect/Dist/IR/PartitionContext.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

/// Parameter reads are created on demand by their users, in the layout each
/// needs (PartitionContext::param): nothing to emit here.
static LogicalResult partitionGetParam(PartitionContext &, GetParamOp) {
  return success();
}

static LogicalResult partitionPositionIds(PartitionContext &ctx,
                                          PositionIdsOp p) {
  // Read by attention only (rotary, the document mask): the whole sequence,
  // or with ring attention this rank's zigzag rows, whole over tp.
  if (!p->use_empty() && llvm::all_of(p->getUsers(), [](Operation *user) {
        return isa<AttentionOp>(user);
      })) {
    ctx.map(p,
            ctx.ringAttention()
                ? ctx.builder()
                      .create<PositionIdsOp>(
                          p.getLoc(), ctx.typeWith(p, Sharding::replicated()))
                      .getResult()
                : ctx.wholePositionIds(p));
    return success();
  }
  if (ctx.sequenceParallel() && ctx.tpSize() > 1 &&
      failed(ctx.divisible(p, p.getType().getDimSize(0), 1, "the sequence")))
    return failure();
  ctx.map(p, ctx.builder().create<PositionIdsOp>(
                 p.getLoc(), ctx.typeWith(p, ctx.stream())));
  return success();
}

static LogicalResult partitionEmbedding(PartitionContext &ctx, EmbeddingOp op) {
  OpBuilder &b = ctx.builder();
  // Position tables are small and indexed by position: replicated, looked up
  // with this rank's positions. Token tables are vocab-parallel.
  bool positional = isa_and_nonnull<PositionIdsOp>(op.getIds().getDefiningOp());
  if (positional || ctx.tpSize() == 1) {
    FailureOr<Value> table = ctx.param(op.getTable(), Sharding::replicated());
    if (failed(table))
      return failure();
    ctx.map(op,
            b.create<EmbeddingOp>(op.getLoc(), ctx.typeWith(op, ctx.stream()),
                                  ctx.get(op.getIds(), ctx.stream()), *table));
    return success();
  }
  if (ctx.sequenceParallel() && ctx.tpSize() > 1 &&
      failed(ctx.divisible(op, op.getType().getDimSize(0), 1, "the sequence")))
    return failure();
  FailureOr<Value> table = ctx.param(op.getTable(), Sharding::split(0));
  if (failed(table))
    return failure();
  Value partial = b.create<EmbeddingOp>(
      op.getLoc(), ctx.typeWith(op, Sharding::partial()),
      ctx.get(op.getIds(), Sharding::replicated()), *table);
  ctx.map(op, ctx.convert(partial, ctx.stream(), op.getLoc()));
  return success();
}

/// Norms (layer_norm, rms_norm): on the residual stream, with whole weights.
static LogicalResult partitionNorm(PartitionContext &ctx, Operation *n) {
  Value x = ctx.get(n->getOperand(0), ctx.stream());
  SmallVector<Value> operands{x};
  for (Value p : n->getOperands().drop_front()) {
    FailureOr<Value> v = ctx.param(p, Sharding::replicated());
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }
  OperationState state(n->getLoc(), n->getName(), operands,
                       TypeRange{x.getType()}, n->getAttrs());
  ctx.map(n->getResult(0), ctx.builder().create(state)->getResult(0));
  return success();
}

/// Unary elementwise ops: on whatever layout the input has (never partial:
/// a partial input is reduced into the residual stream first).
static LogicalResult partitionUnaryElementwise(PartitionContext &ctx,
                                               Operation *u) {
  Sharding s = shardingOf(ctx.lookup(u->getOperand(0)), ctx.tpAxis());
  ctx.cloneWith(u, s.isPartial() ? ctx.stream() : s);
  return success();
}

/// A conversion keeps its operand's layout, partial included.
static LogicalResult partitionConvert(PartitionContext &ctx, ConvertOp op) {
  ctx.cloneWith(op, shardingOf(ctx.lookup(op.getInput()), ctx.tpAxis()));
  return success();
}

/// Binary elementwise ops: on the operands' common layout, else both on the
/// residual stream.
static LogicalResult partitionBinaryElementwise(PartitionContext &ctx,
                                                Operation *e) {
  Sharding a = shardingOf(ctx.lookup(e->getOperand(0)), ctx.tpAxis());
  Sharding c = shardingOf(ctx.lookup(e->getOperand(1)), ctx.tpAxis());
  ctx.cloneWith(e, a == c && !a.isPartial() ? a : ctx.stream());
  return success();
}

static LogicalResult partitionLinear(PartitionContext &ctx, LinearOp op) {
  OpBuilder &b = ctx.builder();
  Value x = ctx.lookup(op.getInput());
  bool outIn = op.getWeightLayout() == WeightLayout::out_in;
  int64_t inDim = outIn ? 1 : 0, outDim = outIn ? 0 : 1;
  int64_t last = op.getType().getRank() - 1;
  Sharding sx = shardingOf(x, ctx.tpAxis());

  if (sx.isSplit() && sx.dim == last) {
    // Row-parallel: partial products, reduced into the residual stream.
    FailureOr<Value> w = ctx.param(op.getWeight(), Sharding::split(inDim));
    if (failed(w))
      return failure();
    Value y =
        b.create<LinearOp>(op.getLoc(), ctx.typeWith(op, Sharding::partial()),
                           x, *w, Value(), op.getWeightLayout());
    y = ctx.convert(y, ctx.stream(), op.getLoc());
    if (Value bias = op.getBias()) {
      FailureOr<Value> bv = ctx.param(bias, Sharding::replicated());
      if (failed(bv))
        return failure();
      y = b.create<BiasAddOp>(op.getLoc(), y, *bv);
    }
    ctx.map(op, y);
    return success();
  }

  Value input = ctx.get(op.getInput(), Sharding::replicated());
  if (ctx.tpSize() == 1 || !ctx.feedsSplitConsumers(op.getResult())) {
    FailureOr<Value> w = ctx.param(op.getWeight(), Sharding::replicated());
    FailureOr<Value> bias =
        ctx.optionalParam(op.getBias(), Sharding::replicated());
    if (failed(w) || failed(bias))
      return failure();
    ctx.map(op, b.create<LinearOp>(op.getLoc(),
                                   ctx.typeWith(op, Sharding::replicated()),
                                   input, *w, *bias, op.getWeightLayout()));
    return success();
  }
  // Column-parallel.
  int64_t blocks = ctx.outputBlocks(op.getResult());
  if (failed(ctx.divisible(op, op.getOutFeatures(), blocks, "output features")))
    return failure();
  FailureOr<Value> w =
      ctx.param(op.getWeight(), Sharding::split(outDim, blocks));
  FailureOr<Value> bias =
      ctx.optionalParam(op.getBias(), Sharding::split(0, blocks));
  if (failed(w) || failed(bias))
    return failure();
  ctx.map(op, b.create<LinearOp>(
                  op.getLoc(), ctx.typeWith(op, Sharding::split(last, blocks)),
                  input, *w, *bias, op.getWeightLayout()));
  return success();
}

static LogicalResult partitionQkvSplit(PartitionContext &ctx, QkvSplitOp op) {
  Value x = ctx.lookup(op.getInput());
  Sharding sx = shardingOf(x, ctx.tpAxis());
  if (!sx.isSplit()) {
    ctx.cloneWith(op, sx);
    return success();
  }
  int64_t tp = ctx.tpSize();
  if (op.getNumHeads() % tp != 0 || op.getNumKvHeads() % tp != 0)
    return op.emitOpError()
           << "cannot split " << op.getNumHeads() << " heads and "
           << op.getNumKvHeads()
           << " kv heads of a fused projection over tp = " << tp;
  Sharding out = Sharding::split(sx.dim);
  auto split = ctx.builder().create<QkvSplitOp>(
      op.getLoc(),
      TypeRange{ctx.typeWith(op.getQ(), out), ctx.typeWith(op.getK(), out),
                ctx.typeWith(op.getV(), out)},
      x, op.getPacking(), op.getNumHeads() / tp, op.getNumKvHeads() / tp,
      op.getHeadDim());
  ctx.map(op.getResults(), split.getResults());
  return success();
}

/// Context parallelism's ring variant: q, k, v and positions stay this
/// rank's zigzag parts and dist.ring_attention moves the K/V blocks; its
/// lse [s, b, heads] is typed like the heads (split as q's) of a
/// token-derived value.
static LogicalResult partitionRingAttention(PartitionContext &ctx,
                                            AttentionOp op, Value q, Value k,
                                            Value v, Sharding heads2) {
  OpBuilder &b = ctx.builder();
  int64_t tp = ctx.tpSize(), kv = op.getNumKvHeads();
  Value positions;
  if (Value old = op.getPositions())
    positions = ctx.get(old, Sharding::replicated());
  RankedTensorType oldQ = op.getQ().getType();
  auto lseGlobal = RankedTensorType::get(
      {oldQ.getDimSize(0), oldQ.getDimSize(1), int64_t(op.getNumHeads())},
      b.getF32Type());
  auto ring = b.create<RingAttentionOp>(
      op.getLoc(),
      TypeRange{ctx.typeWith(op.getResult(), heads2),
                ctx.localType(lseGlobal, heads2, /*batched=*/true)},
      q, k, v, positions, ctx.meshRef(), b.getStringAttr(ctx.cpAxis()),
      b.getI64IntegerAttr(int64_t(op.getNumHeads()) / tp),
      b.getI64IntegerAttr(kv % tp == 0 ? kv / tp : 1), op.getHeadDimAttr(),
      op.getCausalAttr(), op.getRotaryDimAttr(), op.getRotaryThetaAttr(),
      op.getDropoutRateAttr(), op.getDropoutStreamAttr(),
      op.getDocumentCausalAttr());
  ctx.map(op.getResult(), ring.getResult());
  return success();
}

static LogicalResult partitionAttention(PartitionContext &ctx, AttentionOp op) {
  OpBuilder &b = ctx.builder();
  int64_t tp = ctx.tpSize();
  int64_t heads = op.getNumHeads(), kv = op.getNumKvHeads();
  if (op.getLse())
    return op.emitOpError()
           << "keeps its statistics (lse): "
           << "tfm-save-attention-stats runs after sp-partition";
  if (heads % tp != 0)
    return op.emitOpError()
           << "cannot split " << heads << " attention heads over tp = " << tp;
  if (kv % tp != 0 && tp % kv != 0)
    return op.emitOpError()
           << "cannot place " << kv << " kv heads on tp = " << tp
           << " ranks: tp must divide the kv heads or be a multiple of them";
  Sharding heads2 = ctx.features(2);
  Value q = ctx.get(op.getQ(), heads2);
  auto kvShard = [&](Value old) -> Value {
    if (kv % tp == 0)
      return ctx.get(old, heads2);
    // (tp > 1 here: tp = 1 divides every kv count.)
    // Fewer kv heads than ranks: every rank computed all kv heads; repeat
    // each tp / kv times and keep this rank's one. The repeat keeps the
    // layout on the other axes (the batch split over dp).
    Value whole = ctx.get(old, Sharding::replicated());
    auto t = cast<RankedTensorType>(whole.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape.back() *= tp / kv;
    Value repeated = b.create<RepeatHeadsOp>(
        op.getLoc(),
        RankedTensorType::get(shape, t.getElementType(), t.getEncoding()),
        whole, kv, op.getHeadDim(), tp / kv);
    return ctx.convert(repeated, heads2, op.getLoc());
  };
  if (ctx.ringAttention())
    return partitionRingAttention(ctx, op, q, kvShard(op.getK()),
                                  kvShard(op.getV()), heads2);
  // Context parallelism: the queries stay this rank's part of the
  // sequence; the keys and values (kv heads only) are all-gathered whole,
  // and so are the positions (those of tfm.position_ids are computed whole
  // where needed instead: no collective).
  Value k = ctx.wholeSequence(kvShard(op.getK()), op.getLoc()),
        v = ctx.wholeSequence(kvShard(op.getV()), op.getLoc());
  Value positions;
  if (Value old = op.getPositions())
    positions = isa_and_nonnull<PositionIdsOp>(old.getDefiningOp())
                    ? ctx.wholePositionIds(old)
                    : ctx.wholeSequence(ctx.get(old, Sharding::replicated()),
                                        op.getLoc());
  auto attn = b.create<AttentionOp>(
      op.getLoc(), ctx.typeWith(op.getResult(), heads2), /*lse=*/Type(), q, k,
      v, positions, heads / tp, kv % tp == 0 ? kv / tp : 1, op.getHeadDim(),
      op.getCausal(), op.getRotaryDim(), op.getRotaryTheta(),
      op.getDropoutRate(), op.getDropoutStream(), op.getDocumentCausal());
  ctx.map(op.getResult(), attn.getResult());
  return success();
}

static LogicalResult partitionCrossEntropy(PartitionContext &ctx,
                                           CrossEntropyOp op) {
  OpBuilder &b = ctx.builder();
  Value logits = ctx.lookup(op.getLogits());
  Value labels = ctx.get(op.getLabels(), Sharding::replicated());
  int64_t last = op.getLogits().getType().getRank() - 1;
  // Tokens split over dp / cp: every rank divides its sum by the global
  // count of non-ignored labels, and the shares are summed.
  Value count = ctx.globalLabelCount(labels, op.getIgnoreIndex());
  if (shardingOf(logits, ctx.tpAxis()) != Sharding::split(last)) {
    ctx.map(op, ctx.replicaSum(b.create<CrossEntropyOp>(
                    op.getLoc(), ctx.lossType(op),
                    ctx.get(op.getLogits(), Sharding()), labels, count,
                    op.getIgnoreIndexAttr())));
    return success();
  }
  // Megatron's vocab-parallel cross-entropy: full logits are never gathered.
  Location loc = op.getLoc();
  auto perToken = [&](Sharding s) {
    auto l = cast<RankedTensorType>(op.getLogits().getType());
    return ctx.localType(
        RankedTensorType::get(l.getShape().drop_back(), b.getF32Type()), s,
        /*batched=*/true);
  };
  StringAttr axis = b.getStringAttr(ctx.tpAxis());
  Value localMax =
      b.create<LogitsMaxOp>(loc, perToken(Sharding::partial()), logits);
  Value max = b.create<AllReduceOp>(
      loc, perToken(Sharding()), localMax, ctx.meshRef(), axis,
      ReductionKindAttr::get(b.getContext(), ReductionKind::max));
  Value sumExp =
      b.create<LogitsSumExpOp>(loc, perToken(Sharding::partial()), logits, max);
  sumExp = ctx.convert(sumExp, Sharding(), loc);
  Value target =
      b.create<LabelLogitOp>(loc, perToken(Sharding::partial()), logits, labels,
                             op.getIgnoreIndexAttr());
  target = ctx.convert(target, Sharding(), loc);
  ctx.map(op, ctx.replicaSum(b.create<CrossEntropyFromStatsOp>(
                  loc, ctx.lossType(op), max, sumExp, target, labels, count,
                  op.getIgnoreIndexAttr())));
  return success();
}

namespace {
/// The rewrite of `OpT` is `Fn(PartitionContext &, OpT)` (or
/// `Fn(PartitionContext &, Operation *)` for one shared by several ops).
/// `SplitFeatures`: whether the op works on its operands split on their
/// last dimension (a GEMM feeding it may be column-parallel).
template <typename OpT, auto Fn, bool SplitFeatures = false>
struct PartitionModel : PartitionOpInterface::ExternalModel<
                            PartitionModel<OpT, Fn, SplitFeatures>, OpT> {
  LogicalResult partition(Operation *op, PartitionContext &ctx) const {
    return Fn(ctx, cast<OpT>(op));
  }
  bool worksOnSplitFeatures(Operation *, OpOperand &,
                            PartitionContext &) const {
    return SplitFeatures;
  }
};

/// qkv_split works on local heads; a "blocks" packing needs its input's
/// features split in three blocks (each rank's part of q, k and v).
struct QkvSplitPartitionModel
    : PartitionOpInterface::ExternalModel<QkvSplitPartitionModel, QkvSplitOp> {
  LogicalResult partition(Operation *op, PartitionContext &ctx) const {
    return partitionQkvSplit(ctx, cast<QkvSplitOp>(op));
  }
  bool worksOnSplitFeatures(Operation *, OpOperand &,
                            PartitionContext &) const {
    return true;
  }
  int64_t getSplitFeatureBlocks(Operation *op, OpOperand &) const {
    return cast<QkvSplitOp>(op).getPacking() == QkvPacking::blocks ? 3 : 1;
  }
};

/// Attention works on local heads: the queries always, the keys and values
/// when tp divides the kv heads (else they are repeated from whole ones).
struct AttentionPartitionModel
    : PartitionOpInterface::ExternalModel<AttentionPartitionModel,
                                          AttentionOp> {
  LogicalResult partition(Operation *op, PartitionContext &ctx) const {
    return partitionAttention(ctx, cast<AttentionOp>(op));
  }
  bool worksOnSplitFeatures(Operation *op, OpOperand &operand,
                            PartitionContext &ctx) const {
    auto attn = cast<AttentionOp>(op);
    return operand.get() == attn.getQ() ||
           attn.getNumKvHeads() % ctx.tpSize() == 0;
  }
};

/// Attaches the rewrite `Fn` to each of `OpTs`.
template <auto Fn, bool SplitFeatures, typename... OpTs>
void attachPartition(MLIRContext *ctx) {
  (OpTs::template attachInterface<PartitionModel<OpTs, Fn, SplitFeatures>>(
       *ctx),
   ...);
}
} // namespace

void dist::registerTfmPartitionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, TfmDialect *) {
    attachPartition<partitionGetParam, false, GetParamOp>(ctx);
    attachPartition<partitionPositionIds, false, PositionIdsOp>(ctx);
    attachPartition<partitionEmbedding, false, EmbeddingOp>(ctx);
    attachPartition<partitionNorm, false, LayerNormOp, RmsNormOp>(ctx);
    // Dropout would work on split features (its mask is keyed by global
    // index) but is not declared to: a GEMM feeding it stays whole, as before
    // the interface (it only follows row-parallel GEMMs in imported models).
    attachPartition<partitionUnaryElementwise, false, DropoutOp>(ctx);
    // A new nonlinearity (tfm.relu) is one more name here.
    attachPartition<partitionUnaryElementwise, true, GeluOp, SiluOp>(ctx);
    attachPartition<partitionUnaryElementwise, true, ReluOp>(ctx);
    attachPartition<partitionConvert, false, ConvertOp>(ctx);
    // The residual add works on the stream; the SwiGLU product on the split
    // features of its two column-parallel GEMMs.
    attachPartition<partitionBinaryElementwise, false, AddOp>(ctx);
    attachPartition<partitionBinaryElementwise, true, MulOp>(ctx);
    attachPartition<partitionLinear, false, LinearOp>(ctx);
    QkvSplitOp::attachInterface<QkvSplitPartitionModel>(*ctx);
    AttentionOp::attachInterface<AttentionPartitionModel>(*ctx);
    // The loss is vocab-parallel on split logits.
    attachPartition<partitionCrossEntropy, true, CrossEntropyOp>(ctx);
  });
}
