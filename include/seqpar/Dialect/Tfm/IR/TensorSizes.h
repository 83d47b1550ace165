//===- TensorSizes.h - element counts and byte sizes, checked ---*- C++ -*-===//
//
// Every tensor type an op of tfm or dist verifies has an element count and a
// byte size that fit in int64: the passes, the planner and the lowering
// multiply and add these numbers, and a wrapped count would silently place
// tensors on top of each other. The CheckedTensorSizes trait checks every
// operand and result type of an op before its own verifier runs, so that
// verifier and every pass after it may compute in plain int64.
//
//===----------------------------------------------------------------------===//

#ifndef SEQPAR_DIALECT_TFM_IR_TENSORSIZES_H
#define SEQPAR_DIALECT_TFM_IR_TENSORSIZES_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>

namespace seqpar {

/// The number of elements of `shape` (dynamic dimensions are skipped), or
/// std::nullopt when the product overflows int64.
std::optional<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape);

/// The bytes of a shaped type (ceil(bits / 8) per element), or std::nullopt
/// when the element count or the byte size overflows int64.
std::optional<int64_t> checkedByteSize(mlir::ShapedType type);

/// The bytes of a value of tensor type, or std::nullopt (as checkedByteSize).
std::optional<int64_t> checkedByteSize(mlir::Value value);

/// An error at `op` unless the tensor type `type`, which `what` names
/// ("result #0"), has an element count and a byte size that fit in int64.
/// Non-shaped types pass.
mlir::LogicalResult verifyTensorSize(mlir::Operation *op, mlir::Type type,
                                     const llvm::Twine &what);

/// verifyTensorSize for every operand and result of `op`.
mlir::LogicalResult verifyTensorSizes(mlir::Operation *op);

namespace OpTrait {
/// Checks, before the op's own verifier, that every operand and result
/// tensor type of the op has an element count and byte size within int64.
template <typename ConcreteType>
class CheckedTensorSizes
    : public mlir::OpTrait::TraitBase<ConcreteType, CheckedTensorSizes> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyTensorSizes(op);
  }
};
} // namespace OpTrait

} // namespace seqpar

#endif // SEQPAR_DIALECT_TFM_IR_TENSORSIZES_H
