//===- CollectiveChecker.h - shape checks of the collectives ----*- C++ -*-===//
//
// The shape and layout checks every collective's verifier phrases the same
// way (DistOps.cpp): one struct, so that a message reads alike for each op.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_LIB_DIALECT_DIST_IR_COLLECTIVECHECKER_H
#define SEQPAR_LIB_DIALECT_DIST_IR_COLLECTIVECHECKER_H

#include "seqpar/Dialect/Dist/IR/Dist.h"

#include "llvm/Support/CheckedArithmetic.h"

namespace seqpar::dist::checks {
using namespace mlir;

/// Shape and layout checks of a collective, phrased once.
struct CollectiveChecker {
  Operation *op;
  StringRef axis;
  int64_t n;

  RankedTensorType type(Value v) { return cast<RankedTensorType>(v.getType()); }

  LogicalResult dimInRange(StringRef name, int64_t dim, int64_t rank) {
    if (dim < 0 || dim >= rank)
      return op->emitOpError()
             << name << " " << dim << " is out of range for a rank-" << rank
             << " tensor";
    return success();
  }

  /// `to` must be `from` with dimension `dim` scaled by `num / den`.
  LogicalResult scaled(RankedTensorType from, RankedTensorType to,
                       ArrayRef<std::pair<int64_t, bool>> dims) {
    if (from.getElementType() != to.getElementType())
      return op->emitOpError()
             << "element type changes from " << from.getElementType() << " to "
             << to.getElementType();
    SmallVector<int64_t> expected(from.getShape());
    for (auto [dim, multiply] : dims) {
      if (!multiply && expected[dim] % n != 0)
        return op->emitOpError() << "dimension " << dim << " (" << expected[dim]
                                 << ") is not divisible by the size of axis '"
                                 << axis << "' (" << n << ")";
      if (multiply) {
        std::optional<int64_t> gathered =
            llvm::checkedMul<int64_t>(expected[dim], n);
        if (!gathered)
          return op->emitOpError()
                 << "dimension " << dim << " (" << expected[dim]
                 << ") times the size of axis '" << axis << "' (" << n
                 << ") overflows int64";
        expected[dim] = *gathered;
      } else {
        expected[dim] /= n;
      }
    }
    if (to.getShape() != ArrayRef<int64_t>(expected)) {
      auto diag = op->emitOpError() << "result shape must be [";
      llvm::interleaveComma(expected, diag);
      diag << "] for axis '" << axis << "' of size " << n << ", got " << to;
      return diag;
    }
    return success();
  }

  /// With layouts on both sides, `in` is `from` on the axis, `out` is `to`,
  /// and all other axes agree.
  LogicalResult transition(RankedTensorType in, RankedTensorType out,
                           Sharding from, Sharding to) {
    // IR without any layouts is not checked; otherwise an unannotated type
    // is replicated on every axis.
    if (!LayoutAttr::fromType(in) && !LayoutAttr::fromType(out))
      return success();
    // The mesh of an unannotated side is the op's (the other side's layout
    // names it too: verifyCollectiveSymbolUses checked that).
    FlatSymbolRefAttr mesh = cast<CollectiveOpInterface>(op).getMeshRef();
    LayoutAttr lin = LayoutAttr::ofType(in, mesh),
               lout = LayoutAttr::ofType(out, mesh);
    if (lin.getSharding(axis) != from)
      return op->emitOpError()
             << "operand must be " << from.str() << " on axis '" << axis
             << "', its layout is " << lin;
    if (lout.getSharding(axis) != to)
      return op->emitOpError() << "result must be " << to.str() << " on axis '"
                               << axis << "', its layout is " << lout;
    if (lin.with(axis, Sharding()) != lout.with(axis, Sharding()))
      return op->emitOpError()
             << "layouts on axes other than '" << axis
             << "' must not change: " << lin << " vs " << lout;
    return success();
  }

  /// The linear part of a fused op: `lhs` (the full GEMM input) times the
  /// weight, plus the bias; returns the GEMM output shape. Each tensor has
  /// its own element type (gemmFloat).
  FailureOr<SmallVector<int64_t>> linearShape(ArrayRef<int64_t> lhs,
                                              Value weight, Value bias,
                                              seqpar::WeightLayout layout) {
    RankedTensorType w = type(weight);
    if (w.getRank() != 2)
      return op->emitOpError() << "weight must have rank 2, got " << w;
    if (failed(gemmFloat(weight, "weight")))
      return failure();
    bool outIn = layout == seqpar::WeightLayout::out_in;
    int64_t in = w.getDimSize(outIn ? 1 : 0), out = w.getDimSize(outIn ? 0 : 1);
    if (in != lhs.back())
      return op->emitOpError()
             << "weight has " << in
             << " input features but the input's last dimension is "
             << lhs.back();
    if (bias) {
      RankedTensorType b = type(bias);
      if (b.getRank() != 1 || b.getDimSize(0) != out)
        return op->emitOpError()
               << "bias must have shape [" << out << "], got " << b;
      if (failed(gemmFloat(bias, "bias")))
        return failure();
    }
    SmallVector<int64_t> shape(lhs);
    shape.back() = out;
    return shape;
  }

  /// `v`, a tensor of a fused GEMM named `what` in the diagnostics, has an
  /// element type the runtime's GEMMs read or write as stored.
  LogicalResult gemmFloat(Value v, const Twine &what) {
    Type et = type(v).getElementType();
    if (et.isF32() || et.isBF16() || et.isF16())
      return success();
    return op->emitOpError()
           << what << " element type must be f32, bf16 or f16, got " << et;
  }

  LogicalResult chunksDivide(int64_t chunks, int64_t size, StringRef what) {
    if (chunks < 1 || size % chunks != 0)
      return op->emitOpError()
             << "chunks (" << chunks << ") must be >= 1 and divide the " << what
             << " (" << size << ")";
    return success();
  }
};
} // namespace seqpar::dist::checks

#endif // SEQPAR_LIB_DIALECT_DIST_IR_COLLECTIVECHECKER_H
