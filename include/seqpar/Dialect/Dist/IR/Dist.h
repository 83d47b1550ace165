//===- Dist.h - the dist dialect --------------------------------*- C++ -*-===//

#ifndef SEQPAR_DIALECT_DIST_IR_DIST_H
#define SEQPAR_DIALECT_DIST_IR_DIST_H

#include "seqpar/Dialect/Tfm/IR/Tfm.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace seqpar::dist {

/// How a value is spread over one mesh axis.
struct Sharding {
  enum class Kind { Replicated, Split, Partial };
  Kind kind = Kind::Replicated;
  /// For Split: the tensor dimension, and into how many equal blocks it is
  /// cut before each block is split over the axis (1: a plain contiguous
  /// split; 3: GPT-2's fused [q | k | v] weight, where each rank holds its
  /// part of every block).
  int64_t dim = 0;
  int64_t blocks = 1;
  /// For Split: the zigzag split of context parallelism. The dimension is
  /// cut into 2n chunks over an axis of n ranks and rank r holds chunk r
  /// followed by chunk 2n-1-r (two blocks, the second in reverse rank
  /// order), so that every rank does the same causal-attention work.
  /// `blocks` is 2. A zigzag split is the outermost split of its dimension:
  /// another axis splitting the same dimension cuts the rank's part.
  bool zigzag = false;

  static Sharding replicated() { return {}; }
  static Sharding split(int64_t d, int64_t blocks = 1) {
    return {Kind::Split, d, blocks};
  }
  static Sharding zigzagSplit(int64_t d) {
    return {Kind::Split, d, 2, /*zigzag=*/true};
  }
  static Sharding partial() { return {Kind::Partial, 0, 1}; }
  bool isReplicated() const { return kind == Kind::Replicated; }
  bool isSplit() const { return kind == Kind::Split; }
  bool isPartial() const { return kind == Kind::Partial; }
  bool isZigzag() const { return isSplit() && zigzag; }
  bool operator==(const Sharding &o) const {
    return kind == o.kind &&
           (kind != Kind::Split ||
            (dim == o.dim && blocks == o.blocks && zigzag == o.zigzag));
  }
  bool operator!=(const Sharding &o) const { return !(*this == o); }
  /// "R", "P", "S(d)", "S(d, blocks = k)" or "S(d, zigzag)", as written in
  /// #dist.layout.
  std::string str() const {
    if (!isSplit())
      return isPartial() ? "P" : "R";
    std::string s = "S(" + std::to_string(dim);
    if (zigzag)
      s += ", zigzag";
    else if (blocks != 1)
      s += ", blocks = " + std::to_string(blocks);
    return s + ")";
  }
};

} // namespace seqpar::dist

#include "seqpar/Dialect/Common/SeqparEnums.h"
#include "seqpar/Dialect/Common/StoragePrecision.h"
#include "seqpar/Dialect/Dist/IR/DistEnums.h.inc"
#include "seqpar/Dialect/Dist/IR/DistOpsDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "seqpar/Dialect/Dist/IR/DistAttrs.h.inc"

#include "seqpar/Dialect/Dist/IR/DistInterfaces.h.inc"

namespace seqpar::dist {
/// sp-partition's state and policy as the per-op rewrites see it
/// (PartitionContext.h).
class PartitionContext;
} // namespace seqpar::dist

#include "seqpar/Dialect/Dist/IR/ShardingInterfaces.h.inc"

namespace seqpar::dist {
class MeshOp;
/// Checks that the layout of `type` (if any) names `mesh` (or no mesh, the
/// empty layout), only axes of it, splits dimensions below the rank, and cuts
/// blocks that divide the local size.
/// `emitError` starts a diagnostic that the message completes.
mlir::LogicalResult
verifyLayoutOnMesh(mlir::Type type, MeshOp mesh,
                   llvm::function_ref<mlir::InFlightDiagnostic()> emitError);

/// The checks shared by every collective: the mesh and axis exist and every
/// layout of the op's types names only axes of the mesh; then the op's own
/// shape and layout checks for the axis size.
mlir::LogicalResult
verifyCollectiveSymbolUses(CollectiveOpInterface op,
                           mlir::SymbolTableCollection &symbolTable);

class MeshOp;
/// An error at `op` unless `axis` of `mesh` has role context (ring
/// attention's axis).
mlir::LogicalResult verifyRingAttentionAxis(mlir::Operation *op, MeshOp mesh,
                                            llvm::StringRef axis);
} // namespace seqpar::dist

#define GET_OP_CLASSES
#include "seqpar/Dialect/Dist/IR/DistOps.h.inc"

namespace seqpar::dist {
/// The mesh of an SPMD module (null if it has none). The SPMD passes take at
/// most one (each layout names it; verifyLayoutOnMesh checks that): with two,
/// a diagnostic at the second and failure. The one place that checks it.
mlir::FailureOr<MeshOp> getMesh(mlir::ModuleOp module);

/// The sharding on `axis` of a value's type (replicated without a layout).
inline Sharding typeSharding(mlir::Value v, llvm::StringRef axis) {
  LayoutAttr layout = LayoutAttr::fromType(v.getType());
  return layout ? layout.getSharding(axis) : Sharding::replicated();
}

/// Whether `use` is the input of a fused all-gather + GEMM
/// (dist.all_gather_matmul, dist.all_gather_matmul_gelu,
/// dist.all_gather_matmul_grad_weight), which the
/// runtime gathers in its storage precision (bf16 / f16: half the bytes of
/// f32), whatever the GEMMs read: sp-legalize-precision does not convert it
/// even when it wraps the op, and convert-sp-to-runtime accepts it.
inline bool gathersInStoragePrecision(mlir::OpOperand &use) {
  return use.getOperandNumber() == 0 &&
         mlir::isa<AllGatherMatmulOp, AllGatherMatmulGeluOp,
                   AllGatherMatmulGradWeightOp>(use.getOwner());
}

/// Whether the fused all-gather + GEMM `op` widens its gathered bf16 / f16
/// input to f32 for f32 GEMMs: every other tensor of it is f32 (what
/// sp-legalize-precision leaves with storage-gemms=false). Its workspace
/// then holds a widened chunk of every rank, and it lowers to the runtime's
/// _widened_f32 entry point; otherwise its GEMMs read every tensor as
/// stored (_typed), or it is all f32.
inline bool widensGatheredInput(mlir::Operation *op) {
  if (!mlir::isa<AllGatherMatmulOp, AllGatherMatmulGeluOp,
                 AllGatherMatmulGradWeightOp>(op))
    return false;
  auto elementType = [](mlir::Value v) {
    return mlir::cast<mlir::ShapedType>(v.getType()).getElementType();
  };
  mlir::Type in = elementType(op->getOperand(0));
  auto isF32 = [&](mlir::Value v) { return elementType(v).isF32(); };
  return (in.isBF16() || in.isF16()) &&
         llvm::all_of(op->getOperands().drop_front(), isF32) &&
         llvm::all_of(op->getResults(), isF32);
}
} // namespace seqpar::dist

#endif // SEQPAR_DIALECT_DIST_IR_DIST_H
