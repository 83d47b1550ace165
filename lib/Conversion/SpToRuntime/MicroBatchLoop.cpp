//===- MicroBatchLoop.cpp - a tfm.micro_batch_loop as an LLVM loop --------===//
//
// Lowering::lowerLoop: the loop's body lowered once, inside an LLVM loop
// over the micro-batches that tells the runtime each one
// (sprt_set_micro_batch) and sums the yielded values into the results.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::tfm;
using namespace seqpar::sptoruntime;

LogicalResult Lowering::lowerLoop(MicroBatchLoopOp loop) {
  // for (i = 0; i < n; ++i) { sprt_set_micro_batch(i, M); body;
  //   results[j] = i == 0 ? yielded[j] : results[j] + yielded[j]; }
  // (the first as a scale by 1: an exact copy, -0 and NaN included), the
  // sums of an unrolled step in its order; n is the loop's count (M
  // unless micro-batches were peeled off after it).
  loc = loop.getLoc();
  int64_t n = loop.getMicroBatches(), m = loop.getStepMicroBatches();
  auto yield = cast<YieldOp>(loop.getBody().front().getTerminator());
  for (auto [i, r] : llvm::enumerate(loop.getResults()))
    if (!cast<RankedTensorType>(r.getType()).getElementType().isF32())
      return loop.emitOpError()
             << "result #" << i << " is " << r.getType()
             << ": the runtime accumulates f32 micro-batch sums";
  Block *before = b.getInsertionBlock();
  Region *region = before->getParent();
  Type i64Ty = b.getI64Type();
  Block *header = b.createBlock(region, region->end(), {i64Ty}, {loc});
  Block *bodyBlock = b.createBlock(region, region->end());
  Block *first = b.createBlock(region, region->end());
  Block *rest = b.createBlock(region, region->end());
  Block *latch = b.createBlock(region, region->end());
  Block *exit = b.createBlock(region, region->end());
  b.setInsertionPointToEnd(before);
  b.create<LLVM::BrOp>(loc, ValueRange{i64(0)}, header);
  b.setInsertionPointToEnd(header);
  Value i = header->getArgument(0);
  Value more = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::slt, i, i64(n));
  b.create<LLVM::CondBrOp>(loc, more, bodyBlock, exit);
  b.setInsertionPointToEnd(bodyBlock);
  loopIndex = i;
  emitCall("sprt_set_micro_batch", {i, i64(m)});
  for (Operation &op : loop.getBody().front().without_terminator())
    if (failed(lower(&op)))
      return failure();
  loc = yield.getLoc();
  Value isFirst =
      b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, i, i64(0));
  b.create<LLVM::CondBrOp>(loc, isFirst, first, rest);
  b.setInsertionPointToEnd(first);
  for (auto [r, v] : llvm::zip(loop.getResults(), yield.getValues()))
    emitCall("sprt_op_scale", {ptr(v), ptr(r), i64(numElements(r)), f64(1.0)});
  b.create<LLVM::BrOp>(loc, ValueRange(), latch);
  b.setInsertionPointToEnd(rest);
  for (auto [r, v] : llvm::zip(loop.getResults(), yield.getValues()))
    emitCall("sprt_add_f32", {ptr(r), ptr(v), ptr(r), i64(numElements(r))});
  b.create<LLVM::BrOp>(loc, ValueRange(), latch);
  b.setInsertionPointToEnd(latch);
  Value next = b.create<LLVM::AddOp>(loc, i, i64(1));
  b.create<LLVM::BrOp>(loc, ValueRange{next}, header);
  loopIndex = Value();
  // The runtime is at the loop's last micro-batch: an op after it marked
  // with its micro-batch (a peeled one) tells the runtime again.
  currentMicroBatch = -1;
  b.setInsertionPointToEnd(exit);
  return success();
}
