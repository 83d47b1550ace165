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
// is kept. The workspace an op's kernel needs (WorkspaceOpInterface) is one
// more interval, live at that op only, so that it reuses bytes of values
// dead there and never meets the op's operands and results.
//
// Placing a value must see every value live with it, and in a training
// step the activations kept for the backward are live together: looking at
// each placed value in turn made planning quadratic in the layer count. A
// segment tree over time keeps, per node, the union of the bytes its values
// hold, so that a value meets O(log n) unions instead of every value
// (placeFast); the offsets are the same, the lowest aligned offset free of
// every value live at the same time.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Analysis/BufferPlan.h"
#include "seqpar/Dialect/Dist/Transforms/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <map>

namespace seqpar::dist {
#define GEN_PASS_DEF_SPPLANBUFFERSPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// First fit in the given order; returns the arena size, or the buffer that
/// no offset within int64 fits. Looks at every placed value for each value:
/// kept for arenas near int64's limit (placeFast needs headroom).
static FailureOr<int64_t> placeByScan(ArrayRef<LiveValue> values,
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

namespace {
/// Disjoint byte ranges [lo, hi), merged where they meet.
class Spans {
public:
  bool empty() const { return spans.empty(); }

  void insert(int64_t lo, int64_t hi) {
    auto it = spans.upper_bound(lo);
    if (it != spans.begin() && std::prev(it)->second >= lo) {
      if (std::prev(it)->second >= hi)
        return;
      --it;
      lo = it->first;
    }
    while (it != spans.end() && it->first <= hi) {
      hi = std::max(hi, it->second);
      it = spans.erase(it);
    }
    spans.emplace(lo, hi);
  }

  /// A position in the ranges: the first that ends past some offset.
  using Cursor = std::map<int64_t, int64_t>::const_iterator;
  Cursor begin() const { return spans.begin(); }
  bool atEnd(Cursor c) const { return c == spans.end(); }

  /// The end of the range that meets [at, at + bytes), if any; `c` (at the
  /// first range ending past an offset <= at) moves to the first ending past
  /// at. Offsets only grow while a value is placed, so the cursor mostly
  /// stays or steps once instead of searching the tree each time.
  std::optional<int64_t> blocking(Cursor &c, int64_t at, int64_t bytes) const {
    if (c != spans.end() && c->second <= at && ++c != spans.end() &&
        c->second <= at) {
      c = spans.upper_bound(at);
      if (c != spans.begin() && std::prev(c)->second > at)
        --c;
    }
    if (c != spans.end() && c->first < at + bytes)
      return c->second;
    return std::nullopt;
  }

private:
  std::map<int64_t, int64_t> spans;
};

/// The bytes of placed values by the ops they are live at: a segment tree
/// over op indices. A value live over [start, end] is kept in `own` at the
/// nodes that cover its interval (the canonical ones), and in `sub` there
/// and at their ancestors (on the paths from `start` and `end` to the
/// root). A node in `sub` or `own` only ever holds values live somewhere in
/// it. The values live at some op of [start, end] are those in `sub` at the
/// canonical nodes of [start, end] and in `own` on the paths from `start`
/// and `end` to the root: O(log n) unions.
class LiveBytes {
public:
  explicit LiveBytes(int64_t ops) {
    while (leaves < ops)
      leaves *= 2;
    own.resize(2 * leaves);
    sub.resize(2 * leaves);
  }

  void insert(const LiveValue &v, int64_t lo) {
    int64_t hi = lo + v.bytes;
    for (int64_t l = v.start + leaves, r = v.end + leaves + 1; l < r;
         l /= 2, r /= 2) {
      if (l & 1) {
        own[l].insert(lo, hi);
        sub[l++].insert(lo, hi);
      }
      if (r & 1) {
        own[--r].insert(lo, hi);
        sub[r].insert(lo, hi);
      }
    }
    int64_t a = (v.start + leaves) / 2, b = (v.end + leaves) / 2;
    for (; a != b; a /= 2, b /= 2) {
      sub[a].insert(lo, hi);
      sub[b].insert(lo, hi);
    }
    for (; a >= 1; a /= 2)
      sub[a].insert(lo, hi);
  }

  /// The unions that together hold the values live at some op of `v`'s.
  void unions(const LiveValue &v, SmallVectorImpl<const Spans *> &out) const {
    out.clear();
    auto add = [&](const Spans &s) {
      if (!s.empty())
        out.push_back(&s);
    };
    for (int64_t l = v.start + leaves, r = v.end + leaves + 1; l < r;
         l /= 2, r /= 2) {
      if (l & 1)
        add(sub[l++]);
      if (r & 1)
        add(sub[--r]);
    }
    int64_t a = v.start + leaves, b = v.end + leaves;
    for (; a != b; a /= 2, b /= 2) {
      add(own[a]);
      add(own[b]);
    }
    for (; a >= 1; a /= 2)
      add(own[a]);
  }

private:
  int64_t leaves = 1;
  std::vector<Spans> own, sub;
};
} // namespace

/// placeByScan's offsets, each found among O(log n) unions of placed bytes
/// (LiveBytes) rather than among all placed values: the lowest aligned
/// offset whose bytes no value live at the same time holds, which is what
/// the scan finds. The caller checks that no offset can pass int64.
static int64_t placeFast(ArrayRef<LiveValue> values, ArrayRef<unsigned> order,
                         SmallVectorImpl<int64_t> &offsets) {
  offsets.assign(values.size(), -1);
  int64_t ops = 1;
  for (const LiveValue &v : values)
    ops = std::max(ops, v.end + 1);
  LiveBytes placed(ops);
  SmallVector<const Spans *> unions;
  SmallVector<Spans::Cursor> cursors;
  int64_t arena = 0;
  for (unsigned i : order) {
    const LiveValue &v = values[i];
    int64_t at = 0;
    // Empty values go at 0 (as the scan puts them) and hold no bytes.
    if (v.bytes > 0) {
      placed.unions(v, unions);
      cursors.clear();
      for (const Spans *s : unions)
        cursors.push_back(s->begin());
      // Past every range that meets [at, at + bytes), until none does (the
      // lowest such offset, whatever the order the unions are looked at in).
      // A union with no range ending past `at` is done with.
      for (bool moved = true; moved;) {
        moved = false;
        for (size_t j = 0; j < unions.size();) {
          while (std::optional<int64_t> end =
                     unions[j]->blocking(cursors[j], at, v.bytes)) {
            at = *alignArena(*end);
            moved = true;
          }
          if (unions[j]->atEnd(cursors[j])) {
            unions[j] = unions.back();
            unions.pop_back();
            cursors[j] = cursors.back();
            cursors.pop_back();
          } else {
            ++j;
          }
        }
      }
      placed.insert(v, at);
    }
    offsets[i] = at;
    arena = std::max(arena, at + v.bytes);
  }
  return arena;
}

/// First fit in the given order (placeFast, or placeByScan where the sum of
/// the aligned sizes does not fit in int64, which bounds every offset).
static FailureOr<int64_t> place(ArrayRef<LiveValue> values,
                                ArrayRef<unsigned> order,
                                SmallVectorImpl<int64_t> &offsets,
                                unsigned &unplaced) {
  std::optional<int64_t> bound = 0;
  for (const LiveValue &v : values) {
    bound = llvm::checkedAdd<int64_t>(*bound, v.bytes);
    if (bound)
      bound = llvm::checkedAdd<int64_t>(*bound, kArenaAlign);
    if (!bound)
      return placeByScan(values, order, offsets, unplaced);
  }
  return placeFast(values, order, offsets);
}

LogicalResult dist::planArena(func::FuncOp func) {
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
    InFlightDiagnostic d = v.getOwner()->emitOpError();
    if (v.isWorkspace())
      d << "workspace";
    else
      d << "result #" << cast<OpResult>(v.value).getResultNumber();
    return d << " (" << v.bytes << " bytes) cannot be placed: the arena of @"
             << func.getSymName() << " would exceed int64 bytes";
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
  auto i64 = IntegerType::get(ctx, 64);
  for (auto [v, offset] : llvm::zip(*values, offsets)) {
    if (v.isWorkspace()) {
      v.workspaceOf->setAttr(kWorkspaceOffsetAttr,
                             IntegerAttr::get(i64, offset));
      continue;
    }
    SmallVector<int64_t> &slots = perOp[v.value.getDefiningOp()];
    slots.resize(v.value.getDefiningOp()->getNumResults(), 0);
    slots[cast<OpResult>(v.value).getResultNumber()] = offset;
  }
  for (auto &[op, slots] : perOp)
    op->setAttr(kArenaOffsetsAttr, DenseI64ArrayAttr::get(ctx, slots));
  func->setAttr(kArenaBytesAttr, IntegerAttr::get(i64, *arena));
  func->setAttr(kArenaMaxLiveAttr, IntegerAttr::get(i64, *maxLive));
  return readBufferPlan(func);
}

namespace {
struct SpPlanBuffersPass
    : dist::impl::SpPlanBuffersPassBase<SpPlanBuffersPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && failed(planArena(func)))
        return signalPassFailure();
  }
};
} // namespace
