//===- DistRingAttention.cpp - dist.ring_attention and its backward -------===//
//
// Verification (given the context axis's size, after
// verifyCollectiveSymbolUses found the mesh and checked the axis's role) and
// the bytes each rank sends around the ring.
//
//===----------------------------------------------------------------------===//

#include "seqpar/Dialect/Dist/IR/Dist.h"
#include "seqpar/Dialect/Tfm/IR/TensorSizes.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace seqpar;
using namespace seqpar::dist;

namespace {
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

/// The checks both ops share: heads, the [s, b, w] shapes of q, k, v (and
/// their types for `others`), positions, lse and the layouts on the axis.
template <typename OpT>
LogicalResult verifyRing(OpT op, int64_t n, Value lse,
                         ArrayRef<std::pair<StringRef, Value>> likeQ,
                         ArrayRef<std::pair<StringRef, Value>> likeK) {
  int64_t h = op.getNumHeads(), kv = op.getNumKvHeads(), d = op.getHeadDim();
  if (h < 1 || kv < 1 || d < 1 || h % kv != 0)
    return op.emitOpError()
           << "heads (" << h << "), kv_heads (" << kv << ") and head_dim (" << d
           << ") must be >= 1 with kv_heads dividing heads";
  if (op.getDocumentCausal() && (!op.getCausal() || !op.getPositions()))
    return op.emitOpError() << "document_causal needs causal and positions";
  if (n < 2)
    return op.emitOpError() << "the ring needs at least 2 ranks on axis '"
                            << op.getAxis() << "', it has " << n;
  auto q = cast<RankedTensorType>(op.getQ().getType());
  if (q.getRank() != 3)
    return op.emitOpError() << "q must have rank 3 [s, b, heads * head_dim], "
                            << "got " << shapeStr(q.getShape());
  const int64_t s = q.getDimSize(0), b = q.getDimSize(1);
  if (s % 2 != 0)
    return op.emitOpError()
           << "this rank's part of the sequence (" << s
           << " rows) must hold two equal zigzag chunks: the sequence ("
           << s * n << " tokens) must be a multiple of 2 x " << op.getAxis()
           << " = " << 2 * n;
  auto expect = [&](StringRef name, Value v, ArrayRef<int64_t> shape,
                    Type elem) -> LogicalResult {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() != shape)
      return op.emitOpError() << name << " must have shape " << shapeStr(shape)
                              << ", got " << shapeStr(t.getShape());
    if (elem && t.getElementType() != elem)
      return op.emitOpError() << name << " element type " << t.getElementType()
                              << " must be " << elem;
    return success();
  };
  if (failed(expect("q", op.getQ(), {s, b, h * d}, Type())))
    return failure();
  for (auto [name, v] : likeQ)
    if (failed(expect(name, v, {s, b, h * d}, q.getElementType())))
      return failure();
  for (auto [name, v] : likeK)
    if (failed(expect(name, v, {s, b, kv * d}, q.getElementType())))
      return failure();
  Builder builder(op.getContext());
  if (failed(expect("lse", lse, {s, b, h}, builder.getF32Type())))
    return failure();
  if (Value p = op.getPositions()) {
    if (failed(expect("positions", p, {s, b}, Type())))
      return failure();
    if (!cast<RankedTensorType>(p.getType()).getElementType().isInteger())
      return op.emitOpError() << "positions must be integers";
  }
  // Layouts: every operand and result is this rank's zigzag part.
  SmallVector<Value> all(op->getOperands());
  llvm::append_range(all, op->getResults());
  for (Value v : all) {
    LayoutAttr l = LayoutAttr::fromType(v.getType());
    if (!l)
      continue;
    if (l.getSharding(op.getAxis()) != Sharding::zigzagSplit(0))
      return op.emitOpError()
             << "every operand and result must be S(0, zigzag) on axis '"
             << op.getAxis() << "' (this rank's zigzag part), got " << l;
  }
  return success();
}

std::optional<int64_t> add(std::optional<int64_t> a, std::optional<int64_t> b) {
  return a && b ? llvm::checkedAdd<int64_t>(*a, *b) : std::nullopt;
}
std::optional<int64_t> times(std::optional<int64_t> a, int64_t k) {
  return a ? llvm::checkedMul<int64_t>(*a, k) : std::nullopt;
}

/// k + v (+ positions): one block of the ring.
template <typename OpT> std::optional<int64_t> blockBytes(OpT op) {
  std::optional<int64_t> kv =
      add(checkedByteSize(op.getK()), checkedByteSize(op.getV()));
  if (Value p = op.getPositions())
    return add(kv, checkedByteSize(p));
  return kv;
}
} // namespace

LogicalResult RingAttentionOp::verifyWithAxisSize(int64_t n) {
  return verifyRing(*this, n, getLse(), {{"result", getResult()}},
                    {{"k", getK()}, {"v", getV()}});
}

LogicalResult RingAttentionGradOp::verifyWithAxisSize(int64_t n) {
  return verifyRing(
      *this, n, getLse(),
      {{"dout", getDout()}, {"result", getResult()}, {"dq", getDq()}},
      {{"k", getK()}, {"v", getV()}, {"dk", getDk()}, {"dv", getDv()}});
}

std::optional<int64_t> RingAttentionOp::getRingBytesSent(int64_t n) {
  return times(blockBytes(*this), n - 1);
}

std::optional<int64_t> RingAttentionGradOp::getRingBytesSent(int64_t n) {
  std::optional<int64_t> dkv =
      add(checkedByteSize(getK()), checkedByteSize(getV()));
  return add(times(blockBytes(*this), n - 1), times(dkv, n));
}

LogicalResult dist::verifyRingAttentionAxis(Operation *op, MeshOp mesh,
                                            StringRef axis) {
  std::optional<AxisRole> role = mesh.getAxisRole(axis);
  if (role != AxisRole::context)
    return op->emitOpError()
           << "axis '" << axis << "' of mesh @" << mesh.getSymName()
           << " must have role context (ring attention splits the sequence "
              "over the context-parallel axis), it has "
           << (role ? stringifyAxisRole(*role) : StringRef("none"));
  return success();
}
