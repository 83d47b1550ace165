//===- Partitioner.cpp - sp-partition's placement policy ------------------===//
//
// Walks the single-device forward function op by op and emits, for each op,
// its per-rank counterpart on local shapes, asking for each operand in the
// layout the op needs and inserting the collective that converts it
// (Korthikanti et al. 2022, figure 5):
//
//   residual stream   R (TP) or S(0) along the sequence (TP+SP)
//   column GEMM       input R (all_gather from S(0) under SP), weight split
//                     on outputs, result S(last)
//   row GEMM          input S(last), weight split on inputs, result P, then
//                     all_reduce (TP) or reduce_scatter along the sequence
//                     (SP), then the bias
//   embedding         vocab-parallel, P then all_reduce / reduce_scatter
//   LM head + loss    column-parallel over the vocabulary, vocab-parallel
//                     cross-entropy (max and sum-exp all-reduced)
//   context (cp)      every token-derived value S(0, zigzag) over cp; the
//                     keys, values and positions of attention all-gathered
//
// That placement policy is this file's (Partitioner, a PartitionContext);
// how each op is rewritten for it is the op's PartitionOpInterface (the tfm
// ops': TfmPartition.cpp). The pass around it (options, mesh): SpPartition.cpp.
//
//===----------------------------------------------------------------------===//

#include "Partitioner.h"

#include "seqpar/Dialect/Dist/Extensions/LayoutRules.h"
#include "seqpar/Dialect/Dist/IR/PartitionContext.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

namespace {
class Partitioner final : public PartitionContext {
public:
  Partitioner(ModuleOp module, MeshOp mesh, int64_t tp, int64_t dp, int64_t cp,
              bool sp, bool ring)
      : module(module), mesh(mesh), tp(tp), dp(dp), cp(cp), sp(sp), ring(ring),
        b(module.getContext()),
        meshSym(FlatSymbolRefAttr::get(mesh.getSymNameAttr())),
        tensorAxisName(*mesh.getAxisWithRole(AxisRole::tensor)),
        dataAxisName(mesh.getAxisWithRole(AxisRole::data).value_or("")),
        contextAxisName(mesh.getAxisWithRole(AxisRole::context).value_or("")) {
    for (ParamOp p : module.getOps<ParamOp>())
      decls[p.getSymNameAttr()] = p;
  }

  LogicalResult run(func::FuncOp func);

  // PartitionContext: the pass's state, then its placement policy.
  OpBuilder &builder() override { return b; }
  Value lookup(Value old) override { return mapped.lookup(old); }
  /// The new value of `old`, converted to `want` with a collective.
  Value get(Value old, Sharding want) override;
  Value convert(Value v, Sharding want, Location loc) override;
  /// This rank's shard of the parameter read by `old` (a tfm.get_param).
  FailureOr<Value> param(Value old, Sharding want) override;
  void map(Value old, Value v) override { mapped[old] = v; }
  using PartitionContext::map;
  /// Same op, operands converted to `want`, results of layout `want`.
  void cloneWith(Operation *op, Sharding want) override;

  /// The local type of a value of global type `global` that is `s` on tp
  /// and, if `batched`, split along the batch over dp (dp > 1) and along
  /// the sequence in zigzag over cp (cp > 1).
  RankedTensorType localType(RankedTensorType global, Sharding s,
                             bool batched) const override;
  RankedTensorType typeWith(Value oldValue, Sharding s) const override {
    return localType(cast<RankedTensorType>(oldValue.getType()), s,
                     isBatched(oldValue));
  }
  /// `global` split on `d` over tp in `blocks` blocks, or an error at `op`.
  LogicalResult divisible(Operation *op, int64_t global, int64_t blocks,
                          const Twine &what) override;

  int64_t tpSize() const override { return tp; }
  int64_t dpSize() const override { return dp; }
  int64_t cpSize() const override { return cp; }
  FlatSymbolRefAttr meshRef() const override { return meshSym; }
  StringRef tpAxis() const override { return tensorAxisName; }
  StringRef dpAxis() const override { return dataAxisName; }
  StringRef cpAxis() const override { return contextAxisName; }
  Value wholeSequence(Value v, Location loc) override;
  Value wholePositionIds(Value old) override;

  bool sequenceParallel() const override { return sp; }
  bool ringAttention() const override { return ring && cp > 1; }
  /// The layout of the residual stream: whole (TP) or sequence shards (SP).
  Sharding stream() const override {
    return sp && tp > 1 ? Sharding::split(0) : Sharding::replicated();
  }
  /// Activations split on their features or vocabulary (S(last)), or
  /// replicated when there is a single tp rank.
  Sharding features(int64_t last) const override {
    return tp > 1 ? Sharding::split(last) : Sharding::replicated();
  }
  /// Whether the result of a linear can stay split on its features: it feeds
  /// only ops that work on local heads / features / vocabulary.
  bool feedsSplitConsumers(Value v) override;
  /// How the column split of a fused projection's features is blocked.
  int64_t outputBlocks(Value v) override;
  RankedTensorType lossType(Value oldLoss) override;
  Value globalLabelCount(Value labels, int64_t ignoreIndex) override;
  Value replicaSum(Value loss) override;

private:
  /// Everything computed from the token ids is batched; parameters are not.
  static bool isBatched(Value oldValue) {
    return !oldValue.getDefiningOp<GetParamOp>() &&
           cast<RankedTensorType>(oldValue.getType()).getRank() >= 2;
  }
  Value emitConversion(Value v, Sharding have, Sharding want, Location loc);
  LogicalResult partitionOp(Operation *op);

  /// The sequence of the token arguments splits over cp (in 2 cp chunks)
  /// and, under SP, each cp rank's part over tp; or an error at `func`.
  LogicalResult checkSequence(func::FuncOp func, BlockArgument arg);

  ModuleOp module;
  MeshOp mesh;
  int64_t tp, dp, cp;
  bool sp, ring;
  OpBuilder b;
  FlatSymbolRefAttr meshSym;
  /// The mesh axes the partitioner places work on, found by their roles.
  StringRef tensorAxisName, dataAxisName, contextAxisName;
  DenseMap<Value, Value> mapped;
  /// (value, target layout) -> the converted value.
  DenseMap<std::pair<Value, Attribute>, Value> converted;
  /// "<parameter>|<sharding>" -> this rank's get_param of it.
  llvm::StringMap<Value> params;
  /// The module's parameters by name (one lookup each, not a scan).
  DenseMap<StringAttr, ParamOp> decls;
};
} // namespace

RankedTensorType Partitioner::localType(RankedTensorType global, Sharding s,
                                        bool batched) const {
  SmallVector<int64_t> shape(global.getShape());
  SmallVector<std::pair<StringRef, Sharding>> entries{{tensorAxisName, s}};
  if (s.isSplit())
    shape[s.dim] /= tp;
  if (batched && dp > 1) {
    shape[1] /= dp;
    entries.push_back({dataAxisName, Sharding::split(1)});
  }
  if (batched && cp > 1) {
    shape[0] /= cp;
    entries.push_back({contextAxisName, Sharding::zigzagSplit(0)});
  }
  LayoutAttr layout = LayoutAttr::get(b.getContext(), meshSym, entries);
  Attribute encoding = layout.getAxes().empty() ? Attribute() : layout;
  return RankedTensorType::get(shape, global.getElementType(), encoding);
}

LogicalResult Partitioner::divisible(Operation *op, int64_t global,
                                     int64_t blocks, const Twine &what) {
  // tp * blocks beyond int64 exceeds every dimension: it cannot divide one.
  std::optional<int64_t> parts = llvm::checkedMul<int64_t>(tp, blocks);
  if (parts && global % *parts == 0)
    return success();
  InFlightDiagnostic d = op->emitOpError() << "cannot split " << what << " ("
                                           << global << ") over tp = " << tp;
  if (blocks != 1)
    d << " in each of its " << blocks << " blocks";
  return d;
}

Value Partitioner::convert(Value v, Sharding want, Location loc) {
  Sharding have = shardingOf(v, tensorAxisName);
  if (have == want)
    return v;
  // Several users of one value (Llama's q/k/v projections of one norm
  // output) share one collective.
  Value &cached = converted[{
      v, LayoutAttr::get(b.getContext(), meshSym, {{tensorAxisName, want}})}];
  if (!cached)
    cached = emitConversion(v, have, want, loc);
  return cached;
}

Value Partitioner::emitConversion(Value v, Sharding have, Sharding want,
                                  Location loc) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  // Only the tp entry changes; the batch stays split over dp.
  auto make = [&](Sharding s) {
    LayoutAttr layout = LayoutAttr::ofType(t, meshSym).with(tensorAxisName, s);
    Attribute enc = layout.getAxes().empty() ? Attribute() : layout;
    return RankedTensorType::get(shape, t.getElementType(), enc);
  };
  StringAttr axis = b.getStringAttr(tensorAxisName);
  if (have.isSplit() && want.isReplicated()) {
    shape[have.dim] *= tp;
    return b.create<AllGatherOp>(loc, make(want), v, meshSym, axis,
                                 b.getI64IntegerAttr(have.dim));
  }
  if (have.isPartial() && want.isReplicated())
    return b.create<AllReduceOp>(
        loc, make(want), v, meshSym, axis,
        ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
  if (have.isPartial() && want.isSplit()) {
    shape[want.dim] /= tp;
    return b.create<ReduceScatterOp>(loc, make(want), v, meshSym, axis,
                                     b.getI64IntegerAttr(want.dim));
  }
  if (have.isReplicated() && want.isSplit()) {
    shape[want.dim] /= tp;
    return b.create<LocalSliceOp>(loc, make(want), v, meshSym, axis,
                                  b.getI64IntegerAttr(want.dim));
  }
  // S(a) -> S(b) goes through R: never needed by the rules above.
  return convert(convert(v, Sharding::replicated(), loc), want, loc);
}

Value Partitioner::get(Value old, Sharding want) {
  Value v = mapped.lookup(old);
  assert(v && "operand partitioned before its use");
  return convert(v, want, old.getLoc());
}

FailureOr<Value> Partitioner::param(Value old, Sharding want) {
  auto read = old.getDefiningOp<GetParamOp>();
  if (!read) // An activation used as a weight: convert like any value.
    return get(old, want);
  ParamOp decl = decls.lookup(read.getNameAttr().getAttr());
  auto global = cast<RankedTensorType>(decl.getType());
  LayoutAttr declared = LayoutAttr::fromType(global);
  Sharding have = declared ? declared.getSharding(tensorAxisName) : Sharding();
  if (declared && have != want) {
    // Already declared with another layout by an earlier user: convert.
    FailureOr<Value> first = param(old, have);
    if (failed(first))
      return failure();
    return convert(*first, want, read.getLoc());
  }
  Value &cached = params[(read.getName() + "|" + want.str()).str()];
  if (cached)
    return cached;
  if (want.isSplit() &&
      failed(
          divisible(read, global.getDimSize(want.dim), want.blocks,
                    "dimension " + Twine(want.dim) + " of @" + read.getName())))
    return failure();
  if (!declared && !want.isReplicated())
    decl.setType(RankedTensorType::get(
        global.getShape(), global.getElementType(),
        LayoutAttr::get(b.getContext(), meshSym, {{tensorAxisName, want}})));
  auto unsharded =
      RankedTensorType::get(global.getShape(), global.getElementType());
  cached = b.create<GetParamOp>(read.getLoc(),
                                localType(unsharded, want, /*batched=*/false),
                                read.getName());
  return cached;
}

Value Partitioner::wholeSequence(Value v, Location loc) {
  auto t = cast<RankedTensorType>(v.getType());
  if (cp == 1 || !typeSharding(v, contextAxisName).isZigzag())
    return v;
  LayoutAttr whole =
      LayoutAttr::ofType(t, meshSym).with(contextAxisName, Sharding());
  Value &cached = converted[{v, whole}];
  if (!cached) {
    SmallVector<int64_t> shape(t.getShape());
    shape[0] *= cp;
    Attribute enc = whole.getAxes().empty() ? Attribute() : whole;
    cached = b.create<AllGatherOp>(
        loc, RankedTensorType::get(shape, t.getElementType(), enc), v, meshSym,
        b.getStringAttr(contextAxisName), b.getI64IntegerAttr(0));
  }
  return cached;
}

Value Partitioner::wholePositionIds(Value old) {
  // Whole over tp; this rank's batch rows over dp; the whole sequence.
  RankedTensorType local = typeWith(old, Sharding::replicated());
  LayoutAttr whole = LayoutAttr::ofType(local, meshSym);
  if (cp > 1)
    whole = whole.with(contextAxisName, Sharding());
  SmallVector<int64_t> shape(local.getShape());
  shape[0] = cast<RankedTensorType>(old.getType()).getDimSize(0);
  Attribute enc = whole.getAxes().empty() ? Attribute() : whole;
  auto type = RankedTensorType::get(shape, local.getElementType(), enc);
  // The op's own new value when it already is that (no tp or cp split).
  if (auto it = mapped.find(old);
      it != mapped.end() && it->second.getType() == type)
    return it->second;
  Value &cached = converted[{old, whole}];
  if (!cached)
    cached = b.create<PositionIdsOp>(old.getLoc(), type);
  return cached;
}

bool Partitioner::feedsSplitConsumers(Value v) {
  return llvm::all_of(v.getUses(), [&](OpOperand &use) {
    auto user = dyn_cast<PartitionOpInterface>(use.getOwner());
    return user && user.worksOnSplitFeatures(use, *this);
  });
}

int64_t Partitioner::outputBlocks(Value v) {
  for (OpOperand &use : v.getUses())
    if (auto user = dyn_cast<PartitionOpInterface>(use.getOwner()))
      if (int64_t blocks = user.getSplitFeatureBlocks(use); blocks != 1)
        return blocks;
  return 1;
}

void Partitioner::cloneWith(Operation *op, Sharding want) {
  SmallVector<Value> operands;
  for (Value v : op->getOperands())
    operands.push_back(get(v, want));
  SmallVector<Type> types;
  for (Value r : op->getResults())
    types.push_back(typeWith(r, want));
  OperationState state(op->getLoc(), op->getName(), operands, types,
                       op->getAttrs());
  Operation *clone = b.create(state);
  for (auto [o, n] : llvm::zip(op->getResults(), clone->getResults()))
    mapped[o] = n;
}

RankedTensorType Partitioner::lossType(Value oldLoss) {
  // Each rank's share of the global mean: partial over dp and cp.
  SmallVector<std::pair<StringRef, Sharding>> entries;
  if (dp > 1)
    entries.push_back({dataAxisName, Sharding::partial()});
  if (cp > 1)
    entries.push_back({contextAxisName, Sharding::partial()});
  if (entries.empty())
    return cast<RankedTensorType>(oldLoss.getType());
  return RankedTensorType::get(
      {}, b.getF32Type(), LayoutAttr::get(b.getContext(), meshSym, entries));
}

/// `value` (partial over the axes that split the tokens, as lossType)
/// summed over cp, then dp.
static Value sumOverTokenAxes(OpBuilder &b, Value value, FlatSymbolRefAttr mesh,
                              ArrayRef<std::pair<int64_t, StringRef>> axes) {
  for (auto [n, axis] : axes) {
    if (n == 1)
      continue;
    LayoutAttr rest =
        LayoutAttr::ofType(value.getType(), mesh).with(axis, Sharding());
    value = b.create<AllReduceOp>(
        value.getLoc(),
        RankedTensorType::get({}, b.getF32Type(),
                              rest.getAxes().empty() ? Attribute() : rest),
        value, mesh, b.getStringAttr(axis),
        ReductionKindAttr::get(b.getContext(), ReductionKind::sum));
  }
  return value;
}

Value Partitioner::globalLabelCount(Value labels, int64_t ignoreIndex) {
  // Ignored labels may fall unevenly on the ranks: the loss divides by the
  // whole batch's count, so the ranks' shares sum to the one-device mean.
  if (cp == 1 && dp == 1)
    return Value();
  Value local = b.create<LabelCountOp>(labels.getLoc(), lossType(labels),
                                       labels, ignoreIndex);
  return sumOverTokenAxes(b, local, meshSym,
                          {{cp, contextAxisName}, {dp, dataAxisName}});
}

Value Partitioner::replicaSum(Value loss) {
  return sumOverTokenAxes(b, loss, meshSym,
                          {{cp, contextAxisName}, {dp, dataAxisName}});
}

LogicalResult Partitioner::partitionOp(Operation *op) {
  if (auto r = dyn_cast<func::ReturnOp>(op)) {
    SmallVector<Value> values;
    for (Value v : r.getOperands()) {
      // A parameter returned as it is read is read whole; parameter reads
      // are created on demand by their users, so it has no mapped value.
      FailureOr<Value> whole = param(v, Sharding::replicated());
      if (failed(whole))
        return failure();
      values.push_back(*whole);
    }
    b.create<func::ReturnOp>(r.getLoc(), values);
    return success();
  }
  if (auto partitionable = dyn_cast<PartitionOpInterface>(op))
    return partitionable.partition(*this);
  return op->emitOpError() << "is not supported by sp-partition";
}

LogicalResult Partitioner::checkSequence(func::FuncOp func, BlockArgument arg) {
  auto t = cast<RankedTensorType>(arg.getType());
  if (cp == 1)
    return success();
  int64_t s = t.getRank() >= 1 ? t.getDimSize(0) : 0;
  if (t.getRank() < 2 || s % (2 * cp) != 0)
    return func.emitOpError()
           << "cannot split the sequence of argument #" << arg.getArgNumber()
           << " (" << t << ", " << s << " tokens) over cp = " << cp
           << ": the zigzag split needs a multiple of 2 x cp = " << 2 * cp;
  if (sp && tp > 1 && (s / cp) % tp != 0)
    return func.emitOpError()
           << "cannot split the sequence of argument #" << arg.getArgNumber()
           << " (" << s << " tokens) over cp = " << cp
           << " and then, under sequence parallelism, each part (" << s / cp
           << " tokens) over tp = " << tp;
  return success();
}

LogicalResult Partitioner::run(func::FuncOp func) {
  Block &body = func.getBody().front();
  // Token ids and labels: whole on every tp rank, split by batch over dp
  // and by sequence over cp.
  for (BlockArgument arg : body.getArguments()) {
    auto t = cast<RankedTensorType>(arg.getType());
    if (dp > 1 && (t.getRank() < 2 || t.getDimSize(1) % dp != 0))
      return func.emitOpError()
             << "cannot split the batch of argument #" << arg.getArgNumber()
             << " (" << t << ") over dp = " << dp;
    if (failed(checkSequence(func, arg)))
      return failure();
    if (dp > 1 || cp > 1)
      arg.setType(localType(t, Sharding(), /*batched=*/true));
    mapped[arg] = arg;
  }
  func.setType(FunctionType::get(func.getContext(), body.getArgumentTypes(),
                                 func.getResultTypes()));
  SmallVector<Operation *> ops = llvm::map_to_vector(
      body.getOperations(), [](Operation &o) { return &o; });
  for (Operation *op : ops) {
    b.setInsertionPoint(op);
    if (failed(partitionOp(op)))
      return failure();
  }
  for (Operation *op : llvm::reverse(ops)) {
    op->dropAllUses();
    op->erase();
  }
  return success();
}

LogicalResult dist::partitionModule(ModuleOp module, MeshOp mesh,
                                    const PartitionDegrees &degrees) {
  Partitioner partitioner(module, mesh, degrees.tp, degrees.dp, degrees.cp,
                          degrees.sequenceParallel, degrees.ringAttention);
  for (auto func : llvm::to_vector(module.getOps<func::FuncOp>()))
    if (!func.isExternal() && failed(partitioner.run(func)))
      return failure();
  return success();
}
