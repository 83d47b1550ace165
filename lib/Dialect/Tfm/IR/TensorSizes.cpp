//===- TensorSizes.cpp - element counts and byte sizes, checked -----------===//

#include "seqpar/Dialect/Tfm/IR/TensorSizes.h"

#include "ShapeFormat.h"

#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;

std::optional<int64_t> seqpar::checkedNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      continue;
    std::optional<int64_t> next = llvm::checkedMul<int64_t>(n, d);
    if (!next)
      return std::nullopt;
    n = *next;
  }
  return n;
}

/// Bytes per element: ceil(bits / 8) for integers and floats, 1 otherwise
/// (no seqpar op has other element types; ODS rejects them).
static int64_t elementBytes(Type t) {
  return t.isIntOrFloat()
             ? int64_t(llvm::divideCeil(t.getIntOrFloatBitWidth(), 8))
             : 1;
}

std::optional<int64_t> seqpar::checkedByteSize(ShapedType type) {
  std::optional<int64_t> n = checkedNumElements(type.getShape());
  if (!n)
    return std::nullopt;
  return llvm::checkedMul<int64_t>(*n, elementBytes(type.getElementType()));
}

std::optional<int64_t> seqpar::checkedByteSize(Value value) {
  return checkedByteSize(cast<ShapedType>(value.getType()));
}

LogicalResult seqpar::verifyTensorSize(Operation *op, Type type,
                                       const Twine &what) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return success();
  if (!checkedNumElements(shaped.getShape()))
    return op->emitOpError()
           << what << " has shape " << tfm::shapeStr(shaped.getShape())
           << ", whose element count overflows int64";
  if (!checkedByteSize(shaped))
    return op->emitOpError()
           << what << " has shape " << tfm::shapeStr(shaped.getShape())
           << " of " << shaped.getElementType()
           << ", whose size in bytes overflows int64";
  return success();
}

LogicalResult seqpar::verifyTensorSizes(Operation *op) {
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(verifyTensorSize(op, v.getType(), "operand #" + Twine(i))))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(verifyTensorSize(op, v.getType(), "result #" + Twine(i))))
      return failure();
  return success();
}
