//===- SpFuseCollectiveMatmul.cpp - all_gather + linear, chunked ----------===//
//
// Under sequence parallelism every column-parallel GEMM reads a norm output
// all-gathered along the sequence, and every row-parallel GEMM's partial
// output is reduce-scattered along it. Fused, the collective goes in chunks
// and the GEMM of one chunk overlaps the transfer of another; the gathered
// input (or the whole partial output) is never materialised.
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

/// Fuses a bias-free `linear` into the reduce_scatter that is its only user,
/// and the bias_add that alone reads the result, if any; returns whether it
/// did.
static bool fuse(tfm::LinearOp linear, int64_t chunks) {
  if (linear.getBias() || !linear->hasOneUse())
    return false;
  auto scatter = dyn_cast<ReduceScatterOp>(*linear->getUsers().begin());
  if (!scatter || scatter.getDim() != 0)
    return false;
  tfm::BiasAddOp biasAdd;
  if (scatter->hasOneUse())
    biasAdd = dyn_cast<tfm::BiasAddOp>(*scatter->getUsers().begin());
  if (biasAdd && biasAdd.getInput() != scatter.getResult())
    biasAdd = nullptr;
  Operation *last = biasAdd ? biasAdd.getOperation() : scatter.getOperation();
  int64_t rows = scatter.getType().getDimSize(0);
  OpBuilder b(last);
  SmallVector<Location> locs{linear.getLoc(), scatter.getLoc()};
  if (biasAdd)
    locs.push_back(biasAdd.getLoc());
  auto fused = b.create<MatmulReduceScatterOp>(
      b.getFusedLoc(locs), last->getResult(0).getType(), linear.getInput(),
      linear.getWeight(), biasAdd ? biasAdd.getBias() : Value(),
      scatter.getMeshAttr(), scatter.getAxisAttr(), scatter.getDimAttr(),
      b.getI64IntegerAttr(chunksFor(rows, chunks)),
      linear.getWeightLayoutAttr());
  last->getResult(0).replaceAllUsesWith(fused.getResult());
  if (biasAdd)
    biasAdd.erase();
  scatter.erase();
  linear.erase();
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
    SmallVector<tfm::LinearOp> linears;
    getOperation().walk([&](Operation *op) {
      if (auto g = dyn_cast<AllGatherOp>(op))
        gathers.push_back(g);
      else if (auto l = dyn_cast<tfm::LinearOp>(op))
        linears.push_back(l);
    });
    // Row-parallel GEMMs first: a fused gather erases its linear.
    for (tfm::LinearOp l : linears)
      fuse(l, chunks);
    for (AllGatherOp g : gathers)
      fuse(g, chunks);
  }
};
} // namespace
