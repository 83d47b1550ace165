//===- DistRingBytes.cpp - the bytes each collective sends ----------------===//
//
// CollectiveOpInterface::getRingBytesSent of every dist op: the bytes one
// rank sends in a ring implementation over an axis of n ranks (what
// `--report comm` sums and the runtime's per-axis counters measure).
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

//===----------------------------------------------------------------------===//
// Ring communication volume
//===----------------------------------------------------------------------===//

// Every count is checked: a tensor's bytes fit in int64 (its op verified
// them), but a multiple or a sum of them may not.
using Bytes = std::optional<int64_t>;

static Bytes bytesOf(Value v) { return checkedByteSize(v); }

static Bytes times(Bytes a, int64_t k) {
  return a ? llvm::checkedMul<int64_t>(*a, k) : std::nullopt;
}

static Bytes sumOf(ValueRange values) {
  Bytes total = 0;
  for (Value v : values) {
    Bytes b = bytesOf(v);
    total = b && total ? llvm::checkedAdd<int64_t>(*total, *b) : std::nullopt;
  }
  return total;
}

/// (n - 1) / n of `bytes`: what a ring reduce-scatter of them sends.
static Bytes ringShare(Bytes bytes, int64_t n) {
  return bytes ? Bytes(*bytes / n * (n - 1)) : std::nullopt;
}

// A ring all-gather sends the local shard n - 1 times; a ring reduce-scatter
// sends (n - 1) / n of the full tensor; an all-reduce is both.
Bytes AllGatherOp::getRingBytesSent(int64_t n) {
  return times(bytesOf(getInput()), n - 1);
}
Bytes ReduceScatterOp::getRingBytesSent(int64_t n) {
  return ringShare(bytesOf(getInput()), n);
}
Bytes AllReduceOp::getRingBytesSent(int64_t n) {
  return times(ringShare(bytesOf(getInput()), n), 2);
}
Bytes AllReduceCoalescedOp::getRingBytesSent(int64_t n) {
  return times(ringShare(sumOf(getInputs()), n), 2);
}
Bytes ReduceScatterCoalescedOp::getRingBytesSent(int64_t n) {
  return ringShare(sumOf(getInputs()), n);
}
Bytes AllGatherParamOp::getRingBytesSent(int64_t n) {
  return ringShare(checkedByteSize(cast<ShapedType>(getType())), n);
}
Bytes AllToAllOp::getRingBytesSent(int64_t n) {
  return ringShare(bytesOf(getInput()), n);
}
Bytes LocalSliceOp::getRingBytesSent(int64_t) { return 0; }
Bytes SendOp::getRingBytesSent(int64_t) { return bytesOf(getInput()); }
Bytes RecvOp::getRingBytesSent(int64_t) { return 0; }
Bytes AllGatherMatmulOp::getRingBytesSent(int64_t n) {
  return times(bytesOf(getInput()), n - 1);
}
Bytes AllGatherMatmulGeluOp::getRingBytesSent(int64_t n) {
  return times(bytesOf(getInput()), n - 1);
}
Bytes AllGatherMatmulGradWeightOp::getRingBytesSent(int64_t n) {
  return times(bytesOf(getInput()), n - 1);
}
Bytes MatmulReduceScatterOp::getRingBytesSent(int64_t n) {
  return times(bytesOf(getResult()), n - 1);
}
