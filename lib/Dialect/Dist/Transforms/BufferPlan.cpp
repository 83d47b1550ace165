//===- BufferPlan.cpp - liveness and the check of an arena plan -----------===//

#include "seqpar/Dialect/Dist/Transforms/BufferPlan.h"
#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/IR/BuiltinAttributes.h"

#include <map>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

int64_t dist::tensorBytes(Value v) {
  auto t = cast<ShapedType>(v.getType());
  return t.getNumElements() * llvm::divideCeil(t.getElementTypeBitWidth(), 8);
}

std::optional<unsigned> dist::inPlaceOperand(OpResult r) {
  Operation *op = r.getOwner();
  std::optional<unsigned> operand;
  if (isa<AllReduceOp, tfm::ScaleOp>(op))
    operand = 0;
  else if (isa<AllReduceCoalescedOp>(op))
    operand = r.getResultNumber();
  if (operand && tensorBytes(op->getOperand(*operand)) != tensorBytes(r))
    return std::nullopt;
  return operand;
}

bool dist::takesOver(const LiveValue &v, const LiveValue &operand) {
  auto r = cast<OpResult>(v.value);
  std::optional<unsigned> i = inPlaceOperand(r);
  return i && r.getOwner()->getOperand(*i) == operand.value &&
         operand.end == v.start;
}

FailureOr<SmallVector<LiveValue>> dist::arenaValues(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError()
           << "has " << func.getBody().getBlocks().size()
           << " blocks; the arena is planned for straight-line functions";
  Block &body = func.getBody().front();
  DenseMap<Operation *, int64_t> index;
  for (Operation &op : body)
    index[&op] = int64_t(index.size());
  SmallVector<LiveValue> values;
  for (Operation &op : body) {
    if (op.getNumRegions() != 0)
      return op.emitOpError()
             << "has regions; the arena is planned for straight-line code";
    if (isa<tfm::GetParamOp>(op))
      continue;
    for (Value r : op.getResults()) {
      if (!isa<ShapedType>(r.getType()) ||
          !cast<ShapedType>(r.getType()).hasStaticShape())
        return op.emitOpError()
               << "result " << r.getType()
               << " has no static shape; it cannot be placed in the arena";
      LiveValue v{r, index[&op], index[&op], tensorBytes(r)};
      for (Operation *user : r.getUsers())
        v.end =
            std::max(v.end, index.lookup(body.findAncestorOpInBlock(*user)));
      values.push_back(v);
    }
  }
  return values;
}

int64_t dist::maxLiveBytes(ArrayRef<LiveValue> values) {
  std::map<int64_t, int64_t> delta;
  for (const LiveValue &v : values) {
    delta[v.start] += v.bytes;
    delta[v.end + 1] -= v.bytes;
  }
  int64_t live = 0, most = 0;
  for (auto [at, d] : delta) {
    live += d;
    most = std::max(most, live);
  }
  return most;
}

static std::string describe(Value v) {
  auto r = cast<OpResult>(v);
  return "result #" + std::to_string(r.getResultNumber()) + " of '" +
         r.getOwner()->getName().getStringRef().str() + "'";
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
  for (const LiveValue &v : *values) {
    Operation *op = v.value.getDefiningOp();
    auto attr = op->getAttrOfType<DenseI64ArrayAttr>(kArenaOffsetsAttr);
    if (!attr || attr.size() != int64_t(op->getNumResults()))
      return op->emitOpError() << "needs '" << kArenaOffsetsAttr << "' with "
                               << op->getNumResults()
                               << " offset(s): the function has an arena plan";
    int64_t offset = attr[cast<OpResult>(v.value).getResultNumber()];
    if (offset < 0 || offset % kArenaAlign != 0)
      return op->emitOpError()
             << describe(v.value) << " at arena offset " << offset
             << " is not a multiple of " << kArenaAlign << " bytes";
    if (offset + v.bytes > arenaBytes)
      return op->emitOpError()
             << describe(v.value) << " at arena bytes [" << offset << ", "
             << offset + v.bytes << ") ends past the arena of " << arenaBytes
             << " bytes";
    offsets[v.value] = offset;
  }
  // Values in order of definition: each is checked against the earlier ones
  // still live when it is written.
  SmallVector<const LiveValue *> live;
  for (const LiveValue &v : *values) {
    llvm::erase_if(live, [&](const LiveValue *w) { return w->end < v.start; });
    int64_t lo = offsets[v.value], hi = lo + v.bytes;
    for (const LiveValue *w : live) {
      int64_t wlo = offsets[w->value], whi = wlo + w->bytes;
      if (lo < whi && wlo < hi && !(takesOver(v, *w) && lo == wlo)) {
        InFlightDiagnostic d = v.value.getDefiningOp()->emitOpError()
                               << describe(v.value) << " at arena bytes [" << lo
                               << ", " << hi << ") overlaps "
                               << describe(w->value) << " at [" << wlo << ", "
                               << whi << "), which is still live";
        d.attachNote(w->value.getLoc()) << "the other value is defined here";
        return failure();
      }
    }
    live.push_back(&v);
  }
  return offsets;
}
