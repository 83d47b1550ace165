//===- MicroBatchLoop.cpp - a tfm.micro_batch_loop as an LLVM loop --------===//
//
// Lowering::lowerLoop: the loop's body lowered once, inside an LLVM loop
// over the micro-batches that tells the runtime each one
// (sprt_set_micro_batch) and sums the yielded values into the results. A
// loop with a lag (a pipeline stage's 1F1B order) runs its forward part and
// its backward part of different micro-batches in one iteration.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "seqpar/Dialect/Dist/Analysis/BufferPlan.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;
using namespace seqpar::sptoruntime;

LogicalResult Lowering::lowerLoop(MicroBatchLoopOp loop) {
  // for (t = 0; t < n + w; ++t) {
  //   if (t < n) { i = t; sprt_set_micro_batch(i, M); forward part;
  //                sum its yielded values }
  //   if (t >= w) { i = t - w; sprt_set_micro_batch(i, M); backward part;
  //                 sum its yielded values } }
  // where a sum is results[j] = i == 0 ? yielded[j] : results[j] +
  // yielded[j] (the first as a scale by 1: an exact copy, -0 and NaN
  // included), the sums of an unrolled step in its order; n is the loop's
  // count (M unless micro-batches were peeled off after it), w its lag.
  // Each send of a forward part is followed by `if (t < w)
  // sprt_flush_sends(axis)`. Without a lag the whole body is the forward
  // part. The body's arguments and stashes are read at the part's
  // micro-batch i (loopIndex).
  loc = loop.getLoc();
  int64_t n = loop.getMicroBatches(), m = loop.getStepMicroBatches();
  int64_t w = loop.getLagOrZero();
  auto yield = cast<YieldOp>(loop.getBody().front().getTerminator());
  for (auto [i, r] : llvm::enumerate(loop.getResults()))
    if (!cast<RankedTensorType>(r.getType()).getElementType().isF32())
      return loop.emitOpError()
             << "result #" << i << " is " << r.getType()
             << ": the runtime accumulates f32 micro-batch sums";
  Operation *begin = loop.getBackwardBegin();
  SmallVector<Operation *> parts[2];
  for (Operation &op : loop.getBody().front().without_terminator())
    parts[begin && !op.isBeforeInBlock(begin)].push_back(&op);
  // An async collective completes in its own part.
  for (Operation *op : parts[0])
    if (Operation *wait = dist::asyncWaitPoint(op);
        wait && begin && !wait->isBeforeInBlock(begin))
      return op->emitOpError() << "starts in the forward part of a lagged "
                                  "micro-batch loop and completes in its "
                                  "backward part, another micro-batch's";
  Block *before = b.getInsertionBlock();
  Region *region = before->getParent();
  Type i64Ty = b.getI64Type();
  Block *header = b.createBlock(region, region->end(), {i64Ty}, {loc});
  Block *latch = b.createBlock(region, region->end());
  Block *exit = b.createBlock(region, region->end());
  b.setInsertionPointToEnd(before);
  b.create<LLVM::BrOp>(loc, ValueRange{i64(0)}, header);
  b.setInsertionPointToEnd(header);
  Value t = header->getArgument(0);
  Value more =
      b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::slt, t, i64(n + w));
  // One part: `runs` guards it (if not null); it lowers `ops` at
  // micro-batch `i` and sums the yielded values it defines (those of the
  // backward part if `backward`, all others if not), then goes on to
  // `next`.
  auto part = [&](ArrayRef<Operation *> ops, bool backward, Value runs, Value i,
                  Block *next) -> LogicalResult {
    Block *guard = b.getInsertionBlock();
    Block *done = b.createBlock(next);
    b.setInsertionPointToEnd(guard);
    if (runs) {
      Block *body = b.createBlock(done);
      b.setInsertionPointToEnd(guard);
      b.create<LLVM::CondBrOp>(loc, runs, body, done);
      b.setInsertionPointToEnd(body);
    }
    loopIndex = i;
    emitCall("sprt_set_micro_batch", {i, i64(m)});
    for (Operation *op : ops) {
      if (failed(lower(op)))
        return failure();
      // A warm-up forward's send (t < w: no backward part follows it in
      // this iteration) goes out now, alone. A communicator that queues
      // sends until the next recv (NCCL's) would hold it until the stage's
      // first backward, the next stage waiting for the whole warm-up; each
      // peer posts its matching recv before anything that waits for this
      // stage's later work, as in Megatron-LM's warm-up.
      auto send = dyn_cast<dist::SendOp>(op);
      if (!send || backward || w == 0)
        continue;
      Value warm =
          b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::slt, i, i64(w));
      Block *current = b.getInsertionBlock();
      Block *flush = b.createBlock(done);
      Block *after = b.createBlock(done);
      b.setInsertionPointToEnd(current);
      b.create<LLVM::CondBrOp>(loc, warm, flush, after);
      b.setInsertionPointToEnd(flush);
      emitCall("sprt_flush_sends", {axisOf(send.getAxis())});
      b.create<LLVM::BrOp>(loc, ValueRange(), after);
      b.setInsertionPointToEnd(after);
    }
    loc = yield.getLoc();
    SmallVector<std::pair<Value, Value>> sums; // (result, yielded)
    for (auto [r, v] : llvm::zip(loop.getResults(), yield.getValues()))
      if (Operation *def = v.getDefiningOp();
          (def && loop.inBackwardPart(def)) == backward)
        sums.push_back({r, v});
    if (!sums.empty()) {
      Block *current = b.getInsertionBlock();
      Block *first = b.createBlock(done);
      Block *rest = b.createBlock(done);
      b.setInsertionPointToEnd(current);
      Value isFirst =
          b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, i, i64(0));
      b.create<LLVM::CondBrOp>(loc, isFirst, first, rest);
      b.setInsertionPointToEnd(first);
      for (auto [r, v] : sums)
        emitCall("sprt_op_scale",
                 {ptr(v), ptr(r), i64(numElements(r)), f64(1.0)});
      b.create<LLVM::BrOp>(loc, ValueRange(), done);
      b.setInsertionPointToEnd(rest);
      for (auto [r, v] : sums)
        emitCall("sprt_add_f32", {ptr(r), ptr(v), ptr(r), i64(numElements(r))});
    }
    b.create<LLVM::BrOp>(loc, ValueRange(), done);
    b.setInsertionPointToEnd(done);
    loopIndex = Value();
    return success();
  };
  // The forward part: micro-batch t, while t < n (always without a lag).
  Block *forward = b.createBlock(latch);
  b.setInsertionPointToEnd(header);
  b.create<LLVM::CondBrOp>(loc, more, forward, exit);
  b.setInsertionPointToEnd(forward);
  Value runs =
      w == 0 ? Value()
             : b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::slt, t, i64(n));
  if (failed(part(parts[0], /*backward=*/false, runs, t, latch)))
    return failure();
  // The backward part: micro-batch t - w, once t >= w.
  if (!parts[1].empty()) {
    loc = loop.getLoc();
    Value i = b.create<LLVM::SubOp>(loc, t, i64(w));
    if (failed(part(
            parts[1], /*backward=*/true,
            b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::sge, t, i64(w)), i,
            latch)))
      return failure();
  }
  b.create<LLVM::BrOp>(loc, ValueRange(), latch);
  b.setInsertionPointToEnd(latch);
  Value next = b.create<LLVM::AddOp>(loc, t, i64(1));
  b.create<LLVM::BrOp>(loc, ValueRange{next}, header);
  // The runtime is at the loop's last micro-batch: an op after it marked
  // with its micro-batch (a peeled one) tells the runtime again.
  currentMicroBatch = -1;
  b.setInsertionPointToEnd(exit);
  return success();
}
