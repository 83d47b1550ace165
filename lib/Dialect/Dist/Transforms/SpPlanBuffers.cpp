//===- SpPlanBuffers.cpp - arena offsets from liveness --------------------===//
//
// Offline dynamic storage allocation: every value has a fixed size and a
// fixed live interval, so placing them is interval packing. A result that
// an in-place kernel can write over an operand dying at its op (the
// gradient all-reduces, scaling) shares that operand's bytes. Two greedy
// orders are tried, by decreasing size and by decreasing lifetime (the
// better one differs between models), each value going
// to the lowest aligned offset that no value live at the same time holds;
// the smaller arena wins. The result is checked (readBufferPlan) before it
// is kept.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Transforms/BufferPlan.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/CheckedArithmetic.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPPLANBUFFERSPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// First fit in the given order; returns the arena size, or the buffer that
/// no offset within int64 fits.
static FailureOr<int64_t> place(ArrayRef<LiveValue> values,
                                ArrayRef<unsigned> order,
                                SmallVectorImpl<int64_t> &offsets,
                                unsigned &unplaced) {
  offsets.assign(values.size(), -1);
  SmallVector<unsigned> placed;
  int64_t arena = 0;
  for (unsigned i : order) {
    const LiveValue &v = values[i];
    SmallVector<std::pair<int64_t, int64_t>> taken;
    for (unsigned j : placed)
      if (values[j].overlapsInTime(v))
        taken.push_back({offsets[j], offsets[j] + values[j].bytes});
    llvm::sort(taken);
    // Placed values end within int64; the next aligned offset may not.
    std::optional<int64_t> at = 0;
    for (auto [lo, hi] : taken) {
      std::optional<int64_t> end = llvm::checkedAdd<int64_t>(*at, v.bytes);
      if (end && *end <= lo)
        break;
      std::optional<int64_t> next = alignArena(hi);
      at = next ? std::max(*at, *next) : next;
      if (!at)
        break;
    }
    std::optional<int64_t> end =
        at ? llvm::checkedAdd<int64_t>(*at, v.bytes) : std::nullopt;
    if (!end) {
      unplaced = i;
      return failure();
    }
    offsets[i] = *at;
    arena = std::max(arena, *end);
    placed.push_back(i);
  }
  return arena;
}

/// Groups the values into buffers: a value that takes over the bytes of an
/// operand dying at its op (an in-place all-reduce or scaling) joins that
/// operand's buffer, which then spans both. `bufferOf[i]` is value i's.
static SmallVector<LiveValue>
groupInPlace(ArrayRef<LiveValue> values, SmallVectorImpl<unsigned> &bufferOf) {
  SmallVector<LiveValue> buffers;
  DenseMap<Value, unsigned> indexOf;
  DenseSet<unsigned> takenOver;
  bufferOf.resize(values.size());
  for (auto [i, v] : llvm::enumerate(values)) {
    indexOf[v.value] = i;
    if (std::optional<unsigned> o = inPlaceOperand(cast<OpResult>(v.value))) {
      auto it = indexOf.find(v.value.getDefiningOp()->getOperand(*o));
      if (it != indexOf.end() && takesOver(v, values[it->second]) &&
          takenOver.insert(it->second).second) {
        bufferOf[i] = bufferOf[it->second];
        buffers[bufferOf[i]].end = std::max(buffers[bufferOf[i]].end, v.end);
        continue;
      }
    }
    bufferOf[i] = buffers.size();
    buffers.push_back(v);
  }
  return buffers;
}

static LogicalResult planFunction(func::FuncOp func) {
  FailureOr<SmallVector<LiveValue>> values = arenaValues(func);
  if (failed(values))
    return failure();
  SmallVector<unsigned> bufferOf;
  SmallVector<LiveValue> buffers = groupInPlace(*values, bufferOf);
  SmallVector<unsigned> bySize(buffers.size());
  for (unsigned i = 0; i < buffers.size(); ++i)
    bySize[i] = i;
  SmallVector<unsigned> byLifetime = bySize;
  llvm::stable_sort(bySize, [&](unsigned a, unsigned b) {
    return buffers[a].bytes > buffers[b].bytes;
  });
  llvm::stable_sort(byLifetime, [&](unsigned a, unsigned b) {
    const LiveValue &x = buffers[a], &y = buffers[b];
    return x.end - x.start > y.end - y.start;
  });
  SmallVector<int64_t> bufferOffsets, other;
  std::optional<int64_t> arena;
  std::optional<unsigned> unplaced;
  for (ArrayRef<unsigned> order : {bySize, byLifetime}) {
    unsigned failedAt = 0;
    FailureOr<int64_t> bytes = place(buffers, order, other, failedAt);
    if (failed(bytes)) {
      unplaced = unplaced.value_or(failedAt);
      continue;
    }
    if (!arena || *bytes < *arena) {
      arena = *bytes;
      bufferOffsets = other;
    }
  }
  if (!arena) {
    // Both orders overflow: report the value the first found no offset for.
    const LiveValue &v = buffers[*unplaced];
    auto r = cast<OpResult>(v.value);
    return r.getOwner()->emitOpError()
           << "result #" << r.getResultNumber() << " (" << v.bytes
           << " bytes) cannot be placed: the arena of @" << func.getSymName()
           << " would exceed int64 bytes";
  }
  // At most the arena's size, since values live together do not overlap.
  std::optional<int64_t> maxLive = maxLiveBytes(buffers);
  if (!maxLive)
    return func.emitOpError() << "has more bytes live at one op than int64 "
                                 "holds";
  SmallVector<int64_t> offsets;
  for (unsigned b : bufferOf)
    offsets.push_back(bufferOffsets[b]);

  MLIRContext *ctx = func.getContext();
  DenseMap<Operation *, SmallVector<int64_t>> perOp;
  for (auto [v, offset] : llvm::zip(*values, offsets)) {
    SmallVector<int64_t> &slots = perOp[v.value.getDefiningOp()];
    slots.resize(v.value.getDefiningOp()->getNumResults(), 0);
    slots[cast<OpResult>(v.value).getResultNumber()] = offset;
  }
  for (auto &[op, slots] : perOp)
    op->setAttr(kArenaOffsetsAttr, DenseI64ArrayAttr::get(ctx, slots));
  auto i64 = IntegerType::get(ctx, 64);
  func->setAttr(kArenaBytesAttr, IntegerAttr::get(i64, *arena));
  func->setAttr(kArenaMaxLiveAttr, IntegerAttr::get(i64, *maxLive));
  return readBufferPlan(func);
}

namespace {
struct SpPlanBuffersPass
    : dist::impl::SpPlanBuffersPassBase<SpPlanBuffersPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(planFunction(func)))
        return signalPassFailure();
  }
};
} // namespace
