//===- SpMicroBatches.cpp - gradient accumulation over micro-batches ------===//
//
// The train step of one micro-batch becomes a step over M: its ids and
// labels become [M, s, b] and the loss and gradients are summed over the
// micro-batches. One step becomes a tfm.micro_batch_loop whose body is one
// copy of its forward and backward (IR and compile time independent of M),
// optionally with the last micro-batch peeled after it; on pipeline stage k
// of P the loop's backward part lags its forward part by min(P-1-k, M)
// micro-batches (the 1F1B order). See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPMICROBATCHESPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;
using namespace seqpar::tfm;

/// The most sequences one step reads (micro-batches x global batch).
static constexpr int64_t kMaxStepSequences = int64_t(1) << 20;

/// `type` ([s, b], a token tensor) with a leading micro-batch dimension of
/// M: the same layout, every split one dimension higher.
static RankedTensorType withMicroBatches(RankedTensorType type, int64_t m) {
  SmallVector<int64_t> shape{m};
  llvm::append_range(shape, type.getShape());
  LayoutAttr layout = LayoutAttr::fromType(type);
  if (!layout)
    return RankedTensorType::get(shape, type.getElementType());
  SmallVector<std::pair<StringRef, Sharding>> entries;
  for (auto [i, axis] : llvm::enumerate(layout.getAxes())) {
    Sharding s = layout.getSharding(i);
    if (s.isSplit())
      ++s.dim;
    entries.push_back({axis.getValue(), s});
  }
  return RankedTensorType::get(
      shape, type.getElementType(),
      LayoutAttr::get(type.getContext(), layout.getMesh(), entries));
}

/// Whether `op` is micro-batch i's own: it reads a micro-batch's data, or
/// (position ids, the seed of the backward) stands for one.
static bool perMicroBatch(Operation *op, const DenseSet<Value> &perBatch) {
  // A pipeline stage's point-to-point traffic is one micro-batch's (a recv
  // reads nothing, a send of zeros nothing per micro-batch).
  if (isa<PositionIdsOp, SendOp, RecvOp>(op) ||
      op->hasAttr(TfmDialect::BackwardBeginsAttrHelper::getNameStr()))
    return true;
  return llvm::any_of(op->getOperands(),
                      [&](Value v) { return perBatch.contains(v); });
}

/// Gives each cross-entropy (and its gradient) that divides by its own
/// token count the step's count instead, `tfm.label_count` of the whole
/// labels argument: one-device IR and unsplit labels have none, and the
/// micro-batches' own means would not sum to the step's mean.
static LogicalResult countWholeStep(func::FuncOp func) {
  DenseMap<std::pair<Value, int64_t>, Value> counts;
  OpBuilder b(&func.getBody().front(), func.getBody().front().begin());
  auto give = [&](Operation *op, Value labels, int64_t ignoreIndex,
                  MutableOperandRange count) -> LogicalResult {
    if (!count.empty())
      return success();
    if (!isa<BlockArgument>(labels))
      return op->emitOpError()
             << "sp-micro-batches: the labels of a cross-entropy without a "
                "count must be the step's labels argument, to count the "
                "step's tokens";
    if (LayoutAttr layout = LayoutAttr::fromType(labels.getType());
        layout && !layout.getAxes().empty())
      return op->emitOpError()
             << "sp-micro-batches: a cross-entropy of labels split over the "
                "mesh needs the global count sp-partition gives it";
    Value &n = counts[{labels, ignoreIndex}];
    if (!n)
      n = b.create<LabelCountOp>(op->getLoc(),
                                 RankedTensorType::get({}, b.getF32Type()),
                                 labels, b.getI64IntegerAttr(ignoreIndex));
    count.append(n);
    return success();
  };
  WalkResult r = func.walk([&](Operation *op) {
    LogicalResult ok =
        TypeSwitch<Operation *, LogicalResult>(op)
            .Case<CrossEntropyOp, CrossEntropyFromStatsOp, CrossEntropyGradOp,
                  CrossEntropyFromStatsGradOp>([&](auto ce) {
              return give(ce, ce.getLabels(), ce.getIgnoreIndex(),
                          ce.getCountMutable());
            })
            .Default([](Operation *) { return success(); });
    return failed(ok) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// Whether result `v` of a pipeline stage is a zero that does not depend on
/// the micro-batch (the zero loss of a stage before the last): the sum of
/// its micro-batches' copies is itself.
static bool isStageZero(func::FuncOp func, Value v) {
  auto fill = v.getDefiningOp<FillOp>();
  return TfmDialect::getPipelineStages(func) > 1 && fill && !fill.getTimes() &&
         fill.getValue().isZero();
}

/// The step's per-micro-batch ops (in order) after the checks every form
/// shares; the arguments become [M, s, b] (their [s, b] types in
/// `oneBatch`).
static LogicalResult prepare(func::FuncOp func, int64_t m,
                             SmallVectorImpl<Operation *> &cloned,
                             DenseSet<Value> &perBatch,
                             SmallVectorImpl<Type> &oneBatch) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError() << "sp-micro-batches: the train step must be "
                                 "one block";
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  StringRef order = "sp-micro-batches runs before sp-sync-grads and "
                    "sp-optimizer: the step's gradients are summed over its "
                    "micro-batches before they are reduced and applied";
  if (func->hasAttr(TfmDialect::OptimizerAttrHelper::getNameStr()) ||
      func->hasAttr(TfmDialect::ZeroAttrHelper::getNameStr()))
    return func.emitOpError() << order;
  for (Operation &op : body) {
    if (isa<ParamUpdateOpInterface>(op))
      return op.emitOpError() << order;
    if (isa<MicroBatchLoopOp>(op))
      return op.emitOpError() << "sp-micro-batches: the step loops over its "
                                 "micro-batches already";
    if (op.hasAttr(TfmDialect::InMicroBatchAttrHelper::getNameStr()))
      return op.emitOpError() << "sp-micro-batches: the step is unrolled "
                                 "already (the op carries "
                                 "'tfm.in_micro_batch')";
  }
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type || type.getRank() != 2 || !type.getElementType().isInteger(64))
      return func.emitOpError()
             << "sp-micro-batches: argument #" << arg.getArgNumber()
             << " must be [s, b] i64 token ids or labels, got "
             << arg.getType();
  }
  for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
    bool grad =
        bool(func.getResultAttr(i, TfmDialect::GradOfAttrHelper::getNameStr()));
    auto type = cast<RankedTensorType>(ret.getOperand(i).getType());
    if (!grad && !(i == 0 && type.getRank() == 0))
      return func.emitOpError()
             << "sp-micro-batches: result #" << i
             << " is neither the loss (result #0, a scalar) nor a parameter "
                "gradient (tfm.grad_of); it cannot be summed over "
                "micro-batches";
  }

  if (failed(countWholeStep(func)))
    return failure();
  // Which ops are one micro-batch's; the label counts of the arguments
  // count the whole step's labels instead.
  perBatch.insert(func.getArguments().begin(), func.getArguments().end());
  for (Operation &op : body.without_terminator()) {
    if (auto count = dyn_cast<LabelCountOp>(op);
        count && isa<BlockArgument>(count.getLabels()))
      continue;
    if (!perMicroBatch(&op, perBatch))
      continue;
    cloned.push_back(&op);
    perBatch.insert(op.getResults().begin(), op.getResults().end());
  }
  for (auto [i, v] : llvm::enumerate(ret.getOperands()))
    if (!perBatch.contains(v) && !isStageZero(func, v))
      return func.emitOpError()
             << "sp-micro-batches: result #" << i
             << " does not depend on the micro-batch; it cannot be summed "
                "over micro-batches";

  // [M, s, b] arguments; the label counts read them whole.
  oneBatch.assign(func.getArgumentTypes().begin(),
                  func.getArgumentTypes().end());
  for (BlockArgument arg : func.getArguments())
    arg.setType(withMicroBatches(cast<RankedTensorType>(arg.getType()), m));
  return success();
}

/// The step of one micro-batch becomes the body of a tfm.micro_batch_loop
/// over M: one copy whatever M. With `peelLast` the loop runs M - 1 of
/// them and a second copy, micro-batch M - 1, follows it in straight-line
/// code, adding each of its values to the loop's sum where it is computed.
/// A `lag` w > 0 runs each backward w micro-batches after its forward (the
/// 1F1B order of a pipeline stage with w warm-up forwards).
static LogicalResult buildLoop(func::FuncOp func, int64_t m, bool peelLast,
                               int64_t lag) {
  SmallVector<Operation *> cloned;
  DenseSet<Value> perBatch;
  SmallVector<Type> oneBatch;
  if (failed(prepare(func, m, cloned, perBatch, oneBatch)))
    return failure();
  Block &body = func.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  // What the loop sums: each per-micro-batch value returned, once.
  SmallVector<Value> summed;
  for (Value v : ret.getOperands())
    if (perBatch.contains(v) && !llvm::is_contained(summed, v))
      summed.push_back(v);
  OpBuilder b(ret);
  auto loop = b.create<MicroBatchLoopOp>(
      func.getLoc(), ValueRange(summed).getTypes(), func.getArguments());
  if (peelLast)
    loop.setCountAttr(b.getI64IntegerAttr(m - 1));
  if (lag > 0)
    loop.setLagAttr(b.getI64IntegerAttr(lag));
  Block *inner = b.createBlock(&loop.getBody());
  IRMapping map;
  for (auto [arg, type] : llvm::zip(func.getArguments(), oneBatch))
    map.map(arg, inner->addArgument(type, arg.getLoc()));
  for (Operation *op : cloned)
    b.clone(*op, map);
  SmallVector<Value> yielded;
  for (Value v : summed)
    yielded.push_back(map.lookup(v));
  b.create<YieldOp>(ret.getLoc(), yielded);
  SmallVector<Value> sums(loop.getResults());
  if (peelLast) {
    // Micro-batch M - 1, after the loop.
    b.setInsertionPoint(ret);
    IntegerAttr last = b.getI64IntegerAttr(m - 1);
    auto mark = [&](Operation *op) {
      op->setAttr(TfmDialect::InMicroBatchAttrHelper::getNameStr(), last);
    };
    IRMapping peeled;
    for (auto [arg, type] : llvm::zip(func.getArguments(), oneBatch)) {
      auto part = b.create<MicroBatchOp>(arg.getLoc(), type, arg, last);
      mark(part);
      peeled.map(arg, part.getResult());
    }
    for (Operation *op : cloned)
      mark(b.clone(*op, peeled));
    // Each sum right after its last term: the loop's sum of micro-batches
    // 0 to M - 2 plus M - 1's, the order of the loop's (and an unrolled
    // step's) adds. A gradient's sum is then complete where its last
    // contribution is, not at the end of the backward.
    for (auto [k, v] : llvm::enumerate(summed)) {
      Value mine = peeled.lookup(v);
      OpBuilder at(mine.getDefiningOp()->getBlock(),
                   ++Block::iterator(mine.getDefiningOp()));
      auto add = at.create<AddOp>(v.getLoc(), loop.getResult(k), mine);
      mark(add);
      sums[k] = add.getResult();
    }
  }
  for (OpOperand &o : ret->getOpOperands())
    if (const auto *at = llvm::find(summed, o.get()); at != summed.end())
      o.set(sums[at - summed.begin()]);
  for (Operation *op : llvm::reverse(cloned))
    op->erase();
  func->setAttr(TfmDialect::MicroBatchesAttrHelper::getNameStr(),
                b.getI64IntegerAttr(m));
  func.setType(FunctionType::get(func.getContext(), body.getArgumentTypes(),
                                 ret.getOperandTypes()));
  return success();
}

/// The global batch (sequences) of the step's [s, b] token ids: the local
/// dimension 1 times the ranks splitting it.
static int64_t globalBatch(func::FuncOp func) {
  auto type = dyn_cast<RankedTensorType>(func.getArgumentTypes().front());
  if (!type || type.getRank() != 2)
    return 1;
  int64_t b = type.getDimSize(1);
  LayoutAttr layout = LayoutAttr::fromType(type);
  FailureOr<MeshOp> mesh = getMesh(func->getParentOfType<ModuleOp>());
  if (!layout || failed(mesh) || !*mesh)
    return b;
  for (auto [i, axis] : llvm::enumerate(layout.getAxes()))
    if (Sharding s = layout.getSharding(i); s.isSplit() && s.dim == 1)
      b *= mesh->getAxisSize(axis.getValue()).value_or(1);
  return b;
}

/// M is bounded by what a step can read: M micro-batches of the imported
/// batch are at most kMaxStepSequences sequences.
static LogicalResult checkBound(func::FuncOp func, int64_t m) {
  int64_t batch = globalBatch(func);
  if (m > kMaxStepSequences / batch)
    return func.emitOpError()
           << "sp-micro-batches: micro-batches=" << m << " is over the bound "
           << kMaxStepSequences / batch << ": " << m
           << " micro-batches of a batch of " << batch
           << " sequences is more than " << kMaxStepSequences
           << " sequences (2^20) per step, far above the largest global "
              "batches trained";
  return success();
}

namespace {
struct SpMicroBatchesPass
    : dist::impl::SpMicroBatchesPassBase<SpMicroBatchesPass> {
  using SpMicroBatchesPassBase::SpMicroBatchesPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (microBatches < 1) {
      module.emitError() << "sp-micro-batches: micro-batches must be >= 1, got "
                         << static_cast<int64_t>(microBatches);
      return signalPassFailure();
    }
    FailureOr<SmallVector<Operation *>> steps = TfmDialect::getMarkedFunctions(
        module, TfmDialect::TrainStepAttrHelper::getNameStr(),
        "sp-micro-batches");
    if (failed(steps))
      return signalPassFailure();
    if (steps->empty()) {
      if (microBatches > 1) {
        module.emitError() << "sp-micro-batches: micro-batches="
                           << static_cast<int64_t>(microBatches)
                           << " needs a train step (tfm-autodiff's)";
        return signalPassFailure();
      }
      return;
    }
    if (microBatches == 1)
      return;
    for (Operation *step : *steps) {
      auto fn = cast<func::FuncOp>(step);
      if (failed(checkBound(fn, microBatches)))
        return signalPassFailure();
      // Stage k of P runs min(P-1-k, M) warm-up forwards (1F1B); the
      // stage's loop runs every micro-batch (no peeling).
      int64_t stages = TfmDialect::getPipelineStages(fn);
      int64_t lag = std::min<int64_t>(
          stages - 1 - TfmDialect::getPipelineStage(fn), microBatches);
      if (failed(buildLoop(fn, microBatches, peelLast && stages == 1, lag)))
        return signalPassFailure();
    }
  }
};
} // namespace
