//===- SpPlanBuffers.cpp - arena offsets from liveness --------------------===//
//
// Offline dynamic storage allocation: every value has a fixed size and a
// fixed live interval, so placing them is interval packing. Two greedy
// orders are tried, by decreasing size and by decreasing lifetime (the
// better one differs between models), each value going
// to the lowest aligned offset that no value live at the same time holds;
// the smaller arena wins. The result is checked (readBufferPlan) before it
// is kept.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Transforms/BufferPlan.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPPLANBUFFERSPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// First fit in the given order; returns the arena size.
static int64_t place(ArrayRef<LiveValue> values, ArrayRef<unsigned> order,
                     SmallVectorImpl<int64_t> &offsets) {
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
    int64_t at = 0;
    for (auto [lo, hi] : taken) {
      if (at + v.bytes <= lo)
        break;
      at = std::max(at, int64_t(llvm::alignTo(hi, kArenaAlign)));
    }
    offsets[i] = at;
    arena = std::max(arena, at + v.bytes);
    placed.push_back(i);
  }
  return arena;
}

static LogicalResult planFunction(func::FuncOp func) {
  FailureOr<SmallVector<LiveValue>> values = arenaValues(func);
  if (failed(values))
    return failure();
  SmallVector<unsigned> bySize(values->size());
  for (unsigned i = 0; i < values->size(); ++i)
    bySize[i] = i;
  SmallVector<unsigned> byLifetime = bySize;
  llvm::stable_sort(bySize, [&](unsigned a, unsigned b) {
    return (*values)[a].bytes > (*values)[b].bytes;
  });
  llvm::stable_sort(byLifetime, [&](unsigned a, unsigned b) {
    const LiveValue &x = (*values)[a], &y = (*values)[b];
    return x.end - x.start > y.end - y.start;
  });
  SmallVector<int64_t> offsets, other;
  int64_t arena = INT64_MAX;
  for (ArrayRef<unsigned> order : {bySize, byLifetime}) {
    int64_t bytes = place(*values, order, other);
    if (bytes < arena) {
      arena = bytes;
      offsets = other;
    }
  }

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
  func->setAttr(kArenaBytesAttr, IntegerAttr::get(i64, arena));
  func->setAttr(kArenaMaxLiveAttr,
                IntegerAttr::get(i64, maxLiveBytes(*values)));
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
