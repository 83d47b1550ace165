//===- SpFuseCollectiveMatmul.cpp - collectives fused with GEMMs ----------===//
//
// Under sequence parallelism every column-parallel GEMM reads a norm output
// all-gathered along the sequence, and every row-parallel GEMM's partial
// output is reduce-scattered along it. Fused, the collective goes in chunks
// and the GEMM of one chunk overlaps the transfer of another; the gathered
// input (or the whole partial output) is never materialised.
//
// The backward of a column-parallel GEMM has the same two collectives:
//  - its input gradient dx = linear_grad_input(dy, W) is partial over the
//    axis and reduce-scattered along the sequence. linear_grad_input with
//    one weight layout is exactly the forward linear with the other
//    (dy W for W [out, in] is linear(dy, W) reading W as [in', out'] =
//    [out, in]; both backends issue the identical GEMM call for the two),
//    so it becomes dist.matmul_reduce_scatter with the flipped layout:
//    the same op, not a new one;
//  - its weight gradient reads the saved sequence shard re-gathered: a
//    gather whose readers are all linear_grad_weight ops (several for
//    Llama's q, k and v) becomes one dist.all_gather_matmul_grad_weight,
//    one gathered chunk stream feeding every weight gradient.
// The row-parallel GEMM's backward gathers its output gradient for both
// linear_grad_input and linear_grad_weight (as their dy): two different
// GEMMs need the gathered value whole, so that gather is left alone.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/Transforms/Passes.h"
#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

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

/// A fused op is a recomputed forward op (sp-recompute's tfm.recomputed:
/// its FLOPs are recompute's cost in sp-report) when its GEMM was, and of
/// its GEMM's micro-batch (sp-micro-batches' tfm.in_micro_batch: the
/// runtime's micro-batch, and whether sp-report counts it as forward).
static void keepMarks(Operation *fused, Operation *gemm) {
  StringRef mark = tfm::TfmDialect::RecomputedAttrHelper::getNameStr();
  if (gemm->hasAttr(mark))
    fused->setAttr(mark, UnitAttr::get(fused->getContext()));
  StringRef micro = tfm::TfmDialect::InMicroBatchAttrHelper::getNameStr();
  if (Attribute in = gemm->getAttr(micro))
    fused->setAttr(micro, in);
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
  keepMarks(fused, linear);
  linear.replaceAllUsesWith(fused.getResult());
  linear.erase();
  gather.erase();
  return true;
}

/// The other weight layout.
static seqpar::WeightLayout flipped(seqpar::WeightLayout layout) {
  return layout == seqpar::WeightLayout::out_in ? seqpar::WeightLayout::in_out
                                                : seqpar::WeightLayout::out_in;
}

/// Fuses `gemm`, a bias-free linear(input, weight) with `layout`, into the
/// reduce_scatter that is its only user, and the bias_add that alone reads
/// the result, if any; returns whether it did.
static bool fuseIntoScatter(Operation *gemm, Value input, Value weight,
                            seqpar::WeightLayout layout, int64_t chunks) {
  if (!gemm->hasOneUse())
    return false;
  auto scatter = dyn_cast<ReduceScatterOp>(*gemm->getUsers().begin());
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
  SmallVector<Location> locs{gemm->getLoc(), scatter.getLoc()};
  if (biasAdd)
    locs.push_back(biasAdd.getLoc());
  auto fused = b.create<MatmulReduceScatterOp>(
      b.getFusedLoc(locs), last->getResult(0).getType(), input, weight,
      biasAdd ? biasAdd.getBias() : Value(), scatter.getMeshAttr(),
      scatter.getAxisAttr(), scatter.getDimAttr(),
      b.getI64IntegerAttr(chunksFor(rows, chunks)),
      seqpar::WeightLayoutAttr::get(b.getContext(), layout));
  keepMarks(fused, gemm);
  last->getResult(0).replaceAllUsesWith(fused.getResult());
  if (biasAdd)
    biasAdd.erase();
  scatter.erase();
  gemm->erase();
  return true;
}

/// A bias-free row-parallel linear and the reduce-scatter of its output.
static bool fuse(tfm::LinearOp linear, int64_t chunks) {
  if (linear.getBias())
    return false;
  return fuseIntoScatter(linear, linear.getInput(), linear.getWeight(),
                         linear.getWeightLayout(), chunks);
}

/// A column-parallel linear's input gradient and its reduce-scatter: the
/// forward GEMM of dy with the weight read in the other layout.
static bool fuse(tfm::LinearGradInputOp grad, int64_t chunks) {
  return fuseIntoScatter(grad, grad.getDy(), grad.getWeight(),
                         flipped(grad.getWeightLayout()), chunks);
}

/// Fuses `gather` with the linear_grad_weight ops that are all its users
/// (reading it as their input), if every dy they read is available at the
/// first of them, where the fused op goes; returns whether it did.
static bool fuseGradWeights(AllGatherOp gather, int64_t chunks,
                            DominanceInfo &dominance) {
  if (gather.getDim() != 0 || gather->use_empty())
    return false;
  SmallVector<tfm::LinearGradWeightOp> grads;
  for (Operation *user : gather->getUsers()) {
    auto grad = dyn_cast<tfm::LinearGradWeightOp>(user);
    // A reader of another kind, or one taking the gather as its dy (the
    // gather would be needed whole), or a GEMM of another weight layout
    // (the fused op has one) keeps the gather.
    if (!grad || grad.getInput() != gather.getResult() ||
        grad.getDy() == gather.getResult() ||
        grad->getBlock() != gather->getBlock() ||
        grad.getWeightLayout() != (grads.empty()
                                       ? grad.getWeightLayout()
                                       : grads.front().getWeightLayout()))
      return false;
    if (!llvm::is_contained(grads, grad))
      grads.push_back(grad);
  }
  llvm::sort(grads, [](tfm::LinearGradWeightOp a, tfm::LinearGradWeightOp b) {
    return a->isBeforeInBlock(b);
  });
  Operation *first = grads.front();
  for (tfm::LinearGradWeightOp grad : grads)
    if (!dominance.properlyDominates(grad.getDy(), first))
      return false;
  SmallVector<Value> dys;
  SmallVector<Type> types;
  SmallVector<Location> locs{gather.getLoc()};
  for (tfm::LinearGradWeightOp grad : grads) {
    dys.push_back(grad.getDy());
    types.push_back(grad.getType());
    locs.push_back(grad.getLoc());
  }
  int64_t rows =
      cast<RankedTensorType>(gather.getInput().getType()).getDimSize(0);
  OpBuilder b(first);
  auto fused = b.create<AllGatherMatmulGradWeightOp>(
      b.getFusedLoc(locs), types, gather.getInput(), dys, gather.getMeshAttr(),
      gather.getAxisAttr(), gather.getDimAttr(),
      b.getI64IntegerAttr(chunksFor(rows, chunks)),
      grads.front().getWeightLayoutAttr());
  keepMarks(fused, first);
  for (auto [grad, dw] : llvm::zip(grads, fused.getResults())) {
    // The gradient contribution each was (tfm.contributes) moves with it.
    if (StringAttr tag = tfm::getContributionTag(grad->getResult(0)))
      tfm::setContributionTag(cast<OpResult>(dw), tag);
    grad.getResult().replaceAllUsesWith(dw);
    grad.erase();
  }
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
    SmallVector<tfm::LinearOp> linears;
    SmallVector<tfm::LinearGradInputOp> gradInputs;
    getOperation().walk([&](Operation *op) {
      if (auto g = dyn_cast<AllGatherOp>(op))
        gathers.push_back(g);
      else if (auto l = dyn_cast<tfm::LinearOp>(op))
        linears.push_back(l);
      else if (auto gi = dyn_cast<tfm::LinearGradInputOp>(op))
        gradInputs.push_back(gi);
    });
    // Row-parallel GEMMs first: a fused gather erases its linear.
    for (tfm::LinearOp l : linears)
      fuse(l, chunks);
    for (tfm::LinearGradInputOp gi : gradInputs)
      fuse(gi, chunks);
    DominanceInfo dominance(getOperation());
    for (AllGatherOp g : gathers)
      if (!fuse(g, chunks))
        fuseGradWeights(g, chunks, dominance);
  }
};
} // namespace
