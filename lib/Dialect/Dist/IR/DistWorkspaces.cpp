//===- DistWorkspaces.cpp - the workspaces of the dist ops' kernels -------===//
//
// WorkspaceOpInterface: the device memory each dist op's runtime kernel
// (runtime/core/Collectives.cpp, FusedOps.cpp, TrainOps.cpp) uses beyond its
// operands and results, computed as the kernel computes it, so that the
// planner places exactly what the runtime checks for and uses. The axis size
// is the ratio of the verified types (the verifiers tie it to the mesh).
// Counts saturate at INT64_MAX: a workspace of that size cannot be placed,
// which the planner reports.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

static constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

static int64_t mul(int64_t a, int64_t b) {
  bool overflow = false;
  uint64_t p = llvm::SaturatingMultiply(uint64_t(a), uint64_t(b), &overflow);
  return overflow || p > uint64_t(kSaturated) ? kSaturated : int64_t(p);
}

static int64_t add(int64_t a, int64_t b) {
  bool overflow = false;
  uint64_t s = llvm::SaturatingAdd(uint64_t(a), uint64_t(b), &overflow);
  return overflow || s > uint64_t(kSaturated) ? kSaturated : int64_t(s);
}

static int64_t bytesOf(Value v) {
  return checkedByteSize(v).value_or(kSaturated);
}

static int64_t elementBytes(Value v) {
  return int64_t(llvm::divideCeil(
      cast<ShapedType>(v.getType()).getElementTypeBitWidth(), 8));
}

/// Whether the dimensions of `v` before `dim` multiply to something other
/// than 1: then the blocks along `dim` are strided and the runtime packs or
/// unpacks them (its View's `outer != 1`).
static bool strided(Value v, int64_t dim) {
  int64_t outer = 1;
  for (int64_t d : cast<ShapedType>(v.getType()).getShape().take_front(dim))
    outer = mul(outer, d);
  return outer != 1;
}

/// The axis size the verified shapes fix: `big`'s `dim` over `small`'s.
static int64_t ratio(Value big, Value small, int64_t dim) {
  int64_t s = cast<ShapedType>(small.getType()).getDimSize(dim);
  return s > 0 ? cast<ShapedType>(big.getType()).getDimSize(dim) / s : 1;
}

/// Whether `v` is split in zigzag along `dim` on `axis`: its two chunks are
/// moved apart (the runtime reorders them through the workspace).
static bool zigzag(Value v, StringRef axis, int64_t dim) {
  Sharding s = typeSharding(v, axis);
  return s.isZigzag() && s.dim == dim;
}

int64_t AllGatherOp::getWorkspaceBytes() {
  // Every rank's block received contiguously, then unpacked.
  return strided(getInput(), getDim()) ||
                 zigzag(getInput(), getAxis(), getDim())
             ? bytesOf(getResult())
             : 0;
}

int64_t ReduceScatterOp::getWorkspaceBytes() {
  // Each rank's strided block packed, then reduce-scattered.
  return strided(getInput(), getDim()) ||
                 zigzag(getResult(), getAxis(), getDim())
             ? bytesOf(getInput())
             : 0;
}

int64_t AllToAllOp::getWorkspaceBytes() {
  int64_t in = bytesOf(getInput());
  int64_t bytes = strided(getInput(), getSplitDim()) ? in : 0;
  return add(bytes, strided(getResult(), getConcatDim()) ? in : 0);
}

int64_t AllReduceCoalescedOp::getWorkspaceBytes() {
  // An async reduction packs even one operand: it may die at the start.
  if (getInputs().size() < 2 && !getAsync())
    return 0;
  int64_t bytes = 0;
  for (Value in : getInputs())
    bytes = add(bytes, bytesOf(in));
  return bytes;
}

int64_t ReduceScatterCoalescedOp::getWorkspaceBytes() {
  if (getInputs().size() < 2 && !getAsync())
    return 0;
  int64_t packed = 0;
  for (Value in : getInputs())
    packed = add(packed, bytesOf(in));
  int64_t n = ratio(getInputs().front(), getResults().front(), 0);
  return add(packed, n > 0 ? packed / n : 0);
}

/// min(chunks, 2) buffers of one chunk of every rank's rows: `perRank` is
/// the elements of one rank's block (all chunks), `n` the axis size.
static int64_t chunkBuffers(int64_t chunks, int64_t n, int64_t perRank,
                            int64_t elemBytes) {
  chunks = std::max<int64_t>(chunks, 1);
  return mul(mul(std::min<int64_t>(chunks, 2), n),
             mul(perRank / chunks, elemBytes));
}

/// The chunk buffers of the fused all-gather + GEMM `op`: its input
/// gathered in its own element type and, when it is widened for f32 GEMMs
/// (widensGatheredInput), one chunk of every rank in f32. `n` is the axis
/// size.
static int64_t gatherBuffers(Operation *op, int64_t chunks, int64_t n) {
  Value input = op->getOperand(0);
  auto in = cast<ShapedType>(input.getType());
  int64_t gathered =
      chunkBuffers(chunks, n, in.getNumElements(), elementBytes(input));
  if (!widensGatheredInput(op))
    return gathered;
  int64_t widened =
      chunkBuffers(1, n, in.getNumElements() / std::max<int64_t>(chunks, 1), 4);
  return add(gathered, widened);
}

int64_t AllGatherMatmulOp::getWorkspaceBytes() {
  // This rank's input rows of K, gathered chunk by chunk.
  return gatherBuffers(*this, getChunks(),
                       ratio(getResult(), getInput(), getDim()));
}

int64_t AllGatherMatmulGeluOp::getWorkspaceBytes() {
  // dist.all_gather_matmul's: the GELU maps each chunk's rows in place.
  return gatherBuffers(*this, getChunks(),
                       ratio(getPre(), getInput(), getDim()));
}

int64_t MatmulReduceScatterOp::getWorkspaceBytes() {
  // f32 partial sums of N per row of this rank's output block, for every
  // rank, and a bf16 / f16 bias widened to f32.
  auto out = cast<ShapedType>(getResult().getType());
  int64_t partials =
      chunkBuffers(getChunks(), ratio(getInput(), getResult(), getDim()),
                   out.getNumElements(), 4);
  Value bias = getBias();
  if (!bias || cast<ShapedType>(bias.getType()).getElementType().isF32())
    return partials;
  return add(partials,
             mul(cast<ShapedType>(bias.getType()).getNumElements(), 4));
}

int64_t AllGatherMatmulGradWeightOp::getWorkspaceBytes() {
  // As all_gather_matmul's: the chunks of the gathered input, shared by
  // every GEMM.
  if (getDys().empty())
    return 0;
  return gatherBuffers(*this, getChunks(),
                       ratio(getDys().front(), getInput(), getDim()));
}
