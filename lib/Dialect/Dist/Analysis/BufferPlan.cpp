//===- BufferPlan.cpp - liveness and the check of an arena plan -----------===//

#include "seqpar/Dialect/Dist/Analysis/BufferPlan.h"
#include "seqpar/Dialect/Dist/Analysis/PlanFacts.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <functional>
#include <map>
#include <queue>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

int64_t dist::tensorBytes(Value v) {
  std::optional<int64_t> bytes = checkedByteSize(v);
  assert(bytes && "the size of an arena value was not checked");
  return *bytes;
}

std::optional<int64_t> dist::alignArena(int64_t bytes) {
  std::optional<int64_t> up = llvm::checkedAdd<int64_t>(bytes, kArenaAlign - 1);
  return up ? std::optional<int64_t>(*up / kArenaAlign * kArenaAlign)
            : std::nullopt;
}

std::optional<unsigned> dist::inPlaceOperand(OpResult r) {
  Operation *op = r.getOwner();
  // An op that declares nothing (no InPlaceOpInterface) gets buffers of its
  // own: never wrong, only larger (OpInterfacesTest requires the
  // declaration of every tfm and dist op).
  auto decl = dyn_cast<InPlaceOpInterface>(op);
  std::optional<unsigned> operand =
      decl ? decl.getInPlaceOperand(r.getResultNumber()) : std::nullopt;
  if (operand && tensorBytes(op->getOperand(*operand)) != tensorBytes(r))
    return std::nullopt;
  return operand;
}

Operation *dist::asyncWaitPoint(Operation *op) {
  bool async = false;
  if (auto a = dyn_cast<AllReduceCoalescedOp>(op))
    async = a.getAsync();
  else if (auto r = dyn_cast<ReduceScatterCoalescedOp>(op))
    async = r.getAsync();
  if (!async)
    return nullptr;
  Block *block = op->getBlock();
  Operation *first = nullptr;
  for (Value r : op->getResults())
    for (Operation *user : r.getUsers()) {
      Operation *at = block->findAncestorOpInBlock(*user);
      if (at && (!first || at->isBeforeInBlock(first)))
        first = at;
    }
  return first;
}

int64_t dist::workspaceBytes(Operation *op) {
  auto w = dyn_cast<WorkspaceOpInterface>(op);
  return w ? w.getWorkspaceBytes() : 0;
}

std::optional<int64_t> dist::workspaceOffset(Operation *op) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(kWorkspaceOffsetAttr))
    return attr.getInt();
  return std::nullopt;
}

bool dist::takesOver(const LiveValue &v, const LiveValue &operand) {
  if (v.isWorkspace() || operand.isWorkspace() || v.slots != 1 ||
      operand.slots != 1)
    return false;
  auto r = cast<OpResult>(v.value);
  std::optional<unsigned> i = inPlaceOperand(r);
  return i && r.getOwner()->getOperand(*i) == operand.value &&
         operand.end == v.start;
}

/// The ops of `func` in the order the arena sees them: a micro-batch
/// loop, then its body (each iteration reuses the body's bytes: nothing
/// defined in it outlives an iteration), then what follows the loop.
/// `last[op]` is the index of the last op nested in `op` (itself if none).
static LogicalResult linearize(func::FuncOp func,
                               DenseMap<Operation *, int64_t> &index,
                               DenseMap<Operation *, int64_t> &last,
                               SmallVectorImpl<Operation *> &order) {
  std::function<LogicalResult(Block &)> visit =
      [&](Block &block) -> LogicalResult {
    for (Operation &op : block) {
      index[&op] = int64_t(order.size());
      order.push_back(&op);
      if (op.getNumRegions() != 0) {
        if (!isa<tfm::MicroBatchLoopOp>(op))
          return op.emitOpError()
                 << "has regions; the arena is planned for straight-line "
                    "code and micro-batch loops";
        if (failed(visit(op.getRegion(0).front())))
          return failure();
      }
      last[&op] = int64_t(order.size()) - 1;
    }
    return success();
  };
  return visit(func.getBody().front());
}

FailureOr<SmallVector<Operation *>> dist::arenaOrder(func::FuncOp func) {
  DenseMap<Operation *, int64_t> index, last;
  SmallVector<Operation *> order;
  if (!func.getBody().hasOneBlock() ||
      failed(linearize(func, index, last, order)))
    return failure();
  return order;
}

FailureOr<SmallVector<LiveValue>> dist::arenaValues(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError()
           << "has " << func.getBody().getBlocks().size()
           << " blocks; the arena is planned for straight-line functions";
  DenseMap<Operation *, int64_t> index, last;
  SmallVector<Operation *> order;
  if (failed(linearize(func, index, last, order)))
    return failure();
  SmallVector<LiveValue> values;
  for (Operation *opPtr : order) {
    Operation &op = *opPtr;
    Block &body = *op.getBlock();
    // Parameters have their own buffers; hyperparameters are host scalars
    // read from the step's table; a micro-batch is read in its argument.
    if (isa<tfm::GetParamOp, tfm::HyperparameterOp, tfm::MicroBatchOp>(op))
      continue;
    for (Value r : op.getResults()) {
      if (!isa<ShapedType>(r.getType()) ||
          !cast<ShapedType>(r.getType()).hasStaticShape())
        return op.emitOpError()
               << "result " << r.getType()
               << " has no static shape; it cannot be placed in the arena";
      // The ops of tfm and dist checked this already; others may not have.
      if (failed(verifyTensorSize(
              &op, r.getType(),
              "result #" + Twine(cast<OpResult>(r).getResultNumber()))))
        return failure();
      // A use inside a loop keeps the value until the loop ends.
      LiveValue v{r, index[&op], index[&op], tensorBytes(r)};
      for (Operation *user : r.getUsers())
        v.end = std::max(v.end, last.lookup(body.findAncestorOpInBlock(*user)));
      // A stash: a copy per micro-batch in flight, for the whole loop.
      auto loop = dyn_cast<tfm::MicroBatchLoopOp>(op.getParentOp());
      if (int64_t slots = loop ? loop.stashSlots(r) : 1; slots > 1) {
        std::optional<int64_t> copy = alignArena(v.bytes);
        std::optional<int64_t> all =
            copy ? llvm::checkedMul<int64_t>(*copy, slots) : std::nullopt;
        if (!all)
          return op.emitOpError()
                 << "result #" << cast<OpResult>(r).getResultNumber() << " ("
                 << v.bytes << " bytes) kept for " << slots
                 << " micro-batches in flight overflows int64 bytes";
        v = {r, index[loop], last[loop], *all, nullptr, slots};
      }
      values.push_back(v);
    }
    // Live while the op runs: with its operands and results, no longer;
    // an async collective's until it completes.
    if (int64_t bytes = workspaceBytes(&op)) {
      Operation *wait = asyncWaitPoint(&op);
      values.push_back(
          {Value(), index[&op], wait ? index[wait] : index[&op], bytes, &op});
    }
  }
  return values;
}

SmallVector<LiveValue> dist::groupInPlace(ArrayRef<LiveValue> values,
                                          SmallVectorImpl<unsigned> &bufferOf) {
  SmallVector<LiveValue> buffers;
  DenseMap<Value, unsigned> indexOf;
  DenseSet<unsigned> takenOver;
  bufferOf.resize(values.size());
  for (auto [i, v] : llvm::enumerate(values)) {
    if (v.isWorkspace()) {
      bufferOf[i] = buffers.size();
      buffers.push_back(v);
      continue;
    }
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

std::optional<int64_t> dist::maxLiveBytes(ArrayRef<LiveValue> values) {
  // Values are added before they are removed at each point, so every partial
  // sum is at most the most bytes live: checked additions suffice.
  std::map<int64_t, std::pair<int64_t, int64_t>> delta; // (born, died)
  for (const LiveValue &v : values) {
    std::optional<int64_t> born =
        llvm::checkedAdd<int64_t>(delta[v.start].first, v.bytes);
    std::optional<int64_t> died =
        llvm::checkedAdd<int64_t>(delta[v.end + 1].second, v.bytes);
    if (!born || !died)
      return std::nullopt;
    delta[v.start].first = *born;
    delta[v.end + 1].second = *died;
  }
  int64_t live = 0, most = 0;
  for (auto &[at, d] : delta) {
    live -= d.second;
    std::optional<int64_t> next = llvm::checkedAdd<int64_t>(live, d.first);
    if (!next)
      return std::nullopt;
    live = *next;
    most = std::max(most, live);
  }
  return most;
}

static std::string describe(const LiveValue &v) {
  std::string op = "'" + v.getOwner()->getName().getStringRef().str() + "'";
  if (v.isWorkspace())
    return "the workspace of " + op;
  return "result #" +
         std::to_string(cast<OpResult>(v.value).getResultNumber()) + " of " +
         op;
}

/// Whether two values live at the same time may share bytes (other than a
/// value taking over its operand's), by a sweep over the values in order of
/// definition with the live ones kept by offset: O(n log n) where comparing
/// each value with every live one is quadratic in a training step. Live
/// values that do not share bytes are disjoint but for take-overs, which
/// have the same bytes (inPlaceOperand): so a value shares bytes with a live
/// one only if it does with its neighbours by offset. Only "no" is exact:
/// readBufferPlan then checks value by value for its diagnostic.
static bool mayShareBytes(ArrayRef<LiveValue> values,
                          ArrayRef<int64_t> offsets) {
  auto offsetOf = [&](const LiveValue *v) {
    return offsets[v - values.data()];
  };
  // Live values by offset; values at one offset have the same bytes.
  std::map<int64_t, SmallVector<const LiveValue *, 1>> live;
  using Death = std::pair<int64_t, const LiveValue *>;
  std::priority_queue<Death, std::vector<Death>, std::greater<Death>> deaths;
  for (const LiveValue &v : values) {
    // An empty value sits inside others: left to the value-by-value check.
    if (v.bytes == 0)
      return true;
    while (!deaths.empty() && deaths.top().first < v.start) {
      const LiveValue *w = deaths.top().second;
      deaths.pop();
      auto at = live.find(offsetOf(w));
      llvm::erase(at->second, w);
      if (at->second.empty())
        live.erase(at);
    }
    int64_t lo = offsetOf(&v), hi = lo + v.bytes;
    auto next = live.lower_bound(lo);
    if (next != live.begin()) {
      const LiveValue *w = std::prev(next)->second.front();
      if (std::prev(next)->first + w->bytes > lo)
        return true;
    }
    if (next != live.end() && next->first == lo) {
      for (const LiveValue *w : next->second)
        if (!takesOver(v, *w))
          return true;
      ++next;
    }
    if (next != live.end() && next->first < hi)
      return true;
    live[lo].push_back(&v);
    deaths.push({v.end, &v});
  }
  return false;
}

/// The offset `v` has in the plan, checked: recorded, aligned, inside the
/// arena.
static FailureOr<int64_t> readOffset(const LiveValue &v, int64_t arenaBytes) {
  Operation *op = v.getOwner();
  int64_t offset;
  if (v.isWorkspace()) {
    std::optional<int64_t> recorded = workspaceOffset(op);
    if (!recorded)
      return op->emitOpError()
             << "needs '" << kWorkspaceOffsetAttr << "' for its workspace of "
             << v.bytes << " bytes: the function has an arena plan";
    offset = *recorded;
  } else {
    auto attr = op->getAttrOfType<DenseI64ArrayAttr>(kArenaOffsetsAttr);
    if (!attr || attr.size() != int64_t(op->getNumResults()))
      return op->emitOpError() << "needs '" << kArenaOffsetsAttr << "' with "
                               << op->getNumResults()
                               << " offset(s): the function has an arena plan";
    offset = attr[cast<OpResult>(v.value).getResultNumber()];
  }
  if (offset < 0 || offset % kArenaAlign != 0)
    return op->emitOpError()
           << describe(v) << " at arena offset " << offset
           << " is not a multiple of " << kArenaAlign << " bytes";
  std::optional<int64_t> end = llvm::checkedAdd<int64_t>(offset, v.bytes);
  if (!end)
    return op->emitOpError() << describe(v) << " at arena offset " << offset
                             << " with " << v.bytes << " bytes ends past int64";
  if (*end > arenaBytes)
    return op->emitOpError()
           << describe(v) << " at arena bytes [" << offset << ", " << *end
           << ") ends past the arena of " << arenaBytes << " bytes";
  return offset;
}

FailureOr<DenseMap<Value, int64_t>> dist::readBufferPlan(func::FuncOp func) {
  DenseMap<Value, int64_t> offsets;
  auto sizeAttr = func->getAttrOfType<IntegerAttr>(kArenaBytesAttr);
  if (!sizeAttr)
    return offsets;
  int64_t arenaBytes = sizeAttr.getInt();
  FailureOr<SmallVector<LiveValue>> values = arenaValues(func);
  if (failed(values))
    return failure();
  // A workspace offset on an op that has none is a stale plan.
  WalkResult stale = func.walk([&](Operation *op) {
    if (!op->hasAttr(kWorkspaceOffsetAttr) || workspaceBytes(op) != 0)
      return WalkResult::advance();
    op->emitOpError() << "has '" << kWorkspaceOffsetAttr
                      << "' but its kernel needs no workspace";
    return WalkResult::interrupt();
  });
  if (stale.wasInterrupted())
    return failure();
  SmallVector<int64_t> at;
  for (const LiveValue &v : *values) {
    FailureOr<int64_t> offset = readOffset(v, arenaBytes);
    if (failed(offset))
      return failure();
    at.push_back(*offset);
    if (!v.isWorkspace())
      offsets[v.value] = *offset;
  }
  if (!mayShareBytes(*values, at))
    return offsets;
  // Values in order of definition: each is checked against the earlier ones
  // still live when it is written.
  SmallVector<const LiveValue *> live;
  for (const LiveValue &v : *values) {
    llvm::erase_if(live, [&](const LiveValue *w) { return w->end < v.start; });
    int64_t lo = at[&v - values->data()], hi = lo + v.bytes;
    for (const LiveValue *w : live) {
      int64_t wlo = at[w - values->data()], whi = wlo + w->bytes;
      if (lo < whi && wlo < hi && !(takesOver(v, *w) && lo == wlo)) {
        InFlightDiagnostic d = v.getOwner()->emitOpError()
                               << describe(v) << " at arena bytes [" << lo
                               << ", " << hi << ") overlaps " << describe(*w)
                               << " at [" << wlo << ", " << whi
                               << "), which is still live";
        if (w->isWorkspace())
          d.attachNote(w->getOwner()->getLoc())
              << "the other is the workspace of this op";
        else
          d.attachNote(w->value.getLoc()) << "the other value is defined here";
        return failure();
      }
    }
    live.push_back(&v);
  }
  return offsets;
}
