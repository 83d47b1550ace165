//===- DistFolds.cpp - folders and canonicalization of collectives --------===//
//
// Folders (no new op):
//   - a collective over a mesh axis of size 1 is its operand, when the two
//     types are identical;
//   - all_gather(local_slice(x)) and local_slice(all_gather(x)) on the same
//     mesh, axis and dim are x; so is all_to_all(all_to_all(x)) that splits
//     back the dimension the first one concatenated.
//
// Patterns (one collective instead of two, never more bytes sent):
//   - local_slice(all_reduce sum(x)) -> reduce_scatter(x);
//   - all_gather(reduce_scatter(x)) -> all_reduce sum(x);
//   - local_slice(all_gather(x)) on different dims -> all_to_all(x);
//   - all_to_all(local_slice(x)) -> local_slice(x) on the split dimension;
//   - all_gather(all_to_all(x)) on the split dimension -> all_gather(x) on
//     the concatenated one.
//
// Every rewrite keeps the types of the values it replaces, so users and the
// layout algebra see exactly the types they saw before. On an axis of size 1
// the layouts S(d), P and R describe the same data, but they are different
// types (a collective with layouts always changes the layout of its axis),
// so such a collective is kept: the dialect has no layout cast, and
// replacing it would change the types of its users.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

/// The size of the axis `op` communicates on, or std::nullopt when its mesh
/// or axis cannot be found (the op is then invalid and left alone).
static std::optional<int64_t> axisSizeOf(CollectiveOpInterface op) {
  auto mesh = SymbolTable::lookupNearestSymbolFrom<MeshOp>(op.getOperation(),
                                                           op.getMeshRef());
  if (!mesh)
    return std::nullopt;
  return mesh.getAxisSize(op.getMeshAxis());
}

/// `input` if `op` runs over an axis of size 1 and does not change the type.
static OpFoldResult foldUnitAxis(CollectiveOpInterface op, Value input) {
  Value result = op->getResult(0);
  if (input.getType() != result.getType())
    return {};
  std::optional<int64_t> n = axisSizeOf(op);
  if (!n || *n != 1)
    return {};
  return input;
}

/// Whether two collectives communicate on the same mesh axis.
static bool sameAxis(CollectiveOpInterface a, CollectiveOpInterface b) {
  return a.getMeshRef() == b.getMeshRef() && a.getMeshAxis() == b.getMeshAxis();
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

OpFoldResult AllGatherOp::fold(FoldAdaptor) {
  // Gathering the blocks every rank sliced from one replicated value.
  if (auto slice = getInput().getDefiningOp<LocalSliceOp>())
    if (sameAxis(*this, slice) && slice.getDim() == getDim() &&
        slice.getInput().getType() == getType())
      return slice.getInput();
  return foldUnitAxis(*this, getInput());
}

OpFoldResult LocalSliceOp::fold(FoldAdaptor) {
  // Rank i's block of the gathered value is what rank i contributed.
  if (auto gather = getInput().getDefiningOp<AllGatherOp>())
    if (sameAxis(*this, gather) && gather.getDim() == getDim() &&
        gather.getInput().getType() == getType())
      return gather.getInput();
  return foldUnitAxis(*this, getInput());
}

OpFoldResult AllToAllOp::fold(FoldAdaptor) {
  // S(a) -> S(b) -> S(a): the second exchange sends every block back.
  if (auto first = getInput().getDefiningOp<AllToAllOp>())
    if (sameAxis(*this, first) && first.getSplitDim() == getConcatDim() &&
        first.getConcatDim() == getSplitDim() &&
        first.getInput().getType() == getType())
      return first.getInput();
  return foldUnitAxis(*this, getInput());
}

OpFoldResult ReduceScatterOp::fold(FoldAdaptor) {
  return foldUnitAxis(*this, getInput());
}

OpFoldResult AllReduceOp::fold(FoldAdaptor) {
  // One contribution: its sum, mean, max and min are itself.
  return foldUnitAxis(*this, getInput());
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
/// local_slice(all_reduce sum(x)) -> reduce_scatter(x): P -> R -> S(d) is
/// P -> S(d), and a reduce-scatter sends half an all-reduce's bytes. Only a
/// sum (reduce_scatter sums), and only when the slice is the all-reduce's
/// only user (otherwise the all-reduce stays and the reduce-scatter is extra).
struct AllReduceThenSlice : OpRewritePattern<LocalSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LocalSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto reduce = slice.getInput().getDefiningOp<AllReduceOp>();
    if (!reduce || !sameAxis(slice, reduce) ||
        reduce.getKind() != ReductionKind::sum || !reduce->hasOneUse())
      return failure();
    rewriter.replaceOpWithNewOp<ReduceScatterOp>(
        slice, slice.getType(), reduce.getInput(), slice.getMeshAttr(),
        slice.getAxisAttr(), slice.getDimAttr());
    return success();
  }
};

/// all_gather(reduce_scatter(x)) on the same dim -> all_reduce sum(x):
/// P -> S(d) -> R is P -> R, the same bytes in one collective. Only when the
/// gather is the reduce-scatter's only user (the shard is needed by no one
/// else) and the gathered type has x's shape and element type.
struct ReduceScatterThenGather : OpRewritePattern<AllGatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllGatherOp gather,
                                PatternRewriter &rewriter) const override {
    auto scatter = gather.getInput().getDefiningOp<ReduceScatterOp>();
    if (!scatter || !sameAxis(gather, scatter) ||
        scatter.getDim() != gather.getDim() || !scatter->hasOneUse())
      return failure();
    auto in = cast<RankedTensorType>(scatter.getInput().getType());
    auto out = gather.getType();
    if (in.getShape() != out.getShape() ||
        in.getElementType() != out.getElementType())
      return failure();
    rewriter.replaceOpWithNewOp<AllReduceOp>(
        gather, out, scatter.getInput(), gather.getMeshAttr(),
        gather.getAxisAttr(),
        ReductionKindAttr::get(getContext(), ReductionKind::sum));
    return success();
  }
};

/// local_slice(all_gather(x, a), b) with a != b -> all_to_all(x, split b,
/// concat a): S(a) -> R -> S(b) without materialising the whole tensor, and
/// 1/n of the gather's bytes. (The partitioner converts S(a) -> S(b) through
/// R; it never needs to.) Only when the gather has no other user.
struct GatherThenSlice : OpRewritePattern<LocalSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LocalSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto gather = slice.getInput().getDefiningOp<AllGatherOp>();
    if (!gather || !sameAxis(slice, gather) ||
        gather.getDim() == slice.getDim() || !gather->hasOneUse())
      return failure();
    rewriter.replaceOpWithNewOp<AllToAllOp>(
        slice, slice.getType(), gather.getInput(), slice.getMeshAttr(),
        slice.getAxisAttr(), slice.getDimAttr(), gather.getDimAttr());
    return success();
  }
};

/// all_to_all(local_slice(x, a), split b, concat a) -> local_slice(x, b):
/// R -> S(a) -> S(b) is R -> S(b), which sends nothing.
struct SliceThenAllToAll : OpRewritePattern<AllToAllOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllToAllOp exchange,
                                PatternRewriter &rewriter) const override {
    auto slice = exchange.getInput().getDefiningOp<LocalSliceOp>();
    if (!slice || !sameAxis(exchange, slice) ||
        slice.getDim() != exchange.getConcatDim())
      return failure();
    rewriter.replaceOpWithNewOp<LocalSliceOp>(
        exchange, exchange.getType(), slice.getInput(), exchange.getMeshAttr(),
        exchange.getAxisAttr(), exchange.getSplitDimAttr());
    return success();
  }
};

/// all_gather(all_to_all(x, split b, concat a), b) -> all_gather(x, a):
/// S(a) -> S(b) -> R is S(a) -> R, one collective fewer.
struct AllToAllThenGather : OpRewritePattern<AllGatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllGatherOp gather,
                                PatternRewriter &rewriter) const override {
    auto exchange = gather.getInput().getDefiningOp<AllToAllOp>();
    if (!exchange || !sameAxis(gather, exchange) ||
        exchange.getSplitDim() != gather.getDim())
      return failure();
    rewriter.replaceOpWithNewOp<AllGatherOp>(
        gather, gather.getType(), exchange.getInput(), gather.getMeshAttr(),
        gather.getAxisAttr(), exchange.getConcatDimAttr());
    return success();
  }
};
} // namespace

void AllGatherOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ReduceScatterThenGather, AllToAllThenGather>(context);
}

void LocalSliceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<AllReduceThenSlice, GatherThenSlice>(context);
}

void AllToAllOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                             MLIRContext *context) {
  results.add<SliceThenAllToAll>(context);
}
