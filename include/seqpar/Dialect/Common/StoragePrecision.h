//===- StoragePrecision.h - ops that run on any storage type ----*- C++ -*-===//
//
// The precision policy stores tensors in bf16 or f16 and computes in f32:
// the runtime's compute kernels take f32 buffers. The ops that only move
// bytes (a copy, a slice, a collective that gathers or exchanges blocks, a
// point-to-point transfer, a parameter read) have runtime calls that take
// the element size, so they run on the stored type as is; they carry the
// MovesBytes trait. Every other op with a bf16 or f16 tensor is made to
// compute in f32 by sp-legalize-precision, and convert-sp-to-runtime
// rejects one that was not. Reductions (all_reduce, reduce_scatter and the
// fused GEMM collectives) add numbers: they are not byte movers. The
// coalesced gradient reductions, though, sum bf16 natively when all their
// operands are bf16 (Bf16ReductionOpInterface: sp-sync-grads'
// grad-reduce-dtype=bf16 halves the bytes on the wire), and are kept so.
// The GEMMs (tfm.linear and its gradients, and the fused collective GEMMs
// of dist) read their operands and write their results as stored,
// computing in f32 inside the kernel (StoragePrecisionOpInterface): no f32
// copy of a bf16 weight or activation is made for them. The fused GEMMs
// that sum across ranks or chunks write their sums in f32. The norms, the
// cross-entropy, their backward and the bias gradient do the same
// (ReducesRowsAsStored): each
// row widened, the f32 kernel's arithmetic, each result rounded once from
// its f32 value. Attention and its backward (AttendsAsStored) read q, k, v
// and dout and write their results as stored, all or none; the head
// reshapes around them (tfm.qkv_split, qkv_concat, repeat_heads) move
// bytes.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_COMMON_STORAGEPRECISION_H
#define SEQPAR_DIALECT_COMMON_STORAGEPRECISION_H

#include "mlir/IR/OpDefinition.h"

#include "seqpar/Dialect/Common/SeqparInterfaces.h.inc"

namespace seqpar {
namespace OpTrait {
/// The op moves bytes without arithmetic; its runtime call takes the
/// element size, so its tensors may be bf16 or f16 (SeqparTraits.td).
template <typename ConcreteOp>
class MovesBytes : public mlir::OpTrait::TraitBase<ConcreteOp, MovesBytes> {};

/// A row reduction (norm, cross-entropy) or its backward whose runtime
/// kernel reads and writes its tensors as stored (StoragePrecisionOpInterface;
/// SeqparTraits.td).
template <typename ConcreteOp>
class ReducesRowsAsStored
    : public mlir::OpTrait::TraitBase<ConcreteOp, ReducesRowsAsStored> {};

/// Attention or its backward, whose runtime kernel reads and writes all its
/// tensors as stored (StoragePrecisionOpInterface; SeqparTraits.td).
template <typename ConcreteOp>
class AttendsAsStored
    : public mlir::OpTrait::TraitBase<ConcreteOp, AttendsAsStored> {};

/// The op maps elements one by one in one element type, and its runtime
/// kernel reads and writes bf16/f16 as stored (SeqparTraits.td).
template <typename ConcreteOp>
class MapsElementsAsStored
    : public mlir::OpTrait::TraitBase<ConcreteOp, MapsElementsAsStored> {};
} // namespace OpTrait

/// Whether `op` runs on bf16/f16 tensors as they are stored: it moves bytes
/// (tfm.convert, tfm.get_param, dist.all_gather, dist.local_slice,
/// dist.all_to_all, dist.send, dist.recv), or it is a reduction the runtime
/// computes in bf16 and all its operands are bf16 (a sum of
/// dist.all_reduce_coalesced, dist.reduce_scatter_coalesced). The one
/// predicate of both sp-legalize-precision and convert-sp-to-runtime's type
/// check.
inline bool keepsStoragePrecision(mlir::Operation *op) {
  if (op->hasTrait<OpTrait::MovesBytes>())
    return true;
  auto reduction = mlir::dyn_cast<Bf16ReductionOpInterface>(op);
  return reduction && reduction.reducesNativelyInBf16();
}

/// Whether `op` maps elements (MapsElementsAsStored) and its runtime kernel
/// can read and write them as stored: its results (one type for all, as
/// the ops declare) are bf16 or f16 tensors.
inline bool mapsElementsAsStored(mlir::Operation *op) {
  if (!op->hasTrait<OpTrait::MapsElementsAsStored>() ||
      op->getNumResults() == 0)
    return false;
  return llvm::all_of(op->getResultTypes(), [](mlir::Type t) {
    auto tensor = mlir::dyn_cast<mlir::RankedTensorType>(t);
    return tensor && (tensor.getElementType().isBF16() ||
                      tensor.getElementType().isF16());
  });
}

/// Whether the runtime kernel of `use`'s op reads that operand as stored
/// (StoragePrecisionOpInterface: a GEMM of mixed precision).
inline bool readsStoragePrecision(mlir::OpOperand &use) {
  auto op = mlir::dyn_cast<StoragePrecisionOpInterface>(use.getOwner());
  return op && op.readsStoragePrecision(use.getOperandNumber());
}

/// Whether the runtime kernel of `result`'s op writes it in its own element
/// type, rounded once (StoragePrecisionOpInterface).
inline bool writesStoragePrecision(mlir::OpResult result) {
  auto op = mlir::dyn_cast<StoragePrecisionOpInterface>(result.getOwner());
  return op && op.writesStoragePrecision(result.getResultNumber());
}
} // namespace seqpar

#endif // SEQPAR_DIALECT_COMMON_STORAGEPRECISION_H
