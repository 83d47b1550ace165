//===- SpFuseCollectiveMatmul.cpp - all_gather + linear, chunked ----------===//
//
// Under sequence parallelism every column-parallel GEMM reads a norm output
// all-gathered along the sequence. Fused, the gather goes in chunks and the
// GEMM of one chunk overlaps the transfer of the next; the gathered input is
// never materialised.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace seqpar::dist {
#define GEN_PASS_DEF_SPFUSECOLLECTIVEMATMULPASS
#include "seqpar/Dialect/Dist/Transforms/Passes.h.inc"
} // namespace seqpar::dist

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// The most chunks, at most `wanted`, that split `size` evenly.
static int64_t chunksFor(int64_t size, int64_t wanted) {
  for (int64_t c = std::min(wanted, size); c > 1; --c)
    if (size % c == 0)
      return c;
  return 1;
}

/// Fuses `gather` into the linear that is its only user; returns whether
/// it did.
static bool fuse(AllGatherOp gather, int64_t chunks) {
  if (gather.getDim() != 0 || !gather->hasOneUse())
    return false;
  auto linear = dyn_cast<tfm::LinearOp>(*gather->getUsers().begin());
  if (!linear || linear.getInput() != gather.getResult())
    return false;
  int64_t rows =
      cast<RankedTensorType>(gather.getInput().getType()).getDimSize(0);
  OpBuilder b(linear);
  auto fused = b.create<AllGatherMatmulOp>(
      b.getFusedLoc({gather.getLoc(), linear.getLoc()}), linear.getType(),
      gather.getInput(), linear.getWeight(), linear.getBias(),
      gather.getMeshAttr(), gather.getAxisAttr(), gather.getDimAttr(),
      b.getI64IntegerAttr(chunksFor(rows, chunks)),
      linear.getWeightLayoutAttr());
  linear.replaceAllUsesWith(fused.getResult());
  linear.erase();
  gather.erase();
  return true;
}

namespace {
struct SpFuseCollectiveMatmulPass
    : dist::impl::SpFuseCollectiveMatmulPassBase<SpFuseCollectiveMatmulPass> {
  using Base::Base;
  void runOnOperation() override {
    if (chunks < 1) {
      getOperation().emitError()
          << "sp-fuse-collective-matmul: chunks must be >= 1, got "
          << int64_t(chunks);
      return signalPassFailure();
    }
    SmallVector<AllGatherOp> gathers;
    getOperation().walk([&](AllGatherOp g) { gathers.push_back(g); });
    for (AllGatherOp g : gathers)
      fuse(g, chunks);
  }
};
} // namespace
