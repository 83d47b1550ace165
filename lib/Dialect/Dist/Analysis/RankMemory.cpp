//===- RankMemory.cpp - one rank's planned device memory ------------------===//

#include "seqpar/Dialect/Dist/Analysis/RankMemory.h"
#include "seqpar/Dialect/Dist/Analysis/BufferPlan.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "llvm/Support/CheckedArithmetic.h"

#include <map>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// Adds `bytes` to `total`; false when either is unknown or the sum
/// overflows.
static bool add(int64_t &total, std::optional<int64_t> bytes) {
  std::optional<int64_t> sum =
      bytes ? llvm::checkedAdd<int64_t>(total, *bytes) : std::nullopt;
  if (sum)
    total = *sum;
  return sum.has_value();
}

/// This rank's bytes of parameter `p`: its global type with each split
/// dimension divided by the axis size (as convert-sp-to-runtime lays the
/// shards out).
static std::optional<int64_t> localParamBytes(tfm::ParamOp p, MeshOp mesh) {
  auto type = cast<RankedTensorType>(p.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (LayoutAttr layout = LayoutAttr::fromType(type))
    for (auto [i, axis] : llvm::enumerate(layout.getAxes())) {
      Sharding s = layout.getSharding(i);
      std::optional<int64_t> n =
          mesh ? mesh.getAxisSize(cast<StringAttr>(axis).getValue())
               : std::nullopt;
      if (s.isSplit() && n)
        shape[s.dim] /= *n;
    }
  return checkedByteSize(RankedTensorType::get(shape, type.getElementType()));
}

FailureOr<DeviceBytes> dist::deviceBytes(func::FuncOp func,
                                         std::optional<int64_t> arena) {
  DeviceBytes d;
  auto module = func->getParentOfType<ModuleOp>();
  MeshOp mesh;
  if (module) {
    FailureOr<MeshOp> found = getMesh(module);
    if (failed(found))
      return failure();
    mesh = *found;
  }
  // A pipeline stage's rank holds only the parameters its function reads.
  DenseSet<StringAttr> read;
  bool staged = tfm::TfmDialect::getPipelineStages(func) > 1;
  if (staged)
    for (auto get : func.getOps<tfm::GetParamOp>())
      read.insert(get.getNameAttr().getAttr());
  if (module)
    for (auto p : module.getOps<tfm::ParamOp>())
      if ((!staged || read.contains(p.getSymNameAttr())) &&
          !add(d.parameters, localParamBytes(p, mesh)))
        return p.emitOpError() << "this rank's parameter bytes overflow int64";
  for (auto update : func.getOps<tfm::ParamUpdateOpInterface>()) {
    // The update's fp32 moments of the gradient's elements (AdamW's two),
    // and the fp32 master slice of an update with `master`.
    int64_t words =
        update.getStateMoments() + (update->hasAttr("master") ? 1 : 0);
    auto grad = cast<RankedTensorType>(update.getGrad().getType());
    std::optional<int64_t> n = llvm::checkedMul<int64_t>(
        grad.getNumElements(), words * int64_t(sizeof(float)));
    if (!add(d.optimizerState, n))
      return update.emitOpError()
             << "this rank's optimizer state overflows int64 bytes";
  }
  for (BlockArgument a : func.getArguments())
    if (!add(d.tokens, checkedByteSize(a)))
      return func.emitOpError() << "argument #" << a.getArgNumber()
                                << " has no byte size within int64";
  if (arena) {
    d.arena = *arena;
    d.arenaFromPlan = func->hasAttr(kArenaBytesAttr);
  } else if (auto plan = func->getAttrOfType<IntegerAttr>(kArenaBytesAttr)) {
    d.arena = plan.getInt();
    d.arenaFromPlan = true;
  } else {
    // The plan sp-plan-buffers would record, made on a copy.
    auto copy = cast<func::FuncOp>(func->clone());
    LogicalResult planned = planArena(copy);
    if (succeeded(planned))
      d.arena = copy->getAttrOfType<IntegerAttr>(kArenaBytesAttr).getInt();
    copy.erase();
    if (failed(planned))
      return failure();
  }
  for (int64_t bytes : {d.parameters, d.optimizerState, d.tokens, d.arena})
    if (!add(d.total, bytes))
      return func.emitOpError()
             << "this rank's planned device memory overflows int64 bytes";
  return d;
}

FailureOr<PeakLive> dist::peakLive(func::FuncOp func) {
  FailureOr<SmallVector<LiveValue>> values = arenaValues(func);
  if (failed(values))
    return failure();
  SmallVector<unsigned> bufferOf;
  SmallVector<LiveValue> buffers = groupInPlace(*values, bufferOf);
  // Ops by index, and whether each is forward: before the backward of its
  // micro-batch (sp-micro-batches: tfm.in_micro_batch), or, for ops of no
  // micro-batch (a micro-batch loop's body among them: one micro-batch),
  // before the first backward.
  SmallVector<Operation *> ops;
  SmallVector<bool> forwardOp;
  DenseSet<int64_t> backwardOf; // micro-batches whose backward began
  bool anyBackward = false;
  FailureOr<SmallVector<Operation *>> order = arenaOrder(func);
  if (failed(order))
    return failure();
  for (Operation *opPtr : *order) {
    Operation &op = *opPtr;
    auto in = op.getAttrOfType<IntegerAttr>(
        tfm::TfmDialect::InMicroBatchAttrHelper::getNameStr());
    int64_t micro = in ? in.getInt() : -1;
    if (op.hasAttr(tfm::TfmDialect::BackwardBeginsAttrHelper::getNameStr())) {
      anyBackward = true;
      backwardOf.insert(micro);
    }
    forwardOp.push_back(in ? !backwardOf.contains(micro) : !anyBackward);
    ops.push_back(&op);
  }
  // Every partial sum below is at most the most bytes live.
  if (!maxLiveBytes(buffers))
    return func.emitOpError() << "has more bytes live at one op than int64 "
                                 "holds";
  // Bytes live at each op: values born there count, values that died
  // before it do not; an op's workspace (an arena interval of its own) is
  // live at the op alone. The same for the forward's values alone.
  // A micro-batch loop's results are sums of gradients (and the loss), not
  // activations; a stash (born at its loop) is.
  auto isForward = [&](const LiveValue &b) {
    return !b.isWorkspace() && forwardOp[b.start] &&
           !isa<tfm::MicroBatchLoopOp>(b.value.getDefiningOp());
  };
  std::map<int64_t, std::pair<int64_t, int64_t>> delta; // (all, forward)
  for (const LiveValue &b : buffers) {
    int64_t f = isForward(b) ? b.bytes : 0;
    delta[b.start].first += b.bytes;
    delta[b.start].second += f;
    delta[b.end + 1].first -= b.bytes;
    delta[b.end + 1].second -= f;
  }
  PeakLive peak;
  int64_t live = 0, liveForward = 0, best = -1, at = -1;
  auto it = delta.begin();
  for (int64_t i = 0; i < int64_t(ops.size()); ++i) {
    for (; it != delta.end() && it->first <= i; ++it) {
      live += it->second.first;
      liveForward += it->second.second;
    }
    peak.mostActivations = std::max(peak.mostActivations, liveForward);
    if (live > best) {
      best = live;
      at = i;
    }
  }
  if (at < 0 || best == 0)
    return peak;
  peak.at = ops[at];
  for (const LiveValue &b : buffers) {
    if (b.start > at || b.end < at)
      continue;
    (b.isWorkspace() ? peak.workspaces
     : isForward(b)  ? peak.activations
                     : peak.gradients) += b.bytes;
  }
  peak.total = best;
  return peak;
}
